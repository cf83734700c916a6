"""ONNX Runtime sessions for grounding's models (OCR and the UI detector): the execution providers a device setting
means (CUDA only where onnxruntime-gpu really has it), threads, one-line errors for files that are not models, and
the cache of rewritten graphs (onnx_graph's rewrite of PP-OCR's recogniser costs ~0.3 s a process, import included;
its result is kept on disk, keyed by the source file and the rewriting code, so only the first process pays)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from importlib import metadata
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING

from deskpilot.core.errors import GroundingError

from . import onnx_graph

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

log = logging.getLogger(__name__)


def rewrite_cache_dir() -> Path:
    """Where rewritten graphs are kept: $XDG_CACHE_HOME/deskpilot/onnx (~/.cache/deskpilot/onnx)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "deskpilot" / "onnx"


def rewritten(path: Path) -> str | bytes:
    """onnx_graph's rewrite of the model at `path`: the cached file's path when an earlier process made it, else
    made now and cached (written whole or not at all); the bytes themselves where the cache cannot be written."""
    stat = path.stat()
    code = _code_digest(onnx_graph)
    key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{code}|{metadata.version('onnx')}"
                         .encode()).hexdigest()[:24]
    cached = rewrite_cache_dir() / f"{path.stem}-{key}.onnx"
    if cached.is_file():
        return str(cached)
    model = onnx_graph.simplified(path)
    partial = cached.with_name(f"{cached.name}.{os.getpid()}.partial")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(model)
        os.replace(partial, cached)
    except OSError as exc:
        log.debug("rewritten graph of %s not cached: %s", path, exc)
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        return model
    return str(cached)


def _code_digest(module: ModuleType) -> str:
    """A digest of the rewrite's code (its functions' byte code, names and constants), so a changed rewrite is not
    served from the cache. Byte code, not the source file: a bundle (PyInstaller) ships no .py files."""
    digest = hashlib.sha256()
    for name, value in sorted(vars(module).items()):
        code = getattr(value, "__code__", None)
        if isinstance(code, CodeType) and getattr(value, "__module__", None) == module.__name__:
            digest.update(name.encode() + _code_bytes(code))
    return digest.hexdigest()


def _code_bytes(code: CodeType) -> bytes:
    parts = [code.co_code, repr(code.co_names).encode()]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            parts.append(_code_bytes(const))
        elif isinstance(const, frozenset):
            parts.append(repr(sorted(map(repr, const))).encode())  # set order changes with hash seeds
        else:
            parts.append(repr(const).encode())
    return b"".join(parts)


def providers(device: str = "auto") -> list[str]:
    """ONNX Runtime execution providers for `device` (auto | cpu | cuda); CUDA only where it is really there."""
    import onnxruntime as ort

    available = ort.get_available_providers()
    if device == "cuda" and "CUDAExecutionProvider" not in available:
        raise GroundingError("CUDA was asked for, but onnxruntime has no CUDA provider here (install "
                             "onnxruntime-gpu on a machine with an NVIDIA GPU)")
    if device in ("auto", "cuda") and "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def open_session(path: Path, device: str = "auto", threads: int = 0, what: str = "model",
                 simplify: bool = False) -> InferenceSession:
    """An inference session on `path` with all graph optimisations; `threads` 0 lets ONNX Runtime choose;
    `simplify` first rewrites the graph where onnx_graph knows an exact faster form (PP-OCR's models; cached)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Worker threads sleep between runs instead of spinning: the CPU is shared with the app being driven and with
    # grounding's other work between runs (decoding, PP-OCR's readers side by side); spinning took ~20 % more CPU
    # time and made a busy full-HD parse slower, not faster.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # warnings about unused initialisers are not the user's business
    chosen = providers(device)
    try:
        source = rewritten(path) if simplify else str(path)
        try:
            return ort.InferenceSession(source, options, providers=chosen)
        except Exception:
            if not simplify or isinstance(source, bytes):
                raise
            Path(source).unlink(missing_ok=True)  # a cached rewrite damaged on disk: make it again
            return ort.InferenceSession(rewritten(path), options, providers=chosen)
    except Exception as exc:  # not an ONNX file, a truncated one, or a broken install
        raise GroundingError(f"cannot load the {what} {path}: {str(exc).splitlines()[0]}") from None


def session_device(session: InferenceSession) -> str:
    """'cuda' when the session runs on the GPU, else 'cpu'."""
    return "cuda" if session.get_providers()[0] == "CUDAExecutionProvider" else "cpu"

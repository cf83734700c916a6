"""ONNX Runtime sessions for grounding's models (OCR and the UI detector): the execution providers a device setting
means (CUDA only where onnxruntime-gpu really has it), threads, and one-line errors for files that are not models."""

from __future__ import annotations

from pathlib import Path

from deskpilot.core.errors import GroundingError

from .onnx_graph import simplified


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
                 simplify: bool = False):  # noqa: ANN201
    """An inference session on `path` with all graph optimisations; `threads` 0 lets ONNX Runtime choose;
    `simplify` first rewrites the graph where onnx_graph knows an exact faster form (PP-OCR's models)."""
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
        source = simplified(path) if simplify else str(path)
        return ort.InferenceSession(source, options, providers=chosen)
    except Exception as exc:  # not an ONNX file, a truncated one, or a broken install
        raise GroundingError(f"cannot load the {what} {path}: {str(exc).splitlines()[0]}") from None


def session_device(session) -> str:  # noqa: ANN001
    """'cuda' when the session runs on the GPU, else 'cpu'."""
    return "cuda" if session.get_providers()[0] == "CUDAExecutionProvider" else "cpu"

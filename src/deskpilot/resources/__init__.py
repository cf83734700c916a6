"""Package data: the bundled demo app (and `demo`, which starts it), prompt templates, icons and ONNX models."""

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent

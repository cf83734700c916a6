"""Package data: the bundled demo app, prompt templates, icons and ONNX models."""

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent

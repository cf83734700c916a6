"""One config dataclass per training job, each field with its help and its one default: the command-line options
(app.job_options), the app's Train form and the docs' CLI reference are all made from these. Fields without help
are set by the code. Only the standard library here: the CLI reads these without loading torch."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

METHODS = ("sft", "kto", "grpo")
HELD_OUT_SHARE = 0.1  # share of the screens whose lines are kept out of training
STOP_AFTER = {"flag": "--minutes", "help": "stop after this long, whatever the step or epoch"}


@dataclass
class TrainRequest:
    """`deskpilot train sft|kto|grpo`: a planner model on labelled episodes (the method is the command's)."""

    method: str
    model: str = field(metadata={"help": "base model: a local folder (or a cached model id)"})
    data: list[Path] = field(metadata={"help": "episodes folder(s) or episode(s); repeat for more"})
    out: Path = field(metadata={"flag": "--out", "help": "where the adapter / model is written"})
    lora: bool = field(default=True, metadata={"flag": "--lora/--full", "help": "train a LoRA adapter (default) or "
                                                                                "all weights"})
    max_steps: int | None = field(default=None, metadata={"help": "stop after this many optimizer steps"})
    config: Path | None = field(default=None, metadata={"help": "YAML/JSON: TRL settings, lora, rewards"})
    family: str | None = field(default=None, metadata={"help": "coordinate family (default: guessed from --model)"})
    max_images: int = field(default=3, metadata={"help": "screenshots in each prompt, as the planner sends them"})
    mode: str = field(default="native", metadata={"help": "native (screenshots) | som-text (elements as text, for "
                                                          "language models)"})


@dataclass
class DetectorTrainConfig:
    """`deskpilot detector train`: the UI-element detector."""

    data: list[Path] = field(metadata={"help": "dataset folder(s) from `detector render`; repeat for more"})
    out: Path = field(metadata={"flag": "--out", "help": "where detector.pt, ui_detector.onnx and metrics.csv go"})
    epochs: int = field(default=15, metadata={"help": "passes over the screens", "typer": {"min": 1}})
    max_minutes: float | None = field(default=None, metadata=STOP_AFTER)
    batch_size: int = field(default=8, metadata={"help": "crops per step (per process)", "typer": {"min": 1}})
    crop: int = field(default=320, metadata={"help": "side of the training crops, in network input pixels (a "
                                                     "multiple of 32, at least 64)"})
    learning_rate: float = field(default=3e-3, metadata={"help": "peak AdamW learning rate"})
    width: int = field(default=16, metadata={"help": "channels of the first stage (model size)"})
    seed: int = field(default=0, metadata={"help": "seed of the crops and the initial weights"})
    log_every: int = 10
    init: Path | None = field(default=None, metadata={"help": "start from this detector.pt (--width is then the "
                                                              "checkpoint's)"})


@dataclass
class RecognizerTrainConfig:
    """`deskpilot recognizer train`: the text-line recogniser."""

    data: list[Path] = field(metadata={"help": "dataset folder(s) from `recognizer harvest`; repeat for more"})
    out: Path = field(metadata={"flag": "--out", "help": "where recognizer.pt, text_recognizer.onnx, report.json "
                                                         "and metrics.csv go"})
    steps: int = field(default=8000, metadata={"help": "optimizer steps", "typer": {"min": 1}})
    max_minutes: float | None = field(default=None, metadata=STOP_AFTER)
    batch_size: int = field(default=48, metadata={"help": "lines per step (per process)", "typer": {"min": 1}})
    width: int = field(default=32, metadata={"help": "channels of the first layer (model size)"})
    learning_rate: float = field(default=2e-3, metadata={"help": "peak AdamW learning rate"})
    synthetic: int = field(default=60000, metadata={"help": "synthetic lines drawn with this machine's fonts (and "
                                                            "a tenth as many, held out)", "typer": {"min": 0}})
    held_out: float = HELD_OUT_SHARE
    max_disagreement: float = field(default=0.01, metadata={"help": "the readings the recogniser keeps may disagree "
                                                                    "with PP-OCR on held-out screens this often",
                                                            "typer": {"min": 0.0, "max": 0.99}})
    seed: int = field(default=0, metadata={"help": "seed of the synthetic lines and the initial weights"})
    log_every: int = 20
    init: Path | None = field(default=None, metadata={"help": "a recognizer.pt to go on training (its width is "
                                                              "kept), e.g. after harvesting new lines"})


@dataclass
class TextDetectorTrainConfig:
    """`deskpilot recognizer train-detector`: the text-line detector."""

    data: list[Path] = field(metadata={"help": "dataset folder(s) from `recognizer harvest` (their whole screens); "
                                               "repeat for more"})
    out: Path = field(metadata={"flag": "--out", "help": "where text_detector.pt, text_detector.onnx, "
                                                         "detector_report.json and metrics.csv go"})
    steps: int = field(default=4000, metadata={"help": "optimizer steps", "typer": {"min": 1}})
    max_minutes: float | None = field(default=None, metadata=STOP_AFTER)
    batch_size: int = field(default=8, metadata={"help": "crops per step (per process)", "typer": {"min": 1}})
    crop: int = field(default=320, metadata={"help": "side of the square crops, pixels (a multiple of 32, at least "
                                                     "64)"})
    width: int = field(default=8, metadata={"help": "channels of the first layer (model size)", "typer": {"min": 4}})
    learning_rate: float = field(default=3e-3, metadata={"help": "peak AdamW learning rate"})
    held_out: float = HELD_OUT_SHARE
    seed: int = field(default=0, metadata={"help": "seed of the crops and the initial weights"})
    log_every: int = 20

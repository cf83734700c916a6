"""`deskpilot detector render|train|export|eval`: make synthetic screens, train the UI-element detector on them,
export it to ONNX, and score it on held-out screens."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import JsonOption, out, progress_bar, write_json
from deskpilot.core.errors import UsageError
from deskpilot.training.jobs import DetectorTrainConfig

from .job_options import job_command

detector_app = typer.Typer(help="Synthetic data, training and scoring of the UI-element detector.",
                           no_args_is_help=True)

DetectorModelOption = Annotated[Optional[Path], typer.Option(help="detector ONNX file (default: the bundled one)")]
DeviceOption = Annotated[str, typer.Option(help="auto | cpu | cuda")]


@detector_app.command("render")
def render(out_dir: Annotated[Path, typer.Option("--out", help="dataset folder (added to when it exists)")],
           count: Annotated[int, typer.Option(help="screens to render")] = 1000,
           seed: Annotated[int, typer.Option(help="screen i of the folder is drawn from seed and i")] = 0,
           sources: Annotated[str, typer.Option(help="html (headless Chromium) and/or qt (offscreen), comma-"
                                                "separated")] = "html,qt") -> None:
    """Render synthetic screens with the exact box and class of every control."""
    from deskpilot.training.detector.data import render_dataset

    if count < 1:
        raise UsageError("--count must be at least 1")
    progress, task = progress_bar(count, "rendering")
    with progress:
        made = render_dataset(out_dir, count, seed, tuple(s.strip() for s in sources.split(",") if s.strip()),
                              on_screen=lambda _: progress.advance(task))
    boxes = sum(len(s.boxes) for s in made)
    out.print(f"{len(made)} screens, {boxes} boxes -> {out_dir}", markup=False, highlight=False)


def train(config: DetectorTrainConfig) -> None:
    """Train the detector (accelerate: CPU, a GPU, or `accelerate launch` for more), export it to ONNX and check
    that ONNX Runtime agrees with PyTorch."""
    from deskpilot.training.detector.train import train_detector

    if config.crop % 32 or config.crop < 64:
        raise UsageError("--crop must be a multiple of 32, at least 64")
    progress, task = progress_bar(1, "training")

    def show(step: int, total: int, metrics: dict[str, float]) -> None:
        progress.update(task, completed=step, total=total, info=f"loss {metrics['loss']:.3f}")

    with progress:
        summary = train_detector(config, show)
    out.print(f"{summary['steps']} steps on {summary['screens']} screens in {summary['seconds']} s, last loss "
              f"{summary['loss']}", markup=False, highlight=False)
    if "onnx" in summary:
        out.print(f"onnx: {summary['onnx']} (max difference from PyTorch {summary['onnx_max_difference']:.2g}); "
                  "use it with detector_model in config.toml or DESKPILOT_DETECTOR_MODEL", markup=False,
                  highlight=False)


detector_app.command("train")(job_command(DetectorTrainConfig, train, train.__doc__ or ""))


@detector_app.command("export")
def export(checkpoint: Annotated[Path, typer.Option(help="detector.pt from `detector train`")],
           out_file: Annotated[Path, typer.Option("--out", help="the ONNX file to write")],
           check_image: Annotated[Optional[Path], typer.Option(help="a screenshot to compare PyTorch and ONNX on")]
           = None) -> None:
    """Export a trained checkpoint to ONNX again and check it against PyTorch."""
    import numpy as np

    from deskpilot.core.episode import read_image
    from deskpilot.training.detector.train import check_export, export_onnx, load_checkpoint

    net = load_checkpoint(checkpoint)
    image = read_image(check_image) if check_image else np.random.default_rng(0).integers(0, 255, (800, 1280, 3),
                                                                                           np.uint8)
    if image is None:
        raise UsageError(f"cannot read image {check_image}")
    out_file.parent.mkdir(parents=True, exist_ok=True)
    difference = check_export(net, export_onnx(net, out_file), image)
    out.print(f"onnx: {out_file} (max difference from PyTorch {difference:.2g})", markup=False, highlight=False)


@detector_app.command("eval")
def evaluate(data: Annotated[Path, typer.Option(help="held-out dataset folder from `detector render`")],
             model: DetectorModelOption = None, json_file: JsonOption = None,
             device: DeviceOption = "auto") -> None:
    """Precision and recall per class at IoU 0.5 on held-out synthetic screens, and ms per frame."""
    from deskpilot.grounding.detector import UiDetector
    from deskpilot.training.detector.data import read_dataset
    from deskpilot.training.detector.evaluate import evaluate_screens

    screens = read_dataset(data)
    detector = UiDetector(model, device)

    progress, task = progress_bar(len(screens), "scoring")
    with progress:
        report = evaluate_screens(detector, screens, on_screen=lambda n: progress.update(task, completed=n))
    finish_report(report, detector, json_file, data=str(data))


def finish_report(report: dict, detector, json_file: Optional[Path], **about: object) -> None:  # noqa: ANN001
    """Add which model scored it (and `about`), print the table, write the JSON."""
    report.update({"model": str(detector.path), "device": detector.device, **about})
    print_report(report)
    write_json(json_file, report)


def print_report(report: dict) -> None:
    out.print(f"{'class':<10} {'precision':>9} {'recall':>7} {'boxes':>6}", markup=False)
    for name, row in report["classes"].items():
        out.print(f"{name:<10} {row['precision']:>9.3f} {row['recall']:>7.3f} "
                  f"{row['true_positives'] + row['false_negatives']:>6}", markup=False, highlight=False)
    out.print(f"all: precision {report['precision']:.3f}, recall {report['recall']:.3f}, class-blind recall "
              f"{report['clickable_recall']:.3f} (centre inside: {report['clickable_hit_recall']:.3f}); "
              f"{report['screens']} screens, {report['ms_per_frame']} ms/frame "
              f"({report['device']})", markup=False, highlight=False)

"""`deskpilot recognizer harvest|train|export|train-detector`: collect text lines from real screens (PP-OCR's
readings as labels) and train deskpilot's own text-line recogniser on them and on synthetic lines, and its own
text-line detector on the whole screens (PP-OCR's lines as targets); both exported to ONNX for grounding."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import err, out, progress_bar
from deskpilot.core.errors import UsageError
from deskpilot.training.jobs import RecognizerTrainConfig, TextDetectorTrainConfig

from .job_options import job_command

recognizer_app = typer.Typer(help="Text lines from real screens, and training of deskpilot's text recogniser.",
                             no_args_is_help=True)


CUTS = {"ppocr": (True, False), "text-detector": (False, True), "both": (True, True)}


@recognizer_app.command("harvest")
def harvest(out_dir: Annotated[Path, typer.Option("--out", help="dataset folder (added to when it exists)")],
            screens: Annotated[Optional[list[Path]], typer.Option(help="a folder of screenshots (PNG), e.g. "
                                                                 "`detector render`'s images/; repeat for more")]
            = None,
            pages: Annotated[Optional[list[Path]], typer.Option(help="an earlier harvest's folder whose whole "
                                                               "screens to cut again (each keeps its screen's "
                                                               "group, so held-out screens stay held out); "
                                                               "repeat for more")] = None,
            miniwob: Annotated[Optional[str], typer.Option(help="comma-separated MiniWoB++ tasks whose pages to "
                                                           "read, or 'all': every task but the 19 of `eval "
                                                           "miniwob` (kept out so grounding's score there stays "
                                                           "held out)")] = None,
            episodes: Annotated[int, typer.Option(help="MiniWoB pages (seeds) per task and scale")] = 2,
            seed: Annotated[int, typer.Option(help="seed of the first MiniWoB page")] = 100,
            scales: Annotated[str, typer.Option(help="Chromium device scale factors, comma-separated")] = "1,2",
            cut: Annotated[str, typer.Option(help="whose line boxes cut the crops: ppocr (PP-OCR's detector; the "
                                             "screens are kept whole too), text-detector (deskpilot's text-line "
                                             "detector, text_detector_model or the bundled one: the crops the "
                                             "recogniser reads at run time) or both")] = "both"
            ) -> None:
    """Cut the text lines out of real screens and keep the ones PP-OCR reads surely, as labelled crops."""
    from deskpilot.core.settings import load_settings
    from deskpilot.grounding import text_detector
    from deskpilot.grounding.ocr import OcrEngine
    from deskpilot.training.detector.data import load_rgb
    from deskpilot.training.recognizer.data import LineWriter, harvest_screen, read_pages

    if cut not in CUTS:
        raise UsageError(f"--cut must be one of {', '.join(CUTS)}, not {cut!r}")
    ppocr_cut, own_cut = CUTS[cut]
    shots = [(p, f"{p.parent.name}/{p.stem}") for folder in screens or [] for p in sorted(Path(folder).glob("*.png"))]
    if screens and not shots:
        raise UsageError(f"no PNG screenshots in {', '.join(map(str, screens))}")
    shots += [(page.image, page.group) for folder in pages or [] for page in read_pages(folder)]
    if not shots and not miniwob:
        raise UsageError("give --screens, --pages and/or --miniwob")
    writer, teacher = LineWriter(out_dir), OcrEngine()
    cutter = OcrEngine(text_detector=load_settings().text_detector_model or text_detector.bundled_model()) \
        if own_cut else None
    kept = 0
    if shots:
        progress, task = progress_bar(len(shots), "screens")
        with progress:
            for path, group in shots:
                kept += harvest_screen(load_rgb(path), teacher, writer, group, cutter, ppocr_cut)
                progress.update(task, advance=1, info=f"{kept} lines")
    if miniwob:
        kept += _harvest_miniwob(miniwob, episodes, seed, scales, teacher, writer, cutter, ppocr_cut)
    out.print(f"{kept} lines kept -> {out_dir} ({writer.count} lines and {writer.pages} whole screens in all)",
              markup=False, highlight=False)


def _harvest_miniwob(tasks: str, episodes: int, seed: int, scales: str, teacher, writer,  # noqa: ANN001
                     cutter, ppocr_cut: bool) -> int:
    from deskpilot.core.display import ensure_screen
    from deskpilot.core.screen import Screen
    from deskpilot.evaluation.grounding import miniwob_screens
    from deskpilot.evaluation.miniwob.tasks import DEFAULT_TASKS
    from deskpilot.evaluation.miniwob.page import MiniWobBrowser, all_tasks
    from deskpilot.training.recognizer.data import harvest_screen

    chosen = [t for t in all_tasks() if t not in DEFAULT_TASKS] if tasks == "all" else \
        [t.strip() for t in tasks.split(",") if t.strip()]
    try:
        factors = [float(s) for s in scales.split(",") if s.strip()]
    except ValueError:
        raise UsageError(f"--scales must be numbers, comma-separated, not {scales!r}") from None
    if episodes < 1 or not chosen or not factors:
        raise UsageError("--miniwob needs tasks, --episodes >= 1 and at least one scale")
    kept = 0
    progress, task = progress_bar(len(chosen) * episodes * len(factors), "MiniWoB pages")
    with ExitStack() as stack, progress:
        if ensure_screen(stack):
            err.print("no display: started a virtual one (Xvfb)", style="dim")
        for factor in factors:
            with MiniWobBrowser(scale=factor).start(chosen[0]) as browser:
                for name, page_seed, obs, _, _ in miniwob_screens(browser, Screen(), chosen, episodes, seed):
                    group = f"miniwob/{name}/{page_seed}@{factor:g}"
                    kept += harvest_screen(obs.image, teacher, writer, group, cutter, ppocr_cut)
                    progress.update(task, advance=1, info=f"{kept} lines")
    return kept


def train(config: RecognizerTrainConfig) -> None:
    """Train the recogniser (accelerate: CPU, a GPU, or `accelerate launch`), choose its accept threshold on
    held-out screens, export it to ONNX and check that ONNX Runtime agrees with PyTorch."""
    from deskpilot.training.recognizer.train import train_recognizer

    steps = config.steps
    progress, task = progress_bar(steps, "training")

    def show(step: int, total: int, metrics: dict[str, float]) -> None:
        progress.update(task, completed=step, total=total, info=f"loss {metrics['loss']:.3f}")

    with progress:
        report = train_recognizer(config, show)
    out.print(f"{report['steps']} steps in {report['seconds']} s, last loss {report['loss']}", markup=False,
              highlight=False)
    _print_scores(report)


def _print_scores(report: dict) -> None:
    synthetic = report["synthetic"]
    out.print(f"held-out screens: agreement with PP-OCR {report['agreement']:.3f}; {report['accepted']:.1%} of lines "
              f"accepted at certainty >= {report['accept']} ({report['accepted_disagreement']:.2%} of those "
              f"disagree)", markup=False, highlight=False)
    out.print(f"held-out synthetic lines (known text): accuracy {synthetic['accuracy']:.3f}, on the "
              f"{synthetic['accepted']:.1%} accepted {synthetic['accepted_accuracy']:.3f}; PP-OCR "
              f"{synthetic['ppocr_accuracy']:.3f}", markup=False, highlight=False)
    if report.get("int8"):
        floating = report["float"]
        out.print(f"int8: the same reading as the float model on {report['same_as_float']:.1%} of held-out lines; "
                  f"float model: {floating['accepted']:.1%} accepted at >= {floating['accept']} "
                  f"({floating['accepted_disagreement']:.2%} disagree)", markup=False, highlight=False)
        out.print(f"onnx (int8): {report['onnx']}; use it with text_recognizer_model in config.toml or "
                  "DESKPILOT_TEXT_RECOGNIZER_MODEL", markup=False, highlight=False)
        return
    out.print(f"onnx: {report['onnx']} (max difference from PyTorch {report['onnx_max_difference']:.2g}); use it "
              "with text_recognizer_model in config.toml or DESKPILOT_TEXT_RECOGNIZER_MODEL", markup=False,
              highlight=False)


@recognizer_app.command("export")
def export(checkpoint: Annotated[Path, typer.Option(help="recognizer.pt from `recognizer train`")],
           data: Annotated[list[Path], typer.Option(help="the dataset folder(s) it was trained on (their held-out "
                                                    "screens choose the threshold)")],
           out_file: Annotated[Path, typer.Option("--out", help="the ONNX file to write")],
           max_disagreement: Annotated[float, typer.Option(help="the readings the recogniser keeps may disagree "
                                                           "with PP-OCR on held-out screens this often")] = 0.01,
           synthetic: Annotated[int, typer.Option(help="held-out synthetic lines to score")] = 3000,
           seed: Annotated[int, typer.Option(help="the training seed (held-out synthetic lines use seed + 1)")]
           = 0,
           int8: Annotated[bool, typer.Option("--int8", help="write an int8 copy (several times faster on a CPU), "
                                                             "its threshold chosen from its own readings")] = False,
           calibration: Annotated[int, typer.Option(min=1, help="training lines to calibrate the int8 copy "
                                                                "on")] = 1024) -> None:
    """Choose the accept threshold again on the held-out screens, export to ONNX and check it against PyTorch."""
    import json

    from deskpilot.training.recognizer.data import read_datasets
    from deskpilot.training.jobs import HELD_OUT_SHARE
    from deskpilot.training.recognizer.train import (calibration_lines, held_out_lines,
                                                     load_checkpoint, threshold_and_export)

    if not 0 <= max_disagreement < 1 or synthetic < 1:
        raise UsageError("--max-disagreement must be in [0, 1) and --synthetic >= 1")
    samples = read_datasets(list(data))
    held = held_out_lines(samples, HELD_OUT_SHARE, synthetic, seed + 1)
    lines = calibration_lines(samples, HELD_OUT_SHARE, calibration, seed) if int8 else None
    out_file.parent.mkdir(parents=True, exist_ok=True)
    report = threshold_and_export(load_checkpoint(checkpoint), held, max_disagreement, out_file, lines)
    out_file.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    _print_scores(report)


def train_detector(config: TextDetectorTrainConfig) -> None:
    """Train the text-line detector (accelerate: CPU, a GPU, or `accelerate launch`), choose its threshold on
    held-out screens, export it to ONNX and check that ONNX Runtime agrees with PyTorch."""
    from deskpilot.training.recognizer.line_detector import train_text_detector

    if config.crop < 64 or config.crop % 32:
        raise UsageError("--crop must be a multiple of 32, at least 64")
    steps = config.steps
    progress, task = progress_bar(steps, "training")

    def show(step: int, total: int, metrics: dict[str, float]) -> None:
        progress.update(task, completed=step, total=total, info=f"loss {metrics['loss']:.3f}")

    with progress:
        report = train_text_detector(config, show)
    out.print(f"{report['steps']} steps in {report['seconds']} s, last loss {report['loss']}", markup=False,
              highlight=False)
    out.print(f"held-out screens: {report['recall']:.3f} of PP-OCR's {report['held_out_lines']} lines found, "
              f"precision {report['precision']:.3f} (IoU >= 0.5, threshold {report['threshold']})", markup=False,
              highlight=False)
    out.print(f"onnx: {report['onnx']} (max difference from PyTorch {report['onnx_max_difference']:.2g}); use it "
              "with text_detector_model in config.toml or DESKPILOT_TEXT_DETECTOR_MODEL", markup=False,
              highlight=False)


recognizer_app.command("train")(job_command(RecognizerTrainConfig, train, train.__doc__ or ""))
recognizer_app.command("train-detector")(job_command(TextDetectorTrainConfig, train_detector,
                                                     train_detector.__doc__ or ""))

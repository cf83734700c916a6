"""Grounding on a GPU against the CPU beside it, per screen and per model, in one run: the OCR grounder (deskpilot's
text-line detector, its recogniser, PP-OCR's recogniser where that one is unsure, the UI detector) on saved screens,
each model on

- cpu: every model on the CPU (all its cores);
- cuda: every model on CUDA (cuDNN's heuristic algorithm choice), a session per input shape, inputs padded to the
  shape ladder (grounding.onnx_session);
- auto: each model where grounding.device_choice measured it faster on this machine (measured at the first load,
  from an empty cache, on its sample screen; the load's time and the figures it chose by are printed); a model on
  CUDA runs a shape without a session yet on the CPU while that session is made in the background;
- cuda-one-session: every model on CUDA in one session that sees every input shape unpadded (as before the ladder).

Three figures per screen and variant, medians: a new screen to a running grounder (its sessions warm from the other
screens, nothing of this one seen: what an agent pays per new screen), the same screen parsed at once after it (under
`auto` the sessions the new screen asked for may still be in the making, the CPU standing in) and the same screen
again once they are made (reading cache emptied), with each model's share (text-line detection, recognition, UI
detector). Each is a ratio to the CPU in the same run; the elements each variant finds are compared with the CPU's.
Each variant runs in a Python process of its own (in one process the variant measured last was the slowest GPU
variant in three runs of three). With --as-shipped, also CUDA as it was (cuDNN's exhaustive search) on the busiest
screen.

    python benchmarks/gpu_grounding.py screens --out DIR        # here: the demo app, a Qt save dialog, a busy desktop
    python benchmarks/gpu_grounding.py measure --screens DIR [--repeats 7] [--new 3] [--out FILE.jsonl]
    python benchmarks/gpu_grounding.py models --screens DIR     # each model's run alone, on the CPU and on CUDA

The measure step needs only numpy, opencv, onnxruntime(-gpu), rapidfuzz and rapidocr-onnxruntime (for PP-OCR's
models) beside deskpilot's source: it runs on a lent GPU machine (../shared/notes/gpu.md)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import cv2
import numpy as np

from deskpilot.core.geometry import Monitor
from deskpilot.core.observation import Observation
from deskpilot.grounding import onnx_session
from deskpilot.grounding.detector import UiDetector
from deskpilot.grounding.ocr import OcrEngine
from deskpilot.grounding.ocr_grounder import OcrGrounder
from deskpilot.grounding.text_detector import bundled_model as bundled_text_detector
from deskpilot.grounding.text_recognizer import bundled_model as bundled_recognizer

STAGES = {"text lines": "ocr_detect_ms", "reading": "ocr_recognise_ms", "UI detector": "detector_ms"}
# name -> (device setting, fixed shapes: None = as the device wants)
VARIANTS = ("cpu", "cuda", "auto", "cuda-one-session")
QT_SAVE_DIALOG = """
import sys
from PySide6.QtWidgets import QApplication, QFileDialog
app = QApplication(sys.argv)
dialog = QFileDialog(None, "Save report as", "/usr/share/doc", "Text files (*.txt);;All files (*)")
dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
dialog.selectFile("quarterly-report.txt")
dialog.resize(1100, 700)
dialog.show()
app.exec()
"""


def make_screens(out: Path) -> None:
    """Screenshots of the demo app (1280x800), a Qt save dialog (1280x800) and a busy full-HD desktop (three demo
    windows), on Xvfb."""
    from deskpilot.core.display import VirtualDisplay
    from deskpilot.core.screen import Screen
    from deskpilot.resources.demo import DemoApp

    out.mkdir(parents=True, exist_ok=True)

    def shoot(name: str) -> None:
        image = Screen().wait_until_settled(timeout=3.0)
        cv2.imwrite(str(out / f"{name}.png"), np.ascontiguousarray(image[:, :, ::-1]))
        print(f"{name}: {image.shape[1]}x{image.shape[0]}", flush=True)

    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        display = VirtualDisplay(1280, 800).start()
        stack.callback(display.stop)
        display.activate()
        demo = DemoApp(Path(tmp) / "state.json").start()
        shoot("demo-app")
        demo.stop()
        dialog = subprocess.Popen([sys.executable, "-c", QT_SAVE_DIALOG], env={**os.environ, "QT_QPA_PLATFORM": "xcb"})
        time.sleep(4.0)
        shoot("qt-save-dialog")
        dialog.terminate()
        dialog.wait()
        busy = VirtualDisplay(1920, 1080).start()
        stack.callback(busy.stop)
        busy.activate()
        for index, geometry in enumerate(("0,0,900,560", "940,60,940,600", "300,480,900,560")):
            stack.callback(DemoApp(Path(tmp) / f"busy-{index}.json", geometry=geometry).start().stop)
        shoot("busy-desktop")


def observation(image: np.ndarray) -> Observation:
    return Observation(image=image, monitor=Monitor(0, 0, image.shape[1], image.shape[0]), cursor=None)


def new_grounder(variant: str) -> OcrGrounder:
    device = "cuda" if variant == "cuda-one-session" else variant
    with ExitStack() as stack:
        if variant == "cuda-one-session":  # what open_session gave on CUDA before ShapeSessions
            shaped = onnx_session.open_session
            onnx_session.open_session = lambda path, device="cpu", threads=0, what="model", rewrite=None: \
                onnx_session._one_session(path, device, threads, what, rewrite)
            stack.callback(setattr, onnx_session, "open_session", shaped)
        engine = OcrEngine(device=device, recognizer=bundled_recognizer(), text_detector=bundled_text_detector())
        grounder = OcrGrounder(engine, detector=UiDetector(device=device))
        grounder.load()
    return grounder


def sessions(grounder: OcrGrounder) -> dict[str, object]:
    engine = grounder.engine
    return {"text lines": getattr(engine._lines, "_session", None), "small recogniser":
            getattr(engine._fast, "_session", None), "PP-OCR recogniser": engine._rec,
            "UI detector": grounder.detector.session if grounder.detector else None}


def shapes(grounder: OcrGrounder) -> dict[str, int]:
    """Per model, the input shapes that have a session of their own (CUDA's ShapeSessions; 0: one session)."""
    return {name: session.shapes if isinstance(session, onnx_session.ShapeSessions) else 0
            for name, session in sessions(grounder).items()}


def settle(grounder: OcrGrounder) -> None:
    """Waits for the sessions `auto` is making in the background (its CPU stands in meanwhile)."""
    for session in sessions(grounder).values():
        if isinstance(session, onnx_session.ShapeSessions):
            session.settle()


def parse_ms(grounder: OcrGrounder, image: np.ndarray) -> tuple[float, dict[str, float], list[tuple]]:
    grounder.engine.forget_readings()
    grounder.engine.forget_text_size()
    fresh = OcrGrounder(grounder.engine, detector=grounder.detector)  # nothing of an earlier frame kept
    started = time.perf_counter()
    elements = fresh.parse(observation(image))
    total = (time.perf_counter() - started) * 1000
    found = sorted((e.role, e.text, tuple(e.box)) for e in elements)
    return total, {name: fresh.timing.get(key, 0.0) for name, key in STAGES.items()}, found


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def measure(screens: dict[str, np.ndarray], variant: str, repeats: int, new: int,
            emit: Callable[[dict], None]) -> dict[str, list[tuple]]:
    """The variant's figures on every screen, emitted as they come; the elements it found on each."""
    found: dict[str, list[tuple]] = {}
    for name, image in screens.items():
        others = [img for other, img in screens.items() if other != name]
        new_screen: list[float] = []
        next_parse: list[float] = []
        loads: list[float] = []
        made: list[int] = []  # sessions the new screen's parse had to make (shapes no other screen had)
        for _ in range(new):  # sessions warm from the other screens, this one never seen
            started = time.perf_counter()
            grounder = new_grounder(variant)
            loads.append(time.perf_counter() - started)
            for other in others:
                parse_ms(grounder, other)
            settle(grounder)
            before = sum(shapes(grounder).values())
            new_screen.append(parse_ms(grounder, image)[0])
            next_parse.append(parse_ms(grounder, image)[0])  # at once: auto's new sessions may not be made yet
            settle(grounder)
            made.append(sum(shapes(grounder).values()) - before)
        again: list[float] = []
        stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
        for _ in range(repeats):
            total, parts, found[name] = parse_ms(grounder, image)
            again.append(total)
            for stage, value in parts.items():
                stages[stage].append(value)
        emit({"screen": name, "variant": variant, "load_s": round(median(loads), 2),
              "new_screen_ms": median(new_screen), "next_parse_ms": median(next_parse),
              "sessions_made_by_new_screen": made, "again_ms": median(again),
              **{f"{stage}_ms": median(values) for stage, values in stages.items()},
              "devices": {model: device for model, (device, _) in grounder.engine.devices().items()}
              | {"UI detector": grounder.detector.device if grounder.detector else "none"},
              "sessions_per_shape": shapes(grounder), "elements": len(found[name])})
    return found


def as_shipped(image: np.ndarray, new: int, emit: Callable[[dict], None]) -> None:
    """CUDA as it was on one screen: cuDNN's exhaustive search for each new input shape."""
    options = dict(onnx_session.CUDA_OPTIONS)
    onnx_session.CUDA_OPTIONS.clear()
    try:
        samples = []
        for _ in range(new):
            grounder = new_grounder("cuda")
            samples.append(parse_ms(grounder, image)[0])
        emit({"variant": "cuda as shipped (exhaustive search)", "new_screen_ms": median(samples)})
    finally:
        onnx_session.CUDA_OPTIONS.update(options)


def measure_apart(args: argparse.Namespace, variant: str, emit: Callable[[dict], None]) -> dict[str, list[tuple]]:
    """measure() for one variant in a new Python process; its records emitted here, its elements returned."""
    with tempfile.TemporaryDirectory() as folder:
        kept = Path(folder) / "records.jsonl"
        subprocess.run([sys.executable, __file__, "variant", "--screens", str(args.screens), "--variant", variant,
                        "--repeats", str(args.repeats), "--new", str(args.new), "--out", str(kept)], check=True)
        found: dict[str, list[tuple]] = {}
        for line in kept.read_text().splitlines():
            record = json.loads(line)
            if "found" in record:
                found = {name: [(role, text, tuple(box)) for role, text, box in elements]
                         for name, elements in record["found"].items()}
            else:
                emit(record)
    return found


def one_variant(args: argparse.Namespace) -> None:
    """The child of measure_apart: one variant's records, then the elements it found, as JSON lines."""
    screens = {path.stem: cv2.imread(str(path))[:, :, ::-1].copy() for path in sorted(args.screens.glob("*.png"))}
    with args.out.open("w") as out:
        def emit(record: dict) -> None:
            out.write(json.dumps(record) + "\n")
            out.flush()

        found = measure(screens, args.variant, args.repeats, args.new, emit)
        emit({"found": found})


def run(args: argparse.Namespace) -> None:
    import onnxruntime as ort

    screens = {path.stem: cv2.imread(str(path))[:, :, ::-1].copy() for path in sorted(args.screens.glob("*.png"))}
    out = args.out.open("a") if args.out else None

    def emit(record: dict) -> None:
        print(json.dumps(record), flush=True)
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()

    emit({"onnxruntime": ort.__version__, "providers": ort.get_available_providers(), "cpu_cores": os.cpu_count(),
          "screens": {name: f"{img.shape[1]}x{img.shape[0]}" for name, img in screens.items()}})
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # auto measures from an empty cache; rewritten graphs made once
        new_grounder("cpu")  # PP-OCR's rewritten graphs cached before any clock runs
        started = time.perf_counter()
        chosen = new_grounder("auto")
        emit({"auto_first_load_s": round(time.perf_counter() - started, 2),
              "choices": {model: choice.describe() if choice else device
                          for model, (device, choice) in chosen.engine.devices().items()}
              | {"UI detector": chosen.detector.choice.describe() if chosen.detector and chosen.detector.choice
                 else "cpu"}})
        results: dict[str, dict[str, list[tuple]]] = {}
        figures: dict[tuple[str, str], dict] = {}

        def keep(record: dict) -> None:
            figures[(record["screen"], record["variant"])] = record
            emit(record)

        for variant in args.variants:  # each in a process of its own: later grounders in one process ran slower
            results[variant] = measure_apart(args, variant, keep)
        if args.as_shipped:
            busiest = max(screens, key=lambda name: screens[name].size)
            as_shipped(screens[busiest], 2, emit)
    print()
    for name in screens:
        cpu = figures.get((name, "cpu"))
        for variant in args.variants:
            record = figures.get((name, variant))
            if not record or not cpu:
                continue
            same = results[variant][name] == results["cpu"][name]
            print(f"{name:<15} {variant:<19} new screen {record['new_screen_ms']:8.1f} ms "
                  f"({record['new_screen_ms'] / cpu['new_screen_ms']:5.2f}x cpu)  next {record['next_parse_ms']:7.1f} "
                  f"({record['next_parse_ms'] / cpu['next_parse_ms']:5.2f}x)  again {record['again_ms']:7.1f} ms "
                  f"({record['again_ms'] / cpu['again_ms']:5.2f}x)  "
                  + "  ".join(f"{stage} {record[f'{stage}_ms']:.1f}" for stage in STAGES)
                  + f"  elements {'identical' if same else 'DIFFER'}", flush=True)
            if not same:
                theirs, ours = set(results["cpu"][name]), set(results[variant][name])
                emit({"screen": name, "variant": variant, "only_cpu": sorted(theirs - ours)[:12],
                      "only_here": sorted(ours - theirs)[:12]})


def model_runs(args: argparse.Namespace) -> None:
    """Each model's run alone on an input of the busy screen's size (the text-line detector's and the UI detector's
    whole frame, a batch of each recogniser's), median of `repeats` after 3 warm-up runs: on the CPU (all cores) and
    on CUDA (its session for that shape, copies in and out included), with the largest difference of the answers."""
    from deskpilot.grounding import onnx_graph
    from deskpilot.grounding.detector import bundled_model as bundled_ui_detector
    from deskpilot.grounding.detector import screen_bytes
    from deskpilot.grounding.ocr import REC_MODEL, models_dir

    busy = max((cv2.imread(str(path))[:, :, ::-1].copy() for path in args.screens.glob("*.png")),
               key=lambda image: image.size)
    rng = np.random.default_rng(0)
    side = lambda length: onnx_session.ladder(length, 256)  # noqa: E731 - as the text-line detector pads on CUDA
    models = {"text-line detector": (bundled_text_detector(), onnx_graph.byte_input,
                                     {"image": screen_bytes(busy, 1.5, side)}),
              "UI detector": (bundled_ui_detector(), onnx_graph.byte_input, {"image": screen_bytes(busy, 1.0)}),
              "small recogniser": (bundled_recognizer(), None, {"lines": rng.random((16, 1, 32, 384), np.float32)}),
              "PP-OCR recogniser": (models_dir() / REC_MODEL, onnx_graph.simplified,
                                    {"x": rng.uniform(-1, 1, (8, 3, 48, 576)).astype(np.float32)})}
    for name, (path, rewrite, feed) in models.items():
        record: dict[str, object] = {"model": name, "input": {key: list(v.shape) for key, v in feed.items()}}
        answers = {}
        for device in ("cpu", "cuda"):
            session = onnx_session.open_session(path, device, what=name, rewrite=rewrite)
            for _ in range(3):
                session.run(None, feed)
            times = []
            for _ in range(args.repeats):
                started = time.perf_counter()
                answers[device] = session.run(None, feed)
                times.append((time.perf_counter() - started) * 1000)
            record[f"{device}_ms"] = round(median(times), 3)
        record["max_difference"] = float(max(np.abs(a - b).max() for a, b in zip(answers["cpu"], answers["cuda"])))
        print(json.dumps(record), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    screens = commands.add_parser("screens", help="save the benchmark's screens (needs Xvfb, Qt)")
    screens.add_argument("--out", type=Path, required=True)
    timing = commands.add_parser("measure", help="time every variant on the saved screens")
    timing.add_argument("--screens", type=Path, required=True)
    timing.add_argument("--repeats", type=int, default=7, help="parses of the same screen again")
    timing.add_argument("--new", type=int, default=3, help="new-screen parses (each by freshly loaded sessions)")
    timing.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    timing.add_argument("--as-shipped", action="store_true")
    timing.add_argument("--out", type=Path)
    alone = commands.add_parser("models", help="each model's run alone, on the CPU and on CUDA")
    alone.add_argument("--screens", type=Path, required=True)
    alone.add_argument("--repeats", type=int, default=20)
    child = commands.add_parser("variant", help="one variant's figures, as measure runs it in a process of its own")
    child.add_argument("--screens", type=Path, required=True)
    child.add_argument("--variant", choices=VARIANTS, required=True)
    child.add_argument("--repeats", type=int, default=7)
    child.add_argument("--new", type=int, default=3)
    child.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "screens":
        make_screens(args.out)
    elif args.command == "variant":
        one_variant(args)
    elif args.command == "models":
        model_runs(args)
    else:
        run(args)


if __name__ == "__main__":
    main()

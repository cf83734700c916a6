"""Where an agent step's time goes, and how fast grounding parses a whole screen. Every figure is the median (and
p95) of repeated runs, and a ratio to one plain full-frame PP-OCR pass (rapidocr-onnxruntime's defaults, warmed
up) on the same image in the same run, a baseline that holds on any machine.

    python benchmarks/step_latency.py [--repeats N] [--miniwob]

Screens: the demo app on a 1280x800 display; a busy 1920x1080 desktop (three demo-app windows, about 150 lines of
text); with --miniwob, a MiniWoB++ page in Chromium at 200 %. For each: the plain OCR pass, `deskpilot parse
--image` in a fresh process (its reported parse_ms), and a parse by a freshly loaded grounder in this process with
its stages (OCR detection, OCR recognition, layout, detector), beside the same with PP-OCR finding and reading every
line (deskpilot's own text detector and recogniser off: the code before both), and with PP-OCR finding the lines
and deskpilot's recogniser reading them (its text detector off: the code before it); then a parse of the screen
as new to a running grounder (its sessions warm: a freshly loaded one's first full-HD detection also pays ONNX
Runtime's memory set-up for that size, once). Then the agent on the demo
app: a step and its stages (parse and its parts, plan, locate, input, settle wait and the look-ahead parse inside
it, frame write). Starts its own Xvfb."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import cv2
import numpy as np

from deskpilot.core.controller import Controller
from deskpilot.core.display import VirtualDisplay
from deskpilot.core.observation import Observation
from deskpilot.core.safety import ConfirmationPolicy, Safety
from deskpilot.core.screen import Screen
from deskpilot.core.settings import load_settings
from deskpilot.grounding.accessible_grounder import AccessibleGrounder
from deskpilot.grounding.detector import UiDetector
from deskpilot.grounding.factory import build_grounder, build_ocr
from deskpilot.grounding.ocr_grounder import OcrGrounder
from deskpilot.planner.agent import Agent
from deskpilot.planner.offline import OfflinePlanner
from deskpilot.resources.demo import DemoApp

# benchmarks/miniwob.py beside this script would shadow the miniwob package that MiniWobBrowser imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
STAGES = ("ocr_detect_ms", "ocr_recognise_ms", "layout_ms", "detector_ms")
BUSY_WINDOWS = ("0,0,900,560", "940,60,940,600", "300,480,900,560")


def p95(samples: list[float]) -> float:
    return float(np.percentile(samples, 95))


def line(name: str, samples: list[float], baseline: float | None = None) -> None:
    median = statistics.median(samples)
    ratio = f"  ratio {median / baseline:.2f} of plain PP-OCR" if baseline else ""
    print(f"{name:<44} median {median:7.1f} ms  p95 {p95(samples):7.1f} ms  (n={len(samples)}){ratio}", flush=True)


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    import time

    fn()  # warm up
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def plain_ocr(image: np.ndarray, repeats: int) -> list[float]:
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()
    bgr = np.ascontiguousarray(image[:, :, ::-1])
    return timed(lambda: engine(bgr), repeats)


def fresh_process_parse(shot: Path, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-m", "deskpilot.app", "parse", "--image", str(shot), "--json"],
                              capture_output=True, text=True, check=True)
        samples.append(float(json.loads(done.stdout)["parse_ms"]))
    return samples


def parses(new_grounder: Callable[[], OcrGrounder | AccessibleGrounder], obs: Observation,
           repeats: int) -> tuple[list[float], dict[str, list[float]]]:
    """Parses of `obs`, each by the grounder `new_grounder` gives (loaded before the clock starts), with its stage
    timings; the first parse is left out."""
    import time

    totals: list[float] = []
    stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for _ in range(repeats + 1):
        grounder = new_grounder()
        grounder.load()
        started = time.perf_counter()
        grounder.parse(obs)
        totals.append((time.perf_counter() - started) * 1000)
        for stage in STAGES:
            stages[stage].append(grounder.timing.get(stage, 0.0))
    return totals[1:], {stage: values[1:] for stage, values in stages.items()}


def in_process_parse(obs: Observation, repeats: int,
                     changes: dict[str, bool]) -> tuple[list[float], dict[str, list[float]]]:
    """Parses by a newly built (loaded, so cache-cold) grounder each time; `changes` to the settings (e.g.
    text_detector False: PP-OCR's detector finds the lines)."""
    settings = load_settings().model_copy(update=changes)
    return parses(lambda: build_grounder(settings), obs, repeats)


def running_parse(obs: Observation, repeats: int) -> tuple[list[float], dict[str, list[float]]]:
    """Parses of a screen new to a running agent: the OCR engine and detector loaded and warm from earlier frames
    of this size, nothing of this one read before (a new grounder on them each time, the reading cache emptied):
    what an agent pays for each new screen after its first."""
    settings = load_settings()
    engine = build_ocr(settings)
    detector = UiDetector(settings.detector_model, settings.detector_device) if settings.detector else None

    def new_grounder() -> OcrGrounder:
        engine.forget_readings()
        return OcrGrounder(engine, detector=detector)

    return parses(new_grounder, obs, repeats)


def screen_figures(name: str, obs: Observation, folder: Path, repeats: int) -> float:
    shot = folder / f"{name.replace(' ', '-')}.png"
    cv2.imwrite(str(shot), np.ascontiguousarray(obs.image[:, :, ::-1]))
    print(f"\n{name}: {obs.image.shape[1]}x{obs.image.shape[0]}")
    plain = plain_ocr(obs.image, repeats)
    baseline = statistics.median(plain)
    line("plain PP-OCR pass (baseline)", plain)
    line("deskpilot parse --image, fresh process", fresh_process_parse(shot, repeats), baseline)
    for changes, name in (({"text_detector": False, "text_recognizer": False}, "parse, PP-OCR finding+reading all"),
                          ({"text_detector": False}, "parse, PP-OCR finding lines"),
                          ({}, "parse, freshly loaded grounder")):
        totals, stages = in_process_parse(obs, repeats, changes)
        line(name, totals, baseline)
        for stage, values in stages.items():
            line(f"  of which {stage.removesuffix('_ms').replace('_', ' ')}", values, baseline)
    totals, stages = running_parse(obs, repeats)
    line("parse of a new screen, running grounder", totals, baseline)
    for stage, values in stages.items():
        line(f"  of which {stage.removesuffix('_ms').replace('_', ' ')}", values, baseline)
    return baseline


def capture(screen: Screen) -> Observation:
    return Observation(image=screen.wait_until_settled(timeout=3.0), monitor=screen.monitor(), cursor=None)


def agent_figures(screen: Screen, folder: Path, repeats: int, baseline: float) -> None:
    agent = Agent(screen, build_grounder(load_settings()), OfflinePlanner(), Controller(),
                  Safety(policy=ConfirmationPolicy("never")), folder / "episodes")
    result = agent.run("; ".join(['click "OK"', 'click "Cancel"'] * (repeats + 2)), 4 * repeats + 10)
    acting = [s for s in result.steps if not s.action.is_terminal][1:]  # the first step reads the whole frame
    print(f"\nagent on the demo app: {len(acting)} steps (click OK, click Cancel, ...)")
    line("agent step (whole)", [s.timing["step_ms"] for s in acting], baseline)
    for stage in ("parse_ms", *STAGES, "plan_ms", "locate_ms", "act_ms", "settle_ms", "look_ahead_ms"):
        line(f"  of which {stage.removesuffix('_ms').replace('_', ' ')}", [s.timing.get(stage, 0.0) for s in acting])
    rest = [s.timing["step_ms"] - sum(s.timing.get(k, 0.0) for k in ("parse_ms", "plan_ms", "locate_ms", "act_ms",
                                                                       "settle_ms")) for s in acting]
    line("  of which frame write and the rest", rest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--miniwob", action="store_true", help="also a MiniWoB++ page in Chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        folder = Path(tmp)
        display = VirtualDisplay(1280, 800).start()
        stack.callback(display.stop)
        display.activate()
        demo = DemoApp(folder / "state.json").start()
        stack.callback(demo.stop)
        screen = Screen()
        baseline = screen_figures("demo app", capture(screen), folder, args.repeats)
        agent_figures(screen, folder, args.repeats, baseline)
        if args.miniwob:
            from deskpilot.evaluation.miniwob.page import MiniWobBrowser

            browser = stack.enter_context(MiniWobBrowser(scale=2.0).start("click-tab"))
            browser.reset(7)
            screen_figures("MiniWoB click-tab page", capture(screen), folder, args.repeats)
        demo.stop()
        busy = VirtualDisplay(1920, 1080).start()
        stack.callback(busy.stop)
        busy.activate()
        for index, geometry in enumerate(BUSY_WINDOWS):
            stack.callback(DemoApp(folder / f"busy-{index}.json", geometry=geometry).start().stop)
        screen_figures("busy desktop", capture(Screen()), folder, args.repeats)


if __name__ == "__main__":
    main()

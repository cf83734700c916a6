"""Step latency of the agent on a 1280x800 screen showing the demo app: screen grab, OCR parse (whole frame and
incremental), locate, and a whole agent step. Prints one line per figure: the median of repeated runs, and for
incremental parse its ratio to the whole-frame parse measured in the same process.

    python benchmarks/step_latency.py [--repeats N]

Starts its own Xvfb and demo app when no display is set.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from deskpilot.resources.demo import prepare_screen
from deskpilot.core.controller import Controller
from deskpilot.core.safety import ConfirmationPolicy, Safety
from deskpilot.core.screen import Screen
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.ocr import OcrEngine
from deskpilot.planner.agent import Agent
from deskpilot.planner.offline import OfflinePlanner


def timed_ms(fn, repeats: int) -> list[float]:  # noqa: ANN001
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def report(name: str, samples: list[float], extra: str = "") -> float:
    median = statistics.median(samples)
    print(f"{name:<24} median {median:8.1f} ms  (n={len(samples)}){extra}", flush=True)
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        prepare_screen(stack, demo=True, state_file=Path(tmp) / "state.json")
        screen = Screen()
        engine = OcrEngine()
        obs = screen.capture()
        OcrGrounder(engine).parse(obs)  # load the models before timing
        print(f"screen {obs.size[0]}x{obs.size[1]}, demo app")

        report("grab", timed_ms(screen.grab, args.repeats * 10))
        full = report("parse (whole frame)", timed_ms(lambda: OcrGrounder(engine).parse(obs), args.repeats))

        grounder = OcrGrounder(engine)
        grounder.parse(obs)
        incremental: list[float] = []
        areas: list[float] = []
        subprocess.run(["xdotool", "mousemove", "360", "198", "click", "1"], check=True)
        for i in range(args.repeats):
            subprocess.run(["xdotool", "type", "--delay", "0", f"w{i}"], check=True)
            time.sleep(0.15)
            changed = screen.capture()
            started = time.perf_counter()
            grounder.parse(changed)
            incremental.append((time.perf_counter() - started) * 1000)
            areas.append(grounder.last_read_area)
        report("parse (incremental)", incremental,
                     f"  ratio {statistics.median(incremental) / full:.3f} of whole frame, "
                     f"{100 * statistics.median(areas):.1f}% of pixels read")
        latest = screen.capture()
        grounder.parse(latest)
        report("locate (field by label)",
               timed_ms(lambda: grounder.locate(latest, "Full name field"), args.repeats * 5))
        report("locate (button text)", timed_ms(lambda: grounder.locate(latest, "the Save button"), args.repeats * 5))

        agent = Agent(screen, OcrGrounder(engine), OfflinePlanner(), Controller(),
                      Safety(policy=ConfirmationPolicy("never")), Path(tmp) / "episodes")
        result = agent.run("; ".join(['click "OK"', 'click "Cancel"'] * ((args.repeats + 1) // 2 + 1)), 50)
        acting = [s for s in result.steps if not s.action.is_terminal][1:]  # the first step reads the whole frame
        report("agent step (whole)", [s.timing["step_ms"] for s in acting])
        report("  of which settle wait", [s.timing["settle_ms"] for s in acting])
        report("  of which parse", [s.timing["parse_ms"] for s in acting])


if __name__ == "__main__":
    main()

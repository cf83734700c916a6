"""The desktop app's start-up time and UI frame time while the agent runs, on a 1280x800 Xvfb screen with the demo
app (the docs' pictures of the app come from docs/screenshots.py).

- start-up: `deskpilot app` launched as a process until its window is mapped (xdotool --sync), median of repeats;
- frame time: a 16 ms QTimer in the window while the agent fills the demo form; the gaps between its ticks are the
  UI's frame times (median and 95th percentile), compared with the same timer while idle.

    python benchmarks/app_responsiveness.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

TASK = 'type "Ada Lovelace" into Full name, check "Remember me", select "Blue" from Colour then click "Save"'


def startup_ms(episodes: Path) -> float:
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "app", "--episodes-dir", str(episodes)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^deskpilot$"], check=True,
                       capture_output=True, timeout=60)
        return (time.perf_counter() - started) * 1000
    finally:
        process.terminate()
        process.wait(timeout=10)


def frame_gaps(app, seconds: float | None, until=None) -> list[float]:  # noqa: ANN001
    """Gaps (ms) between ticks of a 16 ms timer, for `seconds` or until `until()` is true."""
    from PySide6.QtCore import QTimer

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(16)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    deadline = time.perf_counter() + (seconds or 300)
    while time.perf_counter() < deadline and not (until and until()):
        app.processEvents()
        time.sleep(0.001)
    timer.stop()
    return [(b - a) * 1000 for a, b in zip(ticks, ticks[1:])]


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from deskpilot.resources.demo import prepare_screen

    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        prepare_screen(stack, demo=True, state_file=root / "state.json")
        runs = [startup_ms(root / "episodes") for _ in range(args.repeats)]
        print(f"app start-up (process start -> window mapped): median {statistics.median(runs):.0f} ms "
              f"over {len(runs)} runs", flush=True)

        from PySide6.QtWidgets import QApplication

        from deskpilot.app.window import MainWindow
        from deskpilot.core.settings import load_settings

        app = QApplication.instance() or QApplication([])
        window = MainWindow(load_settings(episodes_dir=root / "episodes"))
        window.setGeometry(0, 620, 1280, 180)
        window.show()
        idle = frame_gaps(app, 2.0)
        view = window.run_view
        view.task.setText(TASK)
        finished: list[str] = []
        view.run_finished.connect(lambda outcome, _: finished.append(outcome))
        view.start_run()
        busy = frame_gaps(app, None, until=lambda: bool(finished))
        print(f"UI frame time idle: median {statistics.median(idle):.1f} ms, p95 {p95(idle):.1f} ms", flush=True)
        ratio = statistics.median(busy) / statistics.median(idle)
        print(f"UI frame time while the agent runs ({finished[0] if finished else 'unfinished'}): median "
              f"{statistics.median(busy):.1f} ms, p95 {p95(busy):.1f} ms (x{ratio:.2f} of idle)", flush=True)
        window.close()


if __name__ == "__main__":
    main()

"""`deskpilot doctor --calibrate`: where do the agent's clicks land? On each monitor a window of five known targets
(resources/calibration_targets.py) opens; the controller clicks each target exactly as the agent clicks, and the
window reports where each press landed, in the screen's device pixels. The error per monitor (and the toolkit's
scale there) goes to calibration.json beside the settings file, and `deskpilot run` refuses to act on a monitor
layout whose last calibration put clicks more than MAX_ERROR pixels off."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.controller import Controller
from deskpilot.core.errors import ScreenError
from deskpilot.core.geometry import Monitor, Point
from deskpilot.core.screen import Screen
from deskpilot.core.settings import default_config_file

CALIBRATION_FILE = "calibration.json"
MAX_ERROR = 3.0  # pixels: a click further off than this may hit the control beside the one meant
WINDOW = (480, 320)  # the targets window, at most this large, in the middle of each monitor
READY_TIMEOUT = 30.0  # seconds for the targets window to show (a Qt start on a busy machine)
PRESS_TIMEOUT = 5.0  # seconds for a click to reach the window


@dataclass
class MonitorCalibration:
    """One monitor's result: where it is, the toolkit's scale there, and how far each click landed from its
    target (None: the press never reached the window, so it landed outside it)."""

    monitor: list[int]  # x, y, width, height
    scale: float
    errors: list[float | None]

    @property
    def worst(self) -> float:
        return math.inf if any(e is None for e in self.errors) else max(self.errors, default=0.0)  # type: ignore[type-var]

    def describe(self) -> str:
        x, y, w, h = self.monitor
        where = f"monitor {w}x{h} at ({x}, {y}), scale {self.scale:g}"
        if math.isinf(self.worst):
            return f"{where}: a click landed outside the targets window"
        return f"{where}: clicks land within {self.worst:.1f} px of {len(self.errors)} targets"


def calibration_file() -> Path:
    return default_config_file().parent / CALIBRATION_FILE


def calibrate(screen: Screen | None = None, controller: Controller | None = None) -> list[MonitorCalibration]:
    """Click the targets on every monitor; save and return the results."""
    screen = screen or Screen()
    controller = controller or Controller()
    results = [_calibrate_monitor(monitor, controller) for monitor in screen.monitors()]
    path = calibration_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"at": time.time(), "monitors": [asdict(r) for r in results]}, indent=2))
    return results


def _calibrate_monitor(monitor: Monitor, controller: Controller) -> MonitorCalibration:
    width, height = min(WINDOW[0], monitor.width - 20), min(WINDOW[1], monitor.height - 20)
    x, y = monitor.left + (monitor.width - width) // 2, monitor.top + (monitor.height - height) // 2
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "targets.json"
        window = subprocess.Popen([sys.executable, "-m", "deskpilot.resources.calibration_targets", "--state",
                                   str(state), "--geometry", f"{x},{y},{width},{height}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            shown = _wait(state, lambda data: bool(data.get("targets")), READY_TIMEOUT)
            if shown is None:
                raise ScreenError("the calibration window did not show (is a display running?)")
            errors: list[float | None] = []
            for target in shown["targets"]:
                before = len(_read(state).get("presses", []))
                controller.execute(Action(kind=ActionKind.CLICK, point=Point(*target)))
                pressed = _wait(state, lambda data: len(data.get("presses", [])) > before, PRESS_TIMEOUT)
                landed = pressed["presses"][-1] if pressed else None
                errors.append(None if landed is None else round(math.dist(landed, target), 2))
            return MonitorCalibration([monitor.left, monitor.top, monitor.width, monitor.height],
                                      float(shown.get("scale", 1.0)), errors)
        finally:
            window.terminate()
            window.wait(timeout=10)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _wait(path: Path, ready: Any, timeout: float) -> dict[str, Any] | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = _read(path)
        if data and ready(data):
            return data
        time.sleep(0.05)
    return None


def calibration_problem(monitors: list[Monitor]) -> str | None:
    """Why the agent must not act on these monitors, from the last calibration of this very layout; None when it
    showed nothing wrong, or when no calibration of this layout exists."""
    data = _read(calibration_file())
    stored = data.get("monitors")
    if not isinstance(stored, list):
        return None
    layout = [[m.left, m.top, m.width, m.height] for m in monitors]
    try:
        results = [MonitorCalibration(list(r["monitor"]), float(r["scale"]), list(r["errors"])) for r in stored]
    except (KeyError, TypeError, ValueError):
        return None
    if [r.monitor for r in results] != layout:
        return None  # another layout: that calibration says nothing about this one
    bad = next((r for r in results if r.worst > MAX_ERROR), None)
    if bad is None:
        return None
    return (f"the last calibration of these monitors found clicks off target ({bad.describe()}); fix the display "
            f"scale settings, then run `deskpilot doctor --calibrate` again")

"""The bundled demo app (resources/demo_app.py) in a child process, and a screen to work on: the real display, or a
virtual one (Xvfb) with the demo app when the machine has no screen, or when asked for the demo."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from deskpilot.core.display import end_process, ensure_screen
from deskpilot.core.errors import ScreenError

DEMO_START_TIMEOUT = 20.0


class DemoApp:
    """The bundled Qt demo app in a child process; its state JSON shows what the agent did."""

    def __init__(self, state_file: Path, geometry: str = "60,40,900,560", frozen: str = ""):
        self.state_file = state_file
        self.geometry = geometry
        self.frozen = frozen  # check boxes that ignore the mouse (demo_app --frozen)
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> DemoApp:
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        self.state_file.unlink(missing_ok=True)
        log_file = self.state_file.with_suffix(".log")
        with open(log_file, "wb") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "deskpilot.resources.demo_app", "--state", str(self.state_file),
                 "--geometry", self.geometry, "--frozen", self.frozen], stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + DEMO_START_TIMEOUT
        while not self.state_file.exists():
            if self._process.poll() is not None:
                lines = log_file.read_text(errors="replace").strip().splitlines()
                raise ScreenError(f"the demo app did not start: {lines[-1] if lines else 'no output'}")
            if time.monotonic() > deadline:
                self.stop()
                raise ScreenError("the demo app did not show its window in time")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self._process is not None:
            end_process(self._process)
        self._process = None


def prepare_screen(stack: ExitStack, demo: bool, state_file: Path) -> tuple[bool, DemoApp | None]:
    """Make sure there is a screen to act on. Returns (started a virtual display?, the demo app if started)."""
    virtual = ensure_screen(stack)
    if not (demo or virtual):
        return virtual, None
    app = DemoApp(state_file).start()
    stack.callback(app.stop)
    return virtual, app

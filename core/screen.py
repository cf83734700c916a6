"""Screen: captures Observations with mss (whole virtual desktop or one monitor), with the cursor and the focused
window's title, and waits for the screen to settle after an action."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time

import cv2
import mss
import numpy as np

from .errors import ScreenError
from .geometry import Box, Monitor, Point
from .observation import Observation


class Screen:
    """`monitor=0` is the whole virtual desktop (all monitors); 1..n pick one. `scale` is the HiDPI factor."""

    def __init__(self, monitor: int = 0, scale: float = 1.0):
        self.monitor_index = monitor
        self.scale = scale
        self._local = threading.local()
        self._xdotool = shutil.which("xdotool")

    def _mss(self) -> mss.base.MSSBase:
        grabber = getattr(self._local, "grabber", None)
        if grabber is None:
            try:
                grabber = mss.MSS()
            except Exception as exc:  # mss raises its own ScreenShotError or OSError variants
                raise ScreenError(f"cannot open the screen: {exc}") from None
            self._local.grabber = grabber
        return grabber

    def monitors(self) -> list[Monitor]:
        """Every physical monitor (not the virtual-desktop union), in logical pixels."""
        return [self._as_monitor(m) for m in self._mss().monitors[1:]]

    def monitor(self) -> Monitor:
        grabber = self._mss()
        if self.monitor_index >= len(grabber.monitors):
            raise ScreenError(f"monitor {self.monitor_index} does not exist; this screen has "
                              f"{len(grabber.monitors) - 1} monitor(s)")
        return self._as_monitor(grabber.monitors[self.monitor_index])

    def _as_monitor(self, raw: dict[str, int]) -> Monitor:
        return Monitor(raw["left"], raw["top"], round(raw["width"] / self.scale), round(raw["height"] / self.scale),
                       self.scale)

    def grab(self, region: Box | None = None) -> np.ndarray:
        """Pixels (RGB) of the chosen monitor, or of `region` (screen pixels) of it."""
        grabber = self._mss()
        raw = grabber.monitors[self.monitor_index] if region is None else {
            "left": region.x0, "top": region.y0, "width": region.width, "height": region.height}
        try:
            shot = grabber.grab(raw)
        except Exception as exc:
            raise ScreenError(f"screen capture failed: {exc}") from None
        return cv2.cvtColor(np.asarray(shot), cv2.COLOR_BGRA2RGB)

    def capture(self) -> Observation:
        return Observation(image=self.grab(), monitor=self.monitor(), cursor=self.cursor(),
                           window_title=self.window_title())

    def cursor(self) -> Point | None:
        """Where the mouse pointer is now, or None when it cannot be read. On X11 each thread asks through an X
        connection of its own, kept for the next call (the corner watch asks 20 times a second)."""
        try:
            if sys.platform.startswith("linux"):
                return self._x11_pointer()
            from pynput.mouse import Controller as MouseController

            x, y = MouseController().position
            return Point(int(x), int(y))
        except Exception:  # no pointer device (e.g. a display without input): the cursor is simply unknown
            self._local.x11 = None
            return None

    def _x11_pointer(self) -> Point:
        connection = getattr(self._local, "x11", None)
        if connection is None:
            from Xlib import display as xlib_display

            connection = self._local.x11 = xlib_display.Display()
        pointer = connection.screen().root.query_pointer()
        return Point(int(pointer.root_x), int(pointer.root_y))

    def window_title(self) -> str | None:
        if not self._xdotool:
            return None
        try:
            result = subprocess.run([self._xdotool, "getwindowfocus", "getwindowname"], capture_output=True,
                                    text=True, timeout=1)
        except subprocess.TimeoutExpired:
            return None
        return result.stdout.strip() or None if result.returncode == 0 else None

    def wait_until_settled(self, previous: np.ndarray | None = None, timeout: float = 2.0, interval: float = 0.05,
                           quiet_frames: int = 2) -> np.ndarray:
        """Capture until `quiet_frames` consecutive grabs are identical (or `timeout` passes); return the last grab.
        Animations that never stop just run into the timeout."""
        deadline = time.monotonic() + timeout
        last = self.grab() if previous is None else previous
        quiet = 0
        while time.monotonic() < deadline:
            time.sleep(interval)
            frame = self.grab()
            quiet = quiet + 1 if np.array_equal(frame, last) else 0
            last = frame
            if quiet >= quiet_frames:
                break
        return last

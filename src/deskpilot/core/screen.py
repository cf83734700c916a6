"""Screen: captures Observations with mss (whole virtual desktop or one monitor), with the cursor and the focused
window's title, and waits for the screen to settle after an action."""

from __future__ import annotations

from typing import Any

import sys
import threading
import time
from collections.abc import Callable

import cv2
import mss
import numpy as np

from .errors import ScreenError
from .geometry import Box, Monitor, Point
from .observation import FocusedWindow, Observation


SETTLE_POLL = 0.02  # seconds between grabs while waiting for the screen to settle
SETTLE_QUIET = 0.1  # once something changed, this long without change is settled
TYPED_QUIET = 0.45  # ... after typing: what reacts to typing (suggestions, a search as you type) waits for a pause,
# 300 ms by jQuery UI's autocomplete default
REACTION_WAIT = 0.15  # an action the screen has not answered within this long changed nothing
ANIMATION_SHARE = 0.004  # a change this small (of the frame) that keeps coming back in place is an animation
ANIMATION_REPEATS = 3


def changed_box(before: np.ndarray, after: np.ndarray) -> Box | None:
    """The box around every pixel that differs between two frames of one size (None when they are the same)."""
    if before.shape != after.shape:
        return Box(0, 0, after.shape[1], after.shape[0])
    differs = np.any(before != after, axis=2)
    rows, cols = np.flatnonzero(differs.any(axis=1)), np.flatnonzero(differs.any(axis=0))
    if not len(rows):
        return None
    return Box(int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)


def _window_class(window: Any, depth: int = 3) -> str | None:
    """The WM_CLASS instance name of a window, or of the client a window manager's frame holds."""
    wm_class = window.get_wm_class()
    if wm_class:
        return next((name for name in wm_class if name), None)
    for child in reversed(window.query_tree().children) if depth else ():
        found = _window_class(child, depth - 1)
        if found:
            return found
    return None


def _process_name(pid: int) -> str:
    """The name of process `pid` (its command's file name), or "" when it cannot be read."""
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as comm:
            return comm.read().strip()
    except OSError:
        return ""


class Screen:
    """`monitor=0` is the whole virtual desktop (all monitors); 1..n pick one. `scale` is the HiDPI factor."""

    def __init__(self, monitor: int = 0, scale: float = 1.0):
        self.monitor_index = monitor
        self.scale = scale
        self._local = threading.local()

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
        image = self.grab()
        window = self.focused_window()
        return Observation(image=image, monitor=self.monitor(), cursor=self.cursor(),
                           window_title=window.title if window else None, window=window)

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

    def _x11(self) -> Any:  # an Xlib Display
        """This thread's X connection, opened on first use and kept (dropped on an error, reopened next time)."""
        connection = getattr(self._local, "x11", None)
        if connection is None:
            from Xlib import display as xlib_display

            connection = self._local.x11 = xlib_display.Display()
        return connection

    def _x11_pointer(self) -> Point:
        pointer = self._x11().screen().root.query_pointer()
        return Point(int(pointer.root_x), int(pointer.root_y))

    def window_title(self) -> str | None:
        """The title of the window that has the keyboard focus (None when there is none or it cannot be read). On X11
        it is read through this thread's X connection: no process per call (the recorder asks at every click)."""
        window = self.focused_window()
        return window.title if window else None

    def focused_window(self) -> FocusedWindow | None:
        """The window that has the keyboard focus: title, class and process, box (None when there is none or it
        cannot be read). The class and the process tell a terminal whatever title its output gives it."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            return self._x11_focused_window()
        except Exception:  # no display, or the window closed while being read
            self._local.x11 = None
            return None

    def _x11_focused_window(self) -> FocusedWindow | None:
        connection = self._x11()
        window = connection.get_input_focus().focus
        root = connection.screen().root
        pid_atom = connection.intern_atom("_NET_WM_PID")
        while window and not isinstance(window, int) and window != root:
            wm_class = window.get_wm_class()
            if wm_class:
                names = [name for name in wm_class if name]
                pid = window.get_full_property(pid_atom, 0)
                if pid is not None and len(pid.value):
                    names.append(_process_name(int(pid.value[0])))
                geometry = window.get_geometry()
                origin = window.translate_coords(root, 0, 0)
                box = Box(-origin.x, -origin.y, -origin.x + geometry.width, -origin.y + geometry.height)
                return FocusedWindow(self._x11_window_title(), ",".join(n for n in names if n) or None, box)
            window = window.query_tree().parent
        title = self._x11_window_title()
        return FocusedWindow(title) if title else None

    def app_at(self, point: Point) -> str | None:
        """The class of the top-level window showing `point`: the application a click there reaches (None where
        it cannot be told). What a person's standing allowance names, which the window's own output cannot change."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            from Xlib import X

            root = self._x11().screen().root
            for window in reversed(root.query_tree().children):  # the top of the stacking order first
                attributes = window.get_attributes()
                if attributes.map_state != X.IsViewable or attributes.win_class != X.InputOutput:
                    continue
                g = window.get_geometry()
                if Box(g.x, g.y, g.x + g.width, g.y + g.height).contains(point.x, point.y):
                    return _window_class(window)
        except Exception:  # no display, or a window closed while being read
            self._local.x11 = None
        return None

    def _x11_window_title(self) -> str | None:
        connection = self._x11()
        names = (connection.intern_atom("_NET_WM_NAME"), connection.intern_atom("WM_NAME"))
        window = connection.get_input_focus().focus
        root = connection.screen().root
        while window and not isinstance(window, int) and window != root:  # up from a focused child to its window
            for atom in names:
                value = window.get_full_property(atom, 0)
                if value is not None and value.value:
                    raw = value.value
                    return (raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)).strip() or None
            window = window.query_tree().parent
        return None

    def wait_until_settled(self, previous: np.ndarray | None = None, timeout: float = 2.0,
                           on_change: Callable[[np.ndarray], object] | None = None,
                           quiet: float = SETTLE_QUIET, check: Callable[[], object] | None = None) -> np.ndarray:
        """Capture until the screen has stopped changing, or `timeout` passes; return the last grab. Settled means
        two grabs `quiet` seconds apart are the same once something changed, or REACTION_WAIT seconds without any
        change after `previous` (the frame before an action; without it, the first grab). A small area that keeps
        changing in place (a blinking caret, a spinner) is an animation: once seen ANIMATION_REPEATS times running
        it no longer counts as a change. `on_change(frame)` is called with a frame that changed and then held still
        for a poll (and, without `previous`, with the first grab), so work on it (the next parse) overlaps the rest
        of the wait instead of following it, and the frames of a page still moving (a section sliding open) are not
        worked on in vain. `check()` is called at every grab (the emergency stop's check, which raises): a stop
        ends the wait at once, whatever the timeout."""
        started = time.monotonic()
        deadline = started + timeout
        last = self.grab() if previous is None else previous
        if previous is None and on_change is not None:
            on_change(last)
        changed_at: float | None = None if previous is not None else started
        quiet_since = started
        animated: Box | None = None
        small: Box | None = None
        repeats = 0
        unseen = False  # a change on_change has not been given yet
        grabbed = time.monotonic()
        while time.monotonic() < deadline:
            if check is not None:
                check()
            # Grabs are SETTLE_POLL apart, on_change's work between them included: after a look-ahead parse that
            # outlasted the quiet time, the grab that confirms the screen held still comes at once.
            time.sleep(max(0.0, SETTLE_POLL - (time.monotonic() - grabbed)))
            frame = self.grab()
            now = grabbed = time.monotonic()
            change = changed_box(last, frame)
            last = frame
            if change is not None and animated is not None and change.share_in(animated) == 1.0:
                change = None
            if change is not None and change.area <= ANIMATION_SHARE * frame.shape[0] * frame.shape[1]:
                repeats = repeats + 1 if small is not None and change.intersects(small) else 1
                small = change if small is None or repeats == 1 else small.union(change)
                if repeats >= ANIMATION_REPEATS:
                    animated, change = small, None
            elif change is not None:
                repeats, small = 0, None
            if change is not None:
                changed_at = quiet_since = now
                unseen = True
            elif unseen and on_change is not None:
                on_change(frame)
                unseen = False
            if changed_at is not None and now - quiet_since >= quiet:
                break
            if changed_at is None and now - started >= REACTION_WAIT:
                break
        return last

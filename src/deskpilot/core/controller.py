"""Controller: carries out resolved Actions with the real mouse and keyboard (pyautogui; the clipboard for
non-ASCII text). Long actions (typing, scrolling, waits, drags) are done in small chunks with a look at the
emergency stop between them; keys and buttons it holds down are let go whatever happens (`release_all`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from .actions import DEFAULT_WAIT_SECONDS, Action, ActionKind
from .display import ensure_xauthority, has_display
from .errors import ControllerError, SafetyStop, ScreenError
from .geometry import Point
from .safety import EmergencyStop

TYPE_CHUNK = 8  # characters typed between two checks of the emergency stop
# Apps that show a key as a pressed button (Galculator, on-screen keyboards) ignore that key again until the button
# is released, about 100 ms later: "100" arrived as "10" (and at 110 ms still did once in 57 tasks on a loaded
# machine). The same key waits this long; other keys go at once.
SAME_KEY_GAP = 0.2
SCROLL_TICK_SECONDS = 0.01  # between two wheel clicks (each one a check of the emergency stop)
PASTE_SETTLE_SECONDS = 0.15


class Controller:
    def __init__(self, stop: EmergencyStop | None = None, pause: float = 0.02, type_interval: float = 0.0,
                 drag_seconds: float = 0.3, paste_keys: tuple[str, ...] | None = None):
        self.stop = stop or EmergencyStop()
        self.pause = pause
        self.type_interval = type_interval
        self.drag_seconds = drag_seconds
        self.paste_keys = paste_keys or (("command", "v") if sys.platform == "darwin" else ("ctrl", "v"))
        self._gui: Any = None
        self._held_keys: list[str] = []

    @property
    def gui(self) -> Any:
        """pyautogui, imported on first use: it needs DISPLAY set before import."""
        if self._gui is None:
            if not has_display():
                raise ScreenError("no display to act on: set DISPLAY or let deskpilot start a virtual one")
            ensure_xauthority()
            try:
                import pyautogui
            except Exception as exc:  # pyautogui/Xlib raise assorted errors when the display is unusable
                raise ScreenError(f"cannot control this display: {exc}") from None
            pyautogui.PAUSE = self.pause
            pyautogui.FAILSAFE = True
            pyautogui.MINIMUM_DURATION = 0.0
            self._gui = pyautogui
        return self._gui

    def position(self) -> Point:
        x, y = self.gui.position()
        return Point(int(x), int(y))

    def execute(self, action: Action) -> None:
        """Perform one action whose points are resolved. Raises SafetyStop if the stop fires mid-action."""
        if action.needs_grounding:
            raise ControllerError(f"{action.describe()} has no screen point yet (ground its target first)")
        self.stop.check()
        try:
            self._dispatch(action)
        except self.gui.FailSafeException:
            self.stop.trigger("mouse moved into a screen corner (pyautogui failsafe)")
            raise SafetyStop(f"stopped: {self.stop.reason}") from None

    def _dispatch(self, action: Action) -> None:
        gui, kind = self.gui, action.kind
        if kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK):
            assert action.point is not None
            clicks = 2 if kind is ActionKind.DOUBLE_CLICK else 1
            button = "right" if kind is ActionKind.RIGHT_CLICK else action.button
            pause = 0.05 if clicks > 1 else 0.0  # pyautogui sleeps `interval` after every click, the last one too
            gui.click(action.point.x, action.point.y, clicks=clicks, interval=pause, button=button)
        elif kind is ActionKind.MOVE:
            assert action.point is not None
            gui.moveTo(action.point.x, action.point.y)
        elif kind is ActionKind.DRAG:
            self._drag(action)
        elif kind is ActionKind.SCROLL:
            self._scroll(action)
        elif kind is ActionKind.TYPE:
            self._type(action.text or "")
        elif kind is ActionKind.HOTKEY:
            try:
                gui.hotkey(*action.keys)
            finally:
                for key in reversed(action.keys):  # a combination interrupted half-way leaves nothing held
                    gui.keyUp(key, _pause=False)
        elif kind is ActionKind.KEY:
            key = action.keys[0]
            if action.key_state == "press":
                gui.keyDown(key)
                self._held_keys.append(key)
            else:
                gui.keyUp(key)
                self._held_keys = [k for k in self._held_keys if k != key]
        elif kind is ActionKind.WAIT:
            self.stop.sleep(DEFAULT_WAIT_SECONDS if action.seconds is None else action.seconds)
        # finished / call_user touch nothing

    def release_all(self) -> None:
        """Let go of every key this controller pressed and did not release (press() without release())."""
        held, self._held_keys = self._held_keys, []
        for key in reversed(held):
            self.gui.keyUp(key, _pause=False)

    def _scroll(self, action: Action) -> None:
        """One wheel click at a time, each after a look at the stop: a long scroll stops within one click."""
        gui = self.gui
        if action.point is not None:
            gui.moveTo(action.point.x, action.point.y)
        wheels: tuple[tuple[Callable[[], object], int], ...] = (
            (lambda: gui.scroll(-1 if action.dy > 0 else 1, _pause=False), abs(action.dy)),
            (lambda: gui.hscroll(1 if action.dx > 0 else -1, _pause=False), abs(action.dx)))
        for click_wheel, clicks in wheels:
            for _ in range(clicks):
                self.stop.check()
                click_wheel()
                self.stop.sleep(SCROLL_TICK_SECONDS)

    def _drag(self, action: Action) -> None:
        assert action.point is not None and action.end_point is not None
        gui, steps = self.gui, 10
        gui.moveTo(action.point.x, action.point.y)
        gui.mouseDown(button=action.button)
        try:
            for i in range(1, steps + 1):
                self.stop.check()
                x = action.point.x + (action.end_point.x - action.point.x) * i / steps
                y = action.point.y + (action.end_point.y - action.point.y) * i / steps
                gui.moveTo(round(x), round(y), _pause=False)
                self.stop.sleep(self.drag_seconds / steps)
        finally:
            gui.mouseUp(button=action.button)

    def _type(self, text: str) -> None:
        """ASCII as real key strokes (works everywhere, terminals included). Text with anything else in it is
        pasted through the clipboard in one go, as UI-TARS does: key-by-key Unicode on X11 needs keymap remapping
        that apps read late under load, and drops characters. A final newline is pressed as Enter."""
        if all(ch.isascii() and (ch.isprintable() or ch in "\n\t") for ch in text):
            pressed: dict[str, float] = {}
            for start in range(0, len(text), TYPE_CHUNK):
                self.stop.check()
                for ch in text[start:start + TYPE_CHUNK]:
                    gap = pressed.get(ch, -SAME_KEY_GAP) + SAME_KEY_GAP - time.monotonic()
                    if gap > 0:
                        self.stop.sleep(gap)  # a stop during the wait ends the typing there
                    self.gui.write(ch, _pause=False)
                    pressed[ch] = time.monotonic()
                    if self.type_interval:
                        self.stop.sleep(self.type_interval)
            return
        self.stop.check()
        body = text[:-1] if text.endswith("\n") else text
        previous = read_clipboard()
        self._set_clipboard(body)
        try:
            self.gui.hotkey(*self.paste_keys)
            time.sleep(PASTE_SETTLE_SECONDS)  # the app fetches the clipboard asynchronously; don't replace it too soon
        finally:
            self._set_clipboard(previous)  # what was typed (a secret, perhaps) does not stay on the clipboard
        if body != text:
            self.gui.press("enter")

    def _set_clipboard(self, text: str) -> None:
        if sys.platform.startswith("linux"):
            xclip = shutil.which("xclip")
            if xclip is None:
                raise ControllerError("typing non-ASCII text needs xclip on Linux (apt-get install xclip)")
            # xclip stays in the background to serve the clipboard: it must not inherit our stdout/stderr, or
            # whoever reads our output would wait for it forever.
            subprocess.run([xclip, "-selection", "clipboard", "-in"], input=text.encode(), check=True, timeout=10,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:  # xclip's background copy may not own the clipboard yet
                held = subprocess.run([xclip, "-selection", "clipboard", "-out"], capture_output=True, timeout=5)
                if held.stdout.decode(errors="replace") == text:
                    return
                time.sleep(0.02)
            raise ControllerError("the clipboard did not take the text to paste (is a clipboard manager blocking it?)")
        import pyperclip

        try:
            pyperclip.copy(text)
        except pyperclip.PyperclipException as exc:
            raise ControllerError(f"cannot use the clipboard to type non-ASCII text: {exc}") from None


def read_clipboard(target: str | None = None) -> str:
    """The clipboard's text now ("" when it holds none); on X11 `target` asks for another form of what it holds
    ("text/uri-list": the files a file manager copied, which it offers as no plain text)."""
    if sys.platform.startswith("linux"):
        xclip = shutil.which("xclip")
        if xclip is None:
            return ""
        held = subprocess.run([xclip, "-selection", "clipboard", "-out", *(["-t", target] if target else [])],
                              capture_output=True, timeout=5)
        return held.stdout.decode(errors="replace") if held.returncode == 0 else ""
    import pyperclip

    try:
        return pyperclip.paste() or ""
    except pyperclip.PyperclipException:
        return ""

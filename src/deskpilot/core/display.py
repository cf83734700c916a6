"""A virtual X display (Xvfb) for machines without a screen, the environment X clients need, and the windows the
agent must keep its hands off (ProtectedWindow)."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from .errors import ScreenError
from .geometry import Box


def has_display() -> bool:
    """Whether this process can open a screen (an X display on Linux; always on Windows/macOS)."""
    if os.name == "nt" or os.uname().sysname == "Darwin":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def ensure_xauthority() -> None:
    """pyautogui (through Xlib) refuses to start without an existing $XAUTHORITY file; an empty one is enough."""
    path = Path(os.environ.get("XAUTHORITY") or Path.home() / ".Xauthority")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    os.environ["XAUTHORITY"] = str(path)


class VirtualDisplay:
    """Xvfb on a free display number (Xvfb picks it via -displayfd). Use as a context manager."""

    def __init__(self, width: int = 1280, height: int = 800, depth: int = 24, monitors: Sequence[Box] = ()):
        """One monitor of width x height, or the `monitors` given (the first is the primary): one X screen as large
        as all of them together, divided into monitors with RandR 1.5 (`xrandr --setmonitor`), which Qt, mss and
        window managers (through RandR's Xinerama) read as real monitors. A monitor may stand left of or above the
        primary, and parts of the screen outside every monitor are shown nowhere, as on a real desk."""
        self.monitors = tuple(monitors) or (Box(0, 0, width, height),)
        if min(m.x0 for m in self.monitors) != 0 or min(m.y0 for m in self.monitors) != 0:
            raise ScreenError("the monitors must start at x = 0 and y = 0 (X has no negative coordinates)")
        self.width = max(m.x1 for m in self.monitors)
        self.height = max(m.y1 for m in self.monitors)
        self.depth = depth
        self.display: str | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> VirtualDisplay:
        xvfb = shutil.which("Xvfb")
        if xvfb is None:
            raise ScreenError("no display and no Xvfb to start one: install it (apt-get install xvfb) or set DISPLAY")
        read_fd, write_fd = os.pipe()
        self._process = subprocess.Popen(
            # -noreset: without it Xvfb resets whenever its last client leaves, refusing connections meanwhile and
            # forgetting root-window properties, so a program started just after another one ended could fail.
            [xvfb, "-displayfd", str(write_fd), "-nolisten", "tcp", "-noreset", "+extension", "RECORD",
             "-screen", "0", f"{self.width}x{self.height}x{self.depth}"],
            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.stop()
            raise ScreenError("Xvfb did not start (no display number reported)")
        self.display = f":{number}"
        if len(self.monitors) > 1:
            self._divide()
        return self

    def _divide(self) -> None:
        """Make the monitors: the primary takes Xvfb's one output, the others are monitors without one."""
        xrandr = shutil.which("xrandr")
        if xrandr is None:
            self.stop()
            raise ScreenError("two or more monitors need xrandr: apt-get install x11-xserver-utils")
        for index, box in enumerate(self.monitors):
            name, output = ("*DP-1", "screen") if index == 0 else (f"DP-{index + 1}", "none")
            millimetres = f"{box.width}/{round(box.width * 0.2646)}x{box.height}/{round(box.height * 0.2646)}"
            made = subprocess.run([xrandr, "--setmonitor", name, f"{millimetres}+{box.x0}+{box.y0}", output],
                                  capture_output=True, text=True, env=self.environ(), timeout=10)
            if made.returncode != 0:
                self.stop()
                raise ScreenError(f"xrandr could not make monitor {index + 1}: {made.stderr.strip()[:200]}")

    def activate(self) -> None:
        """Point this process (and the children it starts) at the display, before pyautogui/pynput are imported."""
        if self.display is None:
            raise ScreenError("virtual display not started")
        os.environ.update(self.environ())
        os.environ.pop("WAYLAND_DISPLAY", None)

    def environ(self) -> dict[str, str]:
        """os.environ for a process that should show on this display."""
        if self.display is None:
            raise ScreenError("virtual display not started")
        env = dict(os.environ)
        env.pop("WAYLAND_DISPLAY", None)
        env["DISPLAY"] = self.display
        env["XAUTHORITY"] = str(self._xauthority())
        return env

    def _xauthority_path(self) -> Path:
        return Path(tempfile.gettempdir()) / f"deskpilot-xauth-{(self.display or '').lstrip(':')}"

    def _xauthority(self) -> Path:
        """An Xauthority file naming this display, so X clients find an entry (Xvfb runs without access control,
        so the cookie itself is never checked)."""
        path = self._xauthority_path()
        if not path.exists():
            def field(value: bytes) -> bytes:
                return struct.pack(">H", len(value)) + value

            entry = (struct.pack(">H", 256) + field(socket.gethostname().encode())
                     + field(self.display.lstrip(":").encode())  # type: ignore[union-attr]
                     + field(b"MIT-MAGIC-COOKIE-1") + field(secrets.token_bytes(16)))
            path.write_bytes(entry)
        return path

    def stop(self) -> None:
        if self.display is not None:
            self._xauthority_path().unlink(missing_ok=True)
        if self._process is not None:
            end_process(self._process)
        self._process = None

    def __enter__(self) -> VirtualDisplay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()



def ensure_screen(stack: ExitStack) -> bool:
    """The real display when there is one, else a virtual one (stopped with `stack`). Returns whether it is
    virtual."""
    if has_display():
        ensure_xauthority()
        return False
    display = VirtualDisplay().start()
    stack.callback(display.stop)
    display.activate()
    return True


class ProtectedWindow:
    """A window the agent must never act on: the terminal deskpilot was started from (where a model typing "y"
    and Enter could answer deskpilot's own questions, or run commands). X11 only, through xdotool."""

    def __init__(self, window_id: int, name: str):
        self.window_id = window_id
        self.name = name
        self._xdotool = shutil.which("xdotool") or "xdotool"

    @classmethod
    def controlling_terminal(cls) -> ProtectedWindow | None:
        """The terminal window this process reads its input from ($WINDOWID, else the window that had the focus
        when deskpilot started), or None when there is no terminal or no way to tell."""
        if not sys.stdin.isatty() or not has_display() or shutil.which("xdotool") is None:
            return None
        window = os.environ.get("WINDOWID") or xdotool_output("getactivewindow")
        if not window or not window.isdigit():
            return None
        return cls(int(window), "the terminal deskpilot was started from")

    def box(self) -> Box | None:
        """Where the window is now (it may have moved), in screen pixels."""
        return window_box(str(self.window_id))

    def has_focus(self) -> bool:
        return xdotool_output("getwindowfocus") == str(self.window_id) or \
            xdotool_output("getactivewindow") == str(self.window_id)


def window_box(window_id: str) -> Box | None:
    """Where an X window is now, in screen pixels (None when it is gone or xdotool cannot tell)."""
    shell = xdotool_output("getwindowgeometry", "--shell", window_id)
    values = dict(line.split("=", 1) for line in shell.splitlines() if "=" in line)
    try:
        x, y, width, height = (int(values[k]) for k in ("X", "Y", "WIDTH", "HEIGHT"))
    except (KeyError, ValueError):
        return None
    return Box(x, y, x + width, y + height)


def xdotool_output(*args: str) -> str:
    try:
        result = subprocess.run([shutil.which("xdotool") or "xdotool", *args], capture_output=True, text=True,
                                timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""


def end_process(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """Terminate a child process, and kill it if it has not gone after `grace` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

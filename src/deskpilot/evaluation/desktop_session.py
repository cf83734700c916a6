"""The desktop the desktop-apps suite runs on: its own Xvfb (twice as large at scale 2), a private D-Bus session
bus with the accessibility (AT-SPI) bus behind it, the Openbox window manager, and for every task a fresh home
folder (its own config, Documents, clipboard owner) in which the task's applications start with their toolkit's
scale factor. Nothing of the user's own desktop or home is touched."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

from deskpilot.core.controller import read_clipboard
from deskpilot.core.display import VirtualDisplay, end_process, xdotool_output
from deskpilot.core.errors import EvaluationError

log = logging.getLogger(__name__)
A11Y_BUS = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
BASE_SIZE = (1280, 800)  # the screen at scale 1; scale 2 doubles both sides
WINDOW_TIMEOUT = 20.0  # seconds an application may take to show its window
WM_TIMEOUT = 15.0
QT_LEFTOVERS = ("QT_QPA_PLATFORM", "QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR", "QT_PLUGIN_PATH")


class DesktopSession:
    """Use as a context manager; `start_app` for each task's applications, `new_home` before each task."""

    def __init__(self, scale: int = 1, window_manager: str = "openbox"):
        if scale not in (1, 2):
            raise EvaluationError(f"--scale must be 1 or 2, not {scale}")
        self.scale = scale
        self.window_manager = window_manager
        self.home: Path | None = None
        self._stack = ExitStack()
        self._apps: list[subprocess.Popen[bytes]] = []
        self._base_env: dict[str, str] = {}

    def __enter__(self) -> DesktopSession:
        try:
            self._start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def _start(self) -> None:
        missing = [tool for tool in (self.window_manager, "dbus-daemon", "xdotool", "xclip") if not shutil.which(tool)]
        if missing:
            raise EvaluationError(f"the desktop suite needs {', '.join(missing)}: run installers/setup.sh --bench")
        runtime = Path(tempfile.mkdtemp(prefix="deskpilot-desktop-"))
        self._stack.callback(shutil.rmtree, runtime, ignore_errors=True)
        self._runtime = runtime
        (runtime / "xdg-runtime").mkdir(mode=0o700)
        width, height = (side * self.scale for side in BASE_SIZE)
        display = VirtualDisplay(width, height).start()
        self._stack.callback(display.stop)
        display.activate()  # this process's X clients (screen capture, input) use it too
        env = display.environ()
        env["XDG_RUNTIME_DIR"] = str(runtime / "xdg-runtime")
        bus = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                             capture_output=True, text=True, env=env, timeout=10)
        lines = bus.stdout.split()
        if bus.returncode != 0 or len(lines) < 2:
            raise EvaluationError(f"the D-Bus session bus did not start: {bus.stderr.strip()[:200]}")
        address, pid = lines[0], int(lines[1])
        self._stack.callback(_kill_pid, pid)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        self._base_env = env
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
        wm = subprocess.Popen([self.window_manager], env=self.app_env(runtime / "wm-home"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self._stack.callback(end_process, wm)
        deadline = time.monotonic() + WM_TIMEOUT
        while not _window_manager_running(env):
            if wm.poll() is not None or time.monotonic() > deadline:
                raise EvaluationError(f"{self.window_manager} did not start on {display.display}")
            time.sleep(0.05)
        # The bus launcher leaves as soon as it has marked the display with the bus's address (AT_SPI_BUS); the
        # display keeps the mark because VirtualDisplay runs Xvfb with -noreset.
        _start_accessibility_bus(address)
        self._stack.callback(self.close_apps)

    def new_home(self, name: str) -> Path:
        """A fresh, empty home folder (with Documents) for the next task."""
        home = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self._runtime))
        (home / "Documents").mkdir()
        self.home = home
        return home

    def app_env(self, home: Path) -> dict[str, str]:
        home.mkdir(parents=True, exist_ok=True)
        env = dict(self._base_env)
        env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
                    "XDG_STATE_HOME": str(home / ".local/state"), "GDK_SCALE": str(self.scale),
                    "QT_SCALE_FACTOR": str(self.scale), "QT_AUTO_SCREEN_SCALE_FACTOR": "0",
                    "GTK_THEME": "Adwaita", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
        for key in QT_LEFTOVERS:  # opencv-python's import points Qt at its own bundled plugins: Qt 5 apps abort
            env.pop(key, None)
        return env

    def start_app(self, argv: list[str], window_class: str, cwd: Path | None = None, capture_output: bool = False,
                  env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start an application in the current home and wait until a window of `window_class` is showing; `env`
        adds to or overrides its environment (GTK_THEME=Adwaita:dark)."""
        if self.home is None:
            raise EvaluationError("start_app before new_home")
        if shutil.which(argv[0]) is None:
            raise EvaluationError(f"{argv[0]} is not installed: run installers/setup.sh --bench")
        output = subprocess.PIPE if capture_output else subprocess.DEVNULL
        process = subprocess.Popen(argv, env={**self.app_env(self.home), **(env or {})}, cwd=cwd or self.home,
                                   stdout=output, stderr=subprocess.DEVNULL, start_new_session=True)
        self._apps.append(process)
        deadline = time.monotonic() + WINDOW_TIMEOUT
        while not self.window_ids(window_class):
            if process.poll() is not None and not capture_output:
                raise EvaluationError(f"{argv[0]} exited (code {process.returncode}) before showing a window")
            if time.monotonic() > deadline:
                raise EvaluationError(f"{argv[0]} showed no {window_class!r} window within {WINDOW_TIMEOUT:g} s")
            time.sleep(0.1)
        return process

    def window_ids(self, window_class: str) -> list[str]:
        """The visible top-level windows whose WM_CLASS matches."""
        return xdotool_output("search", "--onlyvisible", "--class", window_class).split()

    def clipboard(self, target: str | None = None) -> str:
        """The clipboard's text, as an application put it there ("" when empty or when its owner does not answer);
        `target` asks for another form ("text/uri-list")."""
        try:
            return read_clipboard(target)
        except subprocess.TimeoutExpired:
            return ""

    def close_apps(self) -> None:
        """End every application of the task (and what they started), so the next task starts on a clear desktop."""
        for process in self._apps:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        for process in self._apps:
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                process.wait()
        self._apps.clear()

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def _window_manager_running(env: dict[str, str]) -> bool:
    """A window manager announces itself with _NET_SUPPORTING_WM_CHECK on the root window."""
    probe = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], capture_output=True, text=True, env=env,
                           timeout=5)
    return "window id" in probe.stdout


def _start_accessibility_bus(session_bus: str) -> None:
    """Ask the session bus for the accessibility bus before any application starts: that launches AT-SPI's bus and
    registry and marks the display (the AT_SPI_BUS root property), so GTK and Qt apps register their trees. Without
    at-spi2-core the suite still runs, from pixels alone."""
    try:
        with open_dbus_connection(session_bus, auth_timeout=2.0) as connection:
            connection.send_and_get_reply(new_method_call(A11Y_BUS, "GetAddress"), timeout=10)
    except (OSError, ConnectionError, TimeoutError, ValueError) as exc:
        log.warning("no accessibility bus (%s): grounding uses pixels only", exc)


def _kill_pid(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass

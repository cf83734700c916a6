"""The desktop the desktop-apps suite runs on: its own Xvfb (as much larger as the scale factor: 1, 1.25, 1.5 or
2), with one monitor or two (a second of another size left of the primary, the apps opened on either), a private
D-Bus session bus with the accessibility (AT-SPI) bus behind it, the Openbox window manager, and for every task a
fresh home folder (its own config, Documents, clipboard owner) in which the task's applications start with their
toolkit's scale factor. Nothing of the user's own desktop or home is touched."""

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
from deskpilot.core.display import VirtualDisplay, end_process, window_box, xdotool_output
from deskpilot.core.errors import EvaluationError
from deskpilot.core.geometry import Box

log = logging.getLogger(__name__)
A11Y_BUS = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
BASE_SIZE = (1280, 800)  # the primary monitor at scale 1; the scale multiplies both sides
SECOND_SIZE = (1440, 900)  # the second monitor at scale 1, left of the primary
SCALES = (1.0, 1.25, 1.5, 2.0)
LAYOUTS = ("one", "two")
APPS_ON = ("primary", "second")
WINDOW_TIMEOUT = 20.0  # seconds an application may take to show its window
WM_TIMEOUT = 15.0
QT_LEFTOVERS = ("QT_QPA_PLATFORM", "QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR", "QT_PLUGIN_PATH")


class DesktopSession:
    """Use as a context manager; `start_app` for each task's applications, `new_home` before each task."""

    def __init__(self, scale: float = 1.0, window_manager: str = "openbox", monitors: str = "one",
                 apps_on: str = "primary"):
        if scale not in SCALES:
            raise EvaluationError(f"--scale must be one of {', '.join(f'{s:g}' for s in SCALES)}, not {scale:g}")
        if monitors not in LAYOUTS or apps_on not in APPS_ON:
            raise EvaluationError(f"--monitors is one of {', '.join(LAYOUTS)} and --apps-on one of "
                                  f"{', '.join(APPS_ON)}, not {monitors} and {apps_on}")
        if apps_on == "second" and monitors == "one":
            raise EvaluationError("--apps-on second needs --monitors two")
        self.scale = scale
        self.window_manager = window_manager
        primary = Box(0, 0, *(round(side * scale) for side in BASE_SIZE))
        if monitors == "two":
            second = Box(0, 0, *(round(side * scale) for side in SECOND_SIZE))
            primary = primary.shifted(second.width, 0)
            self.monitors = (primary, second)
        else:
            self.monitors = (primary,)
        self.apps_monitor = self.monitors[-1] if apps_on == "second" else primary
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
        display = VirtualDisplay(monitors=self.monitors).start()
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
        wm_env = self.app_env(runtime / "wm-home")  # makes the folder the window manager's config goes into
        wm = subprocess.Popen([self.window_manager, *self._window_manager_config(runtime / "wm-home")], env=wm_env,
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

    def _window_manager_config(self, home: Path) -> list[str]:
        """Openbox places new windows on its "primary" monitor (Xinerama's order: the RandR primary first): where
        the apps go on the second monitor, a copy of the system's rc.xml names that one."""
        system = Path("/etc/xdg/openbox/rc.xml")
        if self.apps_monitor == self.monitors[0] or self.window_manager != "openbox" or not system.is_file():
            return []
        index = self.monitors.index(self.apps_monitor) + 1
        config = home / "openbox-rc.xml"
        config.write_text(system.read_text().replace("<primaryMonitor>1</primaryMonitor>",
                                                     f"<primaryMonitor>{index}</primaryMonitor>"))
        return ["--config-file", str(config)]

    def new_home(self, name: str) -> Path:
        """A fresh, empty home folder (with Documents) for the next task."""
        home = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self._runtime))
        (home / "Documents").mkdir()
        self.home = home
        if len(self.monitors) > 1:  # the pointer rests on the monitor the person works on (Qt opens dialogs there)
            area = self.apps_monitor
            xdotool_output("mousemove", str(area.x0 + area.width // 2), str(area.y0 + area.height // 2))
        return home

    def app_env(self, home: Path) -> dict[str, str]:
        home.mkdir(parents=True, exist_ok=True)
        env = dict(self._base_env)
        env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
                    "XDG_STATE_HOME": str(home / ".local/state"), **toolkit_scale(self.scale),
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
        self._keep_on_apps_monitor(window_class)
        return process

    def _keep_on_apps_monitor(self, window_class: str) -> None:
        """A window that placed itself off the apps' monitor (a toolkit centring on the primary) is moved onto it,
        as a person drags a window to the monitor they work on."""
        area = self.apps_monitor
        for window in self.window_ids(window_class):
            box = window_box(window)
            if box is not None and not area.contains(*box.center):
                left = area.x0 + max(0, (area.width - box.width) // 2)
                top = area.y0 + max(0, (area.height - box.height) // 2)
                log.info("moving %s window %s onto the apps' monitor at (%d, %d)", window_class, window, left, top)
                xdotool_output("windowmove", window, str(left), str(top))

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


def toolkit_scale(scale: float) -> dict[str, str]:
    """The environment that makes Qt and GTK apps draw at `scale`: Qt takes any factor; GTK 3 scales whole
    windows only by integers (GDK_SCALE), so a fractional factor enlarges its text (GDK_DPI_SCALE), as GTK desktops on
    X11 do; deskpilot's own Tk and web forms read DESKPILOT_APP_SCALE (Tk's scaling, Chromium's device scale)."""
    whole = scale == int(scale)
    return {"DESKPILOT_APP_SCALE": f"{scale:g}", "QT_SCALE_FACTOR": f"{scale:g}", "QT_AUTO_SCREEN_SCALE_FACTOR": "0",
            "GDK_SCALE": str(int(scale)) if whole else "1", "GDK_DPI_SCALE": "1" if whole else f"{scale:g}"}


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

"""Shared fixtures: a real X display (Xvfb), the bundled demo app and the unseen test forms on it, and a helper
that runs the real `deskpilot` command. Every test gets one tier: `display` (it draws on an X server: it uses a
fixture that starts one, or starts one itself), `slow` (marked by hand: training, clusters, live benchmarks), or
else `unit` — `pytest -m unit` is the quick loop."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deskpilot.resources.demo import DemoApp
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeWriter, Step
from deskpilot.core.geometry import Point
from deskpilot.core.screen import Screen
from deskpilot.core.display import VirtualDisplay

TESTS_DIR = Path(__file__).resolve().parent
DISPLAY_WORDS = ("VirtualDisplay(", "xdisplay", "qtbot", "qapp")  # in a fixture or test: it needs an X server
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _needs_display(function: object) -> bool:
    try:
        source = inspect.getsource(function)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return False
    return any(word in source for word in DISPLAY_WORDS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers: `display` where the test or a fixture it uses (at any depth) starts or takes an X server."""
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        defs = [d for found in (fixtures.name2fixturedefs.values() if fixtures else ()) for d in found]
        if item.get_closest_marker("display") is None and (
                any(name in ("xdisplay", "qtbot", "qapp") for name in getattr(item, "fixturenames", ()))
                or any(_needs_display(d.func) for d in defs if not d.baseid.endswith("_pytest"))
                or _needs_display(getattr(item, "function", None))):
            item.add_marker(pytest.mark.display)
        if item.get_closest_marker("display") is None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.unit)


@pytest.fixture(autouse=True, scope="module")
def rule_pack_off_after_each_file() -> Iterator[None]:
    """Each test file ends with the rule pack off, as a new process starts: a MiniWoB episode run in the test
    process (the harness turns the pack on for its process) does not carry it into the next file on that worker."""
    from deskpilot.core.rule_packs import NONE, use

    yield
    use(NONE)


@pytest.fixture
def miniwob_rules() -> Iterator[None]:
    """The MiniWoB++ rule pack on, as the MiniWoB harness turns it on; off again after the test."""
    from deskpilot.core.rule_packs import NONE, use
    from deskpilot.evaluation.miniwob.rules import MINIWOB

    use(MINIWOB)
    yield
    use(NONE)


@pytest.fixture(scope="session")
def backbone_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An XDG data folder the backbone is converted into once for the whole session (each test that needs it
    converts it if it is not there yet)."""
    return tmp_path_factory.mktemp("xdg-data")


@pytest.fixture(scope="session")
def xdisplay() -> Iterator[VirtualDisplay]:
    """A fresh Xvfb for the whole session; this process and its children draw on it."""
    display = VirtualDisplay(1280, 800).start()
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY")}
    display.activate()
    yield display
    display.stop()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def demo_app(xdisplay: VirtualDisplay, tmp_path: Path) -> Iterator[DemoApp]:
    app = DemoApp(tmp_path / "demo-state.json").start()
    yield app
    app.stop()


def read_state(path: Path) -> dict:
    return json.loads(path.read_text())


def wait_for_state(path: Path, timeout: float = 20.0) -> dict:
    """The state an app has written, once it is whole: a file that exists may still be being written."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return read_state(path)
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path} never appeared whole") from None
            time.sleep(0.05)


class UnseenForms:
    """Starts tests/apps/unseen_forms.py forms: `forms(name, at="x,y")` -> the state file; `close()` ends them."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.processes: list[subprocess.Popen[bytes]] = []

    def __call__(self, name: str, at: str = "200,120") -> Path:
        state = self.tmp_path / f"{name}-{len(self.processes)}-state.json"
        self.processes.append(subprocess.Popen([sys.executable, str(TESTS_DIR / "apps" / "unseen_forms.py"), name,
                                                "--state", str(state), "--at", at]))
        wait_for_state(state)
        return state

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=10)


@pytest.fixture
def unseen_form(xdisplay: VirtualDisplay, tmp_path: Path) -> Iterator[UnseenForms]:
    forms = UnseenForms(tmp_path)
    yield forms
    forms.close()


@pytest.fixture
def test_apps(xdisplay: VirtualDisplay, tmp_path: Path) -> Iterator:
    """Starts scripts of tests/apps/ on the test display: `start(script, *args, python=...)` runs
    `tests/apps/SCRIPT.py ARGS --state FILE` and returns the state file once the app has written it; every app
    started is ended after the test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(script: str, *args: str, python: str = sys.executable) -> Path:
        state = tmp_path / f"{script}-{len(processes)}-state.json"
        processes.append(subprocess.Popen([python, str(TESTS_DIR / "apps" / f"{script}.py"), *args,
                                           "--state", str(state)]))
        wait_for_state(state)
        return state

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def deskpilot(*args: str, env: dict[str, str] | None = None, timeout: float = 180,
              **popen: object) -> subprocess.CompletedProcess[str]:
    """Run the real `deskpilot` command (as `python -m deskpilot.app`). `--planner auto` sends no task to the
    shipped language planner unless a test asks for it (`DESKPILOT_LANGUAGE_MODEL=shipped`): a 135M model on two
    cores would make every refused instruction a run of several seconds (tests/test_language_planner.py tests it)."""
    full_env = {**os.environ, "DESKPILOT_LANGUAGE_MODEL": "none"}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "deskpilot.app", *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env, **popen)  # type: ignore[arg-type]


def clicks_on_nothing(root: Path, count: int = 2) -> Path:
    """An episode whose clicks land on the empty desktop: frames before and after are identical."""
    screen = Screen()
    writer = EpisodeWriter.create(root, "click the empty corner", source="agent")
    for index in range(count):
        before = writer.add_frame(screen.grab())
        subprocess.run(["xdotool", "mousemove", "1200", "760", "click", "1"], check=True)
        time.sleep(0.3)
        after = writer.add_frame(screen.grab())
        writer.append(Step(index, Action(kind=ActionKind.CLICK, point=Point(1200, 760)), before, after,
                           monitor=screen.monitor()))
    writer.finish("success")
    return writer.directory

"""A demonstration recorded on a real GTK dialog under a window manager, replayed on a fresh copy of the dialog that
stands elsewhere on the screen, then on one at twice the scale in a dark theme: the replay finds each field again
and the dialog's own output says what it got."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import deskpilot

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.grounding.accessibility import AccessibilityTree

APPS = ("openbox", "zenity", "dbus-daemon", "xdotool", "/usr/libexec/at-spi-bus-launcher")
# On a busy machine a dialog at twice the scale may take seconds to draw its fields: the replay keeps looking longer
PATIENT = {"DESKPILOT_LOCATE_TIMEOUT": "20", "DESKPILOT_SETTLE_TIMEOUT": "5"}
FORM = ["zenity", "--forms", "--title", "Contact", "--text", "Contact details", "--add-entry", "Name",
        "--add-entry", "City"]
pytestmark = [pytest.mark.display,
              pytest.mark.skipif(any(shutil.which(a) is None and not os.path.exists(a) for a in APPS),
                                 reason="installers/setup.sh --bench installs Openbox, zenity and at-spi2-core (the "
                                        "test finds the dialog's fields in its accessibility tree)")]


def _boxes(wanted: tuple[str, ...]) -> dict[str, object]:
    """Where the person clicks: the dialog's fields (by their labels) and buttons, from its accessibility tree."""
    tree = AccessibilityTree()
    deadline = time.monotonic() + 10
    while True:
        nodes = tree.read().nodes
        labels = {n.name: n for n in nodes if n.role == "text"}
        fields = [n for n in nodes if n.role == "input"]
        found = {n.name: n.box for n in nodes if n.role == "button"}
        for name in ("Name", "City"):
            if name in labels:
                row = [f for f in fields if abs(f.box.center.y - labels[name].box.center.y) < 8]
                if row:
                    found[name] = row[0].box
        if all(name in found for name in wanted) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _click(box: object) -> None:
    x, y = box.center  # type: ignore[attr-defined]
    subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], check=True)
    time.sleep(0.5)


def test_a_recording_on_a_gtk_dialog_replays_moved_at_twice_the_scale_and_in_a_dark_theme(tmp_path: Path):
    from deskpilot.evaluation.desktop_session import DesktopSession

    saved = dict(os.environ)
    try:
        with DesktopSession() as session:
            session.new_home("replay")
            first = session.start_app(FORM, "zenity", capture_output=True)
            boxes = _boxes(("Name", "City", "OK"))
            recorder = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "record", "--task", "fill the contact",
                                         "--out", str(tmp_path / "rec")], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 30
            while not list_episodes(tmp_path / "rec"):
                assert recorder.poll() is None and time.monotonic() < deadline, recorder.communicate()
                time.sleep(0.05)
            time.sleep(1.0)  # the listeners are up
            for field, text in (("Name", "Ada"), ("City", "Paris")):
                _click(boxes[field])
                subprocess.run(["xdotool", "type", "--delay", "40", text], check=True)
                time.sleep(0.4)
            _click(boxes["OK"])
            subprocess.run(["xdotool", "key", "ctrl+shift+F10"], check=True)
            _, err = recorder.communicate(timeout=60)
            assert recorder.returncode == 0, err
            assert first.communicate(timeout=10)[0].decode().strip() == "Ada|Paris"
            recorded = list_episodes(tmp_path / "rec")[0]

            second = session.start_app(FORM, "zenity", capture_output=True)
            window = session.window_ids("zenity")[-1]
            old = _boxes(("OK",))["OK"]
            subprocess.run(["xdotool", "windowmove", window, "40", "30"], check=True)
            deadline = time.monotonic() + 5
            while _boxes(("OK",))["OK"] == old and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _boxes(("OK",))["OK"] != old  # the dialog stands elsewhere now
            result = deskpilot("replay", str(recorded), "--episodes-dir", str(tmp_path / "replays"), env=PATIENT)
            assert result.returncode == 0, result.stdout + result.stderr
            assert second.communicate(timeout=10)[0].decode().strip() == "Ada|Paris"
            replayed = read_episode(list_episodes(tmp_path / "replays")[0])
            assert replayed.meta.outcome == "success" and len(replayed.steps) >= 5

        # the same recording on a screen twice as large, the dialog at GDK_SCALE=2 and in a dark theme
        with DesktopSession(scale=2) as session:
            session.new_home("replay-2x")
            third = session.start_app(FORM, "zenity", capture_output=True, env={"GTK_THEME": "Adwaita:dark"})
            assert set(_boxes(("Name", "City", "OK"))) >= {"Name", "City", "OK"}  # drawn and answering, however busy
            result = deskpilot("replay", str(recorded), "--episodes-dir", str(tmp_path / "replays-2x"), env=PATIENT)
            assert result.returncode == 0, result.stdout + result.stderr
            assert third.communicate(timeout=10)[0].decode().strip() == "Ada|Paris"
    finally:
        os.environ.clear()
        os.environ.update(saved)

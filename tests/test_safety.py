"""Safety checks before every action: stop latch, failsafe corners, confirmation policy, rate limit."""

from __future__ import annotations

import threading
import time

import pytest

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.errors import ActionRefused, SafetyStop, SettingsError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.safety import ConfirmationPolicy, EmergencyStop, Safety, in_corner

MONITORS = [Monitor(0, 0, 1280, 800), Monitor(1280, 0, 1920, 1080)]
CLICK = Action(kind=ActionKind.CLICK, point=Point(100, 100))


def test_corners_of_every_monitor_are_failsafe_zones():
    assert in_corner(Point(0, 0), MONITORS) and in_corner(Point(1279, 799), MONITORS)
    assert in_corner(Point(3199, 0), MONITORS) and in_corner(Point(1281, 1078), MONITORS)
    assert not in_corner(Point(640, 400), MONITORS) and not in_corner(Point(1280, 400), MONITORS)


def test_cursor_in_a_corner_triggers_the_stop():
    safety = Safety()
    with pytest.raises(SafetyStop, match="corner"):
        safety.check(CLICK, MONITORS, Point(0, 0))
    with pytest.raises(SafetyStop):
        safety.check(CLICK, MONITORS, Point(640, 400))  # the latch stays set


def test_actions_aimed_at_a_corner_are_refused():
    with pytest.raises(ActionRefused, match="failsafe corner"):
        Safety().check(Action(kind=ActionKind.CLICK, point=Point(1279, 0)), MONITORS, None)


@pytest.mark.parametrize("action, target, needs", [
    (Action(kind=ActionKind.CLICK, point=Point(1, 1)), "Delete all", True),
    (Action(kind=ActionKind.CLICK, point=Point(1, 1)), "Save", False),
    (Action(kind=ActionKind.HOTKEY, keys=("alt", "f4")), "", True),
    (Action(kind=ActionKind.HOTKEY, keys=("ctrl", "s")), "", False),
    (Action(kind=ActionKind.TYPE, text="sudo rm -rf /"), "", True),
    (Action(kind=ActionKind.TYPE, text="pay", secret=True), "", False),
    (Action(kind=ActionKind.WAIT), "", False),
])
def test_risky_policy(action, target, needs):
    assert (ConfirmationPolicy("risky").reason(action, target) is not None) is needs


def test_policy_modes():
    assert ConfirmationPolicy("never").reason(CLICK, "Delete") is None
    assert ConfirmationPolicy("always").reason(CLICK, "Save") is not None


def test_confirmation_gates_the_action():
    asked: list[str] = []
    delete = Action(kind=ActionKind.CLICK, point=Point(100, 100), target="Delete all")
    with pytest.raises(ActionRefused, match="needs confirmation"):
        Safety(confirm=lambda a, r: asked.append(r) or False).check(delete, MONITORS, None)
    assert asked
    Safety(confirm=lambda a, r: True).check(delete, MONITORS, None)


def test_rate_limit_spaces_actions():
    safety = Safety(min_interval=0.2)
    started = time.monotonic()
    for _ in range(3):
        safety.check(CLICK, MONITORS, None)
    assert time.monotonic() - started >= 0.35


def test_stop_wakes_a_sleep_at_once():
    stop = EmergencyStop()
    threading.Timer(0.1, stop.trigger, args=("test",)).start()
    started = time.monotonic()
    with pytest.raises(SafetyStop, match="test"):
        stop.sleep(10)
    assert time.monotonic() - started < 1


def test_vt_switch_hotkeys_are_refused_as_stop_keys():
    with pytest.raises(SettingsError, match="virtual-terminal"):
        EmergencyStop().listen("ctrl+alt+f12")


def test_actions_on_deskpilots_own_window_are_refused():
    safety = Safety(no_go=lambda: [Box(0, 600, 1280, 800)])
    monitors = [Monitor(0, 0, 1280, 800)]
    safety.check(Action(kind=ActionKind.CLICK, point=Point(300, 300)), monitors, None)
    with pytest.raises(ActionRefused, match="deskpilot's own window"):
        safety.check(Action(kind=ActionKind.CLICK, point=Point(300, 700)), monitors, None)
    with pytest.raises(ActionRefused):
        safety.check(Action(kind=ActionKind.DRAG, point=Point(300, 300), end_point=Point(300, 650)), monitors, None)

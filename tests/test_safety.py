"""Safety checks before every action: stop latch, failsafe corners, confirmation policy, rate limit."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.errors import ActionRefused, SafetyStop, SettingsError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.safety import (ActionContext, Confirmation, ConfirmationPolicy, EmergencyStop, Safety,
                                   in_corner)
from deskpilot.core.secrets import TaskSecret

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


PASSWORD = TaskSecret("password", "hunter2-Secret")


@pytest.mark.parametrize("action, context, needs", [
    (CLICK, ActionContext(under=("Delete all",)), True),  # judged from what is under the point ...
    (CLICK, ActionContext(under=("Save",)), False),
    (Action(kind=ActionKind.CLICK, point=Point(1, 1), target="the Delete button"), ActionContext(), True),
    (Action(kind=ActionKind.HOTKEY, keys=("alt", "f4")), ActionContext(), True),
    (Action(kind=ActionKind.HOTKEY, keys=("alt", "shift", "f4")), ActionContext(), True),  # containment
    (Action(kind=ActionKind.HOTKEY, keys=("ctrl", "alt", "t")), ActionContext(), True),
    (Action(kind=ActionKind.HOTKEY, keys=("alt", "f2")), ActionContext(), True),
    (Action(kind=ActionKind.KEY, keys=("f4",), key_state="press"), ActionContext(), False),
    (Action(kind=ActionKind.HOTKEY, keys=("ctrl", "s")), ActionContext(), False),
    (Action(kind=ActionKind.TYPE, text="sudo rm -rf /"), ActionContext(), True),
    (Action(kind=ActionKind.TYPE, text="pay", secret=True), ActionContext(), False),
    (Action(kind=ActionKind.WAIT), ActionContext(), False),
    # an OK is as risky as what its dialog confirms
    (CLICK, ActionContext(under=("OK",), nearby=("Are you sure you want to delete 3 files?",)), True),
    (CLICK, ActionContext(under=("OK",), nearby=("Settings were saved.",)), False),
    (Action(kind=ActionKind.HOTKEY, keys=("enter",)), ActionContext(window_title="Confirm: remove account"), True),
    (Action(kind=ActionKind.KEY, keys=("enter",), key_state="press"), ActionContext(window_title="Delete files?"),
     True),
    # Enter in a terminal runs a command
    (Action(kind=ActionKind.TYPE, text="ls -la\n"), ActionContext(window_title="user@host: ~"), True),
    (Action(kind=ActionKind.HOTKEY, keys=("enter",)), ActionContext(window_title="xterm"), True),
    (Action(kind=ActionKind.TYPE, text="ls -la"), ActionContext(window_title="xterm"), False),
    (Action(kind=ActionKind.TYPE, text="ls\n"), ActionContext(window_title="notes.txt - Mousepad"), False),
    # a task's secret goes only into a field whose label fits
    (Action(kind=ActionKind.TYPE, text="hunter2-Secret", secret=True),
     ActionContext(focused_field="Password", secrets=(PASSWORD,)), False),
    (Action(kind=ActionKind.TYPE, text="hunter2-Secret", secret=True),
     ActionContext(focused_field="Full name", secrets=(PASSWORD,)), True),
    (Action(kind=ActionKind.TYPE, text="hunter2-Secret", secret=True), ActionContext(secrets=(PASSWORD,)), True),
    (Action(kind=ActionKind.TYPE, text="Ada"), ActionContext(focused_field="Full name", secrets=(PASSWORD,)), False),
])
def test_risky_policy(action, context, needs):
    assert (ConfirmationPolicy("risky").reason(action, context) is not None) is needs


def test_policy_modes():
    assert ConfirmationPolicy("never").reason(CLICK, ActionContext(under=("Delete",))) is None
    assert ConfirmationPolicy("always").reason(CLICK, ActionContext(under=("Save",))) is not None


def test_confirmation_gates_the_action():
    asked: list[Confirmation] = []
    delete = Action(kind=ActionKind.CLICK, point=Point(100, 100))
    context = ActionContext(under=("Delete all",), crop=np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ActionRefused, match="needs confirmation"):
        Safety(confirm=lambda request: asked.append(request) or False).check(delete, MONITORS, None, context)
    assert asked and asked[0].under == "Delete all" and asked[0].crop.shape == (10, 10, 3)
    assert "Delete all" in asked[0].question()
    Safety(confirm=lambda request: True).check(delete, MONITORS, None, context)
    with pytest.raises(ActionRefused, match="you denied it"):
        Safety(confirm=lambda request: False).check(delete, MONITORS, None, context)
    with pytest.raises(ActionRefused, match="nobody was asked; run interactively"):
        Safety().check(delete, MONITORS, None, context)


def test_an_allowance_covers_one_click_on_one_control_in_one_app_and_never_typing(tmp_path):
    from deskpilot.core.allowances import Allowances, allowance_for

    allowances = Allowances(tmp_path / "allowances.json")
    asked: list[Confirmation] = []
    apps = {Point(100, 100): "mail", Point(300, 100): "files"}  # the window under each point; elsewhere none
    safety = Safety(confirm=lambda request: asked.append(request) or False, allowed=allowances.allows,
                    app_at=apps.get)
    delete = Action(kind=ActionKind.CLICK, point=Point(100, 100))
    in_mail = ActionContext(under=("Delete all", "Delete all"))
    with pytest.raises(ActionRefused):
        safety.check(delete, MONITORS, None, in_mail)
    assert asked[0].app == "mail" and asked[0].under == "Delete all"  # read once, though OCR and AT-SPI both said it
    allowances.add(allowance_for(asked[0]))
    safety.check(delete, MONITORS, None, in_mail)  # not asked again
    assert len(asked) == 1
    for point, other in ((Point(300, 100), in_mail),  # another app
                         (Point(100, 100), ActionContext(under=("Delete account",))),  # another control
                         (Point(500, 100), in_mail)):  # an app that cannot be named
        with pytest.raises(ActionRefused):
            safety.check(delete.model_copy(update={"point": point}), MONITORS, None, other)
    typed = Confirmation(Action(kind=ActionKind.TYPE, text="rm -rf ~"), "a terminal", "bash", None, "xterm")
    assert allowance_for(typed) is None  # typing and keys always ask
    allowances.revoke(allowance_for(asked[0]))
    with pytest.raises(ActionRefused):
        safety.check(delete, MONITORS, None, in_mail)
    (tmp_path / "allowances.json").write_text("{not json")
    assert allowances.all() == []  # unreadable: every risky action asks again


def test_keys_held_with_press_combine_with_later_keys():
    asked: list[str] = []
    safety = Safety(confirm=lambda request: asked.append(request.reason) or False)
    safety.check(Action(kind=ActionKind.KEY, keys=("alt",), key_state="press"), MONITORS, None)
    with pytest.raises(ActionRefused):
        safety.check(Action(kind=ActionKind.KEY, keys=("f4",), key_state="press"), MONITORS, None)
    assert asked and "alt+f4" in asked[0]
    safety.check(Action(kind=ActionKind.KEY, keys=("alt",), key_state="release"), MONITORS, None)
    safety.check(Action(kind=ActionKind.KEY, keys=("f4",), key_state="press"), MONITORS, None)


def test_keyboard_actions_are_refused_while_a_protected_window_has_the_focus():
    safety = Safety(keyboard_no_go=lambda: "the terminal deskpilot was started from")
    with pytest.raises(ActionRefused, match="terminal deskpilot was started from"):
        safety.check(Action(kind=ActionKind.TYPE, text="y\n"), MONITORS, None)
    safety.check(CLICK, MONITORS, None)


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

"""`deskpilot run` on a real X display (Xvfb): real Qt windows, real mouse and keyboard, and the apps' own state
as the proof of what happened."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from conftest import deskpilot, read_state

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.screen import TYPED_QUIET


def only_episode(root: Path):
    episodes = list_episodes(root)
    assert len(episodes) == 1
    return read_episode(episodes[0])


def test_fills_checks_selects_and_saves_on_the_demo_app(demo_app, tmp_path):
    task = 'type "Ada Lovelace" into Full name, check "Remember me", select "Blue" from Colour then click "Save"'
    result = deskpilot("run", task, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(demo_app.state_file)
    assert state["full_name"] == "Ada Lovelace"
    assert state["remember_me"] is True
    assert state["colour"] == "Blue"
    assert state["saved"] == 1 and state["events"] == ["button:Save"]
    episode = only_episode(tmp_path / "ep")
    assert episode.meta.outcome == "success" and episode.meta.source == "agent"
    kinds = [s.action.kind.value for s in episode.steps]
    assert kinds == ["click", "type", "click", "click", "click", "click", "finished"]
    assert episode.steps[1].timing["settle_ms"] >= TYPED_QUIET * 1000  # what answers a pause in typing is waited for
    for step in episode.steps[:-1]:
        assert (episode.directory / step.before).is_file() and (episode.directory / step.after).is_file()
        assert {"parse_ms", "ocr_detect_ms", "layout_ms", "settle_ms", "look_ahead_ms"} <= set(step.timing)
    # Where the screen answered an action before the wait ended (its frame after differs from the one before), the
    # wait parsed the changed frames while it waited. (An app too busy to repaint within the reaction window, as
    # on a loaded machine, leaves a step with the same frame before and after.)
    changed = [step for step in episode.steps[:-1]
               if not np.array_equal(cv2.imread(str(episode.directory / step.before)),
                                     cv2.imread(str(episode.directory / step.after)))]
    assert changed and all(step.timing["look_ahead_ms"] > 0 for step in changed)
    assert (episode.directory / "annotated.png").is_file()


def test_every_click_lands_inside_the_widget_it_meant(demo_app, tmp_path):
    boxes = read_state(demo_app.state_file)["boxes"]
    task = 'type "x" into Email, check "Subscribe to newsletter" then click "Cancel"'
    assert deskpilot("run", task, "--episodes-dir", str(tmp_path / "ep")).returncode == 0
    clicks = [s.action.point for s in only_episode(tmp_path / "ep").steps if s.action.kind.value == "click"]
    for point, name in zip(clicks, ["Email", "Subscribe to newsletter", "Cancel"]):
        x0, y0, x1, y1 = boxes[name]
        assert x0 <= point.x < x1 and y0 <= point.y < y1, (name, point, boxes[name])


def test_a_drop_down_set_like_a_text_field_has_its_option_chosen(demo_app, tmp_path):
    result = deskpilot("run", "Change the colour to green, thanks", "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["colour"] == "Green"
    kinds = [s.action.kind.value for s in only_episode(tmp_path / "ep").steps]
    assert kinds == ["click", "click", "finished"]  # the list's option clicked: nothing typed over the open list


def test_double_click_type_and_hotkey(demo_app, tmp_path):
    task = 'double-click the Report.txt icon; type "Grace Hopper" into Full name; press ctrl+s'
    result = deskpilot("run", task, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(demo_app.state_file)
    assert state["opened"] == ["Report.txt"]
    assert state["full_name"] == "Grace Hopper"
    assert state["events"] == ["menu:Save"]


def test_scrolling_reveals_an_item_below_the_fold(demo_app, tmp_path):
    task = "scroll down 15 times over Notes.md then double-click Zebra.txt"
    result = deskpilot("run", task, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["opened"] == ["Zebra.txt"]


def test_unicode_text_is_typed_exactly(demo_app, tmp_path):
    text = "Zoë Ångström — 東京 ✓"
    result = deskpilot("run", f'type "{text}" into Full name', "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["full_name"] == text


def test_works_on_a_form_it_has_never_seen(unseen_form, tmp_path):
    state_file = unseen_form("shipping")
    task = ('type "Alan Turing" into Recipient, type "Bletchley Park" into Street address, '
            'select "Germany" from Country, check "Express delivery" then click "Ship it"')
    result = deskpilot("run", task, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(state_file)
    assert state["fields"]["Recipient"] == "Alan Turing"
    assert state["fields"]["Street address"] == "Bletchley Park"
    assert state["country"] == "Germany" and state["express"] is True and state["submitted"] == ["ship"]


def test_web_form_phrasing_logs_in_and_never_stores_the_password(unseen_form, tmp_path):
    state_file = unseen_form("login")
    task = 'Enter the username "kanesha" and the password "HhE7!x" into the text fields and press login.'
    result = deskpilot("run", task, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(state_file)
    assert state["fields"] == {"username": "kanesha", "password": "HhE7!x"}
    assert state["submitted"] == ["login"]
    episode = only_episode(tmp_path / "ep")
    stored = (episode.directory / "steps.jsonl").read_text() + (episode.directory / "episode.json").read_text()
    assert "kanesha" in stored
    assert "HhE7!x" not in stored and "HhE7!x" not in result.stdout + result.stderr


def test_a_value_asked_in_capitals_and_a_password_asked_in_both_fields(unseen_form, tmp_path):
    """Two ways people ask for typing: a letter case ("in capital letters") and one value for both fields of a
    kind (a change-password dialog)."""
    shipping, password = unseen_form("shipping"), unseen_form("password", at="700,120")
    result = deskpilot("run", 'type "alan turing" in capital letters into Recipient', "--episodes-dir",
                       str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(shipping)["fields"]["Recipient"] == "ALAN TURING"
    result = deskpilot("run", 'Enter the new password "Tr0ub4dor" in both password fields, then click Change',
                       "--episodes-dir", str(tmp_path / "ep2"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(password)
    assert state["fields"] == {"new": "Tr0ub4dor", "confirm": "Tr0ub4dor"} and state["submitted"] == ["change"]
    episode = only_episode(tmp_path / "ep2")
    assert "Tr0ub4dor" not in (episode.directory / "steps.jsonl").read_text() + result.stdout + result.stderr


def test_dry_run_plans_but_never_touches_the_app(demo_app, tmp_path):
    before = read_state(demo_app.state_file)
    result = deskpilot("run", 'type "Ada" into Full name then click "Save"', "--dry-run",
                       "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(demo_app.state_file) == before
    episode = only_episode(tmp_path / "ep")
    assert all(s.dry_run for s in episode.steps if not s.action.is_terminal)
    assert episode.steps[0].action.point is not None  # it still grounded the target


def test_risky_action_needs_confirmation(demo_app, tmp_path):
    refused = deskpilot("run", 'click "Delete all"', "--episodes-dir", str(tmp_path / "a"), stdin=None)
    assert refused.returncode == 1
    assert "needs confirmation" in refused.stdout
    assert read_state(demo_app.state_file)["files"] == 41
    assert only_episode(tmp_path / "a").meta.outcome == "refused"
    approved = deskpilot("run", 'click "Delete all"', "--yes", "--episodes-dir", str(tmp_path / "b"))
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert read_state(demo_app.state_file)["files"] == 0


def test_missing_target_ends_the_run_with_a_clear_error(demo_app, tmp_path):
    result = deskpilot("run", 'click "Launch rockets"', "--episodes-dir", str(tmp_path / "ep"),
                       env={"DESKPILOT_LOCATE_TIMEOUT": "0.5"})
    assert result.returncode == 1
    assert "could not find" in result.stdout and "Traceback" not in result.stdout + result.stderr
    assert only_episode(tmp_path / "ep").meta.outcome == "error"


def test_unknown_instruction_is_one_line_error_before_anything_starts(tmp_path):
    result = deskpilot("run", "make me a sandwich", "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: I don't understand 'make me a sandwich'")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "ep").exists()


@pytest.mark.display
def test_runs_its_own_virtual_display_and_demo_app_when_there_is_no_screen(tmp_path):
    env = {"DISPLAY": ""}
    result = deskpilot("run", 'type "Headless" into Full name then click "Save"',
                       "--episodes-dir", str(tmp_path / "ep"), env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "started a virtual one" in result.stderr
    state = json.loads((tmp_path / "ep" / "demo-state.json").read_text())
    assert state["full_name"] == "Headless" and state["saved"] == 1
    assert (only_episode(tmp_path / "ep").directory / "annotated.png").is_file()


def test_check_looks_before_it_clicks(demo_app, tmp_path):
    def run(task: str, name: str):
        result = deskpilot("run", task, "--episodes-dir", str(tmp_path / name))
        assert result.returncode == 0, result.stdout + result.stderr
        return read_episode(list_episodes(tmp_path / name)[0])

    run('check "Remember me"', "a")
    assert read_state(demo_app.state_file)["remember_me"] is True
    again = run('check "Remember me" then click "OK"', "b")
    assert read_state(demo_app.state_file)["remember_me"] is True  # not toggled back off
    assert [s.action.kind.value for s in again.steps] == ["click", "finished"]
    assert "already on" in again.steps[0].thought
    run('uncheck "Remember me"', "c")
    assert read_state(demo_app.state_file)["remember_me"] is False


def test_a_value_the_task_takes_from_the_screen_is_read_there_and_typed(unseen_form, tmp_path):
    """"Enter the value of Customer into the Reference field": the grammar had typed the words "the value of
    Customer" (MiniWoB's read-table, never collected, ended that way). The value beside the label the task names
    is read off the first screen and typed; a label the screen does not show is refused, nothing typed."""
    state_file = unseen_form("record")
    result = deskpilot("run", "Enter the value of Customer into the Reference field and press Save",
                       "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(state_file)
    assert state["fields"]["Reference"] == "Ines Moreau" and state["submitted"] == ["Ines Moreau"], state
    steps = (only_episode(tmp_path / "ep").directory / "steps.jsonl").read_text()
    assert "the value of Customer reads 'Ines Moreau' on the screen" in steps
    refused = deskpilot("run", "Enter the value of Invoice date into the Reference field", "--episodes-dir",
                        str(tmp_path / "ep2"))
    assert refused.returncode != 0 and "cannot read there" in refused.stdout + refused.stderr
    assert read_state(state_file)["fields"]["Reference"] == "Ines Moreau"  # nothing typed


def test_a_fields_text_is_copied_and_pasted_into_another(unseen_form, tmp_path):
    """"Copy the text in the Notes box, then paste it into the Reference field": the text goes through the clipboard
    as it is (click, select all, copy; click, paste), never read off the screen and typed again."""
    state_file = unseen_form("record")
    result = deskpilot("run", "Copy the text in the Notes box, then paste it into the Reference field and press Save",
                       "--planner", "offline", "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(state_file)
    assert state["fields"]["Reference"] == "Leave at the back door" and state["submitted"] == [
        "Leave at the back door"], state

"""Titles are not controls, and a phrase the grammar cannot split into field and value is not typed into whatever
has the focus: under a real window manager a dialog titled "Save" whose main button is "Save" gets its button
clicked, not its title bar's text; 'enter "Ada" as the name' types Ada into the name field."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import deskpilot, read_state

from deskpilot.core.errors import PlannerError
from deskpilot.planner.instructions import parse_instructions

APPS = ("openbox", "zenity", "dbus-daemon", "xdotool")
PIXELS = {"DESKPILOT_ACCESSIBILITY": "0"}  # from pixels alone: the title bar's text reads like any other


@pytest.mark.display
@pytest.mark.skipif(any(shutil.which(a) is None for a in APPS),
                    reason="installers/setup.sh --bench installs Openbox and zenity")
def test_a_dialog_titled_like_its_button_gets_the_button_clicked(tmp_path):
    from deskpilot.evaluation.desktop_session import DesktopSession

    saved = dict(os.environ)
    try:
        with DesktopSession() as session:
            session.new_home("titles")
            dialog = session.start_app(["zenity", "--question", "--title", "Save", "--text",
                                        "Keep the changes to the report?", "--ok-label", "Save",
                                        "--cancel-label", "Discard"], "zenity", capture_output=True)
            result = deskpilot("run", 'click "Save"', "--episodes-dir", str(tmp_path / "ep"), env=PIXELS)
            try:
                dialog.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the dialog is still open: {result.stdout}{result.stderr}")
            assert dialog.returncode == 0, result.stdout  # the Save button, not Discard, not the title bar
            assert result.returncode == 0, result.stdout + result.stderr
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("task, field, value", [('enter "Ada" as the name', "name", "Ada"),
                                                 ("put Ada Lovelace as the full name", "full name", "Ada Lovelace"),
                                                 ('type "42" as your age', "age", "42")])
def test_value_as_field_is_split_into_a_click_on_the_field_and_the_value(task, field, value):
    planned = [p.action for p in parse_instructions(task)]
    assert [a.kind.value for a in planned] == ["click", "type"]
    assert field in (planned[0].target or "").lower() and planned[1].text == value


@pytest.mark.parametrize("task", ["enter Ada for the name", "write 42 for your age"])
def test_a_phrase_that_names_a_field_it_cannot_split_is_refused(task):
    with pytest.raises(PlannerError, match="field"):
        parse_instructions(task)


@pytest.mark.display
def test_an_unsplittable_phrase_does_nothing_at_all(demo_app, tmp_path):
    result = deskpilot("run", "enter Ada for the name", "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 2 and "field" in result.stderr, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["full_name"] == ""

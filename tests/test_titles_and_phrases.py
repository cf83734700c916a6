"""Titles are not controls, a phrase the grammar cannot split into field and value is not typed into whatever has
the focus, and typing replaces what a GTK entry held: under a real window manager a dialog titled "Save" whose main
button is "Save" gets its button clicked, not its title bar's text; 'enter "Ada" as the name' types Ada into the
name field; a zenity entry that starts with "1000" answers "250"."""

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
needs_openbox = pytest.mark.skipif(any(shutil.which(a) is None for a in APPS),
                                   reason="installers/setup.sh --bench installs Openbox and zenity")


@pytest.fixture
def desktop():  # noqa: ANN201 - a DesktopSession with a fresh home
    """A real desktop under Openbox (the suite's session); this process's environment is put back after it."""
    from deskpilot.evaluation.desktop_session import DesktopSession

    saved = dict(os.environ)
    try:
        with DesktopSession() as session:
            session.new_home("titles")
            yield session
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.display
@needs_openbox
def test_a_dialog_titled_like_its_button_gets_the_button_clicked(desktop, tmp_path):
    dialog = desktop.start_app(["zenity", "--question", "--title", "Save", "--text", "Keep the changes to the report?",
                                "--ok-label", "Save", "--cancel-label", "Discard"], "zenity", capture_output=True)
    result = deskpilot("run", 'click "Save"', "--episodes-dir", str(tmp_path / "ep"), env=PIXELS)
    try:
        dialog.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the dialog is still open: {result.stdout}{result.stderr}")
    assert dialog.returncode == 0, result.stdout  # the Save button, not Discard, not the title bar
    assert result.returncode == 0, result.stdout + result.stderr


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
    """The offline grammar will not guess where "the name" is (the language planner may: see its tests)."""
    result = deskpilot("run", "enter Ada for the name", "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 2 and "field" in result.stderr, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["full_name"] == ""


@pytest.mark.display
@needs_openbox
def test_a_pre_filled_gtk_entry_is_replaced_and_the_dialog_answers_with_the_value(desktop, tmp_path):
    """GTK 3 under a window manager: the entry starts with "1000"; the value typed replaces it."""
    from openai_server import ChatServer

    from deskpilot.core.coords import CoordinateSpace
    from deskpilot.core.geometry import Box, Monitor
    from deskpilot.grounding.accessibility import AccessibilityTree

    dialog = desktop.start_app(["zenity", "--entry", "--title", "Invoice", "--text", "Amount", "--entry-text", "1000"],
                               "zenity", capture_output=True)
    nodes = []
    for _ in range(50):
        nodes = [n for n in AccessibilityTree().read().nodes if n.role in ("input", "button")]
        if any(n.role == "input" for n in nodes) and any(n.name == "OK" for n in nodes):
            break
    entry = next(n.box for n in nodes if n.role == "input")
    ok = next(n.box for n in nodes if n.role == "button" and n.name == "OK")
    space = CoordinateSpace.for_model(Monitor(0, 0, 1280, 800), "resized")

    def at(box: Box) -> str:
        x, y = space.from_screen(box.center)
        return f"<point>{x} {y}</point>"

    with ChatServer([f"Thought: the amount.\nAction: click(point='{at(entry)}')",
                     "Thought: type it.\nAction: type(content='250')",
                     f"Thought: confirm.\nAction: click(point='{at(ok)}')",
                     "Thought: done.\nAction: finished(content='done')"]) as server:
        result = deskpilot("run", 'type "250" into Amount and press OK', "--planner", "openai", "--model",
                           "UI-TARS-1.5-7B", "--base-url", server.base_url, "--episodes-dir", str(tmp_path / "ep"))
    out, _ = dialog.communicate(timeout=10)
    assert out.decode().strip() == "250", result.stdout + result.stderr  # not "1000250"
    assert result.returncode == 0, result.stdout + result.stderr

"""Boxes a task asks for by what they do ("keep me logged in"), read against the screen's label for them."""

from __future__ import annotations

import pytest

from conftest import deskpilot, read_state

from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element
from deskpilot.planner.control_names import speaks_of_a_box, with_box_labels


def box(label: str, y: int = 100) -> Element:
    return Element(Box(100, y, 116, y + 16), "checkbox", label, source="layout")


SIGN_IN = [Element(Box(100, 40, 300, 60), "input", "Email"), box("Keep me signed in"),
           box("Send me updates", 140), Element(Box(100, 200, 180, 224), "button", "Sign in")]


@pytest.mark.parametrize("task, written", [
    ("Make sure I stay signed in next time", 'tick "Keep me signed in"'),
    ("Remember me, please", 'tick "Keep me signed in", please'),
    ('Type "ada@x.org" into Email and keep me logged in', 'Type "ada@x.org" into Email and tick "Keep me signed in"'),
    ("Don't keep me logged in", 'untick "Keep me signed in"'),
    ("please log me out when I'm done", "please log me out when I'm done"),  # more than the box: left as written
    ("Sign me up for the newsletter", 'tick "Send me updates"'),
    ("No newsletter, thanks. Then click Sign in", 'untick "Send me updates", thanks. Then click Sign in'),
    ("I'd like to get email updates and stay logged in",
     'tick "Send me updates" and tick "Keep me signed in"'),
    ('Type "stay signed in" into Email', 'Type "stay signed in" into Email'),  # a quoted value is the task's own
])
def test_a_clause_asking_for_a_box_by_what_it_does_ticks_the_label_the_screen_shows(task, written):
    assert with_box_labels(task, SIGN_IN)[0] == written


def test_only_a_groups_words_outside_quotes_make_the_first_screen_read_for_its_box():
    assert speaks_of_a_box("Keep me logged in") and speaks_of_a_box("No newsletter, thanks")
    assert not speaks_of_a_box('Type "stay signed in" into Email') and not speaks_of_a_box("Click Save")


def test_accepting_the_terms_and_conditions_is_the_box_that_says_i_agree():
    screen = [box("I agree to the Terms of Service")]
    assert with_box_labels("Accept the terms and conditions", screen)[0] == 'tick "I agree to the Terms of Service"'


@pytest.mark.parametrize("screen", [
    [],  # no box for it
    [box("Remember me"), box("Stay signed in", 140)],  # two: which one is not guessed
    [box('Remember me" and click "Delete all')],  # a label with quotes is never written into the task
    [Element(Box(100, 100, 200, 116), "text", "Remember me")],  # words, not a box
])
def test_without_one_plain_box_for_it_the_task_stays_as_written(screen):
    assert with_box_labels("Keep me logged in", screen) == ("Keep me logged in", ())


def test_keep_me_logged_in_ticks_remember_me_on_the_demo_app(demo_app, tmp_path):
    result = deskpilot("run", "Set the email to mia@home.net and keep me logged in", "--episodes-dir",
                       str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(demo_app.state_file)
    assert state["remember_me"] is True and state["email"] == "mia@home.net" and not state["newsletter"]

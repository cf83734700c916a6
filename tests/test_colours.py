"""Things named by their colour ("the olive box", "the red button"): fills named, and located where no text says
the words."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from conftest import deskpilot, read_state

from deskpilot.core.geometry import Box, Monitor
from deskpilot.core.observation import Observation
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.colours import colour_word, fill_colour, nearest_name
from deskpilot.grounding.description import parse_description

SWATCHES = {"olive": (128, 128, 0), "teal": (0, 128, 128), "red": (255, 0, 0), "navy": (0, 0, 128),
            "lime": (0, 255, 0), "silver": (192, 192, 192)}  # RGB, as grounding reads a screen


@pytest.mark.parametrize("rgb, name", [((30, 144, 255), "blue"), ((34, 139, 34), "green"), ((255, 140, 0), "orange"),
                                       ((139, 69, 19), "brown"), ((255, 105, 180), "pink"), ((90, 90, 90), "gray"),
                                       ((128, 0, 128), "purple"), ((250, 250, 250), "white")])
def test_a_colour_is_named_as_a_person_would(rgb, name):
    assert nearest_name(np.array(rgb, np.uint8)) == name


def test_a_fill_is_the_colour_most_of_the_inside_shows():
    image = np.full((60, 200, 3), 255, np.uint8)
    cv2.rectangle(image, (10, 10), (90, 40), (0, 0, 255), -1)  # a blue button with white text on it
    cv2.putText(image, "Go", (35, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2)
    assert fill_colour(image, Box(10, 10, 91, 41)) == "blue"
    stripes = np.zeros((40, 40, 3), np.uint8)
    stripes[:, ::2] = (255, 0, 0)  # no one colour covers most of it
    stripes[:, 1::2] = (0, 255, 0)
    assert fill_colour(stripes, Box(0, 0, 40, 40)) is None


def test_words_that_name_a_colour():
    assert colour_word("Click on the olive colored box.") == "olive" and colour_word("the grey one") == "gray"
    assert colour_word("Save the reddish file") is None
    spec = parse_description("olive colored box")
    assert spec.colour == "olive" and spec.phrase == "olive colored"
    assert parse_description("the red button").colour == "red" and parse_description("the red button").role == \
        "button"
    assert parse_description("the Red Cross link").colour is None


def screen(extra_text: bool = False) -> Observation:
    image = np.full((200, 520, 3), 255, np.uint8)
    for n, rgb in enumerate(SWATCHES.values()):
        cv2.rectangle(image, (20 + n * 80, 60), (80 + n * 80, 120), rgb, -1)
    if extra_text:
        cv2.putText(image, "Teal", (20, 170), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2, cv2.LINE_AA)
    return Observation(image=image, monitor=Monitor(0, 0, image.shape[1], image.shape[0]), cursor=None)


@pytest.mark.parametrize("words, index", [("the olive colored box", 0), ("the navy one", 3), ("red", 2),
                                          ("the green square", 4)])  # green: no green, one lime (a shade of it)
def test_a_swatch_named_by_its_colour_is_located(words, index):
    element = OcrGrounder().locate(screen(), words)
    assert element is not None and element.box.contains(50 + index * 80, 90), element


def test_text_that_says_the_words_wins_over_a_colour_and_two_of_a_colour_are_not_guessed():
    element = OcrGrounder().locate(screen(extra_text=True), "Teal")
    assert element is not None and element.text == "Teal"  # the text, not the teal swatch
    obs = screen()
    cv2.rectangle(obs.image, (20, 140), (80, 190), SWATCHES["olive"], -1)
    assert OcrGrounder().locate(obs, "the olive box") is None
    assert OcrGrounder().locate(obs, "the second olive box") is not None


def test_a_swatch_set_in_the_tasks_own_words_on_the_page_is_not_the_box():
    """A page that shows the task with the colour drawn in it ("Click on the ■ colored box."): that small swatch is
    a picture of the colour; the box to click is the other one."""
    obs = screen()
    cv2.putText(obs.image, "Click on the", (20, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.rectangle(obs.image, (160, 14), (178, 32), SWATCHES["olive"], -1)
    cv2.putText(obs.image, "colored box.", (186, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    grounder = OcrGrounder()
    grounder.set_task("Click on the olive colored box.")
    element = grounder.locate(obs, "the olive colored box")
    assert element is not None and element.box.contains(50, 90), element


@pytest.fixture
def palette(test_apps):
    return lambda toolkit: test_apps("palette", toolkit, "--at", "200,120")


@pytest.mark.parametrize("toolkit", ["qt", "tk"])
def test_deskpilot_clicks_the_swatch_a_task_names_by_its_colour_on_a_real_window(palette, tmp_path, toolkit):
    state = palette(toolkit)
    result = deskpilot("run", "Click the teal swatch", "--planner", "offline", "--episodes-dir", str(tmp_path / "a"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(state)["clicked"] == ["teal"]
    result = deskpilot("run", "click the green box", "--planner", "offline", "--episodes-dir", str(tmp_path / "b"))
    assert result.returncode != 0  # two shades of green (teal, olive) and no green: not guessed
    assert read_state(state)["clicked"] == ["teal"]

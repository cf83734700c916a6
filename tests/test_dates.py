"""Dates a task gives (planner/dates.py) and choosing one on the month calendar a screen shows: the day where the
calendar shows its month, else the arrow towards it; nothing where the screen shows no calendar. A time or date
typed into a field of empty parts goes in from its first part, each number whole."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.observation import Element, Observation, in_whole_parts, parted_field
from deskpilot.core.settings import Settings
from deskpilot.grounding.factory import build_grounder
from deskpilot.core.episode import Step
from deskpilot.planner.answer_corrections import _after_the_date, _on_the_calendar
from deskpilot.planner.dates import calendar_step, task_dates

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(("task", "dates"), [
    ("Select 12/24/2016 as the date and hit submit.", [date(2016, 12, 24)]),
    ("book it for 3 March 2021, then press OK", [date(2021, 3, 3)]),
    ("set the start to 2021-03-03", [date(2021, 3, 3)]),
    ("Pick Dec 4, 2016 in the calendar", [date(2016, 12, 4)]),
    ("the 24th of December 2016", [date(2016, 12, 24)]),
    ("31/12/2016", [date(2016, 12, 31)]),  # the day first, where it cannot be a month
    ("2/30/2016", []),  # no such day
    ("type 12 into Amount", []),
])
def test_the_dates_a_task_gives(task, dates):
    assert task_dates(task) == dates


@pytest.fixture(scope="module")
def picker():
    image = np.asarray(Image.open(DATA / "web-date-picker.png").convert("RGB"))  # December 2016, open
    grounder = build_grounder(Settings())
    grounder.load()
    return grounder.parse(Observation(image=image, monitor=Monitor(0, 0, image.shape[1], image.shape[0])))


def test_the_calendar_is_brought_to_the_date_one_click_at_a_time(picker):
    day = calendar_step("Select 12/24/2016 as the date and hit submit.", picker)
    assert day is not None and "day 24" in day[1]
    assert next(e.text for e in picker if e.role == "text" and e.box.contains(*day[0].point)) == "24"
    earlier = calendar_step("Select 10/31/2016 as the date", picker)
    later = calendar_step("Choose 2017-01-05 as the date", picker)
    assert earlier is not None and "previous month" in earlier[1] and earlier[0].point.x < 200
    assert later is not None and "next month" in later[1] and later[0].point.x > 300
    assert calendar_step("Select 12/24/2016 and 12/25/2016", picker) is None  # two dates: which one?
    assert calendar_step("Select 12/24/2016", [e for e in picker if not e.text.startswith("December")]) is None


def test_a_date_typed_while_the_calendar_shows_is_chosen_on_it_instead(picker):
    """MiniWoB's choose-date-easy (never collected): the model typed the date into a field that takes no keys."""
    task = "Select 12/24/2016 as the date and hit submit."
    typed = Action(kind=ActionKind.TYPE, text="12/24/2016")
    found = _on_the_calendar(task, typed, [], picker)
    assert found is not None and found[0].kind is ActionKind.CLICK
    on_the_day = Action(kind=ActionKind.CLICK, point=Point(found[0].point.x + 2, found[0].point.y))
    assert _on_the_calendar(task, on_the_day, [], picker) is None  # already the click it needs


@pytest.mark.parametrize(("value", "typed"), [("1:49 PM", "01:49 PM"), ("6:29 AM", "06:29 AM"), ("12:05", "12:05"),
                                              ("3/7/2021", "03/07/2021"), ("10:5", "10:05"), ("R-1001", "R-1001")])
def test_a_time_or_date_goes_into_a_parted_field_with_each_number_whole(value, typed):
    """A web time field (MiniWoB's enter-time, never collected) takes two digits an hour: "1:49 PM" went in as
    "14" and "9", and showed "02:09 PM"."""
    assert in_whole_parts(value) == typed


@pytest.mark.parametrize(("reading", "parted"), [("--:-- --", True), ("： --", True), ("mm/dd/yyyy", True),
                                                 ("02:09 PM", False), ("", False), ("-", False)])
def test_a_fields_empty_parts_are_told_from_a_value(reading, parted):
    assert parted_field(reading) is parted
    field = Element(Box(93, 203, 305, 253), "dropdown", reading)
    assert (field.click_point.x < 120) is parted  # the first part, where the whole value goes in


def test_a_day_is_found_by_the_grid_where_ocr_joined_or_dropped_its_number():
    """The running agent's read of the same picker (only its changed part read again): "14" and "15" read as "145",
    "21", "22" and "23" as "212223". The numbers read alone fix the grid and the 1st's place; every day follows."""
    import json

    from deskpilot.core.geometry import Box
    from deskpilot.grounding.calendar import months_shown

    lines = [(Box(*box), text) for box, text in json.loads((DATA / "date-picker-joined-lines.json").read_text())]
    shown = months_shown(lines)
    assert [(m.month, m.year) for m in shown] == [(12, 2016)]
    cells = {1: (279, 300, 311, 325), 14: (245, 354, 277, 379), 22: (279, 381, 311, 406), 24: (347, 381, 379, 406),
             31: (347, 408, 379, 433)}  # the grid's cells as drawn
    for day, cell in cells.items():
        assert Box(*cell).contains(*shown[0].day_at(day)), day
    elements = [Element(box, "text", text) for box, text in lines]
    step = calendar_step("Select 12/22/2016 as the date", elements)
    assert step is not None and Box(*cells[22]).contains(*step[0].point)


def test_once_the_date_is_chosen_a_click_into_its_field_presses_what_is_left(picker):
    task = "Select 12/24/2016 as the date and hit submit."
    day = calendar_step(task, picker)
    assert day is not None
    chose = Step(index=0, action=day[0], before="", seen=picker)
    field = Element(Box(100, 20, 260, 44), "input", "12/24/2016")
    submit = Element(Box(100, 60, 180, 90), "button", "Submit")
    reopen = Action(kind=ActionKind.CLICK, point=field.center)
    found = _after_the_date(task, reopen, [chose], [field, submit])
    assert found is not None and found[0].point == submit.click_point
    assert _after_the_date(task, reopen, [], [field, submit]) is None  # no date chosen yet: the click stands

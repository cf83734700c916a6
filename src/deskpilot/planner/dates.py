"""A date the task gives ("Select 12/24/2016 as the date", "book it for 3 March 2021", "2021-03-03"), and the
click that brings a month calendar on the screen one step closer to it: the day, where the calendar shows the
date's month, else the arrow towards that month ("previous month" / "next month", grounding/calendar.py). A date
picker whose field takes no keys is only ever set this way; one that does is set the same way, as a person would."""

from __future__ import annotations

import re
from datetime import date

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element
from deskpilot.grounding.calendar import MONTHS, NEXT, PREVIOUS, month_number, months_shown

_MONTH = r"(?P<name>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
DAY_REACH = 10  # pixels from a day's centre a click on that day lands within (a day cell is 30-40 px wide)
_DATES = [
    re.compile(r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4})\b"),  # 12/24/2016 (month first, unless it cannot be)
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b"),  # 2016-12-24
    re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b", re.I),  # Dec 24, 2016
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b", re.I),
]


def task_dates(task: str) -> list[date]:
    """The dates the task gives, in the order it gives them (a date that does not exist is none)."""
    found: list[tuple[int, date]] = []
    for pattern in _DATES:
        for match in pattern.finditer(task):
            parts = match.groupdict()
            if parts.get("a"):
                first, second = int(parts["a"]), int(parts["b"])
                month, day = (first, second) if first <= 12 else (second, first)
            elif parts.get("name"):
                month, day = month_number(parts["name"][:3]) or 0, int(parts["day"])
            else:
                month, day = int(parts["month"]), int(parts["day"])
            try:
                found.append((match.start(), date(int(parts["year"]), month, day)))
            except ValueError:
                continue
    return [when for _, when in sorted(found)]


def calendar_step(task: str, elements: list[Element]) -> tuple[Action, str] | None:
    """The click on the one calendar the screen shows that brings it closer to the one date the task gives, and
    why; None where the task gives no date or several, the screen shows no calendar or several, or the control
    to click is not found."""
    dates = task_dates(task)
    texts = [e for e in elements if e.role == "text" and e.text]
    shown = months_shown([(e.box, e.text) for e in texts])
    if len(set(dates)) != 1 or len(shown) != 1:
        return None
    wanted, calendar = dates[0], shown[0]
    if (calendar.year, calendar.month) == (wanted.year, wanted.month):
        point = calendar.day_at(wanted.day)
        if point is None:
            return None
        return (Action(kind=ActionKind.CLICK, point=point),
                f"the calendar shows {MONTHS[wanted.month - 1].title()} {wanted.year}: day {wanted.day}")
    name = NEXT if (calendar.year, calendar.month) < (wanted.year, wanted.month) else PREVIOUS
    arrow = next((e for e in elements if e.role == "button" and e.text == name), None)
    if arrow is None:
        return None
    return (Action(kind=ActionKind.CLICK, point=arrow.center),
            f"the calendar shows {MONTHS[calendar.month - 1].title()} {calendar.year}, not the month of "
            f"{wanted.isoformat()}: its {name}")


def chose_the_date(task: str, step: Step) -> bool:
    """Whether `step` clicked the day of the one date the task gives, on a calendar its screen showed at that
    date's month."""
    dates = task_dates(task)
    shown = months_shown([(e.box, e.text) for e in step.seen if e.role == "text" and e.text])
    if len(set(dates)) != 1 or len(shown) != 1 or step.action.point is None:
        return False
    wanted, calendar = dates[0], shown[0]
    day = calendar.day_at(wanted.day) if (calendar.year, calendar.month) == (wanted.year, wanted.month) else None
    return day is not None and step.action.kind is ActionKind.CLICK and \
        abs(day.x - step.action.point.x) <= DAY_REACH and abs(day.y - step.action.point.y) <= DAY_REACH

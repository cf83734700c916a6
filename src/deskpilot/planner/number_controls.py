"""Numbers the task gives controls that take no typing — sliders (planner/sliders.py) and spin boxes
(planner/spin_boxes.py) — seen together by the planners and the goal check: the next move towards them, whether
each shows its number, and which one does not."""

from __future__ import annotations

import re

from deskpilot.core.actions import Action
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element

from .sliders import SLIDER_WORDS, shown_number, slider_goals, slider_step
from .spin_boxes import SPIN_WORDS, spin_goal, spin_step, stands_at


def number_step(task: str, history: list[Step], elements: list[Element]) -> tuple[Action, str] | None:
    """The next drag, key or click that brings a slider or spin box closer to the number the task gives it."""
    return slider_step(task, history, elements) or spin_step(task, history, elements)


def goals(task: str, elements: list[Element], history: list[Step] | None = None
          ) -> list[tuple[Element, float | None, float, str]]:
    """(the control, the number it stands at, the number the task gives it, what the control is) for each slider
    and spin box the task gives a number on this screen. A slider stands at the number it shows; a spin box where
    its clicks so far brought it, with `history` (planner/spin_boxes.py), else at the number it shows."""
    found = [(slider, shown_number(slider.text), wanted, "a slider") for slider, wanted in slider_goals(task, elements)]
    spin = spin_goal(task, elements)
    if spin is not None:
        at = stands_at(spin[0], history) if history is not None else shown_number(spin[0].field.text)
        found.append((spin[0].field, at, spin[1], "the spin box"))
    return found


def all_set(task: str, history: list[Step], elements: list[Element]) -> bool:
    """Whether the task gives a slider or spin box a number and every one of them stands at it."""
    wanted = goals(task, elements, history)
    return bool(wanted) and all(at == number for _, at, number, _ in wanted)


def names_a_control(text: str) -> bool:
    """Whether `text` (a target the grammar read) names a slider or a spin box."""
    return bool(SLIDER_WORDS.search(text) or SPIN_WORDS.search(text))


def is_number_of(text: str, task: str, elements: list[Element]) -> bool:
    """Whether typed `text` holds nothing but numbers the task gives these controls (typed into one that takes no
    typing)."""
    numbers = {f"{number:g}" for _, _, number, _ in goals(task, elements)}
    return bool(text.strip()) and set(re.findall(r"-?\d+(?:\.\d+)?", text)) <= numbers

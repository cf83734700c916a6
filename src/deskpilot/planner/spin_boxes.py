"""Setting a number on a spin box by its step buttons: "Select -2 with the spinner", "set the repeats spin box to 4".
A spin box that the task names as one may take no typing (a web page's spinner drops every key), so it is stepped
by its buttons ("step up" / "step down", grounding/spin_buttons.py), one click a step, and read again, until its
field shows the number. One that shows no number, or that MAX_CLICKS clicks do not bring to it, is left to the
planner (and the goal check finds the task not done)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element
from deskpilot.grounding.spin_buttons import STEP_DOWN, STEP_UP

from .sliders import numbers_in, shown_number
from .task_coverage import CLAUSE

SPIN_WORDS = re.compile(r"\b(?:spinners?|spin\s*box(?:es)?|spin\s*buttons?|steppers?)\b", re.I)
MAX_CLICKS = 30  # clicks on one spin box's buttons before it is left as it is
MAX_WAITS = 2  # looks again, after a click, at a number the text cursor beside it hid
BLINK_SECONDS = 0.4  # half a text cursor's blink


@dataclass(frozen=True)
class SpinBox:
    """A number field and its two step buttons, as found on one screen."""

    field: Element
    up: Element
    down: Element


def spin_boxes(elements: list[Element]) -> list[SpinBox]:
    """Each field with a step-up button and a step-down button at its right end, top to bottom."""
    ups = [e for e in elements if e.role == "button" and e.text == STEP_UP]
    downs = [e for e in elements if e.role == "button" and e.text == STEP_DOWN]
    found: list[SpinBox] = []
    for field in sorted((e for e in elements if e.role in ("input", "dropdown")), key=lambda e: e.box.y0):
        reach = field.box.height
        beside = [b for b in ups + downs if field.box.y0 - 2 <= b.center.y <= field.box.y1 + 2
                  and field.box.x1 - 3 * reach <= b.center.x <= field.box.x1 + reach]
        up = next((b for b in beside if b.text == STEP_UP), None)
        down = next((b for b in beside if b.text == STEP_DOWN), None)
        if up is not None and down is not None and not any(box.up is up for box in found):
            found.append(SpinBox(field, up, down))
    return found


def spin_goal(task: str, elements: list[Element]) -> tuple[SpinBox, float] | None:
    """The spin box the task gives a number, and the number: a clause that names a spin box ("spinner", "spin
    box") with one number in it, where the screen shows one spin box. None otherwise."""
    boxes = spin_boxes(elements)
    numbers = [n for clause in CLAUSE.split(task) if SPIN_WORDS.search(clause) for n in numbers_in(clause)]
    if len(boxes) != 1 or len(numbers) != 1:
        return None
    return boxes[0], numbers[0]


def stands_at(box: SpinBox, history: list[Step]) -> float | None:
    """Where the spin box stands: once clicks on its buttons began, counted, not read — the number before them plus
    one for each click up, less one for each click down (a focused field's text cursor and focus ring hide a minus
    sign or a digit from OCR, and a wrong reading would send the clicks the wrong way); before them, as read."""
    clicks = _clicks(box, history)
    if not clicks:
        return shown_number(box.field.text)
    start = _number_before(clicks[0], box)
    return None if start is None else start + sum(1 if _on(box.up, step) else -1 for step in clicks)


def spin_step(task: str, history: list[Step], elements: list[Element]) -> tuple[Action, str] | None:
    """The click on the step button that brings the spin box the task gives a number one step closer to it, and
    why; None where it stands at the number (`stands_at`) or has been clicked MAX_CLICKS times, or its number was
    never read (a number not read before the clicks is looked at again, MAX_WAITS times)."""
    goal = spin_goal(task, elements)
    if goal is None:
        return None
    box, wanted = goal
    shown, clicks = stands_at(box, history), _clicks(box, history)
    if shown is None:
        if not clicks and (len(history) < MAX_WAITS or not all(
                s.action.kind is ActionKind.WAIT for s in history[-MAX_WAITS:])):
            return (Action(kind=ActionKind.WAIT, seconds=BLINK_SECONDS),
                    "the spin box's number is not read (a blinking text cursor beside it): looking again")
        return None
    if shown == wanted or len(clicks) >= MAX_CLICKS:
        return None
    button = box.up if wanted > shown else box.down
    return (Action(kind=ActionKind.CLICK, point=button.center),
            f"the spin box stands at {shown:g}, the task asks for {wanted:g}: {button.text}")


def _clicks(box: SpinBox, history: list[Step]) -> list[Step]:
    """The steps that clicked the spin box's buttons."""
    return [step for step in history if step.action.kind is ActionKind.CLICK and (_on(box.up, step) or
                                                                                  _on(box.down, step))]


def _on(button: Element, step: Step) -> bool:
    """Whether `step` clicked `button`."""
    return step.action.point is not None and button.box.padded(2).contains(*step.action.point)


def _number_before(step: Step, box: SpinBox) -> float | None:
    """The number the spin box's field showed on the screen `step` was taken on."""
    fields = [e for e in step.seen if e.role in ("input", "dropdown") and e.box.iou(box.field.box) > 0.5]
    return shown_number(fields[0].text) if fields else None

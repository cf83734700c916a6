"""Setting a number on a slider by what it shows: "Select 10 with the slider", "move the volume slider to 40", "set
the sliders to 16, 18 and 19". A slider takes no typing and its range is not written anywhere, so it is dragged by
its handle and read again: the first drag goes a few handle widths towards the number, every later one as far as the
pixels per unit the earlier drags measured say (each step's screen, kept in the history, holds where the handle stood
and the number it showed), until the slider shows the number; the last step or two, or a drag that moved nothing, is
an arrow key on the handle the drags focused. A slider that shows no number, or that the moves do not bring to it,
is left to the planner (and the goal check finds the task not done)."""

from __future__ import annotations

import re

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.geometry import Point
from deskpilot.core.observation import Element

from .task_coverage import CLAUSE

SLIDER_WORDS = re.compile(r"\b(?:sliders?|scales?|range\s+sliders?|knobs?)\b", re.I)
NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?![\w.]*(?:st|nd|rd|th)\b)(?!\d)")
PROBE_HANDLES = 2  # handle widths the first drag goes, towards the number (a slider grows to the right)
MAX_MOVES = 12  # drags and arrow keys of one slider before it is left as it is
MAX_DRAG_HANDLES = 12  # handle widths one drag goes at most
FINE_PIXELS = 2  # a move this short is made with an arrow key (a drag this short may not move the handle)
ARROWS = {(False, True): ("right",), (False, False): ("left",), (True, True): ("up",), (True, False): ("down",)}
# the key that moves a focused slider (vertical?, to more?)
SAME_LINE = 0.5  # of a handle's size: two handles this close across the track are one slider's, at two steps


def slider_goals(task: str, elements: list[Element]) -> list[tuple[Element, float]]:
    """Each slider the task gives a number, with that number: the clauses that name a slider give one number for
    the one slider the screen shows, one for a slider named by its label, or as many numbers as the screen shows
    sliders (top to bottom). Empty where the task names no slider, or the numbers fit no slider."""
    found = [e for e in elements if e.role == "slider"]
    # the accessibility tree's slider is the whole widget, around the handle the pixels found: one slider
    sliders = sorted((s for s in found if not any(o is not s and o.box.area < s.box.area and s.box.contains(*o.center)
                                                  for o in found)), key=lambda e: (e.box.y0, e.box.x0))
    if not sliders:
        return []
    clauses = CLAUSE.split(task)
    numbers = numbers_in(" ".join(c for c in _with_numbers(task) if SLIDER_WORDS.search(c)))
    if not numbers:
        named = [(s, label) for s in sliders if (label := _label(s, elements))]
        for slider, label in named:
            for clause in clauses:
                if re.search(rf"\b{re.escape(label)}\b", clause, re.I) and len(given := numbers_in(clause)) == 1:
                    return [(slider, given[0])]
        return []
    if len(numbers) == len(sliders):
        return list(zip(sliders, numbers))
    if len(numbers) == 1:
        if len(sliders) == 1:
            return [(sliders[0], numbers[0])]
        by_label = [s for s in sliders if (label := _label(s, elements)) and
                    re.search(rf"\b{re.escape(label)}\b", task, re.I)]
        if len(by_label) == 1:
            return [(by_label[0], numbers[0])]
    return []


def slider_step(task: str, history: list[Step], elements: list[Element]) -> tuple[Action, str] | None:
    """The drag that brings the first slider the task gives a number and that shows another closer to it, and why;
    None where every such slider shows its number or none can be read, or one has been moved MAX_MOVES times. A
    vertical slider is dragged up and down (up for more, at first)."""
    for slider, wanted in slider_goals(task, elements):
        shown = shown_number(slider.text)
        if shown is None or abs(shown - wanted) < 1e-9:
            continue  # one whose number is not read now is left for a later look (the goal check holds it)
        seen = _seen(history, slider)
        keys = set(ARROWS.values())
        moves = [step for step in history if (step.action.kind is ActionKind.DRAG and step.action.point is not None
                                               and _in_line(step.action.point, slider))
                 or (step.action.kind is ActionKind.HOTKEY and step.action.keys in keys)]
        if len(moves) >= MAX_MOVES:
            return None
        rate = _units_per_pixel(seen + [(_along(slider.box.center, slider), shown)])
        more = wanted > shown
        if rate is None:
            distance = PROBE_HANDLES * max(slider.box.width, 8) * (1 if more != slider.vertical else -1)
        else:
            distance = round((wanted - shown) / rate)
            if abs(distance) <= FINE_PIXELS or (seen and seen[-1][1] == shown and moves and moves[-1] is history[-1]):
                # a step or two off, or the last drag moved nothing: the focused handle's arrow keys step by one
                key = ARROWS[slider.vertical, more]
                return (Action(kind=ActionKind.HOTKEY, keys=key),
                        f"the slider shows {slider.text}, the task asks for {_shown(wanted)}: pressed {key[0]}")
        reach = MAX_DRAG_HANDLES * max(slider.box.width, 8)  # misread numbers make wild estimates
        distance = max(-reach, min(reach, distance))
        start = slider.box.center
        end = Point(start.x, start.y + distance) if slider.vertical else Point(start.x + distance, start.y)
        return (Action(kind=ActionKind.DRAG, point=start, end_point=end),
                f"the slider shows {slider.text}, the task asks for {_shown(wanted)}: dragged {distance:+d} px "
                f"{'down' if slider.vertical else 'right'}")
    return None


def _with_numbers(task: str) -> list[str]:
    """The task's clauses, a list of numbers in brackets or with commas ("[16,18,19]", "16, 18 and 19") kept in its
    clause."""
    joined = re.sub(r"(\d)\s*(?:,|\band\b)\s*(?=[-−]?\d)", r"\1 ", task.replace("[", " ").replace("]", " "))
    return CLAUSE.split(joined)


def numbers_in(text: str) -> list[float]:
    """The numbers `text` gives, in order (ordinals such as "3rd" are none)."""
    return [float(m.group().replace("−", "-")) for m in NUMBER.finditer(text)]


def shown_number(text: str) -> float | None:
    """The one number `text` (what a slider shows) holds; None where it holds none or several."""
    found = numbers_in(text.replace(",", "."))
    return found[0] if len(found) == 1 else None


def _shown(number: float) -> str:
    return f"{number:g}"


def _label(slider: Element, elements: list[Element]) -> str:
    """The text nearest left of a slider on its row (its label), "" where none."""
    middle = slider.box.center.y
    left = [e for e in elements if e.role == "text" and e.text and e.box.y0 <= middle <= e.box.y1
            and e.box.x1 <= slider.box.x0 and shown_number(e.text) is None]
    return max(left, key=lambda e: e.box.x1).text.strip().rstrip(":") if left else ""


def _along(point: Point, slider: Element) -> float:
    """Where `point` stands along the slider's track: x, or y for a vertical slider."""
    return float(point.y if slider.vertical else point.x)


def _in_line(point: Point, slider: Element) -> bool:
    """Whether `point` lies on the line the slider's handle moves along (its row, or its column)."""
    across, middle, size = (point.x, slider.box.center.x, slider.box.width) if slider.vertical else \
        (point.y, slider.box.center.y, slider.box.height)
    return abs(across - middle) <= SAME_LINE * size


def _seen(history: list[Step], slider: Element) -> list[tuple[float, float]]:
    """(where the handle stood along the track, number shown) of this slider on each earlier step's screen that
    showed it readably."""
    found = []
    for step in history:
        for element in step.seen:
            if element.role == "slider" and element.vertical == slider.vertical and \
                    _in_line(element.box.center, slider) and (value := shown_number(element.text)) is not None:
                found.append((_along(element.box.center, slider), value))
                break
    return found


def _units_per_pixel(points: list[tuple[float, float]]) -> float | None:
    """The slope of number over the handle's place along the track, from the points where it stood at different
    places; None where it never moved, or moving changed nothing."""
    xs = [x for x, _ in points]
    if max(xs, default=0) - min(xs, default=0) < 2:
        return None
    mean_x = sum(xs) / len(xs)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (v - mean_v) for x, v in points) / spread
    return slope if abs(slope) > 1e-6 else None

"""What the screen says about an action before it runs: the elements under its point, the text around it, where
the keyboard focus is (the field or control a click put it in, or the accessibility tree's word for it), the
controls of the focused window and its default button (what a key may press), its class and program, and the
pixels there. The safety policy judges risk from this, never from the planner's own words alone."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.geometry import Box, Point
from deskpilot.core.observation import Element, Observation
from deskpilot.core.safety import ActionContext
from deskpilot.core.secrets import TaskSecret

from .widgets import label_for_field

UNDER_RADIUS = 12  # a point this close to an element's edge is still "on" it when nothing contains the point
NEARBY = (400, 250)  # half width, half height of the neighbourhood whose sentences a confirm button confirms
CROP = (200, 90)  # half width, half height of the picture shown when a person is asked
FIELD_ROLES = ("input", "dropdown")
TOGGLE_ROLES = ("checkbox", "radio")
CONTROL_WORDS = 3  # a text of this many words or fewer, outside any field, may be a button's label
FIELD_GUESS = (220, 18)  # half width, half height of what a click into a field no element showed may have focused


@dataclass
class KeyboardFocus:
    """Where keys go, as far as the agent's own actions tell: the name of the field or control a click went to
    (its label for a field), its role, and the text typed into it since. After Tab or Enter (which may move the
    focus) it is not known: role None."""

    name: str | None = None
    role: str | None = None
    typed: str = ""
    box: Box | None = None  # the field's box (screen pixels), or the region around the click where none was seen
    field: Box | None = None  # the field's box where grounding saw a field there, else None

    def follow(self, action: Action, elements: list[Element]) -> None:
        if action.kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK) and action.point is not None:
            self.name, self.role, self.typed = label_at(action.point, elements), role_at(action.point, elements), ""
            fields = [e for e in elements_at(action.point, elements) if e.role in FIELD_ROLES]
            x, y = action.point
            self.field = min(fields, key=lambda e: e.box.area).box if fields else None
            self.box = self.field or Box(x - FIELD_GUESS[0], y - FIELD_GUESS[1], x + FIELD_GUESS[0], y + FIELD_GUESS[1])
        elif action.kind is ActionKind.TYPE and action.text:
            self.typed += action.text
            if "\n" in action.text or "\t" in action.text:
                self.name, self.role, self.typed, self.field = None, None, "", None
        elif action.kind in (ActionKind.HOTKEY, ActionKind.KEY) and {"tab", "enter", "return"} & set(action.keys):
            self.name, self.role, self.typed, self.field = None, None, "", None
        elif action.kind in (ActionKind.RIGHT_CLICK, ActionKind.DRAG):
            self.name, self.role, self.typed, self.field = None, None, "", None


def action_context(action: Action, obs: Observation, elements: list[Element], focus: KeyboardFocus | None,
                   secrets: list[TaskSecret]) -> ActionContext:
    """The ActionContext of `action` on `obs`: point-based parts for pointing actions; for every action, the
    keyboard focus (the accessibility tree's focused element where it has one, else `focus`), the focused
    window's controls and default button, and its class and program."""
    under: list[str] = []
    nearby: list[str] = []
    for point in (action.point, action.end_point):
        if point is None:
            continue
        hit = elements_at(point, elements)
        under += [e.text for e in hit if e.text]
        nearby += [e.text for e in _sentences(elements) if e not in hit and _near(e.center, point)]
    crop = _crop(obs, action.point) if action.point is not None else None
    focus = focus or KeyboardFocus()
    name, role = focus.name, focus.role
    focused = [e for e in elements if e.focused]
    if focused:
        element = min(focused, key=lambda e: e.box.area)
        role = element.role
        name = (label_of_field(element.box, elements) or element.text) if role in FIELD_ROLES else element.text
    window = obs.window
    inside = [e for e in elements if window is None or window.box is None or window.box.contains(*e.center)]
    fields = [e.box for e in inside if e.role in FIELD_ROLES]
    controls = tuple(dict.fromkeys(e.text for e in inside if e.text and (e.role != "text" or (
        len(e.text.split()) <= CONTROL_WORDS and not any(box.contains(*e.center) for box in fields)))))
    default = next((e.text for e in inside if e.default and e.text), None)
    return ActionContext(tuple(under), tuple(nearby), obs.window_title, name, tuple(secrets), crop,
                         window_class=window.program if window else None, focus_role=role,
                         window_controls=controls, default_button=default, typed_before=focus.typed)


def elements_at(point: Point, elements: list[Element]) -> list[Element]:
    """The elements whose box holds `point`; else the nearest one within UNDER_RADIUS."""
    hit = [e for e in elements if e.box.contains(*point)]
    if hit:
        return hit
    close = [(e, _distance(e.box, point)) for e in elements]
    close = [(e, d) for e, d in close if d <= UNDER_RADIUS]
    return [min(close, key=lambda pair: pair[1])[0]] if close else []


def label_at(point: Point, elements: list[Element]) -> str | None:
    """The name of the field a click at `point` focuses: the field's label (left of it on its row, else above
    it) and any text inside it; for a click on text, that text (clicking a label focuses its field)."""
    hit = elements_at(point, elements)
    fields = [e for e in hit if e.role in FIELD_ROLES]
    if not fields:
        texts = [e.text for e in hit if e.text]
        return " ".join(texts) or None
    field = min(fields, key=lambda e: e.box.area)
    label = label_of_field(field.box, elements)
    inside = [e.text for e in elements if e.text and e.role == "text" and field.box.contains(*e.center)]
    return " ".join(t for t in (label, *inside) if t) or None


def role_at(point: Point, elements: list[Element]) -> str | None:
    """The role of what a click at `point` focuses: the smallest control there, else "text" (a label, or a control
    the screen shows only as text), else None."""
    hit = elements_at(point, elements)
    controls = [e for e in hit if e.role != "text"]
    if controls:
        return min(controls, key=lambda e: e.box.area).role
    return "text" if hit else None


def label_of_field(field: Box, elements: list[Element]) -> str | None:
    """The text that labels a field: the words left of the field of a text line OCR read across the label and the
    field's content ("Merchant Office Depot" from "Merchant" and a field showing "Office Depot"), else
    widgets.label_for_field's: left of it on its row, else above it."""
    run_in = next((label for e in elements if e.role == "text" and e.text and field.contains(*e.center)
                   and (label := _words_left_of(e, field.x0))), None)
    if run_in is not None:
        return run_in
    texts = [e for e in elements if e.role == "text" and e.text and not field.contains(*e.center)]
    chosen = label_for_field(field, [e.box for e in texts])
    return None if chosen is None else texts[chosen].text


def _words_left_of(line: Element, edge: int) -> str | None:
    """The whole words of a text line that lie left of `edge` (characters placed by their share of the line's
    width, with half the line's height of slack), where the line goes on past it; else None."""
    slack = line.box.height / 2
    if line.box.x0 >= edge - slack or line.box.x1 <= edge + slack:
        return None
    spaces = [i for i, ch in enumerate(line.text)
              if ch == " " and line.box.text_span(len(line.text), i, i).x0 <= edge + slack]
    label = line.text[:spaces[-1]].strip() if spaces else ""
    return label if label and line.text[len(label):].strip() else None


def _sentences(elements: list[Element]) -> list[Element]:
    """Text that says something (a question, or three words or more), not the label of a control: what a dialog's
    OK would confirm. "Delete all" on a button beside a form's OK is not."""
    controls = [e.box for e in elements if e.role != "text"]
    return [e for e in elements if e.role == "text" and e.text
            and (e.text.rstrip().endswith("?") or len(e.text.split()) >= 3)
            and not any(box.contains(*e.center) for box in controls)]


def _near(centre: Point, point: Point) -> bool:
    return abs(centre.x - point.x) <= NEARBY[0] and abs(centre.y - point.y) <= NEARBY[1]


def _distance(box: Box, point: Point) -> float:
    dx = max(box.x0 - point.x, 0, point.x - box.x1)
    dy = max(box.y0 - point.y, 0, point.y - box.y1)
    return float((dx * dx + dy * dy) ** 0.5)


def _crop(obs: Observation, point: Point) -> np.ndarray:
    """The pixels around the point, with the point ringed in red (what a person is asked about)."""
    x, y = (round(v) for v in obs.monitor.screen_to_image(*point))
    height, width = obs.image.shape[:2]
    region = Box(x - CROP[0], y - CROP[1], x + CROP[0], y + CROP[1]).clipped(Box(0, 0, width, height))
    crop = obs.image[region.y0:region.y1, region.x0:region.x1].copy()  # drawn on: never the frame itself
    cv2.circle(crop, (x - region.x0, y - region.y0), 9, (220, 30, 30), 2)
    cv2.circle(crop, (x - region.x0, y - region.y0), 2, (220, 30, 30), -1)
    return crop

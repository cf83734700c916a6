"""Typing into a field replaces what it holds: before a value goes into a field that already shows text, the text
is selected, by a way that works in the toolkit in front, seen to work on the screen. ctrl+a selects a field's text
in Qt, GTK and browsers but moves the caret to the line start in others (Tk, Emacs-style bindings); so each way is
tried until the field's pixels show a selection: ctrl+a, then Home and shift+End, then a triple click. Where none
shows one, the value is typed as it is, and the goal check reads back what the field holds."""

from __future__ import annotations

import re
import numpy as np

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.controller import Controller
from deskpilot.core.geometry import Box, Point
from deskpilot.core.safety import EmergencyStop
from deskpilot.core.screen import Screen

# Keys that select a field's text (or its end): typing after them replaces the selection.
SELECTING_KEYS = (("ctrl", "a"), ("shift", "end"), ("shift", "home"), ("ctrl", "shift", "end"))
# Keys that place the caret: typing after them goes where they put it, beside what the field holds.
CARET_KEYS = tuple((*mods, key) for mods in ((), ("ctrl",)) for key in ("end", "home", "left", "right", "up", "down"))
SELECT_SETTLE = 0.15  # seconds the toolkit gets to draw a selection
SELECTED_COLUMNS = 5  # a selection highlights at least this many columns of the field (a caret moved: 2-4)
# The task asks to add to what a field holds rather than replace it.
APPENDS = re.compile(r"\b(?:append|add\b.{0,40}\b(?:to the end|at the end|after)|at the end of|after the existing|"
                     r"keep(?:ing)? what)\b", re.I)


def selections(box: Box) -> list[tuple[str, list[Action]]]:
    """The ways to select a field's text, in the order they are tried, each as the actions that do it."""
    centre = Point((box.x0 + box.x1) // 2, (box.y0 + box.y1) // 2)
    return [("ctrl+a", [Action(kind=ActionKind.HOTKEY, keys=("ctrl", "a"))]),
            ("home, shift+end", [Action(kind=ActionKind.HOTKEY, keys=("home",)),
                                 Action(kind=ActionKind.HOTKEY, keys=("shift", "end"))]),
            ("triple click", [Action(kind=ActionKind.CLICK, point=centre)] * 3)]


class FieldSelector:
    """Selects the text of a field on the live screen, each way checked by its pixels."""

    def __init__(self, screen: Screen, controller: Controller, stop: EmergencyStop):
        self.screen, self.controller, self.stop = screen, controller, stop

    def select(self, box: Box, skip: int = 0) -> str | None:
        """Select the text in the field at `box` (screen pixels), trying the ways after the first `skip`; the way
        that showed a selection, or None where none did."""
        for name, actions in selections(box)[skip:]:
            before = self._pixels(box)
            for action in actions:
                self.stop.check()
                self.controller.execute(action)
            self.stop.sleep(SELECT_SETTLE)
            if _highlighted(before, self._pixels(box)):
                return name
        return None

    def _pixels(self, box: Box) -> np.ndarray:
        return self.screen.grab(box)


def _highlighted(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether the field's pixels changed over more columns than a caret's blink covers."""
    if before.shape != after.shape:
        return True
    columns = np.any(np.any(before != after, axis=2), axis=0)
    return int(columns.sum()) >= SELECTED_COLUMNS


def replaces(task: str) -> bool:
    """Whether typing for `task` replaces what a field holds (the default) rather than adding to it."""
    return not APPENDS.search(task)


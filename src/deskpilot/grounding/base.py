"""The protocols grounding offers the other parts: a Grounder (screen -> elements; description -> element) and a
TextReader (image -> text lines), so planners and the recorder depend on what grounding does, not on which engine
does it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element, Observation

if TYPE_CHECKING:
    from .ocr import TextLine


class Grounder(Protocol):
    timing: dict[str, float]  # milliseconds the last parse spent in each of its stages (for step timings and logs)

    def load(self) -> None:
        """Load the models now (otherwise the first parse does), so timings of a parse leave loading out."""
        ...

    def set_task(self, task: str) -> None:
        """The task the agent is working on: text on the screen that merely repeats it is never a target."""
        ...

    def parse(self, obs: Observation) -> list[Element]:
        """Every element found on the screen, boxes in screen pixels."""
        ...

    def locate(self, obs: Observation, description: str) -> Element | None:
        """The element `description` means ("the Save button", '"Remember me" checkbox'), or None."""
        ...

    def read_inside(self, obs: Observation, box: Box) -> str:
        """The marks inside a control's box (screen pixels) read as one line of text, "" where none reads surely:
        a field's short value that the screen's text detection left unread."""
        ...


class TextReader(Protocol):
    def load(self) -> None:
        """Load the models now (otherwise the first read does)."""
        ...

    def read(self, image: np.ndarray) -> list[TextLine]:
        """Text lines of an RGB image, in its pixel coordinates."""
        ...

    def find_text(self, image: np.ndarray) -> list[Box]:
        """Where the text lines are (no reading): to choose which to read."""
        ...

    def read_boxes(self, image: np.ndarray, boxes: list[Box]) -> list[TextLine]:
        """The text of chosen boxes (from `find_text`); unreadable ones are left out."""
        ...

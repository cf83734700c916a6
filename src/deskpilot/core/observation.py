"""What the agent sees at one moment (Observation) and the UI elements found in it (Element)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .geometry import Box, Monitor, Point

ElementRole = Literal["text", "button", "input", "checkbox", "radio", "dropdown", "link", "icon", "tab",
                      "slider", "menu_item", "list_item", "unknown"]
ElementSource = Literal["ocr", "layout", "detector", "vlm", "accessibility"]
# A date or time field that shows its empty parts ("mm/dd/yyyy", "--:-- --", which OCR may read as "： --"):
# typing fills the part clicked and those after it, each part taking as many digits as it shows, so the whole
# value goes in only from the first part, and each number in it whole ("01:49 PM": "1:49" went in as 14:9).
_DATE_PART = r"(?:mm|dd|yy(?:yy)?)"
_PARTED_FIELD = re.compile(rf"^\s*(?:{_DATE_PART}\W+{_DATE_PART}\W+{_DATE_PART}|[-:：\s]*--[-:：\s]*)\s*$", re.I)
_SHORT_PART = re.compile(r"(?<![\d/:.])(\d)(?=[:/](?:\d|$))|(?<=[:/])(\d)(?![\d])")
FIRST_PART_REACH = 24  # pixels into a parted field from its left edge at most: inside its first part
TEXT_AREA_HEIGHT = 64  # pixels: a field taller than this holds several lines (a text area, an editor)


def parted_field(text: str) -> bool:
    """Whether a field's reading is the empty parts of a date or time field ("mm/dd/yyyy", "--:-- --")."""
    return bool(_PARTED_FIELD.match(text))


def in_whole_parts(value: str) -> str:
    """A time or date as a parted field takes it: each one-digit hour, minute, month or day written with its 0
    ("1:49 PM" -> "01:49 PM", "3/7/2021" -> "03/07/2021"); any other text as it is."""
    return _SHORT_PART.sub(lambda m: "0" + (m.group(1) or m.group(2)), value)


@dataclass(frozen=True)
class Element:
    """One UI element; `box` is in screen pixels."""

    box: Box
    role: ElementRole = "text"
    text: str = ""
    score: float = 1.0
    source: ElementSource = "ocr"
    checked: bool | None = None  # for check boxes and radio buttons, when it could be seen
    focused: bool = False  # has the keyboard focus (known from the accessibility tree)
    default: bool = False  # the window's default button: Enter in a text field presses it (accessibility tree)
    vertical: bool = False  # a slider that runs up and down (its handle moves along y)

    @property
    def center(self) -> Point:
        return self.box.center

    @property
    def click_point(self) -> Point:
        """Where a click on it acts as a person means it: its centre, but in a date or time field that shows its
        parts, the first part, where typing the whole value starts (its middle is the year)."""
        if self.role in ("input", "dropdown") and parted_field(self.text):
            left, top, right, bottom = self.box
            return Point(left + min((right - left) // 10, FIRST_PART_REACH), (top + bottom) // 2)
        return self.center

    @property
    def text_area(self) -> bool:
        """Whether it is a field of several lines (a text area, an editor) rather than a one-line text box."""
        return self.role == "input" and self.box.height > TEXT_AREA_HEIGHT

    def to_dict(self) -> dict[str, Any]:
        data = {"box": list(self.box), "role": self.role, "text": self.text, "score": round(float(self.score), 4),
                "source": self.source}
        if self.checked is not None:
            data["checked"] = self.checked
        for flag in ("focused", "default", "vertical"):
            if getattr(self, flag):
                data[flag] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Element:
        """An element from its JSON form; a value of the wrong type is a TypeError."""
        text, box = data.get("text", ""), data["box"]
        if not isinstance(text, str) or not isinstance(box, list) or len(box) != 4 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in box):
            raise TypeError("an element needs a box of 4 numbers and a text")
        return cls(Box(*(int(v) for v in box)), data.get("role", "text"), text, float(data.get("score", 1.0)),
                   data.get("source", "ocr"), data.get("checked"), bool(data.get("focused", False)),
                   bool(data.get("default", False)), bool(data.get("vertical", False)))


@dataclass
class FocusedWindow:
    """The window that has the keyboard focus: its title (which its program, or output shown in it, sets), its
    class and the name of its process (which they cannot), and its box in screen pixels (None when unknown)."""

    title: str | None = None
    program: str | None = None  # WM_CLASS instance and class, and the process name, comma-separated
    box: Box | None = None


@dataclass
class Observation:
    """A screenshot (RGB, physical pixels) of `monitor`, with the cursor and time it was taken at."""

    image: np.ndarray
    monitor: Monitor
    cursor: Point | None = None
    timestamp: float = field(default_factory=time.time)
    window_title: str | None = None
    window: FocusedWindow | None = None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the image in pixels."""
        return self.image.shape[1], self.image.shape[0]

"""Text on the screen that only repeats the task: a page or a chat may show the request above what it is about
("Select Iceland from the list" on the screen is not the Iceland option), and a quoted name on the screen names
an element rather than being one. The grounders leave such text out of what a target can be."""

from __future__ import annotations

import re

from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element
from deskpilot.core.task_text import look_alike

ECHO_MIN_WORDS = 3
PART_LETTERS = 8  # letters of the task in a row that make a line a piece of it
ECHO_MIN_LETTERS = 16  # letters of the task in a row that a line read with no spaces repeats, at least
NEXT_LINE_GAP = 0.6  # lines of one block of text stand at most this many line heights apart
QUOTES = "\"'“”‘’«»"
CONTROL_ROLES = ("checkbox", "radio", "input", "dropdown")  # what a label names


def echoes_task(line_text: str, task: str, phrase: str) -> bool:
    """Whether a screen line merely repeats the task (a page that shows the request above it, a chat, a note):
    'Select Iceland from the list' on the screen is not the Iceland option. A line of two words that is the whole
    task ("Select Billie>Lanette>Yovonnda") repeats it too, and so does a long run of the task's letters that OCR
    read with no spaces ("lickontheorangecoloredbox.")."""
    squashed = _folded(line_text)
    task_squashed = _folded(task)
    words = len(line_text.split())
    return bool(task_squashed) and (words >= ECHO_MIN_WORDS or words >= 2 and squashed == task_squashed
                                    or len(squashed) >= ECHO_MIN_LETTERS) \
        and squashed in task_squashed and squashed != _folded(phrase)


def part_of_task(line_text: str, task: str) -> bool:
    """Whether a line says a run of at least PART_LETTERS of the task's letters in a row ("coloredbox." of "Click
    on the olive colored box."): a piece of the task the page shows, where a line may be only part of a sentence."""
    squashed = _folded(line_text)
    return len(squashed) >= PART_LETTERS and squashed in _folded(task)


def task_echoes(elements: list[Element], task: str) -> list[Element]:
    """The text lines that repeat the task: those `echoes_task` finds, and the short lines that go on from one (a
    wrapped utterance's last words: 'button TWO.' under 'Click button ONE, then click', 'order.' under 'Click on
    the numbers in ascending'): words of the task, the next or previous line of an echo, starting where it does.
    A line that labels a control on its row is that control's name, never an echo."""
    controls = [e.box for e in elements if e.role in CONTROL_ROLES]
    lines = [e for e in elements if e.role == "text" and not any(_labels(e, box) for box in controls)]
    echoes = [e for e in lines if echoes_task(e.text, task, "")]
    task_squashed = _folded(task)
    rest = [e for e in lines if e not in echoes and _folded(e.text) and _folded(e.text) in task_squashed]
    while more := [e for e in rest if any(_next_line(e, echo) for echo in echoes)]:
        echoes += more
        rest = [e for e in rest if e not in more]
    return echoes


def _labels(line: Element, control: Box) -> bool:
    """Whether a text line is the label of a control on its row: the control inside it (a check box OCR read into
    its line) or right beside it. A form's "Billable to client" that the task names is that check box's name, not
    the task said again."""
    height = line.box.height
    on_row = min(line.box.y1, control.y1) - max(line.box.y0, control.y0) >= min(height, control.height) / 2
    beside = -height <= line.box.x0 - control.x1 <= height or -height <= control.x0 - line.box.x1 <= height
    return on_row and (line.box.intersects(control) or beside)


def _next_line(line: Element, other: Element) -> bool:
    """Whether `line` is the line right above or below `other` in one left-aligned block of text."""
    height = max(line.box.height, other.box.height)
    gap = max(line.box.y0 - other.box.y1, other.box.y0 - line.box.y1)
    return -height / 2 < gap <= height * NEXT_LINE_GAP and abs(line.box.x0 - other.box.x0) <= height


def quoted_at(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands in quotes on the screen: 'Click on the "OK" button' shown on a page names
    OK; it is not the OK button. The span's own words are what count: a match of a whole line '"Next".' holds the
    quotes and the full stop."""
    words = re.search(r"\w(?:.*\w)?", text[start:end])
    if words is not None:
        start, end = start + words.start(), start + words.end()
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    return bool(before and before in QUOTES) or bool(after and after in QUOTES)


def squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _folded(text: str) -> str:
    """`squash`ed, with the characters OCR confuses folded together: a line of the task read as "OhCqY, IU6iKv"
    still repeats the task's "0hCqY, lU6iKv"."""
    return look_alike(squash(text))

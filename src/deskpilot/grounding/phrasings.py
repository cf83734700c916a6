"""Rules written for particular phrasings, most of them MiniWoB++ utterances, in one place: what here comes from a
benchmark's wording rather than from reading English or screens in general. Each rule names the phrasing it
serves, and tests/test_phrasings.py pins each one. The general readers that use them: planner/instructions.py and
planner/offline.py (instructions), grounding/description.py and grounding/ocr_grounder.py (targets on screen)."""

from __future__ import annotations

import re

from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element, ElementRole
from deskpilot.core.task_text import look_alike

# --- Instructions (planner.instructions) ---

# "Close the dialog box by clicking the "x"." (click-dialog): the "by clicking X" part is the action.
BY_CLICKING = re.compile(r"\bby\s+(?:clicking|pressing|tapping|hitting)\s+(?:on\s+)?(?P<what>.+)$", re.I)

# "Enter "ADA" into the text field in all lower case letters." (enter-text-2): how to type the text. The word
# "case" or "letters" must be there: "the capital city field" and "the lower button" are no case directives.
CASE_DIRECTIVE = re.compile(r"\s*\b(?:in\s+)?(?:all\s+)?(?P<case>lower|upper|capital)"
                            r"(?:[\s-]*case(?:\s+letters)?|\s+letters)\b", re.I)


def in_case(text: str, case: str) -> str:
    """`text` in the case a CASE_DIRECTIVE names (lower; upper or capital)."""
    return text.lower() if case.lower() == "lower" else text.upper()


# "Switch between the tabs to find and click on the link "x"." (click-tab-2): look through a group of tabs until
# the next action's target shows.
TAB_SEARCH = re.compile(r"^(?:switch|go|look|search|browse|flip)\s+(?:between|through|among|across|in)?\s*"
                        r"(?:the\s+)?(?P<group>tabs?)(?:\s+(?:to\s+)?(?:find|look\s+for|locate))?$", re.I)

# "Select Heard Island and McDonald Islands from the list and click Submit." (choose-list): everything up to
# "from the list" is the option's name, "and" included, so it is quoted before the task is split into clauses.
SELECT_FROM_LIST = re.compile(r"\b(?P<verb>select|choose|pick)\s+(?P<option>[^\"“”«,;]+?)\s+"
                              r"(?P<rest>(?:from|in)\s+(?:the\s+)?(?:\w+\s+)?"
                              r"(?:list|dropdown|drop-down|menu|combo\s?box|select)\b)", re.I)

# "Enter the password "x" into both text fields." (enter-password): the same text into the first and the second.
BOTH_FIELDS = re.compile(r"^(?:the\s+)?(?:both|each of the two|the two)\s+(?P<kind>.+?)s?$", re.I)

# "Select nothing and click Submit." (click-checkboxes): an instruction with no action.
SELECT_NOTHING = re.compile(r"^(?:select|choose|pick|check|tick)\s+(?:nothing|none|no\s+\w+)$", re.I)

# --- Targets (grounding.description) ---

# Role words MiniWoB utterances use for elements: "the 2nd input textbox" (focus-text-2), "from the list"
# (choose-list), "Select the option" (click-option, where the options are radio buttons).
BENCHMARK_ROLE_WORDS: dict[str, ElementRole] = {"input textbox": "input", "list": "dropdown", "option": "radio"}

# --- Reading the screen (grounding.ocr_grounder) ---

ECHO_MIN_WORDS = 3
NEXT_LINE_GAP = 0.6  # lines of one block of text stand at most this many line heights apart
QUOTES = "\"'“”‘’«»"


def echoes_task(line_text: str, task: str, phrase: str) -> bool:
    """Whether a screen line merely repeats the task (MiniWoB shows its utterance above the page; a chat or a note
    may too): 'Select Iceland from the list' on the screen is not the Iceland option."""
    squashed = _folded(line_text)
    task_squashed = _folded(task)
    return bool(task_squashed) and len(line_text.split()) >= ECHO_MIN_WORDS and squashed in task_squashed \
        and squashed != _folded(phrase)


def task_echoes(elements: list[Element], task: str) -> list[Element]:
    """The text lines that repeat the task: those `echoes_task` finds, and the short lines that go on from one (a
    wrapped utterance's last words: 'button TWO.' under 'Click button ONE, then click', 'order.' under 'Click on
    the numbers in ascending'): words of the task, the next or previous line of an echo, starting where it does."""
    lines = [e for e in elements if e.role == "text"]
    echoes = [e for e in lines if echoes_task(e.text, task, "")]
    task_squashed = _folded(task)
    rest = [e for e in lines if e not in echoes and _folded(e.text) and _folded(e.text) in task_squashed]
    while more := [e for e in rest if any(_next_line(e, echo) for echo in echoes)]:
        echoes += more
        rest = [e for e in rest if e not in more]
    return echoes


def _next_line(line: Element, other: Element) -> bool:
    """Whether `line` is the line right above or below `other` in one left-aligned block of text."""
    height = max(line.box.height, other.box.height)
    gap = max(line.box.y0 - other.box.y1, other.box.y0 - line.box.y1)
    return -height / 2 < gap <= height * NEXT_LINE_GAP and abs(line.box.x0 - other.box.x0) <= height


def quoted_at(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands in quotes on the screen: 'Click on the "OK" button' (the utterance of
    click-button, shown on the page) names OK; it is not the OK button."""
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    return bool(before and before in QUOTES) or bool(after and after in QUOTES)


def squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _folded(text: str) -> str:
    """`squash`ed, with the characters OCR confuses folded together: a line of the task read as "OhCqY, IU6iKv"
    still repeats the task's "0hCqY, lU6iKv"."""
    return look_alike(squash(text))


# --- Tab rows (planner.offline) ---

TAB_ROW_TOLERANCE = 6  # pixels: tabs of one row share their top and their height within this


def next_untried_tab(elements: list[Element], tried: list[Box]) -> Element | None:
    """For "switch between the tabs" (click-tab-2): the first tab of the screen's tab row not tried yet (no box
    tried holds its centre: the active tab is drawn a little larger than the others, so its box moves when it
    turns active or inactive). A tab row is two or more named button-like controls of one height side by side on
    one line."""
    controls = [e for e in elements if e.source != "ocr" and e.role in ("button", "tab") and e.text]
    for first in sorted(controls, key=lambda e: (e.box.y0, e.box.x0)):
        row = sorted((e for e in controls if abs(e.box.y0 - first.box.y0) <= TAB_ROW_TOLERANCE
                      and abs(e.box.height - first.box.height) <= TAB_ROW_TOLERANCE), key=lambda e: e.box.x0)
        if len(row) >= 2:
            return next((e for e in row if not any(box.contains(*e.center) for box in tried)), None)
    return None

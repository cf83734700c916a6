"""Values a task takes from the screen instead of saying them: "enter the value of Religion into the text field"
(what a table or a properties list shows beside "Religion"), "find the 6th word in the paragraph, type that into
the box" (a word of the longest block of text). Read off the first screen, each becomes the quoted value it stands
for, and the task is planned and checked as if it had said that value ('enter "Christian" into the text field'),
so the grammar, the model and the goal check all hold the run to the same text.

A reference that cannot be read (no such label, two candidates, a value with quotes in it or longer than a field
holds) gives no reading, and the agent refuses the task rather than type the words that describe the value; a
screen is untrusted input, so a value read there is only ever typed, as the task asks, never acted on as an
instruction."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deskpilot.core.observation import Element
from deskpilot.core.task_text import numbered_ordinals
from deskpilot.grounding.task_echoes import task_echoes

# "enter the value of Religion", "type the value for Year of Birth": a label's value, as what is typed (the value of
# a field that is set, "set the value of Amount to 5", is that field); the label runs to the word that says where it
# goes ("into", "in", "as") or to the clause's end.
VALUE_OF = re.compile(r"\b(?:type|enter|write|input|put|fill\s+in|paste|copy)\s+(?P<ref>the\s+value\s+(?:of|for)\s+"
                      r"(?:the\s+)?(?P<label>[^,;.!?\"“”]+?))(?=\s+(?:into|in|to|as|on|under)\b|\s*[,;.!?]|\s+and\b|$)",
                      re.I)
# "the 6th word in the paragraph", "the 2nd word of the text"
NTH_WORD = re.compile(r"\bthe\s+(?P<n>\d+)(?:st|nd|rd|th)\s+word\s+(?:in|of|from)\s+(?:the\s+)?"
                      r"(?:paragraph|text|passage|sentence|block of text)(?:\s+(?:below|above|shown))?", re.I)
# "find X, type that into ...": the finding clause and the pronoun of the typing one become the typing of X
FIND_THEN_TYPE = re.compile(r"\b(?:find|take|read|get|look up|copy)\s+(?P<value>\"[^\"]*\")\s*,?\s*(?:and\s+)?"
                            r"(?:then\s+)?(?P<verb>type|enter|write|put|input|paste)\s+(?:that|it|this)(?:\s+word)?\b",
                            re.I)
MAX_VALUE = 80  # characters: a longer "value" is a paragraph, not what a field takes
ROW_REACH = 1.0  # label heights a value's middle may stand off its label's, on the label's row
MAX_GAP = 8  # label heights between a label and its value, at most
PARAGRAPH_GAP = 1.0  # line heights between two lines of one paragraph, at most
WORD = re.compile(r"[^\W_][\w'’-]*")  # a word as a reader counts it: "Berners-Lee", "don't" one each


@dataclass(frozen=True)
class ScreenRead:
    """The task with each value it takes from the screen written in (quoted), and what was read where."""

    task: str
    notes: tuple[str, ...]


def takes_screen_values(task: str) -> bool:
    """Whether the task takes a value from the screen (one `read_from_screen` may write in)."""
    return bool(VALUE_OF.search(task) or NTH_WORD.search(numbered_ordinals(task)))


def read_from_screen(task: str, elements: list[Element]) -> ScreenRead | None:
    """`task` with the values it takes from `elements` (the first screen) quoted in their place; None where it
    takes none, or one cannot be read."""
    lines = [e for e in elements if e.role == "text" and e.text.strip()]
    echoes = {id(e) for e in task_echoes(elements, task)}  # a page that shows its instructions
    texts = [e for e in lines if id(e) not in echoes]
    notes: list[str] = []
    numbered = numbered_ordinals(task)  # "the sixth word": the 6th
    written = numbered if NTH_WORD.search(numbered) else task
    for pattern, read in ((VALUE_OF, _value_of), (NTH_WORD, _nth_word)):
        for match in list(pattern.finditer(written)):
            value = read(match, lines, texts)
            if value is None or '"' in value or len(value) > MAX_VALUE:
                return None
            said = match.group("ref") if pattern is VALUE_OF else match.group(0)
            written = written.replace(said, f'"{value}"', 1)
            notes.append(f"{said} reads {value!r} on the screen")
    if not notes:
        return None
    written = FIND_THEN_TYPE.sub(lambda m: f"{m.group('verb')} {m.group('value')}", written)
    return ScreenRead(written, tuple(notes))


def _value_of(match: re.Match[str], lines: list[Element], texts: list[Element]) -> str | None:
    """The text beside the one label reading the match's label: to its right on its row, else right below it;
    a "Label: value" line gives what follows its colon. The label is looked for among all the screen's `lines`
    ("Year of Birth" is the task's words too), its value among the `texts` that do not repeat the task."""
    wanted = _key(match.group("label"))
    for element in texts:
        head, colon, rest = element.text.partition(":")
        if colon and _key(head) == wanted and rest.strip():
            return rest.strip()
    labels = [e for e in lines if _key(e.text.rstrip(":")) == wanted]
    if len(labels) != 1:
        return None
    label = labels[0].box
    reach = MAX_GAP * label.height
    right = [e for e in texts if e.box.x0 >= label.x1 - 2 and e.box.x0 - label.x1 <= reach
             and abs(e.center.y - labels[0].center.y) <= ROW_REACH * label.height]
    if right:  # the nearest to the label's row (a form's tall rows set a value lower than its label), then leftmost
        return min(right, key=lambda e: (abs(e.center.y - labels[0].center.y) // (label.height / 2), e.box.x0)
                   ).text.strip()
    below = [e for e in texts if e.box.y0 >= label.y1 - 2 and e.box.y0 - label.y1 <= label.height
             and min(e.box.x1, label.x1) - max(e.box.x0, label.x0) > 0]
    return min(below, key=lambda e: e.box.y0).text.strip() if below else None


def _nth_word(match: re.Match[str], lines: list[Element], texts: list[Element]) -> str | None:
    """The n-th word of the screen's largest block of text (lines set one under another, left sides together)."""
    blocks: list[list[Element]] = []
    for element in sorted(texts, key=lambda e: (e.box.y0, e.box.x0)):
        block = next((b for b in blocks if abs(b[-1].box.x0 - element.box.x0) <= b[-1].box.height
                      and -b[-1].box.height / 2 <= element.box.y0 - b[-1].box.y1
                      <= PARAGRAPH_GAP * b[-1].box.height), None)
        if block is None:
            blocks.append([element])
        else:
            block.append(element)
    if not blocks:
        return None
    words = max((WORD.findall(" ".join(e.text for e in block)) for block in blocks), key=len)
    n = int(match.group("n"))
    return words[n - 1] if 1 <= n <= len(words) else None


def _key(text: str) -> str:
    return " ".join(text.lower().split())

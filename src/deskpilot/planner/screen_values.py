"""Values a task takes from the screen instead of saying them: "enter the value of Religion into the text field"
(what a table or a properties list shows beside "Religion"), "find the 6th word in the paragraph, type that into
the box" (a word of the longest block of text), "enter the value that corresponds with each label into the form"
(every empty field takes what the screen shows beside its label elsewhere), "solve for x and type your answer" (the
equation the screen shows, solved: planner/equations.py). Read off the first screen, each becomes
the quoted value it stands for, and the task is planned and checked as if it had said that value ('enter
"Christian" into the text field'), so the grammar, the model and the goal check all hold the run to the same text.

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
from deskpilot.grounding.widgets import label_for_field

from .equations import solve

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
# "enter the value that corresponds with each label into the form", "fill in the form with the values from the
# table", "copy the details shown above into the fields": every field of the form takes the value the screen shows
# beside its label elsewhere (a table, a list of details)
_VALUES = (r"(?:the\s+|each\s+|every\s+|all\s+(?:of\s+)?(?:the\s+)?)?"
           r"(?:values?|entr(?:y|ies)|answers?|data|details|information)")
_FORM = r"(?:the\s+|this\s+|its\s+|their\s+)?(?:form|fields?|(?:text\s*)?(?:boxes|inputs))"
EACH_FIELD = re.compile(
    rf"\b(?:type|enter|write|input|put|fill\s+in|copy|transfer)\s+(?:in\s+)?{_VALUES}\s+(?:that\s+)?"
    r"(?:corresponds?|corresponding|belongs?|belonging|goes|go|matche?s?|matching)\s+(?:with|to)\s+(?:each|every|its|"
    rf"their|the)\s+(?:labels?|fields?)(?:\s+(?:into|in|to|on)\s+{_FORM})?"
    rf"|\b(?:fill\s+(?:in|out)|complete)\s+{_FORM}\s+(?:using|with|from)\s+{_VALUES}\s+"
    r"(?:shown\s+|given\s+|listed\s+)?(?:in|from|of|on)\s+the\s+(?:table|list|grid|page|screen)(?:\s+(?:above|below))?"
    rf"|\b(?:copy|transfer|enter|type|put)\s+{_VALUES}\s+(?:shown\s+|given\s+|listed\s+)?(?:in|from|of|on)\s+the\s+"
    rf"(?:table|list|grid)(?:\s+(?:above|below))?\s+(?:into|in|to|onto)\s+{_FORM}", re.I)
# "Solve for x and type your answer into the textbox", "solve the math problem, then enter the result": the sum or
# equation the screen shows, worked out (planner/equations.py), is the answer typed
SOLVE = re.compile(r"\b(?:solve|work\s+out|calculate|compute|figure\s+out)\s+(?:for\s+(?P<unknown>[a-z])\b|(?:the|this)"
                   r"\s+(?:math(?:s|ematical)?\s+|arithmetic\s+)?(?:problem|equation|sum|expression|calculation)\b"
                   r"(?:\s+(?:below|above|shown))?)(?:\s*[,;]?\s*(?:and|then)\b)*\s*", re.I)
ANSWER = re.compile(r"\b(?:your|the)\s+(?:answer|result|solution)\b", re.I)
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
    return bool(VALUE_OF.search(task) or NTH_WORD.search(numbered_ordinals(task)) or EACH_FIELD.search(task)
                or (SOLVE.search(task) and ANSWER.search(task)))


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
    solving = SOLVE.search(written)
    answer = ANSWER.search(written, solving.end()) if solving is not None else None
    if solving is not None and answer is not None:
        value = _solved(texts, solving.group("unknown"))
        if value is None:
            return None
        written = f'{written[:solving.start()]}{written[solving.end():answer.start()]}"{value}"{written[answer.end():]}'
        notes.append(f"the {'equation' if solving.group('unknown') else 'sum'} on the screen works out to {value!r}")
    each = EACH_FIELD.search(written)
    if each is not None:
        filled = _each_field(elements, lines, texts)
        if not filled:
            return None
        written = written.replace(each.group(0), ", ".join(f'type "{value}" into the "{label}" field'
                                                            for label, value in filled), 1)
        notes += [f"the value beside {label!r} reads {value!r} on the screen" for label, value in filled]
    if not notes:
        return None
    written = FIND_THEN_TYPE.sub(lambda m: f"{m.group('verb')} {m.group('value')}", written)
    return ScreenRead(written, tuple(notes))


def _solved(texts: list[Element], unknown: str | None) -> str | None:
    """The one value the sums and equations among `texts` work out to (for `unknown`, where the task names one);
    None where none does, or two lines work out to different values."""
    values = {value for e in texts if (value := solve(e.text, unknown)) is not None}
    return values.pop() if len(values) == 1 else None


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
    return _beside(labels[0], texts) if len(labels) == 1 else None


def _beside(label: Element, texts: list[Element]) -> str | None:
    """The text beside a label: to its right on its row, else right below it."""
    box = label.box
    reach = MAX_GAP * box.height
    right = [e for e in texts if e.box.x0 >= box.x1 - 2 and e.box.x0 - box.x1 <= reach
             and abs(e.center.y - label.center.y) <= ROW_REACH * box.height]
    if right:  # the nearest to the label's row (a form's tall rows set a value lower than its label), then leftmost
        return min(right, key=lambda e: (abs(e.center.y - label.center.y) // (box.height / 2), e.box.x0)).text.strip()
    below = [e for e in texts if e.box.y0 >= box.y1 - 2 and e.box.y0 - box.y1 <= box.height
             and min(e.box.x1, box.x1) - max(e.box.x0, box.x0) > 0]
    return min(below, key=lambda e: e.box.y0).text.strip() if below else None


def _each_field(elements: list[Element], lines: list[Element], texts: list[Element]) -> list[tuple[str, str]]:
    """(label, value) for every empty field of the screen: its label, and what the screen shows beside the one other
    line that reads the same (a table row's first cell); [] where a field has no label, or no one value, or either
    holds a quote (the task is rewritten with both quoted: a screen's text never becomes an instruction)."""
    filled: list[tuple[str, str]] = []
    for field in (e for e in elements if e.role == "input" and not e.text.strip()):
        index = label_for_field(field.box, [e.box for e in texts])
        if index is None:
            return []
        label = texts[index]
        name = label.text.strip().rstrip(":*").strip()
        others = [e for e in lines if e is not label and _key(e.text.rstrip(":*")) == _key(name)]
        value = _beside(others[0], texts) if len(others) == 1 else None
        if not name or value is None or '"' in name + value or len(value) > MAX_VALUE:
            return []
        filled.append((name, value))
    return filled


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

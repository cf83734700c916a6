"""What a task names on the screen: the phrases of it that an element shows ('click Submit' and a Submit button
give Submit; its quoted values are core.task_text's). The explorer leans towards such elements, and the som-text
prompt numbers them, after the quoted ones, as the task's values."""

from __future__ import annotations

import re

from deskpilot.core.task_text import look_alike, normalised

MAX_PHRASE_WORDS = 6
INSTRUCTION_WORDS = frozenset("""a an the and or of on in into to for with by at from is it this that then click press
select choose enter type check uncheck""".split())  # a phrase holding one is a piece of the instruction, not a name
ROLE_WORDS = frozenset("button field box text link tab".split())  # part of a name ("Tab #2"), never a whole one


def comparable(text: str) -> str:
    """A name as it is compared with the screen's: normalised, with the characters OCR confuses folded together
    (the task's "0rAk" is the screen's "OrAk")."""
    return look_alike(normalised(text))


def holds_phrase(text: str, phrase: str) -> bool:
    """Whether `text` says `phrase` as a whole word or words (both compared as `comparable`)."""
    wanted = comparable(phrase)
    return bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", comparable(text)) is not None


def named_phrase(text: str, task: str) -> str | None:
    """The phrase of `task` that `text` (an element's text) says, as the task spells it, when the task names it as
    a whole word or words; pieces of the instruction, lone role words and single characters never count."""
    phrase = normalised(text)
    if not phrase or len(phrase) < 2 or len(phrase.split()) > MAX_PHRASE_WORDS:
        return None
    words = phrase.split()
    if any(word in INSTRUCTION_WORDS for word in words) or (len(words) == 1 and phrase in ROLE_WORDS):
        return None
    if not holds_phrase(task, phrase):
        return None
    task_words = re.findall(r"[\w']+", task)
    size = len(words)
    for start in range(len(task_words) - size + 1):  # the task's own spelling of it
        if comparable(" ".join(task_words[start:start + size])) == look_alike(phrase):
            return " ".join(task_words[start:start + size])
    return text.strip()

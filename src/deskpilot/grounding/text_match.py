"""How well a phrase matches OCR text, and which characters of the text it covers.

OCR on screens merges words and drops spaces ("Fullname"), reads radio circles as "O", and puts several words on
one line; matching is exact first, then case-insensitive, then ignoring spaces and punctuation, then fuzzy; a phrase
inside a longer line gets the span of just those characters, so a word in a sentence gets its own box.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from deskpilot.core.task_text import look_alike

EXACT, CASELESS, SQUASHED, WORD_INSIDE, SQUASHED_INSIDE = 1.0, 0.97, 0.93, 0.9, 0.85
FUZZY_MIN = 80.0
PART_MIN = 4  # the fewest letters of a phrase matched near inside a longer text ("end" is not the "ed" of "Edit")
LOOK_ALIKE = 0.82  # the same word but for letters OCR confuses: "guis" read for an underlined "quis"
EXTRA_TEXT_COST, EXTRA_TEXT_MAX = 0.002, 0.1  # per character around a phrase found inside a longer line


# A file path or an address (/tmp/a-file, ~/x, C:\x, https://..., a/b/c): a word in it ("empty-file") is no
# control's label. "Yes/No" is not one.
PATH = re.compile(r"(?<!\S)(?:[~.]?/|[A-Za-z]:\\|\w+://|\S+[/\\]\S+[/\\])\S*")


@dataclass(frozen=True)
class TextMatch:
    score: float
    start: int  # span of the matched characters in the OCR text
    end: int


def tidy(text: str) -> str:
    """Collapse spaces and drop quotes and edge punctuation: ' "Full name:" ' -> 'Full name'."""
    text = re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip()
    return text.strip(" \"'`“”‘’:;,!?()[]{}<>*")


def _squash_with_index(text: str) -> tuple[str, list[int]]:
    """Lower-case alphanumerics only, and for each kept character its index in `text`."""
    kept, index = [], []
    for i, ch in enumerate(text):
        if ch.isalnum():
            kept.append(ch.lower())
            index.append(i)
    return "".join(kept), index


def match_text(phrase: str, text: str) -> TextMatch | None:
    """The best way `phrase` matches `text`, or None when it does not."""
    want, have = tidy(phrase), text
    if not want or not have.strip():
        return None
    if want == tidy(have):
        return TextMatch(EXACT, 0, len(have))
    if want.lower() == tidy(have).lower():
        return TextMatch(CASELESS, 0, len(have))
    if not PATH.search(want):
        have = PATH.sub(lambda path: "\0" * len(path.group()), have)  # same length: spans stay where they were
    want_sq, _ = _squash_with_index(want)
    have_sq, index = _squash_with_index(have)
    if not want_sq or not have_sq:
        return None
    if want_sq == have_sq:
        return TextMatch(SQUASHED, 0, len(have))
    word = re.search(_word(want), have) or re.search(_word(want.lower()), have.lower())
    if word:
        return TextMatch(WORD_INSIDE, word.start(), word.end())
    position = have_sq.find(want_sq)
    if position >= 0 and len(want_sq) >= 3:
        return TextMatch(SQUASHED_INSIDE, index[position], index[position + len(want_sq) - 1] + 1)
    word = re.search(_word(look_alike(want)), look_alike(have))
    if word and len(want_sq) >= 2:
        return TextMatch(LOOK_ALIKE, word.start(), word.end())
    position = look_alike(have_sq).find(look_alike(want_sq))
    if position >= 0 and len(want_sq) >= 4:  # OCR also runs words together: "consecteturguamid"
        return TextMatch(LOOK_ALIKE - 0.04, index[position], index[position + len(want_sq) - 1] + 1)
    return _fuzzy(want_sq, have_sq, index)


def _word(phrase: str) -> str:
    """A pattern for `phrase` as whole words; an end that is punctuation ("in.") needs no boundary, since OCR often
    drops the space after it ("in.Vulputate")."""
    start = r"(?<![\w])" if phrase[:1].isalnum() else ""
    end = r"(?![\w])" if phrase[-1:].isalnum() else ""
    return start + re.escape(phrase) + end


def _fuzzy(want_sq: str, have_sq: str, index: list[int]) -> TextMatch | None:
    """A near match, letters allowed to differ; a number in the phrase must be in the text ("March 15" is not the
    "March" of a calendar's header: a near match of its letters)."""
    if len(want_sq) < 3:
        return None
    digits = re.sub(r"\D", "", want_sq)
    whole = fuzz.ratio(want_sq, have_sq)
    if whole >= FUZZY_MIN and digits in re.sub(r"\D", "", have_sq):
        return TextMatch(0.8 * whole / 100, 0, index[-1] + 1)
    if len(have_sq) > len(want_sq) >= PART_MIN:  # a short word two of whose letters start a longer one is not it
        part = fuzz.partial_ratio_alignment(want_sq, have_sq)
        if part is not None and part.score >= max(FUZZY_MIN, 100 - 100 / len(want_sq)) and \
                digits in re.sub(r"\D", "", have_sq[part.dest_start:part.dest_end]):
            start, end = part.dest_start, max(part.dest_start + 1, part.dest_end)
            return TextMatch(0.75 * part.score / 100, index[start], index[end - 1] + 1)
    return None

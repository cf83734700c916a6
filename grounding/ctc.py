"""Greedy CTC decoding of a text-line recogniser's per-column character probabilities into the text, its score, how
sure the least sure column was, and each character's centre as a share of the crop's width (which gives per-
character boxes). Shared by PP-OCR's recogniser and deskpilot's own."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Reading:
    """What a recogniser read in one crop. `score` is the mean probability of the characters read; `certainty` the
    lowest, over all of the crop's columns (blanks included: a character half-seen between two others lowers it
    even when the argmax skipped it), probability that the column leaves the text as read (column_certainty),
    spacing aside."""

    text: str
    score: float
    centres: tuple[float, ...]
    certainty: float = 0.0


def _emitted(labels: np.ndarray, before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What columns labelled `labels` (between columns labelled `before` and `after`; -1 at the ends) add to the
    collapsed text, with the column after them: the first and second symbol emitted (-1 for none)."""
    here = np.where((labels != 0) & (labels != before), labels, -1)
    then = np.where((after > 0) & (after != labels), after, -1)
    return np.where(here >= 0, here, then), np.where(here >= 0, then, -1)


def column_certainty(probabilities: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Per column, the probability of the labels that would give the same text there: the best label, and the blank
    or a neighbour's label where swapping it in changes nothing once collapsed (a character's edge columns are
    often half blank; only a doubt that changes the text counts)."""
    before, after = np.r_[-1, best[:-1]], np.r_[best[1:], -1]
    reference = _emitted(best, before, after)
    rows = np.arange(len(best))
    mass = probabilities[rows, best].copy()
    seen = [best]
    for other in (np.zeros_like(best), before, after):
        candidate = np.where(other >= 0, other, best)
        fresh = np.all([candidate != s for s in seen], axis=0)
        same = fresh & np.all([a == b for a, b in zip(_emitted(candidate, before, after), reference)], axis=0)
        mass += np.where(same, probabilities[rows, candidate], 0.0)
        seen.append(candidate)
    return mass


def _spaces_as_blanks(probabilities: np.ndarray, alphabet: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Columns where a space counts as a blank, and their best labels: a doubt about spacing alone (screens space
    words unevenly: `Tab #1` or `Tab#1`) is no doubt about the text."""
    if " " not in alphabet:
        return probabilities, probabilities.argmax(axis=1)
    space = alphabet.index(" ")
    merged = probabilities.copy()
    merged[:, 0] += merged[:, space]
    merged[:, space] = 0.0
    return merged, merged.argmax(axis=1)


def greedy_decode(probabilities: np.ndarray, alphabet: list[str], used: float) -> Reading:
    """One row of columns x classes (class 0 the CTC blank); `used` is the share of the columns holding the crop
    (the rest is padding of a batch)."""
    span = len(probabilities) * used
    own = probabilities[:max(1, int(np.ceil(span)))]
    best = own.argmax(axis=1)
    certainty = float(column_certainty(*_spaces_as_blanks(own, alphabet)).min())
    keep = best != 0
    keep[1:] &= best[1:] != best[:-1]
    columns = np.flatnonzero(keep)
    if not len(columns):
        return Reading("", 0.0, (), certainty)
    text = "".join(alphabet[k] for k in best[columns])
    score = float(own[columns, best[columns]].mean())
    return Reading(text, score, tuple(float((c + 0.5) / span) for c in columns), certainty)

"""Greedy CTC decoding of a text-line recogniser's per-column character probabilities into the text, its score, how
sure the least sure column was, and each character's centre as a share of the crop's width (which gives per-
character boxes). Shared by PP-OCR's recogniser and deskpilot's own."""

from __future__ import annotations

from collections.abc import Sequence
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


def _shifted(labels: np.ndarray, by: int) -> np.ndarray:
    """Each row's labels moved `by` columns right (negative: left), -1 coming in at the end."""
    moved = np.full_like(labels, -1)
    if by > 0:
        moved[..., by:] = labels[..., :-by]
    else:
        moved[..., :by] = labels[..., -by:]
    return moved


def _probability_of(probabilities: np.ndarray, labels: np.ndarray, space: int | None) -> np.ndarray:
    """Each column's probability of its label, a space counting as a blank (`space` None: no such merging)."""
    picked = np.take_along_axis(probabilities, np.maximum(labels, 0)[..., None], axis=-1)[..., 0]
    if space is None:
        return picked
    return np.where(labels == 0, picked + probabilities[..., space], picked)


def column_certainty(probabilities: np.ndarray, best: np.ndarray, space: int | None = None) -> np.ndarray:
    """Per column (rows x columns; -1 labels a column that is not there), the probability of the labels that would
    give the same text there: the best label, and the blank or a neighbour's label where swapping it in changes
    nothing once collapsed (a character's edge columns are often half blank; only a doubt that changes the text
    counts). With `space`, a space is a blank (`best` then never labels one)."""
    before, after = _shifted(best, 1), _shifted(best, -1)
    reference = _emitted(best, before, after)
    mass = _probability_of(probabilities, best, space)
    seen = [best]
    for other in (np.zeros_like(best), before, after):
        candidate = np.where(other >= 0, other, best)
        fresh = np.all([candidate != s for s in seen], axis=0)
        same = fresh & np.all([a == b for a, b in zip(_emitted(candidate, before, after), reference)], axis=0)
        mass += np.where(same, _probability_of(probabilities, candidate, space), 0.0)
        seen.append(candidate)
    return mass


def _best_with_spaces_as_blanks(probabilities: np.ndarray, best: np.ndarray, space: int) -> np.ndarray:
    """The best labels once a space's probability is added to the blank's: a doubt about spacing alone (screens
    space words unevenly: `Tab #1` or `Tab#1`) is no doubt about the text. The blank (class 0) wins where the best
    was a blank or a space, or where blank and space together weigh as much as the best."""
    blank_or_space = probabilities[..., 0] + probabilities[..., space]
    best_probability = np.take_along_axis(probabilities, best[..., None], axis=-1)[..., 0]
    return np.where((best == 0) | (best == space) | (blank_or_space >= best_probability), 0, best)


def greedy_decode_batch(probabilities: np.ndarray, alphabet: list[str], used: Sequence[float]) -> list[Reading]:
    """Rows x columns x classes (class 0 the CTC blank) -> each row's reading; `used` is the share of each row's
    columns holding its crop (the rest is padding of the batch)."""
    rows, columns = probabilities.shape[:2]
    spans = np.asarray(used, np.float64) * columns
    own = np.maximum(1, np.ceil(spans).astype(np.int64))
    present = np.arange(columns)[None, :] < own[:, None]
    best = probabilities.argmax(axis=-1)
    space = alphabet.index(" ") if " " in alphabet else None
    certain = best if space is None else _best_with_spaces_as_blanks(probabilities, best, space)
    certainty = np.where(present, column_certainty(probabilities, np.where(present, certain, -1), space),
                         np.inf).min(axis=1)
    keep = (best != 0) & present
    keep[:, 1:] &= best[:, 1:] != best[:, :-1]
    readings = []
    for row in range(rows):
        kept = np.flatnonzero(keep[row])
        if not len(kept):
            readings.append(Reading("", 0.0, (), float(certainty[row])))
            continue
        labels = best[row, kept]
        readings.append(Reading("".join(alphabet[k] for k in labels), float(probabilities[row, kept, labels].mean()),
                                tuple(float((c + 0.5) / spans[row]) for c in kept), float(certainty[row])))
    return readings


def greedy_decode(probabilities: np.ndarray, alphabet: list[str], used: float) -> Reading:
    """One row of columns x classes (class 0 the CTC blank); `used` is the share of the columns holding the crop
    (the rest is padding of a batch)."""
    return greedy_decode_batch(probabilities[None], alphabet, [used])[0]

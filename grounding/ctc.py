"""Greedy CTC decoding of a text-line recogniser's per-column character probabilities into the text, its score, how
sure the least sure column was, and each character's centre as a share of the crop's width (which gives per-
character boxes). Shared by PP-OCR's recogniser and deskpilot's own."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Reading:
    """What a recogniser read in one crop. `score` is the mean probability of the characters read; `certainty` the
    lowest top-1 probability over all of the crop's columns (blanks included: a character half-seen between two
    others lowers it even when the argmax skipped it)."""

    text: str
    score: float
    centres: tuple[float, ...]
    certainty: float = 0.0


def greedy_decode(probabilities: np.ndarray, alphabet: list[str], used: float) -> Reading:
    """One row of columns x classes (class 0 the CTC blank); `used` is the share of the columns holding the crop
    (the rest is padding of a batch)."""
    span = len(probabilities) * used
    own = probabilities[:max(1, int(np.ceil(span)))]
    best = own.argmax(axis=1)
    certainty = float(own.max(axis=1).min())
    keep = best != 0
    keep[1:] &= best[1:] != best[:-1]
    columns = np.flatnonzero(keep)
    if not len(columns):
        return Reading("", 0.0, (), certainty)
    text = "".join(alphabet[k] for k in best[columns])
    score = float(own[columns, best[columns]].mean())
    return Reading(text, score, tuple(float((c + 0.5) / span) for c in columns), certainty)

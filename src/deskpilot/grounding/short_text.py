"""Short texts the text-line detector leaves unread: a value of one to three characters ("S", "M", "L" of a size
list, a digit of a rating, "XL" beside them), whose line core is too small for the detector's cells to mark. Runs of
marks of a glyph's height that no line holds are read by the recogniser alone (no detection: the run says where the
line is), and kept where the reading is sure and all letters or digits. A drawn frame (a check box's square, a radio
button's circle; an "O" drawn as round is taken for one) is no run of glyphs: it is left alone."""

from __future__ import annotations

import re
from collections.abc import Callable

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from .ocr import TextLine
from .widgets import TOGGLE_MIN, toggle_shaped

GLYPH_HEIGHT = (7, 24)  # pixels: the height of a short text's marks (7 px: a small "x"; 24 px: large UI text)
MAX_WIDTH = 3.2  # of its height: a run wider than this is more than three characters (a line the detector reads)
FRAME_SIDE = (17, 25)  # pixels: an unbroken vertical, horizontal mark at least this long is a frame's side
JOIN = 4  # pixels between a glyph's strokes, and between two letters of one word, joined into one run
INK_CONTRAST = 60  # grey levels of change that count as a mark's edge
TEXT_CONTRAST = 100  # grey levels off its background a run's strongest mark reaches where it is text, drawn to be
# read (a form's letters 136-255); an icon's shading does not (the window manager's title-bar icon: 66-70)
READ_PADS = (2, 3, 4)  # pixels around a run given to the recogniser, one reading each: one glyph alone reads
# unsteadily (a Tk "S": "s" 0.79, 0.54, 0.76 at these pads; "S" 0.84 with more room to its sides)
AGREE = 2  # readings (of READ_PADS) that must give the same text, case aside, for it to be kept
SURE = 0.6  # the surest of those agreeing readings is at least this sure (a white "S" on a selection's blue: 0.63-0.67)
MAX_CHARS = 3  # characters of a short text at most (a longer one is a line the detector reads)
SIGNED = re.compile(r"^[-+]\d{1,2}$")  # a signed number ("-2" beside a slider) is a short text too
MAX_RUNS = 48  # runs read per parse, at most (a few ms for all: one batch of the recogniser)
CLOSED = 0.9  # share of a square's sides (or a circle) drawn for it to be a frame, not a glyph
FRAME_CONTRAST = 25  # grey levels off the background that count as a frame's line (drawn light, anti-aliased)

Recognise = Callable[[list[np.ndarray]], list[tuple[str, float]]]  # BGR crops -> (text, score) each


def glyph_runs(image: np.ndarray, region: Box, taken: list[Box]) -> list[Box]:
    """Runs of marks of a glyph's height inside `region` (image pixels) that touch none of the `taken` boxes (the
    lines already read), narrow enough to be a short text, and no drawn frame; top to bottom, left to right."""
    crop = image[region.y0:region.y1, region.x0:region.x1]
    if crop.size == 0:
        return []
    gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    marks = (cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > INK_CONTRAST).astype(np.uint8)
    # a frame's straight sides (a drop-down's border two pixels left of its "S", an open list's edge) are no glyph:
    # left in, they join the text beside them into one run as tall as the frame
    frames = np.maximum(cv2.morphologyEx(marks, cv2.MORPH_OPEN, np.ones((FRAME_SIDE[0], 1), np.uint8)),
                        cv2.morphologyEx(marks, cv2.MORPH_OPEN, np.ones((1, FRAME_SIDE[1]), np.uint8)))
    marks[frames > 0] = 0
    joined = cv2.dilate(marks, np.ones((1, JOIN), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    low, high = GLYPH_HEIGHT
    runs = []
    for x, y, w, h, _ in stats[1:count]:
        # the gradient and the join widen a run by a pixel each side and JOIN - 1 to the right
        box = Box(region.x0 + int(x) + 1, region.y0 + int(y) + 1, region.x0 + int(x + w) - JOIN,
                  region.y0 + int(y + h) - 1)
        if not (low <= box.height <= high and 2 <= box.width <= MAX_WIDTH * box.height):
            continue
        if any(box.padded(1).intersects(other) for other in taken):
            continue
        runs.append(box)
    runs = [box for box in runs if not drawn_frame(image, box) and _contrast(image, box) >= TEXT_CONTRAST]
    return sorted(runs, key=lambda b: (b.y0 // 8, b.x0))


def _contrast(image: np.ndarray, box: Box) -> int:
    """How far (grey levels) the darkest or lightest pixel of `box` stands off the background around it."""
    area = box.padded(2).clipped(Box(0, 0, image.shape[1], image.shape[0]))
    gray = cv2.cvtColor(image[area.y0:area.y1, area.x0:area.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    background = int(np.median(np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])))
    return int(np.abs(gray - background).max())


def drawn_frame(image: np.ndarray, box: Box) -> bool:
    """Whether `box` (image pixels) is a small square or circle drawn as a frame (a check box, a radio button): its
    marks run unbroken along each side of the square, or around the circle with a plain band inside. (A glyph's
    strokes reach its box's sides in places only: "M" touches all four, unbroken along two.)"""
    if not toggle_shaped(box):
        return False
    area = box.padded(1).clipped(Box(0, 0, image.shape[1], image.shape[0]))
    gray = cv2.cvtColor(image[area.y0:area.y1, area.x0:area.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    ink = np.abs(gray - int(np.median(gray))) > FRAME_CONTRAST
    rows, columns = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if len(rows) < TOGGLE_MIN or len(columns) < TOGGLE_MIN:
        return False
    # the square the marks are drawn around (a box found for it may run a few pixels past it)
    top, bottom, left, right = rows[0], rows[-1] + 1, columns[0], columns[-1] + 1
    band = 2
    sides = (ink[top:top + band, left:right].any(axis=0), ink[bottom - band:bottom, left:right].any(axis=0),
             ink[top:bottom, left:left + band].any(axis=1), ink[top:bottom, right - band:right].any(axis=1))
    if all(side.mean() >= CLOSED for side in sides):
        return True
    # the circle the marks are drawn around (a box found for it may run a few pixels past it)
    cx, cy = (columns[0] + columns[-1]) / 2, (rows[0] + rows[-1]) / 2
    radius = (min(columns[-1] - columns[0], rows[-1] - rows[0])) / 2

    def drawn_between(low: float, high: float) -> float:  # the share of rays with a mark between these radii
        angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)[:, None]
        shares = np.arange(low, high + 1e-6, 0.5 / max(radius, 1))[None, :]
        xs = np.rint(cx + shares * radius * np.cos(angles)).astype(int)
        ys = np.rint(cy + shares * radius * np.sin(angles)).astype(int)
        inside = (xs >= 0) & (xs < ink.shape[1]) & (ys >= 0) & (ys < ink.shape[0])
        hits = np.zeros(xs.shape, bool)
        hits[inside] = ink[ys[inside], xs[inside]]
        return float(hits.any(axis=1).mean())

    # a ring with a plain band inside it (around a radio button's dot, if any); a glyph's strokes cross that band
    return drawn_between(0.8, 1.1) >= CLOSED and drawn_between(0.68, 0.68) <= 1 - CLOSED


def short_texts(image: np.ndarray, regions: list[Box], lines: list[TextLine], recognise: Recognise) -> list[TextLine]:
    """The short texts inside `regions` (image pixels) that none of `lines` holds, read surely."""
    taken = [line.box for line in lines]
    runs = [run for region in regions for run in glyph_runs(image, region, taken)][:MAX_RUNS]
    if not runs:
        return []
    frame = Box(0, 0, image.shape[1], image.shape[0])
    crops = [np.ascontiguousarray(image[b.y0:b.y1, b.x0:b.x1, ::-1])  # BGR, as OCR reads
             for run in runs for b in (run.padded(pad).clipped(frame) for pad in READ_PADS)]
    readings = recognise(crops)
    found = []
    for index, run in enumerate(runs):
        read = [(text.strip(), score) for text, score in readings[index * len(READ_PADS):(index + 1) * len(READ_PADS)]]
        agreed = [(text, score) for text, score in read if sum(t.lower() == text.lower() for t, _ in read) >= AGREE]
        text, score = max(agreed, key=lambda reading: reading[1], default=("", 0.0))
        if score >= SURE and 1 <= len(text) <= MAX_CHARS and (text.isalnum() or SIGNED.match(text)):
            found.append(TextLine(run, text, score))
    return found


def short_text_over(image: np.ndarray, box: Box, lines: list[TextLine]) -> bool:
    """Whether a toggle-sized box holds a short text's glyphs (a line of at most MAX_CHARS letters or digits over
    its middle) and no drawn frame: that text, not a check box or radio button."""
    return any(line.box.contains(*box.center) and len(line.text.strip()) <= MAX_CHARS and line.text.strip().isalnum()
               for line in lines) and not drawn_frame(image, box)

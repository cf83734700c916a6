"""Sliders: a long thin track and the handle on it, with the number shown beside it. Text detection skips
them and no frame holds them whole, so the handle was found, if at all, as a small field of its own. A slider is
found here from its outline: the track's outline runs the same height along its length but where the handle stands
out above and below it (Qt, GTK, a web page's range input and jQuery UI), or, where the handle sits inside the
track (Tk's ttk.Scale), a box of another colour inside the track between edges drawn across it.

The slider's element is its handle (what a person drags or clicks to focus it), named by the number shown beside
the track (right of it on its row, under it, or over the handle; beside or under a vertical one), so a planner reads
its value and moves it (planner/sliders.py). A slider that shows no number is still found, with no name. A vertical
slider is found the same way, turned on its side (not where its handle sits inside its track)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from .layout import Widget
from .ocr import TextLine
from .widgets import edge_map

WORD = re.compile(r"[^\W\d_]{2}")  # two letters: a word, which no slider's track holds (a tab strip's tabs do)
NUMBER = re.compile(r"^[-−]?\d+(?:[.,]\d+)?\s*%?$")  # the value a slider shows: "8", "-2", "0.5", "40 %"
GLUED = re.compile(r"^[A-Za-z|!\[\]()](?P<number>-?\d+(?:[.,]\d+)?)$")  # "J10": a focused handle's border
# read as a letter before the number beside it
TRACK_MIN_LENGTH = 60  # pixels: shorter bars are no sliders
TRACK_RATIO = 3  # a track is at least this many times as long as the slider is tall
MAX_HEIGHT = 64  # pixels a slider stands at most, handle included
STANDS_OUT = 2  # pixels a handle rises above and below the track, at least
EVEN = 0.8  # share of the track's columns that keep its height (to a pixel or two): a bar, not a word
ACROSS = 0.7  # share of a track's inside height an edge drawn across it spans, to bound a handle inside it
HANDLE_CONTRAST = 8  # grey levels between a handle inside the track and the track
EDGE_SLACK = 3  # pixels a number's box may reach into the track's (OCR boxes run a little past the glyphs)
VALUE_REACH = 6  # slider heights from the track within which the number it shows stands


@dataclass(frozen=True)
class Slider:
    """A slider found on the image (image pixels): its track, its handle, and the number shown beside it ("")."""

    track: Box
    handle: Box
    value: str = ""
    value_box: Box | None = None  # where the number stands

    def in_a_field(self, fields: list[Box]) -> Slider:
        """This slider, without its number where that number is a field's text (a spin box's under it)."""
        if self.value_box is not None and any(self.value_box.share_in(field) > 0.5 for field in fields):
            return Slider(self.track, self.handle)
        return self

    @property
    def vertical(self) -> bool:
        return self.track.height > self.track.width

    @property
    def widget(self) -> Widget:
        return Widget(self.handle, "slider", self.value, vertical=self.vertical)

    @property
    def extent(self) -> Box:
        return self.track.union(self.handle)


def find_sliders(image: np.ndarray, lines: list[TextLine]) -> list[Slider]:
    """Every slider on the image, across or upright, top to bottom. A bar whose track holds a word is no slider (a
    tab strip's selected tab stands out of it like a handle, and holds its name); a round handle may be read as
    "0"."""
    edges = edge_map(image)
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours = list(cv2.findContours(closed, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0])
    if lines:  # the outlines again without the text: a number between two sliders joins them into one outline
        bare = closed.copy()
        for line in lines:
            bare[line.box.y0:line.box.y1, line.box.x0:line.box.x1] = 0
        bounds = {cv2.boundingRect(contour) for contour in contours}
        contours += [contour for contour in cv2.findContours(bare, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
                     if cv2.boundingRect(contour) not in bounds]  # an outline no text touched is looked at once
    found: list[Slider] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        vertical = h >= TRACK_MIN_LENGTH and 6 <= w <= MAX_HEIGHT and h >= TRACK_RATIO * w
        if not vertical and (w < TRACK_MIN_LENGTH or not 6 <= h <= MAX_HEIGHT or w < TRACK_RATIO * h):
            continue
        box = Box(x, y, x + w, y + h)
        crossing = [line.box for line in lines if line.box.intersects(box)]
        mask = np.zeros((h, w), np.uint8)
        cv2.drawContours(mask, [contour - np.array([x, y])], -1, 1, thickness=cv2.FILLED)
        parts = None
        if crossing:  # the number it shows may touch it (under it, or at its end): read without the text first
            bare = mask.copy()
            for text in crossing:
                part = text.shifted(-x, -y)
                bare[max(0, part.y0):max(0, part.y1), max(0, part.x0):max(0, part.x1)] = 0
            parts = _along(bare, vertical)
        parts = parts or _along(mask, vertical) or (None if vertical else _inner_handle(image, edges, box))
        if parts is None:  # (a round handle may be read as "0": the outline with its text is tried too)
            continue
        track, handle = (part.shifted(x, y) for part in parts)
        if any(WORD.search(line.text) and line.box.intersects(track) for line in lines):
            continue
        if not any(other.extent.iou(track.union(handle)) > 0.5 for other in found):
            found.append(Slider(track, handle))
    found.sort(key=lambda s: (s.track.y0, s.track.x0))
    return [Slider(s.track, s.handle, *shown) for s, shown in zip(found, _values(found, lines))]


def _along(mask: np.ndarray, vertical: bool) -> tuple[Box, Box] | None:
    """`_raised_handle` of a horizontal outline, or of a vertical one turned on its side and back."""
    if not vertical:
        return _raised_handle(mask)
    turned = _raised_handle(np.ascontiguousarray(mask.T))
    return None if turned is None else (_transposed(turned[0]), _transposed(turned[1]))


def _transposed(box: Box) -> Box:
    return Box(box.y0, box.x0, box.y1, box.x1)


def _raised_handle(mask: np.ndarray) -> tuple[Box, Box] | None:
    """(track, handle) in the filled outline's pixels where one run of columns stands out of an even bar above and
    below it; None otherwise."""
    h, w = mask.shape
    heights = mask.sum(axis=0)
    if int(heights.max()) - int(heights.min()) < 2 * STANDS_OUT:  # no column can stand out of the bar (most outlines)
        return None
    thickness = float(np.median(heights))
    if thickness < 2:
        return None
    filled = heights > 0
    tops = np.where(filled, mask.argmax(axis=0), h)
    bottoms = np.where(filled, h - mask[::-1].argmax(axis=0), 0)
    tall = heights >= thickness + max(2 * STANDS_OUT, 0.3 * thickness)
    bar = filled & ~tall
    if bar.sum() < TRACK_MIN_LENGTH // 2 or np.mean(np.abs(heights[bar] - thickness) <= 2) < EVEN:
        return None
    top, bottom = int(np.median(tops[bar])), int(np.median(bottoms[bar]))
    runs = [(a, b) for a, b in _runs(tall) if tops[a:b].min() <= top - STANDS_OUT and
            bottoms[a:b].max() >= bottom + STANDS_OUT]
    if len(runs) != 1:
        return None
    a, b = runs[0]
    if b - a < 6 or b - a > w / 3:
        return None
    columns = np.nonzero(filled)[0]
    return (Box(int(columns[0]), top, int(columns[-1]) + 1, bottom),
            Box(a, int(tops[a:b].min()), b, int(bottoms[a:b].max())))


def _inner_handle(image: np.ndarray, edges: np.ndarray, box: Box) -> tuple[Box, Box] | None:
    """(track, handle) relative to `box` where the bar holds, between edges drawn across its inside, a box of
    another colour than the rest of the track (ttk's default theme); None otherwise."""
    inset = 3
    inside = edges[box.y0 + inset:box.y1 - inset, box.x0 + inset:box.x1 - inset]
    if inside.shape[0] < 4 or inside.shape[1] < TRACK_MIN_LENGTH // 2:
        return None
    across = (inside > 0).sum(axis=0) >= ACROSS * inside.shape[0]
    runs = [(a, b) for a, b in _runs(across, gap=3) if a > 1 and b < len(across) - 1]  # not the track's own ends
    if len(runs) < 2:
        return None
    a, b = runs[0][0] + inset, runs[-1][1] + inset
    if b - a < box.height * 0.8 or b - a > box.width / 3:
        return None
    gray = cv2.cvtColor(image[box.y0 + inset:box.y1 - inset, box.x0:box.x1], cv2.COLOR_RGB2GRAY).astype(np.float32)
    handle_grey = float(np.median(gray[:, a:b]))
    rest = np.concatenate([gray[:, inset:a], gray[:, b:box.width - inset]], axis=1)
    if rest.size == 0 or abs(handle_grey - float(np.median(rest))) < HANDLE_CONTRAST:
        return None
    return Box(0, 0, box.width, box.height), Box(a, 0, b, box.height)


def _runs(flags: np.ndarray, gap: int = 2) -> list[tuple[int, int]]:
    """The runs of True in `flags` as (start, end), runs no more than `gap` apart joined."""
    edges = np.flatnonzero(np.diff(np.concatenate(([False], flags.astype(bool), [False])).astype(np.int8)))
    runs: list[tuple[int, int]] = []
    for start, end in zip(edges[::2].tolist(), edges[1::2].tolist()):
        if runs and start - runs[-1][1] <= gap:
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
    return runs


def _values(sliders: list[Slider], lines: list[TextLine]) -> list[tuple[str, Box | None]]:
    """The number each slider shows: a number is the nearest slider's where it stands right of its track on its
    row, under its track's start, or over its handle, within VALUE_REACH of its height; each slider takes the
    nearest number it is given. "" where none."""
    nearest: dict[int, tuple[float, str, Box]] = {}
    for line in lines:
        text = line.text.strip().replace("−", "-")
        glued = GLUED.match(text)
        if not NUMBER.match(text) and not glued:
            continue
        distances = [(d, i) for i, slider in enumerate(sliders) if (d := _distance(slider, line.box)) is not None]
        if not distances:
            continue
        distance, owner = min(distances)
        if glued is not None and not NUMBER.match(text):  # glued to the handle's border: only a number that
            if line.box.x0 > sliders[owner].handle.x1 + EDGE_SLACK:  # starts at the handle
                continue
            text = glued.group("number")
        if owner not in nearest or distance < nearest[owner][0]:
            nearest[owner] = (distance, text, line.box)
    return [(nearest[i][1], nearest[i][2]) if i in nearest else ("", None) for i in range(len(sliders))]


def _distance(slider: Slider, box: Box) -> float | None:
    """How far `box` stands from the slider, where it stands where a slider shows its number; None elsewhere. A
    vertical slider shows it right of its track, along it or at its foot, or under it."""
    track, handle = slider.track, slider.handle
    if slider.vertical:
        reach = VALUE_REACH * handle.width
        if 0 <= box.x0 - track.x1 <= reach and track.y0 <= box.center.y <= track.y1 + handle.height:
            return float(box.x0 - track.x1)
        if -EDGE_SLACK <= box.y0 - track.y1 <= reach / 2 and track.x0 - reach <= box.center.x <= track.x1 + reach:
            return float(max(0, box.y0 - track.y1))
        return None
    reach = VALUE_REACH * handle.height
    middle = (handle.y0 + handle.y1) / 2
    if box.y0 <= middle <= box.y1 and box.x0 - track.x1 <= reach and box.x0 >= handle.x1 - EDGE_SLACK and \
            (box.x0 >= track.x1 - handle.width / 2 or box.x0 <= handle.x1 + EDGE_SLACK):  # at the end, or at its
        # handle where the handle stands at the end (the number touching it is taken into the track's outline)
        return float(max(0, box.x0 - track.x1))
    if -EDGE_SLACK <= box.y0 - track.y1 <= reach / 2 and track.x0 - handle.width <= box.x0 <= track.x1:
        return float(max(0, box.y0 - track.y1))
    if 0 <= handle.y0 - box.y1 <= reach / 2 and abs(box.center.x - handle.center.x) <= handle.width:
        return float(handle.y0 - box.y1)
    return None

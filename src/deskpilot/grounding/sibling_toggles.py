"""Toggles of a group found from one of them: radio buttons (and check boxes) of one group stand on one row, drawn
alike. Where OCR reads a row's labels and the unchosen buttons between them as one line ("CompanycardOOwnmoney",
"ardOwnmoney" around a Tk diamond), neither the outline search nor the detector finds those buttons; a mark on the
row of the same size and silhouette as a toggle found there is another of its group. The silhouette (the marks
with their insides filled) is what a chosen and an unchosen button share: a Tk diamond filled or empty, a ring with
or without its dot; a letter of a label differs from it (an "O" is round where a diamond is not; a "B" beside a
check box fills a square as the box does, but its sides are no frame, and the next button of a group stands past
the first one's label)."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from .action_context import TOGGLE_ROLES
from .layout import Widget, label_beside
from .ocr import TextLine
from .short_text import drawn_frame
from .widgets import TOGGLE_REACH, toggle_checked, toggle_shaped

ROW_REACH = 640  # pixels right of a toggle where its group's next toggles may stand
SIZE_SLACK = 2  # pixels a sibling's width and height may differ from the toggle's
ROW_SLACK = 2  # pixels a sibling's middle may stand off the toggle's
SAME_SILHOUETTE = 0.8  # IoU of the filled marks, aligned at their boxes, for two marks to be drawn alike
MARK_CONTRAST = 25  # grey levels off the row's background that count as a mark (toggles are drawn light)
LOOK_AROUND = 3  # pixels around a toggle's box where its marks may still be
SMALLEST = 10  # pixels: a toggle drawn smaller is too like a digit of small text to look for its group by
LABEL_GAP = 3  # toggle widths at least between a toggle and the next of its group: the first one's label


def silhouette(image: np.ndarray, box: Box) -> tuple[Box, np.ndarray] | None:
    """The mark at the middle of `box` (image pixels; a box found for a toggle may cut its edge or run past it,
    so a few pixels around are looked at too) with its inside filled: its bounds (image pixels) and a boolean mask
    of that size; None where the middle holds no mark."""
    area = box.padded(LOOK_AROUND).clipped(Box(0, 0, image.shape[1], image.shape[0]))
    crop = image[area.y0:area.y1, area.x0:area.x1]
    if crop.size == 0:
        return None
    gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY).astype(np.int16)
    border = np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])
    marks = (np.abs(gray - int(np.median(border))) > MARK_CONTRAST).astype(np.uint8)
    outside = np.pad(marks, 1)
    cv2.floodFill(outside, None, (0, 0), 2)  # what the fill from the edge does not reach lies inside a mark
    filled = (outside[1:-1, 1:-1] != 2).astype(np.uint8)
    count, labels = cv2.connectedComponents(filled, connectivity=8)
    cx, cy = (box.x0 + box.x1) // 2 - area.x0, (box.y0 + box.y1) // 2 - area.y0
    owner = labels[min(cy, labels.shape[0] - 1), min(cx, labels.shape[1] - 1)]
    if count <= 1 or owner == 0:
        return None
    mine = labels == owner
    rows, columns = np.flatnonzero(mine.any(axis=1)), np.flatnonzero(mine.any(axis=0))
    bounds = Box(area.x0 + int(columns[0]), area.y0 + int(rows[0]), area.x0 + int(columns[-1]) + 1,
                 area.y0 + int(rows[-1]) + 1)
    return bounds, mine[rows[0]:rows[-1] + 1, columns[0]:columns[-1] + 1]


def _mark_boxes(image: np.ndarray, row: Box) -> list[Box]:
    """The boxes of the separate marks on a row (image pixels)."""
    crop = image[row.y0:row.y1, row.x0:row.x1]
    if crop.size == 0:
        return []
    gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY).astype(np.int16)
    marks = (np.abs(gray - int(np.median(gray))) > MARK_CONTRAST).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(marks, connectivity=8)
    return [Box(row.x0 + int(x), row.y0 + int(y), row.x0 + int(x + w), row.y0 + int(y + h))
            for x, y, w, h, _ in stats[1:count]]


def _alike(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two silhouettes, scaled to one size, cover the same pixels (IoU >= SAME_SILHOUETTE)."""
    height, width = first.shape
    resized = cv2.resize(second.astype(np.uint8), (width, height), interpolation=cv2.INTER_NEAREST) > 0
    union = np.logical_or(first, resized).sum()
    return bool(union) and np.logical_and(first, resized).sum() / union >= SAME_SILHOUETTE


def _text_after(mark: Box, lines: list[TextLine]) -> bool:
    """Whether a text line on the mark's row goes on right of it (its label; read apart from the row's line or
    not yet)."""
    return any(line.box.x1 > mark.x1 + SIZE_SLACK and line.box.x0 < mark.x1 + TOGGLE_REACH
               and min(line.box.y1, mark.y1) - max(line.box.y0, mark.y0) > mark.height / 2 for line in lines)


def sibling_toggles(image: np.ndarray, widgets: list[Widget], lines: list[TextLine]) -> list[Widget]:
    """Toggles on the row right of each named check box or radio button in `widgets` that are drawn as it is (same
    size, same silhouette), have text going on to their right (a label, read apart from the row's line or not yet),
    and are no control already found; each with its own state and the label beside it."""
    frame = Box(0, 0, image.shape[1], image.shape[0])
    toggles = [w for w in widgets if w.role in TOGGLE_ROLES and toggle_shaped(w.box) and w.text]  # named: a label
    found: list[Widget] = []
    for toggle in toggles:
        drawn = silhouette(image, toggle.box)
        if drawn is None:
            continue
        tight, shape = drawn
        if min(tight.width, tight.height) < SMALLEST:
            continue
        framed = drawn_frame(image, tight)  # a square or a ring: so must its siblings be (a "B" fills a square too)
        row = Box(tight.x1, tight.y0 - ROW_SLACK - 1, tight.x1 + ROW_REACH, tight.y1 + ROW_SLACK + 1).clipped(frame)
        middle = (tight.y0 + tight.y1) / 2
        for mark in _mark_boxes(image, row):
            if abs(mark.width - tight.width) > SIZE_SLACK or abs(mark.height - tight.height) > SIZE_SLACK \
                    or abs((mark.y0 + mark.y1) / 2 - middle) > ROW_SLACK \
                    or mark.x0 - tight.x1 < LABEL_GAP * tight.width:
                continue
            if framed and not drawn_frame(image, mark):
                continue
            if any(mark.iou(w.box) > 0.3 for w in widgets + found):
                continue
            other = silhouette(image, mark)
            if other is not None and _text_after(mark, lines) and _alike(shape, other[1]):
                found.append(Widget(mark, toggle.role, label_beside(mark, lines), toggle_checked(image, mark),
                                    toggle.score, toggle.source))
    return found

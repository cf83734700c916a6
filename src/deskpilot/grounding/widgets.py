"""Which widget belongs to which text label — the input box beside or below a label, the check box or radio circle
in front of one — as geometry over boxes (used for outlines found here, for layout and detector controls, and the
other way round for the label of a field), and from pixels alone around a label (outlines, no model)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from deskpilot.core.geometry import Box

# Pixel sizes for text up to REFERENCE_TEXT_H tall (100 % desktops to 200 % web pages); near a taller label (a
# 300 % desktop) every reach and upper size limit grows with the text (`text_scale`); the lower limits stay.
REFERENCE_TEXT_H = 28
FIELD_MIN_H, FIELD_MAX_H, FIELD_MIN_W = 14, 72, 36
TOGGLE_MIN, TOGGLE_MAX = 8, 32
FIELD_REACH = 720  # a field is at most this far right of its label
LABEL_ABOVE_REACH = 80  # ... or this far below it
TOGGLE_REACH = 48  # a check box is at most this far before (or after) its label
ROW_SLACK = 4  # how far a box may stand off a label's row and still be on it
MARK_CONTRAST, MARK_SHARE = 60, 0.1
PLAIN_SPREAD = 12  # grey levels a plain colour's pixels may differ by
HUG = 2  # pixels of slack around a text line's box for an outline within it


def text_scale(label: Box) -> float:
    """How many times larger than the tuned sizes the widgets around this label are: controls grow with their text
    (a check box beside 48 px text is about 50 px), never smaller than the tuned ones."""
    return max(1.0, label.height / REFERENCE_TEXT_H)


def edge_map(image: np.ndarray) -> np.ndarray:
    """The outline pixels of an RGB image (Canny, thickened a pixel so that drawn frames close): what both the
    label-driven search here and the whole-screen outline search (layout.py) read."""
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    return cv2.dilate(cv2.Canny(gray, 20, 60), np.ones((2, 2), np.uint8))


def rectangles(image: np.ndarray, region: Box) -> list[Box]:
    """Boxes of closed rectangular outlines inside `region` (image pixels), in image coordinates."""
    h, w = image.shape[:2]
    region = region.clipped(Box(0, 0, w, h))
    if region.width < 4 or region.height < 4:
        return []
    contours, _ = cv2.findContours(edge_map(image[region.y0:region.y1, region.x0:region.x1]), cv2.RETR_LIST,
                                   cv2.CHAIN_APPROX_SIMPLE)
    boxes = []
    for contour in contours:
        x, y, bw, bh = cv2.boundingRect(contour)
        if bw < TOGGLE_MIN or bh < TOGGLE_MIN:
            continue
        hull_area = cv2.contourArea(cv2.convexHull(contour))
        if hull_area < 0.75 * bw * bh and not _round_enough(hull_area, bw, bh):
            continue
        boxes.append(Box(region.x0 + x, region.y0 + y, region.x0 + x + bw, region.y0 + y + bh))
    return boxes


def _round_enough(area: float, w: int, h: int) -> bool:
    """Radio buttons are circles: hull area near pi/4 of the box."""
    return abs(w - h) <= 3 and area >= 0.6 * w * h


def toggle_shaped(box: Box, scale: float = 1.0) -> bool:
    """A check box's or radio circle's size: small and about square (`scale`: text_scale of its label)."""
    largest = TOGGLE_MAX * scale
    return TOGGLE_MIN <= box.width <= largest and TOGGLE_MIN <= box.height <= largest \
        and abs(box.width - box.height) <= 4 * scale


def field_for_label(label: Box, fields: list[Box]) -> int | None:
    """Which of `fields` a label names (its index): the nearest right of it on its row, else the nearest below it
    (smaller first among equals)."""
    cy = (label.y0 + label.y1) / 2
    k = text_scale(label)
    slack = ROW_SLACK * k
    overrun = max(slack, label.height / 2)  # OCR's box of a label set close to its field may run over its edge
    right = [i for i, b in enumerate(fields) if b.y0 - slack <= cy <= b.y1 + slack and b.x0 >= label.x1 - overrun
             and b.x0 - label.x1 <= FIELD_REACH * k]
    if right:
        return min(right, key=lambda i: (fields[i].x0, fields[i].area))
    below = [i for i, b in enumerate(fields) if 0 <= b.y0 - label.y1 + slack <= LABEL_ABOVE_REACH * k
             and b.x0 <= label.x1 + 30 * k and b.x1 >= label.x0]
    return min(below, key=lambda i: (fields[i].y0, fields[i].area)) if below else None


def label_for_field(field: Box, labels: list[Box]) -> int | None:
    """The other way round: which of `labels` names a field (its index), by the same rule — the nearest left of it
    on its row (its box may run over the field's edge by half its height: OCR's box of a label set close), else
    the nearest above it."""
    cy = (field.y0 + field.y1) / 2
    k = max(1.0, field.height / FIELD_MAX_H)  # a field stands about twice its text's height
    slack = ROW_SLACK * k
    left = [i for i, b in enumerate(labels) if b.x1 <= field.x0 + max(slack, b.height / 2)
            and b.y0 - slack <= cy <= b.y1 + slack and field.x0 - b.x1 <= FIELD_REACH * k]
    if left:
        return max(left, key=lambda i: labels[i].x1)
    above = [i for i, b in enumerate(labels) if 0 <= field.y0 - b.y1 + slack <= LABEL_ABOVE_REACH * k
             and field.x0 <= b.x1 + 30 * k and field.x1 >= b.x0]
    return max(above, key=lambda i: labels[i].y1) if above else None


def toggle_for_label(label: Box, toggles: list[Box]) -> int | None:
    """Which of `toggles` a label names (its index): the nearest just left of it on its row, else just right."""
    cy = (label.y0 + label.y1) / 2
    k = text_scale(label)
    slack, reach = ROW_SLACK * k, TOGGLE_REACH * k
    row = [i for i, b in enumerate(toggles) if b.y0 - slack <= cy <= b.y1 + slack]
    before = [i for i in row if toggles[i].x1 <= label.x0 + slack and label.x0 - toggles[i].x1 <= reach]
    if before:
        return max(before, key=lambda i: (toggles[i].x1, -toggles[i].area))
    after = [i for i in row if toggles[i].x0 >= label.x1 - slack and toggles[i].x0 - label.x1 <= reach]
    return min(after, key=lambda i: toggles[i].x0) if after else None


def find_field(image: np.ndarray, label: Box, texts: Sequence[Box] = ()) -> Box | None:
    """The input box a label names, from the outlines around it: one that contains it (placeholder text), else
    the one `field_for_label` picks of those no other text labels. An outline that lies within one of `texts` (the
    screen's text lines) is letters whose edges run together ("password" read as a box), not a field."""
    k = text_scale(label)
    pad_x, pad_y, reach = round(12 * k), round(30 * k), round(FIELD_REACH * k)
    lines = [t.padded(HUG) for t in (*texts, label)]
    around = [b for b in rectangles(image, Box(label.x0 - pad_x, label.y0 - pad_y, label.x1 + pad_x,
                                               label.y1 + pad_y)) if not _within_any(b, lines)]
    inside = [b for b in around if _field_shaped(b, k) and b.x0 <= label.x0 and b.x1 >= label.x1
              and b.y0 <= label.y0 + 2 and b.y1 >= label.y1 - 2]
    if inside:
        return min(inside, key=lambda b: b.area)
    cy = (label.y0 + label.y1) // 2
    half_row = round(40 * k)
    near = rectangles(image, Box(label.x1 - 4, cy - half_row, label.x1 + reach, cy + half_row)) + rectangles(
        image, Box(label.x0 - round(30 * k), label.y1 - 2, label.x0 + reach, label.y1 + round(LABEL_ABOVE_REACH * k)))
    fields = [b for b in near if _field_shaped(b, k) and not _within_any(b, lines)
              and not _text_between(label, b, texts)]
    chosen = field_for_label(label, fields)
    return None if chosen is None else fields[chosen]


def _text_between(label: Box, field: Box, texts: Sequence[Box]) -> bool:
    """Whether another text stands on the label's row between it and a field right of it: that text is the
    field's label ("Recipient" above its own field does not name the "New password" field further right)."""
    return any(t.x0 >= label.x1 and t.x1 <= field.x0 + HUG and t.y0 < label.y1 and t.y1 > label.y0
               and not t.intersects(label) for t in texts)


def _within_any(box: Box, areas: Sequence[Box]) -> bool:
    return any(box.share_in(area) >= 1.0 for area in areas)


def _field_shaped(box: Box, scale: float = 1.0) -> bool:
    return FIELD_MIN_H <= box.height <= FIELD_MAX_H * scale and box.width >= max(FIELD_MIN_W, 2 * box.height)


def find_toggle(image: np.ndarray, label: Box) -> Box | None:
    """The check box or radio circle in front of a label (or just after it, for right-aligned toggles), from the
    outlines around it."""
    cy = (label.y0 + label.y1) // 2
    k = text_scale(label)
    reach, half_row = round(TOGGLE_REACH * k), round(24 * k)
    near = rectangles(image, Box(label.x0 - reach, cy - half_row, label.x0 + 4, cy + half_row)) + rectangles(
        image, Box(label.x1 - 4, cy - half_row, label.x1 + reach, cy + half_row))
    toggles = [b for b in near if toggle_shaped(b, k)]
    chosen = toggle_for_label(label, toggles)
    return None if chosen is None else toggles[chosen]


def round_toggle(image: np.ndarray, box: Box) -> bool:
    """Whether a small toggle is drawn round (a radio button) rather than square (a check box): a square's outline
    runs through the corners of its box, a circle's leaves them empty. At half size, where the detector looks,
    the two are hard to tell apart; here they are read at full size."""
    crop = image[box.y0:box.y1, box.x0:box.x1]
    if min(crop.shape[:2]) < 6:
        return False
    gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY).astype(np.int16)
    background = int(np.median(gray))  # most of a toggle's box is its background, inside and out (not a dot's ink)
    ink = np.abs(gray - background) > 25
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if len(rows) < 4 or len(cols) < 4:
        return False
    y0, y1, x0, x1 = rows[0], rows[-1], cols[0], cols[-1]  # the drawn shape's own extent
    side = max(2, min(y1 - y0, x1 - x0) // 6)
    corners = [ink[y:y + side, x:x + side].any() for y in (y0, y1 - side + 1) for x in (x0, x1 - side + 1)]
    return bool(sum(corners) <= 1)


def toggle_checked(image: np.ndarray, box: Box) -> bool | None:
    """Whether a check box or radio button (its box, image pixels) shows a mark: a share of its inside that
    stands out from the inside's usual colour (a tick, a cross, a dot), in light and dark themes alike.
    None when the box is too small to tell — unless all of it inside a pixel's margin is one plain colour: then the
    box found is the inside of the drawn one (a Tk box under the pointer, whose border's edges run into its fill's),
    ticked where that colour is darker than what lies around it."""
    inset = max(3, min(box.width, box.height) // 5)
    inner = image[box.y0 + inset:box.y1 - inset, box.x0 + inset:box.x1 - inset]
    if inner.size == 0 or min(inner.shape[:2]) < 3:
        plain = cv2.cvtColor(image[box.y0 + 1:box.y1 - 1, box.x0 + 1:box.x1 - 1], cv2.COLOR_RGB2GRAY)
        if plain.size == 0 or min(plain.shape[:2]) < 3 or int(plain.max()) - int(plain.min()) > PLAIN_SPREAD:
            return None
        return _filled(image, box, int(np.median(plain)))
    gray = cv2.cvtColor(inner, cv2.COLOR_RGB2GRAY).astype(np.int16)
    standing_out = np.abs(gray - int(np.median(gray))) > MARK_CONTRAST
    return bool(standing_out.mean() >= MARK_SHARE) or _filled(image, box, int(np.median(gray)))


def _filled(image: np.ndarray, box: Box, inside: int) -> bool:
    """Whether a box's plain inside is a fill darker than what lies around the box (Tk marks a check box by filling
    it; an empty one is as light as its window, or lighter: a white box on a dark band is not a ticked one)."""
    h, w = image.shape[:2]
    outer = box.padded(4, Box(0, 0, w, h))
    ring = np.ones((outer.height, outer.width), bool)  # 3 pixels around the box, a pixel off its border
    near = box.padded(1).shifted(-outer.x0, -outer.y0)
    ring[max(0, near.y0):near.y1, max(0, near.x0):near.x1] = False
    around = cv2.cvtColor(image[outer.y0:outer.y1, outer.x0:outer.x1], cv2.COLOR_RGB2GRAY)[ring]
    return around.size > 0 and int(np.median(around)) - inside > MARK_CONTRAST

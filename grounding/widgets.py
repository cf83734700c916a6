"""Finding the widget that belongs to a text label from pixels alone: the input box beside or below a label,
and the check box or radio circle in front of one. Works on outlines (edges), so it needs no model."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.geometry import Box

FIELD_MIN_H, FIELD_MAX_H, FIELD_MIN_W = 14, 72, 36
TOGGLE_MIN, TOGGLE_MAX = 8, 32
MARK_CONTRAST, MARK_SHARE = 60, 0.1


def rectangles(image: np.ndarray, region: Box) -> list[Box]:
    """Boxes of closed rectangular outlines inside `region` (image pixels), in image coordinates."""
    h, w = image.shape[:2]
    region = region.clipped(Box(0, 0, w, h))
    if region.width < 4 or region.height < 4:
        return []
    gray = cv2.cvtColor(image[region.y0:region.y1, region.x0:region.x1], cv2.COLOR_RGB2GRAY)
    edges = cv2.Canny(gray, 20, 60)
    edges = cv2.dilate(edges, np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
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


def find_field(image: np.ndarray, label: Box) -> Box | None:
    """The input box a label names: one that contains it (placeholder text), else the nearest to its right on the
    same line, else the nearest below it."""
    cy = (label.y0 + label.y1) // 2
    around = rectangles(image, Box(label.x0 - 12, label.y0 - 30, label.x1 + 12, label.y1 + 30))
    inside = [b for b in around if _field_shaped(b) and b.x0 <= label.x0 and b.x1 >= label.x1
              and b.y0 <= label.y0 + 2 and b.y1 >= label.y1 - 2]
    if inside:
        return min(inside, key=lambda b: b.area)
    right = [b for b in rectangles(image, Box(label.x1 - 4, cy - 40, label.x1 + 720, cy + 40))
             if _field_shaped(b) and b.y0 <= cy <= b.y1 and b.x0 >= label.x1 - 4]
    if right:
        return min(right, key=lambda b: (b.x0, b.area))
    below = [b for b in rectangles(image, Box(label.x0 - 30, label.y1 - 2, label.x0 + 720, label.y1 + 80))
             if _field_shaped(b) and b.y0 >= label.y1 - 4 and b.x0 <= label.x1 and b.x1 >= label.x0]
    if below:
        return min(below, key=lambda b: (b.y0, b.area))
    return None


def _field_shaped(box: Box) -> bool:
    return FIELD_MIN_H <= box.height <= FIELD_MAX_H and box.width >= max(FIELD_MIN_W, 2 * box.height)


def find_toggle(image: np.ndarray, label: Box) -> Box | None:
    """The check box or radio circle in front of a label (or just after it, for right-aligned toggles)."""
    cy = (label.y0 + label.y1) // 2
    candidates = [b for b in rectangles(image, Box(label.x0 - 48, cy - 24, label.x0 + 4, cy + 24))
                  if TOGGLE_MIN <= b.width <= TOGGLE_MAX and TOGGLE_MIN <= b.height <= TOGGLE_MAX
                  and abs(b.width - b.height) <= 4 and b.y0 <= cy <= b.y1 and b.x1 <= label.x0 + 4]
    if candidates:
        return max(candidates, key=lambda b: (b.x1, -b.area))
    after = [b for b in rectangles(image, Box(label.x1 - 4, cy - 24, label.x1 + 48, cy + 24))
             if TOGGLE_MIN <= b.width <= TOGGLE_MAX and abs(b.width - b.height) <= 4 and b.y0 <= cy <= b.y1]
    return min(after, key=lambda b: b.x0) if after else None


def toggle_checked(image: np.ndarray, box: Box) -> bool | None:
    """Whether a check box or radio button (its box, image pixels) shows a mark: a share of its inside that
    stands out from the inside's usual colour (a tick, a cross, a dot), in light and dark themes alike.
    None when the box is too small to tell."""
    inset = max(3, min(box.width, box.height) // 5)
    inner = image[box.y0 + inset:box.y1 - inset, box.x0 + inset:box.x1 - inset]
    if inner.size == 0 or min(inner.shape[:2]) < 3:
        return None
    gray = cv2.cvtColor(inner, cv2.COLOR_RGB2GRAY).astype(np.int16)
    standing_out = np.abs(gray - int(np.median(gray))) > MARK_CONTRAST
    return bool(standing_out.mean() >= MARK_SHARE)

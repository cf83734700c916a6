"""Where two frames differ: boxes around changed pixels, so OCR only re-reads what changed."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.geometry import Box

DIFF_THRESHOLD = 10
EFFECT_SHARE = 0.002  # changed share of the area around an action point that counts as a visible effect
CARET_PIXELS = 64  # fewer changed pixels than this on the whole screen is a blinking caret, not an effect


def changed_regions(before: np.ndarray, after: np.ndarray, gap: int = 12) -> list[Box]:
    """Boxes (image pixels) covering every changed pixel; changes closer than `gap` pixels share a box."""
    if before.shape != after.shape:
        return [Box(0, 0, after.shape[1], after.shape[0])]
    diff = cv2.absdiff(before, after)
    mask = (diff.max(axis=2) > DIFF_THRESHOLD).astype(np.uint8) if diff.ndim == 3 else (diff > DIFF_THRESHOLD)
    if not mask.any():
        return []
    mask = cv2.dilate(mask.astype(np.uint8), np.ones((gap, gap), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    boxes = []
    for x, y, w, h, _area in stats[1:count]:
        boxes.append(Box(int(x), int(y), int(x + w), int(y + h)))
    return merge_boxes(boxes)


def merge_boxes(boxes: list[Box]) -> list[Box]:
    """Union overlapping boxes until none overlap."""
    merged = list(boxes)
    changed = True
    while changed:
        changed = False
        out: list[Box] = []
        for box in merged:
            for i, other in enumerate(out):
                if box.intersects(other):
                    out[i] = other.union(box)
                    changed = True
                    break
            else:
                out.append(box)
        merged = out
    return merged


def changed_share(before: np.ndarray, after: np.ndarray, region: Box) -> float:
    """Share of pixels in `region` (image pixels) that differ between two frames."""
    if before.shape != after.shape:
        return 1.0
    region = region.clipped(Box(0, 0, after.shape[1], after.shape[0]))
    if region.width <= 0 or region.height <= 0:
        return 0.0
    window = (slice(region.y0, region.y1), slice(region.x0, region.x1))
    diff = cv2.absdiff(before[window], after[window])
    changed = diff.max(axis=2) > DIFF_THRESHOLD if diff.ndim == 3 else diff > DIFF_THRESHOLD
    return float(changed.mean())


def changed_near(before: np.ndarray, after: np.ndarray, x: int, y: int, radius: int = 60) -> float:
    """Share of pixels within `radius` of (x, y) that differ: 0 means the action there had no visible effect."""
    return changed_share(before, after, Box(x - radius, y - radius, x + radius, y + radius))


def visible_effect(before: np.ndarray, after: np.ndarray, near: tuple[int, int] | None = None) -> bool:
    """Whether the screen visibly changed (more than a caret's blink), around `near` (image pixels) when given."""
    if changed_pixels(before, after) < CARET_PIXELS:
        return False
    return near is None or changed_near(before, after, *near) > EFFECT_SHARE


def changed_pixels(before: np.ndarray, after: np.ndarray) -> int:
    """How many pixels differ at all (a blinking text caret is a few dozen)."""
    if before.shape != after.shape:
        return before.size
    diff = cv2.absdiff(before, after)
    return int((diff.max(axis=2) > DIFF_THRESHOLD).sum() if diff.ndim == 3 else (diff > DIFF_THRESHOLD).sum())

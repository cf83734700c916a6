"""Where two frames differ: boxes around changed pixels, so OCR only re-reads what changed."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.geometry import Box

DIFF_THRESHOLD = 10


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


def changed_near(before: np.ndarray, after: np.ndarray, x: int, y: int, radius: int = 60) -> float:
    """Share of pixels within `radius` of (x, y) (image pixels) that differ between two frames: 0 means the action
    there had no visible effect."""
    if before.shape != after.shape:
        return 1.0
    h, w = after.shape[:2]
    x0, y0, x1, y1 = max(0, x - radius), max(0, y - radius), min(w, x + radius), min(h, y + radius)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    diff = cv2.absdiff(before[y0:y1, x0:x1], after[y0:y1, x0:x1])
    changed = diff.max(axis=2) > DIFF_THRESHOLD if diff.ndim == 3 else diff > DIFF_THRESHOLD
    return float(changed.mean())

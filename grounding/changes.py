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

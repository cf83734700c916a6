"""Where a screenshot has content: boxes around everything that is not flat colour (flat desktop, page and window
backgrounds hold no text), so text detection runs on those parts alone."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from .changes import merge_boxes

TILE = 16  # content is found tile by tile
FLAT_RANGE = 12  # a tile whose channels vary less than this holds no text
CONTEXT = 8  # pixels of background kept around content given to detection
DET_PAD = 32  # detection input sides are multiples of this


def content_regions(image: np.ndarray) -> list[Box]:
    """Boxes around the parts of the frame that are not flat colour (with CONTEXT pixels of background), merged
    where they overlap, their corners on the DET_PAD grid so detection sees the pixels as a whole-frame pass
    would (the network is not translation-invariant below its coarsest stride)."""
    height, width = image.shape[:2]
    rows, cols = -(-height // TILE), -(-width // TILE)
    padded = np.pad(image, ((0, rows * TILE - height), (0, cols * TILE - width), (0, 0)), mode="edge")
    whole_tile = np.ones((TILE, TILE), np.uint8)  # max and min filters anchored at each tile's corner
    highest = cv2.dilate(padded, whole_tile, anchor=(0, 0))[::TILE, ::TILE]
    lowest = cv2.erode(padded, whole_tile, anchor=(0, 0))[::TILE, ::TILE]
    spread = (highest.astype(np.int16) - lowest).max(axis=-1)
    mask = cv2.dilate((spread > FLAT_RANGE).astype(np.uint8), np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    frame = Box(0, 0, width, height)
    boxes = [_on_grid(Box(int(x) * TILE, int(y) * TILE, int(x + w) * TILE, int(y + h) * TILE).padded(CONTEXT), frame)
             for x, y, w, h, _ in stats[1:count]]
    return merge_boxes(boxes)


def _on_grid(box: Box, frame: Box) -> Box:
    return Box(box.x0 - box.x0 % DET_PAD, box.y0 - box.y0 % DET_PAD, box.x1 + -box.x1 % DET_PAD,
               box.y1 + -box.y1 % DET_PAD).clipped(frame)

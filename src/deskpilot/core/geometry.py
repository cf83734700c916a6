"""Points, boxes and monitors in screen pixels of the virtual desktop (all monitors, logical pixels)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Point(NamedTuple):
    x: int
    y: int


class Box(NamedTuple):
    """An axis-aligned rectangle; x1/y1 are exclusive."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    @property
    def center(self) -> Point:
        return Point((self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2)

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x < self.x1 and self.y0 <= y < self.y1

    def intersects(self, other: Box) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def union(self, other: Box) -> Box:
        return Box(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))

    def iou(self, other: Box) -> float:
        inter = Box(max(self.x0, other.x0), max(self.y0, other.y0), min(self.x1, other.x1), min(self.y1, other.y1))
        shared = inter.area if inter.width > 0 and inter.height > 0 else 0
        total = self.area + other.area - shared
        return shared / total if total else 0.0

    def share_in(self, other: Box) -> float:
        """The share of this box's area that lies inside `other`."""
        inter = self.clipped(other)
        return inter.area / self.area if inter.width > 0 and inter.height > 0 and self.area else 0.0

    def padded(self, pad: int, limit: Box | None = None) -> Box:
        box = Box(self.x0 - pad, self.y0 - pad, self.x1 + pad, self.y1 + pad)
        return box.clipped(limit) if limit else box

    def clipped(self, limit: Box) -> Box:
        return Box(max(self.x0, limit.x0), max(self.y0, limit.y0), min(self.x1, limit.x1), min(self.y1, limit.y1))

    def shifted(self, dx: int, dy: int) -> Box:
        return Box(self.x0 + dx, self.y0 + dy, self.x1 + dx, self.y1 + dy)

    def text_span(self, text_length: int, start: int, end: int) -> Box:
        """Where characters [start, end) of a line of `text_length` characters read in this box lie, each character
        given an equal share of its width (what OCR gives of a line without character boxes)."""
        width = self.width / max(1, text_length)
        return Box(round(self.x0 + start * width), self.y0, round(self.x0 + end * width), self.y1)


class Monitor(NamedTuple):
    """One monitor's place on the virtual desktop in logical pixels, and its HiDPI scale
    (physical pixels per logical pixel; screenshots are taken in physical pixels)."""

    left: int
    top: int
    width: int
    height: int
    scale: float = 1.0

    @property
    def box(self) -> Box:
        return Box(self.left, self.top, self.left + self.width, self.top + self.height)

    def image_to_screen(self, x: float, y: float) -> Point:
        """A pixel of a screenshot of this monitor -> the screen point it shows."""
        return Point(round(self.left + x / self.scale), round(self.top + y / self.scale))

    def screen_to_image(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.left) * self.scale, (y - self.top) * self.scale

    def image_box_to_screen(self, box: Box) -> Box:
        x0, y0 = self.image_to_screen(box.x0, box.y0)
        x1, y1 = self.image_to_screen(box.x1, box.y1)
        return Box(x0, y0, x1, y1)

    def screen_box_to_image(self, box: Box) -> Box:
        x0, y0 = self.screen_to_image(box.x0, box.y0)
        x1, y1 = self.screen_to_image(box.x1, box.y1)
        return Box(int(x0), int(y0), int(round(x1)), int(round(y1)))


READING_ROW = 8  # pixels: boxes whose tops are this close are on one line when read left to right


def reading_order(box: Box) -> tuple[int, int]:
    """A sort key that reads boxes as a person reads a screen: line by line, left to right in each line."""
    return box.y0 // READING_ROW, box.x0


def shared_areas(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Pairwise overlap areas of two arrays of boxes (N x 4 and M x 4: x0, y0, x1, y1) -> N x M, 0 where two do
    not overlap: Box.intersects and the area of Box.clipped, for many boxes at once."""
    a, b = boxes[:, None, :], others[None, :, :]
    width = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    height = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    return np.where((width > 0) & (height > 0), width * height, 0)

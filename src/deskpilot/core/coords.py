"""CoordinateSpace: screen pixels <-> the coordinates a model speaks.

Models see a screenshot of one monitor (physical pixels, possibly resized) and answer in one of three spaces:
`screen` (absolute screen pixels), `resized` (pixels of the smart-resized image, UI-TARS-1.5 / Qwen2.5-VL) or
`relative1000` (a 0-1000 grid over the image, UI-TARS v1 / Qwen2-VL / Qwen3-VL).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .geometry import Monitor, Point

SpaceMode = Literal["screen", "resized", "relative1000"]

QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 100 * 28 * 28
QWEN_MAX_PIXELS = 16384 * 28 * 28
MAX_ASPECT_RATIO = 200


def smart_resize(height: int, width: int, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                 max_pixels: int = QWEN_MAX_PIXELS) -> tuple[int, int]:
    """The (height, width) Qwen2.5-VL resizes an image to: multiples of `factor`, pixel count within bounds."""
    if height <= 0 or width <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ValueError(f"aspect ratio over {MAX_ASPECT_RATIO}: {width}x{height}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


@dataclass(frozen=True)
class CoordinateSpace:
    """How a model's coordinates map onto one monitor. `image_size` is (width, height) of the image the model saw."""

    monitor: Monitor
    mode: SpaceMode = "screen"
    image_size: tuple[int, int] | None = None

    @classmethod
    def for_model(cls, monitor: Monitor, mode: SpaceMode, factor: int = QWEN_FACTOR,
                  min_pixels: int = QWEN_MIN_PIXELS, max_pixels: int = QWEN_MAX_PIXELS) -> CoordinateSpace:
        phys_w, phys_h = round(monitor.width * monitor.scale), round(monitor.height * monitor.scale)
        if mode == "resized":
            h, w = smart_resize(phys_h, phys_w, factor, min_pixels, max_pixels)
            return cls(monitor, mode, (w, h))
        return cls(monitor, mode, (phys_w, phys_h))

    def bounds(self) -> tuple[float, float, float, float]:
        """The (x0, y0, x1, y1) range of coordinates the model may give: the image it saw, or the monitor."""
        m = self.monitor
        if self.mode == "screen":
            return m.left, m.top, m.left + m.width, m.top + m.height
        if self.mode == "relative1000":
            return 0, 0, 1000, 1000
        w, h = self._image_size()
        return 0, 0, w, h

    def to_screen(self, x: float, y: float) -> Point:
        """Model coordinates (within `bounds()`) -> a screen point; the far edge maps onto the last pixel."""
        m = self.monitor
        if self.mode == "screen":
            sx, sy = x, y
        elif self.mode == "relative1000":
            sx, sy = m.left + x / 1000 * m.width, m.top + y / 1000 * m.height
        else:
            w, h = self._image_size()
            sx, sy = m.left + x / w * m.width, m.top + y / h * m.height
        return Point(min(max(round(sx), m.left), m.left + m.width - 1),
                     min(max(round(sy), m.top), m.top + m.height - 1))

    def from_screen(self, point: Point) -> tuple[int, int]:
        """A screen point -> the model's coordinates (rounded to the integers models emit)."""
        m = self.monitor
        if self.mode == "screen":
            return point.x, point.y
        if self.mode == "relative1000":
            return round((point.x - m.left) / m.width * 1000), round((point.y - m.top) / m.height * 1000)
        w, h = self._image_size()
        return round((point.x - m.left) / m.width * w), round((point.y - m.top) / m.height * h)

    def _image_size(self) -> tuple[int, int]:
        if self.image_size is None:
            raise ValueError("a 'resized' coordinate space needs the image size the model saw")
        return self.image_size


def screen_space(monitor: Monitor) -> CoordinateSpace:
    return CoordinateSpace(monitor, "screen")

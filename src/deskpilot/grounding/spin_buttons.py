"""The step buttons of a spin box: the two small arrows stacked at a number field's right end (Qt, Tk, jQuery UI),
or its "−" and "+" buttons side by side (GTK). They are drawn glyphs that text detection skips and no outline
holds alone; each is found here among the marks at the field's right end and named "step up" or "step down", so
that a planner can ask for them by name like any button (planner/spin_boxes.py clicks them where a field takes no
typing)."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from .layout import Widget
from .ocr import TextLine

STEP_UP, STEP_DOWN = "step up", "step down"
MARK_CONTRAST = 40  # grey levels off the background that count as a mark
REACH_IN, REACH_OUT = 2.5, 1.0  # field heights inside and past a field's right end within which its buttons stand
ROW_PAD = 0.35  # of the field's height: how far above and below it its buttons may reach
GLYPH_MAX = 0.7  # of the field's height: an arrow, a plus or a minus is no bigger
GLYPH_MIN = 3  # pixels an arrow, a plus or a minus spans at least
ALIGNED = 3  # pixels two stacked arrows' centres may stand apart across
SOLID = 0.85  # of its box: a mark this filled is a bar ("=" is two), not an arrow (a triangle fills about half)
SIGNS = ("+", "-", "−", "—", "–")  # a plus or minus OCR read as text


def step_buttons(image: np.ndarray, widgets: list[Widget], lines: list[TextLine]) -> list[Widget]:
    """The step buttons of every field among `widgets` that has a pair of them at its right end."""
    found: list[Widget] = []
    for field in (w for w in widgets if w.role in ("input", "dropdown")):
        pair = _pair(image, field.box, lines)
        if pair is not None and not any(b.box.intersects(pair[0]) for b in found):
            found += [Widget(pair[0], "button", STEP_UP), Widget(pair[1], "button", STEP_DOWN)]
    return found


def _pair(image: np.ndarray, field: Box, lines: list[TextLine]) -> tuple[Box, Box] | None:
    """(step up, step down) boxes at the field's right end: two arrows of one size stacked on one axis, or a minus
    beside a plus; None where the marks there are anything else."""
    height = field.height
    pad = round(ROW_PAD * height)  # a focused web field's ring is drawn inside the box its buttons stand in
    region = Box(max(0, int(field.x1 - REACH_IN * height)), max(0, field.y0 - pad),
                 min(image.shape[1], int(field.x1 + REACH_OUT * height)), min(image.shape[0], field.y1 + pad))
    if region.width < GLYPH_MIN * 2 or region.height < GLYPH_MIN * 2:
        return None
    gray = cv2.cvtColor(image[region.y0:region.y1, region.x0:region.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    ink = (np.abs(gray - int(np.median(gray))) > MARK_CONTRAST).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    words = [line.box for line in lines if line.text.strip() not in SIGNS]
    found = [(Box(region.x0 + int(x), region.y0 + int(y), region.x0 + int(x + w), region.y0 + int(y + h)),
              int(area) >= SOLID * w * h)
             for x, y, w, h, area in stats[1:count]
             if max(w, h) >= GLYPH_MIN and w <= GLYPH_MAX * height and h <= GLYPH_MAX * height
             and x > 0 and y > 0 and x + w < region.width and y + h < region.height  # cut off: not a whole glyph
             and region.x0 + x >= (field.x0 + field.x1) / 2]  # at the field's end, not before it ("x = [ ]")
    found = [(m, solid) for m, solid in found if not any(m.share_in(word) > 0.5 for word in words)]
    found = [(m, solid) for m, solid in found if not any(o is not m and o.share_in(m) == 1 for o, _ in found)]
    marks = [m for m, _ in found]  # (an arrow's own frame holds the arrow: the arrow is the mark)
    if len(marks) != 2:
        return None
    first, second = sorted(marks, key=lambda m: (m.y0, m.x0))
    if abs(first.center.x - second.center.x) <= ALIGNED and first.y1 <= second.y0 and \
            not any(solid for _, solid in found) and \
            abs(first.width - second.width) <= max(2, 0.4 * first.width):
        up, down = _clickable(first, field, above=True), _clickable(second, field, above=False)
        cut = (first.y1 + second.y0) // 2  # the two buttons meet between the arrows
        return Box(up.x0, up.y0, up.x1, min(up.y1, cut)), Box(down.x0, max(down.y0, cut), down.x1, down.y1)
    minus, plus = sorted(marks, key=lambda m: m.height)
    if minus.height <= 3 and minus.width >= 5 and abs(plus.width - plus.height) <= 3 and plus.width >= 5 and \
            abs(minus.center.y - plus.center.y) <= ALIGNED:
        return plus.padded(4), minus.padded(4)
    return None


def _clickable(arrow: Box, field: Box, above: bool) -> Box:
    """An arrow's button: the arrow grown to the half of the field's height it stands in."""
    middle = (field.y0 + field.y1) // 2
    top, bottom = (field.y0, middle) if above else (middle, field.y1)
    return Box(arrow.x0 - 3, min(top, arrow.y0 - 2), arrow.x1 + 3, max(bottom, arrow.y1 + 2))

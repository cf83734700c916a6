"""A month calendar on the screen (a date picker's pop-up, a calendar widget): its header ("December 2016") over a
grid of day numbers, and the arrows either side of the header that turn the month. The arrows are drawn glyphs
(triangles, chevrons in circles) that text detection skips and no outline holds alone; each is found here as the
marks between the header's text and the grid's side, and named "previous month" or "next month", so that a
planner can ask for them by name like any button."""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from .layout import Widget
from .ocr import TextLine

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# "December 2016", "Dec 2016", "December2016" (OCR drops the space), "2016年12月" is not read here
MONTH_YEAR = re.compile(r"^\s*(?P<month>[A-Za-z]{3,9})\.?\s*(?P<year>(?:19|20)\d\d)\s*$")
DAYS_AT_LEAST = 20  # day numbers under a month's name that make it a calendar
GRID_REACH = 10  # header heights below the header within which the day grid stands
ARROW_GAP = 3  # pixels between an arrow's marks and the header's text, at least
GLYPH_SIZE = 2  # text heights an arrow's marks span at most, each way
MARK_CONTRAST = 40  # grey levels off the header's background that count as a mark
PREVIOUS, NEXT = "previous month", "next month"


@dataclass(frozen=True)
class MonthShown:
    """A calendar's header as read: the month (1-12) and year it shows, and the grid of its day numbers."""

    month: int
    year: int
    header: Box
    grid: Box


def month_of(text: str) -> int | None:
    """The month (1-12) a header's word names ("Dec", "December"), else None."""
    match = MONTH_YEAR.match(text)
    if match is None:
        return None
    word = match.group("month").lower()
    return next((i + 1 for i, name in enumerate(MONTHS) if len(word) >= 3 and name.startswith(word)), None)


def months_shown(lines: list[tuple[Box, str]]) -> list[MonthShown]:
    """Every calendar header among text lines (box, text): a month and a year with day numbers 1-31 set in a grid
    below it, at least DAYS_AT_LEAST of them, across the header's width or more."""
    shown = []
    for box, text in lines:
        month = month_of(text)
        if month is None:
            continue
        year = int(MONTH_YEAR.match(text).group("year"))  # type: ignore[union-attr]
        reach = box.y1 + GRID_REACH * box.height
        days = [b for b, t in lines if t.strip().isdigit() and 1 <= int(t) <= 31 and box.y1 <= b.y0 <= reach
                and b.x1 >= box.x0 - 4 * box.width and b.x0 <= box.x1 + 4 * box.width]
        if len(days) >= DAYS_AT_LEAST:
            grid = Box(min(b.x0 for b in days), min(b.y0 for b in days), max(b.x1 for b in days),
                       max(b.y1 for b in days))
            shown.append(MonthShown(month, year, box, grid))
    return shown


def month_arrows(image: np.ndarray, lines: list[TextLine]) -> list[Widget]:
    """The arrows that turn each calendar's month: the marks on the header's row between its text and the grid's
    left side (previous) and right side (next), where no text line was read (a "<" or "Next" read as text is
    found as text already)."""
    arrows: list[Widget] = []
    for shown in months_shown([(line.box, line.text) for line in lines]):
        header, grid = shown.header, shown.grid
        band = (max(0, header.y0 - header.height // 2), min(image.shape[0], header.y1 + header.height // 2))
        reach = max(header.height, (grid.width - header.width) // 2)
        for name, x0, x1 in ((PREVIOUS, min(grid.x0, header.x0 - reach), header.x0 - ARROW_GAP),
                             (NEXT, header.x1 + ARROW_GAP, max(grid.x1, header.x1 + reach))):
            region = Box(max(0, x0), band[0], min(image.shape[1], x1), band[1])
            if region.width < 4 or any(line.box.intersects(region) for line in lines if line.box != header):
                continue
            arrow = _glyph(image, region, header.height)
            if arrow is not None:
                arrows.append(Widget(arrow, "button", name))
    return arrows


def _glyph(image: np.ndarray, region: Box, height: int) -> Box | None:
    """The largest mark in `region` no wider or taller than GLYPH_SIZE text heights, its parts (a triangle in its
    circle) taken together; a frame's side or a rule across the region is no glyph."""
    gray = cv2.cvtColor(image[region.y0:region.y1, region.x0:region.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    ink = (np.abs(gray - int(np.median(gray))) > MARK_CONTRAST).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    glyphs = [Box(int(x), int(y), int(x + w), int(y + h)) for x, y, w, h, _ in stats[1:count]
              if w <= GLYPH_SIZE * height and h <= GLYPH_SIZE * height and max(w, h) >= height // 2]
    if not glyphs:
        return None
    largest = max(glyphs, key=lambda b: b.area)
    parts = [b for b in glyphs if largest.padded(2).intersects(b)]
    return Box(min(b.x0 for b in parts), min(b.y0 for b in parts), max(b.x1 for b in parts),
               max(b.y1 for b in parts)).shifted(region.x0, region.y0)

"""A month calendar on the screen (a date picker's pop-up, a calendar widget): its header ("December 2016") over a
grid of day numbers, and the arrows either side of the header that turn the month. The arrows are drawn glyphs
(triangles, chevrons in circles) that text detection skips and no outline holds alone; each is found here as the
marks between the header's text and the grid's side, and named "previous month" or "next month", so that a
planner can ask for them by name like any button.

Where a day stands is worked out from the grid, not only read: OCR joins neighbouring cells' numbers ("212223")
or drops one, but the numbers it does read alone fix the grid's columns and rows and the column of the 1st, and
every day of the month follows (`MonthShown.day_at`), whatever day the calendar's weeks start on."""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from deskpilot.core.geometry import Box, Point

from .layout import Widget
from .ocr import TextLine

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# "December 2016", "Dec 2016", "December2016" (OCR drops the space), "2016年12月" is not read here
MONTH_YEAR = re.compile(r"^\s*(?P<month>[A-Za-z]{3,9})\.?\s*(?P<year>(?:19|20)\d\d)\s*$")
DAYS_AT_LEAST = 10  # day numbers read alone under a month's name, in one grid, that make it a calendar
AGREE = 0.6  # share of the days read alone whose places must agree on where the 1st stands
GRID_REACH = 10  # header heights below the header within which the day grid stands
ARROW_GAP = 3  # pixels between an arrow's marks and the header's text, at least
GLYPH_SIZE = 2  # text heights an arrow's marks span at most, each way
MARK_CONTRAST = 40  # grey levels off the header's background that count as a mark
PREVIOUS, NEXT = "previous month", "next month"


@dataclass(frozen=True)
class MonthShown:
    """A calendar's header as read: the month (1-12) and year it shows, the box of its day numbers, and where its
    grid puts day 1 (`first`: the top-left cell's centre, the pitch of columns and rows, and the 1st's cell
    index counted from that corner, seven a row)."""

    month: int
    year: int
    header: Box
    grid: Box
    first: tuple[Point, float, float, int]

    def day_at(self, day: int) -> Point | None:
        """The centre of the cell of `day` of the month shown (None outside the grid's seven columns)."""
        corner, pitch_x, pitch_y, offset = self.first
        row, column = divmod(offset + day - 1, 7)
        if not 0 <= column < 7 or row < 0:
            return None
        return Point(round(corner.x + column * pitch_x), round(corner.y + row * pitch_y))


def month_number(word: str) -> int | None:
    """The month (1-12) a name of three letters or more starts ("Dec", "December", "sept"), else None."""
    word = word.lower()
    return next((i + 1 for i, name in enumerate(MONTHS) if len(word) >= 3 and name.startswith(word)), None)


def month_and_year(text: str) -> tuple[int, int] | None:
    """The month (1-12) and year a calendar's header names ("Dec 2016", "December 2016"), else None."""
    match = MONTH_YEAR.match(text)
    month = None if match is None else month_number(match.group("month"))
    return None if match is None or month is None else (month, int(match.group("year")))


def months_shown(lines: list[tuple[Box, str]]) -> list[MonthShown]:
    """Every calendar header among text lines (box, text): a month and a year with day numbers 1-31 read alone below
    it, at least DAYS_AT_LEAST of them, that stand in one grid of seven columns."""
    shown = []
    for box, text in lines:
        named = month_and_year(text)
        if named is None:
            continue
        month, year = named
        reach = box.y1 + GRID_REACH * box.height
        days = [(int(t), b) for b, t in lines if t.strip().isdigit() and 1 <= int(t) <= 31
                and box.y1 <= b.y0 <= reach and b.x1 >= box.x0 - 4 * box.width and b.x0 <= box.x1 + 4 * box.width]
        first = _first_cell(days) if len(days) >= DAYS_AT_LEAST else None
        if first is not None:
            grid = Box(min(b.x0 for _, b in days), min(b.y0 for _, b in days), max(b.x1 for _, b in days),
                       max(b.y1 for _, b in days))
            shown.append(MonthShown(month, year, box, grid, first))
    return shown


def _first_cell(days: list[tuple[int, Box]]) -> tuple[Point, float, float, int] | None:
    """The grid the day numbers read alone stand in: its top-left cell's centre, its column and row pitch (the
    smallest step between distinct columns, rows), and the 1st's cell index on which most reads agree (a day of
    the month before or after, or a misread, stands elsewhere); None where too few agree."""
    centres = [(day, box.center) for day, box in days]
    height = float(np.median([box.height for _, box in days]))
    columns, rows = _levels([p.x for _, p in centres], height), _levels([p.y for _, p in centres], height / 2)
    if len(columns) < 2 or len(rows) < 2:
        return None
    pitch_x, pitch_y = _pitch(columns), _pitch(rows)
    votes: dict[int, int] = {}
    for day, point in centres:
        column, row = round((point.x - columns[0]) / pitch_x), round((point.y - rows[0]) / pitch_y)
        votes[7 * row + column - (day - 1)] = votes.get(7 * row + column - (day - 1), 0) + 1
    offset, agreed = max(votes.items(), key=lambda item: item[1])
    if agreed < AGREE * len(centres) or _column_count(columns, pitch_x) > 7:
        return None
    return Point(round(columns[0]), round(rows[0])), pitch_x, pitch_y, offset


def _pitch(levels: list[float]) -> float:
    """The step of a row of evenly spaced positions, some missing: the smallest step between two found, refined
    over the whole span (from the first to the last, in as many of those steps as it holds)."""
    smallest = float(np.diff(levels).min())
    return (levels[-1] - levels[0]) / max(1, round((levels[-1] - levels[0]) / smallest))


def _levels(values: list[float], tolerance: float) -> list[float]:
    """The distinct positions among `values` (those within `tolerance` of the last one taken as one), sorted."""
    levels: list[list[float]] = []
    for value in sorted(values):
        if levels and value - levels[-1][-1] <= tolerance:
            levels[-1].append(value)
        else:
            levels.append([value])
    return [float(np.mean(level)) for level in levels]


def _column_count(columns: list[float], pitch: float) -> int:
    """How many columns a grid of this pitch spans from its first to its last."""
    return round((columns[-1] - columns[0]) / pitch) + 1


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

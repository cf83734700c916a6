"""Widgets of a whole screen from their outlines, named by the OCR text they hold: buttons (a frame around centred
text), input fields (a frame that is empty or holds left-aligned text), dropdowns (left-aligned text and an arrow
at the right end), check boxes and radio circles (with the label beside them). No model: edges, and the text lines
OCR has already read."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from deskpilot.core.geometry import Box, reading_order, shared_areas
from deskpilot.core.observation import ElementRole, ElementSource, parted_field

from .ocr import TextLine
from .short_text import short_text_over
from .widgets import TOGGLE_MIN, edge_map, round_toggle, toggle_checked, toggle_shaped

CONTROL_MIN_H, CONTROL_MAX_H, CONTROL_MIN_W = 14, 120, 20
BUTTON_MAX_SIDE = 400  # a big frame is a control only as a button: centred text and nothing else
SAME_BOX_IOU = 0.7
CENTRED = 0.18  # text whose centre is this share of the width from the frame's centre is centred
INK_CONTRAST = 60  # grey levels from the frame's inside colour that count as a drawn mark
SPLIT_GAP, SPLIT_INSET = 3, 4  # pixels: a text cursor's width, and a frame's border and padding
LINE_START_SLACK = 2  # pixels a check box OCR read into its label's line may start after the line's left end
ARROW_GLYPHS = "vV√▾▼⌄˅"  # what OCR reads a drop-down's arrow as
ARROW_END = 6  # pixels from a frame's right side within which a line ending in an arrow glyph ends
TEXT_OUTLINE = 3  # pixels around a text line within which a closed outline is the text's own, not a control's
TEXT_OUTLINE_WIDTH = 0.4  # of the field around it, such an outline's width at most
ARROW_GAP = 4  # columns without marks between a drop-down's value and its arrow, at least (letters: 1-2)
ARROW_HEIGHT = 0.75  # of its text's height, a drop-down's arrow at most (a web select's chevron: 5 of 9 rows)
CLOSED = 0.85  # share of an outline's sides (or of a circle) that must be drawn for it to count as a frame
RADIO_IN_LINE = 0.75  # of a text line's height, a circle inside the line at least this tall is a radio button
RING_GLYPHS = "OQ0°"  # what OCR reads a radio button's ring as (a letter "o" is no taller than "x")
RING_SLACK = 2  # pixels around a ring where the character OCR read it as may stand
AREA_LINES = 2.5  # of its text's line height, a text area's frame is at least this tall
AREA_ALIGN = 6  # pixels: the lines of a text area start this close to one another's left end
BORDER_REACH = 3  # pixels either side of an outline within which a field's drawn border lies
BORDER_EVEN = 24  # grey levels: a drawn border is one colour on all four sides, its sides' medians this close
BORDER_CONTRAST = 20  # grey levels between a drawn border and the inside it frames, at least


@dataclass(frozen=True)
class Widget:
    """A control found on the screen; `box` in image pixels."""

    box: Box
    role: ElementRole
    text: str = ""
    checked: bool | None = None
    score: float = 1.0
    source: ElementSource = "layout"
    vertical: bool = False  # a slider that runs up and down


def find_widgets(image: np.ndarray, lines: list[TextLine],
                 outlines: list[tuple[Box, bool]] | None = None) -> list[Widget]:
    """Every control outline on the image, in reading order; `outlines` are the image's (`frames`), where the
    caller has them already (they depend on the pixels alone, not on the lines)."""
    toggles: list[Widget] = []
    controls: list[Widget] = []
    outlines = frames(image) if outlines is None else outlines
    for (box, round_), in_text in zip(outlines, _in_wider_text(outlines, lines)):
        if in_text:
            continue
        if toggle_shaped(box):
            if not any(_contains(t.box, box) for t in toggles) and not short_text_over(image, box, lines):
                toggles.append(_toggle(image, box, lines, round_))
        elif CONTROL_MIN_H <= box.height <= BUTTON_MAX_SIDE and box.width >= max(CONTROL_MIN_W, box.height * 0.6):
            control = _control(image, box, lines)
            if control is not None and (box.height <= CONTROL_MAX_H or (control.role == "button" and control.text)
                                        or (control.role == "input" and bool(control.text))):  # a text area
                controls.append(control)
    # Frames side by side that fill another's inside are that control's inside split (a field's text cursor), not
    # controls; a frame around other controls is a container (a tab bar, a toolbar), not a control itself.
    boxes = [c.box for c in controls]
    controls = [c for c in controls if not _split_part(c.box, boxes)]
    # A frame that no more than holds a text line, at the start of a much wider field's inside, is that text's own
    # outline (a web field's "77341" closed by its text cursor, inside the focus ring): no control, and no reason to
    # take the field for a container. (A small control in its focus ring fills the ring: that is the control.)
    outlines_of_text = [c for c in controls if any(o is not c and _contains(o.box, c.box)
                                                    and o.box.width > 4 * o.box.height
                                                    and c.box.width < TEXT_OUTLINE_WIDTH * o.box.width
                                                    and o.box.height - c.box.height <= 2 * SPLIT_INSET
                                                    and c.box.x0 - o.box.x0 <= SPLIT_INSET for o in controls)
                        and any(c.box.share_in(ln.box.padded(TEXT_OUTLINE)) == 1 for ln in lines)]
    controls = [c for c in controls if not any(o is c for o in outlines_of_text)]
    controls = [c for c in controls if not _after_caret(c.box, [o.box for o in controls], lines)]
    # A frame drawn a few pixels inside another with text (a web select's own border within its margin or focus
    # ring) holds no text of its own: OCR's line ran over its border. The outer frame, read with the text, is the
    # control; the inner one is its border, not a control inside it.
    controls = [c for c in controls if c.text or not any(
        o is not c and o.text and _contains(o.box, c.box) and _inset(o.box, c.box) <= SPLIT_INSET for o in controls)]
    controls = [c for c in controls if not any(o is not c and _contains(c.box, o.box) for o in controls)]
    toggles = [t for t in toggles if not any(_contains(c.box, t.box) for c in controls)]
    return sorted(toggles + controls, key=lambda w: reading_order(w.box))


def _split_part(box: Box, boxes: list[Box]) -> bool:
    """Whether `box` fills the inside of another of `boxes` from top to bottom beside a neighbour as tall, with at
    most SPLIT_GAP pixels between them: a field split by its text cursor's line (OCR's caret), or a drop-down by
    its arrow's edge."""
    outers = [o for o in boxes if _contains(o, box) and box.y0 - o.y0 <= SPLIT_INSET and o.y1 - box.y1 <= SPLIT_INSET]
    return any(_contains(o, other) and other != box and abs(other.y0 - box.y0) <= 2 and abs(other.y1 - box.y1) <= 2
               and min(abs(other.x0 - box.x1), abs(box.x0 - other.x1)) <= SPLIT_GAP for o in outers for other in boxes)


def _inset(outer: Box, inner: Box) -> int:
    """How far `inner` stands inside `outer` at its farthest side, in pixels."""
    return max(inner.x0 - outer.x0, inner.y0 - outer.y0, outer.x1 - inner.x1, outer.y1 - inner.y1)


def _after_caret(box: Box, boxes: list[Box], lines: list[TextLine]) -> bool:
    """Whether `box` is the inside of a field right of its text cursor: it fills another of `boxes` from top to
    bottom up to its right side, and starts where a text line inside it ends (the cursor's line closed it off; the
    text's own part, its edges broken by the letters, forms no frame as tall, so `_split_part` finds no pair)."""
    outers = [o for o in boxes if _contains(o, box) and box.y0 - o.y0 <= SPLIT_INSET and o.y1 - box.y1 <= SPLIT_INSET
              and o.x1 - box.x1 <= SPLIT_INSET and box.x0 - o.x0 > SPLIT_INSET]
    return any(o.x0 <= ln.box.x0 and 0 <= box.x0 - ln.box.x1 <= SPLIT_GAP + 1 and ln.box.y0 >= o.y0
               and ln.box.y1 <= o.y1 for o in outers for ln in lines)


def _in_wider_text(outlines: list[tuple[Box, bool]], lines: list[TextLine]) -> np.ndarray:
    """Per outline: whether half of it or more lies in a text line at least 1.5 times as wide. Letters like o, e, 0
    and D are closed outlines too; a control holds or sits beside text, not in it. (OCR also reads a lone radio
    circle as "O": a line no wider than the outline does not count.) A square whose four sides are drawn at a line's
    very start, that starts before the line does, or that ends before the line's first character begins, is a check
    box OCR read into its label's line (Tk's), not a letter. A circle nearly as tall as the line it lies in is a
    radio button OCR read into a line of labels ("Paid withOCompanycardOOwn money" on a web page): an "O" of the
    text stands no taller than its capitals, well short of the line's box, which holds the descenders too."""
    if not outlines or not lines:
        return np.zeros(len(outlines), bool)
    outer = np.array([box for box, _ in outlines], np.int64)
    square = np.array([not round_ and toggle_shaped(box) for box, round_ in outlines])
    text = np.array([line.box for line in lines], np.int64)
    width = outer[:, 2] - outer[:, 0]
    share = shared_areas(outer, text) / np.maximum(width * (outer[:, 3] - outer[:, 1]), 1)[:, None]
    first = np.array([_first_letter_x(line) for line in lines], np.int64)
    leading = square[:, None] & ((outer[:, 0:1] - text[None, :, 0] <= LINE_START_SLACK) |
                                 (outer[:, 2:3] <= first[None, :]))
    # a circle that sticks out left of the line (an "O" at a line's start lies within it): a radio button beside it
    circle = np.array([round_ and toggle_shaped(box) for box, round_ in outlines])
    leading |= circle[:, None] & (outer[:, 0:1] < text[None, :, 0])
    height = outer[:, 3] - outer[:, 1]
    tall = circle[:, None] & (height[:, None] >= RADIO_IN_LINE * (text[None, :, 3] - text[None, :, 1]))
    for o, t in zip(*np.nonzero(tall)):
        leading[o, t] = _read_as_ring(lines[t], outlines[o][0])
    return np.asarray(((share >= 0.5) & (text[:, 2] - text[:, 0] >= 1.5 * width[:, None]) & ~leading).any(axis=1))


def _read_as_ring(line: TextLine, box: Box) -> bool:
    """Whether OCR read what stands in `box` on the line as a ring ("O", "0", "Q") or as nothing (a gap between
    its characters): a radio button read into a line of labels is; the "(3)" of "Inbox (3)", as closed and as tall,
    is not."""
    if line.char_boxes and len(line.char_boxes) == len(line.text):
        over = [ch for b, ch in zip(line.char_boxes, line.text)
                if not ch.isspace() and box.x0 - RING_SLACK <= (b.x0 + b.x1) / 2 <= box.x1 + RING_SLACK]
    else:
        per_char = line.box.width / max(len(line.text), 1)
        first = int((box.x0 - line.box.x0) / per_char) - 1
        over = [ch for ch in line.text[max(0, first):int((box.x1 - line.box.x0) / per_char) + 2] if not ch.isspace()]
    return not over or any(ch in RING_GLYPHS for ch in over)


def _first_letter_x(line: TextLine) -> int:
    """Where the line's first character starts (its character boxes; the line's left end without them)."""
    start = next((index for index, char in enumerate(line.text) if not char.isspace()), None)
    return line.box.x0 if start is None else line.span_box(start, start + 1).x0


def _distinct(boxes: list[Box]) -> list[int]:
    """Indices of the boxes to keep, biggest first: each unless it overlaps a bigger kept one (IoU >= SAME_BOX_IOU)."""
    order = sorted(range(len(boxes)), key=lambda i: -boxes[i].area)
    if not order:
        return []
    ranked = np.array([boxes[i] for i in order], np.int64)
    shared = shared_areas(ranked, ranked)
    areas = (ranked[:, 2] - ranked[:, 0]) * (ranked[:, 3] - ranked[:, 1])
    total = areas[:, None] + areas[None] - shared
    same = shared / np.maximum(total, 1) >= SAME_BOX_IOU
    kept, covered = [], np.zeros(len(order), bool)
    for rank in range(len(order)):
        if not covered[rank]:
            kept.append(order[rank])
            covered |= same[rank]
    return kept


def _contains(outer: Box, inner: Box) -> bool:
    return outer.x0 <= inner.x0 and outer.y0 <= inner.y0 and outer.x1 >= inner.x1 and outer.y1 >= inner.y1 \
        and outer != inner


def frames(image: np.ndarray) -> list[tuple[Box, bool]]:
    """Closed frames drawn on the image: rectangles whose four sides are drawn, and circles (flagged True).
    The inner and outer edge of one border come out as nearly equal boxes; only the outer one is kept."""
    edges = edge_map(image)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    found: list[tuple[Box, bool]] = []
    touching: list[Box] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < TOGGLE_MIN or h < TOGGLE_MIN:
            continue
        box = Box(x, y, x + w, y + h)
        if _sides_closed(edges, box):
            found.append((box, False))
        elif abs(w - h) <= 3 and _circle_drawn(edges, box) >= CLOSED:
            found.append((box, True))
        elif min(w, h) >= CONTROL_MIN_H and max(w, h) <= 2 * BUTTON_MAX_SIDE:
            touching += [part.shifted(box.x0, box.y0)
                         for part in _touching_frames(edge_map(image[box.y0:box.y1, box.x0:box.x1]))]
    found += [(part, False) for part in touching if not any(part.iou(other) > 0.5 for other, _ in found)]
    return [found[i] for i in _distinct([box for box, _ in found])]


def _touching_frames(thick: np.ndarray) -> list[Box]:
    """The frames inside an outline that is none itself (`thick`: the edge map of its box drawn afresh, where the
    whole screen's may join what the box's own keeps apart; boxes in its pixels):
    frames set so close that their edges touch (a field a few pixels above the next, corner to corner) join into one
    outline, but each still closes its inside off. Every part of the inside enclosed by edges, grown by the border
    around it, is a frame where its four sides are drawn."""
    count, _, stats, _ = cv2.connectedComponentsWithStats((thick == 0).astype(np.uint8), connectivity=4)
    height, width = thick.shape
    whole = Box(0, 0, width, height)
    frames = []
    for x, y, w, h, _ in stats[1:count]:
        inside = Box(int(x), int(y), int(x + w), int(y + h))
        part = inside.padded(BORDER_REACH, whole)
        enclosed = x > 0 and y > 0 and x + w < width and y + h < height  # not open to the outline's outside
        if enclosed and min(w, h) >= CONTROL_MIN_H - 2 * BORDER_REACH and w >= 2 * CONTROL_MIN_W and part != inside \
                and _sides_closed(thick, part):
            frames.append(part)
    return frames


def _sides_closed(edges: np.ndarray, box: Box, band: int = 3) -> bool:
    """Whether each of a box's four sides has an edge pixel near it along at least CLOSED of its length (looked at
    side by side, up to the first that has not)."""
    sides = ((edges[box.y0:box.y0 + band, box.x0:box.x1], 0), (edges[box.y1 - band:box.y1, box.x0:box.x1], 0),
             (edges[box.y0:box.y1, box.x0:box.x0 + band], 1), (edges[box.y0:box.y1, box.x1 - band:box.x1], 1))
    return all(side.any(axis=axis).mean() >= CLOSED for side, axis in sides)


def _circle_drawn(edges: np.ndarray, box: Box) -> float:
    """The share of the circle inscribed in `box` that has an edge pixel on or next to it."""
    cx, cy, r = (box.x0 + box.x1 - 1) / 2, (box.y0 + box.y1 - 1) / 2, (min(box.width, box.height) - 1) / 2
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    hits = 0
    for a in angles:
        px, py = cx + (r - 1) * np.cos(a), cy + (r - 1) * np.sin(a)
        x0, y0 = int(round(px)) - 1, int(round(py)) - 1
        hits += bool(edges[max(0, y0):y0 + 3, max(0, x0):x0 + 3].any())
    return hits / len(angles)


def _inside(line: TextLine, box: Box) -> bool:
    cx, cy = (line.box.x0 + line.box.x1) / 2, (line.box.y0 + line.box.y1) / 2
    return box.x0 <= cx <= box.x1 and box.y0 <= cy <= box.y1 and line.box.width <= box.width + 4


def _toggle(image: np.ndarray, box: Box, lines: list[TextLine], round_: bool) -> Widget:
    """A check box or radio circle, named by the nearest text to its right on the same row."""
    role: ElementRole = "radio" if round_ and round_toggle(image, box) else "checkbox"  # a filled square's edges
    # can read as a circle's; its inked corners do not
    return Widget(box, role, label_beside(box, lines), toggle_checked(image, box))


def label_beside(box: Box, lines: list[TextLine]) -> str:
    """The nearest text to the right of a small control on the same row (a check box's label), or ""."""
    cy = (box.y0 + box.y1) / 2
    # OCR sometimes reads the box into the line (its left end then lies over the box): what counts is that the
    # text runs on to the right.
    beside = [ln for ln in lines if ln.box.x0 >= box.x0 - 6 and ln.box.x1 > box.x1 + 4
              and ln.box.x0 - box.x1 <= 3 * max(box.width, 12) and ln.box.y0 - 4 <= cy <= ln.box.y1 + 4]
    return min(beside, key=lambda ln: ln.box.x0).text if beside else ""


def text_inside(box: Box, lines: list[TextLine]) -> list[TextLine]:
    """The OCR lines whose centre lies in `box` (and that are not much wider than it)."""
    return [ln for ln in lines if _inside(ln, box)]


def _control(image: np.ndarray, box: Box, lines: list[TextLine]) -> Widget | None:
    inside = text_inside(box, lines)
    # OCR sometimes reads a dropdown's arrow as a character of its own ("v", "√") at the right end.
    arrow = [ln for ln in inside if len(ln.text) <= 2 and ln.box.x0 >= box.x1 - 1.5 * box.height]
    if arrow and len(arrow) < len(inside):
        return Widget(box, "dropdown", " ".join(ln.text for ln in inside if ln not in arrow))
    text = " ".join(ln.text for ln in inside)
    arrow_end = Box(box.x1 - box.height, box.y0 + 3, box.x1 - 3, box.y1 - 3)
    # ... or as the last character of a short value's line ("Sv": a small web drop-down showing "S"), which then
    # runs to the frame's right end, where a centred button's name never does
    if len(inside) == 1 and len(text) >= 2 and text[-1] in ARROW_GLYPHS and inside[0].box.x1 >= box.x1 - ARROW_END \
            and inside[0].span_box(len(text) - 1, len(text)).x0 >= box.x1 - 1.5 * box.height:
        return Widget(box, "dropdown", text[:-1].rstrip())
    if not inside:
        # Unread marks at the left (password dots, a caret, a value of one letter OCR leaves unread) are a field's
        # content, and with a mark at the right end (its arrow) a drop-down's; a centred mark is an icon.
        marks = _ink_columns(image, Box(box.x0, box.y0, arrow_end.x0 - 1, box.y1))
        if box.width > 4 * box.height and _ink(image, arrow_end) and (
                marks is None or marks[1] < box.x0 + 0.5 * box.width):
            return Widget(box, "dropdown")
        ink = _ink_columns(image, box)
        return Widget(box, "input" if ink is None or ink[1] < box.x0 + 0.5 * box.width else "button")
    if _text_area(box, inside) and _bordered(image, box):
        return Widget(box, "input", text)
    if len(inside) > 1 and parted_field(" ".join(ln.text for ln in inside)) and \
            max(ln.box.y0 for ln in inside) < min(ln.box.y1 for ln in inside):
        # a date or time field's empty parts ("--:-- --") read as pieces on one row: one field, not a panel
        return Widget(box, "input", " ".join(ln.text for ln in sorted(inside, key=lambda ln: ln.box.x0)))
    left, right = min(ln.box.x0 for ln in inside), max(ln.box.x1 for ln in inside)
    top, bottom = min(ln.box.y0 for ln in inside), max(ln.box.y1 for ln in inside)
    if abs((top + bottom) / 2 - (box.y0 + box.y1) / 2) > CENTRED * box.height:
        return None  # text at the top of a frame: a panel or a heading, not a control
    offset = abs((left + right) / 2 - (box.x0 + box.x1) / 2)
    # Text filling a wide frame from its left padding is a field's value, even when it happens to look centred.
    fills_from_left = box.width > 4 * box.height and left - box.x0 <= max(12, 0.05 * box.width)
    if offset <= CENTRED * box.width and len(inside) <= 2 and not fills_from_left:
        # a small web select ("EUR" and its arrow, read as one line across the frame) looks centred like a button
        return Widget(box, "dropdown" if _arrow_after_text(image, box) else "button", text)
    if len(inside) > 1:
        return None  # several lines in a frame, not centred like a button's: a panel of text, not a control
    if right < arrow_end.x0 - 2 and _ink(image, arrow_end) or right >= arrow_end.x0 - 2 and fills_from_left:
        return Widget(box, "dropdown", text)
    return Widget(box, "input", text)


def _text_area(box: Box, inside: list[TextLine]) -> bool:
    """Whether a frame holding these lines is a text area (a web page's textarea, a notes box) rather than a panel,
    a list or a button: several line heights tall, its text set from its top left corner as a field's value is,
    every line from the same left end, one under another with no gap wider than a line, and a sentence wrapped (the
    next line goes on in lower case with a word that would not have fitted after the line: a paragraph, where a
    list's items, however long, each start anew). A small one, two lines tall, shows its text cut off at its bottom
    side (it scrolls): there a line going on in lower case is enough (a text area's columns may wrap a word early)."""
    if box.height > BUTTON_MAX_SIDE or len(inside) < 2:
        return False
    lines = sorted(inside, key=lambda ln: ln.box.y0)
    height = float(np.median([ln.box.height for ln in lines]))
    left = min(ln.box.x0 for ln in lines)
    pad = max(12.0, height)
    cut = lines[-1].box.y1 >= box.y1 - SPLIT_INSET  # the last line runs into the frame's bottom side
    sentence = any(_wrapped(a, b, box) for a, b in zip(lines, lines[1:])) or \
        cut and any(line.text[:1].islower() for line in lines[1:])
    return (box.height >= AREA_LINES * height or cut) and box.width >= 3 * height and left - box.x0 <= pad \
        and lines[0].box.y0 - box.y0 <= pad and all(ln.box.x0 - left <= AREA_ALIGN for ln in lines) \
        and all(b.box.y0 - a.box.y1 <= height for a, b in zip(lines, lines[1:])) and sentence


def _wrapped(line: TextLine, following: TextLine, box: Box) -> bool:
    """Whether `following` goes on with the sentence of `line` (it starts in lower case) where its first word, set
    after `line` with a space, would have run past the frame's right side, less a line's height (room a scroll bar
    may take)."""
    word = following.text.split()[0] if following.text.split() else ""
    start = following.text.find(word)
    width = following.span_box(start, start + len(word)).width if word else 0
    space = line.box.height // 3
    return word[:1].islower() and line.box.x1 + space + width > box.x1 - line.box.height


def _bordered(image: np.ndarray, box: Box) -> bool:
    """Whether a frame is a border drawn around its inside, one colour on all four sides (a field's), rather than
    the edge of a coloured region: a task's yellow box on a page, whose outside is whatever lies around it, or a
    block of selected text, whose outside is one colour but no line. Each side is looked for within BORDER_REACH
    pixels of the outline, as the line that stands out most from the inside, and must stand out from what lies two
    pixels further out too."""
    pad = BORDER_REACH + 2  # as far as a side is looked for outwards, and two pixels beyond
    if box.width <= 2 * pad or box.height <= 2 * pad:
        return False
    area = box.padded(pad, Box(0, 0, image.shape[1], image.shape[0]))
    gray = cv2.cvtColor(image[area.y0:area.y1, area.x0:area.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    height, width = gray.shape
    box = box.shifted(-area.x0, -area.y0)  # in the crop's pixels
    inside = int(np.median(gray[box.y0 + pad:box.y1 - pad, box.x0 + pad:box.x1 - pad]))
    xs, ys = slice(box.x0 + pad, box.x1 - pad), slice(box.y0 + pad, box.y1 - pad)

    def side_at(side: int, k: int) -> int | None:
        """The median grey of one side's line `k` pixels inside the outline (outside where negative)."""
        if not (0 <= box.x0 + k and box.x1 - 1 - k < width and 0 <= box.y0 + k and box.y1 - 1 - k < height):
            return None
        line = (gray[box.y0 + k, xs], gray[box.y1 - 1 - k, xs], gray[ys, box.x0 + k], gray[ys, box.x1 - 1 - k])[side]
        return int(np.median(line))

    sides = []
    for side in range(4):
        found = [(m, k) for k in range(-BORDER_REACH, BORDER_REACH) if (m := side_at(side, k)) is not None]
        if not found:
            return False
        drawn, at = max(found, key=lambda found_at: abs(found_at[0] - inside))
        beyond = side_at(side, at - 2)
        if beyond is not None and abs(beyond - drawn) < BORDER_CONTRAST // 2:
            return False  # no line: the colour runs on outwards (the edge of a region)
        sides.append(drawn)
    return max(sides) - min(sides) <= BORDER_EVEN and min(abs(side - inside) for side in sides) >= BORDER_CONTRAST


def ink_box(image: np.ndarray, box: Box) -> Box | None:
    """The bounds of the marks inside a frame (None when its inside is plain); the inset skips thick focus rings."""
    inset = max(4, box.height // 6)
    inner = image[box.y0 + inset:box.y1 - inset, box.x0 + inset:box.x1 - inset]
    if inner.size == 0:
        return None
    gray = cv2.cvtColor(inner, cv2.COLOR_RGB2GRAY).astype(np.int16)
    marked = np.abs(gray - int(np.median(gray))) > INK_CONTRAST
    rows, columns = np.flatnonzero(marked.any(axis=1)), np.flatnonzero(marked.any(axis=0))
    if len(columns) == 0:
        return None
    x0, y0 = box.x0 + inset, box.y0 + inset
    return Box(x0 + int(columns[0]), y0 + int(rows[0]), x0 + int(columns[-1]) + 1, y0 + int(rows[-1]) + 1)


def _ink_columns(image: np.ndarray, box: Box) -> tuple[int, int] | None:
    """The leftmost and rightmost image column with marks inside a frame (None when its inside is plain)."""
    ink = ink_box(image, box)
    return None if ink is None else (ink.x0, ink.x1 - 1)


def _arrow_after_text(image: np.ndarray, box: Box) -> bool:
    """Whether a frame's marks end, apart from the text before them and within a frame's height of its right side,
    in a drop-down's arrow: shorter than the text and narrowing downwards (a chevron or a triangle, which OCR reads
    as no character), the text set from the frame's left as a value is (a sorted table column's header centres
    its name before the same triangle)."""
    inner = box.padded(-2)
    if inner.width < 3 * box.height // 2 or inner.height < 6:
        return False
    gray = cv2.cvtColor(image[inner.y0:inner.y1, inner.x0:inner.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    ink = _without_border_lines(np.abs(gray - int(np.median(gray))) > INK_CONTRAST)
    columns = np.flatnonzero(ink.any(axis=0))
    if len(columns) < 2:
        return False
    breaks = np.flatnonzero(np.diff(columns) >= ARROW_GAP)
    if not len(breaks):
        return False
    start = columns[breaks[-1] + 1]
    arrow, text = ink[:, start:columns[-1] + 1], ink[:, :columns[breaks[-1]] + 1]
    rows, text_rows = np.flatnonzero(arrow.any(axis=1)), np.flatnonzero(text.any(axis=1))
    if inner.x0 + start < box.x1 - box.height or arrow.shape[1] > box.height or len(rows) < 2 or \
            inner.x0 + columns[0] - box.x0 > box.height // 2:
        return False
    top, bottom = (np.ptp(np.flatnonzero(arrow[row])) + 1 for row in (rows[0], rows[-1]))  # how wide it spans
    return bool(len(rows) <= ARROW_HEIGHT * (text_rows[-1] - text_rows[0] + 1) and top >= 2 * bottom)


def _without_border_lines(ink: np.ndarray) -> np.ndarray:
    """`ink` with the lines of a frame drawn inside the one looked in cleared: rows and columns near its sides that
    are drawn nearly all along (a select's own border within the focus ring or margin frame around it)."""
    ink = ink.copy()
    for axis, size in ((0, ink.shape[0]), (1, ink.shape[1])):
        near = np.zeros(size, bool)
        near[:BORDER_REACH + 1] = near[-(BORDER_REACH + 1):] = True
        drawn = near & (ink.mean(axis=1 - axis) >= CLOSED)
        if axis == 0:
            ink[drawn, :] = False
        else:
            ink[:, drawn] = False
    return ink


def _ink(image: np.ndarray, region: Box) -> bool:
    """Whether something is drawn in `region` (an arrow glyph) against its own background."""
    if region.width < 3 or region.height < 3:
        return False
    gray = cv2.cvtColor(image[region.y0:region.y1, region.x0:region.x1], cv2.COLOR_RGB2GRAY).astype(np.int16)
    return bool((np.abs(gray - int(np.median(gray))) > INK_CONTRAST).mean() > 0.02)

"""The OCR grounder: text elements from PP-OCR, re-reading only the parts of the screen that changed since the
last frame, plus the controls drawn around and beside that text (grounding.layout), a button the read of the whole
frame left unnamed read again alone (a lone digit or letter is easily missed among the rest of the screen: a tab
row "1 2 3 4 5 6", a keypad); `locate` for descriptions like 'the Save button', 'Full name field', '"Remember me"
checkbox', 'the 2nd text field' or 'the link "Home"'."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box, reading_order
from deskpilot.core.observation import Element, ElementRole, Observation

from .calendar import month_arrows
from .changes import changed_regions, merge_boxes
from .colours import fill_colour, fits
from .controls import detected_widgets, field_beside, merge_controls, toggle_before
from .description import TargetSpec, nth, of_its_lines, parse_description
from .detector import UiDetector
from .layout import Widget, find_widgets, frames, ink_box, label_beside
from .short_text import short_texts
from .sibling_toggles import sibling_toggles
from .sliders import VALUE_REACH, Slider, find_sliders
from .spin_buttons import step_buttons
from .ocr import OcrEngine, TextLine
from .task_echoes import echoes_task, part_of_task, quoted_at
from .text_match import SQUASHED, match_text
from .widgets import find_field, find_toggle, label_for_field, rectangles, toggle_checked, toggle_shaped

FULL_FRAME_SHARE = 0.45  # re-read the whole frame when more than this share of it changed
TOUCH_PAD = 2  # an old line this close to a change is re-read with it
READ_PAD = 6  # context around a changed region given to OCR
FRESH_BONUS = 0.04  # among near-equal matches, prefer text that just appeared (an opened menu or popup)
LABEL_BONUS = 0.04  # for a field asked for by its label, prefer the words that label a field the outlines found
ADDRESS_TEXT = re.compile(r"^(?:/|~/|[a-z][a-z0-9+.-]*://|www\.|file:)", re.I)  # a path or a URL, as address bars show
WHOLE_LINE_SHARE = 0.6  # of a line's characters a phrase must cover to stand for the control around the line
TITLE_BAR = 40  # screen pixels above a window's own area where a window manager draws its title
OWN_COLOUR = 50  # text whose ink keeps this much colour of its own (RGB distance) apart from the background is a link
EXTRA_TEXT_COST, EXTRA_TEXT_MAX = 0.002, 0.1  # per character of a line around a phrase found inside it
CASE_COST = 0.03  # "eget" for "Eget": the same word, but another element when both are on the screen
PART_OVERLAP = 0.3  # of a line's width, the overlap with a longer line holding its text that makes it a part read again
COLOUR_IN_LINE = 2  # line heights beside a text line within which a swatch is part of that line
UNNAMED_READS = 16  # unnamed buttons read alone per parse, at most (a few ms each)
UNNAMED_READ_SCORE = 0.5  # a reading of an unnamed button's inside this sure or more names it
UNNAMED_PAD = 4  # pixels around the marks inside an unnamed button given to the recogniser
TOGGLE_ROW_SHARE = 0.6  # of a toggle's height on a text line's row (and of the line's height): it may run over it
SAME_TOGGLE_IOU = 0.6  # an outline drawn now this much over a toggle found before: the toggle is still there
DRAWN_LOOSE = 1.25  # a detected toggle's box may run a few pixels past the drawn square
TOGGLE_GAP = 2  # pixels left out beside a toggle when its line is read again in parts
MIN_PART_SHARE = 0.4  # a part narrower than this share of the line's height holds no character
BORDER_STEP = 40  # grey levels between neighbouring columns that make a frame's side
BORDER_RUN = 0.95  # share of the rows, the line's and half its height above and below, a frame's side runs through
UNNAMED_ROLES = ("input", "dropdown", "button", "checkbox", "radio", "icon", "slider", "tab", "menu_item", "list_item",
                 "link")


class OcrGrounder:
    def __init__(self, engine: OcrEngine | None = None, incremental: bool = True, detector: UiDetector | None = None):
        self.engine = engine or OcrEngine()
        self.incremental = incremental
        self.detector = detector
        self._image: np.ndarray | None = None
        self._lines: list[TextLine] = []
        self._widgets: list[Widget] | None = None
        self._toggles: list[Box] = []  # the check boxes and radio buttons of the last frame whose controls were found
        self._link_words: list[tuple[TextLine, str, Box]] | None = None
        self._task = ""
        self._fresh: set[int] = set()
        self._read_whole = False  # the lines come from a read of the whole frame, not of its changed parts
        self.last_read_area = 0.0  # share of the frame OCR'd by the last parse (for benchmarks and logs)
        self.timing: dict[str, float] = {}

    def load(self) -> None:
        self.engine.load()

    def set_task(self, task: str) -> None:
        """Lines that repeat the task's own words (the task shown on the screen, in a chat or a note) are never
        targets: 'Select Iceland from the list' on the screen is not the Iceland option."""
        self._task = task

    def parse(self, obs: Observation) -> list[Element]:
        self.timing = {"ocr_detect_ms": 0.0, "ocr_recognise_ms": 0.0, "layout_ms": 0.0, "detector_ms": 0.0}
        self._update(obs.image)
        controls = self._controls(obs.image)  # first: a line run over a check box is read again in parts
        return [self._element(obs, line, line.box) for line in self._lines] + \
            [self._element(obs, TextLine(box, word, line.score), box, "link")
             for line, word, box in self._links(obs.image)] + \
            [self._widget_element(obs, w) for w in controls]

    def _element(self, obs: Observation, line: TextLine, box: Box, role: ElementRole = "text") -> Element:
        return Element(obs.monitor.image_box_to_screen(box), role, line.text, line.score, "ocr")

    def _widget_element(self, obs: Observation, widget: Widget, text: str | None = None) -> Element:
        return Element(obs.monitor.image_box_to_screen(widget.box), widget.role,
                       widget.text if text is None else text, widget.score, widget.source, widget.checked,
                       vertical=widget.vertical)

    def _links(self, image: np.ndarray) -> list[tuple[TextLine, str, Box]]:
        """Coloured words inside longer lines (links in running text), each with its own box."""
        if self._link_words is None:
            self._link_words = []
            for line in self._lines:
                words = list(re.finditer(r"\S+", line.text))
                for word in words if len(words) > 1 else []:
                    box = line.span_box(word.start(), word.end())
                    if colourful(image, box):
                        self._link_words.append((line, word.group(), box))
        return self._link_words

    def _controls(self, image: np.ndarray) -> list[Widget]:
        if self._widgets is None:
            started = time.perf_counter()
            outlines = frames(image)  # the pixels' alone: the same for the second naming after a split
            widgets = self._named(image, find_widgets(image, self._lines, outlines)) + month_arrows(image, self._lines)
            sliders = self._sliders(image, widgets)
            laid_out = time.perf_counter()
            detections = self.detector.detect(image) if self.detector is not None else []
            inferred = time.perf_counter()
            detected = detected_widgets(image, detections, self._lines)
            siblings = sibling_toggles(image, widgets + detected, self._lines)
            if self._split_at_controls(image, widgets + detected + siblings, [s.handle for s in sliders]):
                # the labels read apart now: name again
                widgets = self._named(image, find_widgets(image, self._lines, outlines)) + \
                    month_arrows(image, self._lines)
                sliders = self._sliders(image, widgets)
                detected = detected_widgets(image, detections, self._lines)
                siblings = [replace(s, text=label_beside(s.box, self._lines)) for s in siblings
                            if not any(s.box.iou(w.box) > SAME_TOGGLE_IOU for w in widgets + detected)]
            detected += siblings
            merged = merge_controls(widgets, detected) if detected else widgets
            # a slider's handle and track are found as small fields and boxes too: the slider is what they are
            sliders = [s.in_a_field([w.box for w in merged if w.role in ("input", "dropdown")]) for s in sliders]
            merged = [w for w in merged if not any(w.box.share_in(s.extent.padded(2)) > 0.8 for s in sliders)]
            self._widgets = merged + [s.widget for s in sliders] + step_buttons(image, merged, self._lines)
            self._toggles = _toggle_boxes(self._widgets)
            self.timing["layout_ms"] = self.timing.get("layout_ms", 0.0) + \
                (laid_out - started + time.perf_counter() - inferred) * 1000
            self.timing["detector_ms"] = self.timing.get("detector_ms", 0.0) + (inferred - laid_out) * 1000
        return self._widgets

    def _sliders(self, image: np.ndarray, widgets: list[Widget]) -> list[Slider]:
        """The sliders on the image, none named by a field's text; where one shows no number read, its row right of
        the track is read for a short one (a re-read of the changed parts of the screen may leave the number a drag
        changed unread)."""
        fields = [w.box for w in widgets if w.role in ("input", "dropdown")]
        sliders = [s.in_a_field(fields) for s in find_sliders(image, self._lines)]
        rows = [Box(s.track.x1, s.handle.y0, min(image.shape[1], s.track.x1 + VALUE_REACH * s.handle.height),
                    s.handle.y1) for s in sliders if not s.value]
        found = short_texts(image, [row for row in rows if row.width > 4], self._lines, self._readings) if rows else []
        if not found:
            return sliders
        fresh = {id(self._lines[i]) for i in self._fresh} | {id(line) for line in found}
        self._lines = sorted(self._lines + found, key=lambda ln: reading_order(ln.box))
        self._fresh = {i for i, line in enumerate(self._lines) if id(line) in fresh}
        return [s.in_a_field(fields) for s in find_sliders(image, self._lines)]

    def _split_at_controls(self, image: np.ndarray, widgets: list[Widget], handles: list[Box]) -> bool:
        """Read again, in its parts either side, every text line that runs over a check box, a radio button or one of
        the slider `handles`, into a field from the left, or across a frame's side (an open list over the button
        behind it: "JoinReception"):
        a checked box is a filled square with a white tick, which text detection takes
        for a glyph and joins to the label beside it ("zAHr" with its box read as "Ｋ") or across to the next
        column's label ("PCQ2JfG √9908"); a label set close to its field is joined to the field's text
        ("ceiptnumberR-100" for "Receipt number" and "R-1001"). Whether any line was split."""
        toggles = _toggle_boxes(widgets) + handles  # a slider's handle read as "D" before the number beside it
        fields = [w.box for w in widgets if w.role in ("input", "dropdown") and w.source == "layout"]  # drawn borders
        if not self._lines:
            return False
        frame = Box(0, 0, image.shape[1], image.shape[0])
        cut = [_parts_beside(line.box, toggles, frame) or _parts_across_fields(line.box, fields, frame)
               or _parts_across_border(image, line.box, frame) for line in self._lines]
        whole = [line for line, pieces in zip(self._lines, cut) if pieces is None]
        read = [(index, part) for index, pieces in enumerate(cut) for piece in pieces or []
                for part in self._read_part(image, piece) if not _mostly_inside_any(part.box, whole)]
        kept = {id(part) for part in _fullest([part for _, part in read])}
        lines: list[TextLine] = []
        fresh: set[int] = set()
        for index, (line, pieces) in enumerate(zip(self._lines, cut)):
            parts = [line] if pieces is None else [part for i, part in read if i == index and id(part) in kept]
            if index in self._fresh:
                fresh.update(range(len(lines), len(lines) + len(parts)))
            lines += parts
        split = any(pieces is not None for pieces in cut)
        if split:
            order = sorted(range(len(lines)), key=lambda i: reading_order(lines[i].box))
            self._lines = [lines[i] for i in order]
            self._fresh = {rank for rank, i in enumerate(order) if i in fresh}
            self._link_words = None
        return split

    def _read(self, image: np.ndarray, region: Box, toggles: list[Box]) -> list[TextLine]:
        """The text lines of one region of the image, in image pixels; a line found running over one of these
        toggles is found and read again in its parts beside it."""
        crop = image[region.y0:region.y1, region.x0:region.x1]
        inside = [t.shifted(-region.x0, -region.y0) for t in toggles if region.intersects(t)]
        if not inside:
            lines = self.engine.read(crop)
            for stage, spent in self.engine.last_timing.items():
                self.timing[f"ocr_{stage}"] = self.timing.get(f"ocr_{stage}", 0.0) + spent
            return [line.shifted(region.x0, region.y0) for line in lines]
        started = time.perf_counter()
        whole: list[Box] = []
        parts: list[Box] = []
        for box in self.engine.find_text(crop):
            pieces = _parts_beside(box, inside, Box(0, 0, crop.shape[1], crop.shape[0]))
            whole, parts = (whole + [box], parts) if pieces is None else (whole, parts + pieces)
        detected = time.perf_counter()
        lines = self.engine.read_boxes(crop, whole) + [line for part in parts for line in self._read_part(crop, part)]
        self.timing["ocr_detect_ms"] = self.timing.get("ocr_detect_ms", 0.0) + (detected - started) * 1000
        self.timing["ocr_recognise_ms"] = self.timing.get("ocr_recognise_ms", 0.0) + \
            (time.perf_counter() - detected) * 1000
        return [line.shifted(region.x0, region.y0) for line in lines]

    def _read_part(self, image: np.ndarray, part: Box) -> list[TextLine]:
        """The text lines of one part of a split line, found and read afresh (the split line's box was drawn
        around the tick too, so its ends are off)."""
        crop = image[part.y0:part.y1, part.x0:part.x1]
        lines = [line.shifted(part.x0, part.y0) for line in self.engine.read(crop)]
        return lines or short_texts(image, [part], [], self._readings)

    def _readings(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """(text, score) of each BGR line crop, as short_texts reads them."""
        return [(reading.text, reading.score) for reading in self.engine.recognise(crops)]

    def read_inside(self, obs: Observation, box: Box) -> str:
        return self._read_marks(obs.image, [obs.monitor.screen_box_to_image(box)])[0]

    def _read_marks(self, image: np.ndarray, boxes: list[Box]) -> list[str]:
        """The marks inside each box (image pixels) read as one text line, with no text detection (the box says
        where the line is); "" for a box with a plain inside or a reading less sure than UNNAMED_READ_SCORE."""
        inks = {i: ink.padded(UNNAMED_PAD, box) for i, box in enumerate(boxes)
                if (ink := ink_box(image, box)) is not None}
        crops = [np.ascontiguousarray(image[b.y0:b.y1, b.x0:b.x1, ::-1]) for b in inks.values()]  # BGR, as OCR reads
        texts = [""] * len(boxes)
        for index, reading in zip(inks, self.engine.recognise(crops) if crops else []):
            if reading.score >= UNNAMED_READ_SCORE:
                texts[index] = reading.text.strip()
        return texts

    def _named(self, image: np.ndarray, widgets: list[Widget]) -> list[Widget]:
        """Buttons without a name whose inside holds marks: the marks read as one text line (no text detection:
        the frame says where the line is) name the button when the reading has a letter or digit. Icons and
        check-box-like squares are not read here (a glyph read as a letter would name them wrongly); `locate`
        reads those only for a short name it is asked for (`_icon_button`)."""
        unnamed = [i for i, w in enumerate(widgets) if w.role == "button" and not w.text][:UNNAMED_READS]
        named = list(widgets)
        for index, text in zip(unnamed, self._read_marks(image, [widgets[i].box for i in unnamed])):
            if any(c.isalnum() for c in text):
                named[index] = replace(widgets[index], text=text)
        return named

    def _update(self, image: np.ndarray) -> None:
        previous = self._image
        if previous is not None and previous.shape == image.shape and np.array_equal(previous, image):
            self.last_read_area = 0.0  # lines that appeared with the last change stay fresh
            return
        frame = Box(0, 0, image.shape[1], image.shape[0])
        regions = changed_regions(previous, image) if (self.incremental and previous is not None) else [frame]
        if sum(r.area for r in regions) > FULL_FRAME_SHARE * frame.area:
            regions = [frame]
        kept, regions = self._regions_to_read(regions, frame)
        # Toggles the last parse found in the parts to read, where an outline still stands (looked for with room
        # around it: inside its own box any marks, a "G" of a list drawn over it, close an outline at the edges):
        # text detection joins a checked box to its label, which then reads as nothing.
        toggles = [] if regions == [frame] else \
            [t for t in self._toggles if any(region.padded(READ_PAD, frame).intersects(t) for region in regions)
             and any(t.iou(drawn) >= SAME_TOGGLE_IOU for drawn in rectangles(image, t.padded(READ_PAD, frame)))]
        fresh_lines: list[TextLine] = []
        for region in regions:
            crop_box = region.padded(READ_PAD, frame) if region != frame else frame
            fresh_lines += [line for line in self._read(image, crop_box, toggles)
                            if not _mostly_inside_any(line.box, kept)]
        if len(regions) > 1:  # crops that overlap may read one line twice: two lines in one field made a panel
            fresh_lines = _fullest(fresh_lines)
        started = time.perf_counter()
        fresh_lines += short_texts(image, regions, kept + fresh_lines, self._readings)
        self.timing["ocr_short_ms"] = self.timing.get("ocr_short_ms", 0.0) + (time.perf_counter() - started) * 1000
        self._lines = sorted(kept + fresh_lines, key=lambda ln: reading_order(ln.box))
        fresh_ids = {id(line) for line in fresh_lines}
        self._fresh = {i for i, line in enumerate(self._lines) if id(line) in fresh_ids}
        self._image = image.copy()
        self._widgets = self._link_words = None
        self._read_whole = regions == [frame]
        self.last_read_area = sum(r.area for r in regions) / frame.area

    def _regions_to_read(self, changed: list[Box], frame: Box) -> tuple[list[TextLine], list[Box]]:
        """Grow changed regions over every old line they touch (so no line is read half), merge them, and keep
        the old lines outside."""
        regions = [r.padded(TOUCH_PAD, frame) for r in changed]
        kept = list(self._lines) if regions != [frame] else []
        grown = True
        while grown and kept:
            grown = False
            for line in list(kept):
                for i, region in enumerate(regions):
                    if line.box.intersects(region):
                        regions[i] = region.union(line.box.padded(TOUCH_PAD, frame))
                        kept.remove(line)
                        grown = True
                        break
        return kept, merge_boxes(regions)

    def locate(self, obs: Observation, description: str) -> Element | None:
        spec = parse_description(description)
        if not spec.phrase and spec.role not in UNNAMED_ROLES:
            raise GroundingError(f"cannot find {description!r} without a name: name the element by its visible "
                                 "text (e.g. 'the \"Remember me\" checkbox') or by its kind and place (e.g. 'the "
                                 "second text field')")
        self._update(obs.image)
        if spec.address:
            return self._address_field(obs)
        if not spec.phrase:
            return self._unnamed(obs, spec)
        label = self._best_text(spec, obs.image, _title_strip(obs))
        if label is None and (self.engine.last_scale < 1.0 or not self._read_whole):
            # A short word ("AU") shrunk detection missed, or a short line ("15" in a calendar) the reads of the
            # changed parts alone missed (a part's detection sees less around it): read the whole frame again, at
            # full size only after a shrunk read.
            if self.engine.last_scale < 1.0:
                self.engine.forget_text_size()
            self._image, self._lines = None, []
            self._update(obs.image)
            label = self._best_text(spec, obs.image, _title_strip(obs))
        if label is None:
            return self._icon_button(obs, spec) or (self._coloured(obs, spec) if spec.colour else None)
        line, box = label
        if spec.role in ("input", "dropdown"):
            field = find_field(obs.image, box, [other.box for other in self._lines])
            role: ElementRole = "dropdown" if spec.role == "dropdown" else "input"
            if field is None:
                detected = field_beside(box, self._controls(obs.image), ("input", "dropdown"))
                return None if detected is None else self._widget_element(obs, replace(detected, role=role),
                                                                          line.text)
            return self._element(obs, line, field, role)
        if spec.role in (None, "button", "tab", "menu_item", "list_item") and _names_whole_line(spec.phrase, line):
            holders = [w for w in self._controls(obs.image) if w.role not in ("checkbox", "radio")
                       and w.box.contains(*box.center) and not self._holds_other_text(w.box, line)]
            if holders:  # the kind asked for, else the tightest: a button rather than the list row around it
                holder = min(holders, key=lambda w: (w.role != spec.role, w.box.area))
                return self._widget_element(obs, holder, line.text)
        if spec.role in ("checkbox", "radio"):
            toggle = find_toggle(obs.image, box)
            if toggle is None:
                detected = toggle_before(box, self._controls(obs.image), ("checkbox", "radio"))
                toggle = detected.box if detected is not None else None
            element = self._element(obs, line, toggle or box, spec.role)
            return replace(element, checked=toggle_checked(obs.image, toggle)) if toggle else element
        return self._element(obs, line, box, spec.role or "text")

    def _holds_other_text(self, box: Box, line: TextLine) -> bool:
        """Whether a control's box holds other text lines than this one: then it is a container (a calendar's
        grid, a list) and clicking its middle would hit another item."""
        return any(other is not line and box.contains(*other.box.center) and not line.box.contains(*other.box.center)
                   for other in self._lines)

    def _icon_button(self, obs: Observation, spec: TargetSpec) -> Element | None:
        """A small button whose glyph text detection skipped (a close "x", a "+", a tab "6": a lone glyph is as often
        an icon as text): a button the parse named by its inside read alone (`_named`), else, for a short name, an
        unnamed one's whole inside read as one text line now; at 100 % such a square is found as an icon or check
        box."""
        if spec.role not in (None, "button", "icon", "tab"):
            return None
        for widget in self._controls(obs.image):
            # At 100 % a close button's square with its glyph looks like a checked check box.
            if widget.role not in ("button", "icon", "checkbox") or widget.box.width > 6 * widget.box.height:
                continue
            if widget.text:
                if widget.role == "button" and match_text(spec.phrase, widget.text):
                    return self._widget_element(obs, widget)
                continue
            if len(spec.phrase) > 2:
                continue
            crop = obs.image[widget.box.y0:widget.box.y1, widget.box.x0:widget.box.x1]
            whole = Box(0, 0, crop.shape[1], crop.shape[0])
            if any(match_text(spec.phrase, line.text) for line in self.engine.read_boxes(crop, [whole])):
                return self._widget_element(obs, widget, spec.phrase)
        return None

    def _address_field(self, obs: Observation) -> Element | None:
        """The location / address bar: the topmost field whose text is a path or a URL."""
        shown = sorted((line for line in self._lines if ADDRESS_TEXT.match(line.text.strip())),
                       key=lambda line: (line.box.y0, line.box.x0))
        for line in shown:
            field = find_field(obs.image, line.box, [other.box for other in self._lines])
            if field is not None:
                return self._element(obs, line, field, "input")
        return self._element(obs, shown[0], shown[0].box, "input") if shown else None

    def _coloured(self, obs: Observation, spec: TargetSpec) -> Element | None:
        """'the olive box', 'the red button': where no text says the words, the one control (of the kind the
        words name, any kind for "box") whose fill is that colour, else the one whose fill is a shade of it (the
        ordinal's, where there are several; none where the words leave two). One with no text is named by its
        fill's colour, as accessibility names a swatch: what the run clicked says what it was."""
        colour = spec.colour
        if colour is None:
            return None
        kinds = None if spec.role in (None, "input") else (spec.role,)
        echoes = [ln.box for ln in self._lines if self._task and part_of_task(ln.text, self._task)]
        controls = [w for w in self._controls(obs.image) if (kinds is None or w.role in kinds)
                    and not any(_in_line(w.box, echo) for echo in echoes)]  # a swatch in the task's own words
        fills = [(w, fill_colour(obs.image, w.box)) for w in controls]
        for exact in (True, False):
            fitting = [(w, name) for w, name in fills if fits(colour, name, exact)]
            fitting = [(w, name) for w, name in fitting if not any(
                o is not w and o.box.contains(*w.box.center) and o.box.area < w.box.area for o, _ in fitting)]
            if len(fitting) == 1 or (fitting and spec.ordinal is not None):
                chosen = nth(sorted(fitting, key=lambda found: reading_order(found[0].box)), spec.ordinal)
                return None if chosen is None else self._widget_element(  # a swatch named by its colour, as
                    obs, chosen[0], chosen[0].text or chosen[1])  # accessibility names one
            if fitting:
                return None  # two of that colour, and nothing to choose between them
        return None

    def _unnamed(self, obs: Observation, spec: TargetSpec) -> Element | None:
        """'the text field', 'the 2nd input', 'the button': the control of that kind (in reading order)."""
        kinds = ("input", "dropdown") if spec.role == "input" else (spec.role,)
        found = [self._widget_element(obs, w) for w in self._controls(obs.image) if w.role in kinds]
        return nth(of_its_lines(found, spec, lambda element: element.text_area), spec.ordinal)

    def _best_text(self, spec: TargetSpec, image: np.ndarray, title: Box | None = None) -> tuple[TextLine, Box] | None:
        """The text line (and the box of just the matching characters) that best fits the phrase. Text in the
        focused window's title bar (`title`, image pixels) is never the control a phrase names when the window
        holds text that fits too: a dialog titled "Save" is saved with its Save button."""
        scored: list[tuple[float, int, TextLine, Box]] = []
        labels = self._field_labels(image) if spec.role in ("input", "dropdown") else set()
        for index, line in enumerate(self._lines):
            match = match_text(spec.phrase, line.text)
            if match is None:
                continue
            span = line.span_box(match.start, match.end)
            if spec.role == "link" and not colourful(image, span):
                continue  # "the link X" is coloured text (blue, purple, ...); the same word in black is not it
            score = match.score + (FRESH_BONUS if index in self._fresh else 0.0) + \
                (LABEL_BONUS if index in labels else 0.0)
            if match.score < SQUASHED:
                # Found inside a longer line: a short label ("Section #9" for "section") beats the same word in a
                # sentence, and the exact case ("Eget") beats another element with the word in another case.
                score -= min(EXTRA_TEXT_MAX, EXTRA_TEXT_COST * (len(line.text) - len(spec.phrase)))
                score -= 0.0 if spec.phrase in line.text else CASE_COST
            if echoes_task(line.text, self._task, spec.phrase):
                continue
            if quoted_at(line.text, match.start, match.end):
                continue  # 'click the "OK" button' on the screen names OK: it is an instruction, not the button
            scored.append((score, index, line, span))
        if title is not None:
            inside = [entry for entry in scored if not title.contains(*entry[3].center)]
            scored = inside or scored
        if not scored:
            return None
        top = max(s[0] for s in scored)
        best = [s for s in scored if s[0] >= top - 0.02]
        chosen = nth(best, spec.ordinal)
        return None if chosen is None else (chosen[2], chosen[3])

    def _field_labels(self, image: np.ndarray) -> set[int]:
        """The lines (by index) that label a field or a drop-down the outlines found: the same words in a table
        beside the form ("Gender" over "Male") label no field."""
        boxes = [line.box for line in self._lines]
        labels = set()
        for widget in self._controls(image):
            if widget.role in ("input", "dropdown"):
                outside = [i for i, box in enumerate(boxes) if not widget.box.contains(*box.center)]
                chosen = label_for_field(widget.box, [boxes[i] for i in outside])
                if chosen is not None:
                    labels.add(outside[chosen])
        return labels


def _title_strip(obs: Observation) -> Box | None:
    """The focused window's title bar in image pixels: the strip a window manager draws above the window's own
    area (None when the window's box is not known)."""
    window = obs.window
    if window is None or window.box is None:
        return None
    x0, y0 = obs.monitor.screen_to_image(window.box.x0, window.box.y0 - TITLE_BAR)
    x1, y1 = obs.monitor.screen_to_image(window.box.x1, window.box.y0)
    return Box(int(x0), int(y0), int(x1), int(y1))


def _names_whole_line(phrase: str, line: TextLine) -> bool:
    """Whether the phrase is (nearly) all of the line. A word inside a longer line ("Edit" in a menu bar that OCR read
    as "FileEditOptionsSearchHelp") is clicked on its own characters, not at the middle of the control holding the
    whole line."""
    return len(phrase.replace(" ", "")) >= WHOLE_LINE_SHARE * len(line.text.replace(" ", ""))


def _toggle_boxes(widgets: list[Widget]) -> list[Box]:
    """The boxes of the check boxes and radio buttons among `widgets` (a detected one may be a little loose)."""
    return [w.box for w in widgets if w.role in ("checkbox", "radio") and toggle_shaped(w.box, DRAWN_LOOSE)]


def _parts_beside(line: Box, toggles: list[Box], frame: Box) -> list[Box] | None:
    """The parts of a text line's box left and right of the toggles it runs over (None when it runs over none),
    the last one reaching a line's height further right and all a little taller, for reading afresh: a toggle runs
    over a line when it lies on the line's row, about as tall as the line, and inside it by a few pixels or more
    (its border read as a letter: "JPCQ2JfG")."""
    crossing = sorted((t for t in toggles
                       if min(t.y1, line.y1) - max(t.y0, line.y0) >= TOGGLE_ROW_SHARE * t.height
                       and t.height >= TOGGLE_ROW_SHARE * line.height
                       and min(t.x1, line.x1) - max(t.x0, line.x0) >= 2 * TOGGLE_GAP),
                      key=lambda t: t.x0)
    if not crossing:
        return None
    pieces, start = [], line.x0
    for toggle in crossing:
        pieces.append((start, toggle.x0 - TOGGLE_GAP))
        start = max(start, toggle.x1 + TOGGLE_GAP)
    pieces.append((start, max(start, line.x1 + line.height)))
    least = max(TOGGLE_GAP * 2, round(MIN_PART_SHARE * line.height))
    return [Box(x0, line.y0, x1, line.y1).padded(TOGGLE_GAP * 2, frame) for x0, x1 in pieces if x1 - x0 >= least]


def _parts_across_fields(line: Box, fields: list[Box], frame: Box) -> list[Box] | None:
    """The parts of a text line's box either side of the left border of a field it runs into on the field's row
    (None when it runs into none), for reading afresh: the left part reaches three line heights further left (the
    joined line's box may start inside the label: "ceipt"), the right one to the field's end (the joined line may
    stop inside the field's text: "Headles"). Where the line starts too close left of the border for a character
    (MIN_PART_SHARE of its height) it holds no label there: its first letter only stands over the border (an open
    Tk list's "GBP" at its edge, where grounding saw a field: split, it read "BP")."""
    crossing = [f for f in fields if f.y0 - TOGGLE_GAP <= line.y0 and line.y1 <= f.y1 + TOGGLE_GAP
                and line.x0 <= f.x0 - MIN_PART_SHARE * line.height and line.x1 > f.x0 + 2 * TOGGLE_GAP]
    if not crossing:
        return None
    field = min(crossing, key=lambda f: f.x0)
    top, bottom = line.y0 - TOGGLE_GAP, line.y1 + TOGGLE_GAP  # a little taller, for reading afresh
    left = Box(line.x0 - 3 * line.height, top, field.x0 - TOGGLE_GAP, bottom).clipped(frame)
    right = Box(field.x0 + TOGGLE_GAP, top, field.x1 - TOGGLE_GAP, bottom).clipped(frame)  # the field's text runs on
    least = max(TOGGLE_GAP * 2, round(MIN_PART_SHARE * line.height))
    return [part for part in (left, right) if part.width >= least]


def _parts_across_border(image: np.ndarray, line: Box, frame: Box) -> list[Box] | None:
    """The parts of a text line's box either side of a frame's side that runs through it (None where none does):
    a column inside the line where the colour changes sharply from the line's top to its bottom and on, half the
    line's height above or below it (an open list's last row stands at its bottom edge). A letter's stroke ends
    within its line; OCR reads the words either side of an open list's edge as one line ("JoinReception": the
    button behind, the option in front)."""
    reach = line.height // 2
    top, bottom = line.y0 - reach, line.y1 + reach
    x0, x1 = line.x0 + TOGGLE_GAP * 2, line.x1 - TOGGLE_GAP * 2
    if top < 0 or bottom > frame.y1 or x1 - x0 < 2:
        return None
    grey = image[top:bottom, x0 - 1:x1 + 1].astype(np.int16).sum(axis=2) // 3
    step = np.abs(np.diff(grey, axis=1)) >= BORDER_STEP  # a sharp change between a column and the next
    above, along, below = step[:reach], step[reach:reach + line.height], step[reach + line.height:]
    sides = np.flatnonzero((along.mean(axis=0) >= BORDER_RUN) & (
        (above.mean(axis=0) >= BORDER_RUN) | (below.mean(axis=0) >= BORDER_RUN)))
    if not len(sides):
        return None
    cut = x0 - 1 + int(sides[0]) + 1  # the first column past the change
    least = max(TOGGLE_GAP * 2, round(MIN_PART_SHARE * line.height))
    parts = [Box(line.x0 - TOGGLE_GAP, line.y0, cut - TOGGLE_GAP, line.y1),
             Box(cut + TOGGLE_GAP, line.y0, line.x1 + line.height, line.y1)]
    return [part.padded(TOGGLE_GAP * 2, frame) for part in parts if part.width >= least] or None


def _fullest(parts: list[TextLine]) -> list[TextLine]:
    """`parts` less each that half lies on another with a longer reading (or as long, read before it), or that is
    a part of another read again: lines OCR joined across radio buttons overlap ("MorningOAfternoon",
    "fternoonOEvening"), and each gives "Afternoon" in part; crops padded around two nearby changes overlap, and a
    line read whole in one ("Alan Turing") is read again in part in the other ("ng")."""
    return [part for n, part in enumerate(parts) if not any(
        (part.box.share_in(other.box) >= 0.5 or _part_of(part, other)) and (len(other.text), n) > (len(part.text), m)
        for m, other in enumerate(parts) if m != n)]


def _part_of(line: TextLine, other: TextLine) -> bool:
    """Whether `line` is a part of `other` read again: its text within the other's, its box over the other's on
    the same row (half its height) and across a third of its width or more."""
    text, whole = line.text.strip().lower(), other.text.strip().lower()
    if not text or len(text) >= len(whole) or text not in whole:
        return False
    across = min(line.box.x1, other.box.x1) - max(line.box.x0, other.box.x0)
    down = min(line.box.y1, other.box.y1) - max(line.box.y0, other.box.y0)
    return across >= PART_OVERLAP * line.box.width and down >= line.box.height / 2


def _mostly_inside_any(box: Box, lines: list[TextLine]) -> bool:
    """Whether half of `box` lies on an old line kept as is (a sliver of it seen at the edge of a crop)."""
    return any(box.share_in(line.box) >= 0.5 for line in lines)


def colourful(image: np.ndarray, box: Box) -> bool:
    """Whether the ink of the text in `box` is coloured (saturated), as links are, rather than grey or black."""
    crop = image[max(0, box.y0):box.y1, max(0, box.x0):box.x1]
    if crop.size == 0:
        return False
    pixels = crop.reshape(-1, 3).astype(np.float32)
    lightness = pixels.sum(axis=1)
    ink = pixels[(lightness < np.median(lightness) - 90) & (lightness <= np.percentile(lightness, 15))]
    background = np.median(pixels, axis=0)
    if len(ink) < 4 or background @ background < 1:
        return False
    # Anti-aliased strokes blend the ink with the background: dark text on yellow is dark yellow, and small text
    # has no pure-ink core. What is left of an ink pixel once its share of the background colour is taken out is
    # the ink's own colour: grey for black or grey text, blue or purple for a link.
    share = ink @ background / (background @ background)
    own = np.linalg.norm(ink - share[:, None] * background, axis=1)
    return bool(np.median(own) > OWN_COLOUR)


def _in_line(box: Box, line: Box) -> bool:
    """Whether `box` stands in a line of text: on its row, and beside it within COLOUR_IN_LINE line heights (a
    colour swatch set in a sentence, "Click on the ■ colored box", is a picture of the colour, not the box)."""
    overlap = min(box.y1, line.y1) - max(box.y0, line.y0)
    gap = max(line.x0 - box.x1, box.x0 - line.x1, 0)
    return overlap >= box.height / 2 and gap <= COLOUR_IN_LINE * line.height

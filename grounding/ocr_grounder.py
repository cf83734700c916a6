"""The OCR grounder: text elements from PP-OCR, re-reading only the parts of the screen that changed since the
last frame, and `locate` for descriptions like 'the Save button', 'Full name field' or '"Remember me" checkbox'."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element, Observation

from .changes import changed_regions, merge_boxes
from .description import TargetSpec, parse_description
from .ocr import OcrEngine, TextLine
from .text_match import match_text
from .widgets import find_field, find_toggle, toggle_checked

FULL_FRAME_SHARE = 0.45  # re-read the whole frame when more than this share of it changed
TOUCH_PAD = 2  # an old line this close to a change is re-read with it
READ_PAD = 6  # context around a changed region given to OCR
FRESH_BONUS = 0.04  # among near-equal matches, prefer text that just appeared (an opened menu or popup)


class OcrGrounder:
    def __init__(self, engine: OcrEngine | None = None, incremental: bool = True):
        self.engine = engine or OcrEngine()
        self.incremental = incremental
        self._image: np.ndarray | None = None
        self._lines: list[TextLine] = []
        self._fresh: set[int] = set()
        self.last_read_area = 0.0  # share of the frame OCR'd by the last parse (for benchmarks and logs)

    def parse(self, obs: Observation) -> list[Element]:
        self._update(obs.image)
        return [self._element(obs, line, line.box) for line in self._lines]

    def _element(self, obs: Observation, line: TextLine, box: Box, role: str = "text") -> Element:
        return Element(obs.monitor.image_box_to_screen(box), role, line.text, line.score, "ocr")  # type: ignore[arg-type]

    def _update(self, image: np.ndarray) -> None:
        previous = self._image
        if previous is not None and previous.shape == image.shape and np.array_equal(previous, image):
            self.last_read_area = 0.0
            self._fresh = set()
            return
        frame = Box(0, 0, image.shape[1], image.shape[0])
        regions = changed_regions(previous, image) if (self.incremental and previous is not None) else [frame]
        if sum(r.area for r in regions) > FULL_FRAME_SHARE * frame.area:
            regions = [frame]
        kept, regions = self._regions_to_read(regions, frame)
        fresh_lines: list[TextLine] = []
        for region in regions:
            crop_box = region.padded(READ_PAD, frame) if region != frame else frame
            crop = image[crop_box.y0:crop_box.y1, crop_box.x0:crop_box.x1]
            fresh_lines += [line.shifted(crop_box.x0, crop_box.y0) for line in self.engine.read(crop)
                            if not _mostly_inside_any(line.box.shifted(crop_box.x0, crop_box.y0), kept)]
        self._lines = sorted(kept + fresh_lines, key=lambda ln: (ln.box.y0 // 8, ln.box.x0))
        fresh_ids = {id(line) for line in fresh_lines}
        self._fresh = {i for i, line in enumerate(self._lines) if id(line) in fresh_ids}
        self._image = image.copy()
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
        if not spec.phrase:
            raise GroundingError(f"cannot find {description!r} from text alone: name the element by its visible "
                                 "text (e.g. 'the \"Remember me\" checkbox')")
        self._update(obs.image)
        label = self._best_text(spec)
        if label is None:
            return None
        line, box = label
        if spec.role in ("input", "dropdown"):
            field = find_field(obs.image, box)
            return None if field is None else self._element(obs, line, field, "dropdown" if spec.role == "dropdown"
                                                            else "input")
        if spec.role in ("checkbox", "radio"):
            toggle = find_toggle(obs.image, box)
            element = self._element(obs, line, toggle or box, spec.role)
            return replace(element, checked=toggle_checked(obs.image, toggle)) if toggle else element
        return self._element(obs, line, box, spec.role or "text")

    def _best_text(self, spec: TargetSpec) -> tuple[TextLine, Box] | None:
        """The text line (and the box of just the matching characters) that best fits the phrase."""
        scored: list[tuple[float, int, TextLine, Box]] = []
        for index, line in enumerate(self._lines):
            match = match_text(spec.phrase, line.text)
            if match is None:
                continue
            score = match.score + (FRESH_BONUS if index in self._fresh else 0.0)
            scored.append((score, index, line, line.span_box(match.start, match.end)))
        if not scored:
            return None
        top = max(s[0] for s in scored)
        best = [s for s in scored if s[0] >= top - 0.02]
        if spec.ordinal is not None:
            if not -len(best) <= (spec.ordinal - 1 if spec.ordinal > 0 else spec.ordinal) < len(best):
                return None
            chosen = best[spec.ordinal - 1 if spec.ordinal > 0 else spec.ordinal]
        else:
            chosen = best[0]
        return chosen[2], chosen[3]


def _mostly_inside_any(box: Box, lines: list[TextLine]) -> bool:
    """Whether half of `box` lies on an old line kept as is (a sliver of it seen at the edge of a crop)."""
    for line in lines:
        inter = box.clipped(line.box)
        if inter.width > 0 and inter.height > 0 and inter.area >= 0.5 * box.area:
            return True
    return False

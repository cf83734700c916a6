"""OCR through RapidOCR's PP-OCR ONNX models (shipped inside the rapidocr-onnxruntime wheel): image -> text lines
with their boxes and, where the recogniser gives them, per-character boxes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box


@dataclass(frozen=True)
class TextLine:
    """One OCR line in image pixels; `char_boxes` align with `text` character by character when present."""

    box: Box
    text: str
    score: float
    char_boxes: tuple[Box, ...] | None = None

    def shifted(self, dx: int, dy: int) -> TextLine:
        chars = tuple(b.shifted(dx, dy) for b in self.char_boxes) if self.char_boxes else None
        return TextLine(self.box.shifted(dx, dy), self.text, self.score, chars)

    def span_box(self, start: int, end: int) -> Box:
        """The box of characters text[start:end]: from character boxes, else by proportion of the line width."""
        if self.char_boxes and len(self.char_boxes) == len(self.text):
            boxes = [b for b, ch in zip(self.char_boxes[start:end], self.text[start:end]) if not ch.isspace()]
            if boxes:
                x0, x1 = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
                return Box(x0, self.box.y0, x1, self.box.y1)
        if start <= 0 and end >= len(self.text):
            return self.box
        width = self.box.width / max(1, len(self.text))
        return Box(round(self.box.x0 + start * width), self.box.y0, round(self.box.x0 + end * width), self.box.y1)


def _to_box(points: list[list[float]]) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return Box(int(min(xs)), int(min(ys)), int(round(max(xs))), int(round(max(ys))))


class OcrEngine:
    """RapidOCR with settings for screens: no rotation classifier, no upscaling of small crops."""

    def __init__(self, threads: int = 0, min_score: float = 0.5):
        self.threads = threads
        self.min_score = min_score
        self._engine: object | None = None

    def _load(self) -> object:
        if self._engine is None:
            try:
                from rapidocr_onnxruntime import RapidOCR

                self._engine = RapidOCR(use_cls=False, det_limit_type="max", det_limit_side_len=2000,
                                        intra_op_num_threads=self.threads or -1, text_score=self.min_score)
            except Exception as exc:  # a broken wheel or ONNX Runtime install
                raise GroundingError(f"cannot load the OCR models: {exc}") from None
        return self._engine

    def read(self, image: np.ndarray) -> list[TextLine]:
        """Text lines of an RGB image, in its pixel coordinates."""
        if image.size == 0 or min(image.shape[:2]) < 4:
            return []
        engine = self._load()
        bgr = np.ascontiguousarray(image[:, :, ::-1])
        result, _ = engine(bgr, return_word_box=True, text_score=self.min_score)  # type: ignore[operator]
        lines: list[TextLine] = []
        for item in result or []:
            points, text, score = item[0], str(item[1]), float(item[2])
            if not text.strip():
                continue
            chars = None
            if len(item) >= 5 and item[3] and len(item[4]) == len(text):
                chars = tuple(_to_box(p) for p in item[3])
            stripped = text.strip()
            if stripped != text and chars:
                lead = len(text) - len(text.lstrip())
                chars = chars[lead:lead + len(stripped)]
            lines.append(TextLine(_to_box(points), stripped, score, chars))
        return lines

"""OCR for screens with PP-OCR's ONNX models (shipped inside the rapidocr-onnxruntime wheel) and deskpilot's own,
run by a pipeline made for screenshots: text detection (deskpilot's text-line detector, grounding.text_detector, when
given; PP-OCR's otherwise) only where the frame has content (flat desktop, page and window backgrounds are
skipped), at a resolution chosen from the height of the smallest text seen lately; recognition of axis-aligned
crops in batches, each crop's result cached by its pixels (text that was on an earlier frame is not read again),
first by deskpilot's own small recogniser (grounding.text_recognizer) and by PP-OCR's only where that one is unsure;
per-character boxes from the recogniser's own column positions. With onnxruntime-gpu and a GPU, each model runs
where it was measured faster (grounding.device_choice)."""

from __future__ import annotations

import hashlib
import os
import time
from typing import Any
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box, shared_areas

from . import onnx_graph
from .ctc import Reading, greedy_decode
from .device_choice import Choice, sample_screen
from .onnx_session import fixed_shapes, ladder, open_on_best_device, rungs, session_device
from .regions import DET_PAD, content_regions
from .text_detector import TextLineDetector
from .text_recognizer import BATCH, LineRecognizer

DET_MODEL, REC_MODEL = "ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx"
DET_BOX_PX = 16  # detection finds text whose boxes are at least this tall at its input scale
DET_SCALES = (0.5, 0.75)  # shrinking the frame by a little costs boxes' precision for almost no time
SMALL_LINE_PX, SMALL_LINE_SCALE = 17, 1.5  # text this short is found by deskpilot's text-line detector at 1.5x
REC_HEIGHT = 48
# PP-OCR's recogniser mixes each line as a whole, so a batch padded to its widest line costs more than its lines one
# by one: 13.0 ms a line alone, 14.1 in pairs, 18.7 in sixes (2 cores, 300 harvested lines). On a CPU its lines are
# read side by side, one thread each: one small line uses two cores poorly (the busy full-HD screen's 23 lines:
# 0.86x of one at a time on both cores; a line alone 6.5 ms instead of 4.5).
REC_SMALLEST_WIDTH, DET_SMALLEST_SIDE = 96, 256  # on CUDA inputs are padded to ladder sizes from these
REC_ROWS = 8  # on CUDA PP-OCR's lines are read this many at a time
REC_READY_WIDTH = 2304  # on CUDA the ladder's widths up to this one get their sessions at load
MIN_FAST_TEXT = 2  # shorter readings of the small recogniser go to PP-OCR
REC_CACHE_SIZE = 4096
DUPLICATE_SHARE = 0.6  # a box this much inside a larger one (seen again at a region's edge) is the same text


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
        return self.box.text_span(len(self.text), start, end)


def models_dir() -> Path:
    return Path(str(resources.files("rapidocr_onnxruntime") / "models"))


def detection_scale(box_height: float | None) -> float:
    """How much to shrink the frame for detection so the smallest text seen lately still reads DET_BOX_PX tall."""
    return next((scale for scale in DET_SCALES if box_height and box_height * scale >= DET_BOX_PX), 1.0)


class OcrEngine:
    """Text detection and recognition for screens. `threads` 0 lets ONNX Runtime choose; `device` is auto | cpu |
    cuda; `recognizer` is deskpilot's own recogniser's ONNX file, read first (None: PP-OCR reads every line);
    `text_detector` deskpilot's own text-line detector's (None: PP-OCR's detector finds the lines). Models load on
    first use (or `load()`)."""

    def __init__(self, threads: int = 0, min_score: float = 0.5, device: str = "auto",
                 recognizer: Path | None = None, text_detector: Path | None = None):
        self.threads = threads
        self.min_score = min_score
        self.device_setting = device
        self.recognizer_path = recognizer
        self.text_detector_path = text_detector
        # sessions and DB box post-processing, made by load()
        self._det: Any = None
        self._rec: Any = None
        self._boxes: Any = None
        self._fast: LineRecognizer | None = None
        self._pool: ThreadPoolExecutor | None = None  # PP-OCR's line readers on a CPU, made by load()
        self._lines: TextLineDetector | None = None
        self._det_choice: Choice | None = None  # how `auto` chose each PP-OCR model's device, where it measured
        self._rec_choice: Choice | None = None
        self._alphabet: list[str] = []
        self._cache: OrderedDict[bytes, Reading] = OrderedDict()
        self._box_height: float | None = None  # the smallest text boxes on the last frames read whole
        self.last_scale = 1.0  # the detection scale of the last read
        self.last_timing: dict[str, float] = {}  # milliseconds the last read spent detecting and recognising
        self.crops_recognised = 0  # text crops run through PP-OCR's recogniser (cached ones are not)
        self.crops_read_fast = 0  # text crops whose reading by the small recogniser was kept

    def load(self) -> None:
        if self._rec is not None:
            return
        models = models_dir()
        try:
            import onnxruntime  # noqa: F401
        except ImportError as exc:
            raise GroundingError(f"cannot load the OCR models: {exc}") from None
        # Each model runs once on a blank input at load, so the first frame does not pay for ONNX Runtime's
        # first-run set-up (its memory arena grows to what such inputs need). Under `auto` each model runs on the
        # device measured faster for it (grounding.device_choice).
        if self.text_detector_path is not None:
            self._lines = TextLineDetector(self.text_detector_path, self.device_setting, self.threads)
        else:
            from rapidocr_onnxruntime.ch_ppocr_det.utils import DBPostProcess

            self._det, self._det_choice = open_on_best_device(models / DET_MODEL, self.device_setting, self.threads,
                                                              "PP-OCR text detector", _detect_screen,
                                                              rewrite=onnx_graph.simplified)
            self._boxes = DBPostProcess(thresh=0.3, box_thresh=0.5, unclip_ratio=1.6, use_dilation=True)
            self._det.run(None, {self._det.get_inputs()[0].name: np.zeros((1, 3, 768, 768), np.float32)})
        readers = self._cores()
        self._pool = ThreadPoolExecutor(readers, thread_name_prefix="ppocr") if readers > 1 else None
        rec, self._rec_choice = open_on_best_device(models / REC_MODEL, self.device_setting, self.threads,
                                                    "PP-OCR recogniser", self._read_screen,
                                                    rewrite=onnx_graph.simplified,
                                                    cpu_threads=1 if readers > 1 else self.threads)
        if session_device(rec) == "cuda" and self._pool is not None:  # one reader on a GPU, not one per core
            self._pool.shutdown()
            self._pool = None
        characters = rec.get_modelmeta().custom_metadata_map.get("character")
        if not characters:
            raise GroundingError(f"cannot load the OCR models: {models / REC_MODEL} carries no character list")
        self._alphabet = ["", *characters.splitlines(), " "]  # CTC blank first, space last (as PP-OCR trains)
        self._rec = rec
        if self.recognizer_path is not None:
            self._fast = LineRecognizer(self.recognizer_path, self.device_setting, self.threads)
        if fixed_shapes(rec):  # every ladder width's session made at load, not on the first screen with such a line
            for width in rungs(REC_SMALLEST_WIDTH, REC_READY_WIDTH):
                rec.prepare({rec.get_inputs()[0].name: np.zeros((REC_ROWS, 3, REC_HEIGHT, width), np.float32)})
        else:
            rec.run(None, {rec.get_inputs()[0].name: np.zeros((1, 3, REC_HEIGHT, 8 * REC_HEIGHT), np.float32)})

    def _read_screen(self, session: Any) -> None:
        """What one screen asks of PP-OCR's recogniser (device_choice's workload): a third of its lines (those the
        small recogniser is unsure of), read as this engine reads them on that device."""
        self._read_lines(session, sample_screen().line_crops()[::3])

    def _cores(self) -> int:
        """The threads to read with: `threads`, else the cores this process may run on."""
        if self.threads:
            return self.threads
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

    @property
    def device(self) -> str:
        """Where PP-OCR's recogniser runs (the OCR models' devices one by one: `devices`)."""
        self.load()
        return session_device(self._rec)

    def devices(self) -> dict[str, tuple[str, Choice | None]]:
        """Each loaded model's device, with the measurements `auto` chose it by (None: not measured)."""
        self.load()
        found: dict[str, tuple[str, Choice | None]] = {}
        if self._lines is not None:
            found["deskpilot's text-line detector"] = (self._lines.device, self._lines.choice)
        else:
            found["PP-OCR's text detector"] = (session_device(self._det), self._det_choice)
        if self._fast is not None:
            found["deskpilot's text recogniser"] = (self._fast.device, self._fast.choice)
        found["PP-OCR's recogniser"] = (session_device(self._rec), self._rec_choice)
        return found

    def forget_text_size(self) -> None:
        """Detect at full size again until new text is seen: small text beside tall text can be missed shrunk."""
        self._box_height = None

    def forget_readings(self) -> None:
        """Empty the reading cache (readings kept by their crop's pixels): the next frame is read as if none had
        been, on the same warm sessions."""
        self._cache.clear()

    def read(self, image: np.ndarray) -> list[TextLine]:
        """Text lines of an RGB image, in its pixel coordinates."""
        started = time.perf_counter()
        boxes = self.find_text(image)
        detected = time.perf_counter()
        lines = self.read_boxes(image, boxes)
        self.last_timing = {"detect_ms": (detected - started) * 1000,
                            "recognise_ms": (time.perf_counter() - detected) * 1000}
        return lines

    def find_text(self, image: np.ndarray) -> list[Box]:
        """Where an RGB image has text lines (detection only), in its pixel coordinates."""
        if image.size == 0 or min(image.shape[:2]) < 4:
            return []
        self.load()
        scale = self._scale()
        boxes = _distinct(self._detect(image, scale))
        if len(boxes) >= 3:  # the smallest text decides; a shrunk frame's boxes may only lower the estimate
            smallest = float(np.percentile([b.height for b in boxes], 10))
            self._box_height = smallest if scale >= 1.0 else min(smallest, self._box_height or smallest)
        self.last_scale = scale
        return boxes

    def _scale(self) -> float:
        """The detection scale for the text seen lately. deskpilot's text-line detector sees small text enlarged
        (at 1x the ends of its lines come out a few pixels loose), and text of a size not seen yet as small text:
        one pass at 1.5x costs less than a pass at 1x to learn the size and another at 1.5x."""
        if self._lines is not None and (self._box_height is None or self._box_height < SMALL_LINE_PX):
            return SMALL_LINE_SCALE
        return detection_scale(self._box_height)

    def read_boxes(self, image: np.ndarray, boxes: list[Box]) -> list[TextLine]:
        """The text of these boxes of an RGB image (from `find_text`); boxes that read as nothing are left out."""
        if not boxes:
            return []
        readings = self.recognise([np.ascontiguousarray(image[b.y0:b.y1, b.x0:b.x1, ::-1]) for b in boxes])  # BGR
        return [_line(box, reading) for box, reading in zip(boxes, readings)
                if reading.score >= self.min_score and reading.text.strip()]

    def _detect(self, image: np.ndarray, scale: float) -> list[Box]:
        """Line boxes of an RGB image's content regions, seen at `scale`."""
        frame = Box(0, 0, image.shape[1], image.shape[0])
        boxes: list[Box] = []
        regions = content_regions(image)
        if self._lines is not None and self._lines.whole_frame:  # one run of one shape per screen size (CUDA)
            return [box for box in self._lines.find(image, scale)
                    if any(region.contains(*box.center) for region in regions)]
        for region in regions:
            crop = image[region.y0:region.y1, region.x0:region.x1]
            if self._lines is not None:
                boxes += [b.shifted(region.x0, region.y0) for b in self._lines.find(crop, scale)]
                continue
            crop = np.ascontiguousarray(crop[:, :, ::-1])  # PP-OCR's models were trained on BGR images
            if scale != 1.0:
                crop = cv2.resize(crop, (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale))),
                                  interpolation=cv2.INTER_AREA)
            height, width = crop.shape[:2]
            prediction = self._det.run(None, {self._det.get_inputs()[0].name: _det_input(crop,
                                                                                        fixed_shapes(self._det))})[0]
            found, _ = self._boxes(prediction[:, :, :height, :width], (height, width))
            boxes += [_bounds(q.astype(np.float32) / scale + np.array([region.x0, region.y0], np.float32), frame)
                      for q in found]
        return boxes

    def recognise(self, crops: list[np.ndarray]) -> list[Reading]:
        """Readings of BGR text-line crops: cached ones from the cache; the rest by the small recogniser, and by
        PP-OCR's where it is unsure (the small one in batches of similar width, PP-OCR's a line at a time)."""
        self.load()
        keys = [hashlib.blake2b(np.ascontiguousarray(c).tobytes() + bytes(str(c.shape), "ascii"),
                                digest_size=16).digest() for c in crops]
        readings: list[Reading | None] = [self._cache.get(k) for k in keys]
        todo = [i for i, r in enumerate(readings) if r is None]
        todo.sort(key=lambda i: crops[i].shape[1] / max(1, crops[i].shape[0]))
        if self._fast is not None:
            for start in range(0, len(todo), BATCH):
                batch = todo[start:start + BATCH]
                for i, reading in zip(batch, self._fast.read([crops[i] for i in batch])):
                    # One glyph alone is as often an icon (a radio button's ring, an arrow) as a letter.
                    if reading.certainty >= self._fast.accept and len(reading.text.strip()) >= MIN_FAST_TEXT:
                        readings[i] = reading
                        self.crops_read_fast += 1
            todo = [i for i in todo if readings[i] is None]
        todo.reverse()  # the longest lines first, so no reader is left with a long one at the end
        for i, (columns, used) in zip(todo, self._read_lines(self._rec, [crops[i] for i in todo])):
            readings[i] = greedy_decode(columns, self._alphabet, used)
        self.crops_recognised += len(todo)
        done = [reading for reading in readings if reading is not None]  # every crop is read by now
        for key, reading in zip(keys, done):
            self._cache[key] = reading
            self._cache.move_to_end(key)
        while len(self._cache) > REC_CACHE_SIZE:
            self._cache.popitem(last=False)
        return done

    def _read_lines(self, session: Any, crops: list[np.ndarray]) -> list[tuple[np.ndarray, float]]:
        """PP-OCR's per-column character probabilities of BGR line crops, with the share of the columns that hold
        the line. On a CPU a line at a time, lines side by side on the readers' threads. Where each input shape has
        its session (CUDA) lines of the same ladder width are read REC_ROWS at a time, each padded with zeros as
        PaddleOCR pads its batches (rows of a batch do not mix: a line reads as it would alone at that width)."""
        name = session.get_inputs()[0].name
        lines = [_rec_input(crop) for crop in crops]
        if fixed_shapes(session):
            return _read_in_batches(session, name, lines)

        def one(line: np.ndarray) -> tuple[np.ndarray, float]:
            columns: np.ndarray = session.run(None, {name: line[None]})[0][0]
            return columns, 1.0

        pooled = self._pool is not None and len(lines) > 1 and session_device(session) == "cpu"
        return list(self._pool.map(one, lines)) if pooled and self._pool else [one(line) for line in lines]


def _rec_input(crop: np.ndarray) -> np.ndarray:
    """A BGR line crop as PP-OCR's recogniser takes it: REC_HEIGHT tall, in [-1, 1], CHW."""
    width = max(8, int(np.ceil(REC_HEIGHT * crop.shape[1] / max(1, crop.shape[0]))))
    resized = cv2.resize(crop, (width, REC_HEIGHT)).astype(np.float32) / 255.0
    line: np.ndarray = ((resized - 0.5) / 0.5).transpose(2, 0, 1)
    return line


def _read_in_batches(session: Any, name: str, lines: list[np.ndarray]) -> list[tuple[np.ndarray, float]]:
    """Lines read in batches of REC_ROWS by ladder width (rows and columns padded with zeros)."""
    read: dict[int, tuple[np.ndarray, float]] = {}
    by_width: dict[int, list[int]] = {}
    for index, line in enumerate(lines):
        by_width.setdefault(ladder(line.shape[2], REC_SMALLEST_WIDTH), []).append(index)
    for width, members in by_width.items():
        for start in range(0, len(members), REC_ROWS):
            chunk = members[start:start + REC_ROWS]
            batch = np.zeros((REC_ROWS, 3, REC_HEIGHT, width), np.float32)
            for row, index in enumerate(chunk):
                batch[row, :, :, :lines[index].shape[2]] = lines[index]
            columns = session.run(None, {name: batch})[0]
            read.update({index: (columns[row], lines[index].shape[2] / width) for row, index in enumerate(chunk)})
    return [read[index] for index in range(len(lines))]


def _det_input(crop: np.ndarray, fixed: bool = False) -> np.ndarray:
    """A BGR crop as PP-OCR's text detector takes it: its sides padded up to a multiple of DET_PAD (`fixed`: to a
    ladder size) with its background, in [-1, 1], NCHW."""
    height, width = crop.shape[:2]
    background = tuple(int(v) for v in np.median(np.concatenate([crop[0], crop[-1]]), axis=0))
    tall, wide = ((ladder(height, DET_SMALLEST_SIDE), ladder(width, DET_SMALLEST_SIDE)) if fixed
                  else (height + -height % DET_PAD, width + -width % DET_PAD))
    padded = cv2.copyMakeBorder(crop, 0, tall - height, 0, wide - width, cv2.BORDER_CONSTANT, value=background)
    tensor: np.ndarray = ((padded.astype(np.float32) / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)[None]
    return tensor


def _detect_screen(session: Any) -> None:
    """What one screen asks of PP-OCR's text detector (device_choice's workload): its content regions."""
    image = sample_screen().image
    for region in content_regions(image):
        crop = np.ascontiguousarray(image[region.y0:region.y1, region.x0:region.x1, ::-1])
        session.run(None, {session.get_inputs()[0].name: _det_input(crop, fixed_shapes(session))})


def _bounds(quad: np.ndarray, frame: Box) -> Box:
    return Box(round(float(quad[:, 0].min())), round(float(quad[:, 1].min())), round(float(quad[:, 0].max())),
               round(float(quad[:, 1].max()))).clipped(frame)


def _distinct(boxes: list[Box]) -> list[Box]:
    """Boxes without the ones found twice where content regions' margins overlap; larger ones first kept."""
    ordered = sorted((b for b in boxes if b.width > 3 and b.height > 3), key=lambda b: -b.area)
    kept: list[Box] = []
    corners = np.empty((len(ordered), 4), np.int64)  # the kept boxes' corners, compared all at once
    for box in ordered:
        if not np.any(shared_areas(corners[:len(kept)], np.array([box])) >= DUPLICATE_SHARE * box.area):
            corners[len(kept)] = tuple(box)
            kept.append(box)
    return kept


def _line(box: Box, reading: Reading) -> TextLine:
    """A line with a box per character: each reaches halfway to its neighbours' centres."""
    centres = [box.x0 + c * box.width for c in reading.centres]
    gaps = np.diff(centres)
    half = float(np.median(gaps)) / 2 if len(gaps) else box.height / 3
    edges = [centres[0] - half, *((a + b) / 2 for a, b in zip(centres, centres[1:])), centres[-1] + half]
    chars = [Box(max(box.x0, round(edges[i])), box.y0, min(box.x1, max(round(edges[i + 1]), round(edges[i]) + 1)),
                 box.y1) for i in range(len(centres))]
    text = reading.text
    lead = len(text) - len(text.lstrip())
    stripped = text.strip()
    return TextLine(box, stripped, reading.score, tuple(chars[lead:lead + len(stripped)]))

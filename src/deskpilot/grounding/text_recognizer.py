"""deskpilot's own text-line recogniser through ONNX Runtime: a small CNN trained here (`deskpilot recognizer train`)
on screen text, several times cheaper per line than PP-OCR's recogniser. It reads every new text crop first; a
reading it is not sure of (its least sure column below the `accept` threshold the model carries, chosen when it was
trained so that accepted readings agree with PP-OCR on held-out screens) goes to PP-OCR instead (grounding.ocr).

Lines are seen in grey, contrast-stretched and turned light-on-dark, LINE_HEIGHT pixels tall; the same
`line_batch` prepares them for training and for reading."""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from deskpilot.core.errors import GroundingError

from .ctc import Reading, greedy_decode_batch
from .device_choice import sample_screen
from .onnx_session import fixed_shapes, ladder, open_on_best_device, rungs, session_device

if TYPE_CHECKING:
    from .onnx_session import ModelSession

LINE_HEIGHT = 32
COLUMN_STRIDE = 4  # input pixels per output column
BUNDLED = "text_recognizer.onnx"
BATCH = 16  # lines per run (grounding.ocr gives them in batches of similar width)
SMALLEST_WIDTH = 64  # on CUDA a batch is padded to ladder(width, SMALLEST_WIDTH) and a multiple of BATCH lines
READY_WIDTH = 1536  # on CUDA the ladder's widths up to this one get their sessions at load


def bundled_model() -> Path:
    return Path(str(resources.files("deskpilot.resources") / "models" / BUNDLED))


def percentiles(image: np.ndarray, percents: tuple[float, ...]) -> list[float]:
    """np.percentile's default (linear) percentiles of a uint8 image, to the last bit, from its histogram: a third
    of np.percentile's time on a line crop, whose normalisation is most of the small recogniser's Python time."""
    below = np.cumsum(np.bincount(image.ravel(), minlength=256))  # values <= v: below[v]
    last = image.size - 1
    values = []
    for percent in percents:
        position = last * (percent / 100)
        previous = math.floor(position)
        gamma = position - previous
        low = int(np.searchsorted(below, min(previous, last), side="right"))  # the value at that sorted place
        high = int(np.searchsorted(below, min(previous + 1, last), side="right"))
        values.append(low + (high - low) * gamma if gamma < 0.5 else high - (high - low) * (1 - gamma))
    return values


def normalise_line(crop: np.ndarray) -> np.ndarray:
    """A BGR or grey crop -> float32 grey, LINE_HEIGHT tall, ink bright on a dark background in [0, 1]."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    height, width = grey.shape[:2]
    resized = cv2.resize(grey, (max(LINE_HEIGHT // 2, round(LINE_HEIGHT * width / max(1, height))), LINE_HEIGHT),
                         interpolation=cv2.INTER_AREA if height > LINE_HEIGHT else cv2.INTER_LINEAR)
    low, high = percentiles(resized, (2, 98))
    stretched = np.clip((resized.astype(np.float32) - low) / max(high - low, 16.0), 0.0, 1.0)
    border = np.concatenate([stretched[0], stretched[-1], stretched[:, 0], stretched[:, -1]])
    ink_bright: np.ndarray = 1.0 - stretched if np.median(border) > 0.5 else stretched
    return ink_bright


def line_batch(lines: list[np.ndarray], fixed: bool = False) -> tuple[np.ndarray, list[int]]:
    """Normalised lines -> an N x 1 x LINE_HEIGHT x W batch (W a multiple of COLUMN_STRIDE, padded with
    background) and each line's own width; `fixed`: N a multiple of BATCH and W a ladder size, for sessions kept
    per input shape (CUDA)."""
    widths = [line.shape[1] for line in lines]
    width = max(widths) + -max(widths) % COLUMN_STRIDE
    rows = len(lines)
    if fixed:
        width, rows = ladder(width, SMALLEST_WIDTH), rows + -rows % BATCH
    batch = np.zeros((rows, 1, LINE_HEIGHT, width), np.float32)
    for row, line in enumerate(lines):
        batch[row, 0, :, :line.shape[1]] = line
    return batch, widths


class LineRecognizer:
    """The small recogniser (an ONNX file whose metadata holds its `alphabet` and `accept` threshold)."""

    def __init__(self, path: Path, device: str = "auto", threads: int = 0):
        self.path = path
        if not path.is_file():
            raise GroundingError(f"no text recogniser model at {path} (train one with `deskpilot recognizer train`, "
                                 "or turn text_recognizer off)")
        self._session, self.choice = open_on_best_device(path, device, threads, "text recogniser", self._one_screen)
        meta = self._session.get_modelmeta().custom_metadata_map
        try:
            self.alphabet = ["", *json.loads(meta["alphabet"])]  # CTC blank first
            self.accept = float(meta["accept"])
        except (KeyError, ValueError) as exc:
            raise GroundingError(f"cannot load the text recogniser {path}: its metadata lacks {exc}") from None
        self._input = self._session.get_inputs()[0].name
        if fixed_shapes(self._session):  # every ladder width's session made at load
            for width in rungs(SMALLEST_WIDTH, READY_WIDTH):
                self._session.prepare({self._input: line_batch([np.zeros((LINE_HEIGHT, width), np.float32)], True)[0]})
        else:  # first-run set-up
            self._session.run(None, {self._input: line_batch([np.zeros((LINE_HEIGHT, 256), np.float32)])[0]})

    @staticmethod
    def _one_screen(session: ModelSession) -> None:
        """What one screen asks of the recogniser (device_choice's workload): its lines in batches of BATCH, lines
        of similar width together."""
        lines = sorted((normalise_line(crop) for crop in sample_screen().line_crops()), key=lambda line: line.shape[1])
        for start in range(0, len(lines), BATCH):
            batch = line_batch(lines[start:start + BATCH], fixed_shapes(session))[0]
            session.run(None, {session.get_inputs()[0].name: batch})

    @property
    def device(self) -> str:
        return session_device(self._session)

    def read(self, crops: list[np.ndarray]) -> list[Reading]:
        """Readings of BGR text-line crops (one batch: give crops of similar width together)."""
        batch, widths = line_batch([normalise_line(c) for c in crops], fixed_shapes(self._session))
        probabilities = self._session.run(None, {self._input: batch})[0][:len(crops)]
        return greedy_decode_batch(probabilities, self.alphabet, [width / batch.shape[3] for width in widths])

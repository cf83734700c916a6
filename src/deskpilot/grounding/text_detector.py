"""deskpilot's own text-line detector through ONNX Runtime: the UI detector's small network (grounding.detector)
trained here (`deskpilot recognizer train-detector`) to mark the core of every text line, as PP-OCR's detector
finds them on screens, several times faster than PP-OCR's detector.

The network marks, per STRIDE x STRIDE cell, whether the cell lies in a line's core (the middle CORE_SHARE of its
height, its whole length but the ends) and, for core cells, the distances to the line box's four sides. A line is
a connected run of core cells: its top and bottom are the median of what its cells say, its left and right what its
first and last columns say."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box

from . import onnx_graph
from .detector import STRIDE, screen_bytes
from .device_choice import sample_screen
from .regions import content_regions
from .onnx_session import fixed_shapes, ladder, open_on_best_device, session_device

if TYPE_CHECKING:
    from .onnx_session import ModelSession

CORE_SHARE = 0.5  # of a line's height, around its middle
END_SHARE = 0.25  # of a line's height, left out of the core at each end
KIND = "text_lines"
SMALLEST_SIDE = 256  # on CUDA input sides are padded to ladder(side, SMALLEST_SIDE): few shapes, each its session

BUNDLED = "text_detector.onnx"


def bundled_model() -> Path:
    return Path(str(resources.files("deskpilot.resources") / "models" / BUNDLED))


def core_box(box: Box) -> tuple[float, float, float, float]:
    """The part of a line box (x0, y0, x1, y1, in the same pixels) whose cells the network marks as core."""
    cy = (box.y0 + box.y1) / 2
    half_height = box.height * CORE_SHARE / 2
    end = min(box.height * END_SHARE, box.width / 4)
    return box.x0 + end, cy - half_height, box.x1 - end, cy + half_height


def decode_lines(scores: np.ndarray, ltrb: np.ndarray, scale: float, threshold: float) -> list[Box]:
    """Network outputs (scores: H x W core probabilities; ltrb: 4 x H x W distances to the box sides in input
    pixels) -> line boxes in image pixels."""
    mask = (scores > threshold).astype(np.uint8)
    count, labels = cv2.connectedComponents(mask, connectivity=4)
    if count <= 1:
        return []
    rows, cols = np.nonzero(labels)
    owners = labels[rows, cols].astype(np.intp)
    centre_x, centre_y = (cols + 0.5) * STRIDE, (rows + 0.5) * STRIDE
    left, top, right, bottom = (ltrb[i, rows, cols] for i in range(4))
    lowest, highest = np.full(count, cols.max(), cols.dtype), np.zeros(count, cols.dtype)
    np.minimum.at(lowest, owners, cols)
    np.maximum.at(highest, owners, cols)
    first, last = cols == lowest[owners], cols == highest[owners]  # each line's first and last columns
    x0 = _medians(owners[first], (centre_x - left)[first])
    x1 = _medians(owners[last], (centre_x + right)[last])
    y0, y1 = _medians(owners, centre_y - top), _medians(owners, centre_y + bottom)
    boxes = []
    for line in zip(x0, y0, x1, y1):
        box = Box(*(round(float(v) / scale) for v in line))
        if box.width > 3 and box.height > 3:
            boxes.append(box)
    return boxes


def _starts(sorted_owners: np.ndarray) -> np.ndarray:
    """Where each owner's run begins in a sorted array of owners."""
    return np.flatnonzero(np.r_[True, sorted_owners[1:] != sorted_owners[:-1]])


def _medians(owners: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The median of `values` per owner, owners in increasing order (as np.median: the mean of the two middle
    values when their number is even)."""
    order = np.lexsort((values, owners))
    ordered = values[order]
    starts = _starts(owners[order])
    sizes = np.diff(np.r_[starts, len(ordered)])
    medians: np.ndarray = (ordered[starts + (sizes - 1) // 2] + ordered[starts + sizes // 2]) / 2
    return medians


class TextLineDetector:
    """The ONNX text-line detector (its metadata holds `kind` = text_lines and the core `threshold`)."""

    def __init__(self, path: Path, device: str = "auto", threads: int = 0):
        self.path = path
        if not path.is_file():
            raise GroundingError(f"no text-line detector model at {path} (train one with `deskpilot recognizer "
                                 "train-detector`, or turn text_detector off)")
        self._session, self.choice = open_on_best_device(path, device, threads, "text-line detector",
                                                         self._one_screen, rewrite=onnx_graph.byte_input)
        meta = self._session.get_modelmeta().custom_metadata_map
        if meta.get("kind") != KIND:
            raise GroundingError(f"cannot load the text-line detector {path}: it is not one (its metadata says "
                                 f"kind={meta.get('kind')!r})")
        try:
            self.threshold = float(meta["threshold"])
        except (KeyError, ValueError) as exc:
            raise GroundingError(f"cannot load the text-line detector {path}: its metadata lacks {exc}") from None
        self._session.run(None, {"image": np.zeros((1, SMALLEST_SIDE, SMALLEST_SIDE, 3), np.uint8)})  # set-up

    @staticmethod
    def _one_screen(session: ModelSession) -> None:
        """What one screen asks of the detector (device_choice's workload): its content regions, seen at 1.5x as
        text of a size not seen yet is; where each input shape has its session (CUDA), the whole screen at once."""
        image = sample_screen().image
        crops = [image] if fixed_shapes(session) else [image[r.y0:r.y1, r.x0:r.x1] for r in content_regions(image)]
        for crop in crops:
            session.run(None, {"image": screen_bytes(crop, 1.5, _side(session))})

    @property
    def whole_frame(self) -> bool:
        """Whether lines are found on the whole frame at once rather than region by region: where each input shape
        has its session (CUDA), one run of one shape per screen size costs less than runs of the regions' many
        shapes (each new shape a new session); the regions then only say which lines to keep."""
        return fixed_shapes(self._session)

    @property
    def device(self) -> str:
        return session_device(self._session)

    def find(self, image: np.ndarray, scale: float = 1.0) -> list[Box]:
        """Text lines of an RGB image seen at `scale`, in its pixels."""
        if image.size == 0 or min(image.shape[:2]) < 8:
            return []
        scores, ltrb = self._session.run(None, {"image": screen_bytes(image, scale, _side(self._session))})
        frame = Box(0, 0, image.shape[1], image.shape[0])
        return [b.clipped(frame) for b in decode_lines(scores[0, 0], ltrb[0], scale, self.threshold)]


def _side(session: ModelSession) -> Callable[[int], int] | None:
    """How an input's sides are padded: to the ladder where each input shape has its session (CUDA), so the
    crops grounding reads apart (a line's parts beside a check box) come in a few shapes, not one each."""
    return (lambda length: ladder(length, SMALLEST_SIDE)) if fixed_shapes(session) else None

"""deskpilot's own UI-element detector through ONNX Runtime: a screenshot -> boxes of buttons, fields, check boxes,
radio buttons, dropdowns, links, tabs, icons, sliders, menu items and list items, with scores. CUDA when
onnxruntime-gpu sees a GPU, CPU otherwise. The model (trained by `deskpilot detector train`) carries its class names
and input scale in its metadata; the bundled one lives in deskpilot/resources/models."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box, reading_order
from deskpilot.core.observation import ElementRole

from . import onnx_graph
from .device_choice import sample_screen
from .onnx_session import open_on_best_device, session_device

if TYPE_CHECKING:
    from .onnx_session import ModelSession

UI_CLASSES: tuple[ElementRole, ...] = ("button", "input", "checkbox", "radio", "dropdown", "link", "tab", "icon",
                                       "slider", "menu_item", "list_item")
STRIDE = 4  # output cells per input pixel side
PAD_TO = 32  # input sides are padded to a multiple of the network's coarsest stride
SCORE_THRESHOLD = 0.3
OVERLAP_IOU = 0.6  # two detections this alike are one element (the better-scored class wins)
BUNDLED = "ui_detector.onnx"


@dataclass(frozen=True)
class Detection:
    """One element the detector found; `box` in the pixels of the image it was given."""

    box: Box
    role: ElementRole
    score: float


def bundled_model() -> Path:
    return Path(str(resources.files("deskpilot.resources") / "models" / BUNDLED))


def screen_bytes(image: np.ndarray, scale: float, side: Callable[[int], int] | None = None) -> np.ndarray:
    """RGB uint8 image -> what the detectors' sessions take (onnx_graph.byte_input): scaled, padded (black) to a
    multiple of PAD_TO or, with `side`, to what it gives for each side, 1 x H x W x 3 uint8."""
    height, width = image.shape[:2]
    scaled = cv2.resize(image, (max(1, round(width * scale)), max(1, round(height * scale))),
                        interpolation=cv2.INTER_AREA) if scale != 1.0 else image
    height, width = scaled.shape[:2]
    padded = side or (lambda length: length + -length % PAD_TO)
    framed = cv2.copyMakeBorder(np.ascontiguousarray(scaled), 0, padded(height) - height, 0, padded(width) - width,
                                cv2.BORDER_CONSTANT, value=(0, 0, 0))
    return framed[None]


def prepare(image: np.ndarray, scale: float) -> np.ndarray:
    """RGB uint8 image -> the network's own input, as training feeds it: `screen_bytes` as NCHW float in [0, 1]."""
    planes: np.ndarray = np.divide(screen_bytes(image, scale).transpose(0, 3, 1, 2), np.float32(255.0),
                                   dtype=np.float32)
    return planes


def decode(scores: np.ndarray, ltrb: np.ndarray, classes: tuple[ElementRole, ...], scale: float,
           threshold: float = SCORE_THRESHOLD) -> list[Detection]:
    """Network outputs (scores: C x H x W per class and cell; ltrb: 4 x H x W distances from each cell's centre to
    the box sides, in input pixels) -> detections at the local maxima of the scores, in image pixels, with
    overlapping ones merged."""
    kernel = np.ones((3, 3), np.uint8)
    peaks = np.stack([np.where(s >= cv2.dilate(s, kernel), s, 0.0) for s in scores])
    found: list[Detection] = []
    for index, y, x in zip(*np.nonzero(peaks > threshold)):
        cx, cy = (x + 0.5) * STRIDE, (y + 0.5) * STRIDE
        left, top, right, bottom = ltrb[:, y, x]
        box = Box(round((cx - left) / scale), round((cy - top) / scale), round((cx + right) / scale),
                  round((cy + bottom) / scale))
        if box.width > 1 and box.height > 1:
            found.append(Detection(box, classes[index], float(peaks[index, y, x])))
    kept: list[Detection] = []
    for detection in sorted(found, key=lambda d: -d.score):
        if all(detection.box.iou(other.box) < OVERLAP_IOU for other in kept):
            kept.append(detection)
    return sorted(kept, key=lambda d: reading_order(d.box))


def _metadata(path: Path, session: ModelSession) -> tuple[tuple[ElementRole, ...], float]:
    """The class names and input scale a detector model carries."""
    try:
        meta = session.get_modelmeta().custom_metadata_map
        return tuple(json.loads(meta["classes"])), float(meta["input_scale"])
    except (KeyError, ValueError) as exc:  # an ONNX model, but not one of ours
        raise GroundingError(f"cannot load the detector {path}: it carries no {exc} metadata") from None


class UiDetector:
    """The ONNX detector. `model` defaults to the bundled one; `threads` 0 lets ONNX Runtime choose."""

    def __init__(self, model: Path | None = None, device: str = "auto", threads: int = 0,
                 threshold: float = SCORE_THRESHOLD):
        self.path = model or bundled_model()
        self.threshold = threshold
        if not self.path.is_file():
            raise GroundingError(f"no detector model at {self.path} (train one with `deskpilot detector train`)")
        self.session, self.choice = open_on_best_device(self.path, device, threads, "detector",
                                                        self._one_frame, rewrite=onnx_graph.byte_input)
        self.classes, self.scale = _metadata(self.path, self.session)

    def _one_frame(self, session: ModelSession) -> None:
        """What one screen asks of the detector (device_choice's workload)."""
        session.run(None, {"image": screen_bytes(sample_screen().image, _metadata(self.path, session)[1])})

    @property
    def device(self) -> str:
        return session_device(self.session)

    def detect(self, image: np.ndarray) -> list[Detection]:
        """Elements on an RGB image, boxes in its pixels."""
        if image.size == 0 or min(image.shape[:2]) < 8:
            return []
        scores, ltrb = self.session.run(None, {"image": screen_bytes(image, self.scale)})
        height, width = image.shape[:2]
        frame = Box(0, 0, width, height)
        return [Detection(d.box.clipped(frame), d.role, d.score)
                for d in decode(scores[0], ltrb[0], self.classes, self.scale, self.threshold)]

"""Scoring the UI-element detector: precision and recall per class at IoU 0.5 (a detection matches an unmatched
true box of its class, best scores first), on held-out synthetic screens or any frames with true boxes (the
MiniWoB pages of deskpilot.evaluation.detector_miniwob); plus the class-blind recall of clickable controls: any
detection at IoU 0.5 (`clickable_recall`), and any detection whose centre, where a click would land, lies inside
the control (`clickable_hit_recall`)."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from deskpilot.core.geometry import Box
from deskpilot.grounding.detector import UI_CLASSES, Detection, UiDetector

from .data import Screen, load_rgb

MATCH_IOU = 0.5


@dataclass
class Tally:
    """Matches counted per class, and how long each frame took."""

    true_positives: Counter = field(default_factory=Counter)
    false_positives: Counter = field(default_factory=Counter)
    false_negatives: Counter = field(default_factory=Counter)
    found_any: int = 0  # true boxes with a detection of any class at IoU >= MATCH_IOU
    hit_any: int = 0  # true boxes with a detection of any class whose centre lies inside them (a click lands)
    truths: int = 0
    milliseconds: list[float] = field(default_factory=list)

    def add(self, detections: list[Detection], truth: list[tuple[Box, str]]) -> None:
        used: set[int] = set()
        for detection in sorted(detections, key=lambda d: -d.score):
            best, best_iou = None, MATCH_IOU
            for index, (box, name) in enumerate(truth):
                if index not in used and name == detection.role and box.iou(detection.box) >= best_iou:
                    best, best_iou = index, box.iou(detection.box)
            if best is None:
                self.false_positives[detection.role] += 1
            else:
                used.add(best)
                self.true_positives[detection.role] += 1
        for index, (box, name) in enumerate(truth):
            if index not in used:
                self.false_negatives[name] += 1
        self.truths += len(truth)
        self.found_any += sum(any(box.iou(d.box) >= MATCH_IOU for d in detections) for box, _ in truth)
        self.hit_any += sum(any(box.contains(*d.box.center) for d in detections) for box, _ in truth)

    def report(self) -> dict[str, Any]:
        classes: dict[str, dict[str, float | int]] = {}
        for name in UI_CLASSES:
            tp, fp, fn = self.true_positives[name], self.false_positives[name], self.false_negatives[name]
            if tp + fp + fn:
                classes[name] = {"precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
                                 "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
                                 "true_positives": tp, "false_positives": fp, "false_negatives": fn}
        tp, fp = sum(self.true_positives.values()), sum(self.false_positives.values())
        return {"precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
                "recall": round(tp / self.truths, 4) if self.truths else 0.0,
                "clickable_recall": round(self.found_any / self.truths, 4) if self.truths else 0.0,
                "clickable_hit_recall": round(self.hit_any / self.truths, 4) if self.truths else 0.0,
                "boxes": self.truths, "screens": len(self.milliseconds),
                "ms_per_frame": round(statistics.median(self.milliseconds), 2) if self.milliseconds else None,
                "classes": classes}


def evaluate_truths(detector: UiDetector, frames: Iterable[tuple[np.ndarray, list[tuple[Box, str]]]],
                    on_screen: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Per-class precision/recall over (RGB image, true (box, class) pairs) frames, with the time each took."""
    tally = Tally()
    for number, (image, truth) in enumerate(frames, 1):
        started = time.perf_counter()
        detections = detector.detect(image)
        tally.milliseconds.append((time.perf_counter() - started) * 1000)
        tally.add(detections, truth)
        if on_screen is not None:
            on_screen(number)
    return tally.report()


def evaluate_screens(detector: UiDetector, screens: Iterable[Screen],
                     on_screen: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Per-class precision/recall on annotated synthetic screens."""
    return evaluate_truths(detector, ((load_rgb(s.image), list(s.boxes)) for s in screens), on_screen)

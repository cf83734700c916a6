"""Training deskpilot's text-line detector (grounding.text_detector) on harvested pages: whole screens with the
lines PP-OCR's detector found and its recogniser read as text (training.recognizer.data). The network is the UI
detector's (training.detector.model) with one class, trained with accelerate (CPU, one GPU, or `accelerate
launch`) to mark line cores and the distances to the line's sides; then the core threshold is chosen on held-out
pages (the best F1 against PP-OCR's lines), and the model exported to ONNX and checked against PyTorch."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from deskpilot.core.errors import TrainingError
from deskpilot.core.geometry import Box
from deskpilot.grounding.detector import STRIDE, prepare
from deskpilot.grounding.text_detector import KIND, core_box, decode_lines
from deskpilot.training.detector.data import load_rgb
from deskpilot.training.detector.model import UiDetectorNet
from deskpilot.training.detector.train import check_export, export_onnx, fit, random_crop
from deskpilot.training.jobs import TextDetectorTrainConfig

from .data import Page, read_pages
from .train import is_held_out

CHECKPOINT = "text_detector.pt"
ONNX_FILE = "text_detector.onnx"
REPORT = "detector_report.json"
SCALE_RANGE = (0.5, 1.25)  # pages are seen at these scales (grounding detects at 1, 0.75 or 0.5)
MATCH_IOU = 0.5  # a found line is PP-OCR's line when their boxes overlap this much
THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(13))  # core thresholds tried on held-out pages
EVAL_PAGES = 200  # held-out pages scored at most


def line_targets(lines: list[Box], ignored: list[Box], height: int, width: int) -> tuple[np.ndarray, ...]:
    """Targets for an input of `height` x `width` at the output stride: core (h x w, 1 in line cores, 0 elsewhere,
    also in a line's margins, so that neighbouring lines stay apart), weight of each cell's core loss (0 inside
    `ignored` boxes), and the log distances from core cells to their line's sides (4 x h x w)."""
    rows, cols = height // STRIDE, width // STRIDE
    core = np.zeros((rows, cols), np.float32)
    weight = np.ones((rows, cols), np.float32)
    distances = np.zeros((4, rows, cols), np.float32)
    ys, xs = (np.arange(rows, dtype=np.float32) + 0.5) * STRIDE, (np.arange(cols, dtype=np.float32) + 0.5) * STRIDE

    def cells(x0: float, y0: float, x1: float, y1: float) -> tuple[slice, slice]:
        return (slice(int(np.searchsorted(ys, y0)), int(np.searchsorted(ys, y1, "right"))),
                slice(int(np.searchsorted(xs, x0)), int(np.searchsorted(xs, x1, "right"))))

    for box in ignored:
        weight[cells(*box)] = 0.0
    for box in sorted(lines, key=lambda b: -b.area):  # a small line inside a big one keeps its cells
        row_part, col_part = cells(*core_box(box))
        if row_part.start >= row_part.stop or col_part.start >= col_part.stop:  # a core thinner than a cell
            centre_row = min(rows - 1, int((box.y0 + box.y1) / 2 // STRIDE))
            centre_col = min(cols - 1, int((box.x0 + box.x1) / 2 // STRIDE))
            row_part = slice(centre_row, centre_row + 1) if row_part.start >= row_part.stop else row_part
            col_part = slice(centre_col, centre_col + 1) if col_part.start >= col_part.stop else col_part
        core[row_part, col_part] = 1.0
        weight[row_part, col_part] = 1.0
        grid_y, grid_x = np.meshgrid(ys[row_part], xs[col_part], indexing="ij")
        sides = np.stack([grid_x - box.x0, grid_y - box.y0, box.x1 - grid_x, box.y1 - grid_y])
        distances[:, row_part, col_part] = np.log(np.maximum(sides, 0.5) / STRIDE)
    return core, weight, distances


class PageCrops(torch.utils.data.Dataset):
    """Random crops of the pages at random scales (SCALE_RANGE), mostly around a line, with their targets. Lines
    the crop cuts through keep their visible part when most of them is inside, and are ignored otherwise."""

    def __init__(self, pages: list[Page], crop: int, seed: int = 0):
        self.pages, self.crop = pages, crop
        self.rng = random.Random(seed)

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, ...]:
        page, rng, crop = self.pages[index], self.rng, self.crop
        scale = rng.uniform(*SCALE_RANGE)
        image = cv2.resize(load_rgb(page.image), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        canvas, placed = random_crop(image, list(page.boxes), scale, crop, rng)
        lines, ignored = [], []
        for moved, inside in placed:
            if inside.width < 2 or inside.height < 2:
                continue
            (lines if inside.area >= 0.7 * moved.area and inside.height == moved.height else ignored).append(inside)
        core, weight, distances = line_targets(lines, ignored, crop, crop)
        pixels = torch.from_numpy(canvas).permute(2, 0, 1).float() / 255.0
        return pixels, torch.from_numpy(core), torch.from_numpy(weight), torch.from_numpy(distances)


def line_loss(logits: torch.Tensor, log_distance: torch.Tensor, core: torch.Tensor, weight: torch.Tensor,
              target_distance: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(core loss, side loss): weighted binary cross-entropy plus soft-dice on the cores, and L1 on the log
    distances of core cells."""
    logits = logits[:, 0]
    cross = (F.binary_cross_entropy_with_logits(logits, core, reduction="none") * weight).sum() / \
        weight.sum().clamp(min=1.0)
    prob = torch.sigmoid(logits) * weight
    dice = 1 - (2 * (prob * core).sum() + 1) / (prob.sum() + core.sum() + 1)
    sides = (F.l1_loss(log_distance, target_distance, reduction="none").sum(1) * core).sum() / \
        core.sum().clamp(min=1.0)
    return cross + dice, sides


def train_text_detector(config: TextDetectorTrainConfig,
                        on_progress: Callable[[int, int, dict[str, float]], None] | None = None) -> dict[str, object]:
    """Train, save text_detector.pt, choose the threshold on held-out pages, export text_detector.onnx and check
    it; returns the report (also written to detector_report.json)."""
    pages = [page for folder in config.data for page in read_pages(folder)]
    train_pages = [p for p in pages if not is_held_out(p.group, config.held_out)]
    held = [p for p in pages if is_held_out(p.group, config.held_out)]
    if not train_pages or not held:
        raise TrainingError(f"{len(pages)} harvested pages are too few to train and hold some out: harvest more "
                            "with `deskpilot recognizer harvest`")
    torch.manual_seed(config.seed)
    loader = torch.utils.data.DataLoader(PageCrops(train_pages, config.crop, config.seed), config.batch_size,
                                         shuffle=True, drop_last=len(train_pages) >= config.batch_size)

    def losses(net: UiDetectorNet, batch: list[torch.Tensor]) -> dict[str, torch.Tensor]:
        pixels, *targets = batch
        core_loss, side_loss = line_loss(*net(pixels), *targets)
        return {"core_loss": core_loss, "side_loss": side_loss}

    fitted = fit(UiDetectorNet(1, config.width), loader, losses, config.steps, config.learning_rate, config.out,
                 config.max_minutes, config.log_every, on_progress)
    report: dict[str, object] = {"steps": fitted.steps, "seconds": round(fitted.seconds, 1),
                                 "loss": round(fitted.last["loss"], 4),
                                 "pages": {"train": len(train_pages), "held_out": len(held)}}
    if fitted.main:
        torch.save({"state_dict": fitted.net.state_dict(), "width": fitted.net.width}, config.out / CHECKPOINT)
        report.update(threshold_and_export(fitted.net, held, config.out / ONNX_FILE, config.seed))
        (config.out / REPORT).write_text(json.dumps(report, indent=1) + "\n")
    return report


def matched(found: list[Box], truth: list[Box]) -> int:
    """How many of `truth` a distinct box of `found` overlaps by MATCH_IOU or more (greedy, best overlaps first)."""
    pairs = sorted(((f.iou(t), i, j) for i, f in enumerate(found) for j, t in enumerate(truth)
                    if f.intersects(t)), reverse=True)
    used_found, used_truth = set(), set()
    for iou, i, j in pairs:
        if iou < MATCH_IOU:
            break
        if i not in used_found and j not in used_truth:
            used_found.add(i)
            used_truth.add(j)
    return len(used_truth)


def threshold_and_export(net: UiDetectorNet, held: list[Page], path: Path, seed: int) -> dict[str, object]:
    """Choose the core threshold with the best F1 against PP-OCR's lines on (up to EVAL_PAGES of) the held-out
    pages, seen whole at scale 1 as grounding sees a new screen; export with it and check the export."""
    pages = random.Random(seed).sample(held, min(EVAL_PAGES, len(held)))
    outputs, truths = [], []
    with torch.no_grad():
        for page in pages:
            scores, ltrb = net.eval()(torch.from_numpy(prepare(load_rgb(page.image), 1.0)))
            outputs.append((scores[0, 0].numpy(), ltrb[0].numpy()))
            truths.append(list(page.boxes))
    total = sum(len(t) for t in truths)
    scored = []
    for threshold in THRESHOLDS:
        hits = found = 0
        for (scores, ltrb), truth in zip(outputs, truths):
            boxes = decode_lines(scores, ltrb, 1.0, threshold)
            hits += matched(boxes, truth)
            found += len(boxes)
        recall, precision = hits / max(1, total), hits / max(1, found)
        scored.append({"threshold": threshold, "recall": round(recall, 4), "precision": round(precision, 4),
                       "f1": round(2 * recall * precision / max(1e-9, recall + precision), 4)})
    best = max(scored, key=lambda s: s["f1"])
    export_onnx(net, path, {"kind": KIND, "threshold": str(best["threshold"])})
    difference = check_export(net, path, load_rgb(pages[0].image), 1.0)
    return {"held_out_pages": len(pages), "held_out_lines": total, **best, "thresholds": scored, "onnx": str(path),
            "onnx_max_difference": difference}


"""Training the UI-element detector on synthetic screens (training.detector.data) with accelerate (CPU, one GPU, or
many through `accelerate launch`), then exporting it to ONNX with its class names and input scale in the model's
metadata, and checking that ONNX Runtime gives the same outputs as PyTorch.

Each sample is a random crop of a screen scaled around the detector's input scale; targets are CenterNet-style
Gaussian heat maps at element centres and the log distances from centre cells to the box sides."""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from deskpilot.core.errors import TrainingError
from deskpilot.core.geometry import Box
from deskpilot.grounding.detector import STRIDE, UI_CLASSES, prepare
from deskpilot.grounding.onnx_session import open_session

from .data import Screen, load_rgb, read_dataset
from .model import UiDetectorNet
from deskpilot.training.metrics import MetricsWriter, plot_metrics
from deskpilot.training.jobs import DetectorTrainConfig

INPUT_SCALE = 0.5  # screens are seen at half size: 1280x800 -> 640x400
CHECKPOINT = "detector.pt"
ONNX_FILE = "ui_detector.onnx"
EQUAL_TOLERANCE = 1e-3


def make_targets(boxes: list[tuple[Box, int]], height: int, width: int) -> tuple[np.ndarray, ...]:
    """Targets for an input of `height` x `width`: heat (C x h x w), log distances (4 x h x w), and the weight
    of each cell's distance loss (h x w), at the output stride."""
    rows, cols = height // STRIDE, width // STRIDE
    heat = np.zeros((len(UI_CLASSES), rows, cols), np.float32)
    distances = np.zeros((4, rows, cols), np.float32)
    weight = np.zeros((rows, cols), np.float32)
    ys, xs = (np.arange(rows, dtype=np.float32) + 0.5) * STRIDE, (np.arange(cols, dtype=np.float32) + 0.5) * STRIDE
    grid_x, grid_y = np.meshgrid(xs, ys)
    for box, index in sorted(boxes, key=lambda b: -b[0].area):  # small elements win cells they share
        cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
        sx, sy = max(0.8 * STRIDE, box.width / 6), max(0.8 * STRIDE, box.height / 6)
        blob = np.exp(-((ys[:, None] - cy) ** 2) / (2 * sy * sy) - ((xs[None, :] - cx) ** 2) / (2 * sx * sx))
        centre_row, centre_col = min(rows - 1, int(cy // STRIDE)), min(cols - 1, int(cx // STRIDE))
        blob[centre_row, centre_col] = 1.0
        np.maximum(heat[index], blob, out=heat[index])
        # Cells near the centre learn the box: those inside the middle third of it, and the centre cell itself.
        near = (np.abs(ys - cy)[:, None] <= max(box.height / 6, STRIDE / 2)) & \
               (np.abs(xs - cx)[None, :] <= max(box.width / 6, STRIDE / 2))
        near[centre_row, centre_col] = True
        sides = np.stack([grid_x[near] - box.x0, grid_y[near] - box.y0, box.x1 - grid_x[near], box.y1 - grid_y[near]])
        distances[:, near] = np.log(np.maximum(sides, 0.5) / STRIDE)
        weight[near] = blob[near]
    return heat, distances, weight


SCALE_RANGE = (0.7, 1.5)  # training scales, relative to INPUT_SCALE


def random_crop(image: np.ndarray, boxes: list[Box], scale: float, crop: int,
                rng: random.Random) -> tuple[np.ndarray, list[tuple[Box, Box]]]:
    """A `crop` x `crop` canvas cut from `image` (a screen already resized by `scale`), centred near one of `boxes`
    (in the screen's own pixels) most of the time, so sparse screens still teach something, and padded with a
    random grey where the screen ends; with each box moved into the canvas, whole and clipped to the screen's part."""
    height, width = image.shape[:2]
    if boxes and rng.random() < 0.8:
        box = rng.choice(boxes)
        cx, cy = (box.x0 + box.x1) / 2 * scale, (box.y0 + box.y1) / 2 * scale
        x0, y0 = int(cx - rng.uniform(0.1, 0.9) * crop), int(cy - rng.uniform(0.1, 0.9) * crop)
    else:
        x0, y0 = rng.randint(0, max(0, width - crop)), rng.randint(0, max(0, height - crop))
    x0, y0 = max(0, min(x0, width - crop)), max(0, min(y0, height - crop))
    canvas = np.full((crop, crop, 3), rng.randint(0, 255), np.uint8)
    part = image[y0:y0 + crop, x0:x0 + crop]
    canvas[:part.shape[0], :part.shape[1]] = part
    frame = Box(0, 0, part.shape[1], part.shape[0])
    placed = []
    for box in boxes:
        moved = Box(round(box.x0 * scale) - x0, round(box.y0 * scale) - y0, round(box.x1 * scale) - x0,
                    round(box.y1 * scale) - y0)
        placed.append((moved, moved.clipped(frame)))
    return canvas, placed


class CropDataset(torch.utils.data.Dataset):
    """Random crops of the screens at random scales around INPUT_SCALE, with their targets. Screens are decoded
    once and kept at the largest training scale (a 2,400-screen set takes about 4 GB)."""

    def __init__(self, screens: list[Screen], crop: int, seed: int = 0):
        self.screens, self.crop = screens, crop
        self.rng = random.Random(seed)
        self._decoded: dict[int, np.ndarray] = {}

    def _image(self, index: int) -> np.ndarray:
        if index not in self._decoded:
            top = INPUT_SCALE * SCALE_RANGE[1]
            self._decoded[index] = cv2.resize(load_rgb(self.screens[index].image), None, fx=top, fy=top,
                                              interpolation=cv2.INTER_AREA)
        return self._decoded[index]

    def __len__(self) -> int:
        return len(self.screens)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, ...]:
        screen, rng, crop = self.screens[index], self.rng, self.crop
        scale = INPUT_SCALE * rng.uniform(*SCALE_RANGE)
        relative = scale / (INPUT_SCALE * SCALE_RANGE[1])
        image = cv2.resize(self._image(index), None, fx=relative, fy=relative, interpolation=cv2.INTER_AREA)
        canvas, placed = random_crop(image, [box for box, _ in screen.boxes], scale, crop, rng)
        boxes: list[tuple[Box, int]] = []
        for (moved, inside), (_, name) in zip(placed, screen.boxes):
            if inside.width >= 2 and inside.height >= 2 and inside.area >= 0.6 * moved.area:
                boxes.append((inside, UI_CLASSES.index(name)))  # type: ignore[arg-type]
        heat, distances, weight = make_targets(boxes, crop, crop)
        pixels = torch.from_numpy(canvas).permute(2, 0, 1).float() / 255.0
        return pixels, torch.from_numpy(heat), torch.from_numpy(distances), torch.from_numpy(weight)


def focal_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss, per element centre."""
    prob = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = target.eq(1.0).float()
    positive = -torch.log(prob) * (1 - prob) ** 2 * centre
    negative = -torch.log(1 - prob) * prob ** 2 * (1 - target) ** 4 * (1 - centre)
    return (positive.sum() + negative.sum()) / centre.sum().clamp(min=1.0)


def detector_loss(heat: torch.Tensor, log_distance: torch.Tensor, target_heat: torch.Tensor,
                  target_distance: torch.Tensor, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(heat-map loss, box loss): focal loss, and L1 on log distances weighted towards box centres."""
    box = (F.l1_loss(log_distance, target_distance, reduction="none").sum(1) * weight).sum() / \
        weight.sum().clamp(min=1.0)
    return focal_loss(heat, target_heat), box


@dataclass
class Fitted:
    """What `fit` leaves: the trained network (unwrapped, on the CPU, in eval mode), steps taken, seconds, the last
    step's metrics, and whether this is the main process (the one that saves and exports)."""

    net: UiDetectorNet
    steps: int
    seconds: float
    last: dict[str, float]
    main: bool


def fit(model: UiDetectorNet, loader: torch.utils.data.DataLoader,
        losses: Callable[[UiDetectorNet, list[torch.Tensor]], dict[str, torch.Tensor]], steps: int,
        learning_rate: float, out: Path, max_minutes: float | None = None, log_every: int = 10,
        on_progress: Callable[[int, int, dict[str, float]], None] | None = None) -> Fitted:
    """Train the detector network for `steps` (going round the loader as often as it takes, or until max_minutes)
    with accelerate: AdamW, warm-up then cosine decay; `losses` gives a step's named losses for a batch, summed
    into the loss. Metrics go to out/metrics.csv and a plot."""
    from accelerate import Accelerator

    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters(), learning_rate, weight_decay=1e-4)
    warmup = min(200, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / max(1, warmup)) * (
        0.5 * (1 + math.cos(math.pi * min(1.0, step / max(1, steps))))) + 0.02)
    model, optimizer, loader, schedule = accelerator.prepare(model, optimizer, loader, schedule)
    out.mkdir(parents=True, exist_ok=True)
    metrics = MetricsWriter(out)
    if accelerator.is_main_process:
        metrics.start()
    started, step, last = time.monotonic(), 0, {}
    deadline = started + 60 * max_minutes if max_minutes else math.inf
    model.train()
    while step < steps and time.monotonic() <= deadline:
        for batch in loader:
            parts = losses(model, batch)
            loss = sum(parts.values())
            optimizer.zero_grad()
            accelerator.backward(loss)
            optimizer.step()
            schedule.step()
            step += 1
            last = {"loss": loss.item(), **{name: value.item() for name, value in parts.items()},
                    "learning_rate": schedule.get_last_lr()[0]}
            if accelerator.is_main_process and (step % log_every == 0 or step == 1):
                metrics.write(step, last)
            if on_progress is not None:
                on_progress(step, steps, last)
            if step >= steps or time.monotonic() > deadline:
                break
    seconds = time.monotonic() - started
    accelerator.wait_for_everyone()
    accelerator.end_training()  # leaves the process group, which gloo cannot do safely at interpreter exit
    if accelerator.is_main_process:
        plot_metrics(out)
    return Fitted(accelerator.unwrap_model(model).cpu().eval(), step, seconds, last, accelerator.is_main_process)


def train_detector(config: DetectorTrainConfig,
                   on_progress: Callable[[int, int, dict[str, float]], None] | None = None) -> dict[str, object]:
    """Train, save detector.pt, export ui_detector.onnx and check it; returns a summary (steps, seconds, last
    loss, ONNX max difference)."""
    screens = [s for folder in config.data for s in read_dataset(folder)]
    if not screens:
        raise TrainingError("no screens to train on: render some with `deskpilot detector render`")
    torch.manual_seed(config.seed)
    model = load_checkpoint(config.init).train() if config.init else UiDetectorNet(len(UI_CLASSES), config.width)
    loader = torch.utils.data.DataLoader(CropDataset(screens, config.crop, config.seed), config.batch_size,
                                         shuffle=True, drop_last=len(screens) >= config.batch_size)

    def losses(net: UiDetectorNet, batch: list[torch.Tensor]) -> dict[str, torch.Tensor]:
        pixels, heat_target, distance_target, weight = batch
        heat_loss, box_loss = detector_loss(*net(pixels), heat_target, distance_target, weight)
        return {"heat_loss": heat_loss, "box_loss": box_loss}

    fitted = fit(model, loader, losses, config.epochs * len(loader), config.learning_rate, config.out,
                 config.max_minutes, config.log_every, on_progress)
    summary: dict[str, object] = {"steps": fitted.steps, "seconds": round(fitted.seconds, 1), "screens": len(screens),
                                  "loss": round(fitted.last.get("loss", float("nan")), 4)}
    if fitted.main:
        torch.save({"state_dict": fitted.net.state_dict(), "width": fitted.net.width, "classes": list(UI_CLASSES),
                    "input_scale": INPUT_SCALE}, config.out / CHECKPOINT)
        onnx_path = export_onnx(fitted.net, config.out / ONNX_FILE)
        summary["onnx"] = str(onnx_path)
        summary["onnx_max_difference"] = check_export(fitted.net, onnx_path, load_rgb(screens[0].image))
    return summary


def load_checkpoint(path: Path) -> UiDetectorNet:
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        net = UiDetectorNet(len(saved["classes"]), int(saved["width"]))
        net.load_state_dict(saved["state_dict"])
    except (OSError, KeyError, RuntimeError) as exc:
        raise TrainingError(f"cannot load the detector checkpoint {path}: {str(exc).splitlines()[0]}") from None
    return net.eval()


def export_onnx(net: UiDetectorNet, path: Path, metadata: dict[str, str] | None = None) -> Path:
    """ONNX with dynamic input size and `metadata` (default: the UI detector's `classes`, a JSON list, and
    `input_scale`, for grounding.detector)."""
    import onnx

    example = torch.zeros(1, 3, 416, 640)
    torch.onnx.export(net.eval(), (example,), str(path), input_names=["image"], output_names=["scores", "ltrb"],
                      dynamic_axes={"image": {2: "height", 3: "width"}, "scores": {2: "rows", 3: "cols"},
                                    "ltrb": {2: "rows", 3: "cols"}}, opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    for key, value in (metadata or {"classes": json.dumps(list(UI_CLASSES)), "input_scale": str(INPUT_SCALE)}).items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(path))
    return path


def check_export(net: UiDetectorNet, path: Path, image: np.ndarray, scale: float = INPUT_SCALE) -> float:
    """The largest difference between PyTorch's and ONNX Runtime's outputs on `image` (seen at `scale`, as
    grounding sees it); an error when it is over EQUAL_TOLERANCE."""
    pixels = prepare(image, scale)
    with torch.no_grad():
        expected = [t.numpy() for t in net.eval()(torch.from_numpy(pixels))]
    session = open_session(path, device="cpu", what="exported detector")
    got = session.run(None, {"image": pixels})
    # Distances are in pixels (up to ~1600); compare them relative to their size.
    difference = max(float(np.abs(expected[0] - got[0]).max()),
                     float((np.abs(expected[1] - got[1]) / np.maximum(1.0, np.abs(expected[1]))).max()))
    if difference > EQUAL_TOLERANCE:
        raise TrainingError(f"the ONNX export differs from PyTorch by {difference:.2g} (> {EQUAL_TOLERANCE})")
    return difference

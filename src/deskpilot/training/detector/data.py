"""Synthetic detector data on disk: whole screens (a desktop with one rendered web page or Qt window on it) and the
exact box and class of every control.

Layout of a dataset folder: `images/NNNNNN.png`, and `annotations.jsonl` with one line per image
(`{"image": "images/000001.png", "width", "height", "source": "html"|"qt", "boxes": [[x0, y0, x1, y1, "button"],
...]}`). An image is written before the line naming it, so an interrupted render loses at most one screen; running
`render` again on the same folder adds to it."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from deskpilot.core.episode import encode_png, read_image
from deskpilot.core.files import write_atomic
from deskpilot.core.errors import TrainingError
from deskpilot.core.geometry import Box
from deskpilot.grounding.detector import UI_CLASSES

SCREEN_SIZES = ((1280, 800), (1366, 768), (1440, 900), (1920, 1080), (1024, 768), (1600, 900))
ANNOTATIONS = "annotations.jsonl"
SOURCES = ("html", "qt")


class Renderer(Protocol):
    def render(self, rng: random.Random, width: int, height: int) -> tuple[np.ndarray, list[tuple[Box, str]]]:
        """A window `width` x `height` pixels and its controls' boxes."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Screen:
    """One annotated screen: its PNG and its controls (box in image pixels, class name)."""

    image: Path
    width: int
    height: int
    source: str
    boxes: tuple[tuple[Box, str], ...]


def _desktop(rng: random.Random, width: int, height: int) -> np.ndarray:
    """A plain or gradient desktop background."""
    top = np.array([rng.randint(0, 255) for _ in range(3)], np.float32)
    bottom = top if rng.random() < 0.5 else np.array([rng.randint(0, 255) for _ in range(3)], np.float32)
    ramp = np.linspace(0.0, 1.0, height, dtype=np.float32)[:, None, None]
    return np.broadcast_to(top * (1 - ramp) + bottom * ramp, (height, width, 3)).astype(np.uint8).copy()


def compose(rng: random.Random, window: np.ndarray, boxes: list[tuple[Box, str]], width: int,
            height: int) -> tuple[np.ndarray, list[tuple[Box, str]]]:
    """`window` placed at a random spot of a `width` x `height` desktop (sometimes with a title bar above it)."""
    screen = _desktop(rng, width, height)
    win_h, win_w = window.shape[:2]
    bar = rng.choice((0, 0, rng.randint(22, 36)))
    x = rng.randint(0, max(0, width - win_w))
    y = rng.randint(0, max(0, height - win_h - bar))
    if bar:
        shade = rng.randint(30, 235)
        screen[y:y + bar, x:x + win_w] = shade
        cv2.putText(screen, " ".join(rng.sample(("Editor", "Settings", "Mail", "Browser", "Files", "Notes"), 2)),
                    (x + 10, y + bar - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255 - shade,) * 3, 1, cv2.LINE_AA)
    visible_h, visible_w = min(win_h, height - y - bar), min(win_w, width - x)
    screen[y + bar:y + bar + visible_h, x:x + visible_w] = window[:visible_h, :visible_w]
    frame = Box(0, 0, width, height)
    placed = [(box.shifted(x, y + bar).clipped(frame), name) for box, name in boxes]
    return screen, [(box, name) for box, name in placed if box.width >= 3 and box.height >= 3]


def load_rgb(path: Path) -> np.ndarray:
    """A dataset image as RGB, or a one-line error when it is missing or broken."""
    image = read_image(path)
    if image is None:
        raise TrainingError(f"cannot read {path}")
    return image


def read_dataset(folder: Path) -> list[Screen]:
    """Every screen of a dataset folder (a torn last line, from an interrupted render, is skipped)."""
    path = folder / ANNOTATIONS
    if not path.is_file():
        raise TrainingError(f"{folder} is not a detector dataset (no {ANNOTATIONS}); make one with "
                             "`deskpilot detector render`")
    screens: list[Screen] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        boxes = tuple((Box(*map(int, b[:4])), str(b[4])) for b in row["boxes"] if b[4] in UI_CLASSES)
        screens.append(Screen(folder / row["image"], int(row["width"]), int(row["height"]), row["source"], boxes))
    return screens


def render_dataset(folder: Path, count: int, seed: int = 0, sources: tuple[str, ...] = SOURCES,
                   on_screen: Callable[[Screen], None] | None = None) -> list[Screen]:
    """Render `count` more screens into `folder`; screen i of a folder always comes from seed + i."""
    unknown = set(sources) - set(SOURCES)
    if unknown or not sources:
        raise TrainingError(f"unknown source {sorted(unknown)[0] if unknown else '(none)'}: use html and/or qt")
    (folder / "images").mkdir(parents=True, exist_ok=True)
    done = len(read_dataset(folder)) if (folder / ANNOTATIONS).exists() else 0
    renderers: dict[str, Renderer] = {}
    made: list[Screen] = []
    try:
        with (folder / ANNOTATIONS).open("a", encoding="utf-8") as annotations:
            for number in range(done, done + count):
                rng = random.Random(f"{seed}:{number}")
                source = rng.choice(sources)
                if source not in renderers:
                    renderers[source] = _renderer(source)
                width, height = rng.choice(SCREEN_SIZES)
                window_size = (rng.randint(min(480, width), width), rng.randint(min(360, height), height))
                window, boxes = renderers[source].render(rng, *window_size)
                image, boxes = compose(rng, window, boxes, width, height)
                name = f"images/{number:06d}.png"
                write_atomic(folder / name, encode_png(image))
                annotations.write(json.dumps({"image": name, "width": width, "height": height, "source": source,
                                              "boxes": [[*box, cls] for box, cls in boxes]}) + "\n")
                annotations.flush()
                screen = Screen(folder / name, width, height, source, tuple(boxes))
                made.append(screen)
                if on_screen is not None:
                    on_screen(screen)
    finally:
        for renderer in renderers.values():
            renderer.close()
    return made


def _renderer(source: str) -> Renderer:
    if source == "html":
        from .synth.html import HtmlRenderer

        return HtmlRenderer()
    from .synth.qt import QtRenderer

    return QtRenderer()

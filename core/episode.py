"""The on-disk Episode shared by agent runs, recordings and training, written so a crash loses at most one step.

    <root>/<id>/episode.json   metadata; replaced atomically (write temp file, then rename)
    <root>/<id>/steps.jsonl    one JSON line per step, appended and flushed after its frames exist
    <root>/<id>/frames/NNNNNN.png

A reader skips a torn last line (the step in flight when a process died) with a warning.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from .actions import Action
from .errors import DeskpilotError, EpisodeError
from .geometry import Monitor
from .observation import Element

log = logging.getLogger(__name__)

EPISODE_FILE = "episode.json"
STEPS_FILE = "steps.jsonl"
FRAMES_DIR = "frames"
Source = Literal["agent", "demonstration"]


@dataclass
class EpisodeMeta:
    id: str
    task: str
    source: Source
    started: float
    app: str | None = None
    model: str | None = None
    finished: float | None = None
    outcome: str = "running"
    detail: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and v != {}}


@dataclass
class Step:
    """One step: the action taken, the frames around it, why, what was used, and how it went."""

    index: int
    action: Action
    before: str
    after: str | None = None
    thought: str = ""
    monitor: Monitor | None = None
    elements: list[Element] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    verification: dict[str, Any] | None = None
    reward: float | None = None
    dry_run: bool = False
    window: str | None = None  # title of the focused window when the step began

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "index": self.index, "action": self.action.to_dict(), "thought": self.thought,
            "before": self.before, "after": self.after,
            "elements": [e.to_dict() for e in self.elements],
            "timing": {k: round(v, 2) for k, v in self.timing.items()},
        }
        if self.monitor is not None:
            data["monitor"] = self.monitor._asdict()
        for name in ("verification", "reward", "window"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        if self.dry_run:
            data["dry_run"] = True
        return data

    def monitor_for(self, frame: np.ndarray) -> Monitor:
        """The monitor the step was taken on; for steps without one, a monitor covering `frame` exactly."""
        return self.monitor or Monitor(0, 0, frame.shape[1], frame.shape[0])

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        return cls(
            index=int(data["index"]), action=Action.from_dict(data["action"]), before=data["before"],
            after=data.get("after"), thought=data.get("thought", ""),
            monitor=Monitor(**data["monitor"]) if data.get("monitor") else None,
            elements=[Element.from_dict(e) for e in data.get("elements", [])],
            timing=data.get("timing", {}), verification=data.get("verification"), reward=data.get("reward"),
            dry_run=bool(data.get("dry_run", False)), window=data.get("window"),
        )


def new_episode_id() -> str:
    """Sortable by creation time (to the millisecond), unique by a random suffix."""
    now = time.time()
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"{int(now * 1000) % 1000:03d}-" + secrets.token_hex(3)


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` so readers see the old file or the new one, never a half-written one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def encode_png(image_rgb: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise EpisodeError("could not encode a frame as PNG")
    return buf.tobytes()


def read_image(path: Path) -> np.ndarray | None:
    """An image file as RGB, or None when it is missing or not an image (no decoder warnings on stderr)."""
    if not path.is_file():
        return None
    image = cv2.imdecode(np.fromfile(path, np.uint8), cv2.IMREAD_COLOR)
    return None if image is None else cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


class EpisodeWriter:
    """Appends steps to a new episode folder; every write leaves a readable episode behind."""

    def __init__(self, directory: Path, meta: EpisodeMeta):
        self.directory = directory
        self.meta = meta
        self.frames_dir = directory / FRAMES_DIR
        self.frames_dir.mkdir(parents=True, exist_ok=True)
        self._frame_count = 0
        self._steps = open(directory / STEPS_FILE, "a", encoding="utf-8")  # noqa: SIM115 - closed in finish()
        self._write_meta()

    @classmethod
    def create(cls, root: Path | str, task: str, source: Source = "agent", app: str | None = None,
               model: str | None = None, **extra: Any) -> EpisodeWriter:
        meta = EpisodeMeta(id=new_episode_id(), task=task, source=source, started=time.time(), app=app, model=model,
                           extra=extra)
        try:
            Path(root).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EpisodeError(f"cannot create episodes folder {root}: {exc.strerror}") from None
        return cls(Path(root) / meta.id, meta)

    def add_frame(self, image_rgb: np.ndarray) -> str:
        """Write one frame (atomically) and return its name relative to the episode folder."""
        self._frame_count += 1
        name = f"{FRAMES_DIR}/{self._frame_count:06d}.png"
        write_atomic(self.directory / name, encode_png(image_rgb))
        return name

    def append(self, step: Step) -> None:
        self._steps.write(json.dumps(step.to_dict(), ensure_ascii=False) + "\n")
        self._steps.flush()
        os.fsync(self._steps.fileno())

    def finish(self, outcome: str, detail: str | None = None) -> None:
        self.meta.outcome = outcome
        self.meta.detail = detail
        self.meta.finished = time.time()
        self._write_meta()
        self._steps.close()

    def _write_meta(self) -> None:
        rewrite_meta(self.directory, self.meta)


@dataclass
class Episode:
    directory: Path
    meta: EpisodeMeta
    steps: list[Step]

    def frame(self, name: str) -> np.ndarray:
        image = read_image(self.directory / name)
        if image is None:
            raise EpisodeError(f"missing or unreadable frame {self.directory / name}")
        return image


def read_episode(directory: Path | str) -> Episode:
    directory = Path(directory)
    try:
        meta_data = json.loads((directory / EPISODE_FILE).read_text(encoding="utf-8"))
        meta = EpisodeMeta(**meta_data)
    except FileNotFoundError:
        raise EpisodeError(f"{directory} is not an episode (no {EPISODE_FILE})") from None
    except (json.JSONDecodeError, TypeError) as exc:
        raise EpisodeError(f"{directory / EPISODE_FILE} is corrupt: {exc}") from None
    return Episode(directory, meta, _read_steps(directory / STEPS_FILE))


def _read_steps(path: Path) -> list[Step]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    steps: list[Step] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            steps.append(Step.from_dict(json.loads(line)))
        except (json.JSONDecodeError, KeyError, DeskpilotError, ValueError) as exc:
            if number == len(lines):
                log.warning("%s: skipping torn last line %d (%s)", path, number, exc)
                continue
            raise EpisodeError(f"{path}: line {number} is corrupt: {exc}") from None
    return steps


def rewrite_steps(episode: Episode, steps: list[Step]) -> None:
    """Replace an episode's steps.jsonl atomically (for labels added after the fact); frames and episode.json are
    left alone. Only for finished episodes: a writer still appending would lose its lines."""
    if episode.meta.outcome == "running":
        raise EpisodeError(f"{episode.directory} is still being written (or its writer died); finish it first")
    lines = "".join(json.dumps(step.to_dict(), ensure_ascii=False) + "\n" for step in steps)
    write_atomic(episode.directory / STEPS_FILE, lines.encode())


def rewrite_meta(directory: Path, meta: EpisodeMeta) -> None:
    """Replace an episode's episode.json atomically (as it is written, and for scores added after the run)."""
    write_atomic(directory / EPISODE_FILE, json.dumps(meta.to_dict(), indent=2).encode())


def list_episodes(root: Path | str) -> list[Path]:
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / EPISODE_FILE).is_file())

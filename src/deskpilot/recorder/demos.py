"""Finding the recorded demonstration most like a new task (`deskpilot run TASK --demos DIR`), and saying it in
words (and its first screen, as a thumbnail) for a model's prompt. A demonstration whose task has the same shape
as the new one (the same words, other quoted values) can be replayed with the new values; any other is only an
example."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from deskpilot.core.episode import Episode, list_episodes, read_episode
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.task_text import task_shape, task_values

MIN_SIMILARITY = 0.5  # below this a demonstration is no example for the task at all
MAX_DESCRIBED_STEPS = 20
DEMO_SCREEN_SIDE = 640  # the longest side of the demonstration's screen shown to a vision-language model


@dataclass(frozen=True)
class Demo:
    episode: Episode
    similarity: float  # 0-1, of the two tasks' words
    same_shape: bool  # the same task with (perhaps) other quoted values: it can be replayed with them
    values: dict[str, str]  # the demonstration's quoted values -> the new task's (those that differ)


def find_demo(task: str, folder: Path) -> Demo | None:
    """The demonstration in `folder` whose task is most like `task` (None when none is like it at all)."""
    best: Demo | None = None
    for directory in list_episodes(folder):
        try:
            episode = read_episode(directory)
        except DeskpilotError:
            continue
        if episode.meta.source != "demonstration" or not episode.steps:
            continue
        similarity = difflib.SequenceMatcher(None, task_shape(episode.meta.task).split(),
                                             task_shape(task).split()).ratio()
        if best is None or similarity > best.similarity:
            same = task_shape(episode.meta.task) == task_shape(task) and \
                len(task_values(episode.meta.task)) == len(task_values(task))
            best = Demo(episode, similarity, same, _values(episode.meta.task, task) if same else {})
    return best if best is not None and best.similarity >= MIN_SIMILARITY else None


def _values(recorded: str, task: str) -> dict[str, str]:
    """Old quoted value -> new one, position by position (for two tasks of the same shape)."""
    return {a: b for a, b in zip(task_values(recorded), task_values(task)) if a != b}


def describe_demo(episode: Episode) -> str:
    """The demonstration in words, one numbered step a line, for a model's prompt."""
    lines = [f"A person did a similar task before: {episode.meta.task}"]
    for number, step in enumerate(episode.steps[:MAX_DESCRIBED_STEPS], 1):
        named = next((e.text for e in step.elements if e.text), None)
        where = f" on '{named}'" if named and step.action.point is not None else ""
        lines.append(f"{number}. {step.action.redacted().describe()}{where}")
    return "\n".join(lines)


def demo_screen(episode: Episode, longest: int = DEMO_SCREEN_SIDE) -> np.ndarray | None:
    """The screen the demonstration started from (the frame before its first step), shrunk to `longest` pixels on
    its longer side: a thumbnail for a vision-language model's prompt (None when the frame is not kept)."""
    try:
        image = episode.frame(episode.steps[0].before) if episode.steps else None
    except DeskpilotError:
        return None
    if image is None:
        return None
    factor = longest / max(image.shape[:2])
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA) if factor < 1 else image

"""Episodes -> a Hugging Face `datasets` Dataset: one row per step, frames as Image features, actions in both
text forms (JSON and the UI-TARS call), plus task, thought, the element used, verification label and reward.
Secret text is already redacted in the episode, so it is redacted here too."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from deskpilot.core.action_text import format_action
from deskpilot.core.episode import Episode, read_episode
from deskpilot.core.errors import EpisodeError


def step_rows(episodes: list[Episode]) -> Iterator[dict[str, Any]]:
    for episode in episodes:
        for step in episode.steps:
            yield {
                "episode_id": episode.meta.id, "task": episode.meta.task, "source": episode.meta.source,
                "outcome": episode.meta.outcome, "step": step.index, "thought": step.thought,
                "action": json.dumps(step.action.to_dict(), ensure_ascii=False),
                "action_text": format_action(step.action.redacted()),
                "element_text": " | ".join(e.text for e in step.elements),
                "label": step.verification.label if step.verification else "",
                "reward": float(step.reward) if step.reward is not None else None,
                "before": _image(episode, step.before), "after": _image(episode, step.after),
            }


def _image(episode: Episode, name: str | None) -> dict[str, Any] | None:
    if not name:
        return None
    path = episode.frame_path(name)
    if not path.is_file():
        raise EpisodeError(f"{episode.directory}: frame {name} is missing")
    return {"bytes": path.read_bytes(), "path": name}


def export_hf(episode_dirs: list[Path], out: Path) -> int:
    """Write the steps of `episode_dirs` as a `datasets` Dataset to `out` (load it with `load_from_disk`);
    returns the number of rows."""
    try:
        import datasets
    except ImportError:
        raise EpisodeError("exporting needs the datasets package: pip install 'deskpilot[train]'") from None
    episodes = [read_episode(d) for d in episode_dirs]
    for episode in episodes:  # every frame checked before the dataset is built: a bad one is one line, not a trace
        for step in episode.steps:
            for name in (step.before, step.after):
                if name and not episode.frame_path(name).is_file():
                    raise EpisodeError(f"{episode.directory}: frame {name} is missing")
    features = datasets.Features({
        "episode_id": datasets.Value("string"), "task": datasets.Value("string"), "source": datasets.Value("string"),
        "outcome": datasets.Value("string"), "step": datasets.Value("int32"), "thought": datasets.Value("string"),
        "action": datasets.Value("string"), "action_text": datasets.Value("string"),
        "element_text": datasets.Value("string"), "label": datasets.Value("string"),
        "reward": datasets.Value("float32"), "before": datasets.Image(), "after": datasets.Image(),
    })
    with tempfile.TemporaryDirectory() as cache:
        dataset = datasets.Dataset.from_generator(lambda: step_rows(episodes), features=features, cache_dir=cache)
        dataset.save_to_disk(str(out))
    return len(dataset)

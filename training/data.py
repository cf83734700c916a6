"""Hugging Face `datasets` for each trainer, from Samples (see samples.py), in TRL's conversational vision format
(`prompt` messages with `{"type": "image"}` placeholders, the screenshots in `images`), or for som-text samples
TRL's plain conversational format (string contents, no `images`):

- sft:  good steps and demonstrations -> `prompt`, `completion`, `images`
- kto:  good and bad steps (unpaired) -> `prompt`, `completion`, `label` (bool), `images`
- grpo: good steps and demonstrations -> `prompt`, `images`, `target` (what the rule rewards check) and
  `reference` (the recorded answer, for the shaped similarity reward)
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from deskpilot.core.errors import TrainingError

from .samples import Sample, to_trl_messages

Method = Literal["sft", "kto", "grpo"]
METHODS: tuple[Method, ...] = ("sft", "kto", "grpo")


def rows(samples: list[Sample], method: Method) -> list[dict[str, Any]]:
    """Dataset rows for `method`; steps whose label the method cannot use are left out."""
    wanted = ("good", "bad") if method == "kto" else ("good",)
    found: list[dict[str, Any]] = []
    for sample in samples:
        if sample.label not in wanted:
            continue
        text_only = all(isinstance(m["content"], str) for m in sample.messages)  # som-text: no images at all
        prompt, images = (sample.messages, []) if text_only else to_trl_messages(sample.messages)
        row: dict[str, Any] = {"prompt": prompt, "episode": sample.episode, "step": sample.step}
        if not text_only:
            row["images"] = images
        if method == "grpo":
            row["target"] = sample.target.to_dict()
            row["reference"] = sample.completion
        else:
            content: Any = sample.completion if text_only else [{"type": "text", "text": sample.completion}]
            row["completion"] = [{"role": "assistant", "content": content}]
        if method == "kto":
            row["label"] = sample.label == "good"
        found.append(row)
    return found


def build_dataset(samples: list[Sample], method: Method) -> Any:
    """A `datasets.Dataset` for `method`, with a clear error when the episodes hold nothing it can learn from."""
    from datasets import Dataset

    if method not in METHODS:
        raise TrainingError(f"unknown training method {method!r}; available: {', '.join(METHODS)}")
    found = rows(samples, method)
    if not found:
        raise TrainingError(f"nothing to train {method} on ({summary(samples)}); label the episodes first: "
                             "deskpilot label")
    if method == "kto" and len({row["label"] for row in found}) < 2:
        raise TrainingError(f"KTO needs both good and bad steps ({summary(samples)}); add agent runs labelled bad, "
                             "or use sft")
    return Dataset.from_list(found)


def summary(samples: list[Sample]) -> str:
    labels = Counter(s.label for s in samples)
    return f"{len(samples)} steps from {len({s.episode for s in samples})} episodes: " + ", ".join(
        f"{labels[name]} {name}" for name in ("good", "bad", "unknown"))

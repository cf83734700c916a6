"""Hugging Face `datasets` for each trainer, from Samples (see samples.py), in TRL's conversational vision format
(`prompt` messages with `{"type": "image"}` placeholders, the screenshots in `images`), or for som-text samples
TRL's plain conversational format (string contents, no `images`):

- sft:  good steps and demonstrations -> `prompt`, `completion`, `images`
- kto:  good and bad steps (unpaired) -> `prompt`, `completion`, `label` (bool), `images`
- grpo: good steps and demonstrations -> `prompt`, `images`, `target` (what the rule rewards check) and
  `reference` (the recorded answer, for the shaped similarity reward)
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Any, Literal

from deskpilot.core.errors import TrainingError

from .samples import Sample, prompt_key, to_trl_messages

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
        row: dict[str, Any] = {"prompt": prompt, "episode": sample.episode, "step": sample.step, "app": sample.app}
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


def trusted(samples: list[Sample], verifiers: list[str] | None) -> list[Sample]:
    """`samples` with the verdicts of verifiers not in `verifiers` made unknown (None: every verdict counts), e.g.
    KTO on the environment's own bad steps only. Steps no verifier labelled (demonstrations) keep their label."""
    if verifiers is None:
        return samples
    return [s if not s.verifier or s.verifier in verifiers else replace(s, label="unknown") for s in samples]


def balanced(found: list[dict[str, Any]], min_per_app: int) -> list[dict[str, Any]]:
    """`found` with the rows of each app that has fewer than `min_per_app` repeated up to that many (whole copies,
    then a fixed random pick of the rest), so that a task seen in a few episodes is not drowned by one with many
    steps. Apps with more rows keep them all, once."""
    if min_per_app <= 0:
        return found
    by_app: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in found:
        by_app[row["app"]].append(row)
    picker = random.Random(0)
    result: list[dict[str, Any]] = []
    for app_rows in by_app.values():
        copies, rest = divmod(max(min_per_app, len(app_rows)), len(app_rows))
        result.extend(app_rows * copies + picker.sample(app_rows, rest))
    return result


def build_dataset(samples: list[Sample], method: Method, min_per_app: int = 0, contrasted_only: bool = False) -> Any:
    """A `datasets.Dataset` for `method`, with a clear error when the episodes hold nothing it can learn from;
    `min_per_app` > 0 balances the apps (see `balanced`); `contrasted_only` keeps GRPO to the prompts whose answers
    the environment scored apart (see `contrasted`)."""
    from datasets import Dataset

    if method not in METHODS:
        raise TrainingError(f"unknown training method {method!r}; available: {', '.join(METHODS)}")
    found = rows(samples, method)
    if contrasted_only:
        found = [row for row in found if _scored_apart(row)]
        if not found:
            raise TrainingError("no prompt holds answers the environment scored apart: collect at the same seeds more "
                                "than once, sampling (collect miniwob --temperature), or label --verifier branch")
    if not found:
        raise TrainingError(f"nothing to train {method} on ({summary(samples)}); label the episodes first: "
                             "deskpilot label")
    if method == "kto" and len({row["label"] for row in found}) < 2:
        raise TrainingError(f"KTO needs both good and bad steps ({summary(samples)}); add agent runs labelled bad, "
                             "or use sft")
    return Dataset.from_list(balanced(found, min_per_app))


def contrasted(dataset: Any) -> int:
    """How many different prompts of a GRPO dataset hold answers that the environment scored differently (see
    samples.with_outcomes): where its reward can tell GRPO's sampled answers apart."""
    return len({prompt_key(row["prompt"]) for row in dataset if _scored_apart(row)})


def _scored_apart(row: dict[str, Any]) -> bool:
    return len({o["won"] for o in (row["target"].get("outcomes") or [])}) > 1


def summary(samples: list[Sample]) -> str:
    labels = Counter(s.label for s in samples)
    return f"{len(samples)} steps from {len({s.episode for s in samples})} episodes: " + ", ".join(
        f"{labels[name]} {name}" for name in ("good", "bad", "unknown"))

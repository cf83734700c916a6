"""`deskpilot eval steps`: offline step accuracy of a model on held-out steps. Each good step (or demonstration)
is put to the model exactly as the planner would put it (native screenshots, or som-text); the answer is scored
against what was done: did it parse, is it the right kind of action, does a click land inside the target element,
is the typed text right, and is it exactly the expected call (`exact`, the som-text measure)."""

from __future__ import annotations

import logging
from pathlib import Path
from statistics import mean
from typing import Any

from rich.progress import Progress

from deskpilot.core.errors import PlannerError
from deskpilot.core.settings import Settings
from deskpilot.planner.factory import build_backend
from deskpilot.planner.families import ModelFamily

from .rewards import StepScore, same_call, score_answer
from .samples import SampleBuilder

log = logging.getLogger(__name__)


def evaluate_steps(settings: Settings, data: list[Path], family: ModelFamily, max_images: int = 3,
                   limit: int | None = None, mode: str = "native") -> dict[str, Any]:
    builder = SampleBuilder(family, max_images=max_images, mode=mode)
    samples = [s for s in builder.samples(data) if s.label == "good"]
    if limit is not None:
        samples = samples[:limit]
    if not samples:
        raise PlannerError("no good steps to evaluate on; label the episodes first (deskpilot label)")
    backend = build_backend(settings, one_line=mode == "som-text")
    per_step: list[dict[str, Any]] = []
    scores: list[StepScore] = []
    exact: list[bool] = []
    with Progress(transient=True) as progress:
        task = progress.add_task("evaluating", total=len(samples))
        for sample in samples:
            try:
                answer = backend.complete(sample.messages)
            except PlannerError as exc:
                log.info("step %s/%d: %s", sample.episode, sample.step, exc)
                answer = ""
            score = score_answer(answer, sample.target)
            scores.append(score)
            same = same_call(answer, sample.completion)
            exact.append(same)
            per_step.append({"episode": sample.episode, "step": sample.step, "expected": sample.completion,
                             "answer": answer, "target": sample.target.to_dict(), "exact": same, **score.__dict__})
            progress.advance(task)
    metrics = summarize(scores)
    metrics["exact"] = round(mean(exact), 4)
    coordinates = family.name if mode != "som-text" else None  # som-text answers name elements, not points
    return {"model": settings.model, "family": coordinates, "mode": mode, "steps": len(samples), "metrics": metrics,
            "per_step": per_step}


def summarize(scores: list[StepScore]) -> dict[str, float | None]:
    """Rates over the steps each check applies to (None when it applies to none)."""

    def rate(values: list[Any]) -> float | None:
        values = [float(v) for v in values if v is not None]
        return round(mean(values), 4) if values else None

    return {
        "parsed": rate([s.parsed for s in scores]),
        "action_type": rate([s.kind_ok for s in scores]),
        "click_in_box": rate([s.in_box for s in scores]),
        "click_nearness": rate([s.nearness for s in scores]),
        "text_match": rate([s.text_ok for s in scores]),
        "text_similarity": rate([s.text_similarity for s in scores]),
    }

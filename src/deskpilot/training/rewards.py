"""Rewards for GRPO, and the same checks for offline evaluation: is the answer a valid action, is it the right
kind of action, does a click land inside the target element (or how near it), is the typed text right; and, in
som-text mode, what the live environment gave the answer on that very prompt where collected episodes gave it.

Each reward follows TRL's signature: `reward(completions, target, **kwargs) -> list[float | None]`, where `target`
is the dataset column holding `Target.to_dict()`; `None` means "does not apply to this sample" (a click reward
for a typing step), which TRL leaves out of that reward's mean."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from deskpilot.core.action_text import parse_response, split_response
from deskpilot.core.actions import Action
from deskpilot.core.errors import ActionParseError

from .samples import Target

DISTANCE_SCALE = 0.1  # the shaped click reward halves every time the miss grows by ~7% of the image diagonal


@dataclass(frozen=True)
class StepScore:
    """How one answer compares with the target: None where a check does not apply."""

    parsed: bool
    kind_ok: bool
    in_box: bool | None = None
    nearness: float | None = None  # 1 inside the box, falling with the distance to it
    text_similarity: float | None = None  # 0-1

    @property
    def text_ok(self) -> bool | None:
        return None if self.text_similarity is None else self.text_similarity >= 0.999


def answer_action(completion: Any) -> Action:
    """The first action in a model answer (a string, or TRL's conversational `[{"role", "content"}]`)."""
    return parse_response(_text_of(completion)).actions[0]


def score_answer(completion: Any, target: Target) -> StepScore:
    try:
        action = answer_action(completion)
    except ActionParseError:
        return StepScore(False, False, False if target.box else None, 0.0 if target.box else None,
                         0.0 if target.text is not None else None)
    kind_ok = action.kind.value == target.kind
    in_box = nearness = similarity = None
    if target.box is not None:
        if action.point is None:
            in_box, nearness = False, 0.0
        else:
            x0, y0, x1, y1 = target.box
            in_box = x0 <= action.point.x <= x1 and y0 <= action.point.y <= y1
            dx = max(x0 - action.point.x, 0, action.point.x - x1)
            dy = max(y0 - action.point.y, 0, action.point.y - y1)
            nearness = math.exp(-math.hypot(dx, dy) / (DISTANCE_SCALE * target.diagonal))
    if target.text is not None:
        wanted, given = target.text, _answer_text(action)
        similarity = 1.0 if wanted == given else fuzz.ratio(wanted, given) / 100
    return StepScore(True, kind_ok, in_box, nearness, similarity)


def _answer_text(action: Action) -> str:
    return " ".join(action.keys) if action.keys else (action.text or "")


def _scores(completions: list[Any], target: list[dict[str, Any]]) -> list[StepScore]:
    return [score_answer(c, Target.from_dict(t)) for c, t in zip(completions, target)]


def format_reward(completions: list[Any], target: list[dict[str, Any]], **kwargs: Any) -> list[float | None]:
    """1 for an answer that parses as one of the planner's action calls, else 0."""
    return [1.0 if s.parsed else 0.0 for s in _scores(completions, target)]


def action_type_reward(completions: list[Any], target: list[dict[str, Any]], **kwargs: Any) -> list[float | None]:
    """1 when the action is of the recorded kind (click, type, hotkey, ...)."""
    return [1.0 if s.kind_ok else 0.0 for s in _scores(completions, target)]


def click_reward(completions: list[Any], target: list[dict[str, Any]], **kwargs: Any) -> list[float | None]:
    """1 when the point lies inside the target element's box; None for steps without a target box."""
    return [None if s.in_box is None else float(s.in_box) for s in _scores(completions, target)]


def click_distance_reward(completions: list[Any], target: list[dict[str, Any]],
                          **kwargs: Any) -> list[float | None]:
    """Shaped: 1 inside the box, decaying with the distance from it, so near misses beat far ones."""
    return [s.nearness for s in _scores(completions, target)]


def text_reward(completions: list[Any], target: list[dict[str, Any]], **kwargs: Any) -> list[float | None]:
    """Similarity (0-1) of typed text / hotkey / final answer to the recorded one; None where there is none."""
    return [s.text_similarity for s in _scores(completions, target)]


def similarity_reward(completions: list[Any], reference: list[str], **kwargs: Any) -> list[float | None]:
    """Shaped for a cold start: how closely the answer's action line resembles the recorded one (0-1), so a
    model that cannot yet produce a valid call still gets a gradient towards one."""
    return [fuzz.ratio(split_response(_text_of(c))[1], split_response(r)[1]) / 100
            for c, r in zip(completions, reference)]


def same_call(answer: Any, expected: Any) -> bool:
    """Whether an answer holds the same action call as the expected one (spacing and quoting aside): in som-text
    mode, the right kind of action on the right value or element."""
    try:
        return answer_action(answer).model_dump() == answer_action(expected).model_dump()
    except ActionParseError:
        return False


def same_call_reward(completions: list[Any], reference: list[str], **kwargs: Any) -> list[float | None]:
    """1 when the answer is the recorded call itself (som-text answers name values and ranks, so they can match
    exactly), else 0."""
    return [float(same_call(c, r)) for c, r in zip(completions, reference)]


def environment_reward(completions: list[Any], target: list[dict[str, Any]], **kwargs: Any) -> list[float | None]:
    """What the live environment gave this answer to this very prompt, where collected episodes gave it (som-text,
    see samples.with_outcomes): from -1 (every such episode was lost) to 1 (every one won); None for an answer no
    episode gave there, and on data no scoring environment played."""
    found: list[float | None] = []
    for completion, wanted in zip(completions, target):
        played = Target.from_dict(wanted).outcomes or ()
        share = next((won for answer, won in played if same_call(completion, answer)), None)
        found.append(None if share is None else 2 * share - 1)
    return found


def _text_of(completion: Any) -> str:
    if isinstance(completion, list):
        return "".join(str(m.get("content", "")) for m in completion if m.get("role", "assistant") == "assistant")
    return str(completion)


REWARDS = {f.__name__.removesuffix("_reward"): f for f in (
    format_reward, action_type_reward, click_reward, click_distance_reward, text_reward, similarity_reward,
    same_call_reward, environment_reward)}
DEFAULT_WEIGHTS = {"format": 0.5, "action_type": 1.0, "click": 1.0, "click_distance": 0.5, "text": 1.0,
                   "similarity": 0.2}
TEXT_MODE_WEIGHTS = {"format": 0.5, "action_type": 1.0, "text": 1.0, "same_call": 1.0, "similarity": 0.2,
                     "environment": 1.0}

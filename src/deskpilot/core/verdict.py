"""What an episode's judges said, typed: a step's `Verdict` (good, bad or unknown, why, by which verifier, how
sure), the `GoalCheck` the agent made before "done", and the `EnvironmentRun` of an environment that scores itself
(which task, seed and policy, what reward). Every verifier gives these; every reader of labels takes them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Label = Literal["good", "bad", "unknown"]
LABELS: tuple[Label, ...] = ("good", "bad", "unknown")
DEFAULT_SCORE = {"good": 1.0, "bad": 0.0, "unknown": 0.5}  # a stored verdict that gave no score


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: Any, name: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be text, not {type(value).__name__}")
    return value


@dataclass(frozen=True)
class Verdict:
    """One step's label. `checks`: the labels of the verifiers a combined verdict was chosen from."""

    label: Label
    reason: str
    score: float
    verifier: str
    checks: Mapping[str, str] | None = None

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"label": self.label, "reason": self.reason, "score": round(self.score, 3),
                                    "verifier": self.verifier}
        return found | ({"checks": dict(self.checks)} if self.checks else {})

    @classmethod
    def from_dict(cls, data: Any) -> Verdict:
        """From its JSON form; a wrong type or an unknown label is a TypeError or ValueError."""
        if not isinstance(data, dict):
            raise TypeError("a verdict must be an object")
        label = _text(data.get("label"), "verdict label")
        if label not in LABELS:
            raise ValueError(f"a verdict's label must be good, bad or unknown, not {str(label)[:20]!r}")
        score = data.get("score", DEFAULT_SCORE[label])
        if not _number(score):
            raise TypeError("a verdict's score must be a number")
        checks = data.get("checks")
        if checks is not None and not (isinstance(checks, dict)
                                       and all(isinstance(k, str) and isinstance(v, str) for k, v in checks.items())):
            raise TypeError("a verdict's checks must map verifier names to labels")
        return cls(label, _text(data.get("reason", ""), "verdict reason") or "", float(score),
                   _text(data.get("verifier", "unknown"), "verdict verifier") or "unknown", checks)


@dataclass(frozen=True)
class GoalCheck:
    """The check before "done": the expectations that held (one line each) and the first that did not."""

    passed: bool
    held: tuple[str, ...] = ()
    failed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "held": list(self.held), **({"failed": self.failed} if self.failed else {})}

    @classmethod
    def from_dict(cls, data: Any) -> GoalCheck:
        """From its JSON form; a wrong type is a TypeError."""
        if not isinstance(data, dict) or not isinstance(data.get("passed"), bool):
            raise TypeError("goal_check must be an object with a true/false 'passed'")
        held, failed = data.get("held", []), data.get("failed")
        if not isinstance(held, list) or not all(isinstance(h, str) for h in held) or not isinstance(failed,
                                                                                                     (str, type(None))):
            raise TypeError("goal_check's 'held' must be a list of text and 'failed' text")
        return cls(data["passed"], tuple(held), failed)

    def describe(self) -> str:
        """One line: what failed, or what held."""
        if self.failed:
            return f"check failed: {self.failed}"
        return "check passed: " + ("; ".join(self.held) if self.held else "nothing on the screen contradicts it")


@dataclass
class EnvironmentRun:
    """An episode an environment scored: which environment and task, the seed (or repeat) it ran with, the policy
    that collected it, and the reward the environment gave (> 0: won) with its reason."""

    environment: str  # "miniwob", "desktop", ...
    task: str
    seed: int | None = None
    reward: float | None = None
    discounted_reward: float | None = None
    reason: str | None = None
    policy: str | None = None  # the policy a collection ran (offline, explore, model)
    app: str | None = None  # the application a desktop task ran in

    @property
    def won(self) -> bool:
        return self.reward is not None and self.reward > 0

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_dict(cls, data: Any) -> EnvironmentRun:
        """From its JSON form; a wrong type is a TypeError."""
        if not isinstance(data, dict):
            raise TypeError("environment must be an object")
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"environment has unknown fields: {', '.join(sorted(unknown))[:80]}")
        for name in ("reward", "discounted_reward"):
            if data.get(name) is not None and not _number(data[name]):
                raise TypeError(f"environment {name} must be a number")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise TypeError("environment seed must be a whole number")
        for name in ("reason", "policy", "app"):
            _text(data.get(name), f"environment {name}", optional=True)
        return cls(_text(data.get("environment"), "environment name") or "", _text(data.get("task"),
                   "environment task") or "", seed, data.get("reward"), data.get("discounted_reward"),
                   data.get("reason"), data.get("policy"), data.get("app"))

    @classmethod
    def from_legacy(cls, extra: dict[str, Any]) -> EnvironmentRun | None:
        """The run as episodes before typed fields kept it in `extra` (benchmark, miniwob_task / desktop_task,
        seed or repeat, reward, collect); None when `extra` holds no score. The keys it reads leave `extra`."""
        if not _number(extra.get("reward")):
            return None
        task = extra.pop("miniwob_task", None) or extra.pop("desktop_task", None)
        seed = extra.pop("seed", None)
        repeat = extra.pop("repeat", None)
        return cls(str(extra.pop("benchmark", "miniwob")), str(task or ""),
                   seed if isinstance(seed, int) else repeat if isinstance(repeat, int) else None,
                   float(extra.pop("reward")),
                   float(d) if _number(d := extra.pop("discounted_reward", None)) else None,
                   r if isinstance(r := extra.pop("reward_reason", None), str) else None,
                   p if isinstance(p := extra.pop("collect", None), str) else None,
                   a if isinstance(a := extra.pop("desktop_app", None), str) else None)

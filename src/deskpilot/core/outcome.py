"""How a run (agent or replay) ended: the outcome names stored in episode.json, and the result handed back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .episode import Step
from .errors import ActionRefused, DeskpilotError, GoalFailed, SafetyStop


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
class RunResult:
    outcome: str  # success | failed | needs_user | max_steps | ended | stopped | refused | error
    detail: str
    episode_dir: Path
    steps: list[Step] = field(default_factory=list)
    check: GoalCheck | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == "success"


def outcome_of(error: DeskpilotError) -> str:
    """The outcome a run that ended with `error` gets: stopped (emergency stop), refused (policy), failed (the
    screen contradicts the task) or error."""
    if isinstance(error, SafetyStop):
        return "stopped"
    if isinstance(error, GoalFailed):
        return "failed"
    if isinstance(error, ActionRefused):
        return "refused"
    return "error"

"""How a run (agent or replay) ended: the outcome names stored in episode.json, and the result handed back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .episode import Step
from .verdict import GoalCheck
from .errors import ActionRefused, DeskpilotError, GoalFailed, SafetyStop


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

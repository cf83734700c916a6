"""How a run (agent or replay) ended: the outcome names stored in episode.json, and the result handed back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .episode import Step
from .errors import ActionRefused, DeskpilotError, SafetyStop


@dataclass
class RunResult:
    outcome: str  # success | needs_user | max_steps | ended | stopped | refused | error
    detail: str
    episode_dir: Path
    steps: list[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == "success"


def outcome_of(error: DeskpilotError) -> str:
    """The outcome a run that ended with `error` gets: stopped (emergency stop), refused (policy) or error."""
    if isinstance(error, SafetyStop):
        return "stopped"
    if isinstance(error, ActionRefused):
        return "refused"
    return "error"

"""The built-in offline planner: follows plain instructions step by step, with no model weights at all. With a
grounder it also looks before it toggles: `check X` is skipped when X is already checked (and `uncheck` when not)."""

from __future__ import annotations

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element, Observation
from deskpilot.grounding.base import Grounder

from .base import Decision
from .instructions import PlannedAction, parse_instructions


class OfflinePlanner:
    name = "offline"

    def __init__(self, grounder: Grounder | None = None) -> None:
        self.grounder = grounder
        self._task: str | None = None
        self._plan: list[PlannedAction] = []
        self._next = 0

    def plan(self, task: str) -> list[PlannedAction]:
        """Every action of the task (raises PlannerError for instructions it does not understand)."""
        if task != self._task:
            self._plan, self._task = parse_instructions(task), task
        return self._plan

    def secrets(self, task: str) -> list[str]:
        return [p.action.text for p in self.plan(task) if p.action.secret and p.action.text]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        plan = self.plan(task)
        if not history:
            self._next = 0
        skipped: list[str] = []
        while self._next < len(plan):
            planned = plan[self._next]
            self._next += 1
            if self._already(planned, obs):
                skipped.append(f"{planned.action.target} is already {'on' if planned.ensure_checked else 'off'}")
                continue
            note = "; ".join(skipped) + ("; " if skipped else "")
            return Decision(f"{note}step {self._next} of {len(plan)}: {planned.action.redacted().describe()}",
                            planned.action)
        note = "; ".join(skipped) + (": " if skipped else "")
        return Decision(f"{note}every instruction has been carried out",
                        Action(kind=ActionKind.FINISHED, text=f"done: {len(plan)} step(s)"))

    def _already(self, planned: PlannedAction, obs: Observation) -> bool:
        """Whether a conditional toggle already shows the wanted state (so clicking would undo it)."""
        if planned.ensure_checked is None or self.grounder is None or not planned.action.target:
            return False
        element = self.grounder.locate(obs, planned.action.target)
        return element is not None and element.checked is planned.ensure_checked

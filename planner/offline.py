"""The built-in offline planner: follows plain instructions step by step, with no model weights at all."""

from __future__ import annotations

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element, Observation

from .base import Decision
from .instructions import parse_instructions


class OfflinePlanner:
    name = "offline"

    def __init__(self) -> None:
        self._task: str | None = None
        self._plan: list[Action] = []

    def plan(self, task: str) -> list[Action]:
        """Every action of the task (raises PlannerError for instructions it does not understand)."""
        if task != self._task:
            self._plan, self._task = parse_instructions(task), task
        return self._plan

    def secrets(self, task: str) -> list[str]:
        return [a.text for a in self.plan(task) if a.secret and a.text]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        plan = self.plan(task)
        done = len(history)
        if done >= len(plan):
            return Decision("every instruction has been carried out",
                            Action(kind=ActionKind.FINISHED, text=f"done: {len(plan)} step(s)"))
        action = plan[done]
        return Decision(f"step {done + 1} of {len(plan)}: {action.redacted().describe()}", action)

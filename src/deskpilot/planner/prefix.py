"""A planner that first re-enacts the steps of a recorded episode, then lets a som-text model go on from the screen
they lead to: the continuations that tell which step of a failed episode lost it (evaluation/rollouts.py). A branch
(evaluation/branches.py) also forces the step right after the prefix to another of the model's answers."""

from __future__ import annotations

from deskpilot.core.actions import Action
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element, Observation

from .base import Decision
from .text_planner import TextPlanner


class PrefixPlanner:
    """`prefix` (recorded actions) re-enacted one per step, each re-found on the screen through the model's own
    answer for it; then, with `branch` (rank, count), the rank-th different usable answer of the model's `count`
    likeliest on that screen; after them, `planner` decides. `reenacted` counts the prefix steps done so far,
    `branched` says whether the branch's answer was acted on."""

    def __init__(self, prefix: list[Action], planner: TextPlanner, branch: tuple[int, int] | None = None):
        self.prefix = prefix
        self.planner = planner
        self.branch = branch
        self.name = planner.name
        self.reenacted = 0
        self.branched = False

    def secrets(self, task: str) -> list[str]:
        return self.planner.secrets(task)

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        if len(history) < len(self.prefix):
            decision = self.planner.reenact(task, history, elements, self.prefix[len(history)])
            self.reenacted += 1
            return decision
        if self.branch is not None and len(history) == len(self.prefix):
            decision = self.planner.branch(task, history, elements, *self.branch)
            self.branched = True
            return decision
        return self.planner.decide(task, history, obs, elements)

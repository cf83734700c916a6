"""Planners that explore, for collecting training data: `ExplorePlanner` acts at random on what grounding found
(clicks on controls and named text, the task's values typed into fields, Enter, now and then a finish), leaning
towards elements the task names; `EpsilonPlanner` mixes such random steps into another planner's, and takes one
where the other planner's answers could not be used (where the episode would otherwise end). Environments
that score themselves (MiniWoB++) turn these runs into labelled steps, so no task needs a hand-written rule."""

from __future__ import annotations

import random
from dataclasses import replace

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.errors import UnusableAnswerError
from deskpilot.core.observation import Element, Observation
from deskpilot.core.secrets import task_secrets
from deskpilot.core.task_text import literal_values, task_values

from .base import Decision, Planner
from .task_phrases import named_phrase

CLICKABLE_ROLES = {"button", "input", "checkbox", "radio", "dropdown", "link", "icon", "tab", "menu_item",
                   "list_item", "slider"}
NAMED_WEIGHT = 4.0  # an element whose text the task names is this much likelier to be clicked
FINISH_SHARE = 0.03  # share of steps that end the episode


class ExplorePlanner:
    name = "explore"

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.Random()

    def secrets(self, task: str) -> list[str]:
        return [secret.value for secret in task_secrets(task)]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        rng = self.rng
        last = history[-1].action if history else None
        values = task_values(task) + literal_values(task)
        if last is not None and last.kind is ActionKind.CLICK and _clicked_field(history[-1]) and values \
                and rng.random() < 0.7:
            value = rng.choice(values)
            return Decision(f"explore: type {value!r} into the field just clicked",
                            Action(kind=ActionKind.TYPE, text=value))
        roll = rng.random()
        if roll < FINISH_SHARE and history:
            return Decision("explore: stop here", Action(kind=ActionKind.FINISHED, text="explored"))
        if roll < 0.12 and history:
            return Decision("explore: press Enter", Action(kind=ActionKind.HOTKEY, keys=("enter",)))
        candidates = [e for e in elements if e.role in CLICKABLE_ROLES or (e.text and named_phrase(e.text, task))]
        if not candidates:
            candidates = list(elements)
        if not candidates:
            return Decision("explore: nothing to act on yet", Action(kind=ActionKind.WAIT, seconds=0.5))
        weights = [NAMED_WEIGHT if e.text and named_phrase(e.text, task) else 1.0 for e in candidates]
        element = rng.choices(candidates, weights)[0]
        return Decision(f"explore: click {element.role} {element.text!r}",
                        Action(kind=ActionKind.CLICK, point=element.center))


class EpsilonPlanner:
    """Another planner's steps, each replaced by an explorer's random step with probability `epsilon`."""

    def __init__(self, planner: Planner, epsilon: float, rng: random.Random | None = None):
        self.planner = planner
        self.epsilon = epsilon
        self.rng = rng or random.Random()
        self.explorer = ExplorePlanner(self.rng)
        self.name = f"{planner.name}+epsilon{epsilon:g}"

    def secrets(self, task: str) -> list[str]:
        return self.planner.secrets(task)

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        if history and self.rng.random() < self.epsilon:
            decision = self.explorer.decide(task, history, obs, elements)
            if not decision.action.is_terminal:
                return decision
        try:
            return self.planner.decide(task, history, obs, elements)
        except UnusableAnswerError as error:  # stuck: explore on where the episode would have ended
            decision = self.explorer.decide(task, history, obs, elements)
            return replace(decision, thought=f"{decision.thought} (the planner was stuck: {error})")


def _clicked_field(step: Step) -> bool:
    point = step.action.point
    return point is not None and any(e.role in ("input", "dropdown") and e.box.contains(point.x, point.y)
                                     for e in step.elements or step.seen)

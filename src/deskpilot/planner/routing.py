"""`--planner auto`, the default: a task the offline grammar parses whole is run by the offline planner (exact,
instant, no model); any other task goes to the language planner (a som-text model: `--model`, else the one
deskpilot ships where this install has it). With no model to go to, the grammar's own one-line refusal stands,
with what to do about it. The choice is made once per task, before any action, and named in the episode — but a
parse whose first target the first screen does not show ("Pick medium for the size" read as a thing called
"medium for the size") is a misreading: that task goes to the language planner too, before anything is done."""

from __future__ import annotations

from collections.abc import Callable

from deskpilot.core.episode import Step
from deskpilot.core.errors import PlannerError
from deskpilot.core.observation import Element, Observation

from .base import Decision, Planner
from .instructions import parse_instructions
from .offline import OfflinePlanner


class RoutingPlanner:
    """Routes each task to `offline` or to the planner `model_planner()` builds (once, on first use; None where
    no model is available)."""

    def __init__(self, offline: OfflinePlanner, model_planner: Callable[[], Planner | None]):
        self.offline = offline
        self._build_model = model_planner
        self._model: Planner | None = None
        self._task: str | None = None
        self._chosen: Planner = offline

    @property
    def name(self) -> str:
        return self._chosen.name

    @property
    def takes_feedback(self) -> bool:
        return bool(getattr(self._chosen, "takes_feedback", False))

    def route(self, task: str) -> Planner:
        """The planner for `task`: offline where the grammar parses it, else the model (a PlannerError saying
        both where there is none)."""
        if task == self._task:
            return self._chosen
        try:
            parse_instructions(task)
            chosen: Planner = self.offline
        except PlannerError as refusal:
            if self._model is None:
                self._model = self._build_model()
            if self._model is None:
                raise PlannerError(f"{refusal} (no language model here to read other wordings: set language_model "
                                   "= \"shipped\" for the language planner deskpilot ships, or pass --model with a "
                                   "som-text planner model)") from None
            chosen = self._model
        self._task, self._chosen = task, chosen
        return chosen

    def secrets(self, task: str) -> list[str]:
        return self.route(task).secrets(task)

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        planner = self.route(task)
        decision = planner.decide(task, history, obs, elements)
        if planner is self.offline and not history and self._not_in_sight(decision, obs):
            if self._model is None:
                self._model = self._build_model()
            if self._model is not None:
                self._chosen = self._model
                return self._model.decide(task, history, obs, elements)
        return decision

    def _not_in_sight(self, decision: Decision, obs: Observation) -> bool:
        """Whether the grammar's first action names a target (a description, not a point) that the offline
        planner's grounder cannot find on the screen."""
        target, grounder = decision.action.target, self.offline.grounder
        return target is not None and decision.action.point is None and grounder is not None and \
            grounder.locate(obs, target) is None

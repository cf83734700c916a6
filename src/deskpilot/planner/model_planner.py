"""A planner that asks a vision-language model for each step, in one of two modes:

- `native`: the model sees the screenshot and answers with coordinates (UI-TARS / Qwen2.5-VL style);
- `som` (set-of-marks): grounding's elements are drawn as numbered boxes and listed with their text; the model
  answers with an element number or a target description that grounding resolves (Agent S / OmniParser style),
  so weak-vision models work too.

Unparseable output is retried once with a correction; after that the step fails with a clear error, never a
guessed click. After each action the model is told whether the screen changed where it acted."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import numpy as np

from deskpilot.core.action_text import parse_response
from deskpilot.core.actions import Action
from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import Step
from deskpilot.core.errors import ActionParseError, PlannerError
from deskpilot.core.geometry import Monitor
from deskpilot.core.observation import Element, Observation
from deskpilot.core.secrets import mask_secrets, task_secrets
from deskpilot.core.settings import PlanMode
from deskpilot.grounding.annotate import annotate
from deskpilot.grounding.changes import changed_near

from .base import ChatBackend, Decision, ask_with_one_correction
from .context import PromptBuilder, Screenshot, Turn, model_image
from .families import ModelFamily, load_template

log = logging.getLogger(__name__)
NO_EFFECT_SHARE = 0.002  # below this share of changed pixels around the action point, it had no visible effect
CORRECTION = ("Your last answer could not be used: {error}. Answer again with one line 'Thought: ...' and one line "
              "'Action: ...' holding exactly one of the action calls listed at the start.")


class ModelPlanner:
    takes_feedback = True  # reads what the agent tells it with the task (a failed check, an error shown)

    def __init__(self, backend: ChatBackend, family: ModelFamily, mode: PlanMode = "native", max_images: int = 3,
                 token_budget: int = 16000, on_text: Callable[[str], None] | None = None, example: str = "",
                 example_screen: np.ndarray | None = None):
        self.backend = backend
        self.example = example  # a recorded demonstration of a similar task, in words (run --demos)
        self.example_screen = None if example_screen is None else Screenshot.of(example_screen)  # its first screen
        self.family = family
        self.mode = mode
        self.name = f"{backend.name} ({family.name}, {mode})"
        self.builder = PromptBuilder(load_template(mode), max_images=max_images, token_budget=token_budget)
        self.on_text = on_text
        self._turns: list[Turn] = []
        self._last: tuple[np.ndarray, Action] | None = None

    def secrets(self, task: str) -> list[str]:
        return [secret.value for secret in task_secrets(task)]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        if not history:
            self._turns, self._last = [], None
        space = self.family.space(obs.monitor)
        screen = annotate(obs.image, obs.monitor, elements, numbered=True) if self.mode == "som" else obs.image
        screenshot = Screenshot.of(model_image(screen, space))
        # The model never reads the task's secrets: it gets {{placeholders}}, which the agent fills when typing.
        secrets = task_secrets(task)
        note = mask_secrets("\n".join(n for n in (self._reflection(obs), self._element_list(elements)) if n), secrets)
        messages = self.builder.messages(mask_secrets(task, secrets), self._turns, screenshot, space, note,
                                         mask_secrets(self.example, secrets), self.example_screen)
        try:
            reply, (thought, action) = ask_with_one_correction(
                self.backend, messages, lambda text: self._interpret(text, space, elements), ActionParseError,
                lambda error: CORRECTION.format(error=error), self.on_text)
        except ActionParseError as second_error:
            raise PlannerError(f"the model's answer could not be used twice: {second_error}") from None
        self._turns.append(Turn(screenshot, reply.strip()))
        self._last = (obs.image, action)
        return Decision(thought, action)

    def _interpret(self, reply: str, space: CoordinateSpace, elements: list[Element]) -> tuple[str, Action]:
        response = parse_response(reply, space)
        if len(response.actions) > 1:
            log.info("model gave %d actions; taking the first", len(response.actions))
        action = response.actions[0]
        if self.mode == "som":
            action = self._resolve_marks(action, elements)
        return response.thought, action

    def _resolve_marks(self, action: Action, elements: list[Element]) -> Action:
        """Element numbers (`click(element='3')`) become that element's centre; descriptions stay for grounding."""
        point = end_point = None
        for name in ("target", "end_target"):
            value = getattr(action, name)
            if value and re.fullmatch(r"\s*#?\d+\s*", value):
                number = int(value.strip().lstrip("#"))
                if not 1 <= number <= len(elements):
                    raise ActionParseError(f"there is no element {number}; the numbers go from 1 to {len(elements)}")
                centre = elements[number - 1].center
                if name == "target":
                    point = centre
                else:
                    end_point = centre
        return action.with_points(point, end_point)

    def _reflection(self, obs: Observation) -> str:
        if self._last is None:
            return ""
        before, action = self._last
        return no_effect_note(before, obs.image, action, obs.monitor)

    def _element_list(self, elements: list[Element]) -> str:
        if self.mode != "som":
            return ""
        lines = [f"[{n}] {e.role} {e.text!r}" for n, e in enumerate(elements, 1)]
        return "Elements on the screen:\n" + "\n".join(lines)


def no_effect_note(before: np.ndarray, now: np.ndarray, action: Action, monitor: Monitor) -> str:
    """The note the model gets when its last pointing action changed nothing near its point ("" otherwise)."""
    if action.point is None:
        return ""
    x, y = (round(v) for v in monitor.screen_to_image(*action.point))
    if changed_near(before, now, x, y) < NO_EFFECT_SHARE:
        return (f"Note: after your last action ({action.kind.value}) nothing on the screen changed near the point "
                "you acted on. It may have missed its target; try something else rather than repeating it.")
    return ""

"""A planner for language models that see no screenshot (`--mode som-text`): each step it lists grounding's
elements as text (planner/som_text.py) and asks the model for one action. A local model gives its `answers`
likeliest replies and the planner acts on the best one that makes sense on this screen (SomText.choose: no call
repeated on a screen that looks the same, no value clicked that the screen does not show); when none does, on the
best of its WIDER_ANSWERS likeliest (the model's own ranking searched further, never a guess). The answer is set
right where the task and the screen show how (planner/answer_corrections.py: a value into the field the task gives
it, a click on the box the task names); then text the task does not give is never typed (SomText.invented: "me"
of "Sign me up", a check box's name into a field), nor typed into a field the task does not name while it names
another one (a name into "Password"): the user is asked. An answer less likely than `min_confidence` gives way
to what the task says is left, or the user is asked; an answer the corrections set right is the task's own plan and
is not held to the model's probability. From an endpoint, an unusable answer is retried once
with a correction. When nothing is usable the step fails with a clear error, never a guessed click. Elements are
listed as the episode stores them, a secret read off the screen as [redacted]: what a model is shown is what it
was trained on, and a password on the screen never reaches an endpoint."""

from __future__ import annotations

import logging
from collections.abc import Callable

from deskpilot.core.action_text import split_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.errors import ActionParseError, PlannerError, UnusableAnswerError
from deskpilot.core.observation import Element, Observation
from deskpilot.core.secrets import mask_secrets, scrubbed_elements, task_secrets

from .answer_corrections import AnswerCorrections, elsewhere, given_to_its_field
from .base import ChatBackend, Decision, RankingBackend, ask_with_one_correction
from .som_text import SomText, TextScreen

log = logging.getLogger(__name__)
WIDER_ANSWERS = 12  # the likeliest answers weighed when none of the first `answers` fits the screen
CORRECTION = "That answer could not be used: {error}. Answer with one line: Action: <one call>."


class TextPlanner:
    def __init__(self, backend: ChatBackend, on_text: Callable[[str], None] | None = None, answers: int = 1,
                 min_confidence: float = 0.0):
        self.backend = backend
        self.answers = answers  # replies weighed per step where the backend can rank several
        self.min_confidence = min_confidence  # an answer less likely than this is not acted on: the user is asked
        self.name = f"{backend.name} (som-text)"
        self.on_text = on_text
        self._episode: SomText | None = None
        self._corrections = AnswerCorrections()

    def secrets(self, task: str) -> list[str]:
        return [secret.value for secret in task_secrets(task)]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        episode, screen = self._screen(task, history, elements)
        labelled = self._corrections.labels(elements)
        try:
            reply, (thought, action) = self._answer(episode, screen)
        except UnusableAnswerError as unusable:  # what the task says is left, if it says: else the step fails
            left = self._corrections.next_given(episode, screen, elements, labelled, history)
            if left is None:
                raise
            episode.remember(split_response(episode.answer_for(left[0], screen) or "")[1])
            return Decision(f"{unusable}; {left[1]}", left[0])
        call = split_response(reply)[1]
        if corrected := self._corrections.correct(episode, screen, action, elements, labelled, history):
            action, thought = corrected
            call = split_response(episode.answer_for(action, screen) or call)[1]
        if doubt := episode.invented(action, screen) or elsewhere(episode, action, labelled):
            question = (f"I would type {action.text!r}, but {doubt}; please type it yourself or say the task "
                        "differently")
            return Decision(f"not the task's: {call}", Action(kind=ActionKind.CALL_USER, text=question))
        confidence = getattr(self.backend, "likelihood", {}).get(reply)
        if confidence is not None and confidence < self.min_confidence and not action.is_terminal and not corrected \
                and not given_to_its_field(episode, action, elements, labelled):  # a correction is the task's plan
            if left := self._corrections.next_given(episode, screen, elements, labelled, history):
                action, why = left
                episode.remember(split_response(episode.answer_for(action, screen) or call)[1])
                return Decision(f"unsure of {call} (probability {confidence:.2f}); {why}", action, confidence)
            question = (f"I am not sure what to do next (my best guess, {call}, has probability {confidence:.2f}); "
                        "please do this step or say the task differently")
            return Decision(f"unsure: {call}", Action(kind=ActionKind.CALL_USER, text=question), confidence)
        episode.remember(call)
        return Decision(thought or call, action, confidence)

    def _answer(self, episode: SomText, screen: TextScreen) -> tuple[str, tuple[str, Action]]:
        """The model's reply and what it reads as (a thought, an action); UnusableAnswerError when none can be
        used."""
        if self.answers > 1 and isinstance(self.backend, RankingBackend):
            return self._best_of(episode, screen)
        try:
            return ask_with_one_correction(
                self.backend, episode.messages(screen), lambda text: episode.read(text, screen), ActionParseError,
                lambda error: CORRECTION.format(error=error), self.on_text)
        except ActionParseError as second_error:
            raise UnusableAnswerError(f"the model's answer could not be used twice: {second_error}") from None

    def _best_of(self, episode: SomText, screen: TextScreen) -> tuple[str, tuple[str, Action]]:
        """The model's best answer that fits this screen among its `answers` likeliest, else among its
        `WIDER_ANSWERS` likeliest; failing both, the best usable one of the wider set."""
        messages = episode.messages(screen)
        error: ActionParseError | None = None
        choice = None
        for count in dict.fromkeys((self.answers, max(self.answers, WIDER_ANSWERS))):
            replies = self.backend.alternatives(messages, count)  # type: ignore[attr-defined]
            try:
                choice = episode.choose(replies, screen)
            except ActionParseError as unusable:
                error = unusable
                continue
            if choice[0]:
                break
        if choice is None:
            raise UnusableAnswerError(f"none of the model's {len(replies)} answers could be used: {error}") from None
        _, reply, read = choice
        if self.on_text:
            self.on_text(reply)
        return reply, read

    def reenact(self, task: str, history: list[Step], elements: list[Element], action: Action) -> Decision:
        """A recorded step's action decided again on this screen without asking the model: the answer that
        produces it (as its training sample says), resolved here and kept in the history later prompts show, as
        if the model had given it. PlannerError when this screen has nothing that answer could name."""
        episode, screen = self._screen(task, history, elements)
        answer = episode.answer_for(action, screen)
        if answer is None:
            raise PlannerError(f"the recorded step ({action.redacted().describe()}) names nothing on this screen")
        try:
            _, resolved = episode.read(answer, screen)
        except ActionParseError as exc:
            raise PlannerError(f"the recorded step cannot be re-enacted here: {exc}") from None
        call = split_response(answer)[1]
        episode.remember(call)
        return Decision(call, resolved)

    def branch(self, task: str, history: list[Step], elements: list[Element], rank: int, count: int) -> Decision:
        """The `rank`-th (from 0) of the different usable answers among the model's `count` likeliest replies on
        this screen (a local model's beams; an endpoint is asked `count` times, which differ only when it samples),
        acted on and kept in the history as the model's own: the branches of evaluation/branches.py. PlannerError
        when the replies hold fewer different usable answers."""
        episode, screen = self._screen(task, history, elements)
        messages = episode.messages(screen)
        if isinstance(self.backend, RankingBackend):
            replies = self.backend.alternatives(messages, count)
        else:
            replies = [self.backend.complete(messages) for _ in range(count)]
        answers: dict[str, Action] = {}
        for reply in replies:
            try:
                answers.setdefault(split_response(reply)[1], episode.read(reply, screen)[1])
            except ActionParseError:
                continue
        if rank >= len(answers):
            raise PlannerError(f"the model's {count} replies hold {len(answers)} different usable answers, "
                               f"not {rank + 1}")
        call, action = list(answers.items())[rank]
        episode.remember(call)
        return Decision(call, action)

    def _screen(self, task: str, history: list[Step], elements: list[Element]) -> tuple[SomText, TextScreen]:
        """The episode's som-text state and this screen as it lists it (secrets read off the screen redacted)."""
        episode = self._episode_for(task, history)
        return episode, episode.screen(scrubbed_elements(elements, self.secrets(task)))

    def _episode_for(self, task: str, history: list[Step]) -> SomText:
        """The som-text state of the episode in flight; a new one when an episode starts."""
        # The model never reads the task's secrets: it gets {{placeholders}}, which the agent fills when typing.
        masked = mask_secrets(task, task_secrets(task))
        if not history or self._episode is None or self._episode.task != masked:
            self._episode, self._corrections = SomText(masked), AnswerCorrections()
        return self._episode

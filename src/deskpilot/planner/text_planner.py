"""A planner for language models that see no screenshot (`--mode som-text`): each step it lists grounding's
elements as text (planner/som_text.py) and asks the model for one action. A local model gives its `answers`
likeliest replies and the planner acts on the best one that makes sense on this screen (SomText.choose: no call
repeated on a screen that looks the same, no value clicked that the screen does not show); when none does, on the
best of its WIDER_ANSWERS likeliest (the model's own ranking searched further, never a guess). Text the task does
not give is never typed (SomText.invented: "me" of "Sign me up", a check box's name into a field), nor typed into a
field the task does not name while it names another one (a name into "Password"): the user is asked.
From an endpoint, an unusable answer is retried once with a correction. When nothing is usable the step fails with
a clear error, never a guessed click. Elements are listed as the episode stores them, a secret read off the screen
as [redacted]: what a model is shown is what it was trained on, and a password on the screen never reaches an
endpoint."""

from __future__ import annotations

import logging
from collections.abc import Callable

from deskpilot.core.action_text import split_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.geometry import Box, Point
from deskpilot.core.errors import ActionParseError, PlannerError, UnusableAnswerError
from deskpilot.core.observation import Element, Observation
from deskpilot.core.secrets import PLACEHOLDER, mask_secrets, scrubbed_elements, task_secrets
from deskpilot.core.task_text import WORD, task_spelling

from deskpilot.grounding.action_context import FIELD_ROLES, TOGGLE_ROLES, elements_at

from .field_values import field_values
from .goal_check import (PRESSABLE, SUBMITS, field_labels, list_reading, named_toggles, other_named_field,
                         shows_option, toggle_names)
from .base import ChatBackend, Decision, RankingBackend, ask_with_one_correction
from .som_text import SomText, TextScreen
from .task_phrases import comparable, holds_phrase

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
        self._filled_first: set[str] = set()  # fields the episode's clicks on a button were sent to first
        self._seen_labels: list[tuple[Box, str]] = []  # each field's label as the episode first saw it

    def secrets(self, task: str) -> list[str]:
        return [secret.value for secret in task_secrets(task)]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        episode, screen = self._screen(task, history, elements)
        if self.answers > 1 and isinstance(self.backend, RankingBackend):
            reply, (thought, action) = self._best_of(episode, screen)
        else:
            try:
                reply, (thought, action) = ask_with_one_correction(
                    self.backend, episode.messages(screen), lambda text: episode.read(text, screen),
                    ActionParseError, lambda error: CORRECTION.format(error=error), self.on_text)
            except ActionParseError as second_error:
                raise UnusableAnswerError(f"the model's answer could not be used twice: {second_error}") from None
        call = split_response(reply)[1]
        labelled = self._labels(elements)
        if moved := self._as_given(episode, screen, action, elements, labelled, history) or \
                self._named_toggle(episode, screen, action, elements, labelled, history) or \
                self._clicked_not_typed(episode, screen, action, elements) or self._task_spelling(episode, screen,
                                                                                                   action):
            (action, call), thought = moved
        if doubt := episode.invented(action, screen) or self._elsewhere(episode, action, labelled):
            question = (f"I would type {action.text!r}, but {doubt}; please type it yourself or say the task "
                        "differently")
            return Decision(f"not the task's: {call}", Action(kind=ActionKind.CALL_USER, text=question))
        confidence = getattr(self.backend, "likelihood", {}).get(reply)
        if confidence is not None and confidence < self.min_confidence and not action.is_terminal:
            question = (f"I am not sure what to do next (my best guess, {call}, has probability {confidence:.2f}); "
                        "please do this step or say the task differently")
            return Decision(f"unsure: {call}", Action(kind=ActionKind.CALL_USER, text=question), confidence)
        episode.remember(call)
        return Decision(thought or call, action, confidence)

    def _as_given(self, episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                  labelled: dict[Box, str], history: list[Step]) -> tuple[tuple[Action, str], str] | None:
        """Where the task gives values to fields this screen shows (planner/field_values.py), an action that would
        not leave each of them with its value, done another way: ((the action instead, its call), why), or None to
        act as answered. A value the task gives another field goes there (that field is clicked first; the model
        types into it next); text the task does not give, typed into a field the task gives a value, becomes that
        value; a click on a button the task names (or one that submits) while a field the task gives a value shows
        another goes to that field first (once a field an episode: a drop-down OCR cannot read stays unread; and
        never where the value was typed already: a field grounding reads as empty may hold it)."""
        texts = [e.text for e in elements if e.text and e.role not in FIELD_ROLES and e.text not in labelled.values()]
        given = {label: value for label, value in field_values(episode.task, list(labelled.values()), texts).items()
                 if not PLACEHOLDER.fullmatch(value)}
        fields = {label: e for e in elements if e.role in FIELD_ROLES and (label := labelled.get(e.box))}
        if not given:
            return None
        if action.kind is ActionKind.TYPE and action.text and (box := episode.field_in_focus) is not None:
            label = next((name for field, name in labelled.items() if field.iou(box) > 0.5), None)
            text = comparable(action.text)
            if label is not None and comparable(given.get(label, "")) == text:
                return None
            owner = next((name for name, value in given.items() if comparable(value) == text), None)
            if owner is not None and owner in fields:
                instead = Action(kind=ActionKind.CLICK, point=fields[owner].click_point)
                why = f"the task gives {action.text!r} for {owner!r}, not {label or 'this field'!r}: its field first"
            elif label in given and (episode.invented(action, screen) or self._elsewhere(episode, action, labelled)):
                instead = action.model_copy(update={"text": given[label]})
                why = f"the task gives {given[label]!r} for {label!r}"
            else:
                return None
        elif action.kind is ActionKind.CLICK and action.point is not None and \
                self._presses(episode.task, action.point, elements):
            typed = {comparable(step.action.text) for step in history if step.action.kind is ActionKind.TYPE and
                     step.action.text}
            unfilled = [(label, value, now) for label, value in given.items() if label in fields and label not in
                        self._filled_first and comparable(value) not in typed and
                        not shows_option(now := list_reading(fields[label].box, elements) or "", value)
                        and (now.strip() or fields[label].role != "dropdown")]
            if not unfilled:
                return None
            label, value, now = unfilled[0]
            self._filled_first.add(label)
            instead = Action(kind=ActionKind.CLICK, point=fields[label].click_point)
            why = f"the task gives {value!r} for {label!r}, which shows {now.strip()!r}: that first"
        else:
            return None
        answer = episode.answer_for(instead, screen)
        return ((instead, split_response(answer)[1]), why) if answer is not None else None

    @staticmethod
    def _named_toggle(episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                      labelled: dict[Box, str], history: list[Step]) -> tuple[tuple[Action, str], str] | None:
        """A click on a check box or radio button (or its label, a line of text, or a field) whose name the task
        does not say, while the task names an unticked one by a word of its own that no step clicked yet
        (goal_check.named_toggles), goes to that one: the shipped planner clicked the label of the "Small" radio
        button (which grounding did not see) for "Opt into the newsletter", and the Password field, to type "me",
        for "Sign me up for the newsletter"."""
        if action.kind is not ActionKind.CLICK or action.point is None:
            return None
        under = elements_at(action.point, elements)
        fields = [e for e in under if e.role in FIELD_ROLES]
        names = [name for toggle, name, label in toggle_names(elements)
                 if toggle.box.contains(*action.point) or label.contains(*action.point)] + \
            [e.text for e in under if e.role == "text" and e.text] + [labelled.get(e.box, "") for e in fields]
        said = set(WORD.findall(episode.task.lower()))
        if not names or not all(names) or any(e.role not in ("text", *TOGGLE_ROLES, *FIELD_ROLES) for e in under) or \
                any(len(word) >= 3 and word in said for name in names for word in WORD.findall(name.lower())):
            return None
        clicks = [step.action.point for step in history if step.action.kind is ActionKind.CLICK and step.action.point]
        labels = {id(toggle): label for toggle, _, label in toggle_names(elements)}
        named = [(toggle, name) for toggle, name in named_toggles(episode.task, elements) if toggle.checked is False
                 and not any(box.contains(*point) for box in (toggle.box, labels[id(toggle)]) for point in clicks)]
        if not named:
            return None
        toggle, name = named[0]
        instead = Action(kind=ActionKind.CLICK, point=toggle.click_point)
        answer = episode.answer_for(instead, screen)
        why = f"the task names {name!r}, not {names[0]!r}"
        return ((instead, split_response(answer)[1]), why) if answer is not None else None

    @staticmethod
    def _clicked_not_typed(episode: SomText, screen: TextScreen, action: Action, elements: list[Element]
                           ) -> tuple[tuple[Action, str], str] | None:
        """Typing the name of an unticked check box or radio button of the screen ("small" for "The size should be
        small", where a radio button says Small) is a click on it: what names a thing on the screen is clicked,
        not typed."""
        if action.kind is not ActionKind.TYPE or not action.text:
            return None
        wanted = comparable(action.text)
        named = [toggle for toggle, name, _ in toggle_names(elements) if comparable(name) == wanted]
        if len(named) != 1 or named[0].checked is not False:
            return None
        instead = Action(kind=ActionKind.CLICK, point=named[0].click_point)
        answer = episode.answer_for(instead, screen)
        why = f"{action.text!r} names a {named[0].role} of the screen: clicked, not typed"
        return ((instead, split_response(answer)[1]), why) if answer is not None else None

    @staticmethod
    def _task_spelling(episode: SomText, screen: TextScreen, action: Action) -> tuple[tuple[Action, str], str] | None:
        """Text the task does not say that is the task's own words misspelt ("Kathleen Johnson" for "Write
        Katherine Johnson where it asks for the full name") is typed as the task spells it: a small model copies
        names letter by letter and slips."""
        if action.kind is not ActionKind.TYPE or not action.text or not episode.invented(action, screen):
            return None
        spelt = task_spelling(action.text, episode.task)
        if spelt is None:
            return None
        instead = action.model_copy(update={"text": spelt})
        if episode.invented(instead, screen):
            return None
        answer = episode.answer_for(instead, screen)
        why = f"{action.text!r} is the task's {spelt!r} misspelt"
        return ((instead, split_response(answer)[1]), why) if answer is not None else None

    @staticmethod
    def _presses(task: str, point: Point, elements: list[Element]) -> bool:
        """Whether a click at `point` lands on a button or link that the task names or that submits."""
        return any(e.role in PRESSABLE and e.text and (SUBMITS.match(e.text) or holds_phrase(task, e.text))
                   for e in elements_at(point, elements))

    @staticmethod
    def _elsewhere(episode: SomText, action: Action, labelled: dict[Box, str]) -> str | None:
        """Where an action types into a field the task does not name while it names another field of the screen
        (`labelled`: its fields and their labels), why that is the wrong field; else None."""
        box = episode.field_in_focus
        if action.kind is not ActionKind.TYPE or box is None:
            return None
        label = next((name for field, name in labelled.items() if field.iou(box) > 0.5), None)
        other = other_named_field(episode.task, label, labelled, []) if label else None
        return f"the task names {other!r}, not {label!r}" if other else None

    def _labels(self, elements: list[Element]) -> dict[Box, str]:
        """The fields of this screen and their labels, each field named as the episode first saw it named: a
        field in focus may be seen narrower than it is, and then the text it holds looks like its label (a Tk
        entry holding "12.50" after a click)."""
        named = {}
        for box, label in field_labels(elements).items():
            earlier = next((name for seen, name in self._seen_labels if seen.iou(box) > 0.5), None)
            if earlier is None:
                self._seen_labels.append((box, label))
            named[box] = earlier or label
        return named

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
            self._episode, self._filled_first, self._seen_labels = SomText(masked), set(), []
        return self._episode

"""Training samples from episodes, in the planner's own prompt format: for each usable step, the chat messages the
model planner would have sent at that moment (system prompt with the task, earlier answers, recent screenshots)
and the answer it should give (`Thought: ...` / `Action: ...`, coordinates in the model family's space), plus the
step's label and the rule-reward target (action type, the clicked element's box, the typed text).

Steps are left out when they cannot teach anything true: dry runs, steps with redacted text, steps whose frame
is missing, and (for labelled data) steps a verifier could not decide. In som-text mode a step that kept no list of
what grounding saw (a person's recorded demonstration) has its screen grounded from its frame, as the agent would
have seen it, so demonstrations teach the learned planner too."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from deskpilot.core.action_text import format_response, parse_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.secrets import REDACTED, mask_secrets, scrubbed_elements, task_secrets
from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import Episode, Step, list_episodes, read_episode
from deskpilot.core.errors import EpisodeError, TrainingError
from deskpilot.core.geometry import Box, Point
from deskpilot.core.observation import Element, Observation
from deskpilot.planner.context import PromptBuilder, Screenshot, Turn, image_from_url, model_image
from deskpilot.planner.families import ModelFamily, load_template
from deskpilot.planner.model_planner import no_effect_note
from deskpilot.planner.som_text import SomText

log = logging.getLogger(__name__)
Label = Literal["good", "bad", "unknown"]
CLICK_SLACK = 0.02  # with no element under a click, its target box reaches this share of the screen around it
POINTED = (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK, ActionKind.MOVE, ActionKind.DRAG)


@dataclass(frozen=True)
class Target:
    """What a correct answer must contain, in the model's coordinates: rule rewards and evaluation check this."""

    kind: str
    box: tuple[int, int, int, int] | None = None  # the element the action must hit (x0, y0, x1, y1)
    point: tuple[int, int] | None = None  # where the recorded action hit
    text: str | None = None  # typed text, hotkey combo or finished() answer
    diagonal: float = 1000.0  # of the model's image, to shape distances
    # som-text: each answer episodes gave to this very prompt in a scoring environment -> the share of them won
    outcomes: tuple[tuple[str, float], ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        # outcomes as a list of records: a `datasets` column needs one schema across rows, not a dict per row
        return {"kind": self.kind, "box": list(self.box) if self.box else None,
                "point": list(self.point) if self.point else None, "text": self.text, "diagonal": self.diagonal,
                "outcomes": [{"answer": a, "won": w} for a, w in self.outcomes] if self.outcomes else None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Target:
        outcomes = tuple((o["answer"], float(o["won"])) for o in data["outcomes"]) if data.get("outcomes") else None
        return cls(data["kind"], tuple(data["box"]) if data.get("box") else None,
                   tuple(data["point"]) if data.get("point") else None, data.get("text"),
                   float(data.get("diagonal", 1000.0)), outcomes)


@dataclass
class Sample:
    """One step as training data. `messages` are OpenAI-format chat messages (images as data URLs)."""

    episode: str
    step: int
    source: str
    messages: list[dict[str, Any]]
    completion: str
    label: Label
    target: Target
    app: str = ""  # the episode's app (a MiniWoB++ task, a desktop program), for balancing the mix of apps
    verifier: str = ""  # who gave the label ("env", "heuristic", "judge"; "" when none did)


def episode_dirs(paths: list[Path]) -> list[Path]:
    """Episode folders from arguments that are episodes or folders of episodes."""
    found: list[Path] = []
    for path in paths:
        if (path / "episode.json").is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(list_episodes(path))
        else:
            raise TrainingError(f"{path} is neither an episode nor a folder of episodes")
    if not found:
        raise TrainingError(f"no episodes in {', '.join(str(p) for p in paths)}")
    return found


def step_label(step: Step, episode: Episode) -> Label:
    """A step's verdict. Unverified steps of a person's demonstration count as good, and so does the closing
    `finished` of an episode that succeeded; anything else unverified is unknown."""
    if step.verification is not None:
        return step.verification.label
    if episode.meta.source == "demonstration":
        return "good"
    if step.action.kind is ActionKind.FINISHED and episode.meta.outcome == "success":
        return "good"
    return "unknown"


def verifier_of(step: Step) -> str:
    """Who labelled the step ("env", "heuristic", "judge"), or "" when nobody did."""
    return step.verification.verifier if step.verification else ""


def answer_text(step: Step, space: CoordinateSpace) -> str:
    """The reply the planner expects for this step: `Thought: ...` (when there was one) and `Action: <call>`."""
    return format_response(step.thought, step.action.model_copy(update={"target": None, "end_target": None}), space)


def target_of(step: Step, space: CoordinateSpace, image_size: tuple[int, int]) -> Target:
    action, monitor = step.action, space.monitor
    diagonal = float((image_size[0] ** 2 + image_size[1] ** 2) ** 0.5)
    text = _target_text(action)
    if action.point is None or action.kind not in POINTED:
        return Target(action.kind.value, text=text, diagonal=diagonal)
    point = space.from_screen(action.point)
    hit = [e.box for e in step.elements if e.box.contains(action.point.x, action.point.y)]
    if hit:
        box = min(hit, key=lambda b: b.area)
    else:
        reach = round(CLICK_SLACK * max(monitor.width, monitor.height))
        box = Box(action.point.x - reach, action.point.y - reach, action.point.x + reach, action.point.y + reach)
    x0, y0 = space.from_screen(Point(box.x0, box.y0))
    x1, y1 = space.from_screen(Point(box.x1, box.y1))
    return Target(action.kind.value, (x0, y0, x1, y1), point, text, diagonal)


def _target_text(action: Action) -> str | None:
    if action.kind is ActionKind.TYPE:
        return action.text
    if action.kind is ActionKind.HOTKEY:
        return " ".join(action.keys)
    if action.kind in (ActionKind.FINISHED, ActionKind.CALL_USER):
        return action.text
    return None


def usable(step: Step, episode: Episode) -> bool:
    """Whether a step can be training data: it was carried out, holds no redacted text, and has its frame."""
    if step.dry_run or (step.action.text is not None and REDACTED in step.action.text):
        return False
    return (episode.directory / step.before).is_file()


class SampleBuilder:
    """Builds Samples the way the model planner builds prompts, for one model family and planning mode: `native`
    (screenshots, coordinates) or `som-text` (elements as text, see planner/som_text.py; no frames needed)."""

    def __init__(self, family: ModelFamily, max_images: int = 3, token_budget: int = 16000, mode: str = "native"):
        self.family = family
        self.mode = mode
        self.builder = PromptBuilder(load_template("native"), max_images=max_images, token_budget=token_budget)
        self._ground: Callable[[Observation], list[Element]] | None = None  # pixels_grounder, built when first needed

    def episode_samples(self, episode: Episode) -> Iterator[Sample]:
        if self.mode == "som-text":
            yield from self.text_samples(episode)
            return
        turns: list[Turn] = []
        last: tuple[np.ndarray, Action] | None = None  # the previous step's screen and action, for its effect note
        for step in episode.steps:
            try:
                frame = episode.frame(step.before) if usable(step, episode) else None
            except EpisodeError as exc:
                log.warning("%s", exc)
                frame = None
            if frame is None:
                turns, last = [], None  # the planner's conversation breaks here; later steps start afresh
                continue
            monitor = step.monitor_for(frame)
            space = self.family.space(monitor)
            image = model_image(frame, space)
            screenshot = Screenshot.of(image)
            completion = answer_text(step, space)
            note = no_effect_note(last[0], frame, last[1], monitor) if last else ""
            messages = self.builder.messages(episode.meta.task, turns, screenshot, space, note)
            yield Sample(episode.meta.id, step.index, episode.meta.source, messages, completion,
                         step_label(step, episode), target_of(step, space, (image.shape[1], image.shape[0])),
                         episode.meta.app or "", verifier_of(step))
            turns.append(Turn(screenshot, completion))
            last = (frame, step.action)

    def text_samples(self, episode: Episode) -> Iterator[Sample]:
        """som-text samples: each step's prompt as the text planner builds it from the elements the step saw, and
        the answer that produces the step's action; again under each paraphrase of the task the episode keeps (the
        same steps asked in other words). A step that cannot be said in that mode ends the samples of that wording,
        since the history of later prompts would be wrong."""
        for task in (episode.meta.task, *episode.meta.paraphrases):
            yield from self._worded_samples(episode, task)

    def _worded_samples(self, episode: Episode, task: str) -> Iterator[Sample]:
        # stored with secrets redacted; the planner masks them as {{placeholders}}
        conversation = SomText(mask_secrets(task, task_secrets(task)))
        for step in episode.steps:
            if step.dry_run:
                return
            seen = step.seen or self._seen_in_frame(episode, step)
            screen = conversation.screen(seen)
            answer = conversation.answer_for(step.action, screen, step.elements)
            if answer is None or (not seen and not step.action.is_terminal):
                return
            yield Sample(episode.meta.id, step.index, episode.meta.source, conversation.messages(screen), answer,
                         step_label(step, episode), Target(step.action.kind.value,
                                                           text=_target_text(parse_response(answer).actions[0])),
                         episode.meta.app or "", verifier_of(step))
            conversation.remember(answer)

    def _seen_in_frame(self, episode: Episode, step: Step) -> list[Element]:
        """What grounding finds on the step's before frame (none for a terminal step or a missing frame)."""
        if step.action.is_terminal or not step.before or not (episode.directory / step.before).is_file():
            return []  # collected with --frames none: nothing to ground
        try:
            frame = episode.frame(step.before)
        except EpisodeError as exc:
            log.warning("%s", exc)
            return []
        if self._ground is None:
            self._ground = pixels_grounder()
        # The task is stored with its secrets redacted, so only what the screen itself names as one is known here
        # (`password "x"` in the task's echo); the rest of the screen is scrubbed as the agent scrubs what it keeps.
        return scrubbed_elements(self._ground(Observation(frame, step.monitor_for(frame))), [])

    def samples(self, paths: list[Path]) -> list[Sample]:
        found: list[Sample] = []
        rewards: dict[str, float] = {}  # episode id -> the final reward of a scoring environment (MiniWoB++)
        for directory in episode_dirs(paths):
            episode = read_episode(directory)
            if episode.meta.outcome == "running":
                log.warning("skipping %s: it is still being written", directory)
                continue
            found.extend(self.episode_samples(episode))
            if episode.meta.environment is not None and episode.meta.environment.reward is not None:
                rewards[episode.meta.id] = episode.meta.environment.reward
        return with_outcomes(found, rewards) if self.mode == "som-text" else found


def with_outcomes(samples: list[Sample], rewards: dict[str, float]) -> list[Sample]:
    """som-text samples whose prompt episodes of a scoring environment answered, with `target.outcomes`: each answer
    given to that very prompt and the share of the episodes giving it that won. Two prompts with the same text are
    one screen as the model saw it (the same task, earlier answers and listing), so this is what the environment
    gave each answer there, with the collecting model going on: the environment's reward for an answer that GRPO
    samples (rewards.environment_reward)."""
    keys = [prompt_key(sample.messages) for sample in samples]
    tally: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for key, sample in zip(keys, samples):
        if sample.episode in rewards:
            count = tally[key][sample.completion]
            count[0] += rewards[sample.episode] > 0
            count[1] += 1
    return [replace(sample, target=replace(sample.target, outcomes=tuple(
                (answer, won / played) for answer, (won, played) in sorted(tally[key].items()))))
            if key in tally else sample for key, sample in zip(keys, samples)]


def prompt_key(messages: list[dict[str, Any]]) -> str:
    """One text for a prompt's chat messages: equal for the same prompt, as a sample or as a dataset row."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


def pixels_grounder() -> Callable[[Observation], list[Element]]:
    """The grounder the settings ask for, from pixels alone: a saved frame has no live accessibility tree."""
    from deskpilot.core.settings import load_settings
    from deskpilot.grounding.factory import build_grounder

    return build_grounder(load_settings(accessibility=False)).parse


def to_trl_messages(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """OpenAI-format messages -> TRL's vision format: `{"type": "image"}` placeholders and the PIL images in order."""
    converted: list[dict[str, Any]] = []
    images: list[Any] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            converted.append({"role": message["role"], "content": [{"type": "text", "text": content}]})
            continue
        parts: list[dict[str, Any]] = []
        for part in content:
            if part["type"] == "image_url":
                images.append(image_from_url(part["image_url"]["url"]))
                parts.append({"type": "image"})
            else:
                parts.append({"type": "text", "text": part["text"]})
        converted.append({"role": message["role"], "content": parts})
    return converted, images

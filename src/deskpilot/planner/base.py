"""The Planner protocol and what a planner returns (Decision)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from deskpilot.core.actions import Action
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element, Observation


@dataclass(frozen=True)
class Decision:
    thought: str
    action: Action
    confidence: float | None = None  # the model's probability of its answer, where the backend gives one


class Planner(Protocol):
    """A planner may also set `takes_feedback = True`: the agent then tells it, with the task, once, when the
    screen shows an error or the check before "done" failed, instead of ending the run at once."""

    @property
    def name(self) -> str:
        """Who decides, as episodes name it."""
        ...

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        """The next action for `task`, given the steps taken so far and the current screen."""
        ...

    def secrets(self, task: str) -> list[str]:
        """Values in the task text that must never be stored or logged (passwords it will type)."""
        ...


log = logging.getLogger(__name__)
Parsed = TypeVar("Parsed")


def ask_with_one_correction(backend: ChatBackend, messages: list[dict[str, object]], parse: Callable[[str], Parsed],
                            unusable: type[Exception], correction: Callable[[Exception], str],
                            on_text: Callable[[str], None] | None = None) -> tuple[str, Parsed]:
    """Ask `backend`; when `parse` rejects the reply with `unusable`, ask once more with the reply and
    `correction(error)` appended. Returns (reply, parsed); a second rejection propagates to the caller."""
    reply = backend.complete(messages, on_text)
    try:
        return reply, parse(reply)
    except unusable as error:
        log.info("unusable answer from %s (%s); asking once more", backend.name, error)
        retry: list[dict[str, object]] = [*messages, {"role": "assistant", "content": reply},
                                          {"role": "user", "content": correction(error)}]
    reply = backend.complete(retry, on_text)
    return reply, parse(reply)


class ChatBackend(Protocol):
    """Something that answers OpenAI-format chat messages (an HTTP endpoint, a local model)."""

    name: str

    def complete(self, messages: list[dict[str, object]], on_text: Callable[[str], None] | None = None) -> str:
        """The model's whole reply; `on_text` gets pieces of it as they are generated, where the backend streams."""
        ...


@runtime_checkable
class RankingBackend(ChatBackend, Protocol):
    """A backend that can give several replies to one prompt, likeliest first (a local model's beam search)."""

    def alternatives(self, messages: list[dict[str, object]], count: int) -> list[str]:
        """Up to `count` replies, best first."""
        ...

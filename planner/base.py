"""The Planner protocol and what a planner returns (Decision)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import Protocol

from deskpilot.core.actions import Action
from deskpilot.core.episode import Step
from deskpilot.core.observation import Element, Observation


@dataclass(frozen=True)
class Decision:
    thought: str
    action: Action


class Planner(Protocol):
    name: str

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        """The next action for `task`, given the steps taken so far and the current screen."""
        ...

    def secrets(self, task: str) -> list[str]:
        """Values in the task text that must never be stored or logged (passwords it will type)."""
        ...


class ChatBackend(Protocol):
    """Something that answers OpenAI-format chat messages (an HTTP endpoint, a local model)."""

    name: str

    def complete(self, messages: list[dict[str, object]], on_text: Callable[[str], None] | None = None) -> str:
        """The model's whole reply; `on_text` gets pieces of it as they are generated, where the backend streams."""
        ...

"""The Grounder protocol every grounding backend (OCR, detector, VLM) implements."""

from __future__ import annotations

from typing import Protocol

from deskpilot.core.observation import Element, Observation


class Grounder(Protocol):
    def parse(self, obs: Observation) -> list[Element]:
        """Every element found on the screen, boxes in screen pixels."""
        ...

    def locate(self, obs: Observation, description: str) -> Element | None:
        """The element `description` means ("the Save button", '"Remember me" checkbox'), or None."""
        ...

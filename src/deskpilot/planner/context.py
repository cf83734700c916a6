"""The chat messages a model planner sends: the system prompt (task, platform, screen size, action space), the
previous turns (all thoughts and actions; screenshots only for the last few), and the current screen, kept within
a token budget. Messages use the OpenAI chat format, which every backend accepts."""

from __future__ import annotations

import base64
import io
import platform
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from deskpilot.core.action_registry import ELEMENT_FORM, POINT_FORM, prompt_calls
from deskpilot.core.coords import CoordinateSpace, smart_resize
from deskpilot.core.episode import encode_png

from .families import COORDINATE_RULES

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

PATCH = 28  # Qwen-style vision encoders spend one token per 28x28 patch
Message = dict[str, object]


DEMO_SCREEN_NOTE = "The screen the demonstration above started from (smaller than the real one):"


@dataclass(frozen=True)
class Screenshot:
    """A model-sized screenshot, encoded once (as a data URL) and reused while it stays in the history."""

    url: str
    width: int
    height: int

    @classmethod
    def of(cls, image_rgb: np.ndarray) -> Screenshot:
        return cls(image_url(image_rgb), image_rgb.shape[1], image_rgb.shape[0])

    @property
    def tokens(self) -> int:
        return max(1, (self.height // PATCH) * (self.width // PATCH))


@dataclass
class Turn:
    """One earlier step as the model saw it: its screenshot and the model's answer."""

    screenshot: Screenshot | None
    response: str


def model_image(screenshot: np.ndarray, space: CoordinateSpace) -> np.ndarray:
    """The screenshot at the size the model should see: smart-resized (Qwen-style), unless the model speaks
    screen pixels."""
    if space.mode == "screen":
        return screenshot
    if space.mode == "resized" and space.image_size is not None:
        width, height = space.image_size
    else:
        height, width = smart_resize(screenshot.shape[0], screenshot.shape[1])
    if (width, height) == (screenshot.shape[1], screenshot.shape[0]):
        return screenshot
    return cv2.resize(screenshot, (width, height), interpolation=cv2.INTER_AREA)


def image_url(image_rgb: np.ndarray) -> str:
    return "data:image/png;base64," + base64.b64encode(encode_png(image_rgb)).decode("ascii")


def image_from_url(url: str) -> PILImage:  # PIL is imported only where images are decoded
    """A data URL (as `image_url` makes) -> an RGB PIL image, the form transformers processors and TRL take."""
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def text_tokens(text: str) -> int:
    return len(text) // 4 + 1


class PromptBuilder:
    def __init__(self, template: str, max_images: int = 3, token_budget: int = 16000, language: str = "English"):
        self.template = template
        self.max_images = max_images
        self.token_budget = token_budget
        self.language = language

    def system_prompt(self, task: str, width: int, height: int, space: CoordinateSpace) -> str:
        rule = COORDINATE_RULES[space.mode].format(image_width=width, image_height=height)
        return self.template.format(platform=platform.system() or "desktop", image_width=width, image_height=height,
                                    coordinate_rule=rule, language=self.language, task=task,
                                    point_calls=prompt_calls(POINT_FORM), element_calls=prompt_calls(ELEMENT_FORM))

    def messages(self, task: str, turns: list[Turn], current: Screenshot, space: CoordinateSpace,
                 note: str = "", example: str = "", example_screen: Screenshot | None = None) -> list[Message]:
        """System prompt (with `example`, a demonstration in words, at its end), the demonstration's first screen
        when there is one, then user(screenshot) / assistant(answer) pairs, then the current screenshot and `note`.
        Older screenshots are dropped first, then the oldest turns, until the estimate fits the budget."""
        system = self.system_prompt(task, current.width, current.height, space) + (f"\n\n{example}" if example else "")
        keep_images = min(self.max_images - 1, len(turns))
        first_turn = 0
        shown: list[Message] = [] if example_screen is None else [
            {"role": "user", "content": [{"type": "text", "text": DEMO_SCREEN_NOTE}, _image_part(example_screen)]}]
        while True:
            cost = text_tokens(system) + current.tokens + text_tokens(note) + \
                (example_screen.tokens if example_screen is not None else 0)
            for index, turn in enumerate(turns[first_turn:], first_turn):
                cost += text_tokens(turn.response)
                if turn.screenshot is not None and index >= len(turns) - keep_images:
                    cost += turn.screenshot.tokens
            if cost <= self.token_budget or (keep_images == 0 and first_turn >= len(turns)):
                break
            if keep_images > 0:
                keep_images -= 1
            else:
                first_turn += 1
        messages: list[Message] = [{"role": "system", "content": system}, *shown]
        if first_turn:
            messages.append({"role": "user", "content": f"({first_turn} earlier steps left out to save space.)"})
        for index, turn in enumerate(turns[first_turn:], first_turn):
            if turn.screenshot is not None and index >= len(turns) - keep_images:
                messages.append({"role": "user", "content": [_image_part(turn.screenshot)]})
            messages.append({"role": "assistant", "content": turn.response})
        now: list[dict[str, object]] = [_image_part(current)]
        if note:
            now.append({"type": "text", "text": note})
        messages.append({"role": "user", "content": now})
        return messages


def _image_part(screenshot: Screenshot) -> dict[str, object]:
    return {"type": "image_url", "image_url": {"url": screenshot.url}}

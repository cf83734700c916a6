"""Model families: which prompt template a model gets, and which coordinate space it answers in.

| family       | coordinates                          | models                                   |
| ui-tars-1.5  | pixels of the smart-resized image    | UI-TARS-1.5-7B, UI-TARS-7B-DPO/SFT        |
| qwen2.5-vl   | pixels of the smart-resized image    | Qwen2.5-VL-*-Instruct                    |
| ui-tars      | 0-1000 grid                          | UI-TARS v1 (2B/7B/72B)                   |
| qwen2-vl     | 0-1000 grid                          | Qwen2-VL                                 |
| qwen3-vl     | 0-1000 grid                          | Qwen3-VL                                 |
| screen       | screen pixels, image not resized     | any model told the true screen size      |
"""

from __future__ import annotations

from dataclasses import dataclass

from deskpilot.core.coords import CoordinateSpace, SpaceMode
from deskpilot.core.errors import PlannerError
from deskpilot.core.geometry import Monitor
from deskpilot.resources import RESOURCES_DIR

PROMPTS_DIR = RESOURCES_DIR / "prompts"
COORDINATE_RULES = {
    "resized": "Coordinates are pixels of the screenshot exactly as you see it: x from 0 to {image_width}, "
               "y from 0 to {image_height}, (0, 0) at the top left.",
    "relative1000": "Coordinates are on a 0-1000 grid over the screenshot: (0, 0) is the top left corner and "
                    "(1000, 1000) the bottom right, whatever the screenshot's size.",
    "screen": "Coordinates are pixels of the screenshot exactly as you see it, (0, 0) at the top left.",
}


@dataclass(frozen=True)
class ModelFamily:
    name: str
    coordinates: SpaceMode

    def space(self, monitor: Monitor) -> CoordinateSpace:
        return CoordinateSpace.for_model(monitor, self.coordinates)


FAMILIES = {f.name: f for f in (
    ModelFamily("ui-tars-1.5", "resized"), ModelFamily("qwen2.5-vl", "resized"),
    ModelFamily("ui-tars", "relative1000"), ModelFamily("qwen2-vl", "relative1000"),
    ModelFamily("qwen3-vl", "relative1000"), ModelFamily("screen", "screen"),
)}


def family(name: str) -> ModelFamily:
    try:
        return FAMILIES[name.lower()]
    except KeyError:
        raise PlannerError(f"unknown model family {name!r}; known: {', '.join(FAMILIES)}") from None


def resolve_family(name: str | None, model_name: str) -> ModelFamily:
    """The family named (`--family`), else the one the model's name suggests."""
    return family(name) if name else guess_family(model_name)


def guess_family(model_name: str) -> ModelFamily:
    """The family a model name suggests (UI-TARS-1.5-7B -> ui-tars-1.5); resized-image pixels otherwise."""
    name = model_name.lower().replace("_", "-")
    for key in ("ui-tars-1.5", "qwen2.5-vl", "qwen3-vl", "qwen2-vl", "ui-tars"):
        if key in name or key.replace("-", "") in name.replace("-", ""):
            return FAMILIES[key]
    return FAMILIES["qwen2.5-vl"]


def load_template(mode: str) -> str:
    """The prompt template file for a planning mode: `native` (the model gives coordinates) or `som`."""
    path = PROMPTS_DIR / ("set_of_marks.txt" if mode == "som" else "computer_use.txt")
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlannerError(f"cannot read prompt template {path}: {exc.strerror}") from None

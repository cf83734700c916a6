"""The UI-element detector on real MiniWoB++ screenshots: the page's DOM boxes are the truth, each DOM element
standing for the detector class its tag or role says."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from deskpilot.grounding.detector import UI_CLASSES, UiDetector
from deskpilot.training.detector.evaluate import evaluate_truths

from .miniwob.page import PageElement

# DOM tags (input types as input_<type>) standing for each detector class on MiniWoB pages.
TAG_CLASSES = {"button": "button", "input_button": "button", "input_submit": "button", "input_reset": "button",
               "input_text": "input", "input_password": "input", "input_email": "input", "input_search": "input",
               "input_number": "input", "input_tel": "input", "input_url": "input", "input_date": "input",
               "textarea": "input", "input_checkbox": "checkbox", "input_radio": "radio", "select": "dropdown",
               "a": "link", "input_range": "slider"}


def page_class(element: PageElement) -> str | None:
    """The detector class a MiniWoB DOM element stands for (None for text, labels and containers)."""
    if element.role in UI_CLASSES:
        return element.role
    return TAG_CLASSES.get(element.tag)


def evaluate_pages(detector: UiDetector, pages: Iterable[tuple[np.ndarray, list[PageElement]]],
                   on_screen: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Per-class precision/recall on real screenshots with DOM boxes (screen pixels) as the truth."""
    frames = ((image, [(e.box, name) for e in page if (name := page_class(e)) is not None]) for image, page in pages)
    return evaluate_truths(detector, frames, on_screen)

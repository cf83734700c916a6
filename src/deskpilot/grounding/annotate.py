"""Drawing what the agent saw and chose onto a screenshot: element boxes by role, and the action (a target ring,
a drag arrow, or a caption for keyboard actions)."""

from __future__ import annotations

import cv2
import numpy as np

from deskpilot.core.actions import Action
from deskpilot.core.geometry import Monitor
from deskpilot.core.observation import Element

ROLE_COLOURS = {  # RGB
    "text": (40, 150, 255), "input": (0, 170, 90), "button": (230, 140, 0), "checkbox": (170, 60, 200),
    "radio": (170, 60, 200), "dropdown": (0, 170, 170), "link": (30, 90, 220), "icon": (200, 120, 40),
    "tab": (220, 60, 120), "slider": (110, 160, 20), "menu_item": (90, 90, 230), "list_item": (150, 110, 60),
}
ACTION_COLOUR = (230, 20, 40)


def annotate(image: np.ndarray, monitor: Monitor, elements: list[Element], action: Action | None = None,
             caption: str | None = None, numbered: bool = False) -> np.ndarray:
    """A copy of the RGB `image` with element boxes (screen pixels mapped through `monitor`) and the action.
    `numbered` labels each box 1, 2, ... (set-of-marks prompting)."""
    out = image.copy()
    for number, element in enumerate(elements, 1):
        box = monitor.screen_box_to_image(element.box)
        colour = ROLE_COLOURS.get(element.role, (120, 120, 120))
        cv2.rectangle(out, (box.x0, box.y0), (box.x1 - 1, box.y1 - 1), colour, 1)
        if numbered:
            _label(out, str(number), box.x0, box.y0, colour)
    if action is not None:
        _draw_action(out, monitor, action)
        caption = caption or action.redacted().describe()
    if caption:
        _caption(out, caption)
    return out


def _draw_action(out: np.ndarray, monitor: Monitor, action: Action) -> None:
    if action.point is None:
        return
    x, y = (round(v) for v in monitor.screen_to_image(*action.point))
    cv2.circle(out, (x, y), 12, ACTION_COLOUR, 2, cv2.LINE_AA)
    cv2.drawMarker(out, (x, y), ACTION_COLOUR, cv2.MARKER_CROSS, 10, 2)
    if action.end_point is not None:
        ex, ey = (round(v) for v in monitor.screen_to_image(*action.end_point))
        cv2.arrowedLine(out, (x, y), (ex, ey), ACTION_COLOUR, 2, cv2.LINE_AA, tipLength=0.08)


def _label(out: np.ndarray, text: str, x: int, y: int, colour: tuple[int, int, int]) -> None:
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.4
    (w, h), base = cv2.getTextSize(text, font, scale, 1)
    top = max(0, y - h - base - 2)
    cv2.rectangle(out, (x, top), (x + w + 4, top + h + base + 2), colour, -1)
    cv2.putText(out, text, (x + 2, top + h + 1), font, scale, (255, 255, 255), 1, cv2.LINE_AA)


def _caption(out: np.ndarray, text: str) -> None:
    font, scale, thickness = cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    cv2.rectangle(out, (0, 0), (min(out.shape[1], w + 16), h + base + 12), (255, 255, 235), -1)
    cv2.putText(out, text, (8, h + 6), font, scale, ACTION_COLOUR, thickness, cv2.LINE_AA)

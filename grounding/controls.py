"""The detector's boxes as named controls beside the ones grounding.layout finds from outlines: a button, tab, menu
item or list item is named by the text inside it, a check box or radio button by the text to its right; a field
keeps its value as text (its name is the label beside it, which `locate` looks up). Where the two agree on a
control, the layout's pixel-exact one is kept."""

from __future__ import annotations

import numpy as np

from deskpilot.core.geometry import Box

from .detector import Detection
from .layout import Widget, label_beside, text_inside
from .ocr import TextLine
from .widgets import toggle_checked

SAME_CONTROL_IOU = 0.5


def detected_widgets(image: np.ndarray, detections: list[Detection], lines: list[TextLine]) -> list[Widget]:
    """Each detection as a Widget named from the OCR lines."""
    widgets: list[Widget] = []
    for detection in detections:
        box, role = detection.box, detection.role
        checked = None
        if role in ("checkbox", "radio"):
            text = label_beside(box, lines)
            checked = toggle_checked(image, box)
        else:
            text = " ".join(line.text for line in text_inside(box, lines))
        widgets.append(Widget(box, role, text, checked, detection.score, "detector"))
    return widgets


def merge_controls(layout: list[Widget], detected: list[Widget]) -> list[Widget]:
    """Layout controls, plus the detected ones that are not the same control, in reading order."""
    extra = [d for d in detected if all(d.box.iou(w.box) < SAME_CONTROL_IOU and not w.box.contains(*d.box.center)
                                        for w in layout)]
    return sorted(layout + extra, key=lambda w: (w.box.y0 // 8, w.box.x0))


def field_beside(label: Box, controls: list[Widget], roles: tuple[str, ...]) -> Widget | None:
    """The control of `roles` a label names: the nearest one right of it on its row, else the nearest below it."""
    cy = (label.y0 + label.y1) / 2
    candidates = [w for w in controls if w.role in roles]
    right = [w for w in candidates if w.box.y0 - 4 <= cy <= w.box.y1 + 4 and w.box.x0 >= label.x1 - 4
             and w.box.x0 - label.x1 <= 720]
    if right:
        return min(right, key=lambda w: w.box.x0)
    below = [w for w in candidates if 0 <= w.box.y0 - label.y1 + 4 <= 80 and w.box.x0 <= label.x1 + 30
             and w.box.x1 >= label.x0]
    return min(below, key=lambda w: w.box.y0) if below else None


def toggle_before(label: Box, controls: list[Widget], roles: tuple[str, ...]) -> Widget | None:
    """The check box or radio button of `roles` just left of a label on its row (else just right of it)."""
    cy = (label.y0 + label.y1) / 2
    row = [w for w in controls if w.role in roles and w.box.y0 - 4 <= cy <= w.box.y1 + 4]
    before = [w for w in row if w.box.x1 <= label.x0 + 4 and label.x0 - w.box.x1 <= 48]
    if before:
        return max(before, key=lambda w: w.box.x1)
    after = [w for w in row if w.box.x0 >= label.x1 - 4 and w.box.x0 - label.x1 <= 48]
    return min(after, key=lambda w: w.box.x0) if after else None

"""The detector's boxes as named controls beside the ones grounding.layout finds from outlines: a button, tab, menu
item or list item is named by the text inside it, a check box or radio button by the text to its right; a field
keeps its value as text (its name is the label beside it, which `locate` looks up). Where the two agree on a
control, the layout's pixel-exact one is kept. A check box or radio button the detector sees where a short text
stands and no frame is drawn is that text (an "M" of a size list), not a control."""

from __future__ import annotations

import numpy as np

from deskpilot.core.geometry import Box, reading_order

from .detector import Detection
from .layout import Widget, label_beside, text_inside
from .ocr import TextLine
from .short_text import short_text_over
from .widgets import field_for_label, round_toggle, toggle_checked, toggle_for_label

SAME_CONTROL_IOU = 0.5
PART_OF = 1 / 3  # of a detected box lying over a layout control it does not hold: a part of that control
# Only detections this sure become controls: a stray low-scored box would shift "the 3rd input" by one. (The
# detector's own threshold is lower, for recall when it is scored on its own.)
CONTROL_SCORE = 0.4


def detected_widgets(image: np.ndarray, detections: list[Detection], lines: list[TextLine]) -> list[Widget]:
    """Each sure detection as a Widget named from the OCR lines."""
    widgets: list[Widget] = []
    for detection in (d for d in detections if d.score >= CONTROL_SCORE):
        box, role = detection.box, detection.role
        checked = None
        if role in ("checkbox", "radio"):
            if short_text_over(image, box, lines):
                continue
            role = "radio" if round_toggle(image, box) else "checkbox"
            text = label_beside(box, lines)
            # A predicted box may run a pixel or two past the drawn one: judge the mark well inside its border.
            edge = max(1, min(box.width, box.height) // 8)
            checked = toggle_checked(image, Box(box.x0 + edge, box.y0 + edge, box.x1 - edge, box.y1 - edge))
        else:
            text = " ".join(line.text for line in text_inside(box, lines))
        widgets.append(Widget(box, role, text, checked, detection.score, "detector"))
    return widgets


def merge_controls(layout: list[Widget], detected: list[Widget]) -> list[Widget]:
    """Layout controls, plus the detected ones that are not the same control, in reading order. A detected box
    that runs partly over two layout controls is the detector's view of both (a web form's Receipt number and
    Amount fields seen as one across the gap between them: a click there focuses neither), and one that lies a
    third or more over a layout control it does not hold is a part of it (a focused field's thick lower border
    seen as a slider): not a control."""
    def straddles(d: Widget) -> bool:
        partly = [w for w in layout if d.box.intersects(w.box) and d.box.share_in(w.box) < 1
                  and w.box.share_in(d.box) < 1]
        return len(partly) >= 2 or any(d.box.share_in(w.box) >= PART_OF for w in partly)

    extra = [d for d in detected if all(d.box.iou(w.box) < SAME_CONTROL_IOU and not w.box.contains(*d.box.center)
                                        for w in layout) and not straddles(d)]
    return sorted(layout + extra, key=lambda w: reading_order(w.box))


def field_beside(label: Box, controls: list[Widget], roles: tuple[str, ...]) -> Widget | None:
    """The control of `roles` a label names (widgets.field_for_label)."""
    candidates = [w for w in controls if w.role in roles]
    chosen = field_for_label(label, [w.box for w in candidates])
    return None if chosen is None else candidates[chosen]


def toggle_before(label: Box, controls: list[Widget], roles: tuple[str, ...]) -> Widget | None:
    """The check box or radio button of `roles` a label names (widgets.toggle_for_label)."""
    candidates = [w for w in controls if w.role in roles]
    chosen = toggle_for_label(label, [w.box for w in candidates])
    return None if chosen is None else candidates[chosen]

"""Grounding with the accessibility tree first and the pixels second: when the application in front exposes its
elements (AT-SPI), a description is matched against their names, roles and exact boxes (a tool-bar icon by its
tooltip name, a field by its label, a check box with its real state); what the tree does not answer (an app
without accessibility, a web page, a canvas, a description it does not name) goes to the OCR grounder unchanged.

Only the window that has the keyboard focus (and its application's popups) is trusted: the tree also lists
windows that are covered by others, and a box there is not what the screen shows."""

from __future__ import annotations

from deskpilot.core.geometry import Box, reading_order
from deskpilot.core.observation import Element, ElementRole, Observation

from .accessibility import AccessibilityTree, AccessibleNode, AccessibleScreen
from .description import TargetSpec, nth, of_its_lines, parse_description
from .ocr_grounder import OcrGrounder
from .task_echoes import echoes_task
from .text_match import EXTRA_TEXT_COST, EXTRA_TEXT_MAX, SQUASHED, match_text

ALL_ROLES: tuple[ElementRole, ...] = ("button", "icon", "menu_item", "tab", "list_item", "checkbox", "radio",
                                      "link", "dropdown", "input", "slider", "text")
# The tree's roles a described kind may be (a "button" in a description is often a tool-bar icon, and so on).
ROLE_FITS: dict[ElementRole | None, tuple[ElementRole, ...]] = {
    None: ALL_ROLES, "text": ALL_ROLES, "button": ("button", "icon"), "icon": ("icon", "button", "list_item"),
    "input": ("input", "dropdown"), "dropdown": ("dropdown",), "checkbox": ("checkbox",), "radio": ("radio",),
    "menu_item": ("menu_item",), "tab": ("tab",), "list_item": ("list_item",), "link": ("link",),
    "slider": ("slider",),
}
LABELLED_ROLES = ("input", "dropdown", "slider")  # controls whose name is the text beside them when they have none
ACTIONABLE_BONUS = 0.01  # between a label and the control with the same name, the control
NESTED = 0.9  # the share of a control's box inside another's at which the two are one control (an entry in its combo)
SAME_PLACE = 0.5  # the overlap (IoU) at which a control the pixels guess and one of the tree are one control
LABEL_REACH = 4.0  # how far (in the control's heights) a label to the left may stand from its control


class AccessibleGrounder:
    """The Grounder protocol over an accessibility tree and an OCR grounder."""

    def __init__(self, pixels: OcrGrounder, tree: AccessibilityTree):
        self.pixels = pixels
        self.tree = tree
        self._task = ""
        self._read_for: tuple[int, float] | None = None  # the observation the last read serves
        self._screen = AccessibleScreen([], [])
        self.timing: dict[str, float] = {}

    def load(self) -> None:
        self.pixels.load()

    def set_task(self, task: str) -> None:
        self._task = task
        self.pixels.set_task(task)

    def parse(self, obs: Observation) -> list[Element]:
        """The tree's elements first, then everything the pixels show (text lines too: a recording made from pixels
        names its targets by the OCR line under the pointer, and replay finds that line again)."""
        trusted = self._trusted(obs)
        found = self.pixels.parse(obs)
        self.timing = {**self.pixels.timing, "accessibility_ms": self._screen.read_ms}
        tree = [_element(node, name) for node, name in trusted]
        return tree + [e for e in found if not _other_control(e, tree)]

    def read_inside(self, obs: Observation, box: Box) -> str:
        return self.pixels.read_inside(obs, box)

    def locate(self, obs: Observation, description: str) -> Element | None:
        spec = parse_description(description)
        if not spec.address and (spec.phrase or spec.role in LABELLED_ROLES + ("button", "checkbox", "radio", "tab")):
            element = self._from_tree(spec, self._trusted(obs))
            if element is not None:
                return element
        return self.pixels.locate(obs, description)

    def _from_tree(self, spec: TargetSpec, trusted: list[tuple[AccessibleNode, str]]) -> Element | None:
        fits = ROLE_FITS.get(spec.role, ALL_ROLES)
        candidates = [(node, name) for node, name in trusted if node.role in fits and node.enabled]
        if not spec.phrase:  # "the second text field": that kind, in reading order, a combo box and its entry one
            candidates = [c for c in candidates if not any(
                o[0].box.area < c[0].box.area and o[0].box.share_in(c[0].box) >= NESTED for o in candidates)]
            fitting = of_its_lines(candidates, spec, lambda found: _element(*found).text_area)
            return _pick([(0.0, node, name) for node, name in fitting], spec.ordinal)
        scored = []
        for node, name in candidates:
            match = match_text(spec.phrase, name)
            if match is None or (node.role == "text" and echoes_task(name, self._task, spec.phrase)):
                continue
            score = match.score + (ACTIONABLE_BONUS if node.role != "text" else 0.0)
            if match.score < SQUASHED:  # the phrase is only a part of the name: the shorter name fits better
                score -= min(EXTRA_TEXT_MAX, EXTRA_TEXT_COST * (len(name) - len(spec.phrase)))
            scored.append((score, node, name))
        if not scored:
            return None
        top = max(score for score, _, _ in scored)
        return _pick([entry for entry in scored if entry[0] >= top - 0.02], spec.ordinal)

    def _trusted(self, obs: Observation) -> list[tuple[AccessibleNode, str]]:
        """The nodes of the focused window and its application's popups that lie on this observation's monitor,
        each with its name (a field without one takes its label's)."""
        if self._read_for != (id(obs), obs.timestamp):
            self._screen = self.tree.read()
            self._read_for = (id(obs), obs.timestamp)
        windows = self._screen.windows
        active = [i for i, window in enumerate(windows) if window.active]
        if not active:
            return []
        pids = {windows[i].pid for i in active}
        shown = {i for i, window in enumerate(windows) if i in active or (window.popup and window.pid in pids)}
        area = obs.monitor.box
        nodes = [node for node in self._screen.nodes if node.window in shown and area.contains(*node.box.center)]
        return [(node, node.name or _label_of(node, nodes)) for node in sorted(nodes,
                                                                                key=lambda n: reading_order(n.box))]


def _other_control(element: Element, tree: list[Element]) -> bool:
    """Whether a control the pixels guess (a layout's drop-down, a detector's button) stands where the tree has a
    control of another role: the tree knows what it is (a Mousepad tab, its close cross read as a drop-down's
    arrow, is no field to select the text of)."""
    return element.role != "text" and element.source != "accessibility" and any(
        node.role not in ("text", element.role) and node.box.iou(element.box) >= SAME_PLACE for node in tree)


def _label_of(node: AccessibleNode, nodes: list[AccessibleNode]) -> str:
    """The text a nameless control is known by: the label on its left in the same row, else the one just above."""
    if node.role not in LABELLED_ROLES:
        return ""
    labels = [other for other in nodes if other.role == "text" and other.window == node.window and other.name]
    reach = LABEL_REACH * node.box.height
    beside = [label for label in labels if label.box.x1 <= node.box.x0 + 2 and node.box.x0 - label.box.x1 <= reach
              and _overlap(label.box.y0, label.box.y1, node.box.y0, node.box.y1) >= 0.5 * min(label.box.height,
                                                                                               node.box.height)]
    if beside:
        return max(beside, key=lambda label: label.box.x1).name
    above = [label for label in labels if label.box.y1 <= node.box.y0 + 2
             and node.box.y0 - label.box.y1 <= node.box.height
             and _overlap(label.box.x0, label.box.x1, node.box.x0, node.box.x1) > 0]
    return max(above, key=lambda label: label.box.y1).name if above else ""


def _overlap(a0: int, a1: int, b0: int, b1: int) -> int:
    return max(0, min(a1, b1) - max(a0, b0))


def _pick(scored: list[tuple[float, AccessibleNode, str]], ordinal: int | None) -> Element | None:
    chosen = nth(scored, ordinal)
    return None if chosen is None else _element(chosen[1], chosen[2])


def _element(node: AccessibleNode, name: str) -> Element:
    return Element(node.box, node.role, name, 1.0, "accessibility", node.checked, node.focused, node.default)

"""The built-in offline planner: follows plain instructions step by step, with no model weights at all. With a
grounder it also looks before it acts: `check X` is skipped when X is already checked (and `uncheck` when not), a
target that is not in sight is searched for through the tabs when the task says so (and in the submenus of an open
menu, always), and an option missing from an open list is typed instead (after one short wait where the click that
opens it was the last step: a list a busy machine draws late is not typed into), and a field whose click opened a
list showing the value to type (a combo box set like a text field: "change the colour to green") has the option
clicked instead of typed; a confirming is a click on the screen's one OK-like button, else Enter."""

from __future__ import annotations

import re

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element, Observation
from deskpilot.grounding.base import Grounder

from .base import Decision
from .instructions import PlannedAction, parse_instructions
from .number_controls import all_set, names_a_control, number_step
from .task_phrases import comparable

CONFIRM_BUTTON = re.compile(r"^\W*(?:ok|okay|confirm|yes|done|apply|accept|continue|submit)\W*$", re.I)
LIST_WAIT_SECONDS = 0.5  # one wait for a list the last click opened, before its option is typed instead


class OfflinePlanner:
    name = "offline"

    def __init__(self, grounder: Grounder | None = None) -> None:
        self.grounder = grounder
        self._task: str | None = None
        self._plan: list[PlannedAction] = []
        self._run: list[PlannedAction] = []  # this run's plan: typing may stand in for an option
        self._next = 0
        self._tabs_tried: list[Box] = []
        self._waited: set[int] = set()  # plan steps whose option was waited for once

    def plan(self, task: str) -> list[PlannedAction]:
        """Every action of the task (raises PlannerError for instructions it does not understand)."""
        if task != self._task:
            self._plan, self._task = parse_instructions(task), task
        return self._plan

    def secrets(self, task: str) -> list[str]:
        return [p.action.text for p in self.plan(task) if p.action.secret and p.action.text]

    def decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        if not history:
            self._run, self._next, self._tabs_tried, self._waited = list(self.plan(task)), 0, [], set()
        moved = number_step(task, history, elements)
        if moved is not None:  # a slider or spin box may take no typing: it is moved until it shows the number
            return Decision(moved[1], moved[0])
        plan = self._run
        skipped: list[str] = []
        numbers_set = all_set(task, history, elements)
        after_control = False
        while self._next < len(plan):
            planned = plan[self._next]
            target = planned.action.target or ""
            if numbers_set and (names_a_control(target) or (after_control and planned.action.kind in
                                                            (ActionKind.HOTKEY, ActionKind.TYPE))):
                self._next += 1  # the click on the control and the typing of its number: the moves did it
                after_control = True
                skipped.append("the control shows its number")
                continue
            after_control = False
            if planned.unless_seen and self._nothing_to_open(planned, obs):
                self._next += 1
                skipped.append(f"{planned.unless_seen} is in sight already")
                continue
            if self._already(planned, obs):
                self._next += 1
                skipped.append(f"{planned.action.target} is already {'on' if planned.ensure_checked else 'off'}")
                continue
            note = "; ".join(skipped) + ("; " if skipped else "")
            if (planned.look_in or planned.or_type) and not self._in_sight(planned, obs):
                if planned.look_in:
                    tab = next_untried_tab(elements, self._tabs_tried) if planned.look_in == "tabs" else \
                        next_untried_part(elements, self._tabs_tried, planned.look_in)
                    if tab is not None:
                        self._tabs_tried.append(tab.box)
                        return Decision(f"{note}{planned.action.target} is not in sight: trying the "
                                        f"{planned.look_in.removesuffix('s')} {tab.text!r}",
                                        Action(kind=ActionKind.CLICK, point=tab.center))
                if planned.or_type and self._next not in self._waited and history and \
                        history[-1].action.kind is ActionKind.CLICK:
                    self._waited.add(self._next)  # a list a busy machine is slow to draw: one more look first
                    return Decision(f"{note}{planned.action.target} is not in sight yet: waiting for the list",
                                    Action(kind=ActionKind.WAIT, seconds=LIST_WAIT_SECONDS))
                if planned.or_type:
                    plan[self._next:self._next + 1] = [
                        PlannedAction(Action(kind=ActionKind.TYPE, text=planned.or_type)),
                        PlannedAction(Action(kind=ActionKind.HOTKEY, keys=("enter",)))]
                    note += f"{planned.action.target} is not in sight, so it is typed; "
                    planned = plan[self._next]
            # an item of a menu that is not in sight may stand in a submenu (looked for only where a menu shows one)
            parent = next_untried_submenu(elements, self._tabs_tried) \
                if planned.action.kind is ActionKind.CLICK and not planned.look_in else None
            if parent is not None and not self._in_sight(planned, obs):
                self._tabs_tried.append(parent.box)
                return Decision(f"{note}{planned.action.target} is not in sight: opening the submenu "
                                f"{parent.text!r}", Action(kind=ActionKind.CLICK, point=parent.center))
            opened = self._option_opened(history, elements)
            if opened is not None:  # the field is a list: its option is chosen, not typed over the list
                option, typing_end = opened
                plan[self._next:typing_end + 1] = [PlannedAction(Action(kind=ActionKind.CLICK,
                                                                        target=option.text.strip()))]
                note += f"the click opened a list showing {option.text.strip()!r}, so it is chosen; "
                planned = plan[self._next]
            joined = self._joined_name(planned, obs, elements)
            if joined is not None:  # "choose Find and Replace" was split at its "and": the screen shows one item
                plan[self._next:self._next + 2] = [PlannedAction(planned.action.model_copy(update={"target": joined}))]
                note += f"the screen shows {joined!r} as one item; "
                planned = plan[self._next]
            self._next += 1
            action = self._confirming(planned, elements)
            return Decision(f"{note}step {self._next} of {len(plan)}: {action.redacted().describe()}", action)
        note = "; ".join(skipped) + (": " if skipped else "")
        return Decision(f"{note}every instruction has been carried out",
                        Action(kind=ActionKind.FINISHED, text=f"done: {len(plan)} step(s)"))

    def _confirming(self, planned: PlannedAction, elements: list[Element]) -> Action:
        """A confirming ("..., then confirm") is a click on the one button the screen shows to confirm with (OK,
        Confirm, Yes, Done, ...), else Enter (a dialog's default button; in a list Enter acts on the row instead)."""
        if not planned.confirms:
            return planned.action
        buttons = [e for e in elements if e.role == "button" and CONFIRM_BUTTON.match(e.text or "")]
        names = {" ".join(e.text.lower().split()) for e in buttons}  # one button read twice (its tree, its pixels)
        if len(names) != 1 or any(not a.box.intersects(b.box) for a in buttons for b in buttons):
            return planned.action
        return Action(kind=ActionKind.CLICK, point=buttons[0].center, target=buttons[0].text.strip())

    def _typing_end(self) -> int:
        """The index of the typing that the plan step now due begins (a select-all, then the typing), or -1."""
        plan, start = self._run, self._next
        for index in range(start, min(start + 2, len(plan))):
            action = plan[index].action
            if action.kind is ActionKind.TYPE:
                return index
            if not (action.kind is ActionKind.HOTKEY and action.keys == ("ctrl", "a")):
                return -1
        return -1

    def _option_opened(self, history: list[Step], elements: list[Element]) -> tuple[Element, int] | None:
        """Where the plan now types a value into the field the last step clicked, and that click opened a list
        (a combo box a task sets like a text field): the option of the list reading the value, shown now and not
        before the click, with the index of the plan's typing it stands for. None otherwise (a text field opens no
        list; typing stays)."""
        end = self._typing_end()
        typed = self._run[end].action if end >= 0 else None
        if typed is None or typed.secret or not typed.text or not history or \
                history[-1].action.kind is not ActionKind.CLICK:
            return None
        wanted = comparable(typed.text)
        before = {comparable(e.text) for e in history[-1].seen if e.text}
        option = next((e for e in elements if e.text and comparable(e.text) == wanted and wanted not in before
                       and e.role in ("text", "list_item", "menu_item", "input")), None)
        return None if option is None else (option, end)

    def _joined_name(self, planned: PlannedAction, obs: Observation, elements: list[Element]) -> str | None:
        """When this click and the next were one name with "and" in it ("Find and Replace", "Terms and
        Conditions"), that name, if an element on screen shows it; else None."""
        plan = self._run
        if self._next + 1 >= len(plan) or planned.action.kind is not ActionKind.CLICK or not planned.action.target:
            return None
        following = plan[self._next + 1].action
        if following.kind is not ActionKind.CLICK or not following.target:
            return None
        first, second = planned.action.target.strip(), following.target.strip()
        wanted = {f"{first} {joint} {second}".lower() for joint in ("and", "&")}
        for element in elements:
            shown = " ".join((element.text or "").replace("…", "").replace("...", "").split()).lower().rstrip(".:")
            if shown in wanted:
                return element.text.strip()
        return None

    def _nothing_to_open(self, planned: PlannedAction, obs: Observation) -> bool:
        """No dropdown named so on the screen, but the option is in sight (a list box showing its items)."""
        if self.grounder is None or not planned.action.target or not planned.unless_seen:
            return False
        return self.grounder.locate(obs, planned.action.target) is None and \
            self.grounder.locate(obs, planned.unless_seen) is not None

    def _in_sight(self, planned: PlannedAction, obs: Observation) -> bool:
        if self.grounder is None or not planned.action.target:
            return True
        return self.grounder.locate(obs, planned.action.target) is not None

    def _already(self, planned: PlannedAction, obs: Observation) -> bool:
        """Whether a conditional toggle already shows the wanted state (so clicking would undo it)."""
        if planned.ensure_checked is None or self.grounder is None or not planned.action.target:
            return False
        element = self.grounder.locate(obs, planned.action.target)
        return element is not None and element.checked is planned.ensure_checked


TAB_ROW_TOLERANCE = 6  # pixels: tabs of one row share their top and their height within this


def next_untried_tab(elements: list[Element], tried: list[Box]) -> Element | None:
    """For a task that asks to look through tabs: the first tab of the screen's tab row not tried yet (no box
    tried holds its centre: the active tab is drawn a little larger than the others, so its box moves when it
    turns active or inactive). A tab row is two or more named button-like controls of one height side by side on
    one line."""
    controls = [e for e in elements if e.source != "ocr" and e.role in ("button", "tab") and e.text]
    for first in sorted(controls, key=lambda e: (e.box.y0, e.box.x0)):
        row = sorted((e for e in controls if abs(e.box.y0 - first.box.y0) <= TAB_ROW_TOLERANCE
                      and abs(e.box.height - first.box.height) <= TAB_ROW_TOLERANCE), key=lambda e: e.box.x0)
        if len(row) >= 2:
            return next((e for e in row if not any(box.contains(*e.center) for box in tried)), None)
    return None


SUBMENU_ARROW = re.compile(r"\s*[>›▸►»]$")  # what a menu item that opens a submenu ends in, as OCR reads its arrow


def next_untried_submenu(elements: list[Element], tried: list[Box]) -> Element | None:
    """The first item of an open menu that opens a submenu (its arrow at the end: "Playback >") not tried yet."""
    return next((e for e in elements if e.role in ("text", "menu_item") and SUBMENU_ARROW.search(e.text or "")
                 and len(SUBMENU_ARROW.sub("", e.text).split()) <= 3
                 and not any(box.contains(*e.center) for box in tried)), None)


def next_untried_part(elements: list[Element], tried: list[Box], group: str) -> Element | None:
    """For a task that asks to open a group of collapsed parts to look in ("expand the sections below"): the first
    part not tried yet, in reading order, whose header names the group ("Section #2" for "section")."""
    def same(a: Box, b: Box) -> bool:  # one header read twice (its text, and the row as a control)
        return a.contains(*b.center) or b.contains(*a.center)

    headers = [e for e in elements if e.text and e.text.strip().lower().startswith(group.lower())
               and len(e.text.split()) <= 3]
    return next((header for header in sorted(headers, key=lambda e: (e.box.y0, e.box.x0))
                 if not any(same(box, header.box) for box in tried)), None)

"""Safety: the emergency stop (global hotkey and screen-corner failsafe), the confirmation policy for risky
actions, a rate limit, and the checks the agent runs before every single action."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from .actions import Action, ActionKind
from .errors import ActionRefused, SafetyStop
from .geometry import Box, Monitor, Point
from .periodic import Periodic
from .secrets import TaskSecret, is_secret_label

if TYPE_CHECKING:
    from .hotkeys import GlobalHotkeys

log = logging.getLogger(__name__)

ConfirmMode = Literal["never", "risky", "always"]

DEFAULT_RISKY_WORDS = (
    "delete", "remove", "erase", "format", "uninstall", "discard", "overwrite", "empty trash", "send", "pay",
    "purchase", "buy now", "place order", "transfer", "shut down", "shutdown", "restart", "reboot", "log out",
    "sign out", "sudo", "rm -rf", "drop table", "mkfs", "deactivate", "close account", "factory reset",
)
# A key combination is risky when it contains one of these (alt+shift+f4 contains alt+f4). ctrl+alt+anything is a
# system shortcut on Linux desktops (terminal, session, lock screen, virtual terminals).
DEFAULT_RISKY_HOTKEYS = (("alt", "f4"), ("ctrl", "q"), ("ctrl", "w"), ("shift", "delete"), ("ctrl", "alt"),
                         ("alt", "f2"), ("win", "r"), ("win", "l"), ("command", "q"), ("command", "w"))
# Buttons that carry out whatever the dialog around them asks.
CONFIRM_WORDS = re.compile(r"^\W*(ok|okay|yes|confirm|continue|proceed|accept|allow|agree|i agree|i'm sure|"
                           r"yes, \w+.*|do it)\W*$", re.I)
TERMINAL_TITLE = re.compile(r"terminal|xterm|konsole|urxvt|rxvt|alacritty|kitty|tilix|terminator|wezterm|foot\b|"
                            r"\bst\b|tmux|\bscreen\b|powershell|cmd\.exe|command prompt|\bbash\b|\bzsh\b|\bfish\b|"
                            r"\bssh\b|^\S+@\S+:", re.I)
ENTER_KEYS = {"enter"}
CORNER_MARGIN = 2
CORNER_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class ActionContext:
    """What the screen says about an action, from the screen rather than the planner's words: the text under its
    point, text near it, the focused window's title, the label of the field that typing goes into (None when not
    known), the task's secrets, and the pixels around the point (shown when a person is asked)."""

    under: tuple[str, ...] = ()
    nearby: tuple[str, ...] = ()
    window_title: str | None = None
    focused_field: str | None = None
    secrets: tuple[TaskSecret, ...] = ()
    crop: np.ndarray | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Confirmation:
    """A question for a person: may `action` run, given `reason`? `crop` is the screen around its point."""

    action: Action
    reason: str
    under: str = ""
    crop: np.ndarray | None = field(default=None, compare=False)

    def question(self) -> str:
        what = f" on {self.under!r}" if self.under else ""
        return f"{self.action.redacted().describe()}{what}: {self.reason}. Go ahead?"


Confirmer = Callable[[Confirmation], bool]


class EmergencyStop:
    """A latch every part checks between actions. Triggered by the global hotkey, the failsafe corner, Ctrl+C, or
    the app's Stop button; once set it stays set for the run."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""
        self._hotkeys: GlobalHotkeys | None = None

    def trigger(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def triggered(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise SafetyStop(f"stopped: {self.reason}")

    def sleep(self, seconds: float) -> None:
        """Sleep, but wake and raise SafetyStop as soon as the stop is triggered."""
        if self._event.wait(max(0.0, seconds)):
            self.check()

    def listen(self, hotkey: str) -> EmergencyStop:
        """Start a global hotkey (e.g. `ctrl+shift+f12`) that triggers the stop."""
        from .hotkeys import GlobalHotkeys

        self._hotkeys = GlobalHotkeys({hotkey: lambda: self.trigger(f"stop hotkey {hotkey} pressed")})
        return self

    def close(self) -> None:
        if self._hotkeys is not None:
            self._hotkeys.close()
            self._hotkeys = None


def in_corner(point: Point, monitors: Iterable[Monitor], margin: int = CORNER_MARGIN) -> bool:
    """Whether a point lies in a corner of any monitor (the failsafe zone)."""
    for m in monitors:
        right, bottom = m.left + m.width - 1, m.top + m.height - 1
        near_x = abs(point.x - m.left) <= margin or abs(point.x - right) <= margin
        near_y = abs(point.y - m.top) <= margin or abs(point.y - bottom) <= margin
        if near_x and near_y:
            return True
    return False


class ConfirmationPolicy:
    """Decides which actions need a person's OK before they run, and why, from what is on the screen."""

    def __init__(self, mode: ConfirmMode = "risky", risky_words: Iterable[str] = DEFAULT_RISKY_WORDS,
                 risky_hotkeys: Iterable[tuple[str, ...]] = DEFAULT_RISKY_HOTKEYS):
        self.mode = mode
        words = sorted({w.lower() for w in risky_words}, key=len, reverse=True)
        self._words = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I) if words else None
        self._hotkeys = [frozenset(k) for k in risky_hotkeys]

    def reason(self, action: Action, context: ActionContext | None = None,
               held_keys: Iterable[str] = ()) -> str | None:
        """Why `action` needs confirmation, or None when it may run. `held_keys` are keys pressed earlier (with
        press()) and not released yet: they combine with this action's keys."""
        context = context or ActionContext()
        if self.mode == "never" or action.kind in (ActionKind.WAIT, ActionKind.FINISHED, ActionKind.CALL_USER):
            return None
        if self.mode == "always":
            return "the policy asks before every action"
        for check in (self._keys, self._words_involved, self._confirms_risk, self._runs_in_terminal,
                      self._secret_elsewhere):
            found = check(action, context, frozenset(held_keys))
            if found:
                return found
        return None

    def _keys(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        combos: list[frozenset[str]] = []
        if action.kind is ActionKind.HOTKEY or (action.kind is ActionKind.KEY and action.key_state == "press"):
            combos.append(held | set(action.keys))
        elif action.kind is ActionKind.TYPE and held and action.text:
            combos.extend(held | {ch.lower()} for ch in set(action.text))
        for combo in combos:
            for risky in self._hotkeys:
                if risky <= combo:
                    return f"keys {'+'.join(sorted(combo))} include {'+'.join(sorted(risky))}, which can close, " \
                           "destroy or run things"
        return None

    def _words_involved(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        texts = [*context.under, action.target or ""]
        if not action.secret:
            texts.append(action.text or "")
        found = self._risky_word(" ".join(t for t in texts if t))
        return f"{action.kind.value} involves {found!r}" if found else None

    def _confirms_risk(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        """An OK in an "Are you sure you want to delete ...?" dialog is as risky as what it confirms."""
        if action.kind not in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK) and not _presses_enter(action):
            return None
        pointing = action.kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK)
        if pointing and not any(CONFIRM_WORDS.match(t) for t in (*context.under, action.target or "") if t):
            return None
        found = self._risky_word(" ".join((*context.nearby, context.window_title or "")))
        return f"it confirms {found!r} shown beside it" if found else None

    def _runs_in_terminal(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        if context.window_title and TERMINAL_TITLE.search(context.window_title) and _presses_enter(action):
            return f"Enter in the terminal {context.window_title!r} runs a command"
        return None

    def _secret_elsewhere(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        if action.kind is not ActionKind.TYPE or not action.text:
            return None
        for secret in context.secrets:
            if secret.value in action.text and not label_fits(context.focused_field, secret):
                where = f"the field {context.focused_field!r}" if context.focused_field else "a field whose label " \
                                                                                            "could not be read"
                return f"it types the task's {secret.name} into {where}"
        return None

    def _risky_word(self, text: str) -> str | None:
        found = self._words.search(text) if self._words is not None and text else None
        return found.group(1) if found else None


def label_fits(label: str | None, secret: TaskSecret) -> bool:
    """Whether a field labelled `label` is where `secret` belongs: the label names it ("API key" for api_key), or
    both read as secret ("PIN" for a password)."""
    if not label:
        return False
    words = secret.name.rstrip("_0123456789").replace("_", " ")
    return words.lower() in label.lower() or (is_secret_label(label) and is_secret_label(words))


def _presses_enter(action: Action) -> bool:
    if action.kind is ActionKind.TYPE:
        return "\n" in (action.text or "") or "\r" in (action.text or "")
    if action.kind is ActionKind.HOTKEY or (action.kind is ActionKind.KEY and action.key_state == "press"):
        return bool(ENTER_KEYS & set(action.keys))
    return False


class CornerWatch(Periodic):
    """Watches the cursor in a thread of its own and fires the stop the moment it reaches a screen corner, even
    while the planner is thinking or an action is running."""

    def __init__(self, stop: EmergencyStop, cursor: Callable[[], Point | None], monitors: list[Monitor],
                 interval: float = CORNER_POLL_SECONDS):
        super().__init__(self._look, interval, "corner-watch")
        self.stop, self.cursor, self.monitors = stop, cursor, monitors

    def _look(self) -> bool:
        """Whether to keep watching."""
        try:
            point = self.cursor()
        except Exception:  # noqa: BLE001 - the display went away: nothing left to watch
            return False
        if point is not None and in_corner(point, self.monitors):
            self.stop.trigger("mouse moved into a screen corner (failsafe)")
            return False
        return True


class Safety:
    """Every check that runs before an action: stop latch, failsafe corner, no-go regions (deskpilot's own
    window, the terminal it was started from), rate limit, confirmation."""

    def __init__(self, stop: EmergencyStop | None = None, policy: ConfirmationPolicy | None = None,
                 confirm: Confirmer | None = None, min_interval: float = 0.0, dry_run: bool = False,
                 no_go: Callable[[], list[Box]] | None = None, keyboard_no_go: Callable[[], str | None] | None = None):
        self.stop = stop or EmergencyStop()
        self.no_go = no_go
        self.keyboard_no_go = keyboard_no_go  # names the protected window that has the keyboard focus, if one has
        self.policy = policy or ConfirmationPolicy()
        self.confirm = confirm
        self.min_interval = min_interval
        self.dry_run = dry_run
        self.held_keys: set[str] = set()
        self._last_action = 0.0

    def check(self, action: Action, monitors: list[Monitor], cursor: Point | None,
              context: ActionContext | None = None) -> None:
        """Raise SafetyStop or ActionRefused if `action` must not run now; otherwise return (after the rate limit)."""
        self.stop.check()
        if cursor is not None and in_corner(cursor, monitors):
            self.stop.trigger("mouse moved into a screen corner (failsafe)")
            self.stop.check()
        for point in (action.point, action.end_point):
            if point is not None and in_corner(point, monitors):
                raise ActionRefused(f"refusing {action.redacted().describe()}: the point is in the failsafe corner")
            if point is not None and self.no_go and any(box.contains(*point) for box in self.no_go()):
                raise ActionRefused(f"refusing {action.redacted().describe()}: the point is on deskpilot's own window")
        if action.kind in (ActionKind.TYPE, ActionKind.HOTKEY, ActionKind.KEY) and self.keyboard_no_go:
            protected = self.keyboard_no_go()
            if protected:
                raise ActionRefused(f"refusing {action.redacted().describe()}: the keyboard focus is on {protected}")
        context = context or ActionContext()
        reason = self.policy.reason(action, context, self.held_keys)
        if reason is not None and not self.dry_run:
            request = Confirmation(action, reason, " ".join(context.under)[:80], context.crop)
            approved = self.confirm(request) if self.confirm else False
            self.stop.check()  # a stop while the question was open wins over the answer
            if not approved:
                raise ActionRefused(f"{action.redacted().describe()} needs confirmation ({reason}) and was not "
                                    "approved; run interactively to be asked, or set the confirmation policy")
            log.info("confirmed: %s", action.redacted().describe())
        if action.kind is ActionKind.KEY:
            (self.held_keys.add if action.key_state == "press" else self.held_keys.discard)(action.keys[0])
        wait = self._last_action + self.min_interval - time.monotonic()
        if wait > 0:
            self.stop.sleep(wait)
        self._last_action = time.monotonic()

"""Safety: the emergency stop (global hotkey and screen-corner failsafe), the confirmation policy for risky
actions, a rate limit, and the checks the agent runs before every single action."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from .actions import Action, ActionKind
from .errors import ActionRefused, SafetyStop
from .geometry import Box, Monitor, Point

if TYPE_CHECKING:
    from .hotkeys import GlobalHotkeys

log = logging.getLogger(__name__)

ConfirmMode = Literal["never", "risky", "always"]
Confirmer = Callable[[Action, str], bool]

DEFAULT_RISKY_WORDS = (
    "delete", "remove", "erase", "format", "uninstall", "discard", "overwrite", "empty trash", "send", "pay",
    "purchase", "buy now", "place order", "transfer", "shut down", "shutdown", "restart", "reboot", "log out",
    "sign out", "sudo", "rm -rf", "drop table", "mkfs",
)
DEFAULT_RISKY_HOTKEYS = (("alt", "f4"), ("ctrl", "q"), ("ctrl", "w"), ("shift", "delete"), ("ctrl", "alt", "delete"))
CORNER_MARGIN = 2


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
    """Decides which actions need a person's OK before they run, and why."""

    def __init__(self, mode: ConfirmMode = "risky", risky_words: Iterable[str] = DEFAULT_RISKY_WORDS,
                 risky_hotkeys: Iterable[tuple[str, ...]] = DEFAULT_RISKY_HOTKEYS):
        self.mode = mode
        words = sorted({w.lower() for w in risky_words}, key=len, reverse=True)
        self._words = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I) if words else None
        self._hotkeys = {tuple(sorted(k)) for k in risky_hotkeys}

    def reason(self, action: Action, target_text: str = "") -> str | None:
        """Why `action` needs confirmation, or None when it may run."""
        if self.mode == "never" or action.kind in (ActionKind.WAIT, ActionKind.FINISHED, ActionKind.CALL_USER):
            return None
        if self.mode == "always":
            return "the policy asks before every action"
        if action.kind is ActionKind.HOTKEY and tuple(sorted(action.keys)) in self._hotkeys:
            return f"hotkey {'+'.join(action.keys)} can close or destroy work"
        words_in = " ".join(t for t in (target_text, action.target or "", action.text or "") if t)
        if action.secret:
            words_in = " ".join(t for t in (target_text, action.target or "") if t)
        if self._words is not None and (found := self._words.search(words_in)):
            return f"{action.kind.value} involves {found.group(1)!r}"
        return None


class Safety:
    """Every check that runs before an action: stop latch, failsafe corner, no-go regions (deskpilot's own
    window), rate limit, confirmation."""

    def __init__(self, stop: EmergencyStop | None = None, policy: ConfirmationPolicy | None = None,
                 confirm: Confirmer | None = None, min_interval: float = 0.0, dry_run: bool = False,
                 no_go: Callable[[], list[Box]] | None = None):
        self.stop = stop or EmergencyStop()
        self.no_go = no_go
        self.policy = policy or ConfirmationPolicy()
        self.confirm = confirm
        self.min_interval = min_interval
        self.dry_run = dry_run
        self._last_action = 0.0

    def check(self, action: Action, monitors: list[Monitor], cursor: Point | None, target_text: str = "") -> None:
        """Raise SafetyStop or ActionRefused if `action` must not run now; otherwise return (after the rate limit)."""
        self.stop.check()
        if cursor is not None and in_corner(cursor, monitors):
            self.stop.trigger("mouse moved into a screen corner (failsafe)")
            self.stop.check()
        for point in (action.point, action.end_point):
            if point is not None and in_corner(point, monitors):
                raise ActionRefused(f"refusing {action.describe()}: the point is in the failsafe corner")
            if point is not None and self.no_go and any(box.contains(*point) for box in self.no_go()):
                raise ActionRefused(f"refusing {action.redacted().describe()}: the point is on deskpilot's own window")
        reason = self.policy.reason(action, target_text)
        if reason is not None and not self.dry_run:
            approved = self.confirm(action, reason) if self.confirm else False
            if not approved:
                raise ActionRefused(f"{action.redacted().describe()} needs confirmation ({reason}) and was not "
                                    "approved; run interactively to be asked, or set the confirmation policy")
            log.info("confirmed: %s", action.redacted().describe())
        wait = self._last_action + self.min_interval - time.monotonic()
        if wait > 0:
            self.stop.sleep(wait)
        self._last_action = time.monotonic()

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
from .secrets import TaskSecret, is_secret_label, shares_secret

if TYPE_CHECKING:
    from .hotkeys import GlobalHotkeys

log = logging.getLogger(__name__)

ConfirmMode = Literal["never", "risky", "always"]

DEFAULT_RISKY_WORDS = (
    # destroy
    "delete", "remove", "erase", "format", "uninstall", "discard", "overwrite", "empty trash", "trash", "wipe",
    "destroy", "purge", "revoke", "factory reset", "drop table", "mkfs", "rm -rf", "move to trash", "move to bin",
    # pay, buy, send, publish
    "send", "pay", "payment", "pay now", "purchase", "buy", "buy now", "place order", "checkout", "check out",
    "donate", "transfer", "publish", "submit order", "confirm order", "confirm payment",
    # leave, end, give away access
    "shut down", "shutdown", "restart", "reboot", "log out", "sign out", "sudo", "deactivate", "close account",
    "terminate",
    # German
    "löschen", "entfernen", "papierkorb", "leeren", "überschreiben", "formatieren", "deinstallieren", "zahlen",
    "bezahlen", "zahlung", "kaufen", "jetzt kaufen", "bestellen", "senden", "absenden", "veröffentlichen",
    "abmelden", "herunterfahren", "neu starten", "überweisen",
    # French
    "supprimer", "effacer", "retirer", "corbeille", "vider", "écraser", "désinstaller", "payer", "paiement",
    "acheter", "commander", "envoyer", "publier", "déconnecter", "se déconnecter", "éteindre", "redémarrer",
    "virement",
    # Spanish
    "eliminar", "borrar", "quitar", "papelera", "vaciar", "sobrescribir", "desinstalar", "pagar", "pago", "comprar",
    "enviar", "publicar", "cerrar sesión", "apagar", "reiniciar", "transferir",
)
# Chinese and Japanese run words together: these match anywhere in a label (删除文件 is "delete file").
DEFAULT_RISKY_CJK = (
    "删除", "刪除", "移除", "清空", "回收站", "格式化", "卸载", "覆盖", "支付", "付款", "购买", "購買", "下单", "发送",
    "發送", "发布", "發佈", "注销", "关机", "重启", "转账",
    "削除", "消去", "ゴミ箱", "ごみ箱", "初期化", "アンインストール", "上書き", "支払", "購入", "注文", "送信", "公開",
    "投稿", "ログアウト", "シャットダウン", "再起動", "送金",
)
# A key combination is risky when it contains one of these (alt+shift+f4 contains alt+f4). ctrl+alt+anything is a
# system shortcut on Linux desktops (terminal, session, lock screen, virtual terminals); ctrl+f4 closes a document.
DEFAULT_RISKY_HOTKEYS = (("alt", "f4"), ("ctrl", "f4"), ("ctrl", "q"), ("ctrl", "w"), ("shift", "delete"),
                         ("ctrl", "alt"), ("alt", "f2"), ("win", "r"), ("win", "l"), ("command", "q"),
                         ("command", "w"), ("command", "backspace"), ("command", "delete"))
# Buttons that carry out whatever the dialog around them asks.
CONFIRM_WORDS = re.compile(r"^\W*(ok|okay|yes|confirm|continue|proceed|accept|allow|agree|i agree|i'm sure|"
                           r"yes, \w+.*|do it|ja|oui|sí|si|是|确定|確定|はい|ok!)\W*$", re.I)
# A window's title is text its program sets (and output in it can change); a terminal is told by its window class
# and its process, and by its title only as a further hint.
TERMINAL_TITLE = re.compile(r"terminal|xterm|konsole|urxvt|rxvt|alacritty|kitty|tilix|terminator|wezterm|foot\b|"
                            r"\bst\b|tmux|\bscreen\b|powershell|cmd\.exe|command prompt|\bbash\b|\bzsh\b|\bfish\b|"
                            r"\bssh\b|^\S+@\S+:", re.I)
TERMINAL_PROGRAMS = re.compile(r"^(?:x-terminal-emulator|u?xterm|gnome-terminal(?:-server)?|konsole|xfce4-terminal|"
                               r"lxterminal|qterminal|mate-terminal|deepin-terminal|terminator|tilix|alacritty|kitty|"
                               r"wezterm(?:-gui)?|foot(?:client)?|u?rxvt(?:d)?|urxvt\S*|st(?:-256color)?|sakura|guake|"
                               r"tilda|terminology|cool-retro-term|eterm|aterm|kgx|ptyxis|blackbox|contour|rio|ghostty|"
                               r"hyper|tabby|warp|xiterm|mlterm|lxterm|yakuake|termite|roxterm|terminal|"
                               r"org\.gnome\.(?:terminal|console|ptyxis)|com\.raggesilver\.blackbox)$", re.I)
ENTER_KEYS = {"enter", "return", "kpenter", "kp_enter"}
# In a terminal these run the command line too: ctrl+j and ctrl+m are Enter's own codes, ctrl+o runs the line in bash.
TERMINAL_ENTER_KEYS = (frozenset({"ctrl", "j"}), frozenset({"ctrl", "m"}), frozenset({"ctrl", "o"}))
DELETE_KEYS = {"delete", "del", "backspace"}
FIELD_ROLES = ("input", "dropdown")  # focus in one of these: keys edit its text
PRESSABLE_ROLES = ("button", "checkbox", "radio", "list_item", "menu_item", "tab", "link", "icon")
MAX_TYPED_CHARS = 1000  # one type action at most (a long one blocks the agent for minutes)
CORNER_MARGIN = 2
CORNER_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class ActionContext:
    """What the screen says about an action, from the screen rather than the planner's words: the text under its
    point, text near it, the focused window (title, and its class and program, which its output cannot change),
    the keyboard focus (the label of the field or the name of the control typing and keys go to, and its role; None
    when not known, as after Tab), the window's controls and its default button (what Enter or Space may press when
    the focus is not known), text typed into the focused field so far, the task's secrets, and the pixels around
    the point (shown when a person is asked)."""

    under: tuple[str, ...] = ()
    nearby: tuple[str, ...] = ()
    window_title: str | None = None
    focused_field: str | None = None
    secrets: tuple[TaskSecret, ...] = ()
    crop: np.ndarray | None = field(default=None, compare=False)
    window_class: str | None = None
    focus_role: str | None = None
    window_controls: tuple[str, ...] = ()
    default_button: str | None = None
    typed_before: str = ""

    @property
    def in_terminal(self) -> bool:
        programs = (self.window_class or "").replace(",", " ").split()
        return any(TERMINAL_PROGRAMS.match(name) for name in programs) or bool(
            self.window_title and TERMINAL_TITLE.search(self.window_title))

    @property
    def focus_is_field(self) -> bool:
        return self.focus_role in FIELD_ROLES


@dataclass(frozen=True)
class Confirmation:
    """A question for a person: may `action` run, given `reason`? `crop` is the screen around its point (ringed),
    `app` the class of the window under that point (what a standing allowance names)."""

    action: Action
    reason: str
    under: str = ""
    crop: np.ndarray | None = field(default=None, compare=False)
    app: str = ""

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
                 risky_hotkeys: Iterable[tuple[str, ...]] = DEFAULT_RISKY_HOTKEYS,
                 risky_cjk: Iterable[str] = DEFAULT_RISKY_CJK):
        self.mode = mode
        words = sorted({w.lower() for w in risky_words}, key=len, reverse=True)
        cjk = sorted(set(risky_cjk), key=len, reverse=True)
        parts = ([r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b"] if words else []) + \
            ([("|".join(re.escape(w) for w in cjk))] if cjk else [])
        self._words = re.compile("(" + "|".join(parts) + ")", re.I) if parts else None
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
        for check in (self._too_long, self._keys, self._words_involved, self._confirms_risk, self._runs_in_terminal,
                      self._keys_act_on, self._secret_elsewhere):
            found = check(action, context, frozenset(held_keys))
            if found:
                return found
        return None

    def _too_long(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        if action.kind is ActionKind.TYPE and len(action.text or "") > MAX_TYPED_CHARS:
            return f"it types {len(action.text or '')} characters at once (more than {MAX_TYPED_CHARS})"
        return None

    def _keys(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        for combo in _combos(action, held):
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
        if action.kind not in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK) and not _presses_enter(action, held):
            return None
        pointing = action.kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK)
        if pointing and not any(CONFIRM_WORDS.match(t) for t in (*context.under, action.target or "") if t):
            return None
        found = self._risky_word(" ".join((*context.nearby, context.window_title or "")))
        return f"it confirms {found!r} shown beside it" if found else None

    def _runs_in_terminal(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        if not context.in_terminal:
            return None
        runs = _presses_enter(action, held) or any(keys <= combo for combo in _combos(action, held)
                                                   for keys in TERMINAL_ENTER_KEYS)
        if runs:
            where = context.window_title or context.window_class or "a terminal"
            return f"it runs a command line in the terminal {where!r}"
        return None

    def _keys_act_on(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        """Keys act on what has the keyboard focus, not on a point: Enter presses the focused button, or in a text
        field the window's default button; Space presses the focused control; Delete deletes what is selected
        outside a text field. Where the focus is not known, every control the window shows is what they may
        press."""
        presses = _presses_enter(action, held)
        spaces = any(combo & {"space"} for combo in _combos(action, held)) or (
            action.kind is ActionKind.TYPE and " " in (action.text or "") and not context.focus_is_field
            and context.focus_role is not None)
        deletes = any(combo & DELETE_KEYS for combo in _combos(action, held))
        if not (presses or spaces or deletes):
            return None
        if deletes and not context.focus_is_field:
            what = f"the focused {context.focused_field!r}" if context.focused_field else "whatever is selected"
            return f"the Delete key deletes {what}, and the focus is not in a text field"
        focus = context.focused_field if context.focus_role is not None and not context.focus_is_field else None
        if (presses or spaces) and focus:
            found = self._risky_word(focus)
            if found:
                return f"{'Enter' if presses else 'Space'} presses the focused control {focus!r}"
        if presses and context.focus_role not in PRESSABLE_ROLES:
            if context.default_button is not None:
                found = self._risky_word(context.default_button)
                return f"Enter presses the default button {context.default_button!r}" if found else None
            return self._window_risk(context, "Enter", "the window's default button could not be read")
        if spaces and context.focus_role is None:
            return self._window_risk(context, "Space", "the keyboard focus could not be read")
        return None

    def _window_risk(self, context: ActionContext, key: str, why: str) -> str | None:
        for control in context.window_controls:
            found = self._risky_word(control)
            if found:
                return f"{key} may press {control!r} in this window ({why})"
        return None

    def _secret_elsewhere(self, action: Action, context: ActionContext, held: frozenset[str]) -> str | None:
        if action.kind is not ActionKind.TYPE or not action.text:
            return None
        typed = context.typed_before + action.text
        for secret in context.secrets:
            if label_fits(context.focused_field, secret):
                continue
            whole = secret.value in typed
            if whole or shares_secret(action.text, secret):
                where = f"the field {context.focused_field!r}" if context.focused_field else "a field whose label " \
                                                                                            "could not be read"
                what = f"the task's {secret.name}" if whole else f"part of the task's {secret.name}"
                return f"it types {what} into {where}"
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


def _combos(action: Action, held: frozenset[str]) -> list[frozenset[str]]:
    """The key combinations an action presses: a hotkey's or a key press's keys with those held down, or, while
    keys are held, each typed character with them."""
    if action.kind is ActionKind.HOTKEY or (action.kind is ActionKind.KEY and action.key_state == "press"):
        return [held | set(action.keys)]
    if action.kind is ActionKind.TYPE and held and action.text:
        return [held | {ch.lower()} for ch in set(action.text)]
    return []


def _presses_enter(action: Action, held: frozenset[str] = frozenset()) -> bool:
    if action.kind is ActionKind.TYPE:
        return "\n" in (action.text or "") or "\r" in (action.text or "")
    return any(ENTER_KEYS & combo for combo in _combos(action, held))


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
                 no_go: Callable[[], list[Box]] | None = None, keyboard_no_go: Callable[[], str | None] | None = None,
                 allowed: Callable[[Confirmation], bool] | None = None,
                 app_at: Callable[[Point], str | None] | None = None):
        """`allowed`: whether a person allowed such an action for good (core.allowances), so it is not asked;
        `app_at`: the class of the window under a point (Screen.app_at), looked up only when a person is asked."""
        self.stop = stop or EmergencyStop()
        self.allowed, self.app_at = allowed, app_at
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
            app = (self.app_at(action.point) or "") if self.app_at and action.point is not None else ""
            request = Confirmation(action, reason, " ".join(dict.fromkeys(context.under))[:80], context.crop, app)
            standing = self.allowed is not None and self.allowed(request)
            approved = standing or (self.confirm(request) if self.confirm else False)
            self.stop.check()  # a stop while the question was open wins over the answer
            if not approved:
                how = ("you denied it" if self.confirm else
                       "nobody was asked; run interactively to be asked, or set the confirmation policy")
                raise ActionRefused(f"{action.redacted().describe()} needs confirmation ({reason}): {how}")
            log.info("%s: %s", "allowed for good" if standing else "confirmed", action.redacted().describe())
        if action.kind is ActionKind.KEY:
            (self.held_keys.add if action.key_state == "press" else self.held_keys.discard)(action.keys[0])
        wait = self._last_action + self.min_interval - time.monotonic()
        if wait > 0:
            self.stop.sleep(wait)
        self._last_action = time.monotonic()

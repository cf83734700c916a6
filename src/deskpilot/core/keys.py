"""Key names: one canonical spelling (pyautogui's) for every alias people and models write."""

from __future__ import annotations

import re

from .errors import ActionParseError

ALIASES = {
    "control": "ctrl", "ctl": "ctrl", "cmd": "command", "super": "win", "meta": "win", "windows": "win",
    "option": "alt", "opt": "alt", "return": "enter", "escape": "esc", "del": "delete", "ins": "insert",
    "menu": "apps", "bksp": "backspace", "back": "backspace", "pgup": "pageup", "page_up": "pageup", "pgdn": "pagedown",
    "page_down": "pagedown", "pagedn": "pagedown", "arrowup": "up", "arrowdown": "down", "arrowleft": "left",
    "arrowright": "right", "spacebar": "space", " ": "space", "plus": "+", "minus": "-",
}
NAMED_KEYS = {
    "ctrl", "shift", "alt", "win", "command", "enter", "esc", "tab", "space", "backspace", "delete", "insert",
    "home", "end", "pageup", "pagedown", "up", "down", "left", "right", "capslock", "printscreen", "apps",
    *(f"f{n}" for n in range(1, 25)),
}
MODIFIERS = ("ctrl", "shift", "alt", "win", "command")
_SPLIT = re.compile(r"\s*\+\s*|\s+|(?<=[a-z0-9])-(?=[a-z0-9])", re.IGNORECASE)


def normalize_key(name: str) -> str:
    """`Return` -> `enter`, `Ctrl` -> `ctrl`, `A` -> `a`; raises for names that are no key."""
    raw = name.strip()
    if len(raw) == 1:
        return raw.lower() if raw.isalpha() else raw
    key = raw.lower().replace("-", "_") if raw.lower() not in ALIASES else raw.lower()
    key = ALIASES.get(key, key)
    if key in NAMED_KEYS or len(key) == 1:
        return key
    raise ActionParseError(f"unknown key {name!r}")


def split_combo(combo: str) -> tuple[str, ...]:
    """`ctrl+s`, `Ctrl S`, `ctrl-shift-t` -> ('ctrl', 's'), ('ctrl', 'shift', 't'). A lone `+` or `-` is a key."""
    text = combo.strip()
    if not text:
        raise ActionParseError("empty key combination")
    if text in {"+", "-"}:
        return (text,)
    parts = [p for p in _SPLIT.split(text) if p]
    return tuple(normalize_key(p) for p in parts)


def is_key_combo(text: str) -> bool:
    """Whether a phrase names keys (`enter`, `ctrl+s`) rather than a thing on screen (`login`)."""
    try:
        keys = split_combo(text)
    except ActionParseError:
        return False
    if len(keys) == 1:
        return keys[0] in NAMED_KEYS
    return all(k in NAMED_KEYS or len(k) == 1 for k in keys) and any(k in MODIFIERS for k in keys[:-1])

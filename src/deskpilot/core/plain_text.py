"""Untrusted text (a model's words, an episode's task, text read off the screen) made safe for a terminal: every
escape sequence (CSI, OSC such as OSC 52 that writes the clipboard or OSC 0 that retitles the window) and other
control character removed, new lines kept."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]?|"
                      r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    """`text` without escape sequences and control characters (new lines kept)."""
    return _CONTROL.sub("", text)

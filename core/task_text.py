"""What a task's words give without reading the screen: its quoted values ('Type "Ada"' gives Ada), and its
shape (the task with each quoted value blanked), which tells two tasks that differ only in their values."""

from __future__ import annotations

import re

QUOTED = re.compile(r"[\"“«']([^\"”»']{1,80})[\"”»']")


def task_values(task: str) -> list[str]:
    """What the task gives to type or find: its quoted strings, in order."""
    return [m.group(1).strip() for m in QUOTED.finditer(task) if m.group(1).strip()]


def normalised(text: str) -> str:
    """Lower case, punctuation as spaces, single spaces: how names and phrases are compared."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def task_shape(task: str) -> str:
    """The task with every quoted value blanked, lower case, single spaces: equal shapes mean the same task with
    other values."""
    return " ".join(QUOTED.sub('"…"', task).lower().split())

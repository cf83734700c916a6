"""The hook for rules that serve one benchmark's pages or sentences, and nothing else.

Off by default: the agent a person runs reads tasks and screens with the general readers only. A harness turns
its pack on for its process with `use(pack)` (the MiniWoB++ harness: `deskpilot.evaluation.miniwob.rules`), and
each reader that has a place for such a rule asks `active()`. A pack holds only data (words, patterns); the code
that applies it stays with the general reader it extends, so a pack cannot change what the agent does anywhere
but where a reader asks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .observation import ElementRole

NEVER = re.compile(r"(?!)")  # a pattern that matches nothing: the rule is off


@dataclass(frozen=True)
class RulePack:
    """One benchmark's rules. `name` tells packs apart (caches are kept per name)."""

    name: str = "none"
    # words a description may use for a kind of element -> the element's role
    role_words: Mapping[str, ElementRole] = field(default_factory=dict)
    # what a task may quote as the kind of control it means -> the roles of that kind
    quoted_kinds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # a clause that asks to look through a group of tabs for the next clause's target (group: "tab"/"tabs")
    tab_search: re.Pattern[str] = NEVER
    # a clause that asks for nothing to be done
    nothing: re.Pattern[str] = NEVER
    # buttons a page ends every task with, asked or not (the benchmark scores only then): pressed before "done"
    closing_buttons: tuple[str, ...] = ()


NONE = RulePack()
_active = NONE


def active() -> RulePack:
    """The pack turned on in this process (NONE unless a harness turned one on)."""
    return _active


def use(pack: RulePack) -> None:
    """Turn `pack` on for this process (NONE turns every rule off)."""
    global _active
    _active = pack


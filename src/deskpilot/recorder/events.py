"""Raw input events as captured, before merging: one per mouse press/release, wheel tick and key press/release.
A recording keeps them in `events.jsonl` beside its steps (typed secrets masked), so it can be merged again later
with a better merger (`deskpilot episodes remerge`)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Literal

from deskpilot.core.errors import RecorderError

EventKind = Literal["press", "release", "scroll", "key_down", "key_up"]
EVENTS_FILE = "events.jsonl"
MASKED_KEY = "*"  # what a typed character of a secret is stored as


@dataclass(frozen=True)
class RawEvent:
    """`t` is seconds (monotonic clock); x/y screen pixels; `key` a canonical key name or the typed character;
    `frame` names the screen frame taken just before the event; `window` the focused window's title."""

    t: float
    kind: EventKind
    x: int = 0
    y: int = 0
    button: str = "left"
    dx: int = 0
    dy: int = 0
    key: str = ""
    frame: str | None = None
    window: str | None = None
    secret: bool = False  # a typed character of a secret, stored as MASKED_KEY

    @property
    def types_a_character(self) -> bool:
        return self.kind in ("key_down", "key_up") and (len(self.key) == 1 or self.key == "space")

    def masked(self) -> RawEvent:
        return RawEvent(**{**asdict(self), "key": MASKED_KEY, "secret": True})

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "", 0, False) or k in ("t", "kind")}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RawEvent:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


class RawEventLog:
    """Appends raw events to an episode's events.jsonl, flushed as it goes (a crash loses only the last ones)."""

    def __init__(self, directory: Path):
        self._file = open(directory / EVENTS_FILE, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def append(self, events: list[RawEvent]) -> None:
        if not events:
            return
        self._file.write("".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in events))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def read_events(directory: Path) -> list[RawEvent]:
    """The raw events of a recording, in order; a torn last line is skipped."""
    path = directory / EVENTS_FILE
    if not path.is_file():
        raise RecorderError(f"{directory} keeps no raw events ({EVENTS_FILE}): it was not recorded by this version")
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(RawEvent.from_dict(json.loads(line)))
        except (ValueError, TypeError, AttributeError):
            continue
    return events

"""Raw input events as captured, before merging: one per mouse press/release, wheel tick and key press/release."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

EventKind = Literal["press", "release", "scroll", "key_down", "key_up"]


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

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "", 0) or k in ("t", "kind")}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RawEvent:
        return cls(**data)

"""The Action: one typed user-input act, with its JSON form. The model-text form lives in action_text.py.

Points are screen pixels of the virtual desktop. An action may carry a `target` description instead of a point;
grounding resolves it on the live screen. `dy > 0` scrolls down (content moves up), `dx > 0` scrolls right.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .errors import ActionParseError
from .geometry import Point
from .secrets import REDACTED

DEFAULT_WAIT_SECONDS = 5.0  # what `wait()` without seconds means (UI-TARS' convention)
MAX_WAIT_SECONDS = 60.0  # one wait never holds the agent longer; wait again to wait more
MAX_SCROLL_TICKS = 50  # wheel clicks in one scroll action, each way
MAX_TEXT_CHARS = 10_000  # characters typed by one action
MAX_COORDINATE = 32767  # X11 and Windows virtual desktops end here


class ActionKind(str, Enum):
    CLICK = "click"
    DOUBLE_CLICK = "double_click"
    RIGHT_CLICK = "right_click"
    DRAG = "drag"
    MOVE = "move"
    SCROLL = "scroll"
    TYPE = "type"
    HOTKEY = "hotkey"
    KEY = "key"
    WAIT = "wait"
    FINISHED = "finished"
    CALL_USER = "call_user"


POINTER_KINDS = {ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK, ActionKind.MOVE}
TERMINAL_KINDS = {ActionKind.FINISHED, ActionKind.CALL_USER}


class Action(BaseModel):
    """One input act. Which fields apply depends on `kind`; the validator rejects the rest."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    kind: ActionKind
    point: Point | None = None
    target: str | None = None
    end_point: Point | None = None
    end_target: str | None = None
    button: Literal["left", "right", "middle"] = "left"
    dx: int = 0
    dy: int = 0
    text: str | None = None
    keys: tuple[str, ...] = ()
    key_state: Literal["press", "release"] | None = None
    seconds: float | None = None
    secret: bool = False

    @model_validator(mode="after")
    def _check_fields_for_kind(self) -> Action:
        kind = self.kind
        needs_where = kind in POINTER_KINDS or kind in (ActionKind.DRAG,)
        if needs_where and self.point is None and not self.target:
            raise ValueError(f"{kind.value} needs a point or a target")
        if kind is ActionKind.DRAG and self.end_point is None and not self.end_target:
            raise ValueError("drag needs an end point or an end target")
        if kind is not ActionKind.DRAG and (self.end_point is not None or self.end_target):
            raise ValueError(f"{kind.value} takes no end point")
        if kind is ActionKind.SCROLL and not (self.dx or self.dy):
            raise ValueError("scroll needs a non-zero dx or dy")
        if kind is not ActionKind.SCROLL and (self.dx or self.dy):
            raise ValueError(f"{kind.value} takes no scroll amount")
        if kind is ActionKind.TYPE and not self.text:
            raise ValueError("type needs text")
        if kind in (ActionKind.HOTKEY, ActionKind.KEY) and not self.keys:
            raise ValueError(f"{kind.value} needs keys")
        if kind is ActionKind.KEY and (len(self.keys) != 1 or self.key_state is None):
            raise ValueError("key needs exactly one key and a key_state (press or release)")
        if kind is not ActionKind.KEY and self.key_state is not None:
            raise ValueError(f"{kind.value} takes no key_state")
        if kind not in (ActionKind.HOTKEY, ActionKind.KEY) and self.keys:
            raise ValueError(f"{kind.value} takes no keys")
        if kind not in (ActionKind.TYPE, ActionKind.FINISHED, ActionKind.CALL_USER) and self.text is not None:
            raise ValueError(f"{kind.value} takes no text")
        if kind is not ActionKind.WAIT and self.seconds is not None:
            raise ValueError(f"{kind.value} takes no seconds")
        if self.seconds is not None and not 0 <= self.seconds <= MAX_WAIT_SECONDS:
            raise ValueError(f"wait seconds must be between 0 and {MAX_WAIT_SECONDS:g}")
        if abs(self.dx) > MAX_SCROLL_TICKS or abs(self.dy) > MAX_SCROLL_TICKS:
            raise ValueError(f"scroll at most {MAX_SCROLL_TICKS} wheel clicks at a time")
        if self.text is not None and len(self.text) > MAX_TEXT_CHARS:
            raise ValueError(f"text longer than {MAX_TEXT_CHARS} characters")
        for point in (self.point, self.end_point):
            if point is not None and not (abs(point.x) <= MAX_COORDINATE and abs(point.y) <= MAX_COORDINATE):
                raise ValueError(f"point ({point.x}, {point.y}) is off any screen")
        return self

    @property
    def is_terminal(self) -> bool:
        return self.kind in TERMINAL_KINDS

    @property
    def needs_grounding(self) -> bool:
        return (self.point is None and bool(self.target)) or (self.end_point is None and bool(self.end_target))

    def with_points(self, point: Point | None = None, end_point: Point | None = None) -> Action:
        """A copy with resolved screen points (targets are kept as the description of what was meant)."""
        update: dict[str, Any] = {}
        if point is not None:
            update["point"] = Point(*point)
        if end_point is not None:
            update["end_point"] = Point(*end_point)
        return self.model_copy(update=update)

    def redacted(self) -> Action:
        """The form safe to log and store: secret text is replaced."""
        if self.secret and self.text is not None:
            return self.model_copy(update={"text": REDACTED})
        return self

    def to_dict(self) -> dict[str, Any]:
        data = self.redacted().model_dump(mode="json", exclude_defaults=True)
        data["kind"] = self.kind.value
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ActionParseError(f"invalid action {data!r}: {_first_error(exc)}") from None

    @classmethod
    def from_json(cls, text: str) -> Action:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ActionParseError(f"action is not valid JSON ({exc.msg}): {text[:80]!r}") from None
        if not isinstance(data, dict):
            raise ActionParseError(f"action JSON must be an object, got {type(data).__name__}")
        return cls.from_dict(data)

    def describe(self) -> str:
        """A short human phrase for logs: `click "Save" at (412, 230)`."""
        parts = [self.kind.value]
        if self.target:
            parts.append(repr(self.target))
        if self.point is not None:
            parts.append(f"at ({self.point.x}, {self.point.y})")
        if self.kind is ActionKind.DRAG:
            end = self.end_point
            parts.append(f"to {self.end_target!r}" if end is None else f"to ({end.x}, {end.y})")
        if self.text is not None:
            parts.append(repr(self.redacted().text))
        if self.keys:
            parts.append("+".join(self.keys) + (f" {self.key_state}" if self.key_state else ""))
        if self.dx or self.dy:
            parts.append(f"dx={self.dx} dy={self.dy}")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g}s")
        return " ".join(parts)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message

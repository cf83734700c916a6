"""EventMerger: raw input events -> clean Actions, as a streaming state machine (so a recording can append
finished steps while it runs, and a crash loses only the action in flight).

- press + release of one button, close together -> click / right_click; moved beyond DRAG_PIXELS -> drag
- two clicks within DOUBLE_CLICK_SECONDS and DOUBLE_CLICK_PIXELS -> double_click
- runs of printable keys (no ctrl/alt/win held) -> one `type` with the final text, backspaces applied; Enter ends
  the run with a trailing newline (UI-TARS' "submit")
- a key with ctrl/alt/win held, or a special key alone (tab, esc, arrows, F-keys, ...) -> hotkey
- wheel ticks close in time and place -> one scroll
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.geometry import Point

from .events import RawEvent

DRAG_PIXELS = 6
DOUBLE_CLICK_SECONDS = 0.45
DOUBLE_CLICK_PIXELS = 6
SCROLL_GAP_SECONDS = 0.6
SCROLL_PIXELS = 40
MODIFIERS = {"ctrl", "alt", "win", "command", "shift"}
COMMAND_MODIFIERS = {"ctrl", "alt", "win", "command"}


@dataclass
class MergedAction:
    """A clean action and the raw events it came from (the first one names the frame before the action)."""

    action: Action
    events: list[RawEvent] = field(default_factory=list)

    @property
    def frame(self) -> str | None:
        return self.events[0].frame if self.events else None

    @property
    def started(self) -> float:
        return self.events[0].t if self.events else 0.0


class EventMerger:
    def __init__(self) -> None:
        self._held_keys: list[str] = []
        self._press: RawEvent | None = None
        self._pending_click: MergedAction | None = None
        self._typing: list[str] = []
        self._typing_events: list[RawEvent] = []
        self._scroll: MergedAction | None = None

    def feed(self, event: RawEvent) -> list[MergedAction]:
        """Take one raw event; return the actions it completed (in order)."""
        done = self.tick(event.t)
        if event.kind == "press":
            done += self._end_typing() + self._end_scroll()
            self._press = event
        elif event.kind == "release":
            done += self._release(event)
        elif event.kind == "scroll":
            done += self._end_typing() + self._end_click() + self._scroll_tick(event)
        elif event.kind == "key_down":
            done += self._key_down(event)
        elif event.kind == "key_up" and event.key in self._held_keys:
            self._held_keys.remove(event.key)
        return done

    def tick(self, now: float) -> list[MergedAction]:
        """Finish what time alone completes: a click no second click can follow any more, a finished scroll."""
        done: list[MergedAction] = []
        if self._pending_click and now - self._pending_click.events[-1].t > DOUBLE_CLICK_SECONDS:
            done += self._end_click()
        if self._scroll and now - self._scroll.events[-1].t > SCROLL_GAP_SECONDS:
            done += self._end_scroll()
        return done

    @property
    def typing(self) -> bool:
        """Whether a run of typed text is still open (its secrecy is not known until it ends)."""
        return bool(self._typing_events)

    def flush(self) -> list[MergedAction]:
        """Everything still open (at the end of a recording)."""
        return self._end_click() + self._end_typing() + self._end_scroll()

    def _release(self, event: RawEvent) -> list[MergedAction]:
        press, self._press = self._press, None
        if press is None or press.button != event.button:
            return []
        start, end = Point(press.x, press.y), Point(event.x, event.y)
        if max(abs(end.x - start.x), abs(end.y - start.y)) > DRAG_PIXELS:
            drag = Action(kind=ActionKind.DRAG, point=start, end_point=end, button=press.button)  # type: ignore[arg-type]
            return self._end_click() + [MergedAction(drag, [press, event])]
        if press.button == "right":
            return self._end_click() + [MergedAction(Action(kind=ActionKind.RIGHT_CLICK, point=start), [press, event])]
        pending = self._pending_click
        if (pending is not None and pending.action.kind is ActionKind.CLICK
                and pending.action.button == press.button
                and press.t - pending.events[-1].t <= DOUBLE_CLICK_SECONDS
                and max(abs(pending.action.point.x - start.x), abs(pending.action.point.y - start.y))  # type: ignore[union-attr]
                <= DOUBLE_CLICK_PIXELS):
            self._pending_click = None
            double = Action(kind=ActionKind.DOUBLE_CLICK, point=pending.action.point)
            return [MergedAction(double, [*pending.events, press, event])]
        done = self._end_click()
        self._pending_click = MergedAction(Action(kind=ActionKind.CLICK, point=start, button=press.button),  # type: ignore[arg-type]
                                           [press, event])
        return done

    def _key_down(self, event: RawEvent) -> list[MergedAction]:
        key = event.key
        if key in MODIFIERS:
            if key not in self._held_keys:
                self._held_keys.append(key)
            return []
        commands = [k for k in self._held_keys if k in COMMAND_MODIFIERS]
        printable = len(key) == 1 or key == "space"
        if not commands and (printable or key in ("backspace", "enter")):
            done = self._end_click() + self._end_scroll()
            if key == "backspace" and not self._typing:
                return done + [MergedAction(Action(kind=ActionKind.HOTKEY, keys=("backspace",)), [event])]
            self._typing_events.append(event)
            if key == "backspace":
                self._typing.pop()
            elif key == "enter":
                self._typing.append("\n")
                return done + self._end_typing()
            else:
                self._typing.append(" " if key == "space" else key)
            return done
        keys = tuple(k for k in self._held_keys if k in MODIFIERS) + (key.lower() if len(key) == 1 else key,)
        if not commands:  # a special key alone, or with shift only (shift+tab)
            keys = tuple(k for k in keys if k == "shift" or k == keys[-1])
        done = self._end_click() + self._end_typing() + self._end_scroll()
        return done + [MergedAction(Action(kind=ActionKind.HOTKEY, keys=keys), [event])]

    def _scroll_tick(self, event: RawEvent) -> list[MergedAction]:
        done: list[MergedAction] = []
        current = self._scroll
        if current is not None and not _continues(current, event):
            done, current = self._end_scroll(), None
        if not (event.dx or event.dy):
            return done
        if current is None:
            scroll = Action(kind=ActionKind.SCROLL, point=Point(event.x, event.y), dx=event.dx, dy=event.dy)
            self._scroll = MergedAction(scroll, [event])
            return done
        dx, dy = current.action.dx + event.dx, current.action.dy + event.dy
        self._scroll = (MergedAction(current.action.model_copy(update={"dx": dx, "dy": dy}), [*current.events, event])
                        if dx or dy else None)
        return done

    def _end_click(self) -> list[MergedAction]:
        pending, self._pending_click = self._pending_click, None
        return [pending] if pending else []

    def _end_typing(self) -> list[MergedAction]:
        if not self._typing_events:
            return []
        text, events = "".join(self._typing), self._typing_events
        self._typing, self._typing_events = [], []
        if not text:
            return []
        return [MergedAction(Action(kind=ActionKind.TYPE, text=text), events)]

    def _end_scroll(self) -> list[MergedAction]:
        pending, self._scroll = self._scroll, None
        return [pending] if pending else []


def _continues(scroll: MergedAction, event: RawEvent) -> bool:
    """Whether a wheel tick belongs to the scroll in progress: soon after it, and near where it started."""
    start = scroll.action.point
    assert start is not None
    return (abs(start.x - event.x) <= SCROLL_PIXELS and abs(start.y - event.y) <= SCROLL_PIXELS
            and event.t - scroll.events[-1].t <= SCROLL_GAP_SECONDS)

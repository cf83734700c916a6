"""Merging synthetic raw event streams into clean actions."""

from __future__ import annotations

from deskpilot.core.geometry import Point
from deskpilot.recorder.events import RawEvent
from deskpilot.recorder.merge import EventMerger


def merge(events: list[RawEvent]) -> list[str]:
    merger = EventMerger()
    actions = [m for e in events for m in merger.feed(e)] + merger.flush()
    return [m.action.to_json() for m in actions]


def keys(text: str, start: float = 0.0, step: float = 0.05) -> list[RawEvent]:
    out = []
    for i, key in enumerate(text):
        out += [RawEvent(start + i * step, "key_down", key=key), RawEvent(start + i * step + 0.01, "key_up", key=key)]
    return out


def click(x: int, y: int, t: float, button: str = "left") -> list[RawEvent]:
    return [RawEvent(t, "press", x, y, button), RawEvent(t + 0.05, "release", x, y, button)]


def test_press_release_is_a_click_and_two_fast_ones_a_double_click():
    assert merge(click(10, 20, 0.0)) == ['{"kind": "click", "point": [10, 20]}']
    assert merge(click(10, 20, 0.0) + click(11, 21, 0.2)) == ['{"kind": "double_click", "point": [10, 20]}']
    assert merge(click(10, 20, 0.0) + click(10, 20, 1.0)) == ['{"kind": "click", "point": [10, 20]}'] * 2
    assert merge(click(10, 20, 0.0) + click(90, 20, 0.2)) == ['{"kind": "click", "point": [10, 20]}',
                                                              '{"kind": "click", "point": [90, 20]}']


def test_right_click_and_drag():
    assert merge(click(5, 5, 0, "right")) == ['{"kind": "right_click", "point": [5, 5]}']
    drag = [RawEvent(0, "press", 10, 10), RawEvent(0.3, "release", 200, 60)]
    assert merge(drag) == ['{"kind": "drag", "point": [10, 10], "end_point": [200, 60]}']


def test_typing_with_backspaces_becomes_one_type_action():
    events = keys("Adx") + [RawEvent(0.5, "key_down", key="backspace")] + keys("a", 0.6)
    assert merge(events) == ['{"kind": "type", "text": "Ada"}']


def test_shifted_capitals_and_space_are_plain_typing():
    events = [RawEvent(0, "key_down", key="shift"), RawEvent(0.01, "key_down", key="A"),
              RawEvent(0.02, "key_up", key="shift"), *keys("b c", 0.1)]
    assert merge(events) == ['{"kind": "type", "text": "Ab c"}']


def test_enter_ends_typing_with_a_newline():
    assert merge(keys("hi") + [RawEvent(1, "key_down", key="enter")] + keys("x", 2)) == [
        '{"kind": "type", "text": "hi\\n"}', '{"kind": "type", "text": "x"}']


def test_held_modifiers_make_hotkeys_and_end_typing():
    events = keys("ab") + [RawEvent(1, "key_down", key="ctrl"), RawEvent(1.1, "key_down", key="s"),
                           RawEvent(1.2, "key_up", key="s"), RawEvent(1.3, "key_up", key="ctrl")] + keys("c", 2)
    assert merge(events) == ['{"kind": "type", "text": "ab"}', '{"kind": "hotkey", "keys": ["ctrl", "s"]}',
                             '{"kind": "type", "text": "c"}']
    shift_tab = [RawEvent(0, "key_down", key="shift"), RawEvent(0.1, "key_down", key="tab")]
    assert merge(shift_tab) == ['{"kind": "hotkey", "keys": ["shift", "tab"]}']
    assert merge([RawEvent(0, "key_down", key="esc")]) == ['{"kind": "hotkey", "keys": ["esc"]}']


def test_backspace_with_nothing_typed_is_a_key_press():
    assert merge([RawEvent(0, "key_down", key="backspace")]) == ['{"kind": "hotkey", "keys": ["backspace"]}']


def test_wheel_ticks_close_together_are_one_scroll():
    ticks = [RawEvent(i * 0.1, "scroll", 300, 300, dy=1) for i in range(4)]
    assert merge(ticks) == ['{"kind": "scroll", "point": [300, 300], "dy": 4}']
    apart = ticks + [RawEvent(5, "scroll", 300, 300, dy=-2)]
    assert merge(apart) == ['{"kind": "scroll", "point": [300, 300], "dy": 4}',
                            '{"kind": "scroll", "point": [300, 300], "dy": -2}']


def test_a_click_waits_for_a_possible_second_click_then_completes_on_tick():
    merger = EventMerger()
    assert [m for e in click(1, 1, 0.0) for m in merger.feed(e)] == []
    assert merger.tick(0.2) == []
    [done] = merger.tick(1.0)
    assert done.action.point == Point(1, 1)


def test_each_action_keeps_the_frame_before_its_first_event():
    events = [RawEvent(0, "press", 1, 1, frame="frames/000001.png"),
              RawEvent(0.1, "release", 1, 1, frame="frames/000002.png"),
              RawEvent(1, "key_down", key="a", frame="frames/000003.png")]
    merger = EventMerger()
    merged = [m for e in events for m in merger.feed(e)] + merger.flush()
    assert [m.frame for m in merged] == ["frames/000001.png", "frames/000003.png"]

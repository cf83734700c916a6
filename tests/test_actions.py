"""Actions round-trip through JSON and the UI-TARS function-call form; the parser is forgiving but never guesses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deskpilot.core.action_text import format_action, parse_action, parse_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.secrets import REDACTED
from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.errors import ActionParseError
from deskpilot.core.geometry import Monitor, Point
from deskpilot.core.keys import is_key_combo, split_combo

points = st.builds(Point, st.integers(0, 3839), st.integers(0, 2159))
targets = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
keys = st.sampled_from(["ctrl", "shift", "alt", "enter", "tab", "a", "s", "f5", "esc", "pagedown", "1"])


def pointer_action(kind: ActionKind) -> st.SearchStrategy[Action]:
    with_point = st.builds(lambda p: Action(kind=kind, point=p), points)
    with_target = st.builds(lambda t: Action(kind=kind, target=t), targets)
    with_both = st.builds(lambda p, t: Action(kind=kind, point=p, target=t), points, targets)
    return st.one_of(with_point, with_target, with_both)


actions = st.one_of(
    *(pointer_action(k) for k in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK, ActionKind.MOVE)),
    st.builds(lambda p, q: Action(kind=ActionKind.DRAG, point=p, end_point=q), points, points),
    st.builds(lambda p, d: Action(kind=ActionKind.SCROLL, point=p, dx=d[0], dy=d[1]), points,
              st.tuples(st.integers(-20, 20), st.integers(-20, 20)).filter(lambda d: d != (0, 0))),
    st.builds(lambda t: Action(kind=ActionKind.TYPE, text=t), st.text(min_size=1, max_size=40)),
    st.builds(lambda k: Action(kind=ActionKind.HOTKEY, keys=tuple(k)), st.lists(keys, min_size=1, max_size=3)),
    st.builds(lambda k, s: Action(kind=ActionKind.KEY, keys=(k,), key_state=s), keys,
              st.sampled_from(["press", "release"])),
    st.builds(lambda s: Action(kind=ActionKind.WAIT, seconds=s), st.none() | st.sampled_from([0.5, 1.0, 2.0, 10.0])),
    st.builds(lambda t: Action(kind=ActionKind.FINISHED, text=t), st.none() | st.text(min_size=1, max_size=30)),
    st.builds(lambda t: Action(kind=ActionKind.CALL_USER, text=t), st.none() | st.text(min_size=1, max_size=30)),
)


@given(actions)
def test_json_round_trip(action):
    assert Action.from_json(action.to_json()) == action


@given(actions)
def test_function_call_round_trip(action):
    assert parse_action(format_action(action)) == action


@given(points, st.sampled_from(["screen", "resized", "relative1000"]))
def test_function_call_round_trip_through_model_space_stays_within_a_pixel(point, mode):
    monitor = Monitor(0, 0, 3840, 2160)
    space = CoordinateSpace.for_model(monitor, mode)
    back = parse_action(format_action(Action(kind=ActionKind.CLICK, point=point), space), space).point
    tolerance = 0 if mode == "screen" else 4  # 0-1000 grid over 3840 px: one step is 3.84 px
    assert abs(back.x - point.x) <= tolerance and abs(back.y - point.y) <= tolerance


@pytest.mark.parametrize("text, expected", [
    ("click(point='<point>100 200</point>')", Action(kind=ActionKind.CLICK, point=Point(100, 200))),
    ("click(start_box='(100,200)')", Action(kind=ActionKind.CLICK, point=Point(100, 200))),
    ('click(start_box="<|box_start|>(100,200)<|box_end|>")', Action(kind=ActionKind.CLICK, point=Point(100, 200))),
    ("click(start_box='[90, 190, 110, 210]')", Action(kind=ActionKind.CLICK, point=Point(100, 200))),
    ("left_double(point='<point>5 6</point>')", Action(kind=ActionKind.DOUBLE_CLICK, point=Point(5, 6))),
    ("right_single( point = '<point>5 6</point>' )", Action(kind=ActionKind.RIGHT_CLICK, point=Point(5, 6))),
    ("drag(start_point='<point>1 2</point>', end_point='<point>3 4</point>')",
     Action(kind=ActionKind.DRAG, point=Point(1, 2), end_point=Point(3, 4))),
    ("hotkey(key='ctrl c')", Action(kind=ActionKind.HOTKEY, keys=("ctrl", "c"))),
    ("hotkey(key='Control+Shift+T')", Action(kind=ActionKind.HOTKEY, keys=("ctrl", "shift", "t"))),
    ("type(content='it\\'s done\\n')", Action(kind=ActionKind.TYPE, text="it's done\n")),
    ("scroll(point='<point>5 5</point>', direction='up')",
     Action(kind=ActionKind.SCROLL, point=Point(5, 5), dy=-5)),
    ("wait()", Action(kind=ActionKind.WAIT)),
    ("finished(content='all good')", Action(kind=ActionKind.FINISHED, text="all good")),
    ("click(target='the Save button')", Action(kind=ActionKind.CLICK, target="the Save button")),
])
def test_parses_the_forms_models_speak(text, expected):
    assert parse_action(text) == expected


def test_response_with_thought_and_two_actions():
    response = parse_response("Thought: The form is empty.\nI will fill it.\nAction: click(point='<point>1 2</point>')"
                              "\n\ntype(content='Ada')")
    assert response.thought == "The form is empty.\nI will fill it."
    assert [a.kind for a in response.actions] == [ActionKind.CLICK, ActionKind.TYPE]


def test_resized_image_coordinates_map_to_screen_pixels():
    space = CoordinateSpace.for_model(Monitor(0, 0, 1920, 1080), "resized")
    assert space.image_size == (1932, 1092)
    action = parse_action("click(point='<point>966 546</point>')", space)
    assert action.point == Point(960, 540)


@pytest.mark.parametrize("bad", [
    "clack(point='<point>1 2</point>')", "click(point='nowhere')", "click()", "Sure! I'll click Save.",
    "click(point='<point>1 2</point>'", "type(content='unterminated)", "scroll(point='<point>1 2</point>', "
    "direction='sideways')", "hotkey(key='ctrl+blorp')", "",
])
def test_unparseable_text_is_a_clear_error(bad):
    with pytest.raises(ActionParseError):
        parse_action(bad)


def test_invalid_fields_for_kind_are_rejected():
    with pytest.raises(ActionParseError, match="type needs text"):
        Action.from_dict({"kind": "type"})
    with pytest.raises(ActionParseError, match="drag needs an end"):
        Action.from_dict({"kind": "drag", "point": [1, 2]})


def test_secret_text_is_redacted_in_every_stored_form():
    action = Action(kind=ActionKind.TYPE, text="hunter2", secret=True)
    assert "hunter2" not in action.to_json() and REDACTED in action.to_json()
    assert "hunter2" not in action.describe()


@pytest.mark.parametrize("combo, keys", [("ctrl+s", ("ctrl", "s")), ("Ctrl S", ("ctrl", "s")),
                                         ("ctrl-shift-t", ("ctrl", "shift", "t")), ("Return", ("enter",)),
                                         ("cmd+q", ("command", "q")), ("+", ("+",))])
def test_key_combos_normalise(combo, keys):
    assert split_combo(combo) == keys


def test_key_combo_or_thing_on_screen():
    assert is_key_combo("enter") and is_key_combo("ctrl+s") and is_key_combo("alt f4")
    assert not is_key_combo("login") and not is_key_combo("OK") and not is_key_combo("s")


def test_an_action_line_missing_its_colon_still_reads_but_only_before_a_call():
    assert parse_response("Action click(target='$1')").actions[0].target == "$1"
    assert parse_response("Thought: fine.\nAction  type(content='x')").thought == "fine."
    response = parse_response("Thought: Action items first.\nAction: hotkey(key='enter')")
    assert response.thought == "Action items first." and response.actions[0].keys == ("enter",)


def test_every_call_the_prompts_list_parses_to_its_kind():
    """The registry is the one vocabulary: what the prompts show is what the parser reads, in both forms."""
    from deskpilot.core.action_registry import ACTIONS, ELEMENT_FORM, POINT_FORM, prompt_calls

    shown = {spec.name: spec.kind for spec in ACTIONS if spec.shown is not None}
    for form in (POINT_FORM, ELEMENT_FORM):
        lines = prompt_calls(form).splitlines()
        assert len(lines) == len(shown)
        for line in lines:
            call = line.split("#")[0].strip()
            action = parse_action(call.replace("x y", "10 20").replace("x1 y1", "1 2").replace("x2 y2", "3 4"))
            assert action.kind is shown[call.split("(")[0]], call


@pytest.mark.parametrize("kind", list(ActionKind))
def test_every_kind_has_one_canonical_call_and_round_trips(kind):
    from deskpilot.core.action_registry import call_names, canonical_name

    assert call_names()[canonical_name(kind)] is kind

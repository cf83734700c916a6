"""The function-call text form of actions that UI-TARS / Qwen2.5-VL style agents speak, both ways.

    click(point='<point>x y</point>')   left_double(...)   right_single(...)   drag(start_point=..., end_point=...)
    hotkey(key='ctrl c')   type(content='...')   scroll(point=..., direction='down')   wait()   finished(content=...)

The parser is forgiving of spacing, quotes and older spellings (`start_box='(x,y)'`, `<|box_start|>(x,y)<|box_end|>`,
`[x0,y0,x1,y1]` boxes) but never guesses: text that is not one of these calls raises ActionParseError.
Coordinates are converted between the model's space and screen pixels by a CoordinateSpace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .action_registry import RELEASE_NAMES, call_args, call_names, canonical_name
from .actions import MAX_COORDINATE, Action, ActionKind
from .coords import CoordinateSpace
from .errors import ActionParseError
from .geometry import Point
from .keys import split_combo

DEFAULT_SCROLL_TICKS = 5

_CALL_NAMES = call_names()
_ARGS = call_args()
_POINT_ARGS = ("point", "start_point", "start_box", "box", "position")
_END_ARGS = ("end_point", "end_box")
_DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_NUMBER_ONLY = re.compile(r"[-+]?\d{1,7}(?:\.\d{0,6})?")
_POINT_TAGS = re.compile(r"</?point>|<\|box_(?:start|end)\|>|</?bbox>|<\|point_(?:start|end)\|>")
_POINT_FORM = re.compile(r"\s*[\(\[]?\s*(?:-?\d+(?:\.\d+)?\s*[,\s]\s*){1}-?\d+(?:\.\d+)?"
                         r"(?:\s*[,\s]\s*-?\d+(?:\.\d+)?\s*[,\s]\s*-?\d+(?:\.\d+)?)?\s*[\)\]]?\s*")
# "Action:" opens the action part; "Action click(...)" (a small model's missing colon) too, but only when a call
# follows at once.
_ACTION_MARKER = re.compile(r"(?im)^\s*action\s*(?::\s*|\s+(?=[a-z_]+\())")
_KEYWORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*")
MAX_RESPONSE_CHARS = 20_000  # a model reply longer than this is not read
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"n": "\n", "t": "\t", "'": "'", '"': '"', "\\": "\\"}


@dataclass
class ModelResponse:
    """What a model said in one turn: its thought and the action calls it chose."""

    thought: str
    actions: list[Action] = field(default_factory=list)


def parse_action(text: str, space: CoordinateSpace | None = None) -> Action:
    """One call -> an Action with screen points (converted through `space` when given)."""
    if len(text) > MAX_RESPONSE_CHARS:
        raise ActionParseError(f"action text of {len(text)} characters is too long to be one action")
    calls = _scan_calls(text.strip())
    if len(calls) != 1:
        raise ActionParseError(f"expected one action call, found {len(calls)}: {text.strip()[:120]!r}")
    name, args = calls[0]
    return _build(name, args, space)


def parse_response(text: str, space: CoordinateSpace | None = None) -> ModelResponse:
    """`Thought: ...\\nAction: ...` (or bare calls) -> thought and actions; no call at all is an error."""
    if len(text) > MAX_RESPONSE_CHARS:
        raise ActionParseError(f"model output of {len(text)} characters is too long to be one action")
    thought, calls_text = split_response(text)
    calls = _scan_calls(calls_text)
    if not calls:
        raise ActionParseError(f"no action call in model output: {text.strip()[:120]!r}")
    return ModelResponse(thought, [_build(name, args, space) for name, args in calls])


def split_response(text: str) -> tuple[str, str]:
    """A reply in the planner's format -> (its thought, the text of its action part); a reply with no `Action:`
    line is all action part."""
    body = _strip_fences(text)
    marker = _ACTION_MARKER.search(body)
    if not marker:
        return "", body.strip()
    thought = re.sub(r"(?is)^\s*(thought|reflection|action_summary)\s*:\s*", "", body[: marker.start()]).strip()
    return thought, body[marker.end():].strip()


def format_response(thought: str, action: Action, space: CoordinateSpace | None = None) -> str:
    """The reply the planner expects: `Thought: ...` (when there is one) and `Action: <call>`."""
    call = format_action(action, space)
    return f"Thought: {thought.strip()}\nAction: {call}" if thought.strip() else f"Action: {call}"


def format_action(action: Action, space: CoordinateSpace | None = None) -> str:
    """An Action -> its canonical UI-TARS-1.5 call, coordinates in `space` (screen pixels when None)."""
    kind = action.kind
    args: list[tuple[str, str]] = []

    def where(point_name: str, point: Point | None, target: str | None) -> None:
        if point is not None:
            x, y = space.from_screen(point) if space else (point.x, point.y)
            args.append((point_name, f"<point>{x} {y}</point>"))
        if target:
            args.append(("target" if point_name != "end_point" else "end_target", target))

    name = canonical_name(kind)
    if kind is ActionKind.KEY:
        name = "press" if action.key_state == "press" else "release"
        args.append(("key", action.keys[0]))
    elif kind is ActionKind.DRAG:
        where("start_point", action.point, action.target)
        where("end_point", action.end_point, action.end_target)
    elif kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK, ActionKind.MOVE):
        where("point", action.point, action.target)
        if kind is ActionKind.CLICK and action.button != "left":
            args.append(("button", action.button))
    elif kind is ActionKind.SCROLL:
        where("point", action.point, action.target)
        args.extend(_scroll_args(action.dx, action.dy))
    elif kind is ActionKind.TYPE:
        args.append(("content", action.text or ""))
    elif kind is ActionKind.HOTKEY:
        args.append(("key", " ".join(action.keys)))
    elif kind is ActionKind.WAIT:
        if action.seconds is not None:
            args.append(("seconds", f"{action.seconds:g}"))
    elif action.text is not None:
        args.append(("content", action.text))
    return f"{name}({', '.join(f'{k}={_quote(v)}' for k, v in args)})"


def _scroll_args(dx: int, dy: int) -> list[tuple[str, str]]:
    if dx and dy:
        return [("dx", str(dx)), ("dy", str(dy))]
    amount = dy or dx
    direction = ("down" if amount > 0 else "up") if dy else ("right" if amount > 0 else "left")
    extra = [] if abs(amount) == DEFAULT_SCROLL_TICKS else [("amount", str(abs(amount)))]
    return [("direction", direction), *extra]


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t")
    return f"'{escaped}'"


def _strip_fences(text: str) -> str:
    return re.sub(r"```[a-zA-Z]*\n?", "", text)


def _scan_calls(text: str) -> list[tuple[str, dict[str, str]]]:
    """Split text into `name(args)` calls. Anything between calls other than whitespace/commas is an error."""
    calls: list[tuple[str, dict[str, str]]] = []
    pos = 0
    while True:
        while pos < len(text) and (text[pos].isspace() or text[pos] in ",;"):
            pos += 1
        if pos >= len(text):
            return calls
        match = _NAME.match(text, pos)
        if not match:
            raise ActionParseError(f"not an action call at {text[pos:pos + 40]!r}")
        name = match.group(0)
        pos = match.end()
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if pos >= len(text) or text[pos] != "(":
            raise ActionParseError(f"{name!r} is not followed by '(' in {text[:120]!r}")
        args, pos = _scan_args(text, pos + 1)
        calls.append((name, args))


def _scan_args(text: str, pos: int) -> tuple[dict[str, str], int]:
    args: dict[str, str] = {}
    positional = 0
    while True:
        while pos < len(text) and (text[pos].isspace() or text[pos] == ","):
            pos += 1
        if pos >= len(text):
            raise ActionParseError(f"unclosed '(' in {text[:120]!r}")
        if text[pos] == ")":
            return args, pos + 1
        match = _KEYWORD.match(text, pos)
        if match:
            key, pos = match.group(1), match.end()
        else:
            key, positional = f"_{positional}", positional + 1
        if key in args:
            raise ActionParseError(f"argument {key.lstrip('_')!r} given twice in {text[:120]!r}")
        value, end = _scan_value(text, pos)
        if end == pos and not match:
            raise ActionParseError(f"unexpected {text[pos]!r} in {text[:120]!r}")
        args[key], pos = value, end


def _scan_value(text: str, pos: int) -> tuple[str, int]:
    if pos < len(text) and text[pos] in "'\"":
        quote, out, pos = text[pos], [], pos + 1
        while pos < len(text):
            ch = text[pos]
            if ch == "\\" and pos + 1 < len(text):
                out.append(_ESCAPES.get(text[pos + 1], "\\" + text[pos + 1]))
                pos += 2
            elif ch == quote:
                return "".join(out), pos + 1
            else:
                out.append(ch)
                pos += 1
        raise ActionParseError(f"unclosed quote in {text[:120]!r}")
    depth, start = 0, pos
    while pos < len(text):
        ch = text[pos]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                if ch == "]":
                    raise ActionParseError(f"unbalanced ']' in {text[:120]!r}")
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        pos += 1
    return text[start:pos].strip(), pos


def _number(raw: str, what: str) -> float:
    """A plain decimal number (at most 7 digits before the point), never inf, nan or an exponent."""
    text = raw.strip()
    if not _NUMBER_ONLY.fullmatch(text):
        raise ActionParseError(f"{what} must be a plain number, got {raw[:40]!r}")
    return float(text)


def _parse_point(raw: str, space: CoordinateSpace | None) -> Point:
    """`<point>x y</point>`, `(x,y)`, `[x0,y0,x1,y1]` (its centre), with the older box tokens around them; the
    numbers must lie within the image the model saw (with `space`), or on some screen."""
    body = _POINT_TAGS.sub(" ", raw)
    if not _POINT_FORM.fullmatch(body):
        raise ActionParseError(f"expected a point 'x y' or a box, got {raw[:60]!r}")
    numbers = [_number(n, "a coordinate") for n in _NUMBER.findall(body)]
    if len(numbers) == 4:
        numbers = [(numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2]
    x, y = numbers
    if space is None:
        if abs(x) > MAX_COORDINATE or abs(y) > MAX_COORDINATE:
            raise ActionParseError(f"point ({x:g}, {y:g}) is off any screen")
        return Point(round(x), round(y))
    x0, y0, x1, y1 = space.bounds()  # a point beyond them is refused, not moved onto the edge (its target is not there)
    if not (x0 <= x <= x1 and y0 <= y <= y1):
        raise ActionParseError(f"point ({x:g}, {y:g}) is outside the screenshot ({x0:g}..{x1:g}, {y0:g}..{y1:g})")
    return space.to_screen(x, y)


def _first(args: dict[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        if args.get(name):
            return args[name]
    return None


def _build(name: str, args: dict[str, str], space: CoordinateSpace | None) -> Action:
    kind = _CALL_NAMES.get(name.lower())
    if kind is None:
        raise ActionParseError(f"unknown action {name!r}; expected one of {', '.join(sorted(set(_CALL_NAMES)))}")
    allowed = _ARGS[kind] | {"_0"}
    unknown = [key.lstrip("_") for key in args if key not in allowed]
    if unknown:
        raise ActionParseError(f"{name}(...) takes no argument {unknown[0]!r}")
    main = args.get("_0")
    try:
        return _build_kind(kind, name.lower(), args, main, space)
    except ActionParseError:
        raise
    except (ValueError, TypeError, OverflowError) as exc:
        raise ActionParseError(f"bad {name}(...) call: {exc}") from None


def _build_kind(kind: ActionKind, name: str, args: dict[str, str], main: str | None,
                space: CoordinateSpace | None) -> Action:
    fields: dict[str, object] = {"kind": kind}
    raw_point = _first(args, _POINT_ARGS)
    target = args.get("target") or args.get("element")
    if kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK, ActionKind.MOVE,
                ActionKind.SCROLL, ActionKind.DRAG):
        if main is not None and kind is not ActionKind.SCROLL:
            if raw_point is not None:
                raise ActionParseError(f"{name}(...) got a point twice")
            raw_point = main
        if raw_point is not None:
            fields["point"] = _parse_point(raw_point, space)
        if target:
            fields["target"] = target
    if kind is ActionKind.CLICK and args.get("button"):
        fields["button"] = args["button"].lower()
    if kind is ActionKind.DRAG:
        raw_end = _first(args, _END_ARGS)
        if raw_end is not None:
            fields["end_point"] = _parse_point(raw_end, space)
        if args.get("end_target"):
            fields["end_target"] = args["end_target"]
    elif kind is ActionKind.SCROLL:
        fields["dx"], fields["dy"] = _scroll_amount(args)
    elif kind is ActionKind.TYPE:
        fields["text"] = _first(args, ("content", "text")) or main
    elif kind is ActionKind.HOTKEY:
        fields["keys"] = split_combo(_first(args, ("key", "keys", "hotkey")) or main or "")
    elif kind is ActionKind.KEY:
        fields["keys"] = split_combo(_first(args, ("key", "keys")) or main or "")
        fields["key_state"] = "release" if name in RELEASE_NAMES else "press"
    elif kind is ActionKind.WAIT:
        raw_seconds = _first(args, ("seconds", "time", "duration")) or main
        if raw_seconds:
            fields["seconds"] = _number(raw_seconds, "wait seconds")
    elif kind in (ActionKind.FINISHED, ActionKind.CALL_USER):
        answer = _first(args, ("content", "answer", "question", "text")) or main
        if answer is not None:
            fields["text"] = answer
    return Action.from_dict(fields)


def _scroll_amount(args: dict[str, str]) -> tuple[int, int]:
    if "dx" in args or "dy" in args:
        return (round(_number(args.get("dx") or "0", "scroll dx")),
                round(_number(args.get("dy") or "0", "scroll dy")))
    direction = (args.get("direction") or args.get("_0") or "").strip().lower()
    if direction not in _DIRECTIONS:
        raise ActionParseError(f"scroll direction must be up, down, left or right, got {direction!r}")
    amount = args.get("amount")
    ticks = round(_number(amount, "scroll amount")) if amount else DEFAULT_SCROLL_TICKS
    ux, uy = _DIRECTIONS[direction]
    return ux * ticks, uy * ticks

"""The action vocabulary, defined once: each call a planner may answer with — its name, the other names models
use for it, its keyword arguments, and a one-line doc. The parser (core.action_text), the formatter, the
prompts' lists of action calls (planner.context, planner.som_text) and the action reference in the docs are all
made from this table."""

from __future__ import annotations

from dataclasses import dataclass

from .actions import ActionKind

WHERE_ARGS = ("point", "start_point", "start_box", "box", "position", "target", "element")


@dataclass(frozen=True)
class ActionSpec:
    """One call of the function-call form. `shown` is how prompts show it (`{where}` stands for the point or the
    element, as the prompt's form names places); None keeps it out of prompts (it is parsed all the same)."""

    kind: ActionKind
    name: str
    aliases: tuple[str, ...]
    args: tuple[str, ...]
    doc: str
    shown: str | None = None
    compact: str | None = None  # the call as the compact text prompt (som-text) names it
    doc_shown: bool = True  # whether the prompts show the doc beside the call (the calls of places speak for
    # themselves)


ACTIONS: tuple[ActionSpec, ...] = (  # in the order the prompts list them
    ActionSpec(ActionKind.CLICK, "click", ("left_single", "left_click", "tap"), WHERE_ARGS + ("button",),
               "click with the left button (button='right' or 'middle' for the others)", "click({where})",
               "click(target=...)", doc_shown=False),
    ActionSpec(ActionKind.DOUBLE_CLICK, "left_double", ("double_click",), WHERE_ARGS, "double-click",
               "left_double({where})", doc_shown=False),
    ActionSpec(ActionKind.RIGHT_CLICK, "right_single", ("right_click",), WHERE_ARGS, "right-click",
               "right_single({where})", doc_shown=False),
    ActionSpec(ActionKind.DRAG, "drag", ("select", "left_drag"), WHERE_ARGS + ("end_point", "end_box", "end_target"),
               "press, move to the end, release", "drag({start}, {end})", doc_shown=False),
    ActionSpec(ActionKind.MOVE, "move", ("hover", "mouse_move", "move_to"), WHERE_ARGS, "move the pointer there"),
    ActionSpec(ActionKind.HOTKEY, "hotkey", (), ("key", "keys", "hotkey"),
               "lowercase key names separated by spaces, at most 3 keys", "hotkey(key='ctrl c')",
               "hotkey(key=...)"),
    ActionSpec(ActionKind.TYPE, "type", ("write",), ("content", "text"),
               "escape ' as \\' and new lines as \\n; a final \\n submits", "type(content='text')",
               "type(content=...)"),
    ActionSpec(ActionKind.KEY, "press", ("keydown", "key_down", "release", "keyup", "key_up"), ("key", "keys"),
               "hold a key down (release(key=...) lets it go)"),
    ActionSpec(ActionKind.SCROLL, "scroll", (), WHERE_ARGS + ("direction", "amount", "dx", "dy"),
               "up, down, left or right", "scroll({where}, direction='down')", "scroll(direction=...)"),
    ActionSpec(ActionKind.WAIT, "wait", (), ("seconds", "time", "duration"), "wait 5 seconds, then look again",
               "wait()"),
    ActionSpec(ActionKind.FINISHED, "finished", ("finish",), ("content", "answer", "question", "text"),
               "the task is done", "finished(content='short answer')", "finished(content=...)"),
    ActionSpec(ActionKind.CALL_USER, "call_user", (), ("content", "answer", "question", "text"),
               "you cannot go on without the user", "call_user(content='question')"),
)
# the compact text prompt (som-text) lists these, in this order: what its trained models were taught
COMPACT_ORDER = (ActionKind.CLICK, ActionKind.TYPE, ActionKind.HOTKEY, ActionKind.SCROLL, ActionKind.FINISHED)
DOC_COLUMN = 34  # where the prompts' one-line docs start
DOC_GAP = "   "  # before the doc of a call that reaches past DOC_COLUMN
RELEASE_NAMES = frozenset({"release", "keyup", "key_up"})  # KEY calls that let the key go


def call_names() -> dict[str, ActionKind]:
    """Every name the parser accepts -> the kind of action it is."""
    return {name: spec.kind for spec in ACTIONS for name in (spec.name, *spec.aliases)}


def call_args() -> dict[ActionKind, set[str]]:
    """The keyword arguments each kind of call takes."""
    return {spec.kind: set(spec.args) for spec in ACTIONS}


def canonical_name(kind: ActionKind) -> str:
    """The name the formatter writes for `kind`."""
    return next(spec.name for spec in ACTIONS if spec.kind is kind)


POINT_FORM = {"where": "point='<point>x y</point>'", "start": "start_point='<point>x1 y1</point>'",
              "end": "end_point='<point>x2 y2</point>'"}
ELEMENT_FORM = {"where": "element='3'", "start": "element='3'", "end": "end_target='the Trash icon'"}


def prompt_calls(form: dict[str, str]) -> str:
    """The prompts' list of action calls, one a line with its doc, places named as `form` names them
    (POINT_FORM: coordinates; ELEMENT_FORM: the numbers of a set-of-marks screenshot)."""
    lines = []
    for spec in ACTIONS:
        if spec.shown is not None:
            call = spec.shown.format(**form)
            gap = " " * (DOC_COLUMN - len(call)) if len(call) < DOC_COLUMN else DOC_GAP
            lines.append(f"{call}{gap}# {spec.doc}" if spec.doc_shown else call)
    return "\n".join(lines)


def compact_calls() -> str:
    """The calls the compact text prompt lists, as `click(target=...) | type(content=...) | ...`."""
    compact = {spec.kind: spec.compact for spec in ACTIONS if spec.compact is not None}
    return " | ".join(compact[kind] for kind in COMPACT_ORDER)


def reference_table() -> str:
    """The action reference for the docs: a Markdown table of every call."""
    rows = ["| call | also accepted | arguments | what it does |", "| --- | --- | --- | --- |"]
    for spec in ACTIONS:
        rows.append(f"| `{spec.name}` | {', '.join(f'`{a}`' for a in spec.aliases) or '—'} | "
                    f"{', '.join(f'`{a}`' for a in spec.args)} | {spec.doc.replace('|', '/')} |")
    return "\n".join(rows)

"""A recorded demonstration as a template: `deskpilot replay EPISODE --set "Full name=Grace Hopper" --set
"Colour=Blue"` replays it with other values. A value is found by the field it went into, as the recording saw it:

- typed text: the field is named by the text recorded under or beside the click that preceded the typing (an empty
  field's click keeps its label, "Full name"), or by the typing step's own elements;
- a selection: a click on a control named so (a dropdown labelled "Colour") that made a list appear (the
  recording's frames show it), followed by a click in that list; that click is replayed on the new value's text
  instead (never by the old option's pixels).

Names match without regard to case, spacing or punctuation; a name the recording has no field for is an error
that lists the fields it has."""

from __future__ import annotations

from dataclasses import replace

from deskpilot.core.actions import ActionKind
from deskpilot.core.episode import Episode, Step
from deskpilot.core.errors import DeskpilotError, RecorderError
from deskpilot.core.observation import Element
from deskpilot.core.task_text import normalised
from deskpilot.grounding.changes import changed_regions

POINTER = (ActionKind.CLICK, ActionKind.DOUBLE_CLICK)


def parse_assignments(pairs: list[str]) -> dict[str, str]:
    """["Full name=Grace Hopper", ...] -> {"Full name": "Grace Hopper", ...}; a pair without "=" is an error."""
    found: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise RecorderError(f"--set takes NAME=VALUE, not {pair!r}")
        found[name.strip()] = value
    return found


def with_values(episode: Episode, values: dict[str, str]) -> tuple[Episode, set[int]]:
    """The episode with each named field's value replaced, and the indices of the steps whose targets changed
    (to be found by text only)."""
    steps = list(episode.steps)
    wanted = {normalised(name): (name, value) for name, value in values.items()}
    used: set[str] = set()
    by_text: set[int] = set()
    fields: list[str] = []
    for position, step in enumerate(steps):
        if step.action.kind is not ActionKind.TYPE or step.action.text is None:
            continue
        name = _field_of(steps, position)
        if name is None:
            continue
        fields.append(name)
        if normalised(name) in wanted:
            used.add(normalised(name))
            text = wanted[normalised(name)][1] + ("\n" if step.action.text.endswith("\n") else "")
            steps[position] = replace(step, action=step.action.model_copy(update={"text": text}))
    typed = {normalised(name) for name in fields}
    for position, (opener, option) in enumerate(zip(steps, steps[1:]), 1):
        name = _named(opener.elements)
        if opener.action.kind not in POINTER or option.action.kind not in POINTER or not option.elements \
                or name is None or normalised(name) in typed \
                or normalised(name) == normalised(option.elements[0].text) or not _opened_list(episode, opener, option):
            continue
        fields.append(name)
        if normalised(name) in wanted:
            used.add(normalised(name))
            chosen = replace(option.elements[0], text=wanted[normalised(name)][1])
            steps[position] = replace(option, elements=[chosen], action=option.action.model_copy(
                update={"target": None}))
            by_text.add(option.index)
    missing = [wanted[key][0] for key in wanted if key not in used]
    if missing:
        known = ", ".join(dict.fromkeys(fields)) or "none"
        raise RecorderError(f"the recording has no field {missing[0]!r} to set (its fields: {known})")
    return Episode(episode.directory, episode.meta, steps), by_text


def with_substitutions(episode: Episode, values: dict[str, str]) -> tuple[Episode, set[int]]:
    """The episode with every typed text and every clicked option that was one of `values`' keys replaced by its
    value (a demonstration reused for a task with other quoted values), and the indices of the steps whose targets
    changed (to be found by text only)."""
    steps = list(episode.steps)
    by_text: set[int] = set()
    for position, step in enumerate(steps):
        text = step.action.text
        if step.action.kind is ActionKind.TYPE and text is not None and text.rstrip("\n") in values:
            new = values[text.rstrip("\n")] + ("\n" if text.endswith("\n") else "")
            steps[position] = replace(step, action=step.action.model_copy(update={"text": new}))
        elif step.action.kind in POINTER and step.elements and step.elements[0].text in values:
            chosen = replace(step.elements[0], text=values[step.elements[0].text])
            steps[position] = replace(step, elements=[chosen], action=step.action.model_copy(update={"target": None}))
            by_text.add(step.index)
    return Episode(episode.directory, episode.meta, steps), by_text


def _opened_list(episode: Episode, opener: Step, option: Step) -> bool:
    """Whether the opener's click made something appear where the next click landed (a dropdown's list): the
    screen before the opener against the screen just before the next click; where the frames were not kept, the
    recording is taken at its word."""
    if option.action.point is None or opener.monitor is None:
        return True
    try:
        before, after = episode.frame(opener.before), episode.frame(option.before)
    except DeskpilotError:
        return True
    x, y = opener.monitor.screen_to_image(*option.action.point)
    return any(box.contains(int(x), int(y)) for box in changed_regions(before, after))


def _field_of(steps: list[Step], position: int) -> str | None:
    """The name of the field a typing step went into: its own elements, else those of the click before it."""
    own = _named(steps[position].elements)
    if own:
        return own
    for earlier in reversed(steps[:position]):
        if earlier.action.kind in POINTER:
            return _named(earlier.elements)
        if earlier.action.kind is not ActionKind.HOTKEY:
            return None
    return None


def _named(elements: list[Element]) -> str | None:
    """The label among a click's recorded elements: the last one with text (the text under an empty field is
    none, so the label beside it comes first and last)."""
    texts = [e.text for e in elements if e.text]
    return texts[-1] if texts else None

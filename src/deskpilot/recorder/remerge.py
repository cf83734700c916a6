"""Merging a recording again from its raw events (events.jsonl): a better merger, or other settings, rebuilds the
steps from the events and the frames already on disk. The steps it replaces are kept in steps.previous.jsonl;
typed secrets stay redacted (their characters were stored masked)."""

from __future__ import annotations

import shutil
from pathlib import Path

from deskpilot.core.actions import ActionKind
from deskpilot.core.episode import STEPS_FILE, Step, read_episode, read_image, rewrite_steps
from deskpilot.core.errors import RecorderError
from deskpilot.core.geometry import Monitor
from deskpilot.core.secrets import REDACTED
from deskpilot.grounding.base import TextReader

from .capture import text_under
from .events import read_events
from .merge import EventMerger, MergedAction

PREVIOUS_STEPS_FILE = "steps.previous.jsonl"


def remerge(directory: Path | str, ocr: TextReader | None = None,
            ignore_hotkeys: tuple[tuple[str, ...], ...] = ()) -> list[Step]:
    """Rebuild a demonstration's steps from its raw events and write them (the old ones to steps.previous.jsonl).
    With `ocr`, the text under each click is read again from its frame; without, it is kept from the old step that
    clicked at the same point."""
    directory = Path(directory)
    episode = read_episode(directory)
    if episode.meta.source != "demonstration":
        raise RecorderError(f"{directory.name} is an agent run; only recordings keep raw events to merge again")
    events = read_events(directory)
    merger = EventMerger()
    merged: list[MergedAction] = []
    for event in events:
        merged += merger.feed(event)
    merged += merger.flush()
    ignored = {tuple(sorted(keys)) for keys in ignore_hotkeys}
    merged = [m for m in merged if not (m.action.kind is ActionKind.HOTKEY and tuple(sorted(m.action.keys)) in ignored)]
    if not merged:
        raise RecorderError(f"{directory.name}: its raw events merge into no action")
    old_elements = {(s.action.kind, s.action.point): s.elements for s in episode.steps}
    first_frame = next((e.frame for e in events if e.frame), None)
    final_frame = episode.meta.extra.get("final_frame")
    monitor = next((s.monitor for s in episode.steps if s.monitor is not None), None)
    start = events[0].t if events else 0.0
    steps: list[Step] = []
    for index, item in enumerate(merged):
        before = item.frame or (steps[-1].after if steps else first_frame)
        later = next((m.frame for m in merged[index + 1:] if m.frame), None)
        after = later or final_frame
        if before is None:
            raise RecorderError(f"{directory.name}: no frame before step {index + 1}")
        action = item.action
        if action.kind is ActionKind.TYPE and any(e.secret for e in item.events):
            action = action.model_copy(update={"text": REDACTED, "secret": True})
        elements = []
        if action.point is not None and action.kind is not ActionKind.SCROLL:
            image = read_image(directory / before) if ocr is not None else None
            if image is not None and ocr is not None:
                elements = text_under(image, monitor or Monitor(0, 0, image.shape[1], image.shape[0]),
                                      action.point, ocr)
            else:
                elements = old_elements.get((action.kind, action.point), [])
        steps.append(Step(index, action, before, after, monitor=monitor, elements=elements,
                          timing={"at_s": round(item.started - start, 3)}, window=item.events[0].window))
    shutil.copyfile(directory / STEPS_FILE, directory / PREVIOUS_STEPS_FILE)
    rewrite_steps(episode, steps)
    return steps

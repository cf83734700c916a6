"""Grounding alone, scored on real MiniWoB++ screenshots with the page's DOM boxes as ground truth: how many visible
text and clickable elements `parse()` finds (an element counts when a parsed element's centre lies in its box), and
whether `locate()` puts the utterance's first target inside the right element."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from deskpilot.core.geometry import reading_order
from deskpilot.core.errors import PlannerError
from deskpilot.core.observation import Element, Observation
from deskpilot.core.screen import Screen
from deskpilot.grounding.base import Grounder
from deskpilot.grounding.description import TargetSpec, nth, parse_description
from deskpilot.grounding.text_match import tidy
from deskpilot.planner.instructions import parse_instructions

from .miniwob.page import MiniWobBrowser, PageElement

SETTLE_SECONDS = 1.0
# DOM tags standing for each kind of element a description can name without text.
ROLE_TAGS = {"input": ("input_text", "input_password", "input_email", "input_search", "input_number", "textarea"),
             "dropdown": ("select",), "button": ("button", "input_button", "input_submit"),
             "checkbox": ("input_checkbox",), "radio": ("input_radio",)}


@dataclass(frozen=True)
class ScreenScore:
    task: str
    seed: int
    found: int  # DOM elements with a parsed element in them
    total: int
    clickable_found: int
    clickable_total: int
    target: str | None  # the description located, when the utterance names one the DOM can check
    located: bool | None


def _inside(element: Element, page: PageElement) -> bool:
    return page.box.contains(*element.center)


def expected_elements(spec: TargetSpec, page: list[PageElement]) -> list[PageElement]:
    """The DOM elements a description means: same text (exact case first), else, for unnamed targets, the n-th
    element of that kind in reading order."""
    if spec.phrase:
        want = tidy(spec.phrase)
        exact = [e for e in page if tidy(e.text) == want]
        same = exact or [e for e in page if tidy(e.text).lower() == want.lower()]
        if spec.role == "link":
            same = [e for e in same if e.clickable]
        if spec.role in ("input", "dropdown"):  # a field named by its label: the field nearest below or beside it
            fields = [e for e in page if e.tag in ROLE_TAGS[spec.role]]
            return [min(fields, key=lambda f: _distance(label, f)) for label in same[:1] if fields]
        return same
    kinds = ROLE_TAGS.get(spec.role or "", ())
    found = sorted((e for e in page if e.tag in kinds), key=lambda e: reading_order(e.box))
    chosen = nth(found, spec.ordinal)
    return [] if chosen is None else [chosen]


def _distance(label: PageElement, field: PageElement) -> float:
    if field.box.y1 < label.box.y0 or field.box.x1 < label.box.x0:
        return float("inf")  # fields are below or to the right of their labels
    return abs(field.box.x0 - label.box.x0) + abs(field.box.y0 - label.box.y1)


def first_target(utterance: str) -> str | None:
    """The first element the utterance names, as the offline planner reads it (None if it reads none)."""
    try:
        plan = parse_instructions(utterance)
    except PlannerError:
        return None
    return next((p.action.target for p in plan if p.action.target), None)


def score_screen(task: str, seed: int, obs: Observation, grounder: Grounder, page: list[PageElement],
                 utterance: str) -> ScreenScore:
    parsed = grounder.parse(obs)
    found = [p for p in page if any(_inside(e, p) for e in parsed)]
    clickable = [p for p in page if p.clickable]
    target = first_target(utterance)
    located: bool | None = None
    if target is not None:
        expected = expected_elements(parse_description(target), page)
        if expected:
            element = grounder.locate(obs, target)
            located = element is not None and any(_inside(element, e) for e in expected)
        else:
            target = None
    return ScreenScore(task, seed, len(found), len(page), sum(p.clickable for p in found), len(clickable), target,
                       located)


def miniwob_screens(browser: MiniWobBrowser, screen: Screen, tasks: list[str], episodes: int,
                    seed: int) -> Iterator[tuple[str, int, Observation, list[PageElement], str]]:
    """(task, seed, observation, DOM elements, utterance) for each task and episode, taken on the real screen
    right after the episode starts; the episode ends once the caller has looked at it."""
    for task in tasks:
        browser.open(task)
        for number in range(episodes):
            utterance = browser.reset(seed + number)
            image = screen.wait_until_settled(timeout=SETTLE_SECONDS)
            yield task, seed + number, Observation(image=image, monitor=screen.monitor(), cursor=None), \
                browser.elements(), utterance
            browser.end()


def evaluate_grounding(grounder: Grounder, browser: MiniWobBrowser, screen: Screen, tasks: list[str], episodes: int,
                       seed: int, on_screen: Callable[[ScreenScore], None] | None = None) -> dict[str, Any]:
    scores: list[ScreenScore] = []
    for task, episode_seed, obs, page, utterance in miniwob_screens(browser, screen, tasks, episodes, seed):
        score = score_screen(task, episode_seed, obs, grounder, page, utterance)
        scores.append(score)
        if on_screen is not None:
            on_screen(score)
    return summarize(scores)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def summarize(scores: list[ScreenScore]) -> dict[str, Any]:
    located = [s.located for s in scores if s.located is not None]
    per_task: dict[str, dict[str, Any]] = {}
    for task in dict.fromkeys(s.task for s in scores):
        mine = [s for s in scores if s.task == task]
        mine_located = [s.located for s in mine if s.located is not None]
        per_task[task] = {"parse_recall": _ratio(sum(s.found for s in mine), sum(s.total for s in mine)),
                          "clickable_recall": _ratio(sum(s.clickable_found for s in mine),
                                                     sum(s.clickable_total for s in mine)),
                          "locate_accuracy": statistics.fmean(mine_located) if mine_located else None,
                          "screens": len(mine)}
    return {"parse_recall": _ratio(sum(s.found for s in scores), sum(s.total for s in scores)),
            "clickable_recall": _ratio(sum(s.clickable_found for s in scores), sum(s.clickable_total for s in scores)),
            "locate_accuracy": statistics.fmean(located) if located else 0.0,
            "located_screens": len(located), "screens": len(scores), "tasks": per_task,
            "misses": [{"task": s.task, "seed": s.seed, "target": s.target} for s in scores if s.located is False]}


"""Synthetic form tasks as desktop-suite tasks: a random form (forms.random_form) shown by one toolkit's renderer
(apps/), a reachable goal, the task text (the offline grammar's wording to collect demonstrations, or a paraphrase
to evaluate understanding), the paraphrases training repeats each step under, and a checker that reads the
application's own state file. A task is fixed by (toolkit, seed, themes): the same seed gives the same form and
goal in every toolkit."""

from __future__ import annotations

import json
import random
import sys
from importlib import resources
from typing import Literal

from deskpilot.core.errors import EvaluationError

from ..desktop_checks import Check, TaskRun
from ..desktop_tasks import DesktopTask
from .forms import HELD_OUT_THEMES, TOOLKITS, TRAIN_THEMES, FormSpec, Goal, random_form, random_goal
from .phrasing import canonical, paraphrase, paraphrases

APPS = resources.files("deskpilot.evaluation.synthetic.apps")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, which has PyGObject (python3-gi) for the GTK renderer
LAUNCH = {"qt": (sys.executable, str(APPS / "qt_form.py")), "tk": (sys.executable, str(APPS / "tk_form.py")),
          "gtk": (SYSTEM_PYTHON, str(APPS / "gtk_form.py")), "html": (sys.executable, str(APPS / "html_form.py"))}
WINDOW = {"qt": "qtform", "tk": "tkform", "gtk": "gtkform", "html": "chromium"}
SPEC, STATE = "form.json", "state.json"
Wording = Literal["canonical", "paraphrase"]


def form_state(goal: Goal) -> Check:
    """The goal checked against the state the form application wrote."""
    def check(run: TaskRun) -> tuple[bool, str]:
        try:
            state = json.loads((run.home / STATE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False, "the form wrote no state"
        return goal.reached(state)
    return check


def goal_in_words(seed: int, held_out: bool = False, wording: Wording = "paraphrase",
                  words: random.Random | None = None) -> tuple[FormSpec, Goal, str]:
    """The form and goal of `seed` (of the held-out themes or the training ones) and the goal said in `wording`,
    its words drawn from `words` (the seed's own stream unless given)."""
    rng = random.Random(f"{'held-out' if held_out else 'train'}-{seed}")
    form = random_form(rng, HELD_OUT_THEMES if held_out else TRAIN_THEMES)
    goal = random_goal(form, rng)
    stream = words or random.Random(f"words-{seed}")
    return form, goal, canonical(goal) if wording == "canonical" else paraphrase(goal, stream)


def form_task(toolkit: str, seed: int, held_out: bool = False, wording: Wording = "canonical",
              paraphrase_count: int = 0) -> DesktopTask:
    """The synthetic task of `seed` in `toolkit`; its text in the wording asked, with `paraphrase_count` other
    wordings kept for training."""
    if toolkit not in TOOLKITS:
        raise EvaluationError(f"unknown toolkit {toolkit!r}; known: {', '.join(TOOLKITS)}")
    words = random.Random(f"words-{seed}")  # the task's wording, then its other wordings
    form, goal, text = goal_in_words(seed, held_out, wording, words)
    others = tuple(p for p in paraphrases(goal, words, paraphrase_count) if p != text) if paraphrase_count else ()
    name = f"form-{toolkit}-{'heldout-' if held_out else ''}{seed}"
    return DesktopTask(name, f"form/{toolkit}", text, (*LAUNCH[toolkit], f"{{home}}/{SPEC}", f"{{home}}/{STATE}"),
                       WINDOW[toolkit], form_state(goal), files={SPEC: form.to_json()},
                       skills=tuple(sorted({i.kind for i in goal.intents})), max_steps=4 * len(goal.intents) + 4,
                       paraphrases=others)

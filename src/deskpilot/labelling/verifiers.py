"""Step verifiers: label each step of an episode good / bad / unknown, with a reason and a score, from what can
be seen. Each gives a `Verdict` (core.verdict) per step, which `core.episode.label_steps` appends to the episode.

- `heuristic`: from the before/after frames and the action: did the screen change near the action point, did the
  typed text appear (OCR of what changed), did the step repeat an action that had no effect.
- `env`: the environment's reward, where the episode came from one that gives it (the MiniWoB harness).
- `judge` (judge.py): a vision-language model looking at the screens around the step.
- `human`: a label a person set (`deskpilot label --set good|bad`).
- `env+heuristic`: what collection writes: the environment's verdict where it is sure, else the heuristic's `bad`,
  with both verdicts kept under `checks`.
- `goal`: the goal check the agent made before "done": the closing `finished` is good where the check passed, bad
  where the run said "done" and the check found the task not done.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from deskpilot.core.actions import ActionKind
from deskpilot.core.secrets import REDACTED
from deskpilot.core.episode import Episode, Step
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.verdict import Label, Verdict
from deskpilot.grounding.changes import (CARET_PIXELS, EFFECT_SHARE, changed_near, changed_pixels, changed_regions,
                                         changed_share)
from deskpilot.grounding.ocr import OcrEngine
from deskpilot.grounding.text_match import match_text

TEXT_MATCH = 0.85


class HeuristicVerifier:
    name = "heuristic"

    def __init__(self, ocr: OcrEngine | None = None):
        self.ocr = ocr or OcrEngine()

    def judge_episode(self, episode: Episode) -> list[Verdict | None]:
        """A verdict per step (None for steps with nothing to judge: finished, call_user)."""
        verdicts: list[Verdict | None] = []
        previous: tuple[Step, Verdict] | None = None
        for step in episode.steps:
            if step.action.is_terminal or step.after is None:
                verdicts.append(None)
                continue
            verdict = self.judge(step, episode.frame(step.before), episode.frame(step.after), previous)
            verdicts.append(verdict)
            previous = (step, verdict)
        return self._credit_focus_clicks(episode, verdicts)

    def _credit_focus_clicks(self, episode: Episode, verdicts: list[Verdict | None]) -> list[Verdict | None]:
        """A click into a field that showed no change of its own (the field already had the focus) worked if
        the text typed next appeared inside that field."""
        for index, (step, verdict) in enumerate(zip(episode.steps[:-1], verdicts[:-1])):
            following, next_verdict = episode.steps[index + 1], verdicts[index + 1]
            if (verdict is None or verdict.label == "good" or next_verdict is None or next_verdict.label != "good"
                    or following.action.kind is not ActionKind.TYPE or following.after is None):
                continue
            fields = [e for e in step.elements if e.role in ("input", "dropdown")]
            monitor = step.monitor_for(episode.frame(step.before))
            before, after = episode.frame(following.before), episode.frame(following.after)
            if any(changed_share(before, after, monitor.screen_box_to_image(e.box)) > 0 for e in fields):
                verdicts[index] = self._verdict("good", "the text typed next appeared in the field it clicked", 0.8)
        return verdicts

    def judge(self, step: Step, before: np.ndarray, after: np.ndarray,
              previous: tuple[Step, Verdict] | None = None) -> Verdict:
        action = step.action
        changed = changed_pixels(before, after) > CARET_PIXELS
        if action.kind is ActionKind.TYPE:
            return self._typed(action.text or "", before, after, changed)
        if action.point is not None and action.kind is not ActionKind.SCROLL:
            monitor = step.monitor_for(after)
            x, y = (round(v) for v in monitor.screen_to_image(*action.point))
            share = max([changed_near(before, after, x, y)]
                        + [changed_share(before, after, monitor.screen_box_to_image(e.box).padded(4))
                           for e in step.elements])
            if share >= EFFECT_SHARE:
                return self._verdict("good", f"the screen changed near ({action.point.x}, {action.point.y})",
                                     min(1.0, 0.6 + share))
            if previous and previous[0].action == action and previous[1].label == "bad":
                return self._verdict("bad", "repeats an action that already had no visible effect", 0.05)
            if changed:
                return self._verdict("unknown", "the screen changed, but not near the action point", 0.4)
            return self._verdict("bad", f"nothing changed after {action.kind.value} at "
                                        f"({action.point.x}, {action.point.y})", 0.1)
        if action.kind in (ActionKind.WAIT,):
            return self._verdict("unknown", "waiting has no effect of its own to check", 0.5)
        if changed:
            return self._verdict("good", f"the screen changed after {action.kind.value}", 0.7)
        return self._verdict("unknown", f"nothing visible changed after {action.kind.value} (it may act unseen)", 0.3)

    def _typed(self, text: str, before: np.ndarray, after: np.ndarray, changed: bool) -> Verdict:
        if not changed:
            return self._verdict("bad", "nothing appeared on the screen after typing", 0.1)
        wanted = text.strip()
        if text == REDACTED or not any(ch.isalnum() for ch in wanted):
            return self._verdict("good", "the screen changed where the (hidden) text was typed", 0.6)
        for region in changed_regions(before, after):
            crop = after[region.y0:region.y1, region.x0:region.x1]
            for line in self.ocr.read(crop):
                match = match_text(wanted[-40:], line.text)
                if match is not None and match.score >= TEXT_MATCH:
                    return self._verdict("good", f"the typed text appeared: {line.text!r}", match.score)
        return self._verdict("bad", "the screen changed but the typed text is not readable in what changed", 0.25)

    def _verdict(self, label: Label, reason: str, score: float) -> Verdict:
        return Verdict(label, reason, score, self.name)


class EnvVerifier:
    """Labels from the environment's reward: a step's own reward when it has one (the reward of the episode it
    ended); otherwise the episode's final reward (`environment.reward`) vouches for every step of an episode that earned
    it. A failed episode says nothing about which of its steps went wrong, so its steps stay unknown — the step that
    ended it included, unless it was the episode's only action: the last click of a failed form (Submit) is
    usually right, and blaming it taught KTO that clicking Submit is bad."""

    name = "env"

    def judge_episode(self, episode: Episode) -> list[Verdict | None]:
        final = episode.meta.environment.reward if episode.meta.environment else None
        actions = sum(not step.action.is_terminal for step in episode.steps)
        verdicts: list[Verdict | None] = []
        for step in episode.steps:
            if step.reward is not None and (step.reward > 0 or actions == 1):
                label: Label = "good" if step.reward > 0 else "bad"
                verdicts.append(Verdict(label, f"the environment gave reward {step.reward:g}", _unit(step.reward),
                                        self.name))
            elif step.reward is not None:
                verdicts.append(Verdict("unknown", f"the episode ended with reward {step.reward:g} after {actions} "
                                        "actions; which one went wrong is unknown", 0.5, self.name))
            elif step.action.is_terminal or final is None:
                verdicts.append(None)
            elif float(final) > 0:
                verdicts.append(Verdict("good", f"the episode earned reward {float(final):g}", _unit(float(final)),
                                        self.name))
            else:
                verdicts.append(Verdict("unknown", f"the episode earned no reward ({float(final):g})", 0.5,
                                        self.name))
        return verdicts


class CombinedVerifier:
    """The environment's verdict where it is sure (good or bad), else the heuristic's `bad` (the step visibly did
    nothing). A visible effect alone is no proof of progress, so the heuristic's `good` leaves such a step unknown.
    Where frames are missing (collected with `--frames none`), the environment's verdicts alone."""

    name = "env+heuristic"

    def __init__(self, heuristic: HeuristicVerifier | None = None):
        self.env = EnvVerifier()
        self.heuristic = heuristic or HeuristicVerifier()

    def judge_episode(self, episode: Episode) -> list[Verdict | None]:
        env = self.env.judge_episode(episode)
        try:
            seen = self.heuristic.judge_episode(episode)
        except DeskpilotError:  # a frame is missing
            return env
        verdicts: list[Verdict | None] = []
        for by_env, by_eye in zip(env, seen):
            if by_eye is None:
                verdicts.append(by_env)
                continue
            env_label: Label = by_env.label if by_env else "unknown"
            if by_env is not None and env_label in ("good", "bad"):
                chosen = by_env
            elif by_eye.label == "bad":
                chosen = by_eye
            else:
                chosen = replace(by_env or by_eye, label="unknown")
            verdicts.append(replace(chosen, checks={"env": env_label, "heuristic": by_eye.label}))
        return verdicts


def _unit(reward: float) -> float:
    return min(1.0, max(0.0, (reward + 1) / 2))


class GoalCheckVerifier:
    """Labels the step that said "done" from the goal check the agent made then (core.verdict.GoalCheck)."""

    name = "goal"

    def judge_episode(self, episode: Episode) -> list[Verdict | None]:
        check = episode.meta.goal_check
        verdicts: list[Verdict | None] = [None] * len(episode.steps)
        finished = [i for i, step in enumerate(episode.steps) if step.action.kind is ActionKind.FINISHED]
        if check is None or not finished:
            return verdicts
        last = finished[-1]
        verdicts[last] = Verdict("good", check.describe(), 1.0, self.name) if check.passed else \
            Verdict("bad", f"said done, but {check.describe()}", 0.0, self.name)
        return verdicts


def human_verdict(label: Label, reason: str = "set by a person") -> Verdict:
    return Verdict(label, reason, 1.0 if label == "good" else 0.0, "human")

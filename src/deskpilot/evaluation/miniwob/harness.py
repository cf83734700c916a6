"""The agent on MiniWoB++ tasks, from pixels: each episode's utterance becomes the agent's task, the agent acts with
real input on the visible Chromium window, and the page's own reward scores it. Every run is kept as an Episode
whose steps carry the environment's verdict (the `env` verifier), ready for training. The MiniWoB rule pack
(`rules.MINIWOB`) is on while an episode runs, unless the caller passes `rules=NONE` (`eval miniwob --no-pack`)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.rule_packs import RulePack, use
from deskpilot.core.episode import Step, score_episode
from deskpilot.core.verdict import EnvironmentRun
from deskpilot.core.secrets import scrub, task_secrets
from deskpilot.evaluation.check_agreement import check_agreement
from deskpilot.planner.agent import Agent

from .page import MiniWobBrowser
from .rules import MINIWOB
from deskpilot.labelling.verifiers import CombinedVerifier, EnvVerifier

MAX_STEPS = 20
SETTLE_AFTER_RESET = 1.0  # seconds the first look may wait for the freshly drawn task to stop changing


@dataclass(frozen=True)
class EpisodeScore:
    task: str
    seed: int
    utterance: str
    raw_reward: float  # 1 success, -1 failure / time-out, 0 when the agent stopped before the page decided
    reward: float  # discounted by time, as MiniWoB reports it
    steps: int
    seconds: float
    outcome: str
    detail: str
    episode_dir: Path
    checked: bool | None = None  # the agent's own goal check of the final screen (None where it did not run)

    @property
    def success(self) -> bool:
        return self.raw_reward > 0


def run_episode(agent: Agent, browser: MiniWobBrowser, task: str, seed: int, rules: RulePack = MINIWOB,
                verifier: EnvVerifier | CombinedVerifier | None = None) -> EpisodeScore:
    """One MiniWoB episode, scored by the page, with `rules` on; the episode on disk gets the score, the step
    rewards and the labels of `verifier` (the environment's by default), once."""
    use(rules)
    browser.open(task)
    utterance = browser.reset(seed)
    agent.screen.wait_until_settled(timeout=SETTLE_AFTER_RESET)
    ended_at: dict[int, float] = {}

    def page_done(step: Step) -> bool:
        state = browser.state()
        if state.done:
            ended_at[step.index] = state.raw_reward
        return state.done

    started = time.perf_counter()
    result = agent.run(utterance, max_steps=MAX_STEPS, app=f"miniwob/{task}", until=page_done)
    seconds = time.perf_counter() - started
    state = browser.state()
    if not state.done:
        browser.end()
        state = browser.state()
    # A native popup (an open <select> list) is a window of its own and outlives the episode: close it.
    agent.controller.execute(Action(kind=ActionKind.HOTKEY, keys=("escape",)))
    # the page's score, its step rewards and the verifier's labels, beside the steps the agent wrote
    score_episode(result.episode_dir, EnvironmentRun("miniwob", task, seed, state.raw_reward, state.reward,
                                                     state.reason), ended_at, (verifier or EnvVerifier()).judge_episode)
    shown = scrub(utterance, [secret.value for secret in task_secrets(utterance)])  # printed and reported
    return EpisodeScore(task, seed, shown, state.raw_reward, state.reward, len(result.steps), seconds,
                        result.outcome, result.detail, result.episode_dir,
                        result.check.passed if result.check is not None else None)


def evaluate_miniwob(agent: Agent, browser: MiniWobBrowser, tasks: list[str], episodes: int, seed: int,
                     on_episode: Callable[[EpisodeScore], None] | None = None,
                     rules: RulePack = MINIWOB) -> dict[str, Any]:
    """Every task `episodes` times (seeds seed, seed+1, ...) with `rules` on; the report JSON the CLI writes."""
    scores: dict[str, list[EpisodeScore]] = {}
    for task in tasks:
        for number in range(episodes):
            score = run_episode(agent, browser, task, seed + number, rules)
            scores.setdefault(task, []).append(score)
            if on_episode is not None:
                on_episode(score)
    return summarize(scores, scale=browser.scale)


def summarize(scores: dict[str, list[EpisodeScore]], scale: float) -> dict[str, Any]:
    table: dict[str, dict[str, Any]] = {}
    for task, runs in scores.items():
        steps = sum(r.steps for r in runs)
        table[task] = {"success_rate": sum(r.success for r in runs) / len(runs),
                       "mean_reward": statistics.fmean(r.raw_reward for r in runs),
                       "mean_discounted_reward": statistics.fmean(r.reward for r in runs),
                       "episodes": len(runs),
                       "seconds_per_step": sum(r.seconds for r in runs) / steps if steps else 0.0,
                       "mean_steps": steps / len(runs),
                       "failures": [{"seed": r.seed, "utterance": r.utterance, "outcome": r.outcome,
                                     "detail": r.detail, "episode": str(r.episode_dir)}
                                    for r in runs if not r.success]}
    mean = statistics.fmean(t["success_rate"] for t in table.values()) if table else 0.0
    every = [(r.success, r.outcome, r.checked) for runs in scores.values() for r in runs]
    return {"tasks": table, "mean_success_rate": mean, "scale": scale, "goal_check": check_agreement(every)}

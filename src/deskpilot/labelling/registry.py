"""The Verifier protocol and the registry of verifiers by name.

A verifier labels a batch of episodes: `label(episodes) -> {episode id: [Verdict | None per step]}` (None: the
step gets no label). Most judge an episode on its own (`PerEpisode` adapts them); the environment-playing ones
(rollouts, branches) need the whole batch at once. A factory makes a verifier from `VerifierOptions`; a module that
offers verifiers registers its factories with `register` when imported."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from deskpilot.core.episode import Episode
from deskpilot.core.errors import LabellingError
from deskpilot.core.verdict import Label, Verdict


class Verifier(Protocol):
    name: str

    def label(self, episodes: list[Episode]) -> dict[str, list[Verdict | None]]:
        """A verdict or None for every step of each episode, by episode id."""
        ...


@dataclass
class VerifierOptions:
    """Everything a verifier may be made with; each factory reads the options it needs."""

    set_label: Label | None = None  # human: the label a person gives
    step: int | None = None  # judge, human: only this step (0-based)
    planner: str = "openai"  # judge: the model backend (openai | transformers)
    model: str | None = None  # judge: the model; rollout, branch: the policy that plays on
    base_url: str | None = None
    rollouts: int = 4  # rollout: continuations per prefix
    answers: int = 3  # branch: the model's likeliest answers played on each screen
    temperature: float | None = None  # rollout, branch: the policy's sampling temperature
    workers: int = 1  # rollout, branch: parallel workers
    ray: str | None = None  # rollout, branch: the workers as Ray actors (auto, or a cluster's address)
    out: Path | None = None  # rollout, branch: the folder the played episodes go to


class PerEpisode:
    """A verifier that judges each episode on its own (`judge(episode) -> [Verdict | None]`)."""

    def __init__(self, name: str, judge: Callable[[Episode], list[Verdict | None]]):
        self.name = name
        self._judge = judge

    def label(self, episodes: list[Episode]) -> dict[str, list[Verdict | None]]:
        return {episode.meta.id: self._judge(episode) for episode in episodes}


Factory = Callable[[VerifierOptions], Verifier]
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    """Offer the verifier `name`, made by `factory`."""
    _FACTORIES[name] = factory


def names() -> list[str]:
    """The verifiers offered, in the order they were registered."""
    return list(_FACTORIES)


def make(name: str, options: VerifierOptions) -> Verifier:
    """The verifier `name`, made with `options`; a LabellingError when there is none of that name."""
    if name not in _FACTORIES:
        raise LabellingError(f"unknown verifier {name!r}; available: {', '.join(_FACTORIES)}")
    return _FACTORIES[name](options)


def _heuristic(options: VerifierOptions) -> Verifier:
    from .verifiers import HeuristicVerifier

    return PerEpisode("heuristic", HeuristicVerifier().judge_episode)


def _env(options: VerifierOptions) -> Verifier:
    from .verifiers import EnvVerifier

    return PerEpisode("env", EnvVerifier().judge_episode)


def _combined(options: VerifierOptions) -> Verifier:
    from .verifiers import CombinedVerifier

    return PerEpisode("env+heuristic", CombinedVerifier().judge_episode)


def _goal(options: VerifierOptions) -> Verifier:
    from .verifiers import GoalCheckVerifier

    return PerEpisode("goal", GoalCheckVerifier().judge_episode)


def _judge(options: VerifierOptions) -> Verifier:
    from deskpilot.core.settings import load_settings
    from deskpilot.planner.factory import build_backend

    from .judge import JudgeVerifier

    if options.planner not in ("openai", "transformers"):
        raise LabellingError(f"the judge runs on openai or transformers, not {options.planner!r}")
    judge = JudgeVerifier(build_backend(load_settings(planner=options.planner, model=options.model,
                                                      base_url=options.base_url)))
    return PerEpisode("judge", lambda episode: judge.judge_episode(episode, only=options.step))


def _human(options: VerifierOptions) -> Verifier:
    from .verifiers import human_verdict

    label = options.set_label
    if label is None:
        raise LabellingError("the human verifier needs --set good|bad")
    return PerEpisode("human", lambda episode: [human_verdict(label) if options.step in (None, step.index) else None
                                                for step in episode.steps])


for _name, _factory in (("heuristic", _heuristic), ("judge", _judge), ("env", _env), ("env+heuristic", _combined),
                        ("goal", _goal), ("human", _human)):
    register(_name, _factory)

"""Which step of a failed MiniWoB++ episode lost it, from Monte-Carlo continuations (as Math-Shepherd labels the
steps of a solution). The environment only says that an episode failed; its reward lands on the step that ended
it, which in a form is the right click on Submit after a wrong field. So for a failed episode of n actions, the same
page (same task, same seed) is played again with its first k actions re-enacted (k = 0 .. n-1), and the model goes
on by itself, sampling, several times. The share of those continuations that win estimates how winnable the episode
still was after its k-th step:

- the step after which no continuation wins any more, though some won before it, lost the episode: `bad` — when
  so many losses in a row would be unlikely (under `LUCK`) at the win rate before it; otherwise it gets no verdict;
- the steps before it kept the episode winnable: `good`; the steps after it: `unknown` (already lost);
- when no continuation wins even from the start, the model cannot do that page, and the steps get no verdict
  from this verifier (the ones they have stay).

Continuations are ordinary episodes in their own folder, tagged with what they continue (`extra.rollout`), so a
cut run resumes where it stopped, and they are on-policy training data too. Continuations from the start run first,
and the other prefixes only for the episodes some of those won, which spends no time on pages the model never wins.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskpilot.core.actions import Action
from deskpilot.core.episode import Episode
from deskpilot.core.errors import EvaluationError
from deskpilot.core.verdict import Verdict

from .collect import ROLLOUT_KEY, CollectConfig, Collected, CollectSummary, finished_episodes, run_jobs

MODEL_FILES = ("config.json", "adapter_config.json")  # a model folder holds one: a whole model, or a peft adapter
LUCK = 0.1  # a step is blamed only when its continuations' losing streak is this unlikely at the win rate before it
Values = dict[int, tuple[int, int]]  # prefix length -> (continuations won, continuations that re-enacted it)


@dataclass(frozen=True)
class RolloutConfig:
    """What `deskpilot label --verifier rollout` was asked for."""

    model: str  # a som-text model folder, or a model's name at `base_url`
    out: Path  # the continuations' folder
    rollouts: int = 4  # continuations per prefix
    temperature: float = 0.7
    workers: int = 1
    base_url: str | None = None
    max_actions: int = 10  # longer failed episodes stay unlabelled: their prefixes would cost too many continuations
    ray: str | None = None  # the workers as Ray actors (auto, or a cluster's address); None: local processes

    def collect_config(self, tasks: tuple[str, ...]) -> CollectConfig:
        return CollectConfig(tasks, 0, self.out, policy="model", model=self.model, base_url=self.base_url,
                             temperature=self.temperature, workers=self.workers, frames="none", ray=self.ray)


def replayable_actions(episode: Episode, max_actions: int) -> list[Action] | None:
    """The actions of a failed MiniWoB episode that continuations can start from, or None: a success, an episode
    from elsewhere, or one longer than `max_actions`."""
    run = episode.meta.environment
    if run is None or run.environment != "miniwob" or run.seed is None or run.won:
        return None
    actions = [step.action for step in episode.steps if not step.action.is_terminal]
    if not actions or len(actions) > max_actions:
        return None
    return actions


class RolloutLabeller:
    """Runs the continuations of a set of episodes (`label`) and turns their outcomes into step verdicts."""

    name = "rollout"

    def __init__(self, config: RolloutConfig, on_episode: Callable[[Collected], None] | None = None,
                 on_start: Callable[[int], None] | None = None):
        if config.rollouts < 1:
            raise EvaluationError("--rollouts must be at least 1")
        check_policy(config.model, config.base_url)
        self.config = config
        self.on_episode, self.on_start = on_episode, on_start

    def label(self, episodes: list[Episode]) -> dict[str, list[Verdict | None]]:
        """Verdicts for every step of each episode (by episode id); None where a step gets none."""
        chosen = {e.meta.id: (e, actions) for e in episodes
                  if (actions := replayable_actions(e, self.config.max_actions)) is not None}
        if chosen:
            self.config.out.mkdir(parents=True, exist_ok=True)
            self._run(chosen, lambda actions, values: [0])
            self._run(chosen, lambda actions, values: range(1, len(actions)) if values.get(0, (0, 0))[0] else [])
        values = self.values()
        return {e.meta.id: (judge(e, values.get(e.meta.id, {})) if e.meta.id in chosen else [None] * len(e.steps))
                for e in episodes}

    def values(self) -> dict[str, Values]:
        """Per continued episode and prefix length: continuations won, of those that re-enacted the prefix."""
        return _values(self._continuations())

    def _continuations(self) -> list[tuple[dict[str, Any], bool]]:
        """(tag, won) of each finished continuation in the folder."""
        return [(tag, meta.environment is not None and meta.environment.won)
                for meta in finished_episodes(self.config.out)[0]
                if isinstance(tag := meta.extra.get(ROLLOUT_KEY), dict)]

    def _run(self, chosen: dict[str, tuple[Episode, list[Action]]],
             prefixes: Callable[[list[Action], Values], Any]) -> None:
        """Run the continuations still missing for the prefix lengths `prefixes(actions, values)` names."""
        continuations = self._continuations()
        done = {(tag["of"], tag["prefix"], tag["try"]) for tag, _ in continuations}
        values = _values(continuations)
        jobs = []
        for of, (episode, actions) in chosen.items():
            run = episode.meta.environment
            assert run is not None and run.seed is not None  # replayable_actions chose only such episodes
            for k in prefixes(actions, values.get(of, {})):
                prefix = tuple(a.to_dict() for a in actions[:k])
                jobs += [(run.task, run.seed, prefix, {"of": of, "prefix": k, "try": n})
                         for n in range(self.config.rollouts) if (of, k, n) not in done]
        play(jobs, self.config.collect_config, self.on_episode, self.on_start, "continuations")


def check_policy(model: str, base_url: str | None) -> None:
    """EvaluationError unless `model` is a model folder, or a name for the endpoint at `base_url`."""
    if base_url is None and not any((Path(model) / name).is_file() for name in MODEL_FILES):
        raise EvaluationError(f"--model {model} is not a model folder (or name a model served at --base-url)")


def play(jobs: list[tuple[Any, ...]], collect_config: Callable[[tuple[str, ...]], CollectConfig],
         on_episode: Callable[[Collected], None] | None, on_start: Callable[[int], None] | None, what: str) -> None:
    """Run episode jobs that re-enact recorded steps, task by task (a worker seldom reloads its page); one
    EvaluationError naming `what` when a worker fails."""
    if not jobs:
        return
    jobs.sort(key=lambda job: job[0])
    tasks = tuple(dict.fromkeys(job[0] for job in jobs))
    summary = run_jobs(collect_config(tasks), jobs, CollectSummary(), on_episode, on_start)
    if summary.failed_workers:
        raise EvaluationError(f"the {what} failed: {summary.failed_workers[0]}")


def _values(continuations: list[tuple[dict[str, Any], bool]]) -> dict[str, Values]:
    counts: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for tag, won in continuations:
        if tag.get("reenacted"):
            count = counts[str(tag["of"])][int(tag["prefix"])]
            count[0] += won
            count[1] += 1
    return {of: {k: (wins, tried) for k, (wins, tried) in by_prefix.items()} for of, by_prefix in counts.items()}


def judge(episode: Episode, values: Values) -> list[Verdict | None]:
    """Step verdicts of a failed episode from its continuations' outcomes (see the module's docstring)."""
    acted = [i for i, step in enumerate(episode.steps) if not step.action.is_terminal]
    verdicts: list[Verdict | None] = [None] * len(episode.steps)
    won, tried = values.get(0, (0, 0))
    if not won:  # the model never wins this page: its continuations cannot tell which step lost it
        return verdicts
    lost_by_env = episode.meta.environment is not None and (episode.meta.environment.reward or 0) < 0  # the page
    # ended the episode as failed
    for k, i in enumerate(acted, 1):
        after = values.get(k, (0, 0)) if k < len(acted) else ((0, 1) if lost_by_env else (0, 0))
        if not after[1]:  # unknown after this step (not re-enacted, or the episode just stopped): say nothing more
            return verdicts
        if after[0]:
            verdicts[i] = Verdict("good", f"continuations still won {after[0]}/{after[1]} after this step",
                                  after[0] / after[1], RolloutLabeller.name)
            won, tried = after
            continue
        ended = k == len(acted)  # after the last step the page had ended the episode: lost for certain
        if not ended and (1 - won / tried) ** after[1] > LUCK:  # as likely bad luck as this step's fault
            return verdicts
        verdicts[i] = Verdict("bad", f"continuations won {won}/{tried} before this step and none after it", 0.0,
                              RolloutLabeller.name)
        for later in acted[k:]:
            verdicts[later] = Verdict("unknown", "the episode was already lost before this step", 0.5,
                                      RolloutLabeller.name)
        return verdicts
    return verdicts

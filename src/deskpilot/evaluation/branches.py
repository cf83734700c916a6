"""Which of the model's own answers would have won a failed MiniWoB++ episode, tried live on the same page. The
rollout verifier (rollouts.py) samples continuations of each prefix and can only say *that* a page was lost after
some step; a model that never wins the page by sampling teaches nothing. Here, after each prefix of the failed
episode's actions (k = 0 .. n-1) re-enacted on the same page (same task, same seed), the step that follows is made
each of the different usable answers among the model's `answers` likeliest (a branch per answer), and the model
goes on greedily from there. So every screen of the episode gets several answers played out under the same model,
and their outcomes compare answers on one screen:

- a branch that wins is an ordinary successful episode (every step good, by the environment): a success on a page
  the model had lost, found among its own next-likeliest answers — what sampling whole episodes rarely finds;
- a branch that loses where another answer on the same screen won gets its branching step labelled `bad`, the
  steps after it `unknown`: the contrast of a right and a wrong answer to one prompt that KTO (and DPO) need;
- the failed episode's own steps: an answer the branches found winning is `good`, one they found losing where
  another won is `bad` (the steps after it `unknown`), an answer no branch played is `good` when a branch after
  it still won and `bad` when none after it did though one before it had; where no answer wins, nothing is said.

Branches are ordinary episodes in their own folder, tagged with what they branch from (`extra.rollout`: `of`,
`prefix`, `answer`, `branched`), so a cut run resumes where it stopped and they are training data as they stand."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deskpilot.core.action_text import split_response
from deskpilot.core.actions import Action
from deskpilot.core.episode import Episode, label_steps, list_episodes, read_episode
from deskpilot.core.errors import DeskpilotError, EvaluationError
from deskpilot.core.verdict import Verdict

from .collect import ROLLOUT_KEY, CollectConfig, Collected
from .rollouts import check_policy, play, replayable_actions


@dataclass(frozen=True)
class BranchConfig:
    """What `deskpilot label --verifier branch` was asked for."""

    model: str  # a som-text model folder, or a model's name at `base_url`
    out: Path  # the branches' folder
    answers: int = 3  # the model's likeliest replies weighed at each screen; each different usable one is a branch
    temperature: float = 0.0  # the model going on after a branch's answer (an endpoint's answers differ only if > 0)
    workers: int = 1
    base_url: str | None = None
    max_actions: int = 6  # longer failed episodes stay unlabelled: their screens would cost too many branches
    ray: str | None = None  # the workers as Ray actors (auto, or a cluster's address); None: local processes

    def collect_config(self, tasks: tuple[str, ...]) -> CollectConfig:
        return CollectConfig(tasks, 0, self.out, policy="model", model=self.model, base_url=self.base_url,
                             temperature=self.temperature, workers=self.workers, frames="none", ray=self.ray)


@dataclass
class Played:
    """The branches played from one screen of one failed episode: the answers that won and those that lost."""

    won: set[str]
    lost: set[str]


Outcomes = dict[int, Played]  # prefix length (the screen after that many re-enacted actions) -> its branches


class BranchLabeller:
    """Plays the branches of a set of failed episodes (`label`) and turns their outcomes into step verdicts, for
    those episodes and for the branches themselves."""

    name = "branch"

    def __init__(self, config: BranchConfig, on_episode: Callable[[Collected], None] | None = None,
                 on_start: Callable[[int], None] | None = None):
        if config.answers < 2:
            raise EvaluationError("--answers must be at least 2: branches compare answers on one screen")
        check_policy(config.model, config.base_url)
        self.config = config
        self.on_episode, self.on_start = on_episode, on_start

    def label(self, episodes: list[Episode]) -> dict[str, list[Verdict | None]]:
        """Verdicts for every step of each episode (by episode id); None where a step gets none. The branches'
        own verdicts are written into their episodes."""
        chosen = {e.meta.id: (e, actions) for e in episodes
                  if (actions := replayable_actions(e, self.config.max_actions)) is not None}
        if chosen:
            self.config.out.mkdir(parents=True, exist_ok=True)
            self._run(chosen)
        branches = self._branches()
        outcomes = _outcomes(branches)
        for episode, tag in branches:
            verdicts = judge_branch(episode, tag, outcomes.get(str(tag["of"]), {}))
            if verdicts:
                label_steps(episode.directory, verdicts)
        return {e.meta.id: (judge(e, outcomes.get(e.meta.id, {})) if e.meta.id in chosen else [None] * len(e.steps))
                for e in episodes}

    def _branches(self) -> list[tuple[Episode, dict]]:
        """(episode, tag) of each finished branch in the folder."""
        found = []
        for directory in list_episodes(self.config.out):
            try:
                episode = read_episode(directory)
            except DeskpilotError:
                continue
            tag = episode.meta.extra.get(ROLLOUT_KEY)
            if _won(episode) is not None and isinstance(tag, dict) and "answer" in tag:
                found.append((episode, tag))
        return found

    def _run(self, chosen: dict[str, tuple[Episode, list[Action]]]) -> None:
        """Run the branches still missing after every prefix of every chosen episode, rank by rank: an answer rank
        is played on a screen only where the rank before it was there to play (a screen seldom has all of them)."""
        config = self.config
        for rank in range(config.answers):
            tags = [tag for _, tag in self._branches()]
            done = {(str(tag["of"]), int(tag["prefix"]), int(tag["answer"])) for tag in tags}
            playable = {(str(tag["of"]), int(tag["prefix"])) for tag in tags
                        if int(tag["answer"]) == rank - 1 and tag.get("branched")}
            jobs = []
            for of, (episode, actions) in chosen.items():
                run = episode.meta.environment
                assert run is not None and run.seed is not None  # replayable_actions chose only such episodes
                jobs += [(run.task, run.seed, tuple(a.to_dict() for a in actions[:k]),
                          {"of": of, "prefix": k, "answer": rank, "answers": config.answers})
                         for k in range(len(actions))
                         if (of, k, rank) not in done and (rank == 0 or (of, k) in playable)]
            play(jobs, config.collect_config, self.on_episode, self.on_start, "branches")


def _branch_call(episode: Episode, tag: dict) -> str | None:
    """The answer a branch acted on after its prefix, or None when it could not act on one."""
    k = int(tag["prefix"])
    if not tag.get("reenacted") or not tag.get("branched") or k >= len(episode.steps):
        return None
    return episode.steps[k].thought


def _outcomes(branches: list[tuple[Episode, dict]]) -> dict[str, Outcomes]:
    found: dict[str, Outcomes] = defaultdict(dict)
    for episode, tag in branches:
        if (call := _branch_call(episode, tag)) is None:
            continue
        played = found[str(tag["of"])].setdefault(int(tag["prefix"]), Played(set(), set()))
        (played.won if _won(episode) else played.lost).add(call)
    return dict(found)


def _won(episode: Episode) -> bool | None:
    """Whether the environment scored the episode a win; None where it did not score it."""
    run = episode.meta.environment
    return None if run is None or run.reward is None else run.won


def judge_branch(episode: Episode, tag: dict, outcomes: Outcomes) -> dict[int, Verdict]:
    """Verdicts (step index -> Verdict) for a lost branch whose screen another answer won: its branching step
    bad, the steps after it unknown. A won branch keeps the environment's verdicts (all good); so does a lost one
    where no answer won."""
    call = _branch_call(episode, tag)
    played = outcomes.get(int(tag["prefix"]))
    if call is None or played is None or _won(episode) or not played.won - {call}:
        return {}
    k = int(tag["prefix"])
    winner = sorted(played.won)[0]
    verdicts = {episode.steps[k].index: Verdict(
        "bad", f"this answer lost with the model going on, where {winner} won on the same screen", 0.0,
        BranchLabeller.name)}
    for step in episode.steps[k + 1:]:
        if not step.action.is_terminal:
            verdicts[step.index] = Verdict("unknown", "the branch was already lost before this step", 0.5,
                                           BranchLabeller.name)
    return verdicts


def judge(episode: Episode, outcomes: Outcomes) -> list[Verdict | None]:
    """Step verdicts of a failed episode from the branches played on its screens (see the module's docstring)."""
    acted = [i for i, step in enumerate(episode.steps) if not step.action.is_terminal]
    verdicts: list[Verdict | None] = [None] * len(episode.steps)
    lost_by_env = episode.meta.environment is not None and (episode.meta.environment.reward or 0) < 0  # the page
    # ended the episode as failed
    for k, i in enumerate(acted):
        here = outcomes.get(k)
        if here is None:  # not played (the prefix could not be re-enacted): say nothing more
            return verdicts
        call = split_response(episode.steps[i].thought)[1]
        after = outcomes.get(k + 1)
        if call in here.won:
            verdicts[i] = Verdict("good", "this answer won with the model going on", 1.0, BranchLabeller.name)
            continue
        if not here.won:  # no answer wins from this screen: nothing to compare this one with
            continue
        if call in here.lost:
            reason = f"this answer lost with the model going on, where {sorted(here.won)[0]} won on the same screen"
        elif after is not None and after.won:
            verdicts[i] = Verdict("good", "an answer after this step still won", 1.0, BranchLabeller.name)
            continue
        elif after is not None or (k == len(acted) - 1 and lost_by_env):
            reason = f"no answer won after this step, where {sorted(here.won)[0]} won before it"
        else:  # the screen after it was not played: unknown
            return verdicts
        verdicts[i] = Verdict("bad", reason, 0.0, BranchLabeller.name)
        for later in acted[k + 1:]:
            verdicts[later] = Verdict("unknown", "the episode was already lost before this step", 0.5,
                                      BranchLabeller.name)
        return verdicts
    return verdicts

"""Rounds of self-improvement (`deskpilot improve`): each round collects episodes with the current model (sampling,
plus a little exploration), labels every step (the environment where it is sure, else the heuristic's `bad`),
trains the next model on everything collected so far (SFT, KTO or GRPO; plus earlier folders named to replay, so a
round does not forget what its own data lacks), and scores it live on held-out seeds that no round ever collects.
Round 0 scores the starting model. Every round is scored on the same held-out episodes (tasks and seeds), so a
round is compared with the start episode by episode (stats.py): it replaces the start as the model to use only
when it wins significantly more of those episodes than it loses.

Everything lands under one folder, and each stage is resumable, so a cut session loses at most the stage in flight:

    OUT/round-1/episodes/   collected by the round's model      OUT/round-1/model/   trained from it
    OUT/round-1/eval/       its held-out episodes               OUT/rounds.json      one record per round
    OUT/round-1/rollouts/   with --label rollout: continuations of the failed episodes (rollouts.py), or with
                            --label branch their screens' other answers played out (branches.py); trained on
    OUT/rounds.png          mean success (and per task) by round

Each stage is also a command of its own (`collect miniwob --policy model`, `label`, `train`, `collect miniwob
--policy model` on the held-out seeds), so a round can be run by hand."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from deskpilot.core.episode import Episode, list_episodes, read_episode
from deskpilot.core.verdict import EnvironmentRun
from deskpilot.core.errors import DeskpilotError, EvaluationError

from deskpilot.labelling.registry import VerifierOptions, make, names

from . import labellers  # noqa: F401 - offers rollout and branch to the registry
from .collect import CollectConfig, collect_miniwob, comma_separated
from .stats import paired, wilson

log = logging.getLogger(__name__)
METHODS = ("sft", "kto", "grpo")
COLLECTION_LABELS = "env+heuristic"  # what collection labels with; any other verifier labels the round again
ROUNDS_FILE = "rounds.json"
PLOT_FILE = "rounds.png"


@dataclass(frozen=True)
class RoundsConfig:
    """What `deskpilot improve` was asked for; each field with its help and its one default, which the command's
    options are made from."""

    model: str = field(metadata={"help": "the starting model folder (som-text, trained)"})
    tasks: tuple[str, ...] = field(metadata={"help": "comma-separated MiniWoB tasks to collect and train on",
                                             "cli": (str, comma_separated)})
    out: Path = field(metadata={"flag": "--out", "help": "folder for every round's data, models and scores (a re-run "
                                                         "resumes)"})
    rounds: int = field(default=2, metadata={"help": "rounds after the start", "typer": {"min": 1}})
    method: str = field(default="kto", metadata={"help": "kto | grpo | sft"})
    episodes_per_round: int = field(default=20, metadata={"help": "episodes per task and round", "typer": {"min": 1}})
    workers: int = field(default=1, metadata={"help": "parallel collection workers", "typer": {"min": 1, "max": 64}})
    ray: str | None = field(default=None, metadata={
        "help": "run the collection workers (and the rollout or branch labellers') as Ray actors: auto or a "
                "cluster's address, as for `collect miniwob --ray`"})
    eval_tasks: tuple[str, ...] = field(default=(), metadata={"help": "tasks to score (default: --tasks)",
                                                              "cli": (Optional[str], comma_separated)})
    eval_episodes: int = field(default=5, metadata={"help": "held-out episodes per task and round",
                                                    "typer": {"min": 1}})
    eval_seed: int = field(default=1000, metadata={"help": "first held-out seed (never collected)"})
    seed: int = field(default=10_000, metadata={"help": "first collection seed"})  # see round_seeds and focus_seed
    temperature: float = field(default=0.7, metadata={"help": "sampling while collecting",
                                                      "typer": {"min": 0.0, "max": 2.0}})
    epsilon: float = field(default=0.05, metadata={"help": "share of random steps while collecting",
                                                   "typer": {"min": 0.0, "max": 1.0}})
    lora: bool = field(default=True, metadata={"flag": "--lora/--full", "help": "train a LoRA adapter (default) or "
                                                                                "all weights"})
    max_steps: int | None = field(default=None, metadata={"help": "optimizer steps per round"})
    train_config: Path | None = field(default=None, metadata={
        "flag": "--config", "help": "training settings (JSON/YAML), as for `train`"})
    label: str = field(default="env+heuristic", metadata={
        "help": "env+heuristic | rollout (also name the step that lost each failed episode, from continuations) | "
                "branch (play the model's other answers on each screen of a failed episode) | any verifier of "
                "`deskpilot label`"})
    rollouts: int = field(default=2, metadata={"help": "continuations per prefix, with --label rollout",
                                               "typer": {"min": 1}})
    answers: int = field(default=3, metadata={"help": "answers played out per screen, with --label branch",
                                              "typer": {"min": 2}})
    replay: tuple[Path, ...] = field(default=(), metadata={
        "help": "a folder of earlier episodes every round also trains on (repeatable)",
        "cli": (Optional[list[Path]], tuple)})  # experience replay
    focus: int = field(default=0, metadata={"help": "more episodes per round for each task the round's collection "
                                                    "both solved and failed", "typer": {"min": 0}})

    @property
    def collection_seeds(self) -> range:
        """Every seed any round collects."""
        return range(self.seed, self.seed + self.rounds * (self.episodes_per_round + self.focus))

    def round_seeds(self, number: int) -> range:
        """The seeds of round `number`'s own episodes; its focused ones follow (so more rounds later resume)."""
        start = self.seed + (number - 1) * (self.episodes_per_round + self.focus)
        return range(start, start + self.episodes_per_round)

    def focus_seed(self, number: int) -> int:
        """The first seed of round `number`'s focused episodes."""
        return self.round_seeds(number).stop

    @property
    def scored_tasks(self) -> tuple[str, ...]:
        return self.eval_tasks or self.tasks

    def check(self) -> None:
        """One-line errors for settings that cannot work, before anything runs."""
        if self.method not in METHODS:
            raise EvaluationError(f"unknown method {self.method!r}; known: {', '.join(METHODS)}")
        if self.label not in names():
            raise EvaluationError(f"unknown labeller {self.label!r}; known: {', '.join(names())}")
        if self.rounds < 1 or self.episodes_per_round < 1 or self.eval_episodes < 1 or self.focus < 0:
            raise EvaluationError("--rounds, --episodes-per-round and --eval-episodes must be at least 1, "
                                  "--focus at least 0")
        for folder in self.replay:
            if not folder.is_dir():
                raise EvaluationError(f"--replay {folder} is not a folder of episodes")
        if not (Path(self.model) / "config.json").is_file():
            raise EvaluationError(f"--model {self.model} is not a model folder (made by `deskpilot model init` "
                                  "and trained, or a round's model)")
        collected = self.collection_seeds
        scored = range(self.eval_seed, self.eval_seed + self.eval_episodes)
        if collected.start < scored.stop and scored.start < collected.stop:
            raise EvaluationError(f"collection seeds {collected.start}-{collected.stop - 1} overlap the held-out "
                                  f"seeds {scored.start}-{scored.stop - 1}: move --seed or --eval-seed")


@dataclass
class RoundRecord:
    """One round: the model it ends with, what it collected and trained on, and the model's held-out scores."""

    round: int
    model: str
    collected: dict[str, Any] = field(default_factory=dict)  # episodes, steps, success_rate, labels
    trained: dict[str, Any] = field(default_factory=dict)  # steps, seconds, loss; or {"skipped": why}
    scores: dict[str, float] = field(default_factory=dict)  # task -> success rate on the held-out seeds
    mean_success: float = 0.0
    interval: tuple[float, float] = (0.0, 0.0)  # 95 % Wilson interval of the success over all held-out episodes
    versus_start: dict[str, Any] = field(default_factory=dict)  # rounds >= 1: won, lost, episodes, p (McNemar)


def best_round(records: list[RoundRecord]) -> RoundRecord:
    """The round whose model to use: the start, unless later rounds win significantly more of the same held-out
    episodes than the start does (exact McNemar, p < 0.05); then the one of those with the highest mean success. A
    round that is better only within the noise does not replace the model it started from."""
    better = [r for r in records[1:] if r.versus_start.get("better")]
    return max(better, key=lambda r: r.mean_success) if better else records[0]


def _collected(folder: Path, policy: str | None, seeds: range | None) -> Iterator[Episode]:
    """The finished, scored episodes in `folder` (only those of `policy` and at `seeds` when given)."""
    for directory in list_episodes(folder):
        try:
            episode = read_episode(directory)
        except DeskpilotError:
            continue
        run = episode.meta.environment
        if run is None or run.reward is None or (policy is not None and run.policy != policy):
            continue
        if seeds is not None and (run.seed if run.seed is not None else -1) not in seeds:
            continue
        yield episode


def folder_summary(folder: Path, policy: str | None = None, seeds: range | None = None) -> dict[str, Any]:
    """What a folder of collected episodes holds (every finished episode, this run's or an earlier one's; only
    those of `policy` and at `seeds` when given): episodes, steps, success rate, labels, and success per task."""
    per_task: dict[str, list[float]] = {}
    labels: Counter[str] = Counter()
    steps = 0
    for episode in _collected(folder, policy, seeds):
        run = _scored(episode)
        per_task.setdefault(run.task, []).append(run.reward or 0.0)
        acted = [s for s in episode.steps if not s.action.is_terminal]
        steps += len(acted)
        labels.update(s.verification.label if s.verification else "unknown" for s in acted)
    rewards = [r for task in per_task.values() for r in task]
    return {"episodes": len(rewards), "steps": steps,
            "success_rate": round(sum(r > 0 for r in rewards) / len(rewards), 4) if rewards else 0.0,
            "labels": {k: labels.get(k, 0) for k in ("good", "bad", "unknown")},
            "tasks": task_rates({task: [r > 0 for r in rs] for task, rs in per_task.items()})}


def task_rates(per_task: dict[str, list[bool]]) -> dict[str, float]:
    """Success rate per task, tasks in name order."""
    return {task: round(sum(won) / len(won), 4) for task, won in sorted(per_task.items())}


def outcomes(folder: Path, policy: str | None = None) -> dict[tuple[str, int], bool]:
    """Success of each (task, seed) episode in `folder` (only those of `policy` when given): what two models scored
    on the same seeds are compared by."""
    return {(run.task, run.seed if run.seed is not None else -1): run.won
            for run in (_scored(e) for e in _collected(folder, policy, None))}


def _scored(episode: Episode) -> EnvironmentRun:
    """The environment's score of an episode `_collected` gave (it has one)."""
    assert episode.meta.environment is not None
    return episode.meta.environment


def mixed_tasks(folder: Path, policy: str, seeds: range) -> list[str]:
    """The tasks whose episodes of `policy` at `seeds` in `folder` both succeeded and failed."""
    return [task for task, rate in folder_summary(folder, policy, seeds)["tasks"].items() if 0 < rate < 1]


class Rounds:
    """Runs the rounds of one `RoundsConfig`; `on_stage(round, stage)` hears each stage begin."""

    def __init__(self, config: RoundsConfig, on_stage: Callable[[int, str], None] | None = None):
        config.check()
        self.config = config
        self.on_stage = on_stage or (lambda number, stage: None)
        self.records: list[RoundRecord] = []
        self.start_outcomes: dict[tuple[str, int], bool] = {}  # the starting model's held-out episodes

    def run(self) -> list[RoundRecord]:
        config = self.config
        config.out.mkdir(parents=True, exist_ok=True)
        model = config.model
        self.records = [RoundRecord(0, model)]
        self._score(self.records[0], config.out / "round-0")
        for number in range(1, config.rounds + 1):
            folder = config.out / f"round-{number}"
            record = RoundRecord(number, model)
            self.on_stage(number, "collect")
            record.collected = self._collect(model, number, folder / "episodes")
            self.on_stage(number, "train")
            record.model, record.trained = self._train(model, number, folder / "model")
            model = record.model
            self._score(record, folder)
            self.records.append(record)
        return self.records

    def _collect(self, model: str, number: int, folder: Path) -> dict[str, Any]:
        config = self.config
        collect = CollectConfig(config.tasks, config.episodes_per_round, folder,
                                seed=config.round_seeds(number).start, policy="model",
                                model=model, epsilon=config.epsilon, temperature=config.temperature,
                                workers=config.workers, frames="none",
                                ray=config.ray)
        self._raise_failures(collect_miniwob(collect), f"round {number}'s collection")
        focused = self._focus(model, number, folder, collect.policy_name)
        if config.label != COLLECTION_LABELS:
            self.on_stage(number, "label")
            self._label_again(model, folder)
        found = folder_summary(folder, collect.policy_name)
        found.pop("tasks")
        return {**found, "focused": focused} if config.focus else found

    def _focus(self, model: str, number: int, folder: Path, policy: str) -> list[str]:
        """Spend `focus` more episodes on each task the round's collection both solved and failed (dynamic sampling,
        as in DAPO: a task the model always solves or never does teaches the next model nothing new, while one it
        solves sometimes yields successes to learn from); the tasks chosen."""
        config = self.config
        if not config.focus:
            return []
        mixed = mixed_tasks(folder, policy, config.round_seeds(number))
        if mixed:
            self.on_stage(number, f"focus on {len(mixed)} task(s)")
            more = CollectConfig(tuple(mixed), config.focus, folder, seed=config.focus_seed(number), policy="model",
                                 model=model, epsilon=config.epsilon,
                                 temperature=config.temperature, workers=config.workers, frames="none",
                                 ray=config.ray)
            self._raise_failures(collect_miniwob(more), f"round {number}'s focused collection")
        return mixed

    def _label_again(self, model: str, folder: Path) -> None:
        """Label the steps of the episodes in `folder` with the round's verifier (by name, from the registry): the
        playing ones keep what they play beside it, in rollouts/."""
        from deskpilot.core.episode import label_steps

        config = self.config
        episodes = [read_episode(directory) for directory in list_episodes(folder)]
        verifier = make(config.label, VerifierOptions(
            model=model, out=folder.parent / "rollouts", rollouts=config.rollouts, answers=config.answers,
            temperature=config.temperature if config.label == "rollout" else None, workers=config.workers,
            ray=config.ray))
        verdicts = verifier.label(episodes)
        for episode in episodes:
            chosen = {step.index: verdict
                      for step, verdict in zip(episode.steps, verdicts[episode.meta.id]) if verdict is not None}
            if chosen:
                label_steps(episode.directory, chosen)

    def _train(self, model: str, number: int, out: Path) -> tuple[str, dict[str, Any]]:
        """The round's model, trained on the replayed folders and every round's episodes so far; the current model
        again, with the reason, when there is nothing to train on (e.g. SFT and no good step yet)."""
        from deskpilot.training.jobs import TrainRequest
        from deskpilot.training.trainers import RUN_FILE, train

        config = self.config
        if (out / RUN_FILE).is_file():  # trained before this run was cut: keep it
            return str(out), _trained(json.loads((out / RUN_FILE).read_text()))
        data = [*config.replay] + [config.out / f"round-{n}" / part for n in range(1, number + 1)
                                   for part in ("episodes", "rollouts") if (config.out / f"round-{n}" / part).is_dir()]
        request = TrainRequest(config.method, model, data, out, lora=config.lora, max_steps=config.max_steps,
                               config=config.train_config, family="screen", mode="som-text")
        try:
            result = train(request)
        except DeskpilotError as exc:
            log.warning("round %d trains nothing: %s", number, exc)
            return model, {"skipped": str(exc)}
        return str(out), _trained(asdict(result)) if result else {}

    def _score(self, record: RoundRecord, folder: Path) -> None:
        """Score the record's model greedily on the held-out seeds, then write every record so far."""
        config = self.config
        self.on_stage(record.round, "eval")
        scored = CollectConfig(config.scored_tasks, config.eval_episodes, folder / "eval", seed=config.eval_seed,
                               policy="model", model=record.model, workers=config.workers, frames="none",
                               ray=config.ray)
        self._raise_failures(collect_miniwob(scored), f"round {record.round}'s evaluation")
        found = outcomes(folder / "eval", scored.policy_name)
        per_task: dict[str, list[bool]] = {}
        for (task, _seed), won in found.items():
            per_task.setdefault(task, []).append(won)
        record.scores = task_rates(per_task)
        record.mean_success = round(sum(record.scores.values()) / len(record.scores), 4) if record.scores else 0.0
        low, high = wilson(sum(found.values()), len(found))
        record.interval = (round(low, 4), round(high, 4))
        if record.round == 0:
            self.start_outcomes = found
        else:
            record.versus_start = paired(self.start_outcomes, found).to_dict()
        self._write([*self.records[:record.round], record])

    def _write(self, records: list[RoundRecord]) -> None:
        config = self.config
        document = {"method": config.method, "tasks": list(config.tasks), "eval_tasks": list(config.scored_tasks),
                    "eval_seeds": [config.eval_seed, config.eval_seed + config.eval_episodes - 1],
                    "rounds": [asdict(r) for r in records]}
        best = best_round(records)
        document.update(best_round=best.round, best_model=best.model)
        path = config.out / ROUNDS_FILE
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(document, indent=2))
        temporary.replace(path)
        plot_rounds(records, config.out / PLOT_FILE)

    @staticmethod
    def _raise_failures(summary: Any, what: str) -> None:
        if summary.failed_workers:
            raise EvaluationError(f"{what} failed: {summary.failed_workers[0]}")


def _trained(result: dict[str, Any]) -> dict[str, Any]:
    metrics = result.get("metrics", {})
    return {"method": result.get("method"), "steps": result.get("steps"), "seconds": result.get("seconds"),
            "data": result.get("data"), "loss": metrics.get("train_loss")}


def plot_rounds(records: list[RoundRecord], path: Path) -> Path:
    """Mean held-out success by round (bold) with its 95 % interval (shaded), and each task's (thin; named in the
    legend, beside the axes, only where it changed between rounds, so a long task list stays readable)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure, axis = plt.subplots(figsize=(7.5, 3.6))
    numbers = [r.round for r in records]
    for task in sorted({t for r in records for t in r.scores}):
        rates = [r.scores.get(task, float("nan")) for r in records]
        changed = len({rate for rate in rates if rate == rate}) > 1
        axis.plot(numbers, rates, linewidth=0.8, alpha=0.6 if changed else 0.25,
                  color=None if changed else "grey", label=task if changed else None)
    axis.fill_between(numbers, [r.interval[0] for r in records], [r.interval[1] for r in records], color="black",
                      alpha=0.12, linewidth=0, label="95 % interval")
    axis.plot(numbers, [r.mean_success for r in records], color="black", linewidth=2.2, marker="o", label="mean")
    axis.set_xlabel("round (0: the starting model)")
    axis.set_ylabel("held-out success")
    axis.set_ylim(-0.05, 1.05)
    axis.set_xticks(numbers)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path

"""Collecting labelled episodes on MiniWoB++ at scale: a policy (the offline planner, random exploration, or a model,
each with optional random steps mixed in) runs many episodes of many tasks, in parallel worker processes that each
own a virtual display and a browser. Every episode is the usual Episode with the page's reward, its steps labelled
by the environment and, where the environment cannot tell (a failed episode), by the heuristic verifier.

A re-run into the same folder only adds the (task, seed, policy) episodes that are not there yet, so collection
can span several sittings; a worker that dies loses at most its episode in flight, which the next run redoes.
The same workers also run continuations: a recorded episode's first steps re-enacted, then the model (rollouts.py).

With `ray` set, the workers are Ray actors instead of local processes — on a local Ray instance or on a cluster —
each still owning its display and browser; an actor that dies is restarted once and its episode in flight retried."""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import random
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from deskpilot.core.episode import (EpisodeMeta, FramePolicy, delete_episode, is_being_written, list_episodes,
                                    prune_frames, read_episode, rewrite_meta)
from deskpilot.core.errors import DeskpilotError, EvaluationError

from .miniwob.tasks import COLLECT_TASKS

log = logging.getLogger(__name__)
ESCAPES = re.compile(r"\x1b\[[0-9;]*m")  # the colours Ray puts in its messages
ROLLOUT_KEY = "rollout"  # episode.json `extra` key of a continuation of another episode's steps (rollouts.py)
POLICIES = ("offline", "explore", "model", "planner")
WORKER_POLL_SECONDS = 0.5


def comma_separated(text: str) -> tuple[str, ...]:
    """A comma-separated list of tasks as the command line gives it; an EvaluationError when it names none."""
    tasks = tuple(t.strip() for t in text.split(",") if t.strip())
    if not tasks:
        raise EvaluationError("--tasks names no task")
    return tasks


def frame_policy(text: str) -> FramePolicy:
    """Which frames a collection keeps, as the command line gives it."""
    if text not in ("all", "ends", "none"):
        raise EvaluationError("--frames must be all, ends or none")
    return text  # type: ignore[return-value]


@dataclass(frozen=True)
class CollectConfig:
    """What `deskpilot collect miniwob` was asked for (sent to every worker process as is); each field with its help
    and its one default, which the command's options are made from."""

    tasks: tuple[str, ...] = field(default=COLLECT_TASKS, metadata={
        "help": "comma-separated MiniWoB tasks (default: the collection set, see `deskpilot collect tasks`)",
        "cli": (Optional[str], comma_separated)})
    episodes: int = field(default=10, metadata={"help": "episodes per task", "typer": {"min": 1}})
    out: Path = field(default=Path("episodes/collected"), metadata={
        "flag": "--out", "help": "episodes folder (a re-run adds to it)"})
    seed: int = field(default=0, metadata={"help": "seed of the first episode; episode i uses seed+i"})
    policy: str = field(default="offline", metadata={"help": "offline | explore | model | planner (the planner the "
                                                             "settings choose, as `deskpilot run` builds it)"})
    model: str | None = field(default=None, metadata={"help": "model folder for --policy model (or a model's name "
                                                              "at --base-url)"})
    base_url: str | None = field(default=None, metadata={"help": "an OpenAI-compatible endpoint serving --model "
                                                                 "(vLLM, Ollama, ...), asked in som-text mode"})
    epsilon: float = field(default=0.0, metadata={"help": "share of steps replaced by random exploration",
                                                  "typer": {"min": 0.0, "max": 1.0}})
    temperature: float = field(default=0.0, metadata={"help": "sampling temperature of --policy model",
                                                      "typer": {"min": 0.0, "max": 2.0}})
    workers: int = field(default=1, metadata={"help": "parallel workers, each with its own display and browser",
                                              "typer": {"min": 1, "max": 64}})
    frames: FramePolicy = field(default="all", metadata={
        "help": "frames kept on disk: all | ends | none (default: all)", "cli": (Optional[str], frame_policy)})
    scale: float = field(default=2.0, metadata={"help": "Chromium's device scale factor"})
    ray: str | None = field(default=None, metadata={
        "help": "run the workers as Ray actors: auto (the cluster RAY_ADDRESS names, else a local one) or a "
                "cluster's address (host:port, ray://host:10001); deskpilot must be installed on its machines"})
    pack: bool = field(default=True, metadata={"help": "the MiniWoB rule pack on while an episode runs (--no-pack: "
                                                       "off, the agent reads tasks as a person's agent does)"})
    settings: dict[str, Any] = field(default_factory=dict)  # further settings for each worker's agent

    @property
    def policy_name(self) -> str:
        """The name a collected episode records: the policy, and its share of random steps when there is one."""
        return self.policy + (f"+epsilon{self.epsilon:g}" if self.epsilon and self.policy != "explore" else "")


@dataclass(frozen=True)
class Collected:
    """One finished episode, as a worker reports it."""

    task: str
    seed: int
    raw_reward: float
    steps: int
    labels: dict[str, int]
    seconds: float
    utterance: str = ""  # the task as the page said it (secrets scrubbed)
    reward: float = 0.0  # discounted by time, as MiniWoB reports it
    outcome: str = ""  # how the agent's run ended, and why
    detail: str = ""
    checked: bool | None = None  # the agent's own goal check (None where it did not run)
    episode: str = ""  # its folder


@dataclass
class CollectSummary:
    episodes: int = 0
    steps: int = 0
    successes: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    skipped: int = 0  # already in the folder from an earlier run
    removed: int = 0  # unfinished episodes of a crashed run, removed to be collected again
    failed_workers: list[str] = field(default_factory=list)
    seconds: float = 0.0
    per_task: dict[str, list[float]] = field(default_factory=dict)

    def add(self, episode: Collected) -> None:
        self.episodes += 1
        self.steps += episode.steps
        self.successes += episode.raw_reward > 0
        self.labels.update(episode.labels)
        self.per_task.setdefault(episode.task, []).append(episode.raw_reward)

    def as_dict(self) -> dict[str, Any]:
        return {"episodes": self.episodes, "steps": self.steps,
                "success_rate": self.successes / self.episodes if self.episodes else 0.0,
                "labels": {k: self.labels.get(k, 0) for k in ("good", "bad", "unknown")},
                "skipped": self.skipped, "removed": self.removed, "failed_workers": self.failed_workers,
                "seconds": round(self.seconds, 1),
                "steps_per_second": round(self.steps / self.seconds, 3) if self.seconds else 0.0,
                "tasks": {task: {"episodes": len(r), "success_rate": sum(v > 0 for v in r) / len(r)}
                          for task, r in sorted(self.per_task.items())}}


def pending_jobs(config: CollectConfig) -> tuple[list[tuple[str, int]], int, int]:
    """(the (task, seed) episodes still to collect, how many are already there, how many unfinished ones from a
    crashed run were removed). Jobs run task by task, so a worker seldom reloads its page."""
    finished, removed = finished_episodes(config.out)
    done = {(run.task, run.seed if run.seed is not None else -1) for meta in finished
            if (run := meta.environment) is not None and run.policy == config.policy_name
            and ROLLOUT_KEY not in meta.extra}
    wanted = [(task, config.seed + n) for task in config.tasks for n in range(config.episodes)]
    pending = [job for job in wanted if job not in done]
    return pending, len(wanted) - len(pending), removed


def finished_episodes(out: Path) -> tuple[list[EpisodeMeta], int]:
    """The records of the scored MiniWoB episodes in `out`, and how many unfinished ones (a worker died with them
    in flight) were removed, to be collected again."""
    finished: list[EpisodeMeta] = []
    removed = 0
    for directory in list_episodes(out):
        try:
            meta = read_episode(directory).meta
        except DeskpilotError:
            continue
        if meta.environment is not None and meta.environment.reward is not None:
            finished.append(meta)
        elif meta.app and meta.app.startswith("miniwob/") and not is_being_written(directory):
            delete_episode(directory)
            removed += 1
    return finished, removed


def collect_miniwob(config: CollectConfig, on_episode: Callable[[Collected], None] | None = None,
                    on_start: Callable[[int], None] | None = None) -> CollectSummary:
    """Collect every pending episode with `config.workers` worker processes; returns the summary. `on_start` gets
    the number of episodes to collect, `on_episode` each one as it finishes."""
    if config.policy not in POLICIES:
        raise EvaluationError(f"unknown policy {config.policy!r}; known: {', '.join(POLICIES)}")
    if config.policy == "model" and not config.model:
        raise EvaluationError("--policy model needs --model (a folder made by `deskpilot model init` and trained)")
    config.out.mkdir(parents=True, exist_ok=True)
    jobs, skipped, removed = pending_jobs(config)
    return run_jobs(config, jobs, CollectSummary(skipped=skipped, removed=removed), on_episode, on_start)


def run_jobs(config: CollectConfig, jobs: list[tuple[Any, ...]], summary: CollectSummary,
             on_episode: Callable[[Collected], None] | None = None,
             on_start: Callable[[int], None] | None = None) -> CollectSummary:
    """Run episode jobs — (task, seed), or (task, seed, prefix actions, tag) for a continuation of recorded steps
    (see `Worker.collect`) — on `config.workers` worker processes; adds them to `summary` and returns it."""
    if on_start is not None:
        on_start(len(jobs))
    if not jobs:
        return summary
    if config.ray:
        return run_jobs_on_ray(config, jobs, summary, on_episode)
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # each worker imports X clients only after its DISPLAY is set
    job_queue: Any = context.Queue()
    results: Any = context.Queue()
    for job in jobs:
        job_queue.put(job)
    count = max(1, min(config.workers, len(jobs)))
    for _ in range(count):
        job_queue.put(None)
    workers = [context.Process(target=work, args=(config, job_queue, results, n), name=f"collect-{n}", daemon=True)
               for n in range(count)]
    for process in workers:
        process.start()
    main_thread = threading.current_thread() is threading.main_thread()  # only it may set signal handlers
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit("collection terminated")) if main_thread else None
    completed = False
    try:
        finished: set[int] = set()
        while len(finished) < count:
            try:
                kind, worker, payload = results.get(timeout=WORKER_POLL_SECONDS)
            except queue.Empty:
                for number, process in enumerate(workers):
                    if number not in finished and not process.is_alive():
                        finished.add(number)
                        summary.failed_workers.append(f"worker {number} died (exit code {process.exitcode})")
                continue
            if kind == "episode":
                episode = Collected(**payload)
                summary.add(episode)
                if on_episode is not None:
                    on_episode(episode)
            elif kind == "failed":
                summary.failed_workers.append(f"worker {worker}: {payload}")
                finished.add(worker)
            elif kind == "done":
                finished.add(worker)
        completed = True
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        if not completed:  # jobs nobody will take: do not wait at exit to flush them into the pipe
            job_queue.cancel_join_thread()
        for process in workers:  # an interrupted run ends its workers, which close their browsers and displays
            if not completed and process.is_alive():
                process.terminate()
            process.join(timeout=15)
            if process.is_alive():
                process.kill()
    summary.seconds = time.perf_counter() - started
    return summary


class WorkerActor:
    """A Worker as a Ray actor: its display and browser made when the actor starts, closed with `close`."""

    def __init__(self, config: CollectConfig, number: int):
        self.worker = Worker(config, number).__enter__()

    def collect(self, job: tuple[Any, ...]) -> dict[str, Any]:
        return asdict(self.worker.collect(*job))

    def close(self) -> None:
        self.worker.__exit__(None, None, None)


def run_jobs_on_ray(config: CollectConfig, jobs: list[tuple[Any, ...]], summary: CollectSummary,
                    on_episode: Callable[[Collected], None] | None = None) -> CollectSummary:
    """`run_jobs` with Ray actors for workers (config.ray: auto, or a cluster's address). Each actor takes its next
    job when it hands back an episode; one that dies is restarted once by Ray and its job retried, and one that
    dies again, or whose job raises, takes no more jobs (its episode in flight is removed by the next run)."""
    try:
        import ray
        from ray.exceptions import RayActorError, RayTaskError
    except ImportError:
        raise EvaluationError("--ray needs Ray: pip install 'deskpilot[scale]'") from None
    started = time.perf_counter()
    count = max(1, min(config.workers, len(jobs)))
    owned = not ray.is_initialized()
    if owned:
        try:
            if config.ray == "auto" and not os.environ.get("RAY_ADDRESS"):
                # A local instance gets a CPU per worker even on a smaller machine (a worker mostly waits on its
                # page) and a small object store: episodes go to disk, only their summaries come back.
                ray.init(num_cpus=max(count, os.cpu_count() or 1), object_store_memory=200 * 2 ** 20,
                         include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
            else:
                ray.init(address=None if config.ray == "auto" else config.ray, include_dashboard=False,
                         log_to_driver=False, logging_level=logging.ERROR)
        except Exception as exc:  # noqa: BLE001 - Ray's own errors: no cluster at that address, a bad address
            raise EvaluationError(f"cannot start or reach Ray at {config.ray}: {(str(exc).splitlines() or [''])[0]}") \
                from None
    remote: Any = ray.remote(num_cpus=1, max_restarts=1, max_task_retries=1)(WorkerActor)
    actors: list[Any] = [remote.remote(config, number) for number in range(count)]
    pending = list(jobs)
    running: dict[Any, tuple[Any, int]] = {}  # an episode in flight -> (its actor, the worker's number)

    def hand_out(actor: Any, number: int) -> None:
        if pending:
            running[actor.collect.remote(pending.pop(0))] = (actor, number)

    try:
        for number, actor in enumerate(actors):
            hand_out(actor, number)
        while running:
            [ready], _ = ray.wait(list(running), num_returns=1)
            actor, number = running.pop(ready)
            try:
                episode = Collected(**ray.get(ready))
            except RayActorError as exc:  # its last line says why (the error its creation raised, or how it ended)
                said = [line.strip() for line in str(exc).splitlines() if line.strip()]
                summary.failed_workers.append(f"worker {number} died: {ESCAPES.sub('', said[-1]) if said else exc}")
                continue
            except RayTaskError as exc:
                cause = exc.cause if exc.cause is not None else exc
                summary.failed_workers.append(f"worker {number}: {(str(cause).splitlines() or [''])[0]}")
                continue
            summary.add(episode)
            if on_episode is not None:
                on_episode(episode)
            hand_out(actor, number)
        if pending:
            summary.failed_workers.append(f"{len(pending)} episode(s) not collected: no worker was left")
    finally:
        for actor in actors:  # each closes its browser and display; an actor already gone is skipped
            try:
                ray.get(actor.close.remote(), timeout=30)
            except Exception:  # noqa: BLE001 - dead or stuck: ending it is all that is left
                log.debug("a Ray worker did not close", exc_info=True)
            ray.kill(actor)
        if owned:
            ray.shutdown()
    summary.seconds = time.perf_counter() - started
    return summary


def work(config: CollectConfig, jobs: Any, results: Any, number: int) -> None:
    """A worker process: its own virtual display, browser and agent; episodes until the job queue says stop.
    SIGTERM (the parent ending it, or a user) unwinds it like Ctrl+C, so its browser and display close too."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(f"worker {number} terminated"))
    try:
        with Worker(config, number) as worker:
            while (job := jobs.get()) is not None:
                results.put(("episode", number, asdict(worker.collect(*job))))
    except DeskpilotError as exc:
        results.put(("failed", number, str(exc)))
        return
    except Exception as exc:  # noqa: BLE001 - the parent reports it in one line; the other workers go on
        results.put(("failed", number, f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"))
        return
    results.put(("done", number, None))


class Worker:
    """What one worker process holds: Xvfb, the agent (grounding, the policy, real input) and a Chromium."""

    def __init__(self, config: CollectConfig, number: int):
        self.config = config
        self._stack = ExitStack()
        self._rng = random.Random(f"{config.seed}-{number}-{time.time_ns()}")
        self.number = number

    def __enter__(self) -> Worker:
        from deskpilot.core.controller import Controller
        from deskpilot.core.display import VirtualDisplay
        from deskpilot.core.safety import ConfirmationPolicy, EmergencyStop, Safety
        from deskpilot.core.screen import Screen
        from deskpilot.core.settings import load_settings
        from deskpilot.grounding.factory import build_grounder, build_ocr
        from deskpilot.planner.agent import Agent
        from deskpilot.labelling.verifiers import CombinedVerifier, HeuristicVerifier

        from .miniwob.page import MiniWobBrowser

        display = VirtualDisplay().start()
        self._stack.callback(display.stop)
        display.activate()
        config = self.config
        settings = load_settings(**{"ocr_threads": 1, **config.settings, "confirm": "never",
                                    "episodes_dir": config.out})
        grounder = build_grounder(settings)
        stop = EmergencyStop()
        self.agent = Agent(Screen(), grounder, self._policy(settings, grounder), Controller(stop),
                           Safety(stop, ConfirmationPolicy("never")), config.out,
                           locate_timeout=settings.locate_timeout, settle_timeout=settings.settle_timeout,
                           decide_timeout=settings.planner_timeout + 1.0)
        self.browser = self._stack.enter_context(MiniWobBrowser(scale=config.scale).start(config.tasks[0]))
        self.verifier = CombinedVerifier(HeuristicVerifier(build_ocr(settings, threads=1)))
        return self

    def _policy(self, settings: Any, grounder: Any) -> Any:
        from deskpilot.planner.explore import EpsilonPlanner, ExplorePlanner

        config = self.config
        if config.policy == "explore":
            return ExplorePlanner(self._rng)
        from deskpilot.planner.factory import build_planner

        if config.policy == "planner":
            base: Any = build_planner(settings, grounder=grounder)
        elif config.policy == "offline":
            from deskpilot.planner.offline import OfflinePlanner

            base = OfflinePlanner(grounder)
        else:
            served = {"planner": "openai", "base_url": config.base_url} if config.base_url else \
                {"planner": "transformers"}
            base = build_planner(settings.model_copy(update={**served, "model": config.model, "plan_mode": "som-text",
                                                             "temperature": config.temperature}), grounder=grounder)
        return EpsilonPlanner(base, config.epsilon, self._rng) if config.epsilon > 0 else base

    def collect(self, task: str, seed: int, prefix: tuple[dict[str, Any], ...] = (),
                tag: dict[str, Any] | None = None) -> Collected:
        """One episode of `task` at `seed`. With `prefix` (recorded actions, as dicts), the policy first re-enacts
        them and then goes on by itself; a `tag` with `answer` (a rank) and `answers` (a count) makes the step after
        the prefix that answer of the model's (a branch, branches.py). `tag` is kept in the episode's
        `extra.rollout`, with `reenacted` saying whether the whole prefix could be re-enacted (and `branched`, for
        a branch, whether its answer was there to act on)."""
        from deskpilot.core.rule_packs import NONE

        from .miniwob.harness import run_episode
        from .miniwob.rules import MINIWOB

        policy = self.agent.planner
        branch = (int(tag["answer"]), int(tag["answers"])) if tag is not None and "answer" in tag else None
        if prefix or branch:
            from deskpilot.core.actions import Action
            from deskpilot.planner.prefix import PrefixPlanner
            from deskpilot.planner.text_planner import TextPlanner

            if not isinstance(policy, TextPlanner):
                raise EvaluationError("re-enacting recorded steps needs a som-text model policy (--policy model, no "
                                      "--epsilon)")
            self.agent.planner = PrefixPlanner([Action.from_dict(a) for a in prefix], policy, branch)
        try:
            score = run_episode(self.agent, self.browser, task, seed, MINIWOB if self.config.pack else NONE,
                                verifier=self.verifier)
        finally:
            replayed, self.agent.planner = self.agent.planner, policy
        episode = read_episode(score.episode_dir)
        if episode.meta.environment is not None:
            episode.meta.environment.policy = self.config.policy_name
        if tag is not None:
            episode.meta.extra[ROLLOUT_KEY] = {**tag, "reenacted": getattr(replayed, "reenacted", 0) == len(prefix)}
            if branch is not None:
                episode.meta.extra[ROLLOUT_KEY]["branched"] = getattr(replayed, "branched", False)
        rewrite_meta(episode.directory, episode.meta)
        prune_frames(episode, self.config.frames)
        labels: Counter[str] = Counter(s.verification.label if s.verification else "unknown" for s in episode.steps
                                       if not s.action.is_terminal)
        return Collected(task, seed, score.raw_reward, len(episode.steps), dict(labels), score.seconds,
                         score.utterance, score.reward, score.outcome, score.detail, score.checked,
                         str(episode.directory))

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

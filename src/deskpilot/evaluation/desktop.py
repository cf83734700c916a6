"""The agent on the desktop-apps suite: for each task a fresh home, the task's application started on its files
under a real window manager, the agent acting with real input from pixels, and the task's checker reading the
outcome from the application's own output. Every run is kept as an Episode with the checker's verdict as its
reward (the `env` verifier labels its steps), so these runs also feed training and verification."""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deskpilot.core.episode import Step, read_episode, rewrite_meta, score_episode
from deskpilot.core.verdict import EnvironmentRun
from deskpilot.core.errors import EvaluationError
from deskpilot.core.secrets import scrub, task_secrets
from deskpilot.evaluation.check_agreement import check_agreement
from deskpilot.planner.agent import Agent
from deskpilot.labelling.verifiers import EnvVerifier

from .desktop_checks import TaskRun
from .desktop_session import DesktopSession
from .desktop_tasks import TASKS, DesktopTask

SETTLE_AFTER_START = 2.0  # seconds the first look may wait for a freshly started application to finish drawing
CHECK_GRACE = 1.0  # seconds an application may take to write its output after the agent's last step


@dataclass(frozen=True)
class DesktopScore:
    task: str
    app: str
    repeat: int
    text: str
    success: bool
    found: str  # what the checker read
    steps: int
    seconds: float
    outcome: str
    detail: str
    episode_dir: Path
    checked: bool | None = None  # the agent's own goal check of the final screen (None where it did not run)


def choose_tasks(names: list[str] | None) -> list[DesktopTask]:
    """The named tasks (all when None), or an EvaluationError naming an unknown one."""
    if not names:
        return list(TASKS)
    known = {task.name: task for task in TASKS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise EvaluationError(f"unknown desktop task(s): {', '.join(unknown)}; see `deskpilot eval desktop --list`")
    return [known[name] for name in names]


def instructed_tasks(path: Path) -> list[DesktopTask]:
    """The tasks a file of instructions names, each with the file's words for it as its text: the suite driven by
    instructions written in other words (`{"instructions": [{"task": NAME, "text": WORDS}, ...]}`); an
    EvaluationError for a file that is not such a list, or that names a task the suite does not have."""
    try:
        entries = json.loads(path.read_text())["instructions"]
        pairs = [(str(entry["task"]), str(entry["text"])) for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EvaluationError(f"{path}: not a list of instructions ({type(exc).__name__}: {exc}); expected "
                              '{"instructions": [{"task": NAME, "text": WORDS}, ...]}') from None
    known = {task.name: task for task in choose_tasks([name for name, _ in pairs])}
    return [replace(known[name], text=text) for name, text in pairs if text.strip()]


def prepare(session: DesktopSession, task: DesktopTask) -> TaskRun:
    """The task's start state: a fresh home with its files, and its application showing its window."""
    home = session.new_home(task.name)
    for relative, text in task.files.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for argv in task.prepare:
        made = subprocess.run(list(argv), cwd=home, env=session.app_env(home), capture_output=True, timeout=60)
        if made.returncode != 0:
            raise EvaluationError(f"{task.name}: preparing with {argv[0]} failed (exit code {made.returncode})")
    argv = [part.replace("{home}", str(home)) for part in task.launch]
    process = session.start_app(argv, task.window, capture_output=task.prints)
    return TaskRun(home, session, [process])


def run_task(agent: Agent, session: DesktopSession, task: DesktopTask, repeat: int = 0) -> DesktopScore:
    """One episode of one task, scored by its checker; the episode on disk gets the reward and env labels."""
    run = prepare(session, task)
    try:
        agent.screen.wait_until_settled(timeout=SETTLE_AFTER_START)
        passed_at: list[int] = []

        def task_done(step: Step) -> bool:
            if task.check(run)[0]:
                passed_at.append(step.index)
                return True
            return False

        started = time.perf_counter()
        result = agent.run(task.text, max_steps=task.max_steps, app=f"desktop/{task.name}", until=task_done)
        seconds = time.perf_counter() - started
        success, found = task.check(run)
        deadline = time.monotonic() + CHECK_GRACE
        while not success and time.monotonic() < deadline:  # a save or a clipboard copy may land a moment later
            time.sleep(0.2)
            success, found = task.check(run)
    finally:
        session.close_apps()
    _store_verdict(result.episode_dir, task, repeat, success, found, passed_at)
    shown = scrub(task.text, [secret.value for secret in task_secrets(task.text)])
    return DesktopScore(task.name, task.app, repeat, shown, success, found, len(result.steps), seconds,
                        result.outcome, result.detail, result.episode_dir,
                        result.check.passed if result.check is not None else None)


def _store_verdict(directory: Path, task: DesktopTask, repeat: int, success: bool, found: str,
                   passed_at: list[int]) -> None:
    if task.paraphrases:
        meta = read_episode(directory).meta
        meta.paraphrases = list(task.paraphrases)
        rewrite_meta(directory, meta)
    score_episode(directory, EnvironmentRun("desktop", task.name, repeat, 1.0 if success else -1.0, None, found,
                                            app=task.app), {index: 1.0 for index in passed_at},
                  EnvVerifier().judge_episode)


def evaluate_desktop(agent: Agent, session: DesktopSession, tasks: list[DesktopTask], repeats: int,
                     on_episode: Callable[[DesktopScore], None] | None = None) -> dict[str, Any]:
    """Every task `repeats` times; the report JSON the CLI writes."""
    scores: dict[str, list[DesktopScore]] = {}
    for task in tasks:
        for repeat in range(repeats):
            score = run_task(agent, session, task, repeat)
            scores.setdefault(task.name, []).append(score)
            if on_episode is not None:
                on_episode(score)
    return summarize(scores, session.scale)


def summarize(scores: dict[str, list[DesktopScore]], scale: float) -> dict[str, Any]:
    table: dict[str, dict[str, Any]] = {}
    for name, runs in scores.items():
        steps = sum(r.steps for r in runs)
        table[name] = {"app": runs[0].app, "success_rate": sum(r.success for r in runs) / len(runs),
                       "episodes": len(runs), "mean_steps": steps / len(runs),
                       "seconds_per_step": sum(r.seconds for r in runs) / steps if steps else 0.0,
                       "failures": [{"repeat": r.repeat, "found": r.found, "outcome": r.outcome, "detail": r.detail,
                                     "episode": str(r.episode_dir)} for r in runs if not r.success]}
    apps: dict[str, list[float]] = {}
    for row in table.values():
        apps.setdefault(row["app"], []).append(row["success_rate"])
    mean = statistics.fmean(t["success_rate"] for t in table.values()) if table else 0.0
    every = [(r.success, r.outcome, r.checked) for runs in scores.values() for r in runs]
    return {"tasks": table, "apps": {app: statistics.fmean(rates) for app, rates in sorted(apps.items())},
            "mean_success_rate": mean, "scale": scale, "goal_check": check_agreement(every)}

"""The agent loop: observe -> parse -> plan -> locate -> safety -> act -> wait for the screen to settle -> record.
Every run is an Episode; every outcome (done, step limit, stop, refusal, error) is written into it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deskpilot.core.actions import Action, ActionKind, scrub
from deskpilot.core.controller import Controller
from deskpilot.core.episode import EpisodeWriter, Step
from deskpilot.core.errors import DeskpilotError, GroundingError
from deskpilot.core.outcome import RunResult, outcome_of
from deskpilot.core.observation import Element, Observation
from deskpilot.core.safety import Safety
from deskpilot.core.screen import Screen
from deskpilot.grounding.base import Grounder

from .base import Planner

log = logging.getLogger(__name__)
LOCATE_RETRY_SECONDS = 0.25


@dataclass
class StepReport:
    """What a listener (CLI log, app view) is told after each step."""

    step: Step
    observation: Observation
    elements: list[Element]


class Agent:
    def __init__(self, screen: Screen, grounder: Grounder, planner: Planner, controller: Controller, safety: Safety,
                 episodes_dir: Path, locate_timeout: float = 3.0, settle_timeout: float = 2.0,
                 on_step: Callable[[StepReport], None] | None = None):
        self.screen, self.grounder, self.planner = screen, grounder, planner
        self.controller, self.safety = controller, safety
        self.episodes_dir = episodes_dir
        self.locate_timeout, self.settle_timeout = locate_timeout, settle_timeout
        self.on_step = on_step

    def run(self, task: str, max_steps: int = 30, app: str | None = None,
            until: Callable[[Step], bool] | None = None) -> RunResult:
        """Work on `task` until the planner finishes or asks for help, the step limit, a stop or an error.
        `until`, asked after every step, lets an environment that keeps its own score end the run (outcome
        "ended")."""
        secrets = self.planner.secrets(task)
        ignore_echoes = getattr(self.grounder, "ignore_echoes_of", None)
        if ignore_echoes is not None:
            ignore_echoes(task)
        writer = EpisodeWriter.create(self.episodes_dir, scrub(task, secrets), source="agent", app=app,
                                      model=self.planner.name, dry_run=self.safety.dry_run)
        steps: list[Step] = []
        outcome, detail = "max_steps", f"stopped after the step limit of {max_steps}"
        try:
            obs = self._observe(self.screen.wait_until_settled(timeout=self.settle_timeout))
            before = writer.add_frame(obs.image)
            for index in range(max_steps):
                step, obs, before = self._step(index, task, steps, obs, before, writer)
                steps.append(step)
                if step.action.is_terminal:
                    finished = step.action.kind is ActionKind.FINISHED
                    outcome = "success" if finished else "needs_user"
                    detail = step.action.text or ("finished" if finished else "the agent asks for help")
                    break
                if until is not None and until(step):
                    outcome, detail = "ended", "the environment ended the episode"
                    break
        except DeskpilotError as exc:
            outcome, detail = outcome_of(exc), scrub(str(exc), secrets)
        finally:
            writer.finish(outcome, detail)
        return RunResult(outcome, detail, writer.directory, steps)

    def _observe(self, image: object = None) -> Observation:
        if image is None:
            return self.screen.capture()
        return Observation(image=image, monitor=self.screen.monitor(), cursor=self.screen.cursor(),  # type: ignore[arg-type]
                           window_title=self.screen.window_title())

    def _step(self, index: int, task: str, history: list[Step], obs: Observation, before: str,
              writer: EpisodeWriter) -> tuple[Step, Observation, str]:
        self.safety.stop.check()
        timing: dict[str, float] = {}
        started = time.perf_counter()
        elements = self.grounder.parse(obs)
        timing["parse_ms"] = _ms(started)
        mark = time.perf_counter()
        decision = self.planner.decide(task, history, obs, elements)
        timing["plan_ms"] = _ms(mark)
        action = decision.action
        monitor = obs.monitor
        if action.is_terminal:
            step = Step(index, action, before, None, decision.thought, monitor, timing=timing)
            writer.append(step)
            self._report(step, obs, elements)
            return step, obs, before

        mark = time.perf_counter()
        action, used, obs, before = self._ground(action, obs, before, writer)
        timing["locate_ms"] = _ms(mark)
        self.safety.check(action, self.screen.monitors(), obs.cursor, " ".join(e.text for e in used))
        mark = time.perf_counter()
        if not self.safety.dry_run:
            self.controller.execute(action)
        timing["act_ms"] = _ms(mark)
        mark = time.perf_counter()
        after_image = self.screen.wait_until_settled(obs.image, timeout=self.settle_timeout)
        timing["settle_ms"] = _ms(mark)
        after = writer.add_frame(after_image)
        timing["step_ms"] = _ms(started)
        step = Step(index, action, before, after, decision.thought, monitor, used, timing,
                    dry_run=self.safety.dry_run, window=obs.window_title)
        writer.append(step)
        log.info("step %d: %s", index + 1, action.redacted().describe())
        self._report(step, obs, elements)
        return step, self._observe(after_image), after

    def _ground(self, action: Action, obs: Observation, before: str,
                writer: EpisodeWriter) -> tuple[Action, list[Element], Observation, str]:
        """Resolve target descriptions to points, re-looking at the screen until `locate_timeout` (the target
        may still be appearing). Returns the resolved action, the elements used, and the observation used."""
        wanted = {name: description for name, description in
                  (("point", action.target if action.point is None else None),
                   ("end_point", action.end_target if action.end_point is None else None)) if description}
        if not wanted:
            return action, [], obs, before
        deadline = time.monotonic() + self.locate_timeout
        while True:
            found = {name: self.grounder.locate(obs, description) for name, description in wanted.items()}
            missing = [wanted[name] for name, element in found.items() if element is None]
            if not missing:
                break
            if time.monotonic() >= deadline:
                raise GroundingError(f"could not find {missing[0]!r} on the screen")
            self.safety.stop.sleep(LOCATE_RETRY_SECONDS)
            obs = self.screen.capture()
            before = writer.add_frame(obs.image)
        points = {name: element.center for name, element in found.items() if element is not None}
        return action.with_points(**points), [e for e in found.values() if e is not None], obs, before

    def _report(self, step: Step, obs: Observation, elements: list[Element]) -> None:
        if self.on_step is not None:
            self.on_step(StepReport(step, obs, elements))


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000

"""The agent, or a replay of a recorded episode, in a worker thread for the app: the window never freezes. Steps
come back as Qt signals (ShownStep: the window worked on, or the region around the target, with the target ringed;
the thought; whether the screen changed; the time) and the goal check at the end; Pause holds the agent between
steps; Stop (button, global hotkey, screen corner) ends it before its next action; confirmations the safety policy
asks for are answered by the window.

deskpilot's own window is blanked out of every screenshot the agent sees (MaskedScreen), so grounding never finds
its text, and the safety check refuses any action pointed at it (a model could still name such coordinates)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QThread, Signal

from deskpilot.core.actions import ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.geometry import Box, Point
from deskpilot.core.observation import Observation
from deskpilot.core.outcome import RunResult
from deskpilot.core.hotkeys import stop_hotkey_limit
from deskpilot.core.safety import Confirmation, EmergencyStop
from deskpilot.core.screen import Screen
from deskpilot.core.settings import Settings
from deskpilot.grounding.action_context import FIELD_ROLES
from deskpilot.planner.agent import StepReport

log = logging.getLogger(__name__)
MASK_COLOUR = (32, 33, 36)
AROUND_TARGET = (960, 600)  # the region shown around a target where the window worked on is not known
WINDOW_MARGIN = 12  # pixels of desktop shown around the window worked on


@dataclass
class ShownStep:
    """One step as the Run view shows it. `verdict`: "changed" (the screen changed after the action),
    "unchanged" (it did not), "unsure" (a last answer, or a dry run, that acted on nothing)."""

    number: int
    description: str
    thought: str
    verdict: str
    seconds: float
    picture: np.ndarray  # RGB


def working_region(obs: Observation, point: Point | None, excluded: list[Box]) -> Box:
    """Where the agent works, in screen pixels: the focused window (not deskpilot's own) where it holds the target,
    else the region around the target, else the whole monitor."""
    screen = obs.monitor.box
    window = obs.window.box if obs.window is not None else None
    if window is not None and window.width >= 160 and window.height >= 100 and not any(
            window.intersects(box) for box in excluded) and (point is None or window.contains(point.x, point.y)):
        return window.padded(WINDOW_MARGIN, screen)
    if point is not None:
        half_w, half_h = AROUND_TARGET[0] // 2, AROUND_TARGET[1] // 2
        return Box(point.x - half_w, point.y - half_h, point.x + half_w, point.y + half_h).clipped(screen)
    return screen


class MaskedScreen(Screen):
    """A Screen whose grabs have `excluded()` regions (screen pixels) painted over."""

    def __init__(self, excluded: Callable[[], list[Box]], monitor: int = 0, scale: float = 1.0):
        super().__init__(monitor, scale)
        self.excluded = excluded

    def grab(self, region: Box | None = None) -> np.ndarray:
        image = super().grab(region)
        origin = self.monitor() if region is None else None
        left, top = (origin.left, origin.top) if origin else (region.x0, region.y0)  # type: ignore[union-attr]
        scale = origin.scale if origin else self.scale
        for box in self.excluded():
            x0, y0 = max(0, round((box.x0 - left) * scale)), max(0, round((box.y0 - top) * scale))
            x1, y1 = round((box.x1 - left) * scale), round((box.y1 - top) * scale)
            if x1 > x0 and y1 > y0:
                image[y0:y1, x0:x1] = MASK_COLOUR
        return image


def step_verdict(report: StepReport) -> str:
    """"changed", "unchanged", or "unsure": no change to compare (a last answer, a dry run), or a click into a
    field, whose focus shows only as a caret."""
    if report.changed is None:
        return "unsure"
    if report.changed:
        return "changed"
    into_field = report.step.action.kind is ActionKind.CLICK and any(e.role in FIELD_ROLES
                                                                     for e in report.step.elements)
    return "unsure" if into_field else "unchanged"


class AgentWorker(QThread):
    step = Signal(object)  # a ShownStep
    checked = Signal(bool, str)  # the goal check at the end: passed, what held or the first thing that did not
    done = Signal(str, str, str)  # outcome, detail, episode folder
    failed = Signal(str)  # a one-line error before the run could start
    confirm_needed = Signal(object)  # a core.safety.Confirmation; answer with answer()
    notice = Signal(str)  # something the person should know before the run goes on (e.g. no global stop hotkey)

    def __init__(self, task: str, settings: Settings, excluded: Callable[[], list[Box]]):
        super().__init__()
        self.task, self.settings, self.excluded = task, settings, excluded
        self.stop = EmergencyStop()
        self._resume = threading.Event()
        self._resume.set()
        self._answer = threading.Event()
        self._approved = False

    # -- called from the window's thread
    def request_stop(self, reason: str = "stopped from the app") -> None:
        self.stop.trigger(reason)
        self._resume.set()
        self._approved = False
        self._answer.set()

    def set_paused(self, paused: bool) -> None:
        if paused:
            self._resume.clear()
        else:
            self._resume.set()

    @property
    def paused(self) -> bool:
        return not self._resume.is_set()

    def answer(self, approved: bool) -> None:
        self._approved = approved
        self._answer.set()

    # -- the worker thread
    def run(self) -> None:
        try:
            result = self._run()
        except DeskpilotError as exc:
            self.failed.emit(str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - the thread must report, never die silently
            log.exception("agent run crashed")
            self.failed.emit(f"the agent crashed: {exc}")
            return
        if result.check is not None:
            check = result.check
            self.checked.emit(check.passed, "; ".join(check.held) if check.passed else check.failed or "")
        self.done.emit(result.outcome, result.detail, str(result.episode_dir))

    def _run(self) -> RunResult:
        from deskpilot.app.common import build_agent, planner_for
        from deskpilot.grounding.factory import build_grounder
        from deskpilot.grounding.annotate import annotate

        settings = self.settings
        grounder = build_grounder(settings)
        planner = planner_for(settings, self.task, grounder)
        listener = self._listen_for_stop()

        def report(step_report: StepReport) -> None:
            obs, step = step_report.observation, step_report.step
            picture = annotate(obs.image, obs.monitor, step_report.elements, step.action)
            region = obs.monitor.screen_box_to_image(working_region(obs, step.action.point, self.excluded()))
            verdict = step_verdict(step_report)
            self.step.emit(ShownStep(step.index + 1, step.action.redacted().describe(), step.thought, verdict,
                                     step.timing.get("step_ms", 0.0) / 1000,
                                     picture[max(0, region.y0):region.y1, max(0, region.x0):region.x1].copy()))
            self._hold_while_paused()

        agent = build_agent(settings, grounder, planner, self.stop, self._confirm, report,
                            screen=MaskedScreen(self.excluded, settings.monitor, settings.scale), no_go=self.excluded)
        try:
            return agent.run(self.task, settings.max_steps)
        finally:
            if listener is not None:
                listener.close()

    def _listen_for_stop(self):  # noqa: ANN202 - a pynput listener or None
        limit = stop_hotkey_limit()
        if limit:
            self.notice.emit(limit)
        try:
            return self.stop.listen(self.settings.stop_hotkey)
        except Exception as exc:  # noqa: BLE001 - no keyboard hook here: the button and the corners still stop it
            log.warning("stop hotkey unavailable: %s", exc)
            self.notice.emit(f"no global stop hotkey ({exc}): stop with the Stop button or a screen corner")
            return None

    def _hold_while_paused(self) -> None:
        while not self._resume.wait(0.1):  # paused: hold here, between steps
            pass

    def _confirm(self, request: Confirmation) -> bool:
        self._answer.clear()
        self.confirm_needed.emit(request)
        self._answer.wait()
        return self._approved and not self.stop.triggered


class ReplayWorker(AgentWorker):
    """A recorded episode replayed from its step at index `start`, each target found again on the live screen, with
    the same stop, pause, confirmations and step pictures as an agent run; a secret the recording left out is asked
    of the person in the window (`secret_needed`, answered with `give_secret`)."""

    secret_needed = Signal(str)  # what to ask for; answer with give_secret()

    def __init__(self, episode: Path, start: int, settings: Settings, excluded: Callable[[], list[Box]]):
        super().__init__(f"replay of {episode.name} from step {start + 1}", settings, excluded)
        self.episode, self.start_at = episode, start
        self._secret: str | None = None

    def give_secret(self, text: str | None) -> None:
        self._secret = text
        self._answer.set()

    def _ask_secret(self, step: Step) -> str | None:
        self._answer.clear()
        self.secret_needed.emit(f"Step {step.index + 1} typed a secret, which the recording does not keep. Type it "
                                "now (it is typed into the field, never written anywhere):")
        self._answer.wait()
        secret, self._secret = self._secret, None
        return secret if not self.stop.triggered else None

    def _run(self) -> RunResult:
        from deskpilot.app.common import build_replayer
        from deskpilot.core.episode import read_episode, read_image

        settings = self.settings
        recorded = read_episode(self.episode)
        started = time.perf_counter()

        def report(step: Step) -> None:
            nonlocal started
            before = read_image(replayer.writer.directory / step.before)
            after = read_image(replayer.writer.directory / step.after) if step.after else None
            shown = after if after is not None else before
            if shown is not None:  # the frames were just written; one unreadable only costs its picture
                verdict = "changed" if after is not None and not np.array_equal(before, after) else "unsure"
                number = self.start_at + step.index + 1  # the recorded step's number
                self.step.emit(ShownStep(number, step.action.redacted().describe(), step.thought, verdict,
                                         time.perf_counter() - started, shown))
            started = time.perf_counter()
            self._hold_while_paused()

        replayer = build_replayer(settings, recorded, self.stop, self._confirm, report, self._ask_secret,
                                  screen=MaskedScreen(self.excluded, settings.monitor, settings.scale),
                                  no_go=self.excluded)
        listener = self._listen_for_stop()
        try:
            return replayer.replay(recorded, self.start_at)
        finally:
            if listener is not None:
                listener.close()

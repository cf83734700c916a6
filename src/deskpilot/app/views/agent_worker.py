"""The agent in a worker thread for the app: the window never freezes. Steps come back as Qt signals with the
annotated screenshot; Pause holds the agent between steps; Stop (button, global hotkey, screen corner) ends it
before its next action; confirmations the safety policy asks for are answered by the window.

deskpilot's own window is blanked out of every screenshot the agent sees (MaskedScreen), so grounding never finds
its text, and the safety check refuses any action pointed at it (a model could still name such coordinates)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QThread, Signal

from deskpilot.core.errors import DeskpilotError
from deskpilot.core.geometry import Box
from deskpilot.core.hotkeys import stop_hotkey_limit
from deskpilot.core.safety import Confirmation, EmergencyStop
from deskpilot.core.screen import Screen
from deskpilot.core.settings import Settings

log = logging.getLogger(__name__)
MASK_COLOUR = (32, 33, 36)


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


class AgentWorker(QThread):
    step = Signal(int, str, object)  # step number (1-based), description, annotated RGB screenshot
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
        self.done.emit(result.outcome, result.detail, str(result.episode_dir))

    def _run(self):  # noqa: ANN202 - a RunResult
        from deskpilot.app.common import build_agent, planner_for
        from deskpilot.grounding.factory import build_grounder
        from deskpilot.grounding.annotate import annotate
        from deskpilot.planner.agent import StepReport

        settings = self.settings
        grounder = build_grounder(settings)
        planner = planner_for(settings, self.task, grounder)
        limit = stop_hotkey_limit()
        if limit:
            self.notice.emit(limit)
        try:
            listener = self.stop.listen(settings.stop_hotkey)
        except Exception as exc:  # noqa: BLE001 - no keyboard hook here: the button and the corners still stop it
            log.warning("stop hotkey unavailable: %s", exc)
            self.notice.emit(f"no global stop hotkey ({exc}): stop with the Stop button or a screen corner")
            listener = None

        def report(step_report: StepReport) -> None:
            obs, step = step_report.observation, step_report.step
            picture = annotate(obs.image, obs.monitor, step_report.elements, step.action)
            self.step.emit(step.index + 1, step.action.redacted().describe(), picture)
            while not self._resume.wait(0.1):  # paused: hold here, between steps
                pass

        agent = build_agent(settings, grounder, planner, self.stop, self._confirm, report,
                            screen=MaskedScreen(self.excluded, settings.monitor, settings.scale), no_go=self.excluded)
        try:
            return agent.run(self.task, settings.max_steps)
        finally:
            if listener is not None:
                listener.close()

    def _confirm(self, request: Confirmation) -> bool:
        self._answer.clear()
        self.confirm_needed.emit(request)
        self._answer.wait()
        return self._approved and not self.stop.triggered

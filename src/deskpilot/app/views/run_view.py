"""The Run view: task box, planner and model, Run / Pause / Stop with the ways to stop said beside them; the window
being worked on (or the region around the target) large, with the elements found and the target ringed; the
planner's thought; the step log, each step with its verdict mark and time, the goal check at the end; and the
approval prompt when the safety policy asks. A replay started from the Episodes view ("replay from here") is shown
here the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QInputDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QPushButton, QSplitter, QVBoxLayout, QWidget)

from deskpilot.core.allowances import Allowances
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.geometry import Box
from deskpilot.core.safety import Confirmation
from deskpilot.core.settings import PLANNERS, Settings, load_settings

from .agent_worker import AgentWorker, ReplayWorker, ShownStep
from .confirm_dialog import ConfirmDialog
from .frame_view import FrameView

VERDICTS = {"changed": ("✓", "the screen changed"), "unchanged": ("✗", "nothing on the screen changed"),
            "unsure": ("?", "nothing to compare (a last answer, a dry run), or a click into a field, whose focus shows "
                      "only as a caret")}


class RunView(QWidget):
    status = Signal(str)
    run_finished = Signal(str, str)  # outcome, episode folder

    def __init__(self, settings: Settings, excluded: Callable[[], list[Box]], parent: QWidget | None = None):
        super().__init__(parent)
        self.settings, self.excluded = settings, excluded
        self.task = QLineEdit()
        self.task.setPlaceholderText('e.g. type "Ada Lovelace" into Full name then click "Save"')
        self.planner = QComboBox()
        self.planner.addItems(PLANNERS)
        self.planner.setCurrentText(settings.planner)
        self.model = QLineEdit(settings.model or "")
        self.model.setPlaceholderText("model name or folder (model planners)")
        self.run_button, self.pause_button, self.stop_button = QPushButton("Run"), QPushButton("Pause"), \
            QPushButton("Stop")
        self.frame = FrameView("the window the agent works on appears here")
        self.thought = QLabel("")
        self.thought.setWordWrap(True)
        self.thought.setTextFormat(Qt.TextFormat.PlainText)  # a model's words are never rich text
        self.stop_hint = QLabel(f"Stop: {settings.stop_hotkey}, the Stop button, or the mouse into a screen corner")
        self.log = QListWidget()
        self.log.setWordWrap(True)
        self.worker: AgentWorker | None = None
        self._layout()
        self.task.returnPressed.connect(self.start_run)
        self.run_button.clicked.connect(self.start_run)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button.clicked.connect(self.stop_run)
        self._set_running(False)

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.task, 4)
        top.addWidget(self.planner)
        top.addWidget(self.model, 2)
        for button in (self.run_button, self.pause_button, self.stop_button):
            top.addWidget(button)
        seen = QWidget()
        seen_column = QVBoxLayout(seen)
        seen_column.setContentsMargins(0, 0, 0, 0)
        seen_column.addWidget(self.frame, 1)
        seen_column.addWidget(self.thought)
        split = QSplitter()
        split.addWidget(seen)
        split.addWidget(self.log)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 360])  # the window worked on gets most of the room
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.stop_hint)
        column.addWidget(split, 1)

    def use_model(self, folder: str) -> None:
        self.planner.setCurrentText("transformers")
        self.model.setText(folder)

    def start_run(self) -> None:
        task = self.task.text().strip()
        if not task or self.worker is not None:
            return
        try:
            settings = load_settings(**{**self.settings.model_dump(), "planner": self.planner.currentText(),
                                        "model": self.model.text().strip() or None})
        except DeskpilotError as exc:
            self.status.emit(str(exc))
            return
        self._start(AgentWorker(task, settings, self.excluded))

    def start_replay(self, episode: Path, start: int) -> None:
        """Replay a recorded episode from its step at index `start`, shown here as a run is."""
        if self.worker is not None:
            self.status.emit("a run is in progress: stop it first")
            return
        self.task.setText(f"replay: {episode.name} from step {start + 1}")
        worker = ReplayWorker(episode, start, self.settings, self.excluded)
        worker.secret_needed.connect(self._on_secret)  # a slot of this view: asked in the window's thread
        self._start(worker)

    def _start(self, worker: AgentWorker) -> None:
        settings = worker.settings
        self.log.clear()
        self.thought.clear()
        self.stop_hint.setText(f"Stop: {settings.stop_hotkey}, the Stop button, or the mouse into a screen corner")
        self.worker = worker
        self.worker.step.connect(self._on_step)
        self.worker.checked.connect(self._on_checked)
        self.worker.done.connect(self._on_done)
        self.worker.failed.connect(self._on_failed)
        self.worker.confirm_needed.connect(self._on_confirm)
        self.worker.notice.connect(self._on_notice)
        self.worker.finished.connect(self._on_thread_finished)
        self._set_running(True)
        self.status.emit(f"running; stop: {settings.stop_hotkey}, the Stop button, or a screen corner")
        self.worker.start()

    def toggle_pause(self) -> None:
        if self.worker is None:
            return
        self.worker.set_paused(not self.worker.paused)
        self.pause_button.setText("Resume" if self.worker.paused else "Pause")
        self.status.emit("paused after this step" if self.worker.paused else "resumed")

    def stop_run(self) -> None:
        if self.worker is not None:
            self.worker.request_stop()

    def _on_step(self, shown: ShownStep) -> None:
        mark, meaning = VERDICTS[shown.verdict]
        item = QListWidgetItem(f"{mark} {shown.number}. {shown.description}  ({shown.seconds:.1f} s)")
        item.setToolTip(f"{meaning}" + (f"\nthought: {shown.thought}" if shown.thought else ""))
        self.log.addItem(item)
        self.log.scrollToBottom()
        self.thought.setText(f"Step {shown.number}: {shown.thought}" if shown.thought else "")
        self.frame.show_image(shown.picture)

    def _on_checked(self, passed: bool, said: str) -> None:
        self.log.addItem(f"goal check {'held' if passed else 'failed'}" + (f": {said}" if said else ""))

    def _on_done(self, outcome: str, detail: str, episode: str) -> None:
        self.log.addItem(f"{outcome}: {detail}")
        self.status.emit(f"{outcome}: {detail} — episode {episode}")
        self.run_finished.emit(outcome, episode)

    def _on_failed(self, message: str) -> None:
        self.log.addItem(f"error: {message}")
        self.status.emit(f"error: {message}")
        self.run_finished.emit("error", "")

    def _on_notice(self, message: str) -> None:
        self.log.addItem(f"note: {message}")
        self.status.emit(message)

    def _on_confirm(self, request: Confirmation) -> None:
        if self.worker is None:
            return
        dialog = ConfirmDialog(request, self)
        dialog.exec()
        dialog.deleteLater()
        if dialog.answer == "always" and dialog.allowance is not None:
            Allowances().add(dialog.allowance)
            self.status.emit(f"allowed for good: {dialog.allowance.describe()} (revoke it in Settings)")
        elif dialog.answer == "deny":
            self.status.emit("denied: the agent does not do it")
        self.worker.answer(dialog.answer in ("once", "always"))

    def _on_secret(self, prompt: str) -> None:
        text, given = QInputDialog.getText(self, "A secret to type", prompt, QLineEdit.EchoMode.Password)
        if isinstance(self.worker, ReplayWorker):
            self.worker.give_secret(text if given and text else None)

    def _on_thread_finished(self) -> None:
        if self.worker is not None:  # its Qt object freed by this thread's event loop, never by another thread
            self.worker.deleteLater()
        self.worker = None
        self._set_running(False)

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.pause_button.setText("Pause")
        self.stop_button.setEnabled(running)
        for field in (self.task, self.planner, self.model):
            field.setEnabled(not running)

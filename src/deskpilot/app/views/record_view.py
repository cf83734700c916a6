"""The Record view: start / pause / stop recording a demonstration, watch the merged actions arrive, and save it
with a task description. Clicks on deskpilot's own window (its Stop button, say) are not recorded."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QListWidget, QPushButton, QVBoxLayout, QWidget

from deskpilot.core.errors import DeskpilotError
from deskpilot.core.geometry import Box
from deskpilot.core.settings import Settings


class RecordView(QWidget):
    status = Signal(str)
    recorded = Signal(str)  # the saved episode's folder
    _step_arrived = Signal(str)  # from the recorder's worker thread to the window's

    def __init__(self, settings: Settings, excluded: Callable[[], list[Box]], parent: QWidget | None = None):
        super().__init__(parent)
        self.settings, self.excluded = settings, excluded
        self.task = QLineEdit()
        self.task.setPlaceholderText("what this demonstration does, e.g. 'save the form as Ada'")
        self.start_button, self.pause_button, self.stop_button = QPushButton("Record"), QPushButton("Pause"), \
            QPushButton("Stop and save")
        self.actions = QListWidget()
        self.recorder = None
        top = QHBoxLayout()
        top.addWidget(self.task, 1)
        for button in (self.start_button, self.pause_button, self.stop_button):
            top.addWidget(button)
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.actions, 1)
        self._step_arrived.connect(self._add_action)
        self.start_button.clicked.connect(self.start_recording)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button.clicked.connect(self.stop_recording)
        self._set_recording(False)

    def start_recording(self) -> None:
        from deskpilot.app.common import recorder_for
        from deskpilot.core.episode import EpisodeWriter
        from deskpilot.core.screen import Screen

        settings = self.settings
        try:
            screen = Screen(settings.monitor, settings.scale)
            writer = EpisodeWriter.create(settings.episodes_dir, self.task.text().strip(), source="demonstration")
            self.recorder = recorder_for(settings, writer, screen, lambda step: self._step_arrived.emit(
                f"{step.index + 1:>3}. {step.action.describe()}"), excluded=self.excluded).start()
        except DeskpilotError as exc:
            self.status.emit(str(exc))
            return
        self.actions.clear()
        self._set_recording(True)
        self.status.emit("recording: your clicks and typing outside this window become steps")

    def toggle_pause(self) -> None:
        if self.recorder is not None:
            self.recorder.paused = not self.recorder.paused
            self.pause_button.setText("Resume" if self.recorder.paused else "Pause")
            self.status.emit("recording paused" if self.recorder.paused else "recording again")

    def stop_recording(self) -> None:
        if self.recorder is None:
            return
        recorder, self.recorder = self.recorder, None
        recorder.writer.meta.task = self.task.text().strip()  # the description may be written while recording
        steps = recorder.stop()
        self._set_recording(False)
        self.status.emit(f"recorded {len(steps)} step(s): {recorder.writer.directory}")
        self.recorded.emit(str(recorder.writer.directory))

    def _add_action(self, text: str) -> None:
        self.actions.addItem(text)
        self.actions.scrollToBottom()

    def _set_recording(self, recording: bool) -> None:
        self.start_button.setEnabled(not recording)
        self.pause_button.setEnabled(recording)
        self.pause_button.setText("Pause")
        self.stop_button.setEnabled(recording)

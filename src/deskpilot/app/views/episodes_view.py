"""The Episodes view: browse agent runs and demonstrations, step through before/after frames with the action
marked, label a step good or bad (a person's verdict), delete an episode, export to a Hugging Face dataset."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMessageBox,
                               QPushButton, QSplitter, QVBoxLayout, QWidget)

from deskpilot.core.episode import Episode, delete_episode, label_steps, list_episodes, read_episode
from deskpilot.core.errors import DeskpilotError
from deskpilot.grounding.annotate import annotate

from .frame_view import FrameView

LABEL_MARKS = {"good": "✓", "bad": "✗", "unknown": "?"}


class EpisodesView(QWidget):
    status = Signal(str)

    def __init__(self, root: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.root = root
        self.episode: Episode | None = None
        self.episodes = QListWidget()
        self.steps = QListWidget()
        self.before, self.after = FrameView("before"), FrameView("after")
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.good, self.bad = QPushButton("✓ Good"), QPushButton("✗ Bad")
        self.delete, self.export, self.refresh_button = QPushButton("Delete"), QPushButton("Export…"), \
            QPushButton("Refresh")
        self._layout()
        self.episodes.currentRowChanged.connect(self._open_episode)
        self.steps.currentRowChanged.connect(self._show_step)
        self.good.clicked.connect(lambda: self.set_label("good"))
        self.bad.clicked.connect(lambda: self.set_label("bad"))
        self.delete.clicked.connect(self._delete)
        self.export.clicked.connect(self._export)
        self.refresh_button.clicked.connect(self.refresh)
        self.refresh()

    def _layout(self) -> None:
        left = QWidget()
        column = QVBoxLayout(left)
        column.addWidget(QLabel("Episodes"))
        column.addWidget(self.episodes, 3)
        column.addWidget(QLabel("Steps"))
        column.addWidget(self.steps, 4)
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.delete, self.export):
            buttons.addWidget(button)
        column.addLayout(buttons)
        right = QWidget()
        frames = QVBoxLayout(right)
        pair = QSplitter(Qt.Orientation.Horizontal)
        pair.addWidget(self.before)
        pair.addWidget(self.after)
        frames.addWidget(pair, 1)
        frames.addWidget(self.detail)
        labels = QHBoxLayout()
        labels.addStretch(1)
        labels.addWidget(self.good)
        labels.addWidget(self.bad)
        frames.addLayout(labels)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        QVBoxLayout(self).addWidget(split)

    def refresh(self) -> None:
        self.episodes.clear()
        for path in reversed(list_episodes(self.root)):
            try:
                meta = read_episode(path).meta
            except DeskpilotError as exc:
                self.status.emit(str(exc))
                continue
            item = QListWidgetItem(f"{'demo' if meta.source == 'demonstration' else 'agent'} · {meta.task}  "
                                   f"[{meta.outcome}]")
            item.setData(Qt.ItemDataRole.UserRole, str(path))
            self.episodes.addItem(item)
        if self.episodes.count():
            self.episodes.setCurrentRow(0)
        else:
            self._open_episode(-1)

    def _open_episode(self, row: int) -> None:
        self.steps.clear()
        self.episode = None
        if row >= 0:
            try:  # it may have been damaged or removed since the list was read
                self.episode = read_episode(self.episodes.item(row).data(Qt.ItemDataRole.UserRole))
            except DeskpilotError as exc:
                self.status.emit(str(exc))
            for step in self.episode.steps if self.episode else []:
                self.steps.addItem(self._step_text(step))
        has_steps = bool(self.episode and self.episode.steps)
        for button in (self.good, self.bad):
            button.setEnabled(has_steps)
        self.delete.setEnabled(self.episode is not None)
        if has_steps:
            self.steps.setCurrentRow(0)
        else:
            self._show_step(-1)

    @staticmethod
    def _step_text(step) -> str:  # noqa: ANN001 - a Step
        mark = LABEL_MARKS.get(step.verification.label, " ") if step.verification else " "
        return f"{mark} {step.index + 1}. {step.action.redacted().describe()}"

    def _show_step(self, row: int) -> None:
        if self.episode is None or row < 0:
            self.before.show_image(None)
            self.after.show_image(None)
            self.detail.setText("")
            return
        step = self.episode.steps[row]
        before = self.episode.frame(step.before)
        self.before.show_image(annotate(before, step.monitor_for(before), step.elements, step.action))
        self.after.show_image(self.episode.frame(step.after) if step.after else None)
        verdict = step.verification
        every = " · ".join(f"{name}: {label}" for name, label in ((verdict.checks or {}) if verdict else {}).items())
        said = (f"<i>{escape(verdict.label)}</i> {escape(verdict.reason)} ({escape(verdict.verifier)})" if verdict
                else "<i>unlabelled</i>")
        self.detail.setText(f"<b>{escape(step.action.redacted().describe())}</b><br>{escape(step.thought)}<br>"
                            + said + (f"<br>every verifier: {escape(every)}" if every else ""))

    def set_label(self, label: str) -> None:
        """A person's verdict on the current step, written into the episode at once."""
        row = self.steps.currentRow()
        if self.episode is None or row < 0:
            return
        from deskpilot.labelling.verifiers import human_verdict  # with OCR behind it: loaded when first needed

        steps = list(self.episode.steps)
        verdict = human_verdict(label)  # type: ignore[arg-type]
        try:
            label_steps(self.episode.directory, {steps[row].index: verdict})
        except DeskpilotError as exc:
            self.status.emit(str(exc))
            return
        steps[row].verification = verdict
        self.steps.item(row).setText(self._step_text(steps[row]))
        self._show_step(row)
        self.status.emit(f"step {row + 1} labelled {label}")

    def _delete(self) -> None:
        if self.episode is None:
            return
        answer = QMessageBox.question(self, "Delete episode", f"Delete “{self.episode.meta.task}” and its frames?")
        if answer == QMessageBox.StandardButton.Yes:
            self.delete_current()

    def delete_current(self) -> None:
        if self.episode is not None:
            try:
                delete_episode(self.episode.directory)
            except DeskpilotError as exc:
                self.status.emit(str(exc))
                return
            self.status.emit(f"deleted {self.episode.directory.name}")
            self.refresh()

    def _export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to a Hugging Face dataset folder")
        if folder:
            self.export_to(Path(folder))

    def export_to(self, folder: Path) -> None:
        from deskpilot.recorder.export import export_hf

        rows = export_hf(list_episodes(self.root), folder)
        self.status.emit(f"exported {rows} steps to {folder}")

"""The Episodes view: agent runs and demonstrations in a sortable, filterable table (date, task, planner, outcome,
steps, duration); an episode's steps with their verdict marks; the chosen step's before and after frames large
(the part around its target, so the control can be read), the action drawn on the before frame; a person's
good/bad per step; "replay from here" (on the Run view); delete with undo (the folder waits in the trash until the
next delete or the app's end); export to a Hugging Face dataset."""

from __future__ import annotations

import time
from html import escape
from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QAbstractItemView, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QListWidget, QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget)

from deskpilot.core.episode import (Episode, EpisodeMeta, empty_trash, label_steps, list_episodes, move_to_trash,
                                    read_episode, restore_from_trash)
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.grounding.annotate import annotate

from .frame_view import FrameView

LABEL_MARKS = {"good": "✓", "bad": "✗", "unknown": "?"}
COLUMNS = ("Date", "Task", "Planner", "Outcome", "Steps", "Duration")
SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # what a column sorts by (time, number) where its text would mislead
PATH_ROLE = Qt.ItemDataRole.UserRole
AROUND_TARGET = (800, 500)  # image pixels of a step's frames shown around its target


def episode_row(path: Path, meta: EpisodeMeta, steps: int) -> list[QStandardItem]:
    """The table's cells for one episode, each sorting by its value (dates by time, steps and durations by number)."""
    seconds = (meta.finished - meta.started) if meta.finished else None
    planner = "demonstration" if meta.source == "demonstration" else meta.model or "offline"
    cells = [(time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.started)), meta.started), (meta.task, meta.task),
             (planner, planner), (meta.outcome, meta.outcome), (str(steps), steps),
             (f"{seconds:.1f} s" if seconds is not None else "—", seconds if seconds is not None else -1.0)]
    row = []
    for text, value in cells:
        item = QStandardItem(text)
        item.setData(value, SORT_ROLE)
        item.setData(str(path), PATH_ROLE)
        item.setToolTip(text)
        item.setEditable(False)
        row.append(item)
    return row


def around_target(shape: tuple[int, ...], monitor: Monitor, point: Point | None) -> Box:
    """The part of a frame (image pixels) shown for a step: AROUND_TARGET around the action's point, so the control
    acted on can be read; the whole frame for an action without one."""
    height, width = shape[:2]
    frame = Box(0, 0, width, height)
    if point is None:
        return frame
    x, y = monitor.screen_to_image(point.x, point.y)
    half_w, half_h = AROUND_TARGET[0] // 2, AROUND_TARGET[1] // 2
    x0 = min(max(0, round(x) - half_w), max(0, width - AROUND_TARGET[0]))
    y0 = min(max(0, round(y) - half_h), max(0, height - AROUND_TARGET[1]))
    return Box(x0, y0, x0 + AROUND_TARGET[0], y0 + AROUND_TARGET[1]).clipped(frame)


class EpisodesView(QWidget):
    status = Signal(str)
    replay_requested = Signal(str, int)  # an episode folder, the index of the step to replay from

    def __init__(self, root: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.root = root
        empty_trash(root)  # what an earlier session deleted is gone for good now
        self.episode: Episode | None = None
        self.trashed: tuple[Path, str] | None = None  # the last deleted episode (where it waits, its task)
        self.model = QStandardItemModel(0, len(COLUMNS))
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.rows = QSortFilterProxyModel()
        self.rows.setSourceModel(self.model)
        self.rows.setSortRole(SORT_ROLE)
        self.rows.setFilterKeyColumn(-1)  # the filter matches any column
        self.rows.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.table = QTableView()
        self.table.setModel(self.rows)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("filter: words of the task, a planner, an outcome…")
        self.filter.setClearButtonEnabled(True)
        self.count = QLabel()
        self.steps = QListWidget()
        self.steps.setWordWrap(True)
        self.before, self.after = FrameView("before"), FrameView("after")
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.good, self.bad = QPushButton("✓ Good"), QPushButton("✗ Bad")
        self.replay = QPushButton("Replay from here")
        self.replay.setToolTip("replay this episode from the chosen step on the live screen (shown on the Run view)")
        self.delete, self.export, self.refresh_button = QPushButton("Delete"), QPushButton("Export…"), \
            QPushButton("Refresh")
        self.undo_note, self.undo = QLabel(), QPushButton("Undo")
        self._layout()
        self.filter.textChanged.connect(self._filter)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _: self._open(current.row()))
        self.steps.currentRowChanged.connect(self._show_step)
        self.good.clicked.connect(lambda: self.set_label("good"))
        self.bad.clicked.connect(lambda: self.set_label("bad"))
        self.replay.clicked.connect(self._replay)
        self.delete.clicked.connect(self.delete_current)
        self.undo.clicked.connect(self.undo_delete)
        self.export.clicked.connect(self._export)
        self.refresh_button.clicked.connect(self.refresh)
        self.refresh()

    def _layout(self) -> None:
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # the newest first, until a person sorts
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.count)
        for button in (self.refresh_button, self.export):
            top.addWidget(button)
        undo_bar = QHBoxLayout()
        undo_bar.addWidget(self.undo_note, 1)
        undo_bar.addWidget(self.undo)
        frames = QSplitter(Qt.Orientation.Horizontal)
        frames.addWidget(self.before)
        frames.addWidget(self.after)
        shown = QWidget()
        shown_column = QVBoxLayout(shown)
        shown_column.setContentsMargins(0, 0, 0, 0)
        shown_column.addWidget(frames, 1)
        shown_column.addWidget(self.detail)
        actions = QHBoxLayout()
        for button in (self.good, self.bad, self.replay):
            actions.addWidget(button)
        actions.addStretch(1)
        actions.addWidget(self.delete)
        shown_column.addLayout(actions)
        steps = QWidget()
        steps_column = QVBoxLayout(steps)
        steps_column.setContentsMargins(0, 0, 0, 0)
        steps_column.addWidget(QLabel("Steps"))
        steps_column.addWidget(self.steps, 1)
        below = QSplitter(Qt.Orientation.Horizontal)
        below.addWidget(steps)
        below.addWidget(shown)
        below.setSizes([300, 960])  # the frames get most of the width
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(below)
        split.setSizes([220, 560])  # and most of the height
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addLayout(undo_bar)
        column.addWidget(split, 1)
        self._show_undo(False)

    def refresh(self) -> None:
        """Read the episodes folder again (the table keeps its sort order and filter)."""
        self.model.removeRows(0, self.model.rowCount())
        for path in list_episodes(self.root):
            try:
                episode = read_episode(path)
            except DeskpilotError as exc:
                self.status.emit(str(exc))
                continue
            self.model.appendRow(episode_row(path, episode.meta, len(episode.steps)))
        self._counted()
        self._select_first()

    def _filter(self, text: str) -> None:
        self.rows.setFilterFixedString(text.strip())
        self._counted()
        self._select_first()

    def _counted(self) -> None:
        shown, total = self.rows.rowCount(), self.model.rowCount()
        self.count.setText(f"{shown} of {total} episodes" if shown != total else f"{total} episodes")

    def _select_first(self) -> None:
        if self.rows.rowCount():
            self.table.selectRow(0)
            self._open(0)
        else:
            self._open(-1)

    def path_at(self, row: int) -> Path:
        """The episode folder of the table's row `row` as shown (sorted and filtered)."""
        return Path(self.rows.index(row, 0).data(PATH_ROLE))

    def _open(self, row: int) -> None:
        self.steps.clear()
        self.episode = None
        if row >= 0:
            try:  # it may have been damaged or removed since the table was read
                self.episode = read_episode(self.path_at(row))
            except DeskpilotError as exc:
                self.status.emit(str(exc))
            for step in self.episode.steps if self.episode else []:
                self.steps.addItem(self._step_text(step))
        has_steps = bool(self.episode and self.episode.steps)
        for button in (self.good, self.bad, self.replay):
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
        try:
            before = self.episode.frame(step.before)
            monitor = step.monitor_for(before)
            shown = around_target(before.shape, monitor, step.action.point)
            marked = annotate(before, monitor, step.elements, step.action)
            self.before.show_image(marked[shown.y0:shown.y1, shown.x0:shown.x1])
            after = self.episode.frame(step.after) if step.after else None
            self.after.show_image(after[shown.y0:shown.y1, shown.x0:shown.x1] if after is not None else None)
        except DeskpilotError as exc:  # a frame lost or damaged: the rest of the episode still shows
            self.status.emit(str(exc))
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

    def _replay(self) -> None:
        row = self.steps.currentRow()
        if self.episode is not None and row >= 0:
            self.replay_requested.emit(str(self.episode.directory), self.episode.steps[row].index)

    def delete_current(self) -> None:
        """Delete the chosen episode, undoably: it waits in the trash until the next delete (or the app's end)."""
        if self.episode is None:
            return
        empty_trash(self.root)
        try:
            aside = move_to_trash(self.episode.directory)
        except DeskpilotError as exc:
            self.status.emit(str(exc))
            return
        self.trashed = (aside, self.episode.meta.task)
        self.undo_note.setText(f"Deleted “{self.episode.meta.task}”.")
        self._show_undo(True)
        self.status.emit(f"deleted {aside.name} (Undo brings it back)")
        self.refresh()

    def undo_delete(self) -> None:
        if self.trashed is None:
            return
        aside, task = self.trashed
        try:
            restore_from_trash(aside)
        except DeskpilotError as exc:
            self.status.emit(str(exc))
            return
        self.trashed = None
        self._show_undo(False)
        self.status.emit(f"restored “{task}”")
        self.refresh()

    def _show_undo(self, shown: bool) -> None:
        self.undo_note.setVisible(shown)
        self.undo.setVisible(shown)

    def _export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to a Hugging Face dataset folder")
        if folder:
            self.export_to(Path(folder))

    def export_to(self, folder: Path) -> None:
        from deskpilot.recorder.export import export_hf

        rows = export_hf(list_episodes(self.root), folder)
        self.status.emit(f"exported {rows} steps to {folder}")

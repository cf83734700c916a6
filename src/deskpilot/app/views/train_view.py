"""The Train view: choose data, base model and method, start `deskpilot train` in a separate process, watch its
progress and loss/reward curves live (read from the run's metrics.csv, the same file the CLI writes), cancel it,
and use the result as the planner. With rounds, it runs `deskpilot improve` instead (collect with the model, label,
train, score on held-out seeds, again) and draws each round's held-out success beside the current round's loss."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QProcess, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit,
                               QProgressBar, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from deskpilot.app.job_options import field_default, field_help
from deskpilot.evaluation.miniwob.tasks import DEFAULT_TASKS
from deskpilot.evaluation.rounds import RoundsConfig
from deskpilot.training.jobs import TrainRequest
from deskpilot.training.metrics import read_metrics

POLL_MS = 500
CURVES = ("loss", "reward")
SUCCESS_CURVE = "held-out success"


class TrainView(QWidget):
    status = Signal(str)
    use_model = Signal(str)  # a finished run's folder, to be used as the transformers planner's model
    finished = Signal(int)  # the training process's exit code

    def __init__(self, episodes_dir: Path, parent: QWidget | None = None):
        super().__init__(parent)
        # Defaults and help come from the jobs' config dataclasses, as the CLI's options do.
        self.method = QComboBox()
        self.method.addItems(["kto", "grpo", "sft"])
        self.model = QLineEdit()
        self.model.setPlaceholderText("base model folder, e.g. ~/models/UI-TARS-1.5-7B")
        self.model.setToolTip(field_help(TrainRequest, "model"))
        self.mode = QComboBox()
        self.mode.addItems(["native", "som-text"])
        self.mode.setCurrentText(field_default(TrainRequest, "mode"))
        self.mode.setToolTip(field_help(TrainRequest, "mode"))
        self.full = QCheckBox("all weights (for a model made by `deskpilot model init`)")
        self.full.setChecked(not field_default(TrainRequest, "lora"))
        self.full.setToolTip(field_help(TrainRequest, "lora"))
        self.data = QLineEdit(str(episodes_dir))
        self.out = QLineEdit(str(episodes_dir.parent / "runs" / "kto"))
        self.max_steps = QSpinBox()
        self.max_steps.setRange(0, 1_000_000)
        self.max_steps.setSpecialValueText("epochs from config")
        self.max_steps.setValue(100)
        self.max_steps.setToolTip(field_help(TrainRequest, "max_steps"))
        self.rounds = QSpinBox()
        self.rounds.setRange(0, 50)
        self.rounds.setSpecialValueText("none: one training run on the episodes")
        self.rounds.setToolTip("rounds of `deskpilot improve`: collect with the model on MiniWoB++, label, train, "
                               f"score on held-out seeds ({field_help(RoundsConfig, 'rounds')})")
        self.tasks = QLineEdit()
        self.tasks.setPlaceholderText(f"MiniWoB tasks for rounds, e.g. {','.join(DEFAULT_TASKS[:2])}")
        self.tasks.setToolTip(field_help(RoundsConfig, "tasks"))
        self.labeller = QComboBox()
        self.labeller.addItems(["env+heuristic", "rollout", "branch"])
        self.labeller.setCurrentText(field_default(RoundsConfig, "label"))
        self.labeller.setToolTip(field_help(RoundsConfig, "label"))
        self.start, self.cancel, self.use = QPushButton("Start"), QPushButton("Cancel"), QPushButton("Use as planner")
        self.progress = QProgressBar()
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.plot = _Plot()
        self._layout()
        self.process: QProcess | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.method.currentTextChanged.connect(lambda m: self.out.setText(str(Path(self.out.text()).parent / m)))
        self.start.clicked.connect(self.start_training)
        self.cancel.clicked.connect(self.cancel_training)
        self.use.clicked.connect(lambda: self.use_model.emit(self.result_model()))
        self._set_running(False)
        self.use.setEnabled(False)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Method", self.method)
        form.addRow("Base model", self.model)
        form.addRow("Prompt mode", self.mode)
        form.addRow("", self.full)
        form.addRow("Episodes", self.data)
        form.addRow("Output folder", self.out)
        form.addRow("Max steps", self.max_steps)
        form.addRow("Rounds", self.rounds)
        form.addRow("Round tasks", self.tasks)
        form.addRow("Round labels", self.labeller)
        buttons = QHBoxLayout()
        for button in (self.start, self.cancel, self.use):
            buttons.addWidget(button)
        buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.plot.widget, 3)
        column.addWidget(QLabel("Output"))
        column.addWidget(self.log, 1)

    def command(self) -> list[str]:
        if self.rounds.value():
            args = ["-m", "deskpilot.app", "improve", "--method", self.method.currentText(), "--model",
                    self.model.text().strip(), "--tasks", self.tasks.text().strip(), "--rounds",
                    str(self.rounds.value()), "--label", self.labeller.currentText(), "--out", self.out.text().strip()]
        else:
            args = ["-m", "deskpilot.app", "train", self.method.currentText(), "--model", self.model.text().strip(),
                    "--data", self.data.text().strip(), "--out", self.out.text().strip()]
            if self.mode.currentText() != "native":
                args += ["--mode", self.mode.currentText()]
        if self.max_steps.value():
            args += ["--max-steps", str(self.max_steps.value())]
        if self.full.isChecked():
            args.append("--full")
        return args

    def start_training(self) -> None:
        if not self.model.text().strip():
            self.status.emit("choose a base model folder first")
            return
        if self.rounds.value() and not self.tasks.text().strip():
            self.status.emit("rounds need the MiniWoB tasks to collect on")
            return
        self.log.clear()
        self.plot.clear()
        steps = self.max_steps.value()
        # 0..0 = busy indicator when the length is unknown; rounds count as the progress
        self.progress.setRange(0, self.rounds.value() if self.rounds.value() else steps)
        self.progress.setValue(0)
        if not self.rounds.value():
            (Path(self.out.text().strip()) / "metrics.csv").unlink(missing_ok=True)
        self.process = QProcess(self)
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        self.process.readyReadStandardOutput.connect(self._read_output)
        self.process.finished.connect(self._finished)
        self.process.start(sys.executable, self.command())
        self._set_running(True)
        self.timer.start()
        self.status.emit(f"training {self.method.currentText()} started")

    def cancel_training(self) -> None:
        """Stop the job: SIGTERM first (the trainer exits and keeps its last checkpoint), kill after 10 s."""
        if self.process is not None and self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.terminate()
            if not self.process.waitForFinished(10_000):
                self.process.kill()
            self.status.emit("training cancelled")

    def poll(self) -> None:
        out = Path(self.out.text().strip())
        if self.rounds.value():
            self._poll_rounds(out)
            return
        series = read_metrics(out)
        steps = [step for values in series.values() for step, _ in values]
        if steps and self.progress.maximum():
            self.progress.setValue(min(max(steps), self.progress.maximum()))
        self.plot.draw({name: values for name, values in series.items() if name in CURVES})

    def _poll_rounds(self, out: Path) -> None:
        """Held-out success by round (rounds.json) beside the loss of the round training now (or last)."""
        records = _rounds(out)
        trained = sorted((p for p in out.glob("round-*/model") if (p / "metrics.csv").is_file()),
                         key=lambda p: int(p.parent.name.split("-")[1]))
        curves = {name: values for name, values in (read_metrics(trained[-1]) if trained else {}).items()
                  if name in CURVES}
        if records:
            curves[SUCCESS_CURVE] = [(r["round"], r["mean_success"]) for r in records]
            self.progress.setValue(min(max(r["round"] for r in records), self.progress.maximum()))
        self.plot.draw(curves)

    def result_model(self) -> str:
        """The model to use after a run: the output folder, or the model `deskpilot improve` chose (the start unless
        a round beat it beyond the noise)."""
        out = Path(self.out.text().strip())
        if not self.rounds.value():
            return str(out)
        return _rounds_document(out).get("best_model") or str(out)

    def _read_output(self) -> None:
        if self.process is not None:
            text = bytes(self.process.readAllStandardOutput().data()).decode(errors="replace")
            for line in text.replace("\r", "\n").splitlines():
                if line.strip() and "it/s]" not in line and "s/it]" not in line:
                    self.log.appendPlainText(line)

    def _finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self.timer.stop()
        self.poll()
        self._set_running(False)
        ok = code == 0
        self.use.setEnabled(ok)
        if ok and self.progress.maximum():
            self.progress.setValue(self.progress.maximum())
        self.status.emit("training finished" if ok else f"training ended with exit code {code}")
        self.finished.emit(code)

    def _set_running(self, running: bool) -> None:
        self.start.setEnabled(not running)
        self.cancel.setEnabled(running)
        for field in (self.method, self.model, self.mode, self.full, self.data, self.out, self.max_steps,
                      self.rounds, self.tasks):
            field.setEnabled(not running)


def _rounds_document(out: Path) -> dict:
    """`deskpilot improve`'s rounds.json (empty while there is none, or while it is replaced)."""
    try:
        document = json.loads((out / "rounds.json").read_text())
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def _rounds(out: Path) -> list[dict]:
    """The records of `deskpilot improve`'s rounds, round 0 first."""
    records = _rounds_document(out).get("rounds")
    return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


class _Plot:
    """Loss and reward curves on a matplotlib Qt canvas (a note instead when matplotlib is not installed)."""

    def __init__(self) -> None:
        try:
            from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
            from matplotlib.figure import Figure
        except ImportError:
            self.canvas = None
            self.widget: QWidget = QLabel("curves need matplotlib: pip install 'deskpilot[train]'")
            return
        self.figure = Figure(figsize=(6, 2.6), tight_layout=True)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.widget = self.canvas
        self.curves: dict[str, list[tuple[int, float]]] = {}

    def clear(self) -> None:
        self.draw({})

    def draw(self, curves: dict[str, list[tuple[int, float]]]) -> None:
        if self.canvas is None or curves == getattr(self, "curves", None):
            return
        self.curves = curves
        self.figure.clear()
        for index, (name, values) in enumerate(sorted(curves.items()), 1):
            axis = self.figure.add_subplot(1, max(1, len(curves)), index)
            axis.plot([s for s, _ in values], [v for _, v in values], marker=".")
            axis.set_title(name, fontsize=9)
            axis.grid(alpha=0.3)
        self.canvas.draw_idle()

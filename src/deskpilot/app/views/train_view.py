"""The Train view: choose data, base model and method (folders picked or typed, checked before Start: what is
missing is said beside the button), start `deskpilot train` in a separate process, watch its progress with the time
left and its loss/reward curves live (read from the run's metrics.csv, the same file the CLI writes) and a readable
log, cancel it, compare the new model with the base on held-out episodes (`deskpilot eval steps` for each), and use
the result as the planner. With rounds, it runs `deskpilot improve` instead (collect with the model, label, train,
score on held-out seeds, again) and draws each round's held-out success beside the current round's loss."""

from __future__ import annotations

import ast
import json
import re
import sys
import time
from pathlib import Path

from PySide6.QtCore import QProcess, Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPlainTextEdit, QProgressBar, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from deskpilot.app.job_options import field_default, field_help
from deskpilot.core.episode import list_episodes
from deskpilot.evaluation.miniwob.tasks import DEFAULT_TASKS
from deskpilot.evaluation.rounds import RoundsConfig
from deskpilot.training.jobs import TrainRequest
from deskpilot.training.metrics import read_metrics

POLL_MS = 500
CURVES = ("loss", "reward")
SUCCESS_CURVE = "held-out success"
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")  # terminal colours and cursor moves
PROGRESS_BAR = re.compile(r"\d+%\|.*\||it/s\]|s/it\]")  # tqdm's bars: the progress bar above shows progress
COMPARED = ("parsed", "action_type", "click_in_box", "text_match", "exact")  # eval steps' figures compared


def readable(line: str) -> str | None:
    """A line of the training process's output as a person should read it: no terminal escapes, no progress bars
    (None), and the trainer's logged dicts ({'loss': 0.69, 'epoch': 0.5}) as "loss 0.69 · epoch 0.5"."""
    text = ESCAPES.sub("", line).strip()
    if not text or PROGRESS_BAR.search(text):
        return None
    if text.startswith("{") and text.endswith("}"):
        try:
            logged = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        if isinstance(logged, dict):
            return " · ".join(f"{key} {_number(value)}" for key, value in logged.items())
    return text


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def duration(seconds: float) -> str:
    """'about 40 s', 'about 3 min', 'about 1 h 20 min'."""
    if seconds < 60:
        return f"about {max(1, round(seconds))} s"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min"
    return f"about {int(seconds // 3600)} h {round(seconds % 3600 / 60)} min"


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
        self.held_out = QLineEdit()
        self.held_out.setPlaceholderText("episodes the model never trained on, to compare it with the base model")
        self.start, self.cancel, self.use = QPushButton("Start"), QPushButton("Cancel"), QPushButton("Use as planner")
        self.compare = QPushButton("Compare with the base model")
        self.compare.setToolTip("`deskpilot eval steps` for the base model and the new one on the held-out episodes")
        self.problems = QLabel()  # what must be fixed before Start, beside it
        self.problems.setStyleSheet("color: #b3261e")
        self.problems.setWordWrap(True)
        self.comparison = QLabel()
        self.comparison.setTextFormat(Qt.TextFormat.RichText)
        self.progress = QProgressBar()
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.plot = _Plot()
        self._layout()
        self.process: QProcess | None = None
        self.started_at = 0.0
        self.evaluations: list[tuple[str, str]] = []  # (name, model) still to evaluate for the comparison
        self.scores: dict[str, dict] = {}  # name -> eval steps' report
        self.evaluating: QProcess | None = None  # the comparison's `eval steps` running now
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.method.currentTextChanged.connect(lambda m: self.out.setText(str(Path(self.out.text()).parent / m)))
        self.start.clicked.connect(self.start_training)
        self.cancel.clicked.connect(self.cancel_training)
        self.use.clicked.connect(lambda: self.use_model.emit(self.result_model()))
        self.compare.clicked.connect(self.start_comparison)
        for field in (self.model, self.data, self.out, self.tasks, self.held_out):
            field.textChanged.connect(self.check_inputs)
        self.rounds.valueChanged.connect(self.check_inputs)
        self._set_running(False)
        self.use.setEnabled(False)
        self.compare.setEnabled(False)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Method", self.method)
        form.addRow("Base model", self._with_picker(self.model, "Base model folder"))
        form.addRow("Prompt mode", self.mode)
        form.addRow("", self.full)
        form.addRow("Episodes", self._with_picker(self.data, "Episodes to train on"))
        form.addRow("Output folder", self._with_picker(self.out, "Where the new model goes"))
        form.addRow("Max steps", self.max_steps)
        form.addRow("Rounds", self.rounds)
        form.addRow("Round tasks", self.tasks)
        form.addRow("Round labels", self.labeller)
        form.addRow("Held-out episodes", self._with_picker(self.held_out, "Episodes to compare the models on"))
        buttons = QHBoxLayout()
        for button in (self.start, self.cancel, self.use, self.compare):
            buttons.addWidget(button)
        buttons.addWidget(self.problems, 1)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.comparison)
        column.addWidget(self.plot.widget, 3)
        column.addWidget(QLabel("Output"))
        column.addWidget(self.log, 1)

    def _with_picker(self, field: QLineEdit, title: str) -> QWidget:
        """The field with a Browse… button beside it that picks a folder into it."""
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(field, 1)
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda: self._pick(field, title))
        line.addWidget(browse)
        field.setProperty("picker", browse)
        return row

    def _pick(self, field: QLineEdit, title: str) -> None:
        folder = QFileDialog.getExistingDirectory(self, title, field.text().strip() or str(Path.home()))
        if folder:
            field.setText(folder)

    @staticmethod
    def _path(field: QLineEdit) -> Path:
        """A folder field's path as the checks and the commands both read it (~ expanded)."""
        return Path(field.text().strip()).expanduser()

    def input_problems(self) -> list[str]:
        """What stops a run from starting, each said so a person can fix it."""
        problems = []
        model = self._path(self.model)
        if not self.model.text().strip():
            problems.append("choose the base model folder")
        elif not model.is_dir():
            problems.append(f"no base model folder at {model}")
        elif not any((model / name).is_file() for name in ("config.json", "adapter_config.json")):
            problems.append(f"{model} holds no model (no config.json): make one with `deskpilot model init`")
        if self.rounds.value():
            if not self.tasks.text().strip():
                problems.append("rounds need the MiniWoB tasks to collect on")
        else:
            data = self._path(self.data)
            if not data.is_dir():
                problems.append(f"no episodes folder at {data}")
            elif not list_episodes(data):
                problems.append(f"{data} holds no episodes: run or record some first")
        out = self._path(self.out)
        if not self.out.text().strip():
            problems.append("choose an output folder")
        elif out.exists() and not out.is_dir():
            problems.append(f"{out} is a file, not a folder")
        held_out = self.held_out.text().strip()
        if held_out and not list_episodes(self._path(self.held_out)):
            problems.append(f"no episodes in the held-out folder {held_out}")
        return problems

    def check_inputs(self) -> bool:
        """Say what must be fixed beside Start, which stays off until nothing is; True when the inputs hold."""
        problems = self.input_problems()
        self.problems.setText("; ".join(problems))
        running = self.process is not None and self.process.state() != QProcess.ProcessState.NotRunning
        self.start.setEnabled(not problems and not running)
        return not problems

    def command(self) -> list[str]:
        if self.rounds.value():
            args = ["-m", "deskpilot.app", "improve", "--method", self.method.currentText(), "--model",
                    str(self._path(self.model)), "--tasks", self.tasks.text().strip(), "--rounds",
                    str(self.rounds.value()), "--label", self.labeller.currentText(), "--out",
                    str(self._path(self.out))]
        else:
            args = ["-m", "deskpilot.app", "train", self.method.currentText(), "--model", str(self._path(self.model)),
                    "--data", str(self._path(self.data)), "--out", str(self._path(self.out))]
            if self.mode.currentText() != "native":
                args += ["--mode", self.mode.currentText()]
        if self.max_steps.value():
            args += ["--max-steps", str(self.max_steps.value())]
        if self.full.isChecked():
            args.append("--full")
        return args

    def start_training(self) -> None:
        if not self.check_inputs():
            self.status.emit(f"cannot start: {self.problems.text()}")
            return
        self.log.clear()
        self.plot.clear()
        self.comparison.clear()
        self.compare.setEnabled(False)
        self.started_at = time.monotonic()
        steps = self.max_steps.value()
        # 0..0 = busy indicator when the length is unknown; rounds count as the progress
        self.progress.setRange(0, self.rounds.value() if self.rounds.value() else steps)
        self.progress.setValue(0)
        self.progress.setFormat("%v / %m rounds" if self.rounds.value() else "%v / %m steps")
        if not self.rounds.value():
            (self._path(self.out) / "metrics.csv").unlink(missing_ok=True)
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
        out = self._path(self.out)
        if self.rounds.value():
            self._poll_rounds(out)
            return
        series = read_metrics(out)
        steps = [step for values in series.values() for step, _ in values]
        if steps and self.progress.maximum():
            self.progress.setValue(min(max(steps), self.progress.maximum()))
            self._say_time_left()
        self.plot.draw({name: values for name, values in series.items() if name in CURVES})

    def _say_time_left(self) -> None:
        done, total = self.progress.value(), self.progress.maximum()
        unit = "rounds" if self.rounds.value() else "steps"
        if 0 < done < total:
            left = (time.monotonic() - self.started_at) / done * (total - done)
            self.progress.setFormat(f"%v / %m {unit} · {duration(left)} left")
        else:
            self.progress.setFormat(f"%v / %m {unit}")

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
            self._say_time_left()
        self.plot.draw(curves)

    def result_model(self) -> str:
        """The model to use after a run: the output folder, or the model `deskpilot improve` chose (the start unless
        a round beat it beyond the noise)."""
        out = self._path(self.out)
        if not self.rounds.value():
            return str(out)
        return _rounds_document(out).get("best_model") or str(out)

    def _read_output(self) -> None:
        if self.process is not None:
            text = bytes(self.process.readAllStandardOutput().data()).decode(errors="replace")
            for line in text.replace("\r", "\n").splitlines():
                shown = readable(line)
                if shown:
                    self.log.appendPlainText(shown)

    def _finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self.timer.stop()
        self.poll()
        self._set_running(False)
        ok = code == 0
        self.use.setEnabled(ok)
        self.compare.setEnabled(ok)
        if ok and self.progress.maximum():
            self.progress.setValue(self.progress.maximum())
        self._say_time_left()
        self.process = None
        self.check_inputs()
        self.status.emit("training finished" if ok else f"training ended with exit code {code}")
        self.finished.emit(code)

    def start_comparison(self) -> None:
        """`deskpilot eval steps` on the held-out episodes for the base model, then for the new one; the table
        comes when both are in."""
        if not self.held_out.text().strip() or not list_episodes(self._path(self.held_out)):
            self.problems.setText("choose the held-out episodes folder to compare on")
            return
        self.scores = {}
        self.evaluations = [("base", str(self._path(self.model))), ("new", self.result_model())]
        self.compare.setEnabled(False)
        self.comparison.setText("comparing on the held-out episodes…")
        self._evaluate_next()

    def _evaluate_next(self) -> None:
        name, model = self.evaluations.pop(0)
        process = QProcess(self)
        process.finished.connect(lambda code, _status: self._evaluated(name, process, code))
        process.start(sys.executable, ["-m", "deskpilot.app", "eval", "steps", "--model", model, "--data",
                                       str(self._path(self.held_out)), "--mode", self.mode.currentText(), "--json"])
        self.evaluating = process

    def _evaluated(self, name: str, process: QProcess, code: int) -> None:
        said = bytes(process.readAllStandardOutput().data()).decode(errors="replace").strip().splitlines()
        try:
            self.scores[name] = json.loads(said[-1]) if code == 0 and said else {}
        except ValueError:
            self.scores[name] = {}
        if not self.scores[name]:
            error = bytes(process.readAllStandardError().data()).decode(errors="replace").strip().splitlines()
            self.log.appendPlainText(f"eval steps for the {name} model failed: {(error or ['no output'])[-1]}")
        if self.evaluations:
            self._evaluate_next()
            return
        self.comparison.setText(comparison_table(self.scores))
        self.compare.setEnabled(True)
        self.status.emit("comparison done")

    def _set_running(self, running: bool) -> None:
        self.cancel.setEnabled(running)
        for field in (self.method, self.model, self.mode, self.full, self.data, self.out, self.max_steps,
                      self.rounds, self.tasks, self.held_out):
            field.setEnabled(not running)
            picker = field.property("picker")
            if picker is not None:
                picker.setEnabled(not running)
        if running:
            self.start.setEnabled(False)
        else:
            self.check_inputs()


def comparison_table(scores: dict[str, dict]) -> str:
    """The base and the new model's held-out step accuracy side by side (rich text)."""
    def cell(name: str, metric: str) -> str:
        value = (scores.get(name) or {}).get("metrics", {}).get(metric)
        return "—" if value is None else f"{value:.3f}"

    steps = next((report["steps"] for report in scores.values() if report), 0)
    rows = "".join(f"<tr><td>{metric.replace('_', ' ')}</td><td align='right'>{cell('base', metric)}</td>"
                   f"<td align='right'>{cell('new', metric)}</td></tr>" for metric in COMPARED)
    return (f"<b>On {steps} held-out steps</b><table cellspacing='6'><tr><th></th><th>base model</th>"
            f"<th>new model</th></tr>{rows}</table>")


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

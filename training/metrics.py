"""Training progress you can watch from outside the process: every logged metric appended to `metrics.csv`
(`step,name,value,time`, one row per value, flushed at once, so the app's training tab and `tail -f` see it
live) and, at the end, `metrics.png` with the loss and reward curves."""

from __future__ import annotations

import csv
import math
import time
from collections import defaultdict
from pathlib import Path

from transformers import TrainerCallback

METRICS_FILE = "metrics.csv"
PLOT_FILE = "metrics.png"
PLOTTED = ("loss", "reward", "rewards/", "kl", "learning_rate")


class MetricsLog(TrainerCallback):
    """Appends each `on_log` dict to metrics.csv (main process only)."""

    def __init__(self, folder: Path):
        self.path = folder / METRICS_FILE

    def on_train_begin(self, args, state, control, **kwargs):  # noqa: ANN001, ANN201 - transformers' signature
        if state.is_world_process_zero:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w", newline="", encoding="utf-8") as handle:
                csv.writer(handle).writerow(["step", "name", "value", "time"])

    def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001, ANN201
        if not state.is_world_process_zero or not logs:
            return
        now = round(time.time(), 3)
        with self.path.open("a", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            for name, value in logs.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    writer.writerow([state.global_step, name, value, now])


def read_metrics(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """metrics.csv -> {name: [(step, value), ...]} (finite values only); empty when there is none yet."""
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    path = folder / METRICS_FILE
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            try:
                value = float(row["value"])
                step = int(row["step"])
            except (KeyError, TypeError, ValueError):
                continue  # a row being written right now
            if math.isfinite(value):
                series[row["name"]].append((step, value))
    return dict(series)


def plotted_names(series: dict[str, list[tuple[int, float]]]) -> list[str]:
    """The curves worth drawing: losses, rewards and KL, each logged at more than one step or at least once."""
    return [name for name in sorted(series)
            if any(name == key or name.startswith(key) or name.endswith("/" + key) for key in PLOTTED)
            and name != "train_loss" and not name.endswith("_std")]


def plot_metrics(folder: Path) -> Path | None:
    """Draw metrics.csv into metrics.png (one panel per curve); None when nothing was logged."""
    series = read_metrics(folder)
    names = plotted_names(series)
    if not names:
        return None
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    columns = min(3, len(names))
    rows = math.ceil(len(names) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3 * rows), squeeze=False)
    for axis, name in zip(axes.flat, names):
        steps, values = zip(*series[name])
        axis.plot(steps, values, marker="." if len(steps) < 30 else None)
        axis.set_title(name, fontsize=9)
        axis.set_xlabel("step", fontsize=8)
        axis.grid(alpha=0.3)
    for axis in list(axes.flat)[len(names):]:
        axis.set_visible(False)
    figure.tight_layout()
    path = folder / PLOT_FILE
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path

"""Training progress you can watch from outside the process: every logged metric is appended to `metrics.csv`
(`step,name,value,time`, one row per value, written by trainers.MetricsLog as it is logged, so the app's Train
view and `tail -f` see it live); at the end `metrics.png` shows the loss and reward curves. Reading and plotting
need no torch, so the app stays light."""

from __future__ import annotations

import csv
import math
import time
from collections import defaultdict
from pathlib import Path

METRICS_FILE = "metrics.csv"
PLOT_FILE = "metrics.png"
PLOTTED = ("loss", "reward", "rewards/", "kl", "learning_rate")


class MetricsWriter:
    """Appends metrics to `folder`/metrics.csv; `start` begins a fresh file."""

    def __init__(self, folder: Path):
        self.path = folder / METRICS_FILE

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerow(["step", "name", "value", "time"])

    def write(self, step: int, values: dict[str, object]) -> None:
        now = round(time.time(), 3)
        with self.path.open("a", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            for name, value in values.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    writer.writerow([step, name, value, now])


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

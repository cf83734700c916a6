"""Which device each of grounding's models runs on when its setting is `auto`. Where onnxruntime-gpu sees a GPU, the
model's own workload (what one screen asks of it, on a sample screen drawn here) is timed on the CPU and on CUDA
the first time the model loads,
and the faster device is kept in a cache (~/.cache/deskpilot/devices.json) keyed by the model file, the ONNX Runtime
package and this machine's processors and GPUs, so it is measured again only when one of those changes. Many small
runs of varying shapes can make a GPU slower than the CPU beside it (kernel selection, launches and copies per
run); measuring is the only honest way to know."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cache
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from deskpilot.core.errors import GroundingError
from deskpilot.core.files import cache_dir, write_atomic
from deskpilot.core.geometry import Box

log = logging.getLogger(__name__)
REPEATS = 5  # timed runs of a workload per device (the median is kept), after WARM_UP untimed ones
METHOD = 2  # how models run on CUDA (2: a session per input shape); a choice measured under another is measured again
WARM_UP = 3  # runs that pay first-run set-up: memory arenas, CUDA's kernels loaded on first use, cuDNN's choices


@dataclass(frozen=True)
class SampleScreen:
    """A 1280x800 screen drawn here (a panel, a form in its window, a file list, a small dialog: ~100 lines of text
    in separate regions of different sizes, as a desktop has them), on which each model's workload is timed: the
    same on every machine, no file needed. The regions' different sizes matter: on a GPU a run whose input shape
    differs from the one before can cost many times a run that repeats it."""

    image: np.ndarray  # RGB
    lines: tuple[Box, ...]

    def line_crops(self) -> list[np.ndarray]:
        """Each text line's crop, BGR as the recognisers take them."""
        return [np.ascontiguousarray(self.image[b.y0:b.y1, b.x0:b.x1, ::-1]) for b in self.lines]


@cache
def sample_screen() -> SampleScreen:
    image = np.full((800, 1280, 3), (58, 90, 122), np.uint8)
    lines: list[Box] = []

    def text(x: int, y: int, words: str, colour: tuple[int, int, int] = (20, 20, 20)) -> None:
        (width, height), baseline = cv2.getTextSize(words, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
        cv2.putText(image, words, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
        lines.append(Box(x - 3, y - height - 3, x + width + 3, y + baseline + 3))

    cv2.rectangle(image, (0, 0), (1280, 26), (32, 32, 40), -1)  # a panel
    for index, word in enumerate(("Activities", "Editor", "Files", "Terminal")):
        text(12 + 110 * index, 18, word, (230, 230, 230))
    text(1190, 18, "10:42", (230, 230, 230))
    cv2.rectangle(image, (30, 110), (560, 790), (240, 240, 240), -1)  # a form in its window
    cv2.rectangle(image, (30, 110), (560, 138), (48, 48, 64), -1)
    text(42, 129, "Quarterly report.odt - Editor", (255, 255, 255))
    for index, word in enumerate(("File", "Edit", "View", "Insert", "Format", "Help")):
        text(42 + 70 * index, 160, word)
    fields = ("Name", "Email address", "Phone", "Street", "City", "Postcode", "Country", "Company", "Job title",
              "Notes", "Start date", "Amount")
    values = ("Ada Lovelace", "ada@example.org", "+44 20 7946 0958", "12 Analytical Row", "London", "NW1 2DB",
              "United Kingdom", "Difference Engines Ltd", "Programmer", "Call after 3 pm", "10/12/2026", "1,250.00")
    for row, (field, value) in enumerate(zip(fields, values)):
        y = 200 + 40 * row
        text(46, y, field)
        cv2.rectangle(image, (190, y - 18), (540, y + 8), (255, 255, 255), -1)
        cv2.rectangle(image, (190, y - 18), (540, y + 8), (150, 150, 150), 1)
        text(198, y, value)
    for index, label in enumerate(("OK", "Cancel", "Apply", "Help")):
        x = 46 + 110 * index
        cv2.rectangle(image, (x, 700), (x + 96, 730), (225, 225, 230), -1)
        text(x + 12, 721, label)
    cv2.rectangle(image, (690, 110), (1250, 540), (250, 250, 250), -1)  # a file list in another window
    for row in range(17):
        y = 135 + 24 * row
        text(700, y, f"Document {row + 1:02d} - minutes.txt")
        text(1010, y, f"{(row * 37) % 900 + 12} KB")
        text(1100, y, f"{row % 28 + 1:02d}/11/2026")
    cv2.rectangle(image, (760, 650), (1160, 770), (236, 236, 236), -1)  # a small dialog
    text(780, 690, "Save changes before closing?")
    for index, label in enumerate(("Save", "Discard", "Cancel")):
        text(790 + 120 * index, 745, label)
    return SampleScreen(image, tuple(lines))


@dataclass(frozen=True)
class Choice:
    """The device a model runs on under `auto`, and the figures it was chosen by (milliseconds per workload, the
    median of REPEATS; cuda_ms None where CUDA could not run it)."""

    model: str
    device: str
    cpu_ms: float
    cuda_ms: float | None
    measured: str

    def describe(self) -> str:
        cuda = f"{self.cuda_ms:.1f} ms" if self.cuda_ms is not None else "unavailable"
        return f"{self.device} (measured {self.measured}: cpu {self.cpu_ms:.1f} ms, cuda {cuda})"


def cache_file() -> Path:
    return cache_dir() / "devices.json"


def cuda_listed() -> bool:
    """Whether ONNX Runtime offers CUDA here (onnxruntime-gpu installed; a GPU may still be missing)."""
    import onnxruntime as ort

    return "CUDAExecutionProvider" in ort.get_available_providers()


def resolve(setting: str, model: Path, workload: str, measure: Callable[[str], float]) -> tuple[str, Choice | None]:
    """The device for a model under `setting` (auto | cpu | cuda), with the Choice when `auto` measured it (now or on
    an earlier load). `measure(device)` runs the model's workload once on that device and returns its milliseconds;
    it raises GroundingError where the device cannot run it."""
    if setting == "cpu":
        return "cpu", None
    if setting == "cuda":
        if not cuda_listed():
            raise GroundingError("CUDA was asked for, but onnxruntime has no CUDA provider here (install "
                                 "onnxruntime-gpu on a machine with an NVIDIA GPU)")
        return "cuda", None
    if not cuda_listed():
        return "cpu", None
    choice = choose(model, workload, measure)
    return choice.device, choice


def choose(model: Path, workload: str, measure: Callable[[str], float], machine: str | None = None) -> Choice:
    """The cached Choice for this model, workload and machine, else both devices measured now and the faster kept."""
    key = _key(model, workload, machine if machine is not None else machine_signature())
    known = _cached().get(key)
    if isinstance(known, dict):
        with contextlib.suppress(TypeError):
            return Choice(**known)
    cpu = _median(measure, "cpu")
    try:
        cuda: float | None = _median(measure, "cuda")
    except GroundingError as exc:
        log.info("%s cannot run on CUDA here: %s", workload, exc)
        cuda = None
    device = "cuda" if cuda is not None and cuda < cpu else "cpu"
    choice = Choice(workload, device, round(cpu, 2), None if cuda is None else round(cuda, 2),
                    datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    _remember(key, choice)
    return choice


def _median(measure: Callable[[str], float], device: str) -> float:
    warm_up = [measure(device) for _ in range(WARM_UP)]
    timed = [measure(device) for _ in range(REPEATS)]
    log.debug("%s runs: warm-up %s, timed %s", device, warm_up, timed)
    return statistics.median(timed)


def timed_ms(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def machine_signature() -> str:
    """This machine's processors, GPUs and driver, and the ONNX Runtime package: what a measurement depends on."""
    parts = [_cpu_model(), str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()),
             *_gpus(), *_onnxruntime()]
    return "|".join(parts)


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return os.uname().machine


def _gpus() -> list[str]:
    """GPU names and the driver version: from the NVIDIA driver's /proc files, else nvidia-smi."""
    folder = Path("/proc/driver/nvidia")
    with contextlib.suppress(OSError):
        names = sorted(line.split(":", 1)[1].strip() for info in folder.glob("gpus/*/information")
                       for line in info.read_text().splitlines() if line.startswith("Model:"))
        version = (folder / "version").read_text().splitlines()[0]
        return [*names, version]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10, check=True)
        return sorted(done.stdout.splitlines())
    return ["no GPU driver found"]


def _onnxruntime() -> list[str]:
    found = []
    for name in ("onnxruntime-gpu", "onnxruntime"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found.append(f"{name} {metadata.version(name)}")
    return found


def _key(model: Path, workload: str, machine: str) -> str:
    stat = model.stat()
    described = f"{model.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{workload}|{machine}|{METHOD}"
    return hashlib.sha256(described.encode()).hexdigest()[:24]


def _cached() -> dict[str, Any]:
    try:
        data = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember(key: str, choice: Choice) -> None:
    """Adds the choice to the cache file (written whole or not at all; a cache that cannot be written costs a new
    measurement next time, nothing else)."""
    path = cache_file()
    data = _cached()
    data[key] = asdict(choice)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(data, indent=1).encode())
    except OSError as exc:
        log.debug("device choice not cached: %s", exc)

"""Grounding on the device that is faster on this machine: `auto` measures each model's workload (on a sample screen
drawn here) on the CPU and on CUDA once, keeps the faster in a cache keyed by the model, the package and the
machine, and measures again only when one of those changes; a broken cache costs a measurement, never an error. On
a machine without CUDA nothing is measured and everything runs on the CPU."""

from __future__ import annotations

import json

import onnxruntime
import pytest

from deskpilot.core.errors import GroundingError
from deskpilot.grounding import device_choice
from deskpilot.grounding.device_choice import choose, resolve, sample_screen
from deskpilot.grounding.ocr import OcrEngine
from deskpilot.grounding.text_detector import bundled_model as bundled_text_detector
from deskpilot.grounding.text_recognizer import bundled_model as bundled_recognizer

CUDA_HERE = "CUDAExecutionProvider" in onnxruntime.get_available_providers()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "deskpilot" / "devices.json"


class Workload:
    """A measure() whose device times are given, counting how often each device was run."""

    def __init__(self, cpu: float, cuda: float | None):
        self.times = {"cpu": cpu, "cuda": cuda}
        self.runs = {"cpu": 0, "cuda": 0}

    def __call__(self, device: str) -> float:
        self.runs[device] += 1
        figure = self.times[device]
        if figure is None:
            raise GroundingError("the model cannot run on CUDA here")
        return figure


def test_the_faster_device_is_chosen_once_and_remembered_until_the_machine_or_model_changes(cache, tmp_path):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights")
    slow_gpu = Workload(cpu=12.0, cuda=40.0)
    choice = choose(model, "text recogniser", slow_gpu, machine="h100|onnxruntime-gpu 1.31.1")
    assert (choice.device, choice.cpu_ms, choice.cuda_ms) == ("cpu", 12.0, 40.0)
    runs = device_choice.WARM_UP + device_choice.REPEATS
    assert slow_gpu.runs == {"cpu": runs, "cuda": runs}
    assert "cpu 12.0 ms, cuda 40.0 ms" in choice.describe()
    again = choose(model, "text recogniser", slow_gpu, machine="h100|onnxruntime-gpu 1.31.1")
    assert again == choice and slow_gpu.runs["cpu"] == runs  # from the cache, not measured
    fast_gpu = Workload(cpu=12.0, cuda=3.0)
    assert choose(model, "text recogniser", fast_gpu, machine="h100|onnxruntime-gpu 1.32.0").device == "cuda"
    assert choose(model, "detector", fast_gpu, machine="h100|onnxruntime-gpu 1.31.1").device == "cuda"
    model.write_bytes(b"retrained weights")  # a new model file is measured again
    assert choose(model, "text recogniser", fast_gpu, machine="h100|onnxruntime-gpu 1.31.1").device == "cuda"
    assert len(json.loads(cache.read_text())) == 4


def test_a_gpu_that_cannot_run_the_model_and_a_broken_cache_leave_the_cpu(cache, tmp_path, monkeypatch):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights")
    cache.parent.mkdir(parents=True)
    cache.write_text("{not json")
    choice = choose(model, "detector", Workload(cpu=5.0, cuda=None), machine="a laptop")
    assert choice.device == "cpu" and choice.cuda_ms is None and "cuda unavailable" in choice.describe()
    cache.write_text(json.dumps({"x": "y"}))
    assert choose(model, "detector", Workload(cpu=5.0, cuda=1.0), machine="another").device == "cuda"
    blocked = tmp_path / "blocked"  # a cache that cannot be written (a file where its folder goes): measured, used
    blocked.mkdir()
    (blocked / "deskpilot").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert choose(model, "detector", Workload(cpu=5.0, cuda=1.0), machine="third").device == "cuda"
    assert (blocked / "deskpilot").read_text() == "not a folder"


def test_the_machine_signature_names_the_processors_and_the_package():
    signature = device_choice.machine_signature()
    assert f"onnxruntime {onnxruntime.__version__}" in signature or "onnxruntime-gpu" in signature
    assert signature.split("|")[1].isdigit()


@pytest.mark.skipif(CUDA_HERE, reason="this machine has CUDA: auto measures here")
def test_without_cuda_auto_is_the_cpu_and_nothing_is_measured(cache, tmp_path):
    never = Workload(cpu=1.0, cuda=1.0)
    assert resolve("auto", tmp_path / "any.onnx", "detector", never) == ("cpu", None)
    assert resolve("cpu", tmp_path / "any.onnx", "detector", never) == ("cpu", None)
    with pytest.raises(GroundingError, match="no CUDA provider"):
        resolve("cuda", tmp_path / "any.onnx", "detector", never)
    assert never.runs == {"cpu": 0, "cuda": 0} and not cache.exists()
    engine = OcrEngine(recognizer=bundled_recognizer(), text_detector=bundled_text_detector())
    assert {device for device, _ in engine.devices().values()} == {"cpu"}
    assert all(choice is None for _, choice in engine.devices().values())


def test_each_models_workload_is_its_share_of_the_sample_screen():
    """The workloads device_choice times are the models' real work on a screen with ~100 lines of text: the
    engine reads the sample screen's lines as drawn."""
    screen = sample_screen()
    assert screen.image.shape == (800, 1280, 3) and len(screen.lines) >= 90
    engine = OcrEngine(recognizer=bundled_recognizer(), text_detector=bundled_text_detector())
    texts = {line.text for line in engine.read(screen.image)}
    assert {"Ada Lovelace", "Email address", "Cancel", "Postcode"} <= texts, texts
    assert len(engine.find_text(screen.image)) >= 0.9 * len(screen.lines)

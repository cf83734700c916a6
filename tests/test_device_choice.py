"""Grounding on the device that is faster on this machine: `auto` measures each model's workload (on a sample screen
drawn here) on the CPU and on CUDA once, keeps the faster in a cache keyed by the model, the package and the
machine, and measures again only when one of those changes; a broken cache costs a measurement, never an error. On
a machine without CUDA nothing is measured and everything runs on the CPU."""

from __future__ import annotations

import json

import numpy as np
import onnxruntime
import pytest

from deskpilot.core.errors import GroundingError
from deskpilot.grounding import device_choice, onnx_session
from deskpilot.grounding.device_choice import choose, resolve, sample_screen
from deskpilot.grounding.onnx_graph import byte_input, simplified
from deskpilot.grounding.ctc import greedy_decode
from deskpilot.grounding.ocr import REC_MODEL, OcrEngine, models_dir
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


def test_the_ladder_pads_a_side_by_at_most_a_third_and_keeps_the_models_multiples():
    rungs = sorted({onnx_session.ladder(size, 64) for size in range(1, 3000)})
    assert rungs[:6] == [64, 96, 128, 192, 256, 384] and len(rungs) == 12  # 1 .. 3000 px in 12 shapes
    assert all(onnx_session.ladder(size, 64) < 1.5 * size for size in range(64, 3000))
    assert all(rung % 32 == 0 for rung in rungs)  # the detectors' coarsest stride; the recogniser's 4 too


def test_on_cuda_each_input_shape_has_its_own_session_and_the_oldest_goes(monkeypatch):
    """ShapeSessions (what open_session gives on CUDA) with CPU sessions standing in: one session per input shape,
    made on its first run; the same outputs as one session; past the limit the least recently used goes."""
    opened = []

    def open_one():
        opened.append(onnx_session.open_session(bundled_recognizer(), "cpu", what="text recogniser"))
        return opened[-1]

    plain = onnx_session.open_session(bundled_recognizer(), "cpu")
    shaped = onnx_session.ShapeSessions(open_one, limit=2)
    assert onnx_session.fixed_shapes(shaped) and not onnx_session.fixed_shapes(plain)
    assert onnx_session.session_device(shaped) == "cpu" and len(opened) == 1  # opened at once: errors come now
    name = plain.get_inputs()[0].name
    batches = [np.random.default_rng(width).random((16, 1, 32, width), np.float32) for width in (64, 96, 64, 128)]
    for batch in batches:
        assert np.allclose(shaped.run(None, {name: batch})[0], plain.run(None, {name: batch})[0], atol=1e-5)
    assert len(opened) == 3 and shaped.shapes == 2  # 64 reused; 96 went when 128 came (64 was used after it)
    shaped.run(None, {name: batches[0]})
    assert len(opened) == 3  # 64 kept its session


class _Counted:
    """A session that counts its runs."""

    def __init__(self, session):
        self.session, self.runs = session, 0

    def run(self, output_names, input_feed):
        self.runs += 1
        return self.session.run(output_names, input_feed)


def test_under_auto_a_new_shape_runs_on_the_stand_in_while_its_own_session_is_made(caplog):
    """ShapeSessions with a stand-in (auto's CPU session): a shape's first run goes to the stand-in and its own
    session is made and warmed on a background thread; once made, the shape runs there. A shape whose session
    cannot be made stays on the stand-in, said in the log."""
    opened = []

    def open_one():
        if len(opened) == 3:
            raise RuntimeError("out of GPU memory\nmore detail")
        opened.append(_Counted(onnx_session.open_session(bundled_recognizer(), "cpu", what="text recogniser")))
        return opened[-1]

    plain = onnx_session.open_session(bundled_recognizer(), "cpu")
    stand_in = _Counted(plain)
    shaped = onnx_session.ShapeSessions(open_one)
    shaped.stand_in_with(stand_in)
    name = plain.get_inputs()[0].name
    batch = np.random.default_rng(0).random((16, 1, 32, 64), np.float32)
    expected = plain.run(None, {name: batch})[0]
    assert np.allclose(shaped.run(None, {name: batch})[0], expected, atol=1e-5)
    assert stand_in.runs == 1
    shaped.settle()
    assert shaped.shapes == 1 and len(opened) == 1 and opened[0].runs == 1  # the spare, warmed by one run
    assert np.allclose(shaped.run(None, {name: batch})[0], expected, atol=1e-5)
    assert stand_in.runs == 1 and opened[0].runs == 2
    shaped.prepare({name: np.zeros((16, 1, 32, 256), np.float32)})  # made ahead (at load): the stand-in idle
    shaped.settle()
    assert stand_in.runs == 1 and shaped.shapes == 2 and len(opened) == 2 and opened[1].runs == 1
    for width in (96, 128, 192):  # three new shapes at once: made one after another; the last two cannot be made
        shaped.run(None, {name: np.zeros((16, 1, 32, width), np.float32)})
    assert stand_in.runs == 4
    shaped.settle()
    assert shaped.shapes == 5 and len(opened) == 3
    assert "no CUDA session for input shape ((16, 1, 32, 192),): out of GPU memory" in caplog.text
    shaped.run(None, {name: np.zeros((16, 1, 32, 192), np.float32)})
    shaped.settle()
    assert stand_in.runs == 5 and len(opened) == 3  # kept on the stand-in, not tried on every run


def test_auto_gives_a_model_on_cuda_its_cpu_session_as_stand_in_and_cuda_asked_for_gets_none(monkeypatch):
    one_session = onnx_session._one_session
    monkeypatch.setattr(onnx_session, "_one_session", lambda path, device, *rest: one_session(path, "cpu", *rest))
    monkeypatch.setattr(onnx_session, "resolve", lambda setting, *rest: ("cuda", None))
    for setting, stands_in in (("auto", True), ("cuda", False)):
        session, _ = onnx_session.open_on_best_device(bundled_recognizer(), setting, 0, "text recogniser", print)
        assert isinstance(session, onnx_session.ShapeSessions) and (session._stand_in is not None) == stands_in


def test_as_on_cuda_the_small_recogniser_reads_the_same_and_the_detectors_boxes_stay_put():
    """What grounding's models do with the inputs they get on CUDA, run on the CPU: the small recogniser reads every
    line of the sample screen padded as unpadded; the text-line detector, run on the whole screen at once, finds
    the same lines as region by region, each edge within two pixels (measured: one pixel on a few boxes)."""
    screen = sample_screen()
    plain = OcrEngine(device="cpu", recognizer=bundled_recognizer(), text_detector=bundled_text_detector())
    padded = OcrEngine(device="cpu", recognizer=bundled_recognizer(), text_detector=bundled_text_detector())
    padded.load()
    assert padded._fast is not None and padded._lines is not None
    padded._fast._session = onnx_session.ShapeSessions(lambda: onnx_session.open_session(bundled_recognizer()))
    padded._lines._session = onnx_session.ShapeSessions(lambda: onnx_session.open_session(bundled_text_detector(),
                                                                                          rewrite=byte_input))
    crops = screen.line_crops()
    plain.load()
    assert plain._fast is not None
    assert [r.text for r in padded._fast.read(crops[:16])] == [r.text for r in plain._fast.read(crops[:16])]
    ours, theirs = sorted(padded.find_text(screen.image)), sorted(plain.find_text(screen.image))
    assert len(ours) == len(theirs) and padded._lines._session.shapes == 1  # one run, one shape
    for height, width in ((20, 60), (30, 90), (44, 130), (60, 160), (80, 240)):  # parts of lines read apart
        padded._lines.find(screen.image[100:100 + height, 40:40 + width], 1.5)
    assert padded._lines._session.shapes <= 3  # 256 x 256 and 256 x 384 at most: a new crop makes no session
    assert all(min(max(abs(a - b) for a, b in zip(mine, other)) for other in theirs) <= 2 for mine in ours)
    # PP-OCR's recogniser, lines padded to ladder widths and read 8 at a time: rows do not mix, so each line reads
    # as it would alone at its padded width, almost always as unpadded (PaddleOCR pads its own batches so)
    shaped = onnx_session.ShapeSessions(lambda: onnx_session.open_session(models_dir() / REC_MODEL,
                                                                          rewrite=simplified))
    alone = [greedy_decode(columns, plain._alphabet, used) for columns, used in plain._read_lines(plain._rec, crops)]
    batched = [greedy_decode(columns, plain._alphabet, used) for columns, used in plain._read_lines(shaped, crops)]
    assert sum(a.text == b.text for a, b in zip(alone, batched)) >= 0.9 * len(crops)
    assert shaped.shapes < len({crop.shape[1] for crop in crops}) / 4  # a few ladder widths, not one per line

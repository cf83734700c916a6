"""The UI-element detector end to end: synthetic screens rendered by real Qt (offscreen) and real headless Chromium,
training with accelerate, ONNX export checked against PyTorch, the bundled model scored on fresh held-out screens,
and grounding that finds controls OCR and outlines cannot (flat fields, 'the second checkbox') on a real X screen."""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import deskpilot, read_state

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box
from deskpilot.core.screen import Screen
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.detector import UI_CLASSES, UiDetector, bundled_model, prepare, screen_bytes
from deskpilot.grounding.onnx_graph import byte_input
from deskpilot.grounding.onnx_session import open_session
from deskpilot.grounding.ocr import REC_MODEL, OcrEngine, models_dir
from deskpilot.grounding.text_detector import bundled_model as bundled_text_detector
from deskpilot.training.detector.data import compose, load_rgb, read_dataset
from deskpilot.training.detector.evaluate import evaluate_screens


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """Twelve fresh screens (both renderers), never seen in training: their seed is far from the training run's."""
    folder = tmp_path_factory.mktemp("synth")
    result = deskpilot("detector", "render", "--out", str(folder), "--count", "12", "--seed", "424242",
                       env={"QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    assert "12 screens" in result.stdout
    return folder


def test_rendered_screens_carry_boxes_of_real_controls(rendered):
    screens = read_dataset(rendered)
    assert len(screens) == 12
    assert {s.source for s in screens} == {"html", "qt"}
    names = {name for s in screens for _, name in s.boxes}
    assert len(names) >= 8 and names <= set(UI_CLASSES)
    for screen in screens:
        image = load_rgb(screen.image)
        assert image.shape == (screen.height, screen.width, 3)
        for box, name in screen.boxes:
            assert 0 <= box.x0 < box.x1 <= screen.width and 0 <= box.y0 < box.y1 <= screen.height
            if name in ("checkbox", "radio"):  # the indicator only, not the label beside it
                assert box.width <= 48 and box.height <= 48, (screen.image, box)
            crop = image[box.y0:box.y1, box.x0:box.x1]
            assert crop.reshape(-1, 3).std(axis=0).max() > 3, f"nothing drawn at {name} {box} in {screen.image}"


def test_render_adds_to_a_folder_and_keeps_numbering(tmp_path):
    first = deskpilot("detector", "render", "--out", str(tmp_path), "--count", "2", "--sources", "qt",
                      env={"QT_QPA_PLATFORM": "offscreen"})
    again = deskpilot("detector", "render", "--out", str(tmp_path), "--count", "1", "--sources", "qt",
                      env={"QT_QPA_PLATFORM": "offscreen"})
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert [s.image.name for s in read_dataset(tmp_path)] == ["000000.png", "000001.png", "000002.png"]
    bad = deskpilot("detector", "render", "--out", str(tmp_path), "--count", "1", "--sources", "gtk")
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: unknown source gtk")
    assert len(bad.stderr.strip().splitlines()) == 1


def test_compose_moves_boxes_with_the_window():
    window = np.zeros((100, 200, 3), np.uint8)
    window[10:30, 20:60] = 255
    screen, boxes = compose(random.Random(5), window, [(Box(20, 10, 60, 30), "button")], 640, 480)
    (box, name), = boxes
    assert name == "button" and box.width == 40 and box.height == 20
    assert (screen[box.y0:box.y1, box.x0:box.x1] == 255).all()


def test_the_detectors_sessions_take_the_screens_bytes_and_answer_as_to_float_planes():
    """onnx_graph.byte_input: the UI detector's and the text-line detector's sessions take the screen's bytes (scaled,
    padded black to the stride), and answer exactly as the models do to the float planes training feeds them; a model
    with another input is refused in one line."""
    image = np.random.default_rng(2).integers(0, 256, size=(90, 135, 3)).astype(np.uint8)
    pixels = screen_bytes(image, 1.5)  # 135 x 202 -> padded to 160 x 224
    assert pixels.dtype == np.uint8 and pixels.shape == (1, 160, 224, 3)
    assert not pixels[0, 135:].any() and not pixels[0, :, 202:].any()
    for model in (bundled_model(), bundled_text_detector()):
        planes = open_session(model).run(None, {"image": prepare(image, 1.5)})
        given = open_session(model, rewrite=byte_input).run(None, {"image": pixels})
        for expected, got in zip(planes, given, strict=True):
            np.testing.assert_array_equal(got, expected)
    with pytest.raises(GroundingError, match="its input is not 'image' as float planes"):
        open_session(models_dir() / REC_MODEL, rewrite=byte_input)


@pytest.mark.slow
def test_training_learns_exports_and_onnx_agrees(rendered, tmp_path):
    from deskpilot.training.detector.train import train_detector
    from deskpilot.training.jobs import DetectorTrainConfig
    from deskpilot.training.metrics import read_metrics

    config = DetectorTrainConfig([rendered], tmp_path / "run", epochs=20, batch_size=4, crop=128, width=8,
                                 learning_rate=5e-3, log_every=1)
    summary = train_detector(config)
    assert summary["steps"] == 60
    assert summary["onnx_max_difference"] < 1e-3
    losses = [value for _, value in read_metrics(tmp_path / "run")["loss"]]
    assert np.mean(losses[-10:]) < 0.85 * np.mean(losses[:10]), losses  # measured: 0.70
    detector = UiDetector(tmp_path / "run" / "ui_detector.onnx", device="cpu")
    assert detector.classes == UI_CLASSES and detector.scale == 0.5 and detector.device == "cpu"
    detections = detector.detect(load_rgb(read_dataset(rendered)[0].image))
    assert all(d.role in UI_CLASSES and 0 < d.score <= 1 for d in detections)

    again = deskpilot("detector", "export", "--checkpoint", str(tmp_path / "run" / "detector.pt"), "--out",
                      str(tmp_path / "again.onnx"))
    assert again.returncode == 0, again.stderr
    assert "max difference from PyTorch" in again.stdout


def test_bundled_detector_on_held_out_screens(rendered, tmp_path):
    assert bundled_model().is_file() and bundled_model().stat().st_size < 10 * 2 ** 20
    report = evaluate_screens(UiDetector(), read_dataset(rendered))
    assert report["recall"] >= 0.6 and report["precision"] >= 0.6, report
    result = deskpilot("detector", "eval", "--data", str(rendered), "--json", str(tmp_path / "eval.json"))
    assert result.returncode == 0, result.stderr
    saved = json.loads((tmp_path / "eval.json").read_text())
    assert saved["screens"] == 12 and set(saved["classes"]) <= set(UI_CLASSES)
    assert {"precision", "recall", "true_positives", "false_positives", "false_negatives"} <= \
        set(next(iter(saved["classes"].values())))


def test_bad_model_files_and_missing_cuda_are_one_line_errors(tmp_path):
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(GroundingError, match="cannot load the detector"):
        UiDetector(junk)
    with pytest.raises(GroundingError, match="no detector model"):
        UiDetector(tmp_path / "missing.onnx")
    import onnxruntime

    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        with pytest.raises(GroundingError, match="no CUDA provider"):
            UiDetector(device="cuda")
        # ONNX Runtime itself starts a CUDA session it cannot run on the CPU, silently: asked for CUDA, that is an error
        with pytest.raises(GroundingError, match="cannot run on CUDA here"):
            open_session(bundled_model(), "cuda", what="detector")
    else:
        assert UiDetector(device="cuda").device == "cuda"
    cv2.imwrite(str(tmp_path / "screen.png"), np.full((200, 300, 3), 255, np.uint8))
    result = deskpilot("parse", "--image", str(tmp_path / "screen.png"), env={"DESKPILOT_DETECTOR_MODEL": str(junk)})
    assert result.returncode == 2 and result.stderr.strip().startswith("error: cannot load the detector")
    assert len(result.stderr.strip().splitlines()) == 1
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():  # OCR on a GPU that is not there
        result = deskpilot("parse", "--image", str(tmp_path / "screen.png"), env={"DESKPILOT_OCR_DEVICE": "cuda"})
        assert result.returncode == 2 and "no CUDA provider" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def _inside(point, box) -> bool:
    return box[0] <= point.x < box[2] and box[1] <= point.y < box[3]


def test_detector_finds_flat_fields_and_check_boxes_on_a_real_screen(unseen_form):
    state_file = unseen_form("flat")
    state = read_state(state_file)
    screen = Screen()
    obs = screen.capture()
    plain = OcrGrounder(OcrEngine())
    grounder = OcrGrounder(OcrEngine(), detector=UiDetector())

    # Qt's light check boxes on a light window leave a faint outline: the edge-based layout may miss them (never
    # may it name a wrong one); with the detector they are found.
    alone = plain.locate(obs, "the second checkbox")
    assert alone is None or _inside(alone.center, state["toggles"]["Bluetooth"]["box"])
    second = grounder.locate(obs, "the second checkbox")
    assert second is not None and _inside(second.center, state["toggles"]["Bluetooth"]["box"])
    assert grounder.locate(obs, "the third checkbox").checked is False
    location = grounder.locate(obs, '"Location" checkbox')
    assert location is not None and _inside(location.center, state["toggles"]["Location"]["box"])
    password = grounder.locate(obs, "the Password field")
    assert password is not None and _inside(password.center, state["boxes"]["password"])
    found = [d for d in UiDetector().detect(obs.image) if d.role == "checkbox"]
    assert all(any(_inside(d.box.center, state["toggles"][name]["box"]) for d in found)
               for name in ("Bluetooth", "Location"))

    subprocess.run(["xdotool", "mousemove", str(second.center.x), str(second.center.y), "click", "1"], check=True)
    deadline = time.monotonic() + 5
    while not read_state(state_file)["toggles"]["Bluetooth"]["checked"]:
        assert time.monotonic() < deadline, "clicking the located check box did not tick it"
        time.sleep(0.05)
    time.sleep(0.3)
    assert grounder.locate(screen.capture(), "the second checkbox").checked is True


@pytest.mark.parametrize("size", [12, 16, 26])
def test_toggles_are_told_round_or_square_at_full_size(size):
    from deskpilot.grounding.controls import round_toggle

    square = np.full((40, 40, 3), 240, np.uint8)
    cv2.rectangle(square, (5, 5), (5 + size, 5 + size), (90, 90, 90), 1)
    circle = np.full((40, 40, 3), 240, np.uint8)
    cv2.circle(circle, (5 + size // 2, 5 + size // 2), size // 2, (90, 90, 90), 1, cv2.LINE_AA)
    box = Box(3, 3, 8 + size, 8 + size)
    assert not round_toggle(square, box) and round_toggle(circle, box)

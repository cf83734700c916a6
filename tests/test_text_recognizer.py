"""deskpilot's own text-line recogniser: the bundled model reads a real screen it never saw (the demo app on Xvfb) as
PP-OCR does while PP-OCR reads only what it is unsure of; harvest and train end to end through the CLI; the line
normalisation, CTC certainty and threshold choice; bad model files are one-line errors. The harvest's whole screens
train the text-line detector here too (through the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import onnx
import pytest
import torch
from conftest import deskpilot
from PIL import Image, ImageDraw

from deskpilot.core.errors import GroundingError
from deskpilot.core.screen import Screen
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.ctc import Reading, greedy_decode, greedy_decode_batch
from deskpilot.grounding.detector import bundled_model as bundled_detector
from deskpilot.grounding.ocr import OcrEngine
from deskpilot.grounding.text_detector import TextLineDetector
from deskpilot.grounding.text_match import match_text
from deskpilot.grounding.text_recognizer import LINE_HEIGHT, LineRecognizer, percentiles, bundled_model, normalise_line
from deskpilot.training.recognizer.data import SyntheticLines, font_files
from deskpilot.training.recognizer.train import choose_threshold, is_held_out, same_text


def test_the_bundled_recogniser_reads_an_unseen_screen_as_ppocr_does_and_spares_it_most_lines(demo_app):
    assert bundled_model().is_file() and bundled_model().stat().st_size < 8 * 2 ** 20
    image = Screen().capture().image
    teacher, fast = OcrEngine(), OcrEngine(recognizer=bundled_model())
    slow_lines, fast_lines = teacher.read(image), fast.read(image)
    assert fast.crops_read_fast >= 0.55 * len(fast_lines), (fast.crops_read_fast, len(fast_lines))  # measured 34/51
    assert fast.crops_recognised <= 0.45 * teacher.crops_recognised
    slow_text = {line.box: line.text for line in slow_lines}
    agree = sum(same_text(line.text, slow_text.get(line.box, "")) for line in fast_lines)
    assert agree >= 0.95 * len(slow_lines), ([line.text for line in fast_lines], list(slow_text.values()))
    grounder = OcrGrounder(fast)
    texts = [e.text for e in grounder.parse(Screen().capture())]
    for word in ("Full name", "Email", "Password", "Remember me", "Save", "Cancel", "Report.txt"):
        assert any(match_text(word, t) for t in texts), (word, texts)
    save = grounder.locate(Screen().capture(), "the Save button")
    assert save is not None and match_text("Save", save.text)


def _screen_of_words(path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = ["Open", "Close", "Settings", "Profile", "Search", "Reply", "Archive", "Delete", "Submit", "Cancel"]
    canvas = Image.new("RGB", (480, 260), (250, 250, 250))
    draw = ImageDraw.Draw(canvas)
    from PIL import ImageFont

    fonts = font_files()
    font = ImageFont.truetype(str(fonts[0]), 18) if fonts else ImageFont.load_default(18)
    for row in range(5):
        text = " ".join(rng.choice(words, size=2))
        draw.text((20, 20 + 46 * row), text, font=font, fill=(20, 20, 20))
    canvas.save(path)


@pytest.mark.slow
def test_harvest_and_train_end_to_end_then_an_unsure_model_leaves_every_line_to_ppocr(tmp_path):
    screens = tmp_path / "screens"
    screens.mkdir()
    names = [f"s{i:02d}" for i in range(12)]
    assert any(is_held_out(f"screens/{n}", 0.1) for n in names)  # some screens' lines are held out
    for number, name in enumerate(names):
        _screen_of_words(screens / f"{name}.png", number)
    lines = tmp_path / "lines"
    result = deskpilot("recognizer", "harvest", "--out", str(lines), "--screens", str(screens))
    assert result.returncode == 0, result.stderr
    labels = [json.loads(raw) for raw in (lines / "labels.jsonl").read_text().splitlines()]
    # Every line twice: as PP-OCR's detector cuts it and as deskpilot's text-line detector does.
    assert len(labels) >= 80 and {entry["source"] for entry in labels} == {"ppocr"}
    assert all((lines / entry["image"]).is_file() and entry["text"].strip() for entry in labels)
    pages = [json.loads(raw) for raw in (lines / "pages.jsonl").read_text().splitlines()]
    assert len(pages) == 12 and all(len(page["boxes"]) == 5 for page in pages)  # whole screens for the detector

    # The kept screens cut again by the text-line detector: added to the folder, each line in its screen's group.
    again = deskpilot("recognizer", "harvest", "--out", str(lines), "--pages", str(lines), "--cut", "text-detector")
    assert again.returncode == 0, again.stderr
    added = [json.loads(raw) for raw in (lines / "labels.jsonl").read_text().splitlines()][len(labels):]
    assert len(added) >= 40 and {e["group"] for e in added} == {e["group"] for e in labels}
    assert len((lines / "pages.jsonl").read_text().splitlines()) == 12

    run = tmp_path / "run"
    trained = deskpilot("recognizer", "train", "--data", str(lines), "--out", str(run), "--steps", "12",
                        "--synthetic", "60", "--width", "8")
    assert trained.returncode == 0, trained.stderr
    report = json.loads((run / "report.json").read_text())
    assert report["steps"] == 12 and report["onnx_max_difference"] < 1e-3
    assert report["lines"]["held_out"] > 0 and 0 <= report["agreement"] <= 1
    assert (run / "recognizer.pt").is_file() and (run / "metrics.csv").is_file()

    # Training goes on from a checkpoint: with a vanishing learning rate its weights stay those of the checkpoint.
    more = deskpilot("recognizer", "train", "--data", str(lines), "--out", str(tmp_path / "more"), "--steps", "2",
                     "--synthetic", "60", "--init", str(run / "recognizer.pt"), "--learning-rate", "1e-12")
    assert more.returncode == 0, more.stderr
    before, after = (torch.load(p / "recognizer.pt", weights_only=True) for p in (run, tmp_path / "more"))
    assert after["width"] == 8
    assert all(torch.allclose(before["state_dict"][k], v, atol=1e-6) for k, v in after["state_dict"].items()
               if k.endswith("weight"))

    again = deskpilot("recognizer", "export", "--checkpoint", str(run / "recognizer.pt"), "--data", str(lines),
                      "--out", str(run / "again.onnx"), "--synthetic", "20", "--max-disagreement", "0.5")
    assert again.returncode == 0, again.stderr
    assert "max difference from PyTorch" in again.stdout and "PP-OCR" in again.stdout
    assert json.loads((run / "again.json").read_text())["synthetic"]["lines"] == 20

    # The int8 copy: quantised nodes, the metadata kept, and its own threshold from its own readings.
    small = deskpilot("recognizer", "export", "--checkpoint", str(run / "recognizer.pt"), "--data", str(lines),
                      "--out", str(run / "int8.onnx"), "--synthetic", "20", "--max-disagreement", "0.5", "--int8",
                      "--calibration", "40")
    assert small.returncode == 0, small.stderr
    assert "int8: the same reading as the float model on" in small.stdout
    quantized = json.loads((run / "int8.json").read_text())
    assert quantized["int8"] and 0 <= quantized["same_as_float"] <= 1 and "accept" in quantized["float"]
    model = onnx.load(str(run / "int8.onnx"))
    assert sum(node.op_type == "QuantizeLinear" for node in model.graph.node) >= 5
    int8 = LineRecognizer(run / "int8.onnx", device="cpu")
    assert int8.alphabet == LineRecognizer(run / "again.onnx", device="cpu").alphabet
    assert int8.accept == round(quantized["accept"], 4)
    assert not (run / "int8.float.onnx").exists()

    recognizer = LineRecognizer(run / "text_recognizer.onnx", device="cpu")
    assert recognizer.alphabet[0] == "" and "a" in recognizer.alphabet and 0 <= recognizer.accept <= 1
    image = cv2.cvtColor(cv2.imread(str(screens / "s00.png")), cv2.COLOR_BGR2RGB)
    untrained, teacher = OcrEngine(recognizer=run / "text_recognizer.onnx"), OcrEngine()
    assert [line.text for line in untrained.read(image)] == [line.text for line in teacher.read(image)]
    assert untrained.crops_read_fast == 0  # 12 steps learn nothing it is sure of: PP-OCR read every line

    detector = deskpilot("recognizer", "train-detector", "--data", str(lines), "--out", str(tmp_path / "lines-run"),
                         "--steps", "4", "--crop", "128", "--batch-size", "2")
    assert detector.returncode == 0, detector.stderr
    report = json.loads((tmp_path / "lines-run" / "detector_report.json").read_text())
    assert report["steps"] == 4 and report["held_out_lines"] >= 5 and report["onnx_max_difference"] < 1e-3
    assert TextLineDetector(tmp_path / "lines-run" / "text_detector.onnx").threshold == report["threshold"]


def test_lines_are_normalised_to_light_ink_on_dark_whatever_the_colours():
    maker = SyntheticLines(3, ["Save"])
    crop, _ = maker.line()
    inverted = 255 - crop
    a, b = normalise_line(crop), normalise_line(inverted)
    assert a.shape == b.shape and a.shape[0] == LINE_HEIGHT and a.dtype == np.float32
    assert np.abs(a - b).mean() < 0.1
    assert np.median(a) < 0.5  # background dark


def test_certainty_counts_only_doubts_that_change_the_text_and_not_the_padding():
    alphabet = ["", "a", "b", " "]
    columns = np.array([[0.1, 0.9, 0, 0], [0.6, 0, 0.4, 0], [0.05, 0.9, 0.05, 0], [1, 0, 0, 0],  # "aa", or "aba"?
                        [0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]])  # padding of a batch
    reading = greedy_decode(columns, alphabet, used=4 / 6)
    assert reading.text == "aa" and reading.certainty == pytest.approx(0.6)
    assert reading.score == pytest.approx(0.9) and reading.centres == pytest.approx((0.5 / 4, 2.5 / 4))
    edge = np.array([[0.1, 0.9, 0, 0], [0.5, 0.45, 0.05, 0], [1, 0, 0, 0]])  # a character's half-blank edge
    assert greedy_decode(edge, alphabet, 1.0).text == "a"
    assert greedy_decode(edge, alphabet, 1.0).certainty == pytest.approx(0.9)
    doubled = np.array([[0, 1, 0, 0], [0.5, 0.5, 0, 0], [0, 1, 0, 0]])  # "aa" or "a": a doubled letter is a doubt
    assert greedy_decode(doubled, alphabet, 1.0).certainty == pytest.approx(0.5)
    spacing = np.array([[0, 1, 0, 0], [0.5, 0, 0, 0.5], [0, 1, 0, 0]])  # "aa" or "a a": spacing alone is not
    assert greedy_decode(spacing, alphabet, 1.0).certainty == pytest.approx(1.0)
    assert greedy_decode(np.array([[1.0, 0, 0, 0]] * 3), alphabet, 1.0).text == ""


def test_a_batch_decodes_as_its_rows_do_one_by_one():
    """The batch decoder (the small recogniser's) against the one-row decoder over padded rows, ties included."""
    rng = np.random.default_rng(0)
    for alphabet in (["", "a", "b", " ", "c"], ["", "a", "b", "c"]):
        for _ in range(200):
            logits = np.round(rng.normal(size=(4, 9, len(alphabet))) * 3)  # rounded: ties between classes
            columns = (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)
            used = [1.0, *rng.uniform(0.05, 1.0, size=3)]
            assert greedy_decode_batch(columns, alphabet, used) == [greedy_decode(row, alphabet, share)
                                                                    for row, share in zip(columns, used)]
            one = columns[1, :max(1, int(np.ceil(9 * used[1])))]  # a padded row reads as its own columns alone
            assert greedy_decode_batch(columns, alphabet, used)[1].text == greedy_decode(one, alphabet, 1.0).text


def test_line_percentiles_are_numpys_to_the_last_bit():
    rng = np.random.default_rng(1)
    for _ in range(2000):
        shape = (int(rng.integers(1, 40)), int(rng.integers(1, 600)))
        image = rng.choice([0, 17, 128, 255], size=shape).astype(np.uint8) if rng.random() < 0.5 else \
            rng.integers(0, 256, size=shape).astype(np.uint8)
        assert percentiles(image, (2, 98)) == [float(v) for v in np.percentile(image, (2, 98))]


def test_the_threshold_is_the_lowest_certainty_whose_accepted_readings_agree():
    readings = [Reading("Save", 1.0, (), c) for c in (0.99, 0.97, 0.95, 0.9, 0.8, 0.7)]
    texts = ["Save", "Save", "S ave", "Saved", "Save", "Sane"]  # spacing does not count; 0.9 is wrong
    chosen = choose_threshold(readings, texts, 0.0)
    assert chosen["accept"] == 0.95 and chosen["accepted"] == pytest.approx(0.5)
    loose = choose_threshold(readings, texts, 0.25)
    assert loose["accept"] == 0.8 and loose["disagreement"] == pytest.approx(0.2)


def test_bad_recogniser_files_are_one_line_errors(tmp_path):
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(GroundingError, match="cannot load the text recogniser"):
        LineRecognizer(junk)
    with pytest.raises(GroundingError, match="no text recogniser model"):
        LineRecognizer(tmp_path / "missing.onnx")
    with pytest.raises(GroundingError, match="metadata lacks"):
        LineRecognizer(bundled_detector())  # an ONNX model, but not a recogniser
    cv2.imwrite(str(tmp_path / "screen.png"), np.full((200, 300, 3), 255, np.uint8))
    result = deskpilot("parse", "--image", str(tmp_path / "screen.png"),
                       env={"DESKPILOT_TEXT_RECOGNIZER_MODEL": str(junk)})
    assert result.returncode == 2 and result.stderr.strip().startswith("error: cannot load the text recogniser")
    assert len(result.stderr.strip().splitlines()) == 1
    result = deskpilot("recognizer", "harvest", "--out", str(tmp_path / "x"))
    assert result.returncode == 2 and "--pages and/or --miniwob" in result.stderr

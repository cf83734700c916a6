"""deskpilot's own text-line detector: the bundled model finds PP-OCR's lines on a real screen it never saw (the demo
app on Xvfb) and the grounder built from the default settings reads and locates the demo's words with it; training
targets and decoding agree; bad model files are one-line errors. (Training end to end through the CLI runs in
test_text_recognizer, on the folder its harvest writes.)"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import deskpilot

from deskpilot.core.errors import GroundingError
from deskpilot.core.geometry import Box
from deskpilot.core.screen import Screen
from deskpilot.core.settings import Settings
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.detector import STRIDE
from deskpilot.grounding.detector import bundled_model as bundled_ui_detector
from deskpilot.grounding.factory import build_ocr
from deskpilot.grounding.ocr import SMALL_LINE_SCALE, OcrEngine
from deskpilot.grounding.text_detector import TextLineDetector, bundled_model, decode_lines
from deskpilot.grounding.text_match import match_text
from deskpilot.training.recognizer.line_detector import line_targets, matched


def test_the_bundled_detector_finds_ppocrs_lines_on_an_unseen_screen_and_the_default_grounder_reads_it(demo_app):
    assert bundled_model().is_file() and bundled_model().stat().st_size < 2 * 2 ** 20
    image = Screen().capture().image
    ours, teacher = OcrEngine(text_detector=bundled_model()), OcrEngine()
    found, truth = ours.find_text(image), teacher.find_text(image)
    assert matched(found, truth) >= 0.9 * len(truth), (found, truth)
    assert len(found) <= 1.2 * len(truth)
    # Text of a size not seen yet is detected at 1.5x, as small text is (at 1x the ends of short lines are loose).
    enlarged = TextLineDetector(bundled_model()).find(image, SMALL_LINE_SCALE)
    assert all(max(b.iou(f) for f in found) >= 0.8 for b in enlarged), (found, enlarged)
    assert len(set(found) & set(enlarged)) >= 0.8 * len(enlarged)
    engine = build_ocr(Settings())
    assert engine.text_detector_path == bundled_model() and engine.recognizer_path is not None
    grounder = OcrGrounder(engine)
    texts = [e.text for e in grounder.parse(Screen().capture())]
    for word in ("Full name", "Email", "Password", "Remember me", "Save", "Cancel", "Report.txt"):
        assert any(match_text(word, t) for t in texts), (word, texts)
    save = grounder.locate(Screen().capture(), "the Save button")
    assert save is not None and match_text("Save", save.text)


def test_training_targets_decode_back_to_the_lines_they_came_from():
    lines = [Box(10, 12, 150, 30), Box(10, 33, 90, 50), Box(170, 12, 260, 30), Box(40, 80, 48, 92)]  # one glyph
    core, weight, distances = line_targets(lines, [Box(200, 100, 300, 140)], 160, 320)
    assert weight[110 // STRIDE, 250 // STRIDE] == 0 and weight[70 // STRIDE, 100 // STRIDE] == 1
    assert core[21 // STRIDE, 80 // STRIDE] == 1 and core[13 // STRIDE, 80 // STRIDE] == 0  # margins are not core
    assert core[31 // STRIDE, 40 // STRIDE] == 0  # between two lines
    decoded = decode_lines(core, np.exp(distances) * STRIDE, 1.0, 0.5)
    assert len(decoded) == len(lines)
    for line in lines:
        best = max(decoded, key=line.iou)
        assert max(abs(a - b) for a, b in zip(best, line)) <= 1, (best, line)
    half = decode_lines(core, np.exp(distances) * STRIDE, 0.5, 0.5)  # outputs of an input seen at half size
    assert sorted(half) == sorted(Box(*(2 * v for v in b)) for b in decoded)
    assert matched(decoded, lines) == len(lines) and matched(decoded[:1], lines) == 1


def test_bad_text_detector_files_are_one_line_errors(tmp_path):
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(GroundingError, match="cannot load the text-line detector"):
        TextLineDetector(junk)
    with pytest.raises(GroundingError, match="no text-line detector model"):
        TextLineDetector(tmp_path / "missing.onnx")
    with pytest.raises(GroundingError, match="it is not one"):
        TextLineDetector(bundled_ui_detector())  # the UI detector: the same network, not a text-line model
    cv2.imwrite(str(tmp_path / "screen.png"), np.full((200, 300, 3), 255, np.uint8))
    result = deskpilot("parse", "--image", str(tmp_path / "screen.png"),
                       env={"DESKPILOT_TEXT_DETECTOR_MODEL": str(junk)})
    assert result.returncode == 2 and result.stderr.strip().startswith("error: cannot load the text-line detector")
    assert len(result.stderr.strip().splitlines()) == 1

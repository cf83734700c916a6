"""The `deskpilot` command: parse and locate on screenshot files and on the live screen, and one-line errors."""

from __future__ import annotations

import json

import cv2
import pytest
from conftest import deskpilot, read_state

from deskpilot.core.screen import Screen


@pytest.fixture
def screenshot(demo_app, tmp_path):
    path = tmp_path / "demo.png"
    cv2.imwrite(str(path), cv2.cvtColor(Screen().capture().image, cv2.COLOR_RGB2BGR))
    return path, read_state(demo_app.state_file)["boxes"]


def test_parse_an_image_to_json_and_an_annotated_png(screenshot, tmp_path):
    path, _ = screenshot
    result = deskpilot("parse", "--image", str(path), "--json", "--out", str(tmp_path / "annotated.png"))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    texts = [e["text"] for e in data["elements"]]
    assert "Save" in texts and "Cancel" in texts
    base = {"box", "role", "text", "score", "source"}
    assert all(set(e) in (base, base | {"checked"}) for e in data["elements"])  # toggles add their state
    # text, the controls drawn around it, and what the detector adds to them
    assert {"ocr", "layout"} <= {e["source"] for e in data["elements"]} <= {"ocr", "layout", "detector"}
    without = deskpilot("parse", "--image", str(path), "--json", env={"DESKPILOT_DETECTOR": "false"})
    assert {e["source"] for e in json.loads(without.stdout)["elements"]} == {"ocr", "layout"}
    annotated = cv2.imread(str(tmp_path / "annotated.png"))
    assert annotated.shape == cv2.imread(str(path)).shape
    assert not (annotated == cv2.imread(str(path))).all()


def test_locate_on_the_live_screen_as_json(screenshot):
    _, boxes = screenshot
    result = deskpilot("locate", "Password field", "--json")
    assert result.returncode == 0, result.stderr
    x, y = json.loads(result.stdout)["point"]
    x0, y0, x1, y1 = boxes["Password"]
    assert x0 <= x < x1 and y0 <= y < y1


def test_locate_something_absent_exits_1_with_one_line(screenshot):
    path, _ = screenshot
    result = deskpilot("locate", "the Launch rockets button", "--image", str(path))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: could not find 'the Launch rockets button'"


@pytest.mark.parametrize("args, env, message", [
    (["parse", "--image", "/nonexistent.png"], {}, "error: cannot read image /nonexistent.png"),
    (["run", "click OK", "--planner", "gpt-9"], {}, "error: unknown planner 'gpt-9'"),
    (["run", "click OK"], {"DESKPILOT_MAX_STEPS": "many"}, "error: bad setting 'max_steps'"),
    (["run", "click OK", "--confirm", "sometimes"], {}, "error: bad setting 'confirm'"),
    (["parse"], {"DISPLAY": ""}, "error: no display to look at"),
])
def test_user_errors_are_one_line_and_no_traceback(args, env, message):
    result = deskpilot(*args, env=env)
    assert result.returncode == 2
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("planner", ["learned", "transformers"])
def test_a_local_model_planner_without_torch_says_which_planner_and_what_to_install(monkeypatch, planner):
    import importlib.util

    from deskpilot.core.errors import PlannerError
    from deskpilot.core.settings import Settings
    from deskpilot.planner.factory import build_planner

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(PlannerError, match=rf"^--planner {planner} runs a model on this machine, which needs torch "
                                           r"\(not in the plain install\): pip install 'deskpilot\[models\]'"):
        build_planner(Settings(planner=planner, model="some-model"))

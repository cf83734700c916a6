"""`deskpilot episodes list|show|export` on episodes written by the real writer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import deskpilot

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeWriter, Step
from deskpilot.core.geometry import Box, Point
from deskpilot.core.observation import Element
from deskpilot.core.verdict import Verdict


def make_episode(root, task: str, source: str = "agent"):
    writer = EpisodeWriter.create(root, task, source=source)
    frames = [writer.add_frame(np.full((40, 60, 3), value, np.uint8)) for value in (10, 120, 240)]
    writer.append(Step(0, Action(kind=ActionKind.CLICK, point=Point(5, 6), target="Save"), frames[0], frames[1],
                       "click it", elements=[Element(Box(1, 1, 20, 12), "button", "Save")],
                       verification=Verdict("good", "changed", 1.0, "human"), reward=1.0))
    writer.append(Step(1, Action(kind=ActionKind.TYPE, text="s3cret", secret=True), frames[1], frames[2]))
    writer.finish("success")
    return writer.directory


def test_list_and_show(tmp_path):
    make_episode(tmp_path, "save it")
    make_episode(tmp_path, "show me", "demonstration")
    listed = json.loads(deskpilot("episodes", "list", "--dir", str(tmp_path), "--json").stdout)
    assert [(r["task"], r["source"], r["steps"]) for r in listed] == [("save it", "agent", 2),
                                                                      ("show me", "demonstration", 2)]
    shown = deskpilot("episodes", "show", listed[0]["path"])
    assert shown.returncode == 0 and "click 'Save' at (5, 6)  [good]" in shown.stdout
    assert "s3cret" not in shown.stdout


@pytest.mark.slow
def test_export_to_a_hugging_face_dataset_with_images(tmp_path):
    make_episode(tmp_path / "ep", "save it")
    make_episode(tmp_path / "ep", "again", "demonstration")
    result = deskpilot("episodes", "export", "--format", "hf", "--dir", str(tmp_path / "ep"), "--out",
                       str(tmp_path / "ds"))
    assert result.returncode == 0, result.stderr
    import datasets

    dataset = datasets.load_from_disk(str(tmp_path / "ds"))
    assert len(dataset) == 4
    row = dataset[0]
    assert row["task"] == "save it" and row["label"] == "good" and row["reward"] == 1.0
    assert row["action_text"] == "click(point='<point>5 6</point>', target='Save')"
    assert row["before"].size == (60, 40) and np.asarray(row["after"])[0, 0, 0] == 120
    assert "s3cret" not in json.dumps(dataset[1]["action"])
    assert dataset[1]["action_text"] == "type(content='[redacted]')"


def test_export_of_nothing_is_a_clear_error(tmp_path):
    result = deskpilot("episodes", "export", "--dir", str(tmp_path / "none"), "--out", str(tmp_path / "ds"))
    assert result.returncode == 2 and result.stderr.strip() == "error: no episodes to export"

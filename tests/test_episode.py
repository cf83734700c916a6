"""The crash-safe episode layout: frames before lines, atomic metadata, torn last lines skipped."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeWriter, Step, list_episodes, read_episode
from deskpilot.core.errors import EpisodeError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.observation import Element


def frame(value: int) -> np.ndarray:
    image = np.zeros((60, 80, 3), np.uint8)
    image[10:20, 10:30] = (value, 255 - value, 7)
    return image


def write_two_steps(root):
    writer = EpisodeWriter.create(root, "click Save", app="demo")
    first = writer.add_frame(frame(10))
    second = writer.add_frame(frame(200))
    writer.append(Step(0, Action(kind=ActionKind.CLICK, point=Point(5, 6), target="Save"), first, second,
                       "thinking", Monitor(0, 0, 80, 60), [Element(Box(1, 2, 9, 10), "button", "Save", 0.9)],
                       {"parse_ms": 12.345}))
    writer.append(Step(1, Action(kind=ActionKind.TYPE, text="pw", secret=True), second, None))
    return writer


def test_written_episode_reads_back_identically(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("success", "done")
    episode = read_episode(writer.directory)
    assert episode.meta.task == "click Save" and episode.meta.outcome == "success" and episode.meta.app == "demo"
    assert [s.index for s in episode.steps] == [0, 1]
    assert episode.steps[0].action.target == "Save" and episode.steps[0].elements[0].text == "Save"
    assert episode.steps[0].monitor == Monitor(0, 0, 80, 60)
    assert np.array_equal(episode.frame(episode.steps[0].before), frame(10))
    assert list_episodes(tmp_path) == [writer.directory]


def test_secret_text_never_reaches_disk(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    assert '"pw"' not in (writer.directory / "steps.jsonl").read_text()


def test_torn_last_line_is_skipped_with_a_warning(tmp_path, caplog):
    writer = write_two_steps(tmp_path)
    with open(writer.directory / "steps.jsonl", "a") as handle:
        handle.write('{"index": 2, "action": {"kind": "cli')
    with caplog.at_level(logging.WARNING):
        episode = read_episode(writer.directory)
    assert len(episode.steps) == 2
    assert "torn last line" in caplog.text
    assert episode.meta.outcome == "running"


def test_corrupt_middle_line_is_an_error_not_silence(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    path = writer.directory / "steps.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(["{broken", *lines]) + "\n")
    with pytest.raises(EpisodeError, match="line 1 is corrupt"):
        read_episode(writer.directory)


def test_metadata_is_replaced_atomically_and_leaves_no_temp_files(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("error", "boom")
    meta = json.loads((writer.directory / "episode.json").read_text())
    assert meta["outcome"] == "error" and meta["detail"] == "boom" and meta["finished"] >= meta["started"]
    assert not list(writer.directory.rglob("*.tmp"))


def test_not_an_episode_is_a_clear_error(tmp_path):
    with pytest.raises(EpisodeError, match="is not an episode"):
        read_episode(tmp_path)

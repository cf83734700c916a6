"""The crash-safe episode layout: frames before lines, atomic metadata, torn last lines skipped."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import numpy as np
import pytest

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import (EpisodeWriter, Step, delete_episode, is_being_written, label_steps, list_episodes,
                                    read_episode, repair_episode)
from deskpilot.core.errors import EpisodeError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.observation import Element
from deskpilot.core.verdict import EnvironmentRun, Verdict


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


def test_corrupt_middle_line_is_skipped_with_one_warning_and_repair_sets_it_aside(tmp_path, caplog):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    path = writer.directory / "steps.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(["{broken", lines[0], '{"index": "x", "action": 5}', lines[1]]) + "\n")
    with caplog.at_level(logging.WARNING):
        episode = read_episode(writer.directory)
    assert [s.index for s in episode.steps] == [0, 1]
    assert len(caplog.records) == 1 and "skipped 2 unreadable line(s) (1, 3" in caplog.text
    report = repair_episode(writer.directory)
    assert report.dropped_lines == 2 and not report.finished
    assert (writer.directory / "steps.corrupt.jsonl").read_text().splitlines() == ["{broken",
                                                                                  '{"index": "x", "action": 5}']
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert len(read_episode(writer.directory).steps) == 2
    assert not caplog.records


@pytest.mark.parametrize("content", [
    b"[1, 2]", b'{"id": 5}', b"\xff\xfe not utf-8", b"[" * 100000, b'{"id": "x", "task": 3, "source": "agent", '
    b'"started": 1}', b'{"id": "x", "task": "t", "source": "agent", "started": 1, "extra": [1]}', b"",
])
def test_any_damage_to_episode_json_is_one_episode_error(tmp_path, content):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    (writer.directory / "episode.json").write_bytes(content)
    with pytest.raises(EpisodeError, match="episodes repair"):
        read_episode(writer.directory)
    report = repair_episode(writer.directory)
    assert report.meta_rebuilt
    assert len(read_episode(writer.directory).steps) == 2


@pytest.mark.parametrize("line", [b"[" * 100000, b"\xff\xfe\n", b"null", b'{"index": 0, "action": {"kind": "click", '
                                  b'"point": [1e999, 2]}, "before": "x"}', b'{"index": [], "action": {}}'])
def test_damaged_step_lines_never_escape_as_other_exceptions(tmp_path, line):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    with open(writer.directory / "steps.jsonl", "ab") as handle:
        handle.write(line + b"\n")
    assert len(read_episode(writer.directory).steps) == 2


def test_a_running_episode_cannot_be_deleted_relabelled_or_repaired(tmp_path):
    writer = write_two_steps(tmp_path)
    assert is_being_written(writer.directory)
    for attempt in (lambda: delete_episode(writer.directory), lambda: repair_episode(writer.directory),
                    lambda: label_steps(writer.directory, {0: {"label": "good", "verifier": "human"}})):
        with pytest.raises(EpisodeError, match="still being written"):
            attempt()
    writer.finish("success")
    assert not is_being_written(writer.directory)
    delete_episode(writer.directory)
    assert not writer.directory.exists()


def test_a_dead_writers_episode_is_marked_interrupted_by_repair(tmp_path):
    writer = write_two_steps(tmp_path)
    writer._steps.close()
    writer._lock.close()  # as if the process had died: the OS lets go of its lock
    assert read_episode(writer.directory).meta.outcome == "running"
    assert repair_episode(writer.directory).finished
    assert read_episode(writer.directory).meta.outcome == "interrupted"


def test_machine_labels_never_replace_a_persons_without_force(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    human = Verdict("bad", "set by a person", 0.0, "human")
    machine = Verdict("good", "changed", 0.9, "heuristic")
    assert label_steps(writer.directory, {0: human}) == (1, 0)
    assert label_steps(writer.directory, {0: machine, 1: machine}) == (1, 1)
    steps = read_episode(writer.directory).steps
    assert steps[0].verification == human and steps[1].verification == machine
    assert label_steps(writer.directory, {0: machine}, force=True) == (1, 0)
    assert read_episode(writer.directory).steps[0].verification == machine
    # each step as its writer wrote it: the labels are records beside it
    assert all("verification" not in json.loads(line) for line in (writer.directory / "steps.jsonl").open())
    assert len((writer.directory / "labels.jsonl").read_text().splitlines()) == 3


def test_a_label_record_that_cannot_be_read_is_skipped_and_the_rest_apply(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("success")
    label_steps(writer.directory, {0: Verdict("good", "ok", 1.0, "heuristic")})
    with open(writer.directory / "labels.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"step": 1, "verdict": {"label": "maybe"}}\n{"step": 99, "reward": 1}\n{"step": 1, "rew')
    steps = read_episode(writer.directory).steps
    assert steps[0].verification.label == "good" and steps[1].verification is None and steps[1].reward is None


def test_two_concurrent_labellers_keep_both_labels(tmp_path):
    writer = EpisodeWriter.create(tmp_path, "many steps")
    name = writer.add_frame(frame(5))
    for index in range(40):
        writer.append(Step(index, Action(kind=ActionKind.WAIT), name, name))
    writer.finish("success")
    script = ("import sys\nfrom deskpilot.core.episode import label_steps\nfrom deskpilot.core.verdict import Verdict\n"
              "for i in range(int(sys.argv[2]), 40, 2):\n"
              "    label_steps(sys.argv[1], {i: Verdict(sys.argv[3], '', 1.0, 'human')})\n")
    workers = [subprocess.Popen([sys.executable, "-c", script, str(writer.directory), str(start), label])
               for start, label in ((0, "good"), (1, "bad"))]
    assert [w.wait(timeout=120) for w in workers] == [0, 0]
    labels = [s.verification.label for s in read_episode(writer.directory).steps]
    assert labels == ["good", "bad"] * 20


def test_metadata_is_replaced_atomically_and_leaves_no_temp_files(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.finish("error", "boom")
    meta = json.loads((writer.directory / "episode.json").read_text())
    assert meta["outcome"] == "error" and meta["detail"] == "boom" and meta["finished"] >= meta["started"]
    assert not list(writer.directory.rglob("*.tmp"))


def test_not_an_episode_is_a_clear_error(tmp_path):
    with pytest.raises(EpisodeError, match="is not an episode"):
        read_episode(tmp_path)


def test_a_password_named_in_the_task_never_reaches_episode_json(tmp_path):
    writer = EpisodeWriter.create(tmp_path, 'Log in with the password "s3cret!x" and PIN: 9911', source="demonstration")
    writer.finish("success")
    stored = (writer.directory / "episode.json").read_text()
    assert "s3cret!x" not in stored and "9911" not in stored and "[redacted]" in stored


def test_scores_kept_in_extra_by_older_episodes_become_typed(tmp_path):
    writer = write_two_steps(tmp_path)
    writer.meta.extra.update({"benchmark": "miniwob", "miniwob_task": "click-test", "seed": 7, "reward": 0.8,
                              "collect": "offline", "frames": "ends"})
    writer.finish("success")
    meta = read_episode(writer.directory).meta
    assert meta.environment == EnvironmentRun("miniwob", "click-test", 7, 0.8, policy="offline")
    assert meta.extra == {"frames": "ends"}  # what is not a score stays where it was

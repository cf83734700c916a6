"""Honest outcomes on real windows: "success" only when the final screen shows what the task asked for. A
pre-filled field typed into without selecting, an error line after Apply, a click on a heading that only reads
like the button, and a model that says `finished` before doing anything all end `failed`, with one line naming
the expectation and what the screen shows; a model planner is told once first."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import deskpilot, read_state
from openai_server import ChatServer

from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.geometry import Box, Monitor

MONITOR = Monitor(0, 0, 1280, 800)
FINISHED = "Thought: all done.\nAction: finished(content='done')"
pytestmark = pytest.mark.display


def at(box: list[int]) -> str:
    x, y = CoordinateSpace.for_model(MONITOR, "resized").from_screen(Box(*box).center)
    return f"<point>{x} {y}</point>"


def run(replies: list[str], task: str, tmp_path: Path) -> tuple[object, object, list[dict]]:
    with ChatServer(replies) as server:
        result = deskpilot("run", task, "--planner", "openai", "--model", "UI-TARS-1.5-7B", "--base-url",
                           server.base_url, "--episodes-dir", str(tmp_path / "ep"))
        requests = list(server.requests)
    return result, read_episode(list_episodes(tmp_path / "ep")[0]), requests


def told(requests: list[dict]) -> list[str]:
    """The feedback the model was given with the task, one entry per request that carried some."""
    found = []
    for request in requests:
        text = json.dumps(request["messages"], ensure_ascii=False)
        found += re.findall(r"(You said the task is done, but it is not: [^.]*|The screen shows an error: [^.]*)", text)
    return found


def test_a_value_typed_after_what_a_field_held_is_a_failure_naming_both(unseen_form, tmp_path):
    state = unseen_form("transfer")
    boxes = read_state(state)["boxes"]
    result, episode, requests = run([f"Thought: the amount.\nAction: click(point='{at(boxes['Amount'])}')",
                                     "Thought: type it.\nAction: type(content='250')", FINISHED, FINISHED],
                                    'type "250" into Amount', tmp_path)
    assert read_state(state)["fields"]["Amount"] in ("1000250", "2501000", "1025000", "1002500", "1200050")
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r'failed: "Amount" shows "\d+", expected "250"', result.stdout) and 'expected "250"' in result.stdout, result.stdout
    assert episode.meta.outcome == "failed" and episode.meta.goal_check["passed"] is False
    assert len(told(requests)) == 1  # the model was told once, then the run ended
    shown = deskpilot("episodes", "show", str(episode.directory))
    assert "check failed" in shown.stdout


def test_an_error_line_after_apply_ends_the_run_failed_with_the_text_quoted(unseen_form, tmp_path):
    state = unseen_form("transfer")
    boxes = read_state(state)["boxes"]
    result, episode, requests = run([f"Thought: the amount.\nAction: click(point='{at(boxes['Amount'])}')",
                                     "Thought: select.\nAction: hotkey(key='ctrl a')",
                                     "Thought: type it.\nAction: type(content='9999999')",
                                     f"Thought: apply.\nAction: click(point='{at(boxes['Apply'])}')",
                                     FINISHED, FINISHED, FINISHED], 'set Amount to "9999999" and apply', tmp_path)
    assert read_state(state)["status"] == "Error: invalid amount"
    assert result.returncode == 1 and "invalid amount" in result.stdout.lower(), result.stdout + result.stderr
    assert episode.meta.outcome == "failed"
    assert any("error" in line.lower() for line in told(requests))


def test_a_good_amount_applied_is_a_success_with_what_held(unseen_form, tmp_path):
    state = unseen_form("transfer")
    boxes = read_state(state)["boxes"]
    result, episode, _ = run([f"Thought: the amount.\nAction: click(point='{at(boxes['Amount'])}')",
                              "Thought: select.\nAction: hotkey(key='ctrl a')",
                              "Thought: type it.\nAction: type(content='250')",
                              f"Thought: apply.\nAction: click(point='{at(boxes['Apply'])}')", FINISHED],
                             'set Amount to "250" and apply', tmp_path)
    assert read_state(state)["status"] == "Transfer scheduled"
    assert result.returncode == 0, result.stdout + result.stderr
    check = episode.meta.goal_check
    assert check["passed"] and any('"250"' in line for line in check["held"]), check


def test_a_click_on_a_heading_that_reads_like_the_button_is_caught(unseen_form, tmp_path):
    state = unseen_form("transfer")
    boxes = read_state(state)["boxes"]
    heading = boxes["heading"][:2] + [boxes["heading"][0] + 50, boxes["heading"][3]]  # on its text
    result, episode, _ = run([f"Thought: apply.\nAction: click(point='{at(heading)}')", FINISHED, FINISHED],
                             "apply the transfer", tmp_path)
    assert read_state(state)["submitted"] == []
    assert result.returncode == 1 and 'clicking "Apply" changed nothing' in result.stdout, result.stdout


def test_a_model_that_says_finished_before_doing_anything_fails(unseen_form, tmp_path):
    unseen_form("transfer")
    result, episode, requests = run([FINISHED, FINISHED], 'type "250" into Amount', tmp_path)
    assert result.returncode == 1 and '"250" was never typed' in result.stdout, result.stdout
    assert len(told(requests)) == 1 and json.dumps(episode.meta.goal_check)

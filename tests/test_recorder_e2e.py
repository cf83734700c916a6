"""`deskpilot record` while xdotool drives real input on Xvfb, then `deskpilot replay` after the window moved."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import deskpilot, read_state

from deskpilot.resources.demo import DemoApp
from deskpilot.core.episode import list_episodes, read_episode


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=20)


def start_recording(out: Path, *extra: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "record", "--task", "fill the form",
                                "--out", str(out), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not list_episodes(out):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(1.0)  # listeners up
    return process


def click_box(box: list[int], left: bool = False) -> None:
    """Click a widget by its box: the middle, or near its left end (a check box whose row is wide)."""
    x0, y0, x1, y1 = box
    xdotool("mousemove", str(x0 + 10 if left else (x0 + x1) // 2), str((y0 + y1) // 2), "click", "1")
    time.sleep(0.5)


def fill_fields(boxes: dict, values: dict[str, str]) -> None:
    """Click each field and type its value, as a person does."""
    for field, text in values.items():
        click_box(boxes[field])
        xdotool("type", "--delay", "30", text)
        time.sleep(0.4)


def pick_below(box: list[int], rows: int) -> None:
    """Open a Qt dropdown (its list shows the current option over the box) and click the option `rows` below it."""
    click_box(box)
    x0, y0, x1, y1 = box
    xdotool("mousemove", str((x0 + x1) // 2), str(y1 + (rows - 1) * (y1 - y0) + (y1 - y0) // 2 + 2), "click", "1")
    time.sleep(0.5)


def drive_script(boxes: dict) -> None:
    """A person filling the demo form: click a field, type with a typo fixed, tick a box, open a file, save."""
    def centre(name: str) -> tuple[str, str]:
        x0, y0, x1, y1 = boxes[name]
        return str((x0 + x1) // 2), str((y0 + y1) // 2)

    xdotool("mousemove", *centre("Full name"), "click", "1")
    time.sleep(0.4)
    xdotool("type", "--delay", "40", "Ada Lovelacf")
    xdotool("key", "BackSpace")
    xdotool("type", "--delay", "40", "e")
    time.sleep(0.4)
    x0, y0, x1, y1 = boxes["Remember me"]
    xdotool("mousemove", str(x0 + 8), str((y0 + y1) // 2), "click", "1")
    time.sleep(0.6)
    xdotool("mousemove", str(boxes["Full name"][2] + 80), str(boxes["Full name"][1] - 22), "click", "--repeat", "2",
            "--delay", "80", "1")  # the Report.txt entry, first in the file list
    time.sleep(0.8)
    xdotool("key", "ctrl+s")
    time.sleep(0.6)
    list_x, photo_y = boxes["Full name"][2] + 80, boxes["Full name"][1] - 22 + 3 * 14  # drag Photo.png down the list
    xdotool("mousemove", str(list_x), str(photo_y), "mousedown", "1", "mousemove", str(list_x + 20), str(photo_y + 8),
            "mousemove", str(list_x + 40), str(photo_y + 28), "mouseup", "1")
    time.sleep(0.6)


@pytest.fixture(scope="module")
def recording(xdisplay, tmp_path_factory):
    """One demonstration on its own demo app, recorded once for the tests that read or replay it."""
    folder = tmp_path_factory.mktemp("recording")
    app = DemoApp(folder / "demo-state.json").start()
    try:
        boxes = read_state(app.state_file)["boxes"]
        process = start_recording(folder / "rec")
        drive_script(boxes)
        xdotool("key", "ctrl+shift+F10")
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, out + err
        return read_episode(list_episodes(folder / "rec")[0]), read_state(app.state_file)
    finally:
        app.stop()


def test_a_recording_merges_again_from_its_raw_events(recording):
    episode, _ = recording
    events = [json.loads(line) for line in (episode.directory / "events.jsonl").read_text().splitlines()]
    assert {"press", "release", "key_down", "key_up"} <= {e["kind"] for e in events}
    result = deskpilot("episodes", "remerge", str(episode.directory), "--no-ocr")
    assert result.returncode == 0, result.stdout + result.stderr
    again = read_episode(episode.directory)
    assert [s.action for s in again.steps] == [s.action for s in episode.steps]
    assert [s.before for s in again.steps] == [s.before for s in episode.steps]
    assert [s.elements for s in again.steps] == [s.elements for s in episode.steps]
    assert (episode.directory / "steps.previous.jsonl").is_file()


def test_recorded_actions_equal_the_script(recording):
    episode, state = recording
    assert state["full_name"] == "Ada Lovelace" and state["opened"] == ["Report.txt"] and state["saved"] == 1
    assert episode.meta.source == "demonstration" and episode.meta.outcome == "success"
    actions = [s.action for s in episode.steps]
    assert [a.kind.value for a in actions] == ["click", "type", "click", "double_click", "hotkey", "drag"]
    assert actions[1].text == "Ada Lovelace"
    assert actions[4].keys == ("ctrl", "s")
    drag = actions[5]
    assert drag.end_point.x - drag.point.x == 40 and drag.end_point.y - drag.point.y == 28
    assert "Photo.png" in episode.steps[5].elements[0].text
    assert episode.steps[0].window == "deskpilot demo - Contact form"
    assert episode.steps[0].elements[0].text.replace(" ", "") == "Fullname"  # the field's label
    assert "Remember me" in episode.steps[2].elements[0].text
    assert "Report.txt" in episode.steps[3].elements[0].text
    for step in episode.steps:
        assert (episode.directory / step.before).is_file() and (episode.directory / step.after).is_file()


def test_replay_after_the_window_moved_reproduces_the_final_state(recording, demo_app, tmp_path):
    episode, recorded_state = recording
    demo_app.stop()
    moved = DemoApp(tmp_path / "moved-state.json", geometry="300,170,900,560").start()
    try:
        result = deskpilot("replay", str(episode.directory), "--episodes-dir", str(tmp_path / "replays"))
        assert result.returncode == 0, result.stdout + result.stderr
        state = read_state(moved.state_file)
    finally:
        moved.stop()
    for key in ("full_name", "remember_me", "opened", "saved", "events", "selected_file"):
        assert state[key] == recorded_state[key], key
    replayed = read_episode(list_episodes(tmp_path / "replays")[0])
    assert replayed.meta.model == "replay" and replayed.meta.extra["replay_of"] == episode.meta.id


def test_replay_from_a_step_does_the_steps_from_there_only(recording, demo_app, tmp_path):
    episode, recorded_state = recording
    demo_app.stop()
    fresh = DemoApp(tmp_path / "fresh-state.json").start()
    try:
        result = deskpilot("replay", str(episode.directory), "--from", "4", "--episodes-dir", str(tmp_path / "replays"))
        state = read_state(fresh.state_file)
    finally:
        fresh.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert not state["full_name"] and not state["remember_me"]  # steps 1-3 were not replayed
    assert state["opened"] == recorded_state["opened"] and state["saved"] == recorded_state["saved"]
    replayed = read_episode(list_episodes(tmp_path / "replays")[0])
    assert len(replayed.steps) == 3 and "from step 4" in replayed.meta.detail
    too_far = deskpilot("replay", str(episode.directory), "--from", "9")
    assert too_far.returncode == 2 and "has 6 step(s)" in too_far.stderr, too_far.stderr


def test_replay_stops_at_a_step_that_does_not_take_effect(recording, demo_app, tmp_path):
    episode, _ = recording
    demo_app.stop()
    frozen = DemoApp(tmp_path / "frozen-state.json", frozen="Remember me").start()  # looks the same, ignores clicks
    try:
        result = deskpilot("replay", str(episode.directory), "--episodes-dir", str(tmp_path / "replays"))
        state = read_state(frozen.state_file)
    finally:
        frozen.stop()
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"step \d+: the effect of the click on 'Remember me' did not happen", result.stdout), result.stdout
    assert state["full_name"] == "Ada Lovelace" and not state["saved"]  # the steps before it ran; none after it
    replayed = read_episode(list_episodes(tmp_path / "replays")[0])
    assert replayed.meta.outcome == "error" and "did not happen" in replayed.meta.detail


def test_replay_stops_with_a_clear_message_when_a_target_is_gone(recording, demo_app, tmp_path, unseen_form):
    episode, _ = recording
    demo_app.stop()
    unseen_form("login")  # a different app on screen: the recorded targets are not there
    result = deskpilot("replay", str(episode.directory), "--episodes-dir", str(tmp_path / "replays"),
                       env={"DESKPILOT_LOCATE_TIMEOUT": "0.5"})
    assert result.returncode == 1
    assert "step 1: could not find 'Full name'" in result.stdout, result.stdout + result.stderr


def test_a_recording_on_another_qt_form_replays_when_the_form_stands_elsewhere(unseen_form, tmp_path):
    """Not the demo app: a form with labels above its fields, a dropdown, a check box and a button worded its own
    way, recorded, then replayed on a fresh copy of it opened 320 px right and 180 px lower."""
    state_file = unseen_form("shipping")
    boxes = read_state(state_file)["boxes"]
    process = start_recording(tmp_path / "rec")
    fill_fields(boxes, {"Recipient": "Ada Lovelace", "City": "London"})
    pick_below(boxes["Country"], 2)  # France is shown over the box: Italy is two rows below it
    click_box(boxes["Express delivery"], left=True)
    click_box(boxes["Ship it"])
    xdotool("key", "ctrl+shift+F10")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    recorded_state = read_state(state_file)
    assert recorded_state["express"] and recorded_state["submitted"] == ["ship"]
    assert recorded_state["country"] == "Italy"
    unseen_form.close()
    moved = unseen_form("shipping", at="520,300")
    assert read_state(moved)["boxes"]["Ship it"][0] > boxes["Ship it"][0] + 200  # it stands elsewhere
    result = deskpilot("replay", str(list_episodes(tmp_path / "rec")[0]), "--episodes-dir", str(tmp_path / "replays"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(moved)
    assert state["fields"] == recorded_state["fields"] == {"Recipient": "Ada Lovelace", "Street address": "",
                                                           "City": "London"}
    assert state["express"] and state["submitted"] == ["ship"] and state["country"] == "Italy"


@pytest.mark.parametrize("reach_password", ["click", "tab", "enter"])
def test_password_typing_is_redacted_before_it_reaches_disk(unseen_form, tmp_path, reach_password):
    state_file = unseen_form("login")
    boxes = read_state(state_file)["boxes"]
    process = start_recording(tmp_path / "rec")
    for field, text in (("username", "kanesha"), ("password", "hunter2!")):
        if field == "username" or reach_password == "click":
            x0, y0, x1, y1 = boxes[field]
            xdotool("mousemove", str((x0 + x1) // 2), str((y0 + y1) // 2), "click", "1")
        else:  # the password field reached from the keyboard: Tab, or Enter in a form that moves on with it
            xdotool("key", "Tab" if reach_password == "tab" else "Return")
        time.sleep(0.5)
        xdotool("type", "--delay", "30", text)
        time.sleep(0.3)
    xdotool("mousemove", "640", "700", "click", "1")
    time.sleep(0.6)
    os.kill(process.pid, signal.SIGTERM)  # SIGTERM ends a recording cleanly too
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, out + err
    assert read_state(state_file)["fields"] == {"username": "kanesha", "password": "hunter2!"}
    episode = read_episode(list_episodes(tmp_path / "rec")[0])
    typed = [s.action for s in episode.steps if s.action.kind.value == "type"]
    name = "kanesha\n" if reach_password == "enter" else "kanesha"  # Enter is merged into the typed text
    assert [(a.text, a.secret) for a in typed] == [(name, False), ("[redacted]", True)]
    stored = "".join(p.read_text() for p in episode.directory.glob("*.json*"))
    assert "hunter2!" not in stored + out + err
    raw = [json.loads(line) for line in (episode.directory / "events.jsonl").read_text().splitlines()]
    typed = "".join(e["key"] for e in raw if e["kind"] == "key_down" and len(e.get("key", "")) == 1)
    assert "kanesha" in typed and "hunter" not in typed and "********" in typed
    assert deskpilot("episodes", "remerge", str(episode.directory), "--no-ocr").returncode == 0
    again = [s.action for s in read_episode(episode.directory).steps if s.action.kind.value == "type"]
    assert [(a.text, a.secret) for a in again] == [(name, False), ("[redacted]", True)]


def test_sigkill_while_recording_leaves_a_readable_episode(demo_app, tmp_path):
    boxes = read_state(demo_app.state_file)["boxes"]
    process = start_recording(tmp_path / "rec")
    drive_script(boxes)
    time.sleep(1.0)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    episode = read_episode(list_episodes(tmp_path / "rec")[0])
    assert episode.meta.outcome == "running"
    assert [s.action.kind.value for s in episode.steps][:4] == ["click", "type", "click", "double_click"]
    for step in episode.steps:
        episode.frame(step.before)


def test_a_recording_replays_as_a_template_with_other_values(demo_app, tmp_path):
    """Recorded: two text fields typed and a dropdown choice. Replayed with --set: other text in both fields (found
    by their labels) and another option (found by the dropdown's label), then saved."""
    boxes = read_state(demo_app.state_file)["boxes"]
    process = start_recording(tmp_path / "rec")
    fill_fields(boxes, {"Full name": "Ada Lovelace", "Email": "ada@example.com"})
    pick_below(boxes["Colour"], 1)  # Red is shown over the box: Green is the row below it
    click_box(boxes["Save"])
    xdotool("key", "ctrl+shift+F10")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert read_state(demo_app.state_file)["colour"] == "Green"
    recorded = list_episodes(tmp_path / "rec")[0]
    wrong = deskpilot("replay", str(recorded), "--set", "Phone=123", "--dry-run")
    assert wrong.returncode == 2 and "the recording has no field 'Phone' to set (its fields: Full name, Email, " \
        "Colour" in wrong.stderr, wrong.stderr
    demo_app.stop()
    fresh = DemoApp(tmp_path / "fresh-state.json", geometry="200,120,900,560").start()
    try:
        result = deskpilot("replay", str(recorded), "--set", "Full name=Grace Hopper", "--set",
                           "email=grace@navy.mil", "--set", "Colour=Blue", "--episodes-dir", str(tmp_path / "replays"))
        state = read_state(fresh.state_file)
    finally:
        fresh.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert (state["full_name"], state["email"], state["colour"], state["saved"]) == \
        ("Grace Hopper", "grace@navy.mil", "Blue", 1)


def test_run_with_demos_reuses_a_demonstration_and_shows_one_to_a_model(demo_app, tmp_path):
    """A demonstration of a task the offline planner cannot read is replayed for the same task with other quoted
    values; a vision-language model gets the most similar demonstration in its prompt."""
    from openai_server import ChatServer

    boxes = read_state(demo_app.state_file)["boxes"]
    demos = tmp_path / "demos"
    process = start_recording(demos, "--task", 'sign up "Ada Lovelace" with "ada@example.com"')
    for field, text in (("Full name", "Ada Lovelace"), ("Email", "ada@example.com")):
        x0, y0, x1, y1 = boxes[field]
        xdotool("mousemove", str((x0 + x1) // 2), str((y0 + y1) // 2), "click", "1")
        time.sleep(0.5)
        xdotool("type", "--delay", "30", text)
        time.sleep(0.4)
    x0, y0, x1, y1 = boxes["Save"]
    xdotool("mousemove", str((x0 + x1) // 2), str((y0 + y1) // 2), "click", "1")
    time.sleep(0.5)
    xdotool("key", "ctrl+shift+F10")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    task = 'sign up "Grace Hopper" with "grace@navy.mil"'
    assert deskpilot("run", task).returncode == 2  # the offline planner cannot read it on its own
    demo_app.stop()
    fresh = DemoApp(tmp_path / "fresh-state.json", geometry="160,100,900,560").start()
    try:
        reused = deskpilot("run", task, "--demos", str(demos), "--episodes-dir", str(tmp_path / "runs"))
        state = read_state(fresh.state_file)
        with ChatServer(["Thought: done.\nAction: finished(content='ok')"]) as server:
            shown = deskpilot("run", 'sign up "Alan Turing"', "--planner", "openai", "--model", "vlm", "--base-url",
                              server.base_url, "--demos", str(demos), "--episodes-dir", str(tmp_path / "runs"),
                              env={"OPENAI_API_KEY": "sk-test"})
    finally:
        fresh.stop()
    assert reused.returncode == 0, reused.stdout + reused.stderr
    assert (state["full_name"], state["email"], state["saved"]) == ("Grace Hopper", "grace@navy.mil", 1)
    # the model's "done" on the first screen did nothing the task asks: an honest failure, the demonstration shown
    assert shown.returncode == 1 and "no step changed the screen" in shown.stdout + shown.stderr, shown.stdout
    system = server.requests[0]["messages"][0]["content"]
    assert 'A person did a similar task before: sign up "Ada Lovelace" with "ada@example.com"' in system
    assert "type 'Ada Lovelace'" in system.replace('"', "'") and "on 'Full name'" in system
    note, thumbnail = server.requests[0]["messages"][1]["content"]  # the demonstration's first screen, small
    assert "demonstration" in note["text"] and thumbnail["image_url"]["url"].startswith("data:image/png;base64,")
    width, height = png_size(thumbnail["image_url"]["url"])
    assert max(width, height) == 640 and width > height


def png_size(data_url: str) -> tuple[int, int]:
    """Width and height of a PNG sent as a data URL (from its IHDR header)."""
    import base64
    import struct

    raw = base64.b64decode(data_url.split(",", 1)[1])
    return struct.unpack(">II", raw[16:24])


def test_a_demonstration_becomes_som_text_samples_from_its_frames(recording):
    """A recorded demonstration keeps no list of what grounding saw; the learned planner's samples ground its
    frames, so `train sft --mode som-text` learns from a person's demonstrations too."""
    from deskpilot.planner.families import FAMILIES
    from deskpilot.training.samples import SampleBuilder

    episode, _ = recording
    assert not any(step.seen for step in episode.steps)
    samples = SampleBuilder(FAMILIES["screen"], mode="som-text").samples([episode.directory])
    # the click into the name field, said by role and rank as the planner says it, then the typing
    assert [s.completion for s in samples][:2] == ["Action: click(target='field 2')",
                                                   "Action: type(content='Ada Lovelace')"]
    assert {s.label for s in samples} == {"good"}  # a person's demonstration
    prompt = samples[0].messages[-1]["content"]
    assert 'text 4 "Full name"' in prompt and 'field 2 ""' in prompt and "Done:\n(nothing yet)" in prompt

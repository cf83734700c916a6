"""`deskpilot run --planner openai` against a real OpenAI-protocol HTTP server on 127.0.0.1, acting on the demo
app: native coordinates (UI-TARS-1.5 resized-image pixels), set-of-marks, and every way a server can fail."""

from __future__ import annotations

import re

import pytest
from conftest import deskpilot, read_state
from openai_server import ChatServer

from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.geometry import Box, Monitor

SCREEN = Monitor(0, 0, 1280, 800)
KEY = "sk-test-0123456789abcdef"


def model_point(box: list[int], mode: str = "resized") -> str:
    x, y = CoordinateSpace.for_model(SCREEN, mode).from_screen(Box(*box).center)
    return f"<point>{x} {y}</point>"


def run_openai(server: ChatServer, tmp_path, *extra: str, env: dict[str, str] | None = None, model="UI-TARS-1.5-7B",
               task: str = "Put Ada Lovelace in the name field and save"):
    return deskpilot("run", task, "--planner", "openai", "--model", model,
                     "--base-url", server.base_url, "--episodes-dir", str(tmp_path / "ep"), *extra,
                     env={"OPENAI_API_KEY": KEY, **(env or {})})


def form_script(boxes: dict, mode: str = "resized") -> list[str]:
    return [f"Thought: The Full name field is empty.\nAction: click(point='{model_point(boxes['Full name'], mode)}')",
            "Thought: Now type the name.\nAction: type(content='Ada Lovelace')",
            f"Thought: Save it.\nAction: click(point='{model_point(boxes['Save'], mode)}')",
            "Thought: The form is saved.\nAction: finished(content='saved')"]


def test_completes_a_task_through_the_openai_protocol(demo_app, tmp_path):
    boxes = read_state(demo_app.state_file)["boxes"]
    with ChatServer(form_script(boxes), api_key=KEY) as server:
        result = run_openai(server, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(demo_app.state_file)
    assert state["full_name"] == "Ada Lovelace" and state["saved"] == 1
    assert not server.problems and len(server.requests) == 4
    first, last = server.requests[0], server.requests[-1]
    assert first["model"] == "UI-TARS-1.5-7B" and first["stream"] is True
    system = first["messages"][0]["content"]
    assert "Put Ada Lovelace in the name field and save" in system and "1288x812" in system
    assert server.images_in(first)[0].shape[:2] == (812, 1288)  # smart-resized screenshot
    assert len(server.images_in(last)) == 3  # history_images: the current screen and two before it
    assert [m["role"] for m in last["messages"]].count("assistant") == 3  # every earlier answer kept
    assert "The Full name field is empty." in result.stderr  # the thought was streamed to the log
    episode = read_episode(list_episodes(tmp_path / "ep")[0])
    assert episode.meta.model.startswith("openai:UI-TARS-1.5-7B")
    assert episode.steps[0].thought == "The Full name field is empty."
    stored = "".join(p.read_text() for p in episode.directory.glob("*.json*"))
    assert KEY not in stored + result.stdout + result.stderr


def test_relative_1000_family(demo_app, tmp_path):
    boxes = read_state(demo_app.state_file)["boxes"]
    with ChatServer(form_script(boxes, "relative1000")) as server:
        result = run_openai(server, tmp_path, "--family", "ui-tars")
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["full_name"] == "Ada Lovelace"
    assert "0-1000 grid" in server.requests[0]["messages"][0]["content"]


def test_set_of_marks_mode_picks_numbered_elements(demo_app, tmp_path):
    def pick(label: str):
        def reply(request: dict) -> str:
            listing = request["messages"][-1]["content"][-1]["text"]
            number = re.search(rf"\[(\d+)\] \w+ '{label}'", listing).group(1)
            return f"Thought: {label} is element {number}.\nAction: click(element='{number}')"
        return reply

    script = [pick("Remember me"), pick("Save"), "Thought: done\nAction: finished()"]
    with ChatServer(script) as server:
        result = run_openai(server, tmp_path, "--mode", "som", model="gpt-4o", task="Tick Remember me and save")
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(demo_app.state_file)
    assert state["remember_me"] is True and state["saved"] == 1
    assert "numbered" in server.requests[0]["messages"][0]["content"]


def test_a_click_without_effect_is_reported_on_the_next_turn(demo_app, tmp_path):
    script = ["Thought: try the empty area\nAction: click(point='<point>1200 760</point>')",
              "Thought: ok\nAction: finished()"]
    with ChatServer(script) as server:
        result = run_openai(server, tmp_path, task="Look over the form")
    assert result.returncode == 0, result.stdout + result.stderr
    note = server.requests[1]["messages"][-1]["content"][-1]["text"]
    assert "nothing on the screen changed" in note


def test_a_models_done_after_acting_with_nothing_on_the_screen_to_show_for_it_is_no_success(demo_app, tmp_path):
    """MiniWoB's email-inbox-important (never collected): the model opened an email, clicked a line of it and said
    done; the check held nothing ("nothing on the screen contradicts it") and the run passed. A model's done after
    it changed the screen needs something the check read back."""
    boxes = read_state(demo_app.state_file)["boxes"]
    script = [f"Thought: the list.\nAction: click(point='{model_point(boxes['Colour'])}')",
              "Thought: close it.\nAction: hotkey(key='escape')",
              "Thought: that is it.\nAction: finished(content='done')", "Thought: done.\nAction: finished()"]
    with ChatServer(script) as server:
        result = run_openai(server, tmp_path, task="Star the message from Ada")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "nothing on the screen shows what the task asks" in result.stdout


def test_garbage_is_retried_once_with_a_correction(demo_app, tmp_path):
    script = ["I would click the save button now!", "Thought: fine\nAction: finished(content='ok')"]
    with ChatServer(script) as server:
        result = run_openai(server, tmp_path, task="Look over the form")
    assert result.returncode == 0, result.stdout + result.stderr
    correction = server.requests[1]["messages"][-1]["content"]
    assert "could not be used" in correction


def test_garbage_twice_ends_the_run_with_a_clear_error_and_no_guess(demo_app, tmp_path):
    before = read_state(demo_app.state_file)
    with ChatServer(["click the save button", "Sure! Clicking now."]) as server:
        result = run_openai(server, tmp_path)
    assert result.returncode == 1
    assert "could not be used twice" in result.stdout
    assert read_state(demo_app.state_file) == before
    assert read_episode(list_episodes(tmp_path / "ep")[0]).meta.outcome == "error"


def test_429_then_success_is_retried_with_backoff(demo_app, tmp_path):
    with ChatServer([{"status": 429}, "Thought: done\nAction: finished()"]) as server:
        result = run_openai(server, tmp_path, task="Look over the form")
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(server.requests) == 2  # the one answered 429, and its retry


@pytest.mark.parametrize("server_kwargs, env, base_url, message", [
    ({"api_key": "sk-other"}, {}, None, "rejected the API key (401)"),
    ({"replies": [{"sleep": 3, "text": "x"}]}, {"DESKPILOT_PLANNER_TIMEOUT": "1", "DESKPILOT_PLANNER_RETRIES": "0"},
     None, "did not answer within the planner timeout"),
    ({}, {}, "http://127.0.0.1:9/v1", "cannot reach http://127.0.0.1:9/v1"),
])
def test_server_failures_are_one_clear_line(demo_app, tmp_path, server_kwargs, env, base_url, message):
    with ChatServer(server_kwargs.pop("replies", []), **server_kwargs) as server:
        if base_url:
            server_url = base_url
        else:
            server_url = server.base_url
        result = deskpilot("run", "anything", "--planner", "openai", "--model", "m", "--base-url", server_url,
                           "--episodes-dir", str(tmp_path / "ep"), env={"OPENAI_API_KEY": KEY, **env})
    assert result.returncode == 1
    assert message in result.stdout, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr and KEY not in result.stdout + result.stderr


@pytest.mark.parametrize("after", ["ask", "tick again"])
def test_a_model_that_calls_the_user_or_repeats_itself_once_the_screen_shows_the_task_done_is_done(demo_app,
                                                                                                    tmp_path, after):
    x0, y0, _, y1 = read_state(demo_app.state_file)["boxes"]["Remember me"]
    tick = f"Thought: tick it.\nAction: click(point='{model_point([x0, y0, x0 + 16, y1])}')"  # the box itself
    following = "Thought: not sure.\nAction: call_user()" if after == "ask" else tick  # a second tick undoes it
    with ChatServer([tick, following]) as server:
        result = run_openai(server, tmp_path, task='tick "Remember me"')
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["remember_me"] is True
    episode = read_episode(list_episodes(tmp_path / "ep")[0])
    assert episode.meta.outcome == "success"
    assert [s.action.kind.value for s in episode.steps] == ["click", "finished"]
    assert "the screen shows the task done" in episode.steps[-1].thought


def test_a_model_typing_the_name_of_the_box_the_task_asks_to_tick_is_no_success(demo_app, tmp_path):
    boxes = read_state(demo_app.state_file)["boxes"]
    x0, y0, _, y1 = boxes["Subscribe to newsletter"]
    replies = [f"Thought: tick it.\nAction: click(point='{model_point([x0, y0, x0 + 16, y1])}')",
               f"Thought: a field.\nAction: click(point='{model_point(boxes['Full name'])}')",
               "Thought: type it.\nAction: type(content='Subscribe to newsletter')",
               "Thought: done.\nAction: finished(content='done')"] + \
        ["Thought: done.\nAction: finished(content='done')"] * 3
    with ChatServer(replies) as server:
        result = run_openai(server, tmp_path, task='tick "Subscribe to newsletter"')
    assert result.returncode != 0
    assert read_episode(list_episodes(tmp_path / "ep")[0]).meta.outcome == "failed"
    assert "names it as a control to tick or click" in result.stdout + result.stderr


@pytest.mark.parametrize(("task", "last_step", "outcome", "said"), [
    ("My name is Ada, enter it into Full name and confirm", None, "failed", "asks to confirm"),
    ("Put Ada in as the full name and save it", None, "failed", "asks to save"),
    ("Put Ada in as the full name and save it", "hotkey(key='ctrl s')", "success", "hotkey ctrl+s"),
])
def test_a_task_that_asks_to_confirm_or_save_is_no_success_until_a_step_does(demo_app, tmp_path, task, last_step,
                                                                              outcome, said):
    x0, y0, x1, y1 = read_state(demo_app.state_file)["boxes"]["Full name"]
    replies = [f"Thought: the name.\nAction: click(point='{model_point([x0, y0, x1, y1])}')",
               "Thought: type it.\nAction: type(content='Ada')",
               *([f"Thought: that too.\nAction: {last_step}"] if last_step else []),
               "Thought: done.\nAction: finished(content='done')"] + \
        ["Thought: done.\nAction: finished(content='done')"] * 3
    with ChatServer(replies) as server:
        result = run_openai(server, tmp_path, task=task)
    assert read_state(demo_app.state_file)["full_name"] == "Ada"
    assert read_episode(list_episodes(tmp_path / "ep")[0]).meta.outcome == outcome, result.stdout + result.stderr
    assert said in result.stdout + result.stderr

"""The safety audit's findings, each pinned: model output can never hang or crash the parser, risk is judged from
what is on the screen, the stop always stops (mid-scroll, mid-typing, while the model thinks), keys are let go,
secrets stay out of episodes, logs, pictures, exports and prompts, and runs end with the true outcome."""

from __future__ import annotations

import math
import re
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from io import StringIO

import numpy as np
import pytest
from conftest import deskpilot, read_state
from hypothesis import given, settings
from hypothesis import strategies as st
from openai_server import ChatServer
from rich.console import Console

from deskpilot.core.action_text import parse_response
from deskpilot.core.actions import MAX_SCROLL_TICKS, MAX_WAIT_SECONDS, Action, ActionKind
from deskpilot.core.controller import Controller
from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.errors import ActionParseError, PlannerError, SafetyStop
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.safety import Confirmation, ConfirmationPolicy, EmergencyStop, Safety
from deskpilot.core.screen import Screen
from deskpilot.core.secrets import fill_placeholders, mask_secrets, redact_tokens, scrub_read, task_secrets
from deskpilot.core.settings import load_settings
from deskpilot.planner.base import Decision
from deskpilot.planner.factory import api_key_for
from deskpilot.planner.offline import OfflinePlanner

MONITOR = Monitor(0, 0, 1280, 800)
FRAGMENTS = ["click", "type", "scroll", "wait", "drag", "hotkey", "press", "finished", "(", ")", "[", "]", "'", '"',
             ",", "=", "point=", "<point>", "</point>", "1e999", "9" * 309, "nan", "inf", "-", "100 200", "5.5",
             "direction='down'", "amount=", "\\", " ", "content=", "Thought: ", "\nAction: ", "\n", "```",
             "element=", "seconds=", "<|box_start|>", "start_box=", "end_point=", "key='ctrl", "{{password}}"]
model_texts = st.one_of(st.text(max_size=200),
                        st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40).map("".join))


class TimeLimit(Exception):
    pass


@contextmanager
def time_limit(seconds: float):
    def expire(*_: object) -> None:
        raise TimeLimit()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=800, deadline=None)
@given(model_texts, st.sampled_from(["screen", "resized", "relative1000"]))
def test_any_model_text_parses_to_a_bounded_action_or_one_parse_error_within_a_second(text, mode):
    space = CoordinateSpace.for_model(MONITOR, mode)
    with time_limit(1.0):
        try:
            response = parse_response(text, space)
        except ActionParseError:
            return
    for action in response.actions:
        for point in (action.point, action.end_point):
            assert point is None or MONITOR.box.contains(*point)
        assert abs(action.dx) <= MAX_SCROLL_TICKS and abs(action.dy) <= MAX_SCROLL_TICKS
        assert action.seconds is None or (math.isfinite(action.seconds) and action.seconds <= MAX_WAIT_SECONDS)


@pytest.mark.parametrize("text", [
    "click(])", "click(start_box=[100,200]])", "type(content='hi'])", "click(point='1e999 5')",
    f"click(point='{'9' * 309} 5')", "wait(seconds='inf')", "wait(seconds='nan')",
    "scroll(point='<point>5 5</point>', direction='down', amount='100000000')",
    "click(point='<point>5 5</point>', hidden='x')", "click(point='Save at 100 200')",
    "click(point='<point>99999 99999</point>')",
])
def test_the_audits_parser_findings_are_one_parse_error(text):
    with time_limit(1.0), pytest.raises(ActionParseError):
        parse_response(text, CoordinateSpace.for_model(MONITOR, "relative1000"))


def test_task_secrets_are_found_masked_and_filled():
    task = 'Log in as "ada" with the password "hunter2-Secret" and PIN: 4321, then paste sk-abcdefghijklmnop1234'
    secrets = task_secrets(task)
    assert [(s.name, s.value) for s in secrets] == [("password", "hunter2-Secret"), ("pin", "4321"),
                                                    ("secret", "sk-abcdefghijklmnop1234")]
    masked = mask_secrets(task, secrets)
    assert "hunter2-Secret" not in masked and "{{password}}" in masked and "{{pin}}" in masked
    assert fill_placeholders("{{password}}\n", secrets) == ("hunter2-Secret\n", [secrets[0]])
    assert fill_placeholders("{{made_up}}", secrets) == ("{{made_up}}", [])
    assert task_secrets('type "Ada" into Full name then click "Save"') == []
    assert redact_tokens("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 Copy") == "token [redacted] Copy"


def test_secrets_misread_by_ocr_stay_off_disk():
    """Screen text is stored scrubbed even where OCR read a secret wrongly or glued it to its neighbours (seen on
    MiniWoB's login-user and enter-password, whose page shows the password)."""
    assert scrub_read('Enter the password"wcdKF"into', ["wcdKf"]) == 'Enter the password"[redacted]"into'
    assert scrub_read("the password'Aw'into the text", ["AU"]) == "the password'[redacted]'into the text"
    assert scrub_read("code x9Kq1l sent", ["x9Kqil"]) == "code [redacted] sent"  # look-alike characters
    assert scrub_read("login w6jz2 now", ["w6jzz"]) == "login [redacted] now"  # one character off
    assert scrub_read("autumn leaves", ["AU"]) == "autumn leaves" and scrub_read("the password's length", []) \
        == "the password's length"


def test_model_text_cannot_drive_the_terminal_or_the_prompt_markup():
    from deskpilot.app.common import confirm_prompt, plain  # the CLI's own helpers, tested here

    assert plain("ok\x1b]52;c;aGk=\x07 done\x1b[31m!\x00\n") == "ok done!\n"
    request = Confirmation(Action(kind=ActionKind.CLICK, point=Point(5, 5), target="[/x] [black on black]hidden"),
                           "click involves 'delete'")
    rendered = StringIO()
    Console(file=rendered, width=300, color_system=None).print(confirm_prompt(request))
    assert "[/x] [black on black]hidden" in rendered.getvalue()


@pytest.mark.parametrize("base_url, configured, environment, expected", [
    ("https://api.openai.com/v1", None, "sk-env", "sk-env"),
    ("http://127.0.0.1:8000/v1", None, "sk-env", "sk-env"),
    ("https://llm.example.com/v1", None, "sk-env", None),  # $OPENAI_API_KEY only goes to OpenAI or this machine
    ("https://llm.example.com/v1", "sk-mine", None, "sk-mine"),
    ("http://llm.example.com/v1", "sk-mine", None, PlannerError),  # never in clear to another machine
])
def test_the_api_key_goes_only_where_it_belongs(monkeypatch, base_url, configured, environment, expected):
    monkeypatch.setattr("deskpilot.planner.factory.stored_api_key", lambda: None)
    if environment:
        monkeypatch.setenv("OPENAI_API_KEY", environment)
    else:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    chosen = load_settings(planner="openai", model="m", base_url=base_url, api_key=configured)
    if expected is PlannerError:
        with pytest.raises(PlannerError, match="in clear"):
            api_key_for(chosen)
    else:
        assert api_key_for(chosen) == expected


def held_keys() -> set[int]:
    from Xlib import display as xdisplay_module

    connection = xdisplay_module.Display()
    try:
        keymap = connection.query_keymap()
        return {byte * 8 + bit for byte, bits in enumerate(keymap) for bit in range(8) if bits & (1 << bit)}
    finally:
        connection.close()


@pytest.mark.parametrize("action, seconds", [
    (Action(kind=ActionKind.SCROLL, point=Point(640, 400), dy=MAX_SCROLL_TICKS), MAX_SCROLL_TICKS * 0.03),
    (Action(kind=ActionKind.TYPE, text="x" * 400), 4.0),
])
def test_stop_during_a_long_scroll_or_typing_acts_within_one_chunk(xdisplay, action, seconds):
    stop = EmergencyStop()
    controller = Controller(stop, type_interval=0.01)
    controller.execute(Action(kind=ActionKind.MOVE, point=Point(640, 400)))
    fired: list[float] = []

    def press_stop() -> None:
        fired.append(time.monotonic())
        stop.trigger("test stop")

    threading.Timer(0.15, press_stop).start()
    with pytest.raises(SafetyStop):
        controller.execute(action)
    stopped_after = time.monotonic() - fired[0]
    assert stopped_after < 0.25 < seconds  # within a chunk (8 characters, one wheel click), not the whole action


def test_keys_pressed_by_the_agent_are_let_go_when_its_run_ends(xdisplay):
    before = held_keys()
    stop = EmergencyStop()
    controller = Controller(stop)
    controller.execute(Action(kind=ActionKind.KEY, keys=("shift",), key_state="press"))
    assert held_keys() - before
    stop.trigger("test stop")
    with pytest.raises(SafetyStop):
        controller.execute(Action(kind=ActionKind.KEY, keys=("shift",), key_state="release"))
    controller.release_all()
    assert held_keys() == before


class NoGrounder:
    timing: dict[str, float] = {}

    def set_task(self, task):  # noqa: ANN001, ANN201
        pass

    def parse(self, obs):  # noqa: ANN001, ANN201
        return []

    def locate(self, obs, description):  # noqa: ANN001, ANN201
        return None

    def read_inside(self, obs, box):  # noqa: ANN001, ANN201
        return ""


class ScriptedPlanner:
    """A planner that runs `think` (in the planner thread) and then clicks the middle of the screen."""

    name = "scripted"

    def __init__(self, think):  # noqa: ANN001
        self.think = think

    def secrets(self, task: str) -> list[str]:
        return []

    def decide(self, task, history, obs, elements):  # noqa: ANN001, ANN201
        self.think()
        return Decision("click", Action(kind=ActionKind.CLICK, point=Point(640, 400)))


def make_agent(tmp_path, planner, stop=None, decide_timeout=30.0):  # noqa: ANN001, ANN201
    from deskpilot.planner.agent import Agent

    stop = stop or EmergencyStop()
    executed: list[Action] = []

    class CountingController(Controller):
        def execute(self, action: Action) -> None:
            executed.append(action)
            super().execute(action)

    agent = Agent(Screen(), NoGrounder(), planner, CountingController(stop),
                  Safety(stop, ConfirmationPolicy("never")), tmp_path / "ep", settle_timeout=0.2,
                  decide_timeout=decide_timeout)
    return agent, executed


def test_a_corner_while_the_planner_thinks_stops_before_anything_runs(xdisplay, tmp_path):
    def think() -> None:
        subprocess.run(["xdotool", "mousemove", "0", "0"], check=True)
        time.sleep(1.0)

    agent, executed = make_agent(tmp_path, ScriptedPlanner(think))
    try:
        result = agent.run("anything", max_steps=3)
    finally:
        subprocess.run(["xdotool", "mousemove", "640", "400"], check=True)
    assert result.outcome == "stopped" and "corner" in result.detail
    assert executed == []


def test_the_stop_ends_a_run_while_the_model_is_still_thinking(xdisplay, tmp_path):
    stop = EmergencyStop()
    agent, executed = make_agent(tmp_path, ScriptedPlanner(lambda: time.sleep(30)), stop)
    threading.Timer(0.5, stop.trigger, args=("stop button",)).start()
    started = time.monotonic()
    result = agent.run("anything", max_steps=3)
    assert result.outcome == "stopped" and time.monotonic() - started < 3
    assert executed == []


def test_a_planner_that_never_answers_runs_into_the_decide_timeout(xdisplay, tmp_path):
    agent, executed = make_agent(tmp_path, ScriptedPlanner(lambda: time.sleep(30)), decide_timeout=0.5)
    result = agent.run("anything", max_steps=3)
    assert result.outcome == "error" and "did not decide within 0.5 s" in result.detail


def test_an_unexpected_exception_is_outcome_error_in_one_line(xdisplay, tmp_path):
    def boom() -> None:
        raise ZeroDivisionError("division by zero\nwith a second line")

    agent, _ = make_agent(tmp_path, ScriptedPlanner(boom))
    result = agent.run("anything", max_steps=3)
    assert result.outcome == "error" and result.detail == "ZeroDivisionError: division by zero"
    assert read_episode(result.episode_dir).meta.outcome == "error"


def test_a_task_the_offline_planner_refuses_is_an_error_episode_not_an_exception(xdisplay, tmp_path):
    agent, executed = make_agent(tmp_path, OfflinePlanner())
    result = agent.run("Find the largest number in the list and submit it", max_steps=3)
    assert result.outcome == "error" and "I don't understand" in result.detail and executed == []
    assert read_episode(result.episode_dir).meta.outcome == "error"


def som_pick(label: str):  # noqa: ANN201
    def reply(request: dict) -> str:
        listing = request["messages"][-1]["content"][-1]["text"]
        number = re.search(rf"\[(\d+)\] \w+ '{label}'", listing).group(1)
        return f"Thought: {label} is element {number}.\nAction: click(element='{number}')"
    return reply


@pytest.mark.parametrize("mode", ["native", "som"])
def test_a_model_click_on_delete_asks_first(demo_app, tmp_path, mode):
    box = Box(*read_state(demo_app.state_file)["boxes"]["Delete all"])
    x, y = CoordinateSpace.for_model(MONITOR, "resized").from_screen(box.center)
    first = som_pick("Delete all") if mode == "som" else f"Thought: go\nAction: click(point='<point>{x} {y}</point>')"
    with ChatServer([first, "Thought: done\nAction: finished()"]) as server:
        result = deskpilot("run", "Tidy up the form", "--planner", "openai", "--model", "UI-TARS-1.5-7B",
                           "--mode", mode, "--base-url", server.base_url, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 1
    assert "needs confirmation (click involves 'delete')" in result.stdout.lower(), result.stdout + result.stderr
    assert read_state(demo_app.state_file)["status"] != "All files deleted"


PASSWORD = "hunter2-Secret"
LOGIN_TASK = f'Sign in: put "ada" in Full name and the password "{PASSWORD}" in Password, then save'


def login_script(boxes: dict, password_field: str) -> list[str]:
    def at(name: str) -> str:
        x, y = CoordinateSpace.for_model(MONITOR, "resized").from_screen(Box(*boxes[name]).center)
        return f"<point>{x} {y}</point>"

    return [f"Thought: name first.\nAction: click(point='{at('Full name')}')",
            "Thought: type it.\nAction: type(content='ada')",
            f"Thought: now the password.\nAction: click(point='{at(password_field)}')",
            "Thought: type the secret.\nAction: type(content='{{password}}')",
            f"Thought: save.\nAction: click(point='{at('Save')}')",
            "Thought: done.\nAction: finished(content='signed in')"]


def test_a_task_password_reaches_the_field_and_nothing_else(demo_app, tmp_path):
    from deskpilot.grounding.ocr import OcrEngine

    boxes = read_state(demo_app.state_file)["boxes"]
    with ChatServer(login_script(boxes, "Password")) as server:
        result = deskpilot("run", LOGIN_TASK, "--planner", "openai", "--model", "UI-TARS-1.5-7B",
                           "--base-url", server.base_url, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_state(demo_app.state_file)
    assert state["password"] == PASSWORD and state["full_name"] == "ada" and state["saved"] == 1
    assert PASSWORD not in str(server.requests)  # the model only ever read {{password}}
    assert "{{password}}" in server.requests[0]["messages"][0]["content"]
    episode_dir = list_episodes(tmp_path / "ep")[0]
    stored = "".join(p.read_text() for p in episode_dir.glob("*.json*"))
    assert PASSWORD not in stored + result.stdout + result.stderr
    assert "{{password}}" in stored  # the step keeps the placeholder, good training data
    picture = (episode_dir / "annotated.png").read_bytes()
    assert PASSWORD.encode() not in picture
    from deskpilot.core.episode import read_image

    seen = " ".join(line.text for line in OcrEngine().read(read_image(episode_dir / "annotated.png")))
    assert PASSWORD not in seen
    exported = deskpilot("episodes", "export", str(episode_dir), "--out", str(tmp_path / "dataset"))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    dumped = b"".join(p.read_bytes() for p in (tmp_path / "dataset").rglob("*") if p.is_file())
    assert PASSWORD.encode() not in dumped


def test_a_task_password_typed_into_another_field_asks_first(demo_app, tmp_path):
    boxes = read_state(demo_app.state_file)["boxes"]
    with ChatServer(login_script(boxes, "Email")) as server:
        result = deskpilot("run", LOGIN_TASK, "--planner", "openai", "--model", "UI-TARS-1.5-7B",
                           "--base-url", server.base_url, "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 1
    assert "types the task's password into the field" in result.stdout, result.stdout + result.stderr
    assert read_state(demo_app.state_file)["email"] == ""


def test_an_endless_reply_is_cut_off_with_one_line(demo_app, tmp_path):
    with ChatServer(["Thought: " + "blah " * 10000 + "\nAction: finished()"]) as server:
        result = deskpilot("run", "anything", "--planner", "openai", "--model", "m", "--base-url", server.base_url,
                           "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 1
    assert "more than 20000 characters" in result.stdout and "Traceback" not in result.stderr


def test_wayland_is_said_plainly(xdisplay, tmp_path):
    result = deskpilot("run", "wait 0.1 seconds", "--dry-run", "--episodes-dir", str(tmp_path / "ep"),
                       env={"WAYLAND_DISPLAY": "wayland-0"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Wayland session: the global stop hotkey hears only keys typed into X11" in result.stderr


def test_confirm_crop_is_what_the_click_lands_on():
    image = np.zeros((800, 1280, 3), np.uint8)
    image[390:410, 630:650] = 255
    from deskpilot.core.observation import Observation
    from deskpilot.grounding.action_context import action_context

    context = action_context(Action(kind=ActionKind.CLICK, point=Point(640, 400)), Observation(image, MONITOR), [],
                             None, [])
    assert context.crop.shape == (180, 400, 3) and context.crop[85, 195].tolist() == [255, 255, 255]
    assert context.crop[90, 200].tolist() == [220, 30, 30] and context.crop[90, 209].tolist() == [220, 30, 30]  # ringed
    assert image[400, 640].tolist() == [255, 255, 255]  # drawn on a copy


def test_an_answer_typed_ahead_into_the_terminal_does_not_answer_the_question(demo_app, tmp_path):
    """A model that typed "y" and Enter into deskpilot's own terminal has not approved anything: the typed-ahead
    input is thrown away before the question, and only what the person types after it counts."""
    import os
    import pty
    import sys

    main_fd, tty_fd = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "run", 'click "Delete all"', "--episodes-dir",
                                str(tmp_path / "ep")], stdin=tty_fd, stdout=tty_fd, stderr=tty_fd, close_fds=True)
    os.close(tty_fd)
    os.write(main_fd, b"y\n")  # typed before the question was asked
    seen = b""
    deadline = time.monotonic() + 90
    try:
        while b"[y/n]" not in seen and time.monotonic() < deadline and process.poll() is None:  # the question
            try:
                seen += os.read(main_fd, 4096)
            except OSError:
                break
        assert b"ahead?" in seen and b"[y/n]" in seen, seen.decode(errors="replace")  # wrapped at the width
        assert b"what it acts on:" in seen
        time.sleep(0.5)
        assert process.poll() is None  # still waiting: the early "y" did not answer
        os.write(main_fd, b"n\n")
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main_fd)
    assert process.returncode == 1
    assert read_state(demo_app.state_file)["files"] == 41
    assert (tmp_path / "ep" / "confirm.png").is_file()


def test_an_ok_confirms_the_question_beside_it_not_a_neighbouring_button():
    from deskpilot.core.observation import Element, Observation
    from deskpilot.grounding.action_context import action_context

    ok = Element(Box(600, 550, 680, 570), "button", "OK", source="layout")
    delete_button = Element(Box(450, 550, 560, 570), "button", "Delete all", source="layout")
    delete_label = Element(Box(470, 553, 540, 567), "text", "Delete all")
    question = Element(Box(450, 480, 800, 500), "text", "Are you sure you want to delete 3 files?")
    click = Action(kind=ActionKind.CLICK, point=Point(640, 560))
    obs = Observation(np.zeros((800, 1280, 3), np.uint8), MONITOR)
    policy = ConfirmationPolicy("risky")
    form = action_context(click, obs, [ok, delete_button, delete_label], None, [])
    assert policy.reason(click, form) is None
    dialog = action_context(click, obs, [ok, delete_button, delete_label, question], None, [])
    assert "confirms 'delete'" in policy.reason(click, dialog)


def test_text_pasted_through_the_clipboard_does_not_stay_there(demo_app):
    box = Box(*read_state(demo_app.state_file)["boxes"]["Full name"])
    subprocess.run(["xclip", "-selection", "clipboard", "-in"], input=b"what the person had copied", check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    controller = Controller(EmergencyStop())
    controller.execute(Action(kind=ActionKind.CLICK, point=box.center))
    controller.execute(Action(kind=ActionKind.TYPE, text="Zoë Ångström", secret=True))
    time.sleep(0.3)
    assert read_state(demo_app.state_file)["full_name"] == "Zoë Ångström"
    held = subprocess.run(["xclip", "-selection", "clipboard", "-out"], capture_output=True, timeout=5)
    assert held.stdout.decode() == "what the person had copied"

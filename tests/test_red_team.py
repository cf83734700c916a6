"""The red-team pass's findings, one class at a time, each pinned by a test that failed before the fix: keys judged
by what they act on, terminals known by their class and process, risk words in six languages, secrets in labels,
halves, frames, streamed text and recordings, a stop that no wait outruns, hostile episode folders and settings,
points off the screen, and the regressions (xauth noise on stdout, a bundle that reads its own sources)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import TESTS_DIR, deskpilot, read_state
from openai_server import ChatServer

from deskpilot.core.action_text import parse_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import EpisodeWriter, list_episodes, read_episode
from deskpilot.core.errors import ActionParseError, SafetyStop, SettingsError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.observation import Element, FocusedWindow, Observation
from deskpilot.core.safety import ActionContext, ConfirmationPolicy, EmergencyStop
from deskpilot.core.screen import Screen
from deskpilot.core.secrets import StreamScrubber, TaskSecret, is_secret_label, scrub, task_secrets
from deskpilot.core.settings import load_settings
from deskpilot.grounding.action_context import KeyboardFocus, action_context

MONITOR = Monitor(0, 0, 1280, 800)
POLICY = ConfirmationPolicy("risky")
SRC = TESTS_DIR.parent / "src" / "deskpilot"


def key(*keys: str) -> Action:
    return Action(kind=ActionKind.HOTKEY, keys=keys)


def text(element_text: str, box: tuple[int, int, int, int], role: str = "text", **flags: bool) -> Element:
    return Element(Box(*box), role, element_text, 1.0, "accessibility" if flags else "ocr", None,  # type: ignore[arg-type]
                   flags.get("focused", False), flags.get("default", False))


FORM = [text("Name", (100, 100, 160, 120)), text("", (170, 95, 400, 125), "input"),
        text("Save", (100, 200, 160, 230), "button"), text("Delete account", (180, 200, 320, 230), "button")]


def context_for(action: Action, focus: KeyboardFocus | None, elements: list[Element] = FORM,
                program: str | None = "demo,Demo") -> ActionContext:
    obs = Observation(np.zeros((800, 1280, 3), np.uint8), MONITOR,
                      window=FocusedWindow("Account", program, Box(0, 0, 1280, 800)))
    return action_context(action, obs, elements, focus, [])


# --- 1. keys act on the focus, the default button and the selection ---

def test_tab_tab_space_onto_delete_account_asks():
    focus = KeyboardFocus()
    focus.follow(Action(kind=ActionKind.CLICK, point=Point(200, 110)), FORM)
    assert focus.role == "input"
    for _ in range(2):
        focus.follow(key("tab"), FORM)  # the focus moved somewhere the agent cannot tell
    reason = POLICY.reason(key("space"), context_for(key("space"), focus))
    assert reason and "Delete account" in reason


def test_enter_in_a_form_whose_buttons_include_delete_account_asks_and_a_plain_form_does_not():
    focus = KeyboardFocus()
    focus.follow(Action(kind=ActionKind.CLICK, point=Point(200, 110)), FORM)
    typed = Action(kind=ActionKind.TYPE, text="Ada\n")
    assert "Delete account" in (POLICY.reason(typed, context_for(typed, focus)) or "")
    assert POLICY.reason(key("enter"), context_for(key("enter"), focus)) is not None
    safe_form = FORM[:3]
    assert POLICY.reason(typed, context_for(typed, focus, safe_form)) is None
    # the accessibility tree's default button decides where it is known
    with_default = FORM[:2] + [text("Save", (100, 200, 160, 230), "button", default=True), FORM[3]]
    assert POLICY.reason(typed, context_for(typed, focus, with_default)) is None
    risky_default = FORM[:3] + [text("Delete account", (180, 200, 320, 230), "button", default=True)]
    assert "default button" in (POLICY.reason(typed, context_for(typed, focus, risky_default)) or "")


def test_the_delete_key_outside_a_text_field_asks_inside_one_it_does_not():
    files = [text(f"report-{i}.txt", (100, 100 + 30 * i, 300, 125 + 30 * i), "list_item") for i in range(8)]
    focus = KeyboardFocus()
    focus.follow(Action(kind=ActionKind.CLICK, point=Point(150, 112)), files)
    focus.follow(key("ctrl", "a"), files)
    assert "Delete key" in (POLICY.reason(key("delete"), context_for(key("delete"), focus, files)) or "")
    in_field = KeyboardFocus()
    in_field.follow(Action(kind=ActionKind.CLICK, point=Point(200, 110)), FORM)
    assert POLICY.reason(key("backspace"), context_for(key("backspace"), in_field)) is None


def test_the_accessibility_trees_focus_names_what_space_presses():
    focused = FORM[:3] + [text("Delete account", (180, 200, 320, 230), "button", focused=True)]
    reason = POLICY.reason(key("space"), context_for(key("space"), KeyboardFocus(), focused))
    assert reason and "focused control 'Delete account'" in reason


def at(box: list[int]) -> str:
    """A screen box's centre as a UI-TARS-1.5 model writes it (pixels of the resized screenshot)."""
    x, y = CoordinateSpace.for_model(MONITOR, "resized").from_screen(Box(*box).center)
    return f"<point>{x} {y}</point>"


def run_model(replies: list[str], task: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    with ChatServer(replies) as server:
        return deskpilot("run", task, "--planner", "openai", "--model", "UI-TARS-1.5-7B", "--base-url",
                         server.base_url, "--episodes-dir", str(tmp_path / "ep"))


@pytest.mark.display
def test_enter_in_a_real_form_whose_default_button_deletes_the_account_is_refused(unseen_form, tmp_path):
    state = unseen_form("account")
    boxes = read_state(state)["boxes"]
    result = run_model([f"Thought: the name.\nAction: click(point='{at(boxes['Name'])}')",
                        "Thought: type and submit.\nAction: type(content='Ada\\n')",
                        "Thought: done.\nAction: finished(content='saved')"], "rename me to Ada", tmp_path)
    assert result.returncode == 1 and "refused" in result.stdout, result.stdout + result.stderr
    assert "Delete account" in result.stdout
    assert read_state(state)["submitted"] == []  # the account is still there


@pytest.mark.display
def test_tab_tab_space_in_a_real_form_is_refused_before_it_presses_delete_account(unseen_form, tmp_path):
    state = unseen_form("account")
    boxes = read_state(state)["boxes"]
    result = run_model([f"Thought: the name.\nAction: click(point='{at(boxes['Name'])}')",
                        "Thought: next.\nAction: hotkey(key='tab')", "Thought: next.\nAction: hotkey(key='tab')",
                        "Thought: press it.\nAction: hotkey(key='space')",
                        "Thought: done.\nAction: finished(content='done')"], "save the form", tmp_path)
    assert result.returncode == 1 and "refused" in result.stdout, result.stdout + result.stderr
    assert read_state(state)["submitted"] == []


@pytest.mark.display
def test_a_password_shown_in_clear_is_masked_in_every_frame_and_request(unseen_form, tmp_path):
    state = unseen_form("reveal")
    boxes = read_state(state)["boxes"]
    tick = boxes["Show password"][:2] + [boxes["Show password"][0] + 16, boxes["Show password"][3]]  # the box itself
    with ChatServer([f"Thought: the field.\nAction: click(point='{at(boxes['password'])}')",
                     "Thought: the secret.\nAction: type(content='{{password}}')",
                     f"Thought: check it.\nAction: click(point='{at(tick)}')",
                     "Thought: done.\nAction: finished(content='signed in')"]) as server:
        result = deskpilot("run", 'sign in with the password "Kx7qWv2z"', "--planner", "openai", "--model",
                           "UI-TARS-1.5-7B", "--base-url", server.base_url, "--episodes-dir", str(tmp_path / "ep"))
        shown = server.images_in(server.requests[-1])[-1]
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(state)["shown"] and read_state(state)["fields"]["password"] == "Kx7qWv2z"
    episode = read_episode(list_episodes(tmp_path / "ep")[0])
    x0, y0, x1, y1 = boxes["password"]
    for step in episode.steps[2:]:  # from the click on "Show password" on, the password is on the screen
        frame = episode.frame(step.before)
        grey = np.all(frame[y0 + 4:y1 - 4, x0 + 4:x1 - 4] == 128, axis=2).mean()
        assert grey > 0.95, f"step {step.index + 1}: the password field is not masked ({grey:.2f})"
    sx, sy = shown.shape[1] / 1280, shown.shape[0] / 800  # the model's screenshot is resized
    region = shown[round((y0 + 6) * sy):round((y1 - 6) * sy), round((x0 + 6) * sx):round((x1 - 6) * sx)]
    assert np.abs(region.astype(int) - 128).max() < 24, "the model was shown the password field"


# --- 2. terminals by class and process ---

@pytest.mark.parametrize("action", [Action(kind=ActionKind.TYPE, text="rm -r -f victim\n"), key("ctrl", "j"),
                                    key("ctrl", "m"), key("ctrl", "o"), key("enter")])
def test_a_retitled_terminal_is_still_a_terminal(action):
    context = ActionContext(window_title="Release notes", window_class="xterm,XTerm,xterm")
    assert "terminal" in (POLICY.reason(action, context) or "")
    assert POLICY.reason(key("ctrl", "j"), ActionContext(window_title="Release notes", window_class="gedit")) is None


@pytest.mark.display
def test_a_real_xterm_retitled_by_its_output_is_known_by_its_class(xdisplay, tmp_path):
    xterm = subprocess.Popen(["xterm", "-T", "Release notes", "-e", "sleep 60"])
    try:
        window = ""
        deadline = time.monotonic() + 20
        while not window and time.monotonic() < deadline:
            found = subprocess.run(["xdotool", "search", "--pid", str(xterm.pid)], capture_output=True, text=True)
            window = found.stdout.split()[0] if found.stdout.split() else ""
            time.sleep(0.1)
        subprocess.run(["xdotool", "windowfocus", "--sync", window], check=True, timeout=10)
        focused = Screen().focused_window()
        assert focused is not None and focused.title == "Release notes"
        assert "xterm" in (focused.program or "").lower()
        context = ActionContext(window_title=focused.title, window_class=focused.program)
        assert context.in_terminal
        assert POLICY.reason(Action(kind=ActionKind.TYPE, text="rm -r -f victim\n"), context)
    finally:
        xterm.kill()
        xterm.wait(timeout=10)


# --- 3. risk words ---

@pytest.mark.parametrize("label", ["Confirm payment", "Move to Trash", "Löschen", "Supprimer", "删除", "削除",
                                   "Eliminar", "Jetzt kaufen", "Publish", "ゴミ箱に移動", "Payer maintenant",
                                   "Send"])
def test_risky_labels_in_six_languages_ask(label):
    click = Action(kind=ActionKind.CLICK, point=Point(10, 10))
    assert POLICY.reason(click, ActionContext(under=(label,))) is not None


@pytest.mark.parametrize("label", ["Save", "Speichern", "Enregistrer", "Guardar", "保存", "Subscribe to newsletter",
                                   "Post code", "Passenger name"])
def test_everyday_labels_do_not_ask(label):
    click = Action(kind=ActionKind.CLICK, point=Point(10, 10))
    assert POLICY.reason(click, ActionContext(under=(label,))) is None


def test_an_icon_named_by_the_accessibility_tree_is_judged_by_its_name():
    trash = Element(Box(10, 10, 34, 34), "icon", "Move to Trash", 1.0, "accessibility")
    click = Action(kind=ActionKind.CLICK, point=Point(20, 20))
    obs = Observation(np.zeros((800, 1280, 3), np.uint8), MONITOR)
    assert POLICY.reason(click, action_context(click, obs, [trash], None, [])) is not None


# --- 4. secrets ---

def test_secret_labels_are_whole_words():
    assert not any(is_secret_label(label) for label in ("Passenger name", "Passport number", "Compass", "Pinball"))
    assert all(is_secret_label(label) for label in ("Password", "Passwort", "Mot de passe", "Contraseña", "密码",
                                                    "パスワード", "PIN"))


def test_a_password_typed_in_halves_into_another_field_asks_at_each_half():
    secret = TaskSecret("password", "hunter22")
    for typed_before, typed in (("", "hunt"), ("hunt", "er22")):
        context = ActionContext(focused_field="Comment", secrets=(secret,), typed_before=typed_before,
                                focus_role="input")
        assert "password" in (POLICY.reason(Action(kind=ActionKind.TYPE, text=typed), context) or "")
    fits = ActionContext(focused_field="Password", secrets=(secret,), focus_role="input")
    assert POLICY.reason(Action(kind=ActionKind.TYPE, text="hunter22", secret=True), fits) is None


def test_a_multi_word_passphrase_is_found_whole_and_scrubbed_in_parts():
    found = task_secrets("Log in with the passphrase: correct horse battery staple and press Enter")
    assert [s.value for s in found] == ["correct horse battery staple"]
    assert "horse" not in scrub("it said correct horse", ["correct horse battery staple"])


def test_streamed_text_never_shows_a_secret_split_over_pieces():
    scrubber = StreamScrubber(["hunter2"])
    shown = "".join(scrubber.feed(piece) for piece in ("The password is hu", "nter", "2, done")) + scrubber.flush()
    assert "hunter2" not in shown and "[redacted]" in shown


def test_a_secret_shown_on_the_screen_is_masked_in_every_frame_that_leaves(tmp_path):
    from deskpilot.planner.agent import MASK_COLOUR, Agent

    from deskpilot.core.safety import Safety

    agent = Agent(None, None, None, None, Safety(), tmp_path)  # type: ignore[arg-type]
    agent._secrets = [TaskSecret("password", "hunter2")]
    image = np.full((800, 1280, 3), 255, np.uint8)
    shown = Element(Box(400, 300, 520, 330), "input", "hunter2")
    masked = agent._masked(Observation(image, MONITOR), [shown, text("Name", (100, 100, 160, 120))]).image
    assert (masked[300:330, 400:520] == MASK_COLOUR).all()
    assert (masked[100:120, 100:160] == 255).all() and (image == 255).all()
    agent._secret_boxes = [Box(10, 10, 50, 30)]
    assert (agent._masked(Observation(image, MONITOR), []).image[10:30, 10:50] == MASK_COLOUR).all()


def streamed_finish(secret: str) -> str:
    return f"Thought: done. The password was {secret}.\nAction: finished(content='logged in with {secret}')"


@pytest.mark.display
def test_a_models_echo_of_the_password_reaches_no_console_episode_or_detail(demo_app, tmp_path):
    task = 'Sign in with the password "Tr0ub4dor&3"'
    with ChatServer([streamed_finish("Tr0ub4dor&3")]) as server:
        result = deskpilot("run", task, "--planner", "openai", "--model", "UI-TARS-1.5-7B", "--base-url",
                           server.base_url, "--episodes-dir", str(tmp_path / "ep"))
    assert "Tr0ub4dor" not in result.stdout + result.stderr, result.stdout + result.stderr
    episode = list_episodes(tmp_path / "ep")[0]
    for path in episode.rglob("*.json*"):
        assert "Tr0ub4dor" not in path.read_text()


# --- 5. the stop ---

def test_settings_refuse_non_finite_and_absurd_values():
    for name, value in (("settle_timeout", float("inf")), ("locate_timeout", float("nan")),
                        ("planner_timeout", 1e12), ("min_action_interval", 1e9), ("scale", 0.0001)):
        with pytest.raises(SettingsError, match=name):
            load_settings(**{name: value})


@pytest.mark.display
def test_a_settle_wait_ends_at_the_stop_whatever_its_timeout(xdisplay):
    stop = EmergencyStop()
    stop.trigger("test")
    with pytest.raises(SafetyStop):
        Screen().wait_until_settled(timeout=1e9, check=stop.check)


@pytest.mark.display
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGQUIT])
def test_sighup_and_sigquit_close_the_episode_and_let_go_of_keys(xdisplay, tmp_path, sig):
    replies = ["Thought: hold it.\nAction: press(key='shift')"] + ["Thought: wait.\nAction: wait(seconds='0.3')"] * 400
    with ChatServer(replies) as server:
        agent = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "run", "hold shift a while", "--planner",
                                  "openai", "--model", "UI-TARS-1.5-7B", "--base-url", server.base_url,
                                  "--episodes-dir", str(tmp_path / "ep")], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            episodes = list_episodes(tmp_path / "ep") if (tmp_path / "ep").is_dir() else []
            if episodes and len((episodes[0] / "steps.jsonl").read_text().splitlines()) >= 2:
                break
            time.sleep(0.05)
        agent.send_signal(sig)
        out, err = agent.communicate(timeout=30)
    episode = read_episode(list_episodes(tmp_path / "ep")[0])
    assert episode.meta.outcome == "stopped", (episode.meta, out, err)
    assert episode.steps[0].action.kind is ActionKind.KEY
    from Xlib import display as xlib_display

    assert not any(xlib_display.Display().query_keymap()), f"keys still held after {signal.Signals(sig).name}"


# --- 6. hostile episode folders and settings ---

def hostile_episode(root: Path, step: dict, meta: dict | None = None) -> Path:
    writer = EpisodeWriter.create(root, "a task", source="agent")
    writer.add_frame(np.zeros((8, 8, 3), np.uint8))
    writer.finish("success")
    with open(writer.directory / "steps.jsonl", "a") as steps:
        steps.write(json.dumps(step) + "\n")
    if meta is not None:
        data = json.loads((writer.directory / "episode.json").read_text())
        (writer.directory / "episode.json").write_text(json.dumps({**data, **meta}))
    return writer.directory


def plain_step(**changes: object) -> dict:
    step = {"index": 0, "action": {"kind": "click", "point": [1, 1]}, "before": "frames/000001.png",
            "after": "frames/000001.png"}
    return {**step, **changes}


def test_export_never_copies_a_file_outside_the_episode(tmp_path):
    root = tmp_path / "ep"
    hostile_episode(root, plain_step(before="/etc/passwd"))
    hostile_episode(root, plain_step(before="../../../../etc/passwd"))
    linked = hostile_episode(root, plain_step(before="frames/link.png"))
    (linked / "frames" / "link.png").symlink_to("/etc/passwd")
    result = deskpilot("episodes", "export", "--dir", str(root), "--out", str(tmp_path / "dataset"))
    assert "Traceback" not in result.stderr, result.stderr
    for arrow in (tmp_path / "dataset").rglob("*.arrow") if (tmp_path / "dataset").exists() else []:
        assert b"root:x:0:0" not in arrow.read_bytes()
    assert result.returncode in (0, 2) and ("outside the episode folder" in result.stderr or result.returncode == 0)


def test_episode_text_cannot_drive_the_terminal(tmp_path):
    evil = "task \x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]0;owned\x07 \x1b[2J done"
    path = hostile_episode(tmp_path / "ep", plain_step(thought=evil), meta={"task": evil, "detail": evil})
    for args in (("episodes", "show", str(path)), ("episodes", "list", "--dir", str(tmp_path / "ep"))):
        result = deskpilot(*args)
        assert result.returncode == 0, result.stderr
        assert "\x1b" not in result.stdout + result.stderr and "task" in result.stdout


@pytest.mark.slow  # the real CLI, once per hostile file
@pytest.mark.parametrize("meta, step", [({"outcome": None}, plain_step()), ({"started": "yesterday"}, plain_step()),
                                        ({}, plain_step(verification={"reason": "no label"})),
                                        ({}, plain_step(timing={"x": "slow"})), ({}, plain_step(index="0")),
                                        ({"extra": []}, plain_step())])
def test_wrong_types_in_an_episode_are_one_line_never_a_traceback(tmp_path, meta, step):
    path = hostile_episode(tmp_path / "ep", step, meta)
    for args in (("episodes", "list", "--dir", str(tmp_path / "ep")), ("episodes", "show", str(path)),
                 ("train", "sft", "--data", str(tmp_path / "ep"), "--model", str(tmp_path / "none"),
                  "--out", str(tmp_path / "out"))):
        result = deskpilot(*args)
        assert "Traceback" not in result.stderr, (args, result.stderr[-1500:])


def test_a_deeply_nested_settings_file_is_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    result = deskpilot("episodes", "list", "--dir", str(tmp_path), env={"DESKPILOT_CONFIG": str(config)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "nested too deeply" in result.stderr


@pytest.mark.display
def test_a_full_disk_at_start_is_one_line(xdisplay, tmp_path):
    result = subprocess.run(["bash", "-c", f"ulimit -f 0; exec {sys.executable} -m deskpilot.app run 'wait 1 "
                             f"seconds' --episodes-dir {tmp_path / 'ep'}"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-1500:]
    assert re.search(r"error: cannot .*(File too large|No space)", result.stderr), result.stderr[-500:]


def test_the_episodes_list_of_a_missing_folder_is_an_error(tmp_path):
    result = deskpilot("episodes", "list", "--dir", str(tmp_path / "missing"))
    assert result.returncode == 2 and "no episodes folder" in result.stderr


# --- 7. low ---

def test_a_point_just_outside_the_screen_is_refused_not_clamped():
    space = CoordinateSpace.for_model(MONITOR, "screen")
    with pytest.raises(ActionParseError, match="outside"):
        parse_response("Action: click(point='<point>1285 400</point>')", space)
    edge = parse_response("Action: click(point='<point>1280 800</point>')", space).actions[0]
    assert edge.point == Point(1279, 799)


def test_ctrl_f4_and_a_very_long_type_ask():
    assert POLICY.reason(key("ctrl", "f4"), ActionContext()) is not None
    assert "characters at once" in (POLICY.reason(Action(kind=ActionKind.TYPE, text="a" * 5000),
                                                  ActionContext()) or "")


# --- regressions ---

@pytest.mark.display
def test_nothing_but_json_reaches_stdout_without_an_xauth_entry(xdisplay, tmp_path):
    empty = tmp_path / "Xauthority"
    empty.touch()
    for args in (("doctor", "--json"), ("episodes", "list", "--dir", str(tmp_path), "--json")):
        result = deskpilot(*args, env={"XAUTHORITY": str(empty)})
        json.loads(result.stdout)  # the whole of stdout is the JSON
        assert "xauth" not in result.stdout


def test_no_module_reads_its_own_source_at_run_time():
    """A bundle (PyInstaller) ships byte code, not .py files: only package data may be found through __file__."""
    allowed = {"resources/__init__.py": "RESOURCES_DIR", "evaluation/miniwob/page.py": "miniwob.__file__"}
    for path in SRC.glob("*/**/*.py"):
        relative = path.relative_to(SRC).as_posix()
        source = path.read_text(encoding="utf-8")
        assert "getsource(" not in source and "getsourcefile(" not in source, relative
        for line in source.splitlines():
            if "__file__" in line and not line.lstrip().startswith("#"):
                assert relative in allowed and allowed[relative] in line, f"{relative}: {line.strip()}"

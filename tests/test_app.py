"""The desktop app on the real Xvfb display (pytest-qt): the Episodes view labels, deletes and exports; the Train
view runs a real `deskpilot train` process and draws its curves; the Run view drives the agent against the demo
app from the UI, pauses and stops it, and never lets the agent see deskpilot's own window."""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt
from conftest import read_state
from tiny_models import build_tiny_llava

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeWriter, Step, read_episode
from deskpilot.core.geometry import Box, Point
from deskpilot.core.settings import load_settings
from deskpilot.core.verdict import Verdict
from deskpilot.core.secrets import REDACTED
from deskpilot.resources.demo import DemoApp


def labelled_episodes(root, count: int = 2) -> list:
    """Small synthetic episodes: a click and a typing step each, the first labelled good, the second bad."""
    paths = []
    for number in range(count):
        writer = EpisodeWriter.create(root, f"fill the form {number}")
        for index, action in enumerate([Action(kind=ActionKind.CLICK, point=Point(40, 30)),
                                        Action(kind=ActionKind.TYPE, text="Ada")]):
            frame = np.full((120, 160, 3), 40 * index + 60 * number, np.uint8)
            name = writer.add_frame(frame)
            label = "good" if number == 0 else "bad"
            checks = {"env": "unknown", "heuristic": "bad"} if number == 1 else None
            writer.append(Step(index, action, name, name, thought="because",
                               verification=Verdict(label, "test", 1.0, "human", checks)))
        writer.finish("success")
        paths.append(writer.directory)
    return paths


@pytest.fixture
def window(xdisplay, qtbot, tmp_path, monkeypatch):
    (tmp_path / "config.toml").write_text("")  # not a first start (that one is in test_app_record_settings.py)
    monkeypatch.setenv("DESKPILOT_CONFIG", str(tmp_path / "config.toml"))
    from deskpilot.app.window import MainWindow

    main = MainWindow(load_settings(episodes_dir=tmp_path / "episodes"))
    qtbot.addWidget(main)
    main.setGeometry(0, 640, 1280, 160)  # below the demo app (which spans y 40-600)
    main.show()
    qtbot.waitExposed(main)
    return main


def test_episodes_view_sorts_filters_labels_deletes_with_undo_and_exports(window, qtbot, tmp_path):
    first, second = labelled_episodes(tmp_path / "episodes")
    third = labelled_episodes(tmp_path / "more", count=1)[0]
    third.rename(tmp_path / "episodes" / third.name)  # a third episode
    writer = EpisodeWriter.create(tmp_path / "episodes", "open the report")
    writer.finish("failed", "the file was not there")
    window.resize(1280, 800)
    view = window.episodes_view
    window.tabs.setCurrentWidget(view)
    view.refresh()
    cell = lambda row, column: view.rows.index(row, column).data()  # noqa: E731
    assert view.rows.rowCount() == 4 and view.count.text() == "4 episodes"
    assert [view.model.headerData(i, Qt.Orientation.Horizontal) for i in range(6)] == \
        ["Date", "Task", "Planner", "Outcome", "Steps", "Duration"]
    assert cell(0, 1) == "open the report" and cell(0, 3) == "failed" and cell(0, 4) == "0"  # newest first
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", cell(0, 0)) and cell(0, 5).endswith(" s")
    view.table.sortByColumn(4, Qt.SortOrder.DescendingOrder)  # by steps, as numbers
    assert [cell(row, 4) for row in range(4)] == ["2", "2", "2", "0"]
    view.filter.setText("FORM 1")  # any column, any case
    assert view.rows.rowCount() == 1 and cell(0, 1) == "fill the form 1" and view.count.text() == "1 of 4 episodes"
    view.filter.setText("")
    view.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert cell(0, 1) == "fill the form 0" and view.path_at(0) == first
    view.table.selectRow(0)
    assert view.steps.count() == 2 and view.steps.item(0).text().startswith("✓ 1. click")
    view.steps.setCurrentRow(1)
    assert view.before.pixmap() is not None and not view.before.pixmap().isNull()
    assert view.before.width() >= 400 and view.before.height() >= 300, (view.before.width(), view.before.height())
    qtbot.mouseClick(view.bad, qtbot_button())
    steps = read_episode(first).steps
    assert steps[1].verification == Verdict("bad", "set by a person", 0.0, "human")
    assert steps[0].verification.verifier == "human" and steps[0].verification.reason == "test"
    assert view.steps.item(1).text().startswith("✗ 2. type")
    view.table.selectRow(1)
    view.steps.setCurrentRow(0)  # the episode whose steps carry every verifier's verdict
    assert "every verifier: env: unknown · heuristic: bad" in view.detail.text()
    view.replay_requested.disconnect()  # the signal alone here: the Run view replays for real in the run test
    with qtbot.waitSignal(view.replay_requested) as asked:
        view.steps.setCurrentRow(1)
        view.replay.click()
    assert asked.args == [str(second), 1]
    view.export_to(tmp_path / "dataset")
    from datasets import load_from_disk

    assert len(load_from_disk(str(tmp_path / "dataset"))) == 6
    view.table.selectRow(1)
    view.delete_current()  # undoable: the folder waits in the trash
    assert not second.exists() and view.rows.rowCount() == 3 and view.undo.isVisible()
    assert "fill the form 1" in view.undo_note.text()
    view.undo.click()
    assert second.is_dir() and view.rows.rowCount() == 4 and not view.undo.isVisible()
    view.table.selectRow(2)
    doomed = view.episode.directory
    view.delete_current()
    view.table.selectRow(0)
    view.delete_current()  # the next delete empties the trash of the one before
    assert not doomed.exists() and not (tmp_path / "episodes" / ".deleted" / doomed.name).exists()
    assert view.rows.rowCount() == 2
    window.close()  # the app's end empties the trash
    assert not (tmp_path / "episodes" / ".deleted").exists() or not any((tmp_path / "episodes" / ".deleted").iterdir())


def test_train_view_runs_a_real_training_job_and_hands_the_model_to_the_run_view(window, qtbot, tmp_path):
    labelled_episodes(tmp_path / "episodes")
    model = build_tiny_llava(tmp_path / "tiny")
    view = window.train_view
    window.tabs.setCurrentWidget(view)
    view.model.setText("")
    assert not view.start.isEnabled() and "choose the base model folder" in view.problems.text()
    view.model.setText(str(tmp_path))  # a folder, but no model in it
    assert "holds no model (no config.json)" in view.problems.text() and not view.start.isEnabled()
    view.held_out.setText(str(tmp_path / "nowhere"))
    assert "no episodes in the held-out folder" in view.problems.text()
    view.held_out.setText(str(tmp_path / "episodes"))
    view.model.setText(str(model))
    view.out.setText(str(tmp_path / "runs" / "kto"))
    view.max_steps.setValue(3)
    assert view.problems.text() == "" and view.start.isEnabled()
    with qtbot.waitSignal(view.finished, timeout=180_000) as finished:
        qtbot.mouseClick(view.start, qtbot_button())
        assert not view.start.isEnabled() and view.cancel.isEnabled()
    assert finished.args == [0], view.log.toPlainText()[-2000:]
    assert view.progress.value() == 3 and view.progress.maximum() == 3
    assert "loss" in view.plot.curves and len(view.plot.curves["loss"]) == 3
    output = view.log.toPlainText()
    assert "3 steps in" in output and "\x1b" not in output and "{'" not in output, output[-2000:]
    assert view.progress.format() == "%v / %m steps"
    assert view.use.isEnabled() and view.compare.isEnabled()
    qtbot.mouseClick(view.compare, qtbot_button())  # the base model and the new one on the held-out episodes
    qtbot.waitUntil(lambda: "new model" in view.comparison.text(), timeout=240_000)
    assert "held-out steps" in view.comparison.text() and "action type" in view.comparison.text()
    assert "failed" not in view.log.toPlainText()[-500:], view.log.toPlainText()[-1000:]
    qtbot.mouseClick(view.use, qtbot_button())
    assert window.tabs.currentWidget() is window.run_view
    assert window.run_view.planner.currentText() == "transformers"
    assert window.run_view.model.text() == str(tmp_path / "runs" / "kto")


def test_a_run_started_from_the_ui_changes_the_demo_app(window, demo_app, qtbot, monkeypatch):
    view = window.run_view
    view.task.setText('type "Ada Lovelace" into Full name, check "Remember me" then click "Save"')
    with qtbot.waitSignal(view.run_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.run_button, qtbot_button())
        assert view.stop_button.isEnabled() and not view.task.isEnabled()
    assert finished.args[0] == "success", [view.log.item(i).text() for i in range(view.log.count())]
    state = read_state(demo_app.state_file)
    assert state["full_name"] == "Ada Lovelace" and state["remember_me"] is True and state["saved"]
    lines = [view.log.item(i).text() for i in range(view.log.count())]
    assert len(lines) == 7, lines  # 5 steps, the goal check, the outcome
    assert all(re.fullmatch(r"[✓✗?] \d\. .+  \(\d+\.\d s\)", line) for line in lines[:5]), lines
    assert lines[0].startswith("? 1. click") and lines[1].startswith("✓ 2. type"), lines  # focus: no change
    assert lines[5].startswith("goal check held: ") and "Ada Lovelace" in lines[5], lines
    assert view.thought.text().startswith("Step 5: ") and "ctrl+shift+f12" in view.stop_hint.text()
    shown = view.frame.pixmap()  # the demo app's window (900x560 at 60,40), not the whole 1280x800 screen
    assert shown is not None and abs(shown.width() / shown.height() - (900 + 24) / (560 + 24 + 30)) < 0.12, \
        (shown.width(), shown.height())
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=5000)
    episodes = window.episodes_view
    assert episodes.rows.rowCount() == 1, "the Episodes view shows the new run"
    # Replay from here: on a fresh demo app, the run's steps from "Remember me" on (not the name typed before it)
    demo_app.stop()
    fresh = DemoApp(demo_app.state_file.with_name("fresh-state.json")).start()
    try:
        window.tabs.setCurrentWidget(episodes)
        episodes.table.selectRow(0)
        remember = next(i for i in range(episodes.steps.count()) if "Remember me" in episodes.steps.item(i).text())
        episodes.steps.setCurrentRow(remember)
        with qtbot.waitSignal(view.run_finished, timeout=120_000) as replayed:
            episodes.replay.click()
            assert window.tabs.currentWidget() is view and view.task.text().startswith("replay: ")
        lines = [view.log.item(i).text() for i in range(view.log.count())]
        assert replayed.args[0] == "success", lines
        state = read_state(fresh.state_file)
    finally:
        fresh.stop()
    assert state["remember_me"] is True and state["saved"] and not state["full_name"], state
    assert lines[0].startswith(f"✓ {remember + 1}. click") and "Remember me" in lines[0], lines
    # A secret the recording left out is asked in the window, typed, and written nowhere
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=5000)
    recorded = episodes.path_at(episodes.rows.rowCount() - 1)
    steps = (recorded / "steps.jsonl").read_text()
    (recorded / "steps.jsonl").write_text(steps.replace('"Ada Lovelace"', f'"{REDACTED}"', 1))
    asked: list[str] = []
    monkeypatch.setattr("deskpilot.app.views.run_view.QInputDialog.getText",
                        lambda parent, title, prompt, mode: (asked.append(prompt), ("s3cret pass", True))[1])
    secret_app = DemoApp(demo_app.state_file.with_name("secret-state.json")).start()
    try:
        with qtbot.waitSignal(view.run_finished, timeout=120_000) as replayed:
            view.start_replay(recorded, 0)
        state = read_state(secret_app.state_file)
    finally:
        secret_app.stop()
    assert replayed.args[0] == "success", [view.log.item(i).text() for i in range(view.log.count())]
    assert state["full_name"] == "s3cret pass" and asked and "typed a secret" in asked[0]
    written = read_episode(replayed.args[1])
    assert all("s3cret" not in str(step.action.text) for step in written.steps)


def test_pause_holds_the_agent_and_stop_ends_it(window, demo_app, qtbot):
    view = window.run_view
    view.task.setText('click "Save" then click "Save" then click "Save" then click "Save"')
    with qtbot.waitSignal(view.run_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.run_button, qtbot_button())
        qtbot.waitUntil(lambda: view.log.count() >= 1, timeout=60_000)
        qtbot.mouseClick(view.pause_button, qtbot_button())
        held = view.log.count()
        time.sleep(1.5)
        qtbot.wait(100)
        assert view.log.count() <= held + 1, "paused: at most the step in flight completes"
        assert view.pause_button.text() == "Resume"
        qtbot.mouseClick(view.stop_button, qtbot_button())
    assert finished.args[0] == "stopped"
    assert read_state(demo_app.state_file)["saved"] < 4


def test_the_agent_never_sees_deskpilots_own_window(window, qtbot):
    from PySide6.QtCore import QRect

    from deskpilot.app.views.agent_worker import MASK_COLOUR, MaskedScreen

    window.setGeometry(QRect(100, 100, 400, 300))
    qtbot.wait(300)
    frame = window.frameGeometry()
    screen = MaskedScreen(window.own_region)
    image = screen.grab()
    inside = image[frame.top() + 5:frame.bottom() - 5, frame.left() + 5:frame.right() - 5]
    assert (inside == MASK_COLOUR).all()
    assert not (image[:90, :90] == MASK_COLOUR).all()
    assert window.own_region() == [Box(frame.left(), frame.top(), frame.right() + 1, frame.bottom() + 1)]


def test_cyclic_garbage_another_thread_makes_is_freed_on_the_windows_thread(window, qtbot):
    """A Qt object freed by the agent's thread while the window's thread delivers it an event crashes the app: while
    the window is open only its own thread collects reference cycles."""
    import gc
    import threading

    freed_on: list[int] = []

    class Cyclic:
        def __init__(self):
            self.me = self

        def __del__(self):
            freed_on.append(threading.get_ident())

    def churn() -> None:
        for _ in range(20_000):  # far past generation 0's threshold: an automatic collection would start here
            Cyclic()

    assert not gc.isenabled()
    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(freed_on) == 20_000, timeout=60_000)
    assert set(freed_on) == {threading.get_ident()}
    window.close()
    assert gc.isenabled()


def qtbot_button():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def answer_the_dialog(answer: str, seen: list) -> None:
    """Answer deskpilot's confirmation dialog once it shows, noting what it showed."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from deskpilot.app.views.confirm_dialog import ConfirmDialog

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ConfirmDialog):
            QTimer.singleShot(100, look)
            return
        picture = dialog.picture.pixmap()
        seen.append({"action": dialog.action_text.text(), "reason": dialog.reason_text.text(),
                     "width": dialog.action_text.width(), "picture": picture is not None and not picture.isNull(),
                     "default": dialog.deny.isDefault(), "always": dialog.always.isEnabled()})
        {"once": dialog.once, "deny": dialog.deny, "always": dialog.always}[answer].click()

    QTimer.singleShot(100, look)


@pytest.mark.parametrize("answer", ["deny", "once"])
def test_risky_actions_ask_in_a_dialog(window, demo_app, qtbot, answer):
    seen: list = []
    view = window.run_view
    view.task.setText('click "Delete all"')
    answer_the_dialog(answer, seen)
    with qtbot.waitSignal(view.run_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.run_button, qtbot_button())
    assert len(seen) == 1 and seen[0]["action"].startswith("click") and "Delete all" in seen[0]["action"], seen
    assert "delete" in seen[0]["reason"].lower() and seen[0]["width"] >= 460 and seen[0]["picture"], seen
    assert seen[0]["default"] and seen[0]["always"], seen  # Deny is the default; a click can be allowed for good
    state = read_state(demo_app.state_file)
    assert finished.args[0] == ("success" if answer == "once" else "refused")
    assert (state["status"] == "All files deleted") is (answer == "once")
    if answer == "deny":
        refusal = [view.log.item(i).text() for i in range(view.log.count())][-1]
        assert "you denied it" in refusal and "run interactively" not in refusal, refusal


def test_always_allow_is_remembered_for_that_control_in_that_app_until_revoked(window, demo_app, qtbot):
    seen: list = []
    view, settings = window.run_view, window.settings_view
    view.task.setText('click "Delete all"')
    answer_the_dialog("always", seen)
    with qtbot.waitSignal(view.run_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.run_button, qtbot_button())
    assert finished.args[0] == "success" and len(seen) == 1
    settings.show_allowances()
    assert settings.allowed.count() == 1 and "'Delete all'" in settings.allowed.item(0).text()
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=5000)
    with qtbot.waitSignal(view.run_finished, timeout=120_000) as again:  # not asked again
        qtbot.mouseClick(view.run_button, qtbot_button())
    assert again.args[0] == "success" and len(seen) == 1
    settings.allowed.setCurrentRow(0)
    settings.revoke_button.click()
    assert settings.allowed.item(0).text().startswith("(none") and not settings.revoke_button.isEnabled()
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=5000)
    answer_the_dialog("deny", seen)
    with qtbot.waitSignal(view.run_finished, timeout=120_000) as revoked:  # asked again
        qtbot.mouseClick(view.run_button, qtbot_button())
    assert revoked.args[0] == "refused" and len(seen) == 2


def test_cancel_stops_a_training_job(window, qtbot, tmp_path):
    labelled_episodes(tmp_path / "episodes")
    view = window.train_view
    view.model.setText(str(build_tiny_llava(tmp_path / "tiny")))
    view.out.setText(str(tmp_path / "runs" / "kto"))
    view.max_steps.setValue(100_000)
    with qtbot.waitSignal(view.finished, timeout=120_000) as finished:
        view.start_training()
        qtbot.waitUntil(lambda: view.progress.value() >= 1, timeout=90_000)
        qtbot.mouseClick(view.cancel, qtbot_button())
    assert finished.args[0] != 0 and view.start.isEnabled() and not view.use.isEnabled()
    assert not (tmp_path / "runs" / "kto" / "deskpilot_training.json").exists()


def test_train_view_trains_a_language_model_in_som_text_mode(window):
    view = window.train_view
    view.model.setText("/models/fresh")
    view.mode.setCurrentText("som-text")
    view.full.setChecked(True)
    command = view.command()
    assert command[command.index("--mode") + 1] == "som-text" and "--full" in command


def test_plain_deskpilot_opens_the_app_where_there_is_a_display(xdisplay, tmp_path):
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "deskpilot.app"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^deskpilot$"],
                               capture_output=True, text=True, timeout=60)
        assert found.returncode == 0 and found.stdout.strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_train_view_runs_rounds_and_draws_success_per_round_beside_the_loss(window, tmp_path):
    from deskpilot.training.metrics import MetricsWriter

    view = window.train_view
    out = tmp_path / "rounds"
    view.model.setText("/models/start")
    view.out.setText(str(out))
    view.rounds.setValue(2)
    view.tasks.setText("click-button,login-user")
    view.labeller.setCurrentText("rollout")
    command = view.command()
    assert command[2:3] == ["improve"] and command[command.index("--rounds") + 1] == "2"
    assert command[command.index("--label") + 1] == "rollout"
    assert command[command.index("--tasks") + 1] == "click-button,login-user" and "--data" not in command
    # what `deskpilot improve` leaves while it runs: rounds.json and the current round's metrics
    writer = MetricsWriter(out / "round-1" / "model")
    writer.start()
    for step in (1, 2, 3):
        writer.write(step, {"loss": 1.0 / step})
    records = [{"round": 0, "model": "/models/start", "mean_success": 0.4},
               {"round": 1, "model": str(out / "round-1" / "model"), "mean_success": 0.6}]
    (out / "rounds.json").write_text(json.dumps({"rounds": records, "best_model": "/models/start"}))
    view.progress.setRange(0, 2)
    view.poll()
    assert view.plot.curves["held-out success"] == [(0, 0.4), (1, 0.6)] and len(view.plot.curves["loss"]) == 3
    # the model improve chose (round 1's gain was within the noise), not the highest mean
    assert view.progress.value() == 1 and view.result_model() == "/models/start"

"""The app's Record view (a real recording on Xvfb, driven by xdotool) and Settings view (the shared TOML file and
the OS keyring through keyring's API, with the plain-file backend of keyrings.alt standing in for a desktop's)."""

from __future__ import annotations

import subprocess
import time

import pytest
from conftest import read_state

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.settings import load_settings


@pytest.fixture
def window(xdisplay, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("DESKPILOT_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from deskpilot.app.window import MainWindow

    main = MainWindow(load_settings(episodes_dir=tmp_path / "episodes"))
    qtbot.addWidget(main)
    main.setGeometry(0, 640, 1280, 160)
    main.show()
    qtbot.waitExposed(main)
    qtbot.wait(300)
    return main


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True)
    time.sleep(0.3)


def test_record_view_records_actions_outside_its_own_window(window, demo_app, qtbot, tmp_path):
    view = window.record_view
    window.tabs.setCurrentWidget(view)
    view.task.setText("type a name")
    view.start_recording()
    boxes = read_state(demo_app.state_file)["boxes"]
    x0, y0, x1, y1 = boxes["Full name"]
    xdotool("mousemove", str((x0 + x1) // 2), str((y0 + y1) // 2), "click", "1")
    xdotool("type", "--delay", "40", "Ada")
    xdotool("mousemove", "640", "700", "click", "1")  # on deskpilot's own window: not a step
    qtbot.waitUntil(lambda: view.actions.count() >= 1, timeout=15_000)
    view.task.setText("type Ada into Full name")
    view.stop_recording()
    episode = read_episode(list_episodes(tmp_path / "episodes")[0])
    assert episode.meta.source == "demonstration" and episode.meta.task == "type Ada into Full name"
    assert [s.action.kind.value for s in episode.steps] == ["click", "type"]
    assert episode.steps[1].action.text == "Ada"
    qtbot.waitUntil(lambda: view.actions.count() == 2, timeout=5000)  # the last step's signal may still be queued
    assert "type" in view.actions.item(1).text()
    assert window.episodes_view.rows.rowCount() == 1


def test_settings_view_saves_the_shared_file_and_keeps_the_key_in_the_keyring(window, tmp_path):
    view = window.settings_view
    view.fields["planner"].setCurrentText("openai")
    view.fields["model"].setText("UI-TARS-1.5-7B")
    view.fields["base_url"].setText("http://127.0.0.1:9999/v1")
    view.fields["confirm"].setCurrentText("always")
    view.max_steps.setValue(12)
    view.api_key.setText("sk-secret-0123456789")
    view.save()
    text = (tmp_path / "config.toml").read_text()
    assert 'planner = "openai"' in text and "max_steps = 12" in text and 'confirm = "always"' in text
    assert "sk-secret" not in text and not view.api_key.text()
    settings = load_settings()
    assert settings.model == "UI-TARS-1.5-7B" and settings.max_steps == 12
    assert window.run_view.planner.currentText() == "openai", "the Run view follows the saved settings"
    from deskpilot.core.settings import stored_api_key
    from deskpilot.planner.factory import build_backend

    assert stored_api_key() == "sk-secret-0123456789"
    assert build_backend(settings)._client.api_key == "sk-secret-0123456789"


def test_settings_view_refuses_bad_values_in_one_line(window, tmp_path):
    view = window.settings_view
    view.fields["stop_hotkey"].setText("ctrl+alt+f2")
    messages: list[str] = []
    view.status.connect(messages.append)
    view.save()
    assert messages and messages[0].startswith("bad setting 'stop_hotkey'")
    assert not (tmp_path / "config.toml").exists()


def test_first_start_and_settings_show_what_works_on_this_machine(window, qtbot):
    view = window.settings_view
    assert "Settings shows what works" in window.statusBar().currentMessage()  # no settings file yet
    view.run_doctor()
    qtbot.waitUntil(lambda: "the agent can run here" in view.doctor_report.toPlainText(), timeout=90000)
    text = view.doctor_report.toPlainText()
    assert "ok    display: X11" in text and "UI-element detector" in text and "input injection" in text
    assert view.doctor_button.isEnabled()

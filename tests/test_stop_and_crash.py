"""The agent can always be stopped (global hotkey, screen-corner failsafe, SIGTERM), and a killed agent leaves a
readable episode that lacks at most the step in flight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from deskpilot.core.episode import list_episodes, read_episode

SLOW_TASK = "; ".join(["wait 0.5 seconds"] * 40)


def start_agent(tmp_path: Path, task: str = SLOW_TASK, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "deskpilot.app", "run", task, "--episodes-dir",
                             str(tmp_path / "ep"), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_for_steps(tmp_path: Path, count: int, timeout: float = 60) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for episode in list_episodes(tmp_path / "ep"):
            steps = episode / "steps.jsonl"
            if steps.exists() and len(steps.read_text().splitlines()) >= count:
                return episode
        time.sleep(0.05)
    raise TimeoutError(f"the agent did not reach {count} steps")


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=10)


def test_stop_hotkey_halts_a_running_agent_within_one_action(xdisplay, tmp_path):
    agent = start_agent(tmp_path)
    episode_dir = wait_for_steps(tmp_path, 2)
    pressed = time.monotonic()
    xdotool("key", "ctrl+shift+F12")
    out, err = agent.communicate(timeout=20)
    halted_after = time.monotonic() - pressed
    assert agent.returncode == 1, out + err
    assert halted_after < 3.0
    episode = read_episode(episode_dir)
    assert episode.meta.outcome == "stopped"
    assert "stop hotkey" in (episode.meta.detail or "")
    assert len(episode.steps) < 10


def test_mouse_in_a_screen_corner_stops_the_agent(xdisplay, tmp_path):
    agent = start_agent(tmp_path)
    episode_dir = wait_for_steps(tmp_path, 2)
    xdotool("mousemove", "0", "0")
    try:
        out, err = agent.communicate(timeout=20)
    finally:
        xdotool("mousemove", "640", "400")
    assert agent.returncode == 1, out + err
    episode = read_episode(episode_dir)
    assert episode.meta.outcome == "stopped" and "corner" in (episode.meta.detail or "")


def test_sigterm_finishes_the_episode_cleanly(xdisplay, tmp_path):
    agent = start_agent(tmp_path)
    episode_dir = wait_for_steps(tmp_path, 2)
    agent.send_signal(signal.SIGTERM)
    agent.communicate(timeout=20)
    assert read_episode(episode_dir).meta.outcome == "stopped"


def test_sigkill_mid_episode_leaves_a_readable_episode(xdisplay, tmp_path):
    agent = start_agent(tmp_path)
    episode_dir = wait_for_steps(tmp_path, 3)
    time.sleep(0.2)
    os.kill(agent.pid, signal.SIGKILL)
    agent.communicate(timeout=20)
    written = (episode_dir / "steps.jsonl").read_text().splitlines()
    episode = read_episode(episode_dir)
    assert episode.meta.outcome == "running"  # killed: never finished, but readable
    assert len(episode.steps) >= 3
    assert len(episode.steps) >= len(written) - 1  # at most the step in flight is lost
    assert [s.index for s in episode.steps] == list(range(len(episode.steps)))
    for step in episode.steps:
        assert (episode_dir / step.before).is_file()
        episode.frame(step.before)
        assert step.after is None or (episode_dir / step.after).is_file()
    json.loads((episode_dir / "episode.json").read_text())
    assert not list(episode_dir.glob(".*.tmp"))

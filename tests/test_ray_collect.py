"""Collection scaled out on Ray: `deskpilot collect miniwob --ray auto` starts a local Ray instance on 127.0.0.1
whose 2 actors each own a display and a browser; it collects the same episodes as the local worker processes (same
tasks and seeds, same outcomes), and a worker killed mid-run loses at most its episode in flight: Ray restarts it
and retries the episode, the run still collects everything, and what the killed worker left half-written is removed
by the next run."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time

import psutil
import pytest
from conftest import deskpilot

from deskpilot.core.episode import list_episodes, read_episode

pytest.importorskip("ray")
ARGS = ("collect", "miniwob", "--tasks", "click-button,focus-text", "--episodes", "1", "--workers", "2",
        "--frames", "none", "--seed", "300")


def outcomes(folder) -> list[tuple]:
    return sorted((m.environment.task, m.environment.seed, m.environment.reward, m.outcome)
                  for m in (read_episode(path).meta for path in list_episodes(folder)))


def test_ray_workers_collect_the_same_episodes_as_local_processes(xdisplay, tmp_path):
    local = deskpilot(*ARGS, "--out", str(tmp_path / "local"), "--json", str(tmp_path / "local.json"), timeout=300)
    assert local.returncode == 0, local.stdout + local.stderr
    on_ray = deskpilot(*ARGS, "--ray", "auto", "--out", str(tmp_path / "ray"), "--json", str(tmp_path / "ray.json"),
                       timeout=300)
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    assert "WARNING" not in on_ray.stderr and "Traceback" not in on_ray.stderr, on_ray.stderr
    assert outcomes(tmp_path / "ray") == outcomes(tmp_path / "local")
    assert len(outcomes(tmp_path / "ray")) == 2
    report = json.loads((tmp_path / "ray.json").read_text())
    assert report["episodes"] == 2 and report["failed_workers"] == [] and report["steps_per_second"] > 0


def test_eval_miniwob_on_ray_workers_scores_the_same_episodes_as_in_one_process(xdisplay, tmp_path):
    """`eval miniwob --workers 2 --ray auto` runs the agent's own planner on collect's workers: the same report."""
    args = ("eval", "miniwob", "--tasks", "click-button,focus-text", "--episodes", "1", "--seed", "300", "--no-pack")
    here = deskpilot(*args, "--episodes-dir", str(tmp_path / "here"), "--json", str(tmp_path / "here.json"),
                     timeout=300)
    assert here.returncode == 0, here.stdout + here.stderr
    on_ray = deskpilot(*args, "--workers", "2", "--ray", "auto", "--episodes-dir", str(tmp_path / "ray"), "--json",
                       str(tmp_path / "ray.json"), timeout=300)
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    assert "Traceback" not in on_ray.stderr, on_ray.stderr
    assert outcomes(tmp_path / "ray") == outcomes(tmp_path / "here") and len(outcomes(tmp_path / "ray")) == 2
    alone, spread = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("here", "ray"))
    assert spread["workers"] == 2 and spread["ray"] == "auto" and spread["rule_pack"] == "none"
    assert {task: row["success_rate"] for task, row in spread["tasks"].items()} == \
        {task: row["success_rate"] for task, row in alone["tasks"].items()}
    assert spread["goal_check"] == alone["goal_check"]


def test_a_ray_worker_killed_mid_run_loses_at_most_its_episode(xdisplay, tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "deskpilot.app", "collect", "miniwob", "--tasks", "click-button", "--episodes",
               "4", "--workers", "2", "--frames", "none", "--seed", "500", "--ray", "auto", "--out", str(out),
               "--json", str(tmp_path / "killed.json")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    left: list[psutil.Process] = []  # the killed worker's display and browser, orphaned by the kill
    try:
        deadline = time.monotonic() + 180
        while not list_episodes(out) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        actors = [p for p in psutil.process_iter(["cmdline"])
                  if any("ray::WorkerActor" in part for part in (p.info["cmdline"] or []))]
        assert actors, "no Ray worker found"
        left = actors[0].children(recursive=True)
        actors[0].send_signal(signal.SIGKILL)  # mid-run: the other worker goes on, Ray restarts this one
        stdout, stderr = process.communicate(timeout=300)
    finally:
        process.kill()
        for orphan in left:
            with contextlib.suppress(psutil.Error):
                orphan.kill()
    assert process.returncode == 0, stdout + stderr
    report = json.loads((tmp_path / "killed.json").read_text())
    assert report["episodes"] == 4 and report["failed_workers"] == [], report
    finished = [m for m in (read_episode(p).meta for p in list_episodes(out))
                if m.environment is not None and m.environment.reward is not None]
    assert sorted(m.environment.seed for m in finished) == list(range(500, 504))
    assert len(list_episodes(out)) - len(finished) <= 1  # the episode the killed worker had in flight, at most
    again = deskpilot(*command[3:-2], timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "0 episodes" in again.stdout and len(list_episodes(out)) == 4, again.stdout


def test_the_playing_labellers_and_improve_take_their_workers_to_ray_too(tmp_path):
    """`label --verifier rollout|branch --ray` and `improve --ray` hand the address to every collection they run."""
    from deskpilot.evaluation import labellers  # noqa: F401 - offers rollout and branch to the registry
    from deskpilot.labelling.registry import VerifierOptions, make

    policy = tmp_path / "policy"
    policy.mkdir()
    (policy / "config.json").write_text("{}")  # a model folder, as far as the labellers check
    for name in ("rollout", "branch"):
        labeller = make(name, VerifierOptions(model=str(policy), out=tmp_path / name, workers=2, ray="auto"))
        made = labeller.config.collect_config(("click-button",))  # type: ignore[attr-defined]
        assert made.ray == "auto" and made.workers == 2
    for command in ("improve", "label"):
        shown = deskpilot(command, "--help", env={"COLUMNS": "200"})
        assert "--ray" in shown.stdout, shown.stdout

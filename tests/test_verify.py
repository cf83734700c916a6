"""Step verification on real before/after frames from the demo app, and `deskpilot label` writing verdicts."""

from __future__ import annotations

from conftest import clicks_on_nothing, deskpilot

from deskpilot.core.episode import list_episodes, read_episode


def test_steps_that_worked_are_labelled_good(demo_app, tmp_path):
    assert deskpilot("run", 'type "Ada Lovelace" into Full name then click "Save"', "--episodes-dir",
                     str(tmp_path / "ep")).returncode == 0
    path = list_episodes(tmp_path / "ep")[0]
    result = deskpilot("label", str(path))
    assert result.returncode == 0, result.stderr
    steps = read_episode(path).steps
    labels = [s.verification["label"] if s.verification else None for s in steps]
    assert labels == ["good", "good", "good", None]
    assert "typed text appeared" in steps[1].verification["reason"]
    assert all(s.verification["verifier"] == "heuristic" for s in steps[:3])


def test_steps_that_did_nothing_are_labelled_bad(demo_app, tmp_path):
    path = clicks_on_nothing(tmp_path)
    assert deskpilot("label", str(path), "--verifier", "heuristic").returncode == 0
    first, second = read_episode(path).steps
    assert first.verification["label"] == "bad" and "nothing changed" in first.verification["reason"]
    assert second.verification["label"] == "bad" and "repeats" in second.verification["reason"]


def test_a_person_can_overrule_one_step(demo_app, tmp_path):
    path = clicks_on_nothing(tmp_path)
    frames_before = sorted(p.name for p in (path / "frames").iterdir())
    meta_before = (path / "episode.json").read_text()
    assert deskpilot("label", str(path), "--set", "good", "--step", "2").returncode == 0
    steps = read_episode(path).steps
    assert steps[0].verification is None
    assert steps[1].verification == {"label": "good", "reason": "set by a person", "score": 1.0, "verifier": "human"}
    assert sorted(p.name for p in (path / "frames").iterdir()) == frames_before
    assert (path / "episode.json").read_text() == meta_before


def test_label_errors_are_one_line(tmp_path):
    result = deskpilot("label", str(tmp_path), "--set", "maybe")
    assert result.returncode == 2 and result.stderr.strip() == "error: --set takes good or bad, not 'maybe'"

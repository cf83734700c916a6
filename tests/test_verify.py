"""Step verification on real before/after frames from the demo app, and `deskpilot label` writing verdicts."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import clicks_on_nothing, deskpilot
from openai_server import ChatServer

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.verdict import Verdict


def test_steps_that_worked_are_labelled_good(demo_app, tmp_path):
    assert deskpilot("run", 'type "Ada Lovelace" into Full name then click "Save"', "--episodes-dir",
                     str(tmp_path / "ep")).returncode == 0
    path = list_episodes(tmp_path / "ep")[0]
    result = deskpilot("label", str(path))
    assert result.returncode == 0, result.stderr
    steps = read_episode(path).steps
    labels = [s.verification.label if s.verification else None for s in steps]
    assert labels == ["good", "good", "good", None]
    assert "typed text appeared" in steps[1].verification.reason
    assert all(s.verification.verifier == "heuristic" for s in steps[:3])


def test_steps_that_did_nothing_are_labelled_bad(demo_app, tmp_path):
    path = clicks_on_nothing(tmp_path)
    assert deskpilot("label", str(path), "--verifier", "heuristic").returncode == 0
    first, second = read_episode(path).steps
    assert first.verification.label == "bad" and "nothing changed" in first.verification.reason
    assert second.verification.label == "bad" and "repeats" in second.verification.reason


def test_a_person_can_overrule_one_step(demo_app, tmp_path):
    path = clicks_on_nothing(tmp_path)
    frames_before = sorted(p.name for p in (path / "frames").iterdir())
    meta_before = (path / "episode.json").read_text()
    assert deskpilot("label", str(path), "--set", "good", "--step", "2").returncode == 0
    steps = read_episode(path).steps
    assert steps[0].verification is None
    assert steps[1].verification == Verdict("good", "set by a person", 1.0, "human")
    assert sorted(p.name for p in (path / "frames").iterdir()) == frames_before
    assert (path / "episode.json").read_text() == meta_before


def test_label_errors_are_one_line(tmp_path):
    result = deskpilot("label", str(tmp_path), "--set", "maybe")
    assert result.returncode == 2 and result.stderr.strip() == "error: --set takes good or bad, not 'maybe'"


def test_a_vision_language_judge_labels_steps_over_the_openai_protocol(demo_app, tmp_path):
    path = clicks_on_nothing(tmp_path, 3)
    replies = ['{"verdict": "correct", "confidence": 0.9, "reason": "the field got focus"}',
               "The step looks wrong to me.",  # not JSON: asked once more
               '```json\n{"verdict": "incorrect", "confidence": 0.8, "reason": "nothing changed"}\n```',
               "no idea", '{"verdict": "maybe"}']  # twice unusable: the step stays unknown
    with ChatServer(replies) as server:
        result = deskpilot("label", str(path), "--verifier", "judge", "--model", "judge-7b", "--base-url",
                           server.base_url, env={"OPENAI_API_KEY": "sk-test"})
    assert result.returncode == 0, result.stderr
    assert not server.problems and len(server.requests) == 5
    first = server.requests[0]["messages"]
    assert first[0]["role"] == "system" and '"verdict"' in first[0]["content"]
    text = first[1]["content"][0]["text"]
    assert "Task: click the empty corner" in text and "Step to judge: 1. click at (1200, 760)" in text
    before, after = server.images_in(server.requests[0])
    assert before.shape == after.shape == (800, 1280, 3)
    assert (before != after).any(), "the action is drawn on the BEFORE screenshot"
    assert "not the JSON object" in server.requests[2]["messages"][-1]["content"]
    verdicts = [s.verification for s in read_episode(path).steps]
    assert verdicts[0] == Verdict("good", "the field got focus", 0.9, "judge")
    assert verdicts[1].label == "bad" and verdicts[1].score == 0.2
    assert verdicts[2].label == "unknown" and "could not be used" in verdicts[2].reason


def test_env_reward_labels_steps(tmp_path):
    from deskpilot.core.actions import Action, ActionKind
    from deskpilot.core.episode import EpisodeWriter, Step
    from deskpilot.core.geometry import Point
    from deskpilot.labelling.verifiers import CombinedVerifier, EnvVerifier

    def episode(reward: float, step_rewards: list[float | None], effect: bool = False):
        writer = EpisodeWriter.create(tmp_path, "click the button", reward=reward)
        frame = writer.add_frame(np.zeros((20, 20, 3), np.uint8))
        changed = writer.add_frame(np.pad(np.full((8, 8, 3), 255, np.uint8), ((1, 11), (1, 11), (0, 0))))
        for index, step_reward in enumerate(step_rewards):
            writer.append(Step(index, Action(kind=ActionKind.CLICK, point=Point(5, 5)), frame,
                               changed if effect else frame, reward=step_reward))
        writer.append(Step(len(step_rewards), Action(kind=ActionKind.FINISHED), frame))
        writer.finish("success")
        return read_episode(writer.directory)

    won = EnvVerifier().judge_episode(episode(0.8, [None, None]))
    assert [v.label if v else None for v in won] == ["good", "good", None]
    assert won[0].reason == "the episode earned reward 0.8"
    lost = EnvVerifier().judge_episode(episode(-1.0, [None, -0.5]))  # which of two steps went wrong: unknown
    assert [v.label if v else None for v in lost] == ["unknown", "unknown", None]
    assert "after 2 actions" in lost[1].reason
    alone = EnvVerifier().judge_episode(episode(-1.0, [-1.0]))  # the only action of a failed episode: to blame
    assert [v.label if v else None for v in alone] == ["bad", None]
    # collection's labels: the environment where it is sure, else only the heuristic's "bad"; both kept as checks
    combined = CombinedVerifier()
    won = combined.judge_episode(episode(0.8, [None], effect=False))
    assert won[0].label == "good" and won[0].checks == {"env": "good", "heuristic": "bad"}
    no_effect = combined.judge_episode(episode(-1.0, [None], effect=False))
    assert no_effect[0].label == "bad" and no_effect[0].verifier == "heuristic"
    effect = combined.judge_episode(episode(-1.0, [None], effect=True))
    assert effect[0].label == "unknown" and effect[0].as_dict()["checks"] == {"env": "unknown", "heuristic": "good"}


def test_the_registry_offers_every_verifier_by_name_and_the_goal_check_labels_the_done_step(tmp_path):
    from deskpilot.core.actions import Action, ActionKind
    from deskpilot.core.episode import EpisodeWriter, Step, read_episode
    from deskpilot.core.errors import LabellingError
    from deskpilot.core.geometry import Point
    from deskpilot.core.verdict import GoalCheck
    from deskpilot.evaluation import labellers  # noqa: F401
    from deskpilot.labelling.registry import VerifierOptions, make, names

    assert set(names()) >= {"heuristic", "judge", "env", "env+heuristic", "goal", "human", "rollout", "branch"}
    with pytest.raises(LabellingError):
        make("oracle", VerifierOptions())
    with pytest.raises(LabellingError):
        make("rollout", VerifierOptions())  # it needs a policy to play with
    episodes = []
    for passed in (True, False):
        writer = EpisodeWriter.create(tmp_path, "type 250 into Amount")
        frame = writer.add_frame(np.zeros((20, 20, 3), np.uint8))
        writer.append(Step(0, Action(kind=ActionKind.CLICK, point=Point(5, 5)), frame, frame))
        writer.append(Step(1, Action(kind=ActionKind.FINISHED, text="done"), frame))
        writer.finish("success" if passed else "failed",
                      goal_check=GoalCheck(passed, ('"Amount" shows "250"',) if passed else (),
                                           None if passed else '"Amount" shows "1000250", expected "250"'))
        episodes.append(read_episode(writer.directory))
    verdicts = make("goal", VerifierOptions()).label(episodes)
    good, bad = (verdicts[e.meta.id] for e in episodes)
    assert good[0] is None and good[1].label == "good" and good[1].verifier == "goal"
    assert bad[1].label == "bad" and "expected \"250\"" in bad[1].reason

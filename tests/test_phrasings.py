"""Each rule of the MiniWoB++ pack pinned on its own, without a browser, with the pack on (as the harness has it),
beside the general readers written for such sentences (by clicking X, select X from the list, text that repeats
the task, the letter case asked, a value for both fields of a kind); "capital", "lower" or "upper" alone is no
letter case."""

from __future__ import annotations

import pytest

from deskpilot.core.actions import ActionKind
from deskpilot.core.task_text import letter_case
from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element
from deskpilot.evaluation.miniwob.rules import MINIWOB
from deskpilot.grounding.description import parse_description
from deskpilot.grounding.task_echoes import echoes_task, quoted_at, task_echoes
from deskpilot.planner.instructions import BY_CLICKING, SELECT_FROM_LIST, parse_instructions
from deskpilot.planner.offline import next_untried_tab

TAB_SEARCH, SELECT_NOTHING = MINIWOB.tab_search, MINIWOB.nothing
pytestmark = pytest.mark.usefixtures("miniwob_rules")


def steps(task: str) -> list[tuple[str, str | None, str | None]]:
    return [(p.action.kind.value, p.action.target, p.action.text) for p in parse_instructions(task)]


def test_by_clicking_makes_the_click_the_action():
    assert BY_CLICKING.search('close the dialog box by clicking the "x"').group("what") == 'the "x"'
    assert steps('Close the dialog box by clicking the "x".') == [("click", 'the "x"', None)]


@pytest.mark.parametrize("task, typed", [
    ('Enter "Ada" into the text field in all lower case letters.', "ada"),
    ('type "ada" in uppercase into the text field', "ADA"),
    ('type "ada" in capital letters into the text field', "ADA"),
    ('type "Ada" in lower-case into the text field', "ada"),
    ('write "Ng" in block capitals as the surname', "NG"),
    ('type "ng" in caps into Surname', "NG"),
    ('enter "ADA" using small letters into Name', "ada"),
])
def test_case_directives_need_case_or_letters(task, typed):
    assert [s for s in steps(task) if s[0] == "type"][0][2] == typed


@pytest.mark.parametrize("task, expected", [
    ('type "Paris" into the capital city field', [("click", "capital city field", None), ("type", None, "Paris")]),
    ("click the lower button", [("click", "the lower button", None)]),
    ('type "x" into the upper field', [("click", "upper field", None), ("type", None, "x")]),
    ('type "x" into the Upper case field', [("click", "Upper case field", None), ("type", None, "x")]),
    ("check Upper case letters", [("click", "Upper case letters checkbox", None)]),
])
def test_lower_upper_capital_alone_are_part_of_the_name(task, expected):
    assert steps(task) == expected
    assert letter_case(task) is None


def test_tab_search_looks_through_the_tabs_for_the_next_target():
    assert TAB_SEARCH.match("switch between the tabs to find").group("group") == "tabs"
    planned = parse_instructions('Switch between the tabs to find and click on the link "fames".')
    assert [(p.action.kind, p.action.target, p.look_in) for p in planned] == [
        (ActionKind.CLICK, 'the link "fames"', "tabs")]


def test_select_from_the_list_keeps_and_inside_the_option():
    task = "Select Heard Island and McDonald Islands from the list and click Submit."
    assert SELECT_FROM_LIST.search(task).group("option") == "Heard Island and McDonald Islands"
    planned = parse_instructions(task)
    assert planned[1].or_type == "Heard Island and McDonald Islands"


@pytest.mark.parametrize("task, kind", [('Enter the password "pw" into both text fields.', "text field"),
                                        ('put "pw" in both of the password boxes', "password box"),
                                        ('type "pw" into each of the two inputs', "input")])
def test_both_fields_means_the_first_and_the_second(task, kind):
    assert steps(task)[:4] == [("click", f"1st {kind}", None), ("type", None, "pw"),
                               ("click", f"2nd {kind}", None), ("type", None, "pw")]


def test_select_nothing_is_no_action():
    assert SELECT_NOTHING.match("select nothing")
    assert steps("Select nothing and click Submit.") == [("click", "Submit", None)]


@pytest.mark.parametrize("description, role, ordinal", [
    ("the 2nd input textbox", "input", 2), ("the list", "dropdown", None), ("the option", "radio", None)])
def test_benchmark_role_words(description, role, ordinal):
    spec = parse_description(description)
    assert (spec.role, spec.ordinal) == (role, ordinal)


def test_a_line_that_repeats_the_task_is_not_a_target():
    task = "Select Iceland from the list and click Submit."
    assert echoes_task("Select Iceland from the list", task, "Iceland")
    assert not echoes_task("Iceland", task, "Iceland")  # the option itself
    assert not echoes_task("Iceland and Norway", "", "Iceland")
    # a line of the task OCR read with look-alike characters (0 as O, l as I) still repeats it
    many = "Select 7gT, WPumV, 1xyzt0, 0hCqY, lU6iKv, EIkT and click Submit."
    assert echoes_task("WPumV, 1xyzt0, OhCqY, IU6iKv,", many, "")
    # a short task shown whole (MiniWoB's click-menu, never run before: the grammar clicked the page's own line)
    assert echoes_task("Select Billie>Lanette>Yovonnda", "Select Billie>Lanette>Yovonnda", "Billie>Lanette>Yovonnda")
    assert not echoes_task("Save file", "Click Save file", "")  # a short label inside a longer task


def test_the_last_words_of_a_wrapped_task_are_part_of_its_echo():
    task = "Click button ONE, then click button TWO."
    first = Element(Box(84, 86, 360, 107), "text", "Click button ONE, then click")
    rest = Element(Box(84, 109, 200, 130), "text", "button TWO.")
    two = Element(Box(84, 280, 150, 300), "text", "TWO")  # the button's label further down
    beside = Element(Box(300, 109, 360, 130), "text", "button")  # not where the next line starts
    assert task_echoes([first, rest, two, beside], task) == [first, rest]
    assert task_echoes([rest, two], task) == []  # no line of the task to go on from


def test_a_label_of_a_control_that_the_task_names_is_no_echo():
    """A Tk form: "Opt into billable to client ... and opt into urgent" — the labels "Billable to client" (three
    words of the task) and "Urgent" under it were taken for the task said again, and their check boxes (read into
    the lines) were left out of what the planner saw. A line with a control on its row is that control's name."""
    task = 'Opt into billable to client and Amount: "240" and opt into urgent'
    billable = Element(Box(161, 173, 294, 192), "text", "Billable to client")
    urgent = Element(Box(160, 201, 227, 222), "text", "Urgent")
    boxes = [Element(Box(162, 178, 170, 186), "checkbox", checked=True),
             Element(Box(160, 205, 172, 217), "checkbox", checked=False)]
    assert task_echoes([billable, urgent], task) == [billable, urgent]  # no control: a block of the task's words
    assert task_echoes([billable, urgent, *boxes], task) == []


def test_text_in_quotes_on_the_screen_names_an_element():
    line = 'Click on the "OK" button.'
    start = line.index("OK")
    assert quoted_at(line, start, start + 2)
    assert not quoted_at("OK", 0, 2)
    # a line of its own that is the quoted name with the sentence's full stop (MiniWoB's click-menu-2, never
    # collected: the click meant for the menu item "Next" went to the page's '"Next".')
    assert quoted_at('"Next".', 0, 7)
    assert not quoted_at("Next.", 0, 5)


def test_a_tab_row_is_two_named_controls_side_by_side():
    def control(x: int, text: str, y: int = 10, height: int = 24) -> Element:
        return Element(Box(x, y, x + 60, y + height), "button", text, source="layout")

    row = [control(10, "Tab #1"), control(80, "Tab #2"), control(150, "Tab #3")]
    lone = control(10, "Submit", y=300)
    assert next_untried_tab([lone, *row], []) == row[0]
    assert next_untried_tab(row, [row[0].box, row[1].box]) == row[2]
    assert next_untried_tab(row, [e.box for e in row]) is None
    active = Box(row[0].box.x0 - 2, row[0].box.y0 - 3, row[0].box.x1 + 2, row[0].box.y1)  # tab 1 drawn as active
    assert next_untried_tab(row, [active]) == row[1]
    assert next_untried_tab([lone, Element(Box(0, 0, 50, 20), "text", "Tab", source="ocr")], []) is None


def test_the_parts_a_task_asks_to_open_are_tried_one_by_one():
    """"Expand the sections below, to find and click on the link X" (click-collapsible-2, never collected): the grammar
    expanded "the sections" once, the link was in the third, and the run ended in an error. The clause now says where
    the next target is looked for; each section's header is tried in turn, each once (a header read twice is one)."""
    from deskpilot.planner.offline import next_untried_part

    planned = parse_instructions('Expand the sections below, to find and click on the link "enim".')
    assert [(p.action.target, p.look_in) for p in planned] == [('the link "enim"', "section")]
    headers = [Element(Box(88, 195, 204, 218), "text", "Section #1"),
               Element(Box(87, 187, 393, 224), "input", "Section #1"),  # the same header, as a field
               Element(Box(87, 359, 205, 383), "text", "Section #2"),
               Element(Box(86, 398, 205, 423), "text", "Section #3"),
               Element(Box(87, 230, 344, 250), "text", "Consectetur nec sapien nisi, section of")]
    assert next_untried_part(headers, [], "section") in headers[:2]
    assert next_untried_part(headers, [headers[0].box], "section") == headers[2]
    assert next_untried_part(headers, [h.box for h in headers[:4]], "section") is None

"""The MiniWoB++ rule pack: off for the agent a person runs, on in the harness, and the only place that names a
MiniWoB task or sentence."""

from __future__ import annotations

import re
from pathlib import Path

import miniwob

from deskpilot.core.rule_packs import NONE, active, use
from deskpilot.evaluation.miniwob.rules import MINIWOB
from deskpilot.grounding.description import parse_description
from deskpilot.planner.instructions import parse_instructions

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "deskpilot"
PACK = PACKAGE / "evaluation" / "miniwob"
# Sentences MiniWoB++ pages say, as the pack's rules quote them: no module outside the pack may carry them.
SENTENCES = ("select nothing", "switch between the tabs", "in all lower case", "into both text fields",
             '"checkbox" widget', "input textbox", "click on the link")


def miniwob_task_names() -> set[str]:
    """Every task MiniWoB++ ships (its pages' file names)."""
    pages = Path(miniwob.__file__).parent
    return {page.stem for page in pages.rglob("*.html") if "-" in page.stem}


def test_no_module_outside_the_pack_names_a_miniwob_task_or_sentence():
    names = miniwob_task_names()
    assert {"click-tab-2", "enter-password", "choose-list"} <= names
    task = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?![\w-])")
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if PACK in path.parents:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            said = [m.group(0) for m in task.finditer(line)] + [s for s in SENTENCES if s in line.lower()]
            found += [f"{path.relative_to(PACKAGE)}:{number}: {word}" for word in said]
    assert not found, "\n".join(found)


def test_the_checker_sees_a_task_name():
    names = miniwob_task_names()
    assert any(re.fullmatch(re.escape(name), "click-tab-2") for name in names)


def test_the_pack_is_off_unless_a_harness_turns_it_on():
    assert active() is NONE
    # "select nothing" is no clause a person's agent knows: it looks for a control named so (an honest failure)
    assert [p.action.target for p in parse_instructions("Select nothing and click Submit.")] != ["Submit"]
    assert parse_description("the option").role != "radio"


def test_the_pack_turned_on_reads_miniwob_sentences():
    use(MINIWOB)
    try:
        assert parse_description("the option").role == "radio"
        assert [p.action.target for p in parse_instructions("Select nothing and click Submit.")] == ["Submit"]
    finally:
        use(NONE)
    assert active() is NONE


def test_general_readers_stay_on_without_the_pack():
    """"by clicking X", "select X from the list", a letter case and "both fields" are ordinary English: the general
    grammar keeps them."""
    assert [p.action.target for p in parse_instructions('Close the dialog by clicking the "x".')] == ['the "x"']
    planned = parse_instructions("Select Heard Island and McDonald Islands from the list and click Submit.")
    assert planned[1].or_type == "Heard Island and McDonald Islands"
    assert parse_description("the Country list").role == "dropdown"
    assert [p.action.text for p in parse_instructions('Type "JERALD" in all lower case letters into the Name field')
            if p.action.text] == ["jerald"]
    assert len(parse_instructions('Enter the password "pw" into both text fields.')) == 4


def test_under_the_pack_done_presses_the_pages_submit_first(miniwob_rules):
    """use-autocomplete filled its field and said done; the page scores only at its Submit, which the sentence does
    not ask for. With the pack on, "done" presses a Submit no step pressed; off, it stands."""
    from deskpilot.core.actions import Action, ActionKind
    from deskpilot.core.episode import Step
    from deskpilot.core.geometry import Box, Point
    from deskpilot.core.observation import Element
    from deskpilot.planner.agent import _closing_press
    from deskpilot.planner.base import Decision

    page = [Element(Box(100, 220, 350, 260), "input", "Australia"),
            Element(Box(100, 275, 290, 340), "button", "Submit")]
    done = Decision("done", Action(kind=ActionKind.FINISHED, text="done"))
    pressed = _closing_press(done, page, [])
    assert pressed.action.kind is ActionKind.CLICK and page[1].box.contains(*pressed.action.point)
    suggestion = [Element(Box(100, 280, 300, 300), "text", "Australia")]  # an open list over the button
    chose = Step(index=0, action=Action(kind=ActionKind.CLICK, point=Point(190, 290)), before="", seen=suggestion)
    assert _closing_press(done, page, [chose]).action.kind is ActionKind.CLICK  # a click there chose; it pressed none
    clicked = Step(index=1, action=Action(kind=ActionKind.CLICK, point=Point(190, 300)), before="", seen=page)
    assert _closing_press(done, page, [chose, clicked]) is done  # pressed once already: done stands
    use(NONE)
    assert _closing_press(done, page, []) is done  # the agent a person runs presses nothing it was not asked to

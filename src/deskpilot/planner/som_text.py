"""The `som-text` planning mode, for language models that see no image: the prompt is the task, the task's values
as short handles, the list of grounded elements as text (role and rank, text, state, and which value each one
shows), and the answers given so far. The model answers `Action: <call>` and refers to things by what it can copy
rather than look up:

- `$2` — the task's second value: `click(target='$2')` clicks the element showing it, `type(content='$1')` types
  it (`$1:lower` / `$1:upper` change its case);
- `field 2` — the second text field or dropdown from the top (any role: `button 1`, `checkbox 3`, `link 2`, ...);
- `element='7'` — the seventh listed element (for large models that can count).

Values are the task's quoted strings, its unquoted literals (numbers, dates, times, @handles: core.task_text) and
the phrases of the task that name an element on the screen, numbered in the order the task says them (later finds
appended) and kept for the episode. A quoted value the task asks to type in a case (where the rule pack turned on
has a case directive) is that value in that case. An element that shows a value is marked `=$2`, one whose text
holds it among other words `~$2`, a field typed into `typed`, any other control or line an earlier answer clicked
`clicked` (a tab tried already, a button pressed: the history names it by a rank that may have moved since); the
values line says which values were already clicked or typed, so a model need not work that out from the history. A
control the task names by its rank ('the third textbox') is a value too, `$1="3rd textbox"`, and that control is
marked `=$1`: a small model copies a mark beside an element far better than it matches a word of the task to a rank.
So too for a value that names a kind of control (a quoted kind the rule pack turned on knows), where no element
shows it as text: every control of that kind is marked `=$1`, and clicking `$1` clicks the first. This module is the
one place that builds these prompts and reads these answers: the planner, the training samples and the rewards all
use it, so what a model is trained on is what it is asked."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from deskpilot.core.action_registry import compact_calls
from deskpilot.core.action_text import format_action, parse_response, split_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.errors import ActionParseError
from deskpilot.core.geometry import Box, reading_order
from deskpilot.core.observation import Element
from deskpilot.core.secrets import PLACEHOLDER, REDACTED
from deskpilot.core.task_text import (WORD, counts, in_case, kind_named, letter_case, literal_values, names_acted_on,
                                      normalised, numbered_ordinals, ranked_references, said_in, task_values)
from deskpilot.grounding.action_context import TOGGLE_ROLES
from deskpilot.grounding.task_echoes import task_echoes
from deskpilot.grounding.widgets import field_for_label, toggle_for_label

from .task_phrases import INSTRUCTION_WORDS, comparable, holds_phrase, named_phrase

MAX_ELEMENTS = 30
LABEL_SLACK = 6  # pixels a label's row may stand off its control's
# words of a task that name no element: they do not make an element relevant to it
COMMON_WORDS = frozenset("the and then please into from for with this that you can could would like want need "
                         "make sure set put type enter click press select choose pick check uncheck field box button "
                         "list option should thanks thank".split())
# words that are never a value to type on their own ("Sign me up": not "me")
SMALL_WORDS = COMMON_WORDS | INSTRUCTION_WORDS | frozenset(
    "i me my mine myself we us our you your it its he him his she her they them their there here yes no all".split())
NAMED_ROLES = ("button", "checkbox", "radio", "tab", "menu_item")  # controls whose text is their name
MAX_HISTORY = 8
SAME_LINE = 0.8  # listed lines this similar are one line read twice
SAME_CONTROL = 0.5  # boxes of controls showing one value this similar (IoU) are one control found twice
ANSWER_TOKENS = 64  # an answer is one short call: a longer generation is a model rambling
SYSTEM = ("You operate a computer. You get a task, the elements on the screen and the actions done so far. Answer "
          f"with one line: Action: {compact_calls()}. Name a value of the task as '$N' and an element by its "
          "role and rank ('field 2').")
HANDLE = re.compile(r"^\$(?P<number>\d+)(?::(?P<case>lower|upper))?$")
BROKEN_HANDLE = re.compile(r"^\$(?:[^\d\s]\w*|\d+[\]\)'\"]+)?$")  # "$", "$x", "$1]": not a value's handle
# Roles ranked together: grounding may read a text field that holds text as a dropdown, and a field's rank must
# not change because something was typed into it.
RANK_FAMILIES = {"input": "field", "dropdown": "field"}
ROLE_RANK = re.compile(r"^(?P<role>[a-z_]+) (?P<rank>\d{1,3})$")
ELEMENT_NUMBER = re.compile(r"^#?(?P<number>\d{1,3})$")
USED_VALUE = re.compile(r"^(?P<verb>click|double_click|right_click|type)\((?:target|content)='\$(?P<number>\d{1,2})")
NON_DIGITS = re.compile(r"\D")
CALL_TARGET = re.compile(r"\(target='(?P<target>[^']*)'")
CLICKED_FIELD = re.compile(r"^(?:click|double_click)\(target='(?P<ref>field \d{1,3})'\)")


@dataclass(frozen=True)
class Listed:
    """An element as the model sees it: its reference (`button 2`), the number of the task value it shows (if
    any), its line, the line without the history's `clicked` mark (what the screen itself shows) and the value
    its longer text holds (if any)."""

    element: Element
    ref: str
    value: int | None
    line: str
    seen: str
    within: int | None = None


@dataclass
class TextScreen:
    """The task's values and one screen's listed elements, as the prompt shows them."""

    values: list[str]
    listed: list[Listed] = field(default_factory=list)

    def value_of(self, element: Element) -> int | None:
        """The number of the task value this element shows (1-based), if any. A secret's placeholder is shown by
        nothing: the screen never shows a secret (a password field shows dots), and its name is not its text (the
        label "Password" is not `{{password}}`)."""
        text = comparable(element.text)
        if not text:
            return None
        for number, value in enumerate(self.values, 1):
            if comparable(value) == text and not PLACEHOLDER.fullmatch(value):
                return number
        return None

    @property
    def signature(self) -> str:
        """The screen as it shows itself (the history's `clicked` marks left out): two screens with the same
        signature look the same."""
        return "\n".join(item.seen for item in self.listed)

    def shows(self, number: int) -> bool:
        """Whether some listed element shows the task's value `number`, alone or among other words."""
        return any(number in (item.value, item.within) for item in self.listed)

    def value_within(self, element: Element) -> int | None:
        """The number of the first task value that stands as a whole word or words inside this element's longer
        text (a link inside a paragraph OCR read as one line)."""
        text = comparable(element.text)
        for number, value in enumerate(self.values, 1):
            wanted = comparable(value)
            if len(wanted) >= 2 and wanted != text and not PLACEHOLDER.fullmatch(value) and \
                    holds_phrase(element.text, value):
                return number
        return None


class SomText:
    """Prompts and answers of one episode in som-text mode. The values grow as new screens show new phrases of the
    task, and keep their numbers, so earlier answers stay true."""

    def __init__(self, task: str):
        self.task = task
        self.values: list[str] = []
        self.answers: list[str] = []
        self.used: dict[int, str] = {}  # value number -> what an answer did with it ("clicked", "typed")
        self.typed_into: dict[str, Box] = {}  # fields typed into ("field 2") and where: a password field shows no text
        self.clicked: list[Element] = []  # elements other than fields that answers clicked, as they were listed
        self.given: list[tuple[str, str]] = []  # (screen signature, call) of every answer given
        self._latest = ""  # the signature of the latest screen listed
        self._fields: dict[str, Box] = {}  # the fields of the latest screen
        self._listed: list[Listed] = []  # the latest screen's listed elements
        self._clicked_field: tuple[str, Box] | None = None  # the field the latest click went to, and where
        case = letter_case(task)  # a value the task asks for in a case ("in capitals"), in that case
        self._given = [*(in_case(v, case) if case else v for v in task_values(task)),
                       *literal_values(task)]  # known before any screen
        self._ranked = ranked_references(task)  # controls the task names by rank: {("field", 3): "3rd textbox"}

    def screen(self, elements: list[Element]) -> TextScreen:
        """Learn the task phrases this screen shows, and list its elements. Values first seen together are
        numbered in the order the task says them; later ones follow, so a value keeps its number."""
        echoes = task_echoes(elements, self.task)
        shown = [e for e in _deduplicated(elements)
                 if not any(echo.box.contains(*e.center) for echo in echoes)]  # the task's words, not the page's
        new = [] if self.values else [*self._given, *self._ranked.values()]
        for element in shown:
            phrase = named_phrase(element.text, self.task)
            if phrase and all(comparable(phrase) != comparable(v) for v in self.values + new):
                new.append(phrase)
        self.values += sorted(new, key=self._position)
        screen = TextScreen(list(self.values))
        by_text = {id(element): screen.value_of(element) for element in shown}  # the value each one shows
        kinds = {role: number for number, value in enumerate(self.values, 1) if number not in by_text.values()
                 for role in kind_named(value)}  # a value that names a kind of control: the roles it names
        ranks: dict[str, int] = {}
        self._fields = {}
        for element in _most_relevant(shown, self.task, by_text):
            family = RANK_FAMILIES.get(element.role, element.role)
            ranks[family] = ranks.get(family, 0) + 1
            ref = f"{family} {ranks[family]}"
            shown_role = "" if family == element.role or element.role == "input" else f" {element.role}"
            state = {True: " checked", False: " unchecked", None: ""}[element.checked]
            if family == "field":
                self._fields[ref] = element.box
                # typed, if this rank's field is where the typing went (after a page change, another field is not)
                state += " typed" if ref in self.typed_into and self.typed_into[ref].contains(*element.center) else ""
            clicked = " clicked" if family != "field" and element.checked is None and self._was_clicked(element) else ""
            number = by_text[id(element)] or self._ranked_value(family, ranks[family], screen) or \
                kinds.get(element.role)
            within = None if number else screen.value_within(element)
            mark = f" =${number}" if number else f" ~${within}" if within else ""
            head = f"{ref}{shown_role} {_quoted(element.text)}{state}"
            screen.listed.append(Listed(element, ref, number, f"{head}{clicked}{mark}", f"{head}{mark}", within))
        self._latest, self._listed = screen.signature, screen.listed
        return screen

    def messages(self, screen: TextScreen) -> list[dict[str, object]]:
        """The chat messages for this step: a fixed system line, then the task, values, screen and history."""
        values = " ".join(f"${n}={_quoted(v)}" + (f" {self.used[n]}" if n in self.used else "")
                          for n, v in enumerate(screen.values, 1)) or "(none)"
        done = "\n".join(self.answers[-MAX_HISTORY:]) or "(nothing yet)"
        lines = "\n".join(item.line for item in screen.listed) or "(nothing found)"
        user = f"Task: {numbered_ordinals(self.task)}\nValues: {values}\nScreen:\n{lines}\nDone:\n{done}"
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def remember(self, answer: str) -> None:
        """Add the call of an answer given at this step to the history later prompts show, and note the value
        it clicked or typed."""
        call = _call(answer)
        self.answers.append(call)
        self.given.append((self._latest, call))
        if used := USED_VALUE.match(call):
            self.used[int(used["number"])] = "clicked" if used["verb"] != "type" else "typed"
        if call.startswith(("click(", "double_click(", "right_click(")):
            clicked = CLICKED_FIELD.match(call)
            box = self._fields.get(clicked["ref"]) if clicked else None
            self._clicked_field = (clicked["ref"], box) if clicked and box else None
            if not clicked and (element := self._clicked_element(call)) is not None:
                self.clicked.append(element)
                # a field named by the value it shows ("$3" for the field holding "R-1001") is clicked into too
                self._clicked_field = next(((ref, box) for ref, box in self._fields.items()
                                            if box.iou(element.box) > SAME_CONTROL), None)
        elif call.startswith("type(") and self._clicked_field:
            ref, box = self._clicked_field
            self.typed_into[ref] = box

    def _clicked_element(self, call: str) -> Element | None:
        """The listed element of the latest screen a click call names, if it names exactly one: by role and rank,
        by number, or by a value that one control (or else one line) shows."""
        target = CALL_TARGET.search(call)
        name = target["target"].strip() if target else ""
        if ROLE_RANK.match(name):
            return next((item.element for item in self._listed if item.ref == name), None)
        if number := ELEMENT_NUMBER.match(name):
            index = int(number["number"]) - 1
            return self._listed[index].element if 0 <= index < len(self._listed) else None
        if handle := HANDLE.match(name):
            item = _the_one_showing(self._listed, int(handle["number"]))
            return item.element if item else None
        return None

    def _was_clicked(self, element: Element) -> bool:
        """Whether an earlier answer clicked this element: one with the same text whose box held its centre."""
        text = comparable(element.text)
        return any(comparable(c.text) == text and c.box.contains(*element.center) for c in self.clicked)

    def read(self, reply: str, screen: TextScreen) -> tuple[str, Action]:
        """A model's reply -> (thought, action with a point or a grounding target); ActionParseError when it
        names a value, element or rank that does not exist."""
        response = parse_response(reply)
        action = response.actions[0]
        if action.kind is ActionKind.TYPE and action.text is not None:
            action = action.model_copy(update={"text": self._typed(action.text, screen)})
        if action.target:
            action = self._located(action, screen)
        return response.thought, action

    def choose(self, replies: list[str], screen: TextScreen) -> tuple[bool, str, tuple[str, Action]]:
        """Of a model's replies, likeliest first, the one to act on, with what `read` makes of it, and whether it
        fits this screen: the first usable one that repeats no call already given on a screen that looked the same
        (on the same screen the same call does the same again) and names a task value only where the screen shows
        it, describes no target the screen does not show (`click(target='enter')`), does not click again a value
        whose check box an earlier answer ticked and types nothing `invented` (fits); failing that the first usable
        one that repeats nothing; failing that the first usable one.
        ActionParseError when none is usable."""
        usable: list[tuple[str, tuple[str, Action]]] = []
        errors: list[ActionParseError] = []
        for reply in replies:
            try:
                usable.append((reply, self.read(reply, screen)))
            except ActionParseError as error:
                errors.append(error)
        if not usable:
            raise errors[0] if errors else ActionParseError("the model gave no answer")
        here = screen.signature
        calls = {reply: _call(reply) for reply, _ in usable}
        fresh = [item for item in usable if not any(call == calls[item[0]] and _looks_the_same(seen, here)
                                                    for seen, call in self.given)]
        shown = [item for item in fresh if all(screen.shows(n) for n in _clicked_values(calls[item[0]]))
                 and _names_what_is_shown(item[1][1], screen) and not self._undoes(calls[item[0]], screen)
                 and not self.invented(item[1][1], screen)]
        return (bool(shown), *(shown or fresh or usable)[0])

    def invented(self, action: Action, screen: TextScreen) -> str | None:
        """Why the text an action types is not the person's (None when it is, or the action types nothing).
        deskpilot types what the task gives — a secret's placeholder, a value it quotes or states, other words of
        it, a number worked out from its numbers — or what the screen holds as content to copy; never small words
        alone ("me" of "Sign me up") and never what names something on this screen (a check box's "Newsletter", a
        dropdown's label "Colour", the task's "size" that a label shows: those are clicked, not typed)."""
        if action.kind is not ActionKind.TYPE or not action.text or PLACEHOLDER.fullmatch(action.text.strip()):
            return None
        text = action.text.strip()
        if any(comparable(name) == comparable(text) for name in names_acted_on(self.task)):
            return f"{_quoted(text)} is the name of what the task asks to tick or click: it is clicked, not typed"
        if any(comparable(value) == comparable(text) for value in self._given):
            return None
        words = WORD.findall(text.lower())
        if words and all(word in SMALL_WORDS for word in words):
            return f"{_quoted(text)} gives no value of the task"
        names = _names(screen.listed)
        if any(holds_phrase(item.element.text, text) for item in names) or self._shown_by_other_than_a_field(text,
                                                                                                        screen):
            return f"{_quoted(text)} names something on the screen: it is clicked, not typed"
        if said_in(text, self.task, fold=False) or (text.isdigit() and counts(self.task)) or any(
                holds_phrase(item.element.text, text) for item in screen.listed if item not in names):
            return None
        return f"the task does not say {_quoted(text)}"

    def _shown_by_other_than_a_field(self, text: str, screen: TextScreen) -> bool:
        """Whether `text` is a value of the task found on the screen (not one it quotes or states) that something
        other than a field shows: the task's way to point at that thing ("the large size": the Size label)."""
        wanted = comparable(text)
        found = [n for n, value in enumerate(screen.values, 1) if comparable(value) == wanted
                 and value not in self._given and value not in self._ranked.values()]
        return any(item.value in found and RANK_FAMILIES.get(item.element.role) != "field" for item in screen.listed)

    @property
    def field_in_focus(self) -> Box | None:
        """Where the field the latest answer clicked was (what typing now goes into), if it clicked one."""
        return self._clicked_field[1] if self._clicked_field else None

    def _undoes(self, call: str, screen: TextScreen) -> bool:
        """Whether a call clicks a value an earlier answer clicked whose check box (or radio button) is ticked
        now: clicking it again takes back what that answer did."""
        return any(self.used.get(number) == "clicked" and item.value == number and item.element.checked
                   for number in _clicked_values(call) for item in screen.listed)

    def _typed(self, content: str, screen: TextScreen) -> str:
        match = HANDLE.match(content.strip())
        if not match or (int(match["number"]) > len(screen.values) and content.strip() in self.task):
            _no_broken_handle(content, screen)
            # text to type, or an amount the task itself says ("$100"); a space the model wrote before or after it
            # is no part of a value (" Metro Taxi" had gone into a Merchant field)
            return content.strip(" \t") or content
        value = self._value(int(match["number"]), screen)
        return value.lower() if match["case"] == "lower" else value.upper() if match["case"] == "upper" else value

    def _value(self, number: int, screen: TextScreen) -> str:
        if not 1 <= number <= len(screen.values):
            raise ActionParseError(f"there is no value ${number}; the task has {len(screen.values)} (${number} would "
                                   f"be the task's value number {number})")
        return screen.values[number - 1]

    def _located(self, action: Action, screen: TextScreen) -> Action:
        target = (action.target or "").strip()
        if handle := HANDLE.match(target):
            number = int(handle["number"])
            if item := _the_one_showing(screen.listed, number) or self._first_of_kind(screen, number):
                return action.model_copy(update={"point": item.element.click_point, "target": None})
            return action.model_copy(update={"target": self._value(number, screen)})  # grounding picks one
        if target.startswith("$") and ROLE_RANK.match(target[1:]):
            target = target[1:]  # "$checkbox 3": a rank written like a value's handle
        _no_broken_handle(target, screen)
        if ROLE_RANK.match(target):
            for item in screen.listed:
                if item.ref == target:
                    return action.model_copy(update={"point": item.element.click_point, "target": None})
            raise ActionParseError(f"there is no {target!r} on the screen")
        number_match = ELEMENT_NUMBER.match(target)
        if number_match:
            number = int(number_match["number"])
            if not 1 <= number <= len(screen.listed):
                raise ActionParseError(f"there is no element {number}; the list has {len(screen.listed)}")
            return action.model_copy(update={"point": screen.listed[number - 1].element.click_point, "target": None})
        return action  # a description: grounding resolves it

    def answer_for(self, action: Action, screen: TextScreen, used: list[Element] | None = None) -> str | None:
        """The answer that would have produced `action` on this screen (for training samples), or None when it
        cannot be said in this mode's terms."""
        kind = action.kind
        text = action.text or ""
        if REDACTED in text:  # stored redacted: only a typed secret can be said, as the task's one placeholder
            placeholders = [v for v in screen.values if PLACEHOLDER.fullmatch(v)]
            if kind is not ActionKind.TYPE or text != REDACTED or len(placeholders) != 1:
                return None
            text = placeholders[0]
        if kind is ActionKind.TYPE:
            return "Action: " + format_action(action.model_copy(update={"text": self._handle_for_text(text, screen),
                                                                        "secret": False}))
        if kind in (ActionKind.HOTKEY, ActionKind.SCROLL, ActionKind.FINISHED, ActionKind.WAIT,
                    ActionKind.CALL_USER) and action.point is None:
            return "Action: " + format_action(action)
        if kind not in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK) or action.point is None:
            return None
        reference = self._reference(action, screen, used or [])
        if reference is None:
            return None
        bare = Action(kind=kind, target=reference)
        return "Action: " + format_action(bare)

    def _handle_for_text(self, text: str, screen: TextScreen) -> str:
        for number, value in enumerate(screen.values, 1):
            if text == value:
                return f"${number}"
            if text == value.lower() and value != value.lower():
                return f"${number}:lower"
            if text == value.upper() and value != value.upper():
                return f"${number}:upper"
        return text

    def _reference(self, action: Action, screen: TextScreen, used: list[Element]) -> str | None:
        x, y = action.point  # type: ignore[misc]
        hit = [item for item in screen.listed if item.element.box.contains(x, y)]
        hit.sort(key=lambda item: item.element.box.area)
        for item in hit + [item for item in screen.listed if item.element in used]:
            if item.value is not None:
                return f"${item.value}"
        if hit and hit[0].element.role != "text":  # a control without a name of the task's: by role and rank
            return hit[0].ref
        for number, value in enumerate(screen.values, 1):
            if holds_phrase(action.target or "", value):
                return f"${number}"
        return hit[0].ref if hit else None

    @staticmethod
    def _first_of_kind(screen: TextScreen, number: int) -> Listed | None:
        """For a value naming a kind of control (`checkbox`), the first control of that kind: any of them is one."""
        if not (1 <= number <= len(screen.values) and kind_named(screen.values[number - 1])):
            return None
        return next((item for item in screen.listed if item.value == number and item.element.role != "text"), None)

    def _ranked_value(self, family: str, rank: int, screen: TextScreen) -> int | None:
        """The number of the value that names this control by its rank ('3rd textbox'), if the task does."""
        words = self._ranked.get((family, rank))
        return screen.values.index(words) + 1 if words in screen.values else None

    def _position(self, value: str) -> int:
        """Where the task says `value` (as the task spells it, else its words, else with ordinals in digits), for
        numbering values."""
        at = self.task.find(value)
        if at < 0:
            at = normalised(self.task).find(normalised(value))
        if at < 0:
            at = numbered_ordinals(self.task).find(value)
        return at if at >= 0 else len(self.task)


def _no_broken_handle(text: str, screen: TextScreen) -> None:
    """A `$` reference that names no value ("$", "$x") is a model's slip, not text to type or a thing to find."""
    if BROKEN_HANDLE.match(text.strip()):
        raise ActionParseError(f"{text.strip()!r} names no value: the task's values are "
                               f"{', '.join(f'${n}' for n in range(1, len(screen.values) + 1)) or 'none'}")


def _looks_the_same(signature: str, other: str) -> bool:
    """Whether two screens' listings differ at most by what reading one screen twice may change: line for line,
    a letter or so of OCR (`quisque.` read as `guisque.`, `Tab #2` as `Tab#2`); a count going from 3 to 4 or a
    field filled in is a change."""
    lines, others = signature.split("\n"), other.split("\n")
    return len(lines) == len(others) and all(a == b or _misread(a, b) for a, b in zip(lines, others))


def _misread(line: str, other: str) -> bool:
    """Two listed lines alike but for a few letters of their text (`link 1 "quisque."`, `link 1 "guisque."`); a
    number that changed is a change (`Count: 13`, `Count: 14`)."""
    (head, text, tail), (other_head, other_text, other_tail) = _parts(line), _parts(other)
    return (head, tail) == (other_head, other_tail) and NON_DIGITS.sub("", text) == NON_DIGITS.sub("", other_text) and \
        difflib.SequenceMatcher(None, text, other_text, autojunk=False).ratio() >= SAME_LINE


def _parts(line: str) -> tuple[str, str, str]:
    """A listed line's reference, its quoted text, and the state and mark after it."""
    start, end = line.find('"'), line.rfind('"')
    return (line[:start], line[start + 1:end], line[end + 1:]) if 0 <= start < end else (line, "", "")


def _call(reply: str) -> str:
    """The call of a reply (`Action: click(target='$1')` or the call alone): what the history keeps."""
    return split_response(reply)[1].strip().removeprefix("Action:").strip()


def _the_one_showing(listed: list[Listed], number: int) -> Listed | None:
    """The element that shows value `number` when it is the only control showing it (or, with no control showing
    it, the only line); None when several do (grounding picks one) or none does. One control found twice (a GTK
    button in the accessibility tree and on the screen's pixels, the boxes a few pixels apart) is one."""
    showing = [item for item in listed if item.value == number]
    controls = [item for item in showing if item.element.role != "text"]
    chosen = controls or showing
    if chosen and all(item.element.box.iou(chosen[0].element.box) > SAME_CONTROL for item in chosen):
        return chosen[0]
    return None


def _names_what_is_shown(action: Action, screen: TextScreen) -> bool:
    """Whether a target left to grounding (a description, or a value several controls show) names something a
    listed element shows: its text, words of it, or a description holding its text ('the Submit button')."""
    target = action.target
    return not target or any(
        comparable(item.element.text) == comparable(target) or holds_phrase(item.element.text, target) or
        (len(comparable(item.element.text)) >= 2 and holds_phrase(target, item.element.text)) for item in screen.listed)


def _names(listed: list[Listed]) -> list[Listed]:
    """The listed controls whose text is their name (buttons, check boxes, tabs, ...) and the lines that label a
    field or a check box: what is clicked or read, never text to type."""
    fields = [item.element.box for item in listed if RANK_FAMILIES.get(item.element.role) == "field"]
    toggles = [item.element.box for item in listed if item.element.role in TOGGLE_ROLES]
    return [item for item in listed if item.element.role in NAMED_ROLES or item.element.role == "text" and (
        field_for_label(item.element.box, fields) is not None or
        toggle_for_label(item.element.box, toggles) is not None)]


def _clicked_values(call: str) -> list[int]:
    """The task values a call clicks (`click(target='$2')` -> [2]); typing a value needs no element showing it."""
    used = USED_VALUE.match(call)
    return [int(used["number"])] if used and used["verb"] != "type" else []


def _quoted(text: str) -> str:
    return '"' + " ".join(text.split()).replace('"', "'")[:60] + '"'


def _most_relevant(elements: list[Element], task: str, shows: dict[int, int | None]) -> list[Element]:
    """At most MAX_ELEMENTS of `elements`, in reading order: on a busy screen (a long file list beside a form) the
    ones the task's words name or that show its values first, then the controls and the labels on their rows, then
    the rest from the top; a short screen is listed whole."""
    ordered = sorted(elements, key=lambda e: reading_order(e.box))
    if len(ordered) <= MAX_ELEMENTS:
        return ordered
    words = {w for w in re.findall(r"[a-z0-9]{3,}", task.lower()) if w not in COMMON_WORDS}
    controls = [e for e in ordered if e.role not in ("text", "list_item")]

    def weight(element: Element) -> int:
        if shows.get(id(element)) or words & set(re.findall(r"[a-z0-9]{3,}", element.text.lower())):
            return 3
        if element in controls:
            return 2
        labels = element.role == "text" and any(c.box.y0 - LABEL_SLACK <= element.box.center.y <= c.box.y1 +
                                                LABEL_SLACK and element.box.x1 <= c.box.x0 + LABEL_SLACK
                                                for c in controls)
        return 1 if labels else 0

    ranked = sorted(range(len(ordered)), key=lambda i: (-weight(ordered[i]), i))[:MAX_ELEMENTS]
    return [ordered[i] for i in sorted(ranked)]


def _deduplicated(elements: list[Element]) -> list[Element]:
    """Elements without OCR text lines that only repeat a control's own label inside that control."""
    controls = [e for e in elements if e.role != "text"]
    kept = []
    for element in elements:
        text = normalised(element.text)
        if element.role == "text" and any(normalised(c.text) == text and c.box.intersects(element.box)
                                          for c in controls):
            continue
        kept.append(element)
    return kept

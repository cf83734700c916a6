"""Descriptions of a target ('the "Save" button', 'Full name field', 'the second checkbox') -> what to look for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, TypeVar

from deskpilot.core.observation import ElementRole
from deskpilot.core.rule_packs import active

from .colours import colour_word


T = TypeVar("T")

ROLE_WORDS: dict[str, ElementRole] = {
    "text field": "input", "text box": "input", "textbox": "input", "field": "input", "input": "input",
    "box": "input", "entry": "input", "text area": "input", "textarea": "input",
    "check box": "checkbox", "checkbox": "checkbox", "tickbox": "checkbox", "tick box": "checkbox",
    "radio button": "radio", "radio": "radio",
    "dropdown": "dropdown", "drop-down": "dropdown", "drop down": "dropdown", "combo box": "dropdown",
    "combobox": "dropdown", "select": "dropdown", "list box": "dropdown",
    "text input": "input", "input field": "input", "input box": "input",
    "button": "button", "link": "link", "icon": "icon", "file": "icon", "folder": "icon", "tab": "tab",
    "menu item": "menu_item", "menu": "menu_item", "item": "list_item", "slider": "slider",
    "list": "dropdown",  # "the Country list": a drop-down list, or a list box
}
# Kinds of field by their lines: a text area holds several, a text box one ("the 2nd text area", "the text input").
AREA_WORDS = frozenset({"text area", "textarea", "text areas", "textareas"})
ONE_LINE_WORDS = frozenset({"text box", "textbox", "text input", "text field", "input field", "input box", "entry"})
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1, "1st": 1, "2nd": 2, "3rd": 3,
            "4th": 4, "5th": 5}


def role_words() -> dict[str, ElementRole]:
    """The words for kinds of element: the general ones, and those of the rule pack turned on."""
    return {**ROLE_WORDS, **active().role_words}


@lru_cache(maxsize=4)
def _role_pattern(pack: str) -> str:
    """A regex alternative of every role word (longest first) while the pack named `pack` is on."""
    return "|".join(sorted((re.escape(w) for w in role_words()), key=len, reverse=True))
_QUOTED = re.compile(r"[\"“”']([^\"“”']+)[\"“”']")
# "the location bar", "the URL field"; not "the Address field" or "the Location field" (form labels).
_ADDRESS = re.compile(r"^(?:the\s+)?(?:(?:location|address|path|url|uri)\s+bar|(?:url|uri)\s+(?:field|box|entry))$",
                      re.I)
# "olive colored", "red", "dark-blue coloured square": a thing named by its colour alone (colours.py)
_COLOURED = re.compile(r"^(?P<colour>[a-z]+)(?:[\s-]+colou?red)?(?:\s+(?:square|swatch|block|one|shape|thing|tile|"
                       r"cell|rectangle|area))?$", re.I)
_ROW_OF = re.compile(r"^(?:row|line|entry|item)\s+(?:of|for|with|showing|that\s+says)\s+(?P<name>.+)$", re.I)
_LOCATIVE = re.compile(r"\s+(?:in|on|inside|within|of)\s+(?:the|this|that)\s+[\w-]+"
                       r"(?:\s+(?:list|table|view|dialog|window|box|bar|panel|pane|menu|calendar))?$", re.I)


@dataclass(frozen=True)
class TargetSpec:
    """What a description asks for: visible text (`phrase`), a kind of element, and which one of several."""

    phrase: str
    role: ElementRole | None = None
    ordinal: int | None = None
    quoted: bool = False
    address: bool = False  # the field that shows the current path or URL ("the location bar")
    text_area: bool | None = None  # a field of several lines (True) or of one (False), where the words say
    colour: str | None = None  # a colour the words may name the thing by ("the olive box"), where no text says them


def parse_description(description: str) -> TargetSpec:
    text = " ".join(description.split())
    if _ADDRESS.match(text):
        return TargetSpec("", "input", address=True)
    quoted = _QUOTED.search(text)
    role: ElementRole | None = None
    ordinal: int | None = None
    rest = _QUOTED.sub(" ", text) if quoted else text
    rest = re.sub(r"^(on|at|in|into)\s+", "", rest.strip(), flags=re.I)
    had_article = bool(re.match(r"^(the|a|an)\s+", rest, flags=re.I))
    rest = re.sub(r"^(the|a|an)\s+", "", rest, flags=re.I)
    row = _ROW_OF.match(rest)
    if row:  # "the row of Lisbon": the row that shows Lisbon
        rest = row.group("name")
    where = _LOCATIVE.search(rest)
    if where and where.start() > 0:  # "Cherry in the list", "15 in the calendar": the place only narrows it down
        rest = rest[:where.start()]
    named = rest
    first = rest.split(" ", 1)[0].lower() if rest else ""
    if first in ORDINALS and _is_ordinal(rest):
        ordinal = ORDINALS[first]
        rest = rest[len(first):].strip()
    roles = _role_pattern(active().name)
    role_match = re.search(rf"(?:^|\s)({roles})s?\s*$", rest, flags=re.I)
    if role_match is None:
        role_match = re.match(rf"^({roles})s?\b\s*(?:labell?ed|named|called|saying|with text)?\s*", rest, flags=re.I)
        if role_match and rest[:1].isupper() and not quoted and re.search(r"[A-Z]", rest[role_match.end():][:1]):
            role_match = None  # "Select All", "Check Spelling": a name that starts with a role word
        if role_match and re.match(r"[#\d]", rest[role_match.end():]):
            role = role_words()[role_match.group(1).lower()]  # "Tab #2", "Step 3": the role word is in the name
        elif role_match and (quoted or rest[role_match.end():]):
            role = role_words()[role_match.group(1).lower()]
            rest = rest[role_match.end():]
        elif role_match:
            role = role_words()[role_match.group(1).lower()]
            rest = ""
    else:
        role = role_words()[role_match.group(1).lower()]
        rest = rest[: role_match.start()]
    rest = re.sub(r"\s+(labell?ed|named|called)$", "", rest.strip(), flags=re.I)
    if not rest and not quoted and not had_article and named[:1].isupper() and " " not in named.strip():
        return TargetSpec(named.strip(), None, ordinal, False)  # "choose Folder": a name that is also a role word
    word = " ".join(role_match.group(1).lower().split()) if role and role_match else ""
    text_area = True if word in AREA_WORDS else False if word in ONE_LINE_WORDS else None
    if quoted:
        return TargetSpec(quoted.group(1).strip(), role, ordinal, True, text_area=text_area)
    coloured = _COLOURED.match(rest.strip(" .,:"))
    return TargetSpec(rest.strip(" .,:"), role, ordinal, False, text_area=text_area,
                      colour=colour_word(coloured.group("colour")) if coloured else None)


def of_its_lines(items: list[T], spec: TargetSpec, is_text_area: Callable[[T], bool]) -> list[T]:
    """The fields a description's kind fits by their lines ("the 2nd text area": the fields of several lines; "the
    text input": those of one), or all of them where it names no such kind or none fits."""
    if spec.text_area is None:
        return items
    fitting = [item for item in items if is_text_area(item) == spec.text_area]
    return fitting or items


def _is_ordinal(text: str) -> bool:
    """Whether the leading "first"/"2nd" picks one of several ("the first text field", "the 2nd link", "the second
    Submit button") rather than being part of a label ("First name field", "first name")."""
    word, _, after = text.partition(" ")
    if word[:1].isdigit() or colour_word(after.split(" ", 1)[0]) is not None:
        return True  # "the 2nd button", "the second olive box"
    if re.fullmatch(rf"(?:{_role_pattern(active().name)})s?", after.strip(), flags=re.I):
        return True
    return word.islower() and after[:1].isupper()


def nth(items: list[T], ordinal: int | None) -> T | None:
    """The item an ordinal picks: 1-based from the start, negative from the end ("last" is -1), None for the
    first; None when there are not that many."""
    index = 0 if ordinal is None else ordinal - 1 if ordinal > 0 else ordinal
    return items[index] if -len(items) <= index < len(items) else None

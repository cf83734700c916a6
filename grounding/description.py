"""Descriptions of a target ('the "Save" button', 'Full name field', 'the second checkbox') -> what to look for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deskpilot.core.observation import ElementRole

from .phrasings import BENCHMARK_ROLE_WORDS

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
    **BENCHMARK_ROLE_WORDS,
}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1, "1st": 1, "2nd": 2, "3rd": 3,
            "4th": 4, "5th": 5}
_ROLE_PATTERN = "|".join(sorted((re.escape(w) for w in ROLE_WORDS), key=len, reverse=True))
_QUOTED = re.compile(r"[\"“”']([^\"“”']+)[\"“”']")


@dataclass(frozen=True)
class TargetSpec:
    """What a description asks for: visible text (`phrase`), a kind of element, and which one of several."""

    phrase: str
    role: ElementRole | None = None
    ordinal: int | None = None
    quoted: bool = False


def parse_description(description: str) -> TargetSpec:
    text = " ".join(description.split())
    quoted = _QUOTED.search(text)
    role: ElementRole | None = None
    ordinal: int | None = None
    rest = _QUOTED.sub(" ", text) if quoted else text
    rest = re.sub(r"^(on|at|in|into)\s+", "", rest.strip(), flags=re.I)
    rest = re.sub(r"^(the|a|an)\s+", "", rest, flags=re.I)
    first = rest.split(" ", 1)[0].lower() if rest else ""
    if first in ORDINALS:
        ordinal = ORDINALS[first]
        rest = rest[len(first):].strip()
    role_match = re.search(rf"(?:^|\s)({_ROLE_PATTERN})s?\s*$", rest, flags=re.I)
    if role_match is None:
        role_match = re.match(rf"^({_ROLE_PATTERN})s?\b\s*(?:labell?ed|named|called|saying|with text)?\s*", rest,
                              flags=re.I)
        if role_match and re.match(r"[#\d]", rest[role_match.end():]):
            role = ROLE_WORDS[role_match.group(1).lower()]  # "Tab #2", "Step 3": the role word is in the name
        elif role_match and (quoted or rest[role_match.end():]):
            role = ROLE_WORDS[role_match.group(1).lower()]
            rest = rest[role_match.end():]
        elif role_match:
            role = ROLE_WORDS[role_match.group(1).lower()]
            rest = ""
    else:
        role = ROLE_WORDS[role_match.group(1).lower()]
        rest = rest[: role_match.start()]
    rest = re.sub(r"\s+(labell?ed|named|called)$", "", rest.strip(), flags=re.I)
    if quoted:
        return TargetSpec(quoted.group(1).strip(), role, ordinal, True)
    return TargetSpec(rest.strip(" .,:"), role, ordinal, False)


def nth(items: list, ordinal: int | None):  # noqa: ANN201 - an item of `items`
    """The item an ordinal picks: 1-based from the start, negative from the end ("last" is -1), None for the
    first; None when there are not that many."""
    index = 0 if ordinal is None else ordinal - 1 if ordinal > 0 else ordinal
    return items[index] if -len(items) <= index < len(items) else None

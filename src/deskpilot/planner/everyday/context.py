"""What a reading of everyday words (the package's docstring) knows: the first screen's kind (a calculator, a
calendar, a file dialog, a terminal, ...), what earlier clauses said for later ones to refer to, and how a value the
words give is typed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from deskpilot.core.errors import PlannerError
from deskpilot.core.observation import Element
from deskpilot.core.task_text import NUMBER_WORDS
from deskpilot.grounding.action_context import FIELD_ROLES

from ..goal_check import field_labels
from ..instructions import REFERS_AT_END, Quoted

# a file's name: a word with an extension ("qt.txt", "answer.gnumeric", "done.flag")
FILE_NAME = r"[\w][\w.-]*\.[A-Za-z0-9]{1,9}"
_PLACE_WORDS = re.compile(r"\s(?:in|into|to|on|onto|under|as|for|inside)\s", re.I)  # a value that names a place
# "the words X", "the word X", "the text X": what to type is X
_DESCRIBED = re.compile(r"^(?:the\s+)?(?:words?|text|phrase|line|sentence|letters?)\s+(?P<value>.+)$", re.I)
# what names a value rather than being one ("your name", "the details", "all of it", "it")
_DESCRIPTION = re.compile(r"^(?:(?:the|a|an|this|that|these|those|my|your|our|his|her|its|their|some|every|each|any)\s|"
                          r"all\s+(?:the|of|my|your)\b|(?:it|them|something|anything)$)", re.I)
_MARKS = {"exclamation mark": "!", "exclamation point": "!", "full stop": ".", "period": ".", "dot": ".",
          "comma": ",", "question mark": "?", "colon": ":", "semicolon": ";", "hyphen": "-", "dash": "-",
          "space": " ", "hash": "#", "hash sign": "#", "at sign": "@", "plus sign": "+"}
# "an exclamation mark", "... (!)", "... !": a mark said by name (and shown)
_MARK = re.compile(r"^(?:an?\s+|one\s+)?(?P<name>" + "|".join(sorted(_MARKS, key=len, reverse=True)) +
                   r")(?:\s*\(\s*(?P<shown>«\d+»|\S)\s*\)|\s+[^\w\s«»])?$", re.I)
NUMBER = r"(?:\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")"
_PLACES = {"home", "desktop", "documents", "recent", "other locations", "file system", "computer", "downloads"}
_COMMON_MENUS = {"file", "edit", "view", "search", "tools", "format", "insert", "help", "document", "go"}
_PROMPT = re.compile(r"\S+@\S+.*[$#]\s*$|^\s*[$#]\s*$")  # a shell's prompt, as a terminal shows it


@dataclass
class Screen:
    """What the first screen shows that decides between conventions (None elements: any screen, for a task read
    before there is one)."""

    texts: set[str]
    buttons: set[str]
    roles: set[str]
    field_labels: tuple[str, ...] = ()  # the labels of the text fields shown
    other_texts: tuple[str, ...] = ()  # texts that label no field
    menus: tuple[str, ...] = ()  # the menu bar's menus ("File", "Edit", ...)
    any_screen: bool = False

    @classmethod
    def of(cls, elements: list[Element] | None) -> Screen:
        if elements is None:
            return cls(set(), set(), set(), any_screen=True)
        labelled = field_labels(elements)
        inputs = tuple(label for box, label in labelled.items()  # not a drop-down's: its options are chosen
                       if any(e.box == box and e.role == "input" for e in elements))
        return cls({e.text.strip().lower() for e in elements if e.text.strip()},
                   {e.text.strip() for e in elements if e.role == "button" and e.text.strip()},
                   {e.role for e in elements}, inputs,
                   tuple(e.text for e in elements if e.text and e.role not in FIELD_ROLES
                         and e.text not in labelled.values()),
                   tuple(e.text.strip() for e in elements if e.role == "menu_item" and e.text.strip()))

    def shows(self, text: str) -> bool:
        return self.any_screen or text.strip().lower() in self.texts

    def shows_word(self, word: str) -> bool:
        """Whether some text on the screen holds `word` as a word ("March" of "March 2026")."""
        return self.any_screen or any(word.lower() in t.split() for t in self.texts)

    @property
    def calculator(self) -> bool:
        """A keypad: the ten digits and an equals key."""
        return self.any_screen or (sum(str(d) in self.texts for d in range(10)) >= 10 and "=" in self.texts)

    @property
    def calendar(self) -> bool:
        """A month's days: 1 to 28 each shown, alone or in a row of numbers as OCR reads a week."""
        numbers = {word for text in self.texts if re.fullmatch(r"[\d\s]+", text) for word in text.split()}
        return self.any_screen or all(str(day) in numbers for day in range(1, 29))

    @property
    def spreadsheet(self) -> bool:
        """Column letters and row numbers."""
        return self.any_screen or (all(c in self.texts for c in "abcd") and all(str(r) in self.texts for r in
                                                                                 range(1, 6)))

    @property
    def save_dialog(self) -> bool:
        """A file dialog that names a file: a Name field beside the places it saves to, and a Save or OK button
        (GTK's and Qt's file choosers; Zenity's says OK)."""
        return not self.any_screen and bool({"save", "ok"} & {b.lower() for b in self.buttons}) and \
            any(t.rstrip(":") in ("name", "file name") for t in self.texts) and bool(_PLACES & self.texts)

    @property
    def terminal(self) -> bool:
        return not self.any_screen and any(_PROMPT.search(t) for t in self.texts)

    def menu(self, name: str) -> bool:
        """Whether the menu bar has a menu called `name` (any of the menus every desktop app has, with no
        screen)."""
        if self.any_screen:
            return name.lower() in _COMMON_MENUS
        return name.lower() in {m.lower() for m in self.menus}

    @property
    def files(self) -> bool:
        """A view of files: a file's name, or a place a file dialog lists (Documents, Home, ...)."""
        return self.any_screen or any(re.fullmatch(FILE_NAME, t) for t in self.texts) or bool(_PLACES & self.texts)

    def button(self, *names: str) -> str | None:
        """The first of `names` the screen shows as a button's text (any of them with no screen)."""
        if self.any_screen:
            return names[0]
        return next((n for n in names if n in self.buttons), None)


@dataclass
class Referent:
    """What a statement said ("my name is Ada": the name field, "Ada"; "I need milk and bread": two values; "x.txt
    should be called y.txt": a rename), and whether a later clause acted on it."""

    noun: str | None
    values: list[str]
    renames: bool = False
    used: bool = False
    typed: bool = False  # the statement itself set the field its noun names


@dataclass
class Context:
    """What earlier clauses said that later ones refer to."""

    screen: Screen
    quoted: Quoted
    terminal: bool = False
    by_buttons: bool = False
    referent: Referent | None = None
    joined_by: str = ""  # what joined the clause being read to the one before ("and", ",", ...)
    selected: bool = False  # a clause selected all the text: "delete it" is the Delete key
    new_folder: bool = False  # "new folder, ...": its name comes in the next clause
    renaming: str | None = None  # "rename notes.txt, ...": the file whose new name comes in the next clause
    save_folder: str | None = None  # "save it to Documents, ...": the folder a later "name it X" saves X in
    saved_as: bool = False  # a save as was read: a later plain "save it" is the dialog's own (done)
    dialog_unsaved: bool = False  # a file dialog's name was set and its Save not yet pressed
    screen_bound: bool = False  # a clause was read by a kind of screen only this one shows
    menu: str | None = None  # the menu the task says to do its commands from ("use the Edit menu to ...")
    last_menu: str | None = None  # the menu the clauses before opened ("... from the same menu")
    replace_dialog: bool = False  # the clause before opened a find-and-replace dialog: "replace X with Y" fills it
    notes: list[str] = field(default_factory=list)


Reader = Callable[[str, Context], list[str] | None]


def value_of(text: str, context: Context) -> str | None:
    """What a phrase says to type: a quoted value, "the word done", "an exclamation mark ("!")"; None for a
    phrase that says where as well ("Ada into the name field")."""
    text = text.strip()
    described = _DESCRIBED.match(text)
    if described:
        text = described.group("value").strip()
    mark = _MARK.match(text)
    if mark:
        shown = mark.group("shown")
        return context.quoted.restore(shown, keep_quotes=False) if shown else _MARKS[mark.group("name").lower()]
    if re.fullmatch(r"«\d+»", text):
        return context.quoted.restore(text, keep_quotes=False)
    shown_mark = re.fullmatch(r"(?:an?|one)\s+([^\w\s«»])", text)
    if shown_mark:  # "a !": the mark itself
        return shown_mark.group(1)
    if "«" in text or _PLACE_WORDS.search(f" {text} ") or _DESCRIPTION.match(text) or REFERS_AT_END.search(text) \
            or not text:
        return None
    return text


def in_quotes(value: str) -> str:
    """`value` quoted for the grammar, with marks it does not hold."""
    for left, right in (('"', '"'), ("“", "”")):
        if left not in value and right not in value:
            return f"{left}{value}{right}"
    raise PlannerError("a value holds both kinds of quotes")


def type_step(value: str) -> str:
    """The grammar's typing of `value`."""
    return f"type {in_quotes(value)}"

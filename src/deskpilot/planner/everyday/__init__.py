"""Everyday requests to desktop applications read as the grammar's steps, done the way people do them there:

    "Go to the very end of the file, add ' and eggs' and save"  ->  press ctrl+End, type " and eggs", press ctrl+s
    "Wipe the text, write all done instead"                      ->  press ctrl+a, press Delete, type "all done"
    "Save a file called qt.txt in Documents that says Qt notes"  ->  type "Qt notes", save the file as "qt.txt" in
                                                                     Documents
    "What is 12 times 12? Copy the result" (a calculator's keys in sight)  ->  type "12*12=", press ctrl+c
    "Make a directory called reports from the terminal"          ->  run the command "mkdir reports"
    "My name is Ada, enter it and confirm"                       ->  type "Ada" into the name field, confirm
    "Move todo.txt into Archive" (both in sight)                 ->  drag "todo.txt" onto "Archive"

Each clause is read by the first convention that takes it whole (documents.py: a document's text, saving, menus,
shared shortcuts; apps.py: calculators, terminals, file managers; dialogs.py: stated values, fields, buttons,
calendars, sliders, cells); a clause none takes stays as written, for the grammar (instructions.py). The first
screen decides where words alone do not (context.py: a calculator's keys, a file dialog's name field, a
spreadsheet's cells, a calendar's days, a slider, the files a file manager shows). The agent takes the reading where
the grammar refuses or misreads the task as written, or where a clause was read by what only this screen shows, and
the grammar takes the whole as read; the reading is named in the episode, and the goal check follows it. Values come
from the task, quoted or not; a name typed into a shell is quoted for it, so a task's words are never run as more
than the one command it names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deskpilot.core.errors import PlannerError
from deskpilot.core.observation import Element

from ..instructions import FILLER_WORDS, Quoted, parse_instructions, starts_with_verb
from .apps import BY_BUTTONS, TERMINAL, calculating, in_a_file_manager, in_a_terminal
from .context import NUMBER, Context, Reader, Screen
from .dialogs import (button_alone, by_button, choice_alone, double_clicking, filling, named_choice,
                      on_screen_controls, referring)
from .documents import by_shortcut, editing, menu_steps, replacing_with_a_dialog, says_a_menu, saving

_COMPOUND_VERBS = ((re.compile(r"\bdrag\s+and\s+drop\b", re.I), "drag"),
                   # "drag todo.txt and drop it on Archive": one drag
                   (re.compile(r"\bdrag\s+(?P<what>[^,;]+?)\s+and\s+drop\s+(?:it|them)\s+(?=(?:on|onto|into|in|over)\b)",
                               re.I), r"drag \g<what> "),
                   (re.compile(r"\bcut\s+and\s+paste\b", re.I), "move"),
                   (re.compile(r"\bcopy\s+and\s+paste\b", re.I), "copy"),
                   # "check both Milk and Bread": each of the two
                   (re.compile(r"\b(?P<verb>tick|check|select|choose|pick)\s+both\s+(?:of\s+)?(?!and\b|then\b|of\b)"
                               r"(?=[\w«])", re.I), r"\g<verb> "))
# what ends a clause ("a !", "a ?" and "a question mark ?" are marks to type; "78 + 5 = ? copy it" is a question)
SEPARATORS = re.compile(r"\s*(;|,|—|(?<!\s)\.(?:\s+|$)|(?<!\ba\s)(?<!\ban\s)(?<!\bone\s)(?<!mark\s)\?(?:\s+|$)|"
                        r"(?<=\w)!(?:\s+|$)|\n|\bthen\b|\band\b)\s*", re.I)
# the grammar's filler, and a few more words that only lead into what the readings take ("use the mouse to move ...")
_FILLER = re.compile(rf"^(?:{FILLER_WORDS}|after\s+that|afterwards|so|use\s+the\s+mouse\s+to)\b\s*", re.I)
# "I need a new folder called Photos": wanting a new thing is making it
_WANT_NEW = re.compile(r"^(?:i\s+(?:need|want|would\s+like|'d\s+like)|we\s+need|give\s+me)\s+(?=(?:a|an)\s+(?:new\s+)?"
                       r"(?:empty\s+)?(?:folder|directory|file|document|tab)\b)", re.I)
# "put the whole text on the clipboard", "put it on the clipboard": copying it
_ON_CLIPBOARD = re.compile(r"^(?:put|place|get|send|stick|pop)\s+(?P<what>.+?)\s+(?:on|onto|in|into|to)\s+the\s+"
                           r"clipboard$", re.I)
# "use File then Save As", "go to File, Save As": a menu of the menu bar and its item, said as two
_MENU_THEN_ITEM = re.compile(r"\b(?P<lead>(?i:use|choose|click(?:\s+on)?|pick|select|go\s+to|open)\s+(?:the\s+)?)"
                             r"(?P<menu>[A-Z]\w+)(?:\s+menu)?\s*(?:,\s*(?:then\s+)?|\s+then\s+|\s*(?:->|→)\s*)"
                             r"(?:(?i:choose|pick|select|click(?:\s+on)?)\s+)?(?=[A-Z])")
# "Search > Find and Replace", "using Find and Replace": a menu item's name with "and" in it (each word capitalised)
# is one name, kept whole before the task is split at its "and"s
_TITLED_AND = re.compile(r"(?P<lead>>\s*|(?i:\busing|\bwith|\bvia|\bthrough)\s+(?:the\s+)?)"
                         r"(?P<name>[A-Z]\w*(?:\s+[A-Z]\w*)*\s+(?:and|&)\s+[A-Z]\w*(?:\s+[A-Z]\w*)*)")
_A_TOOL = re.compile(r"\b(?:Find|Replace|Search)\b")  # "using Find and Replace" (not "with Ada and Lovelace")
_MENU_COLON = re.compile(r"(?<=\bmenu)\s*:\s*", re.I)
_TRAILING = re.compile(r"\s+(?:please|for\s+me|afterwards|after|too|as\s+well|again|from\s+now\s+on)$", re.I)


@dataclass(frozen=True)
class Reading:
    """A task as the grammar takes it, and what was read differently from its words."""

    task: str
    notes: tuple[str, ...]
    screen_bound: bool = False  # a clause was read by what the screen shows (a calculator, a calendar, a file
    # dialog, ...): the reading stands even where the grammar takes the words another way
    clauses: tuple[str, ...] = ()  # the words of each clause read differently, as the task writes them


def grammar_takes(task: str) -> bool:
    """Whether the grammar parses the task as written."""
    try:
        parse_instructions(task)
    except PlannerError:
        return False
    return True


def may_read_everyday(task: str) -> bool:
    """Whether some screen could have the task read in everyday words: where the grammar refuses it, it is then
    read against the first screen before it is refused."""
    return read_everyday(task, None) is not None


def read_everyday(task: str, elements: list[Element] | None) -> Reading | None:
    """The task with each clause said in everyday words written as the grammar's steps, against the first screen
    (`elements`; None: before there is one, any screen's conventions). None where no clause is read differently,
    or the grammar still does not take the whole as read."""
    quoted = Quoted(task.strip())
    context = Context(Screen.of(elements), quoted)
    text = quoted.text
    if TERMINAL.search(text) or context.screen.terminal:
        context.terminal, text = True, TERMINAL.sub(" ", text).strip(" ,")
    if BY_BUTTONS.search(text):
        context.by_buttons, text = True, BY_BUTTONS.sub(" ", text).strip(" ,")
    said = text
    for compound, verb in _COMPOUND_VERBS:  # one verb of two joined by "and": no clause of its own
        text = compound.sub(verb, text)
    changed = text != said  # "check both Milk and Bread" is read as "check Milk and Bread"
    text = _MENU_COLON.sub(", ", text)  # "with the Edit menu: Select All, then Copy"
    text = _TITLED_AND.sub(lambda m: f"{m.group('lead')}{_kept(quoted, m.group('name'))}"
                           if m.group("lead").startswith(">") or _A_TOOL.search(m.group("name")) else m.group(0), text)
    text = _MENU_THEN_ITEM.sub(lambda m: f"{m.group('lead')}{m.group('menu')} > "
                               if context.screen.menu(m.group("menu")) else m.group(0), text)
    pieces = SEPARATORS.split(text)
    clauses, separators = _joined_sums(pieces[::2], ["", *pieces[1::2]])
    read: list[str] = []
    read_clauses: list[str] = []
    after_reading = False
    for clause, separator in zip(clauses, separators, strict=True):
        words = _bare(clause)
        if not words:
            continue
        context.joined_by = separator.strip()
        steps = _read_clause(words, context)
        if steps is None:
            if after_reading and not starts_with_verb(words) and not (read and _continues(read[-1], words)):
                return None  # the grammar would give it the verb of the steps read before it
            read.append(f"{_joint(separator)}{words}")
            after_reading = False
            continue
        changed = after_reading = True
        read_clauses.append(quoted.restore(words))
        if steps:
            context.notes.append(f"{quoted.restore(words)!r} read as {'; '.join(quoted.restore(s) for s in steps)}")
            read.append(_joint(separator) + ", ".join(steps))
    if not changed or (context.referent is not None and not context.referent.used):
        return None  # a value stated and never acted on would be dropped from the task
    if (context.save_folder and not context.saved_as) or context.new_folder or context.renaming:
        return None  # a folder to save in, a new folder, a file to rename, and never a name
    if context.dialog_unsaved:
        read.append(", press Enter")  # the file dialog's name set: its Save pressed last
    written = quoted.restore("".join(read).strip().lstrip(",;. ").strip())
    return Reading(written, tuple(context.notes), context.screen_bound, tuple(read_clauses)) \
        if grammar_takes(written) else None


def _kept(quoted: Quoted, name: str) -> str:
    """`name` kept out of the way of splitting, as a quoted value is."""
    quoted.values.append(name)
    return f"«{len(quoted.values) - 1}»"


def _continues(steps: str, words: str) -> bool:
    """Whether a clause with no verb may take the verb of the steps read before it: a name or two after a tick or
    a click ("tick the boxes for Milk and Bread")."""
    last = steps.rsplit(", ", 1)[-1].lstrip(", .")
    return bool(re.match(r"(?:tick|untick|click|double-click) ", last)) and len(words.split()) <= 3 and \
        re.fullmatch(r"[\w .'-]+|«\d+»", words) is not None


def _joint(separator: str) -> str:
    """How a clause joins the one before it: a sentence's end stays one (it ends the verb before it)."""
    if not separator:
        return ""
    return ". " if separator.strip() in (".", "?", "!", "") else ", "


def _joined_sums(clauses: list[str], separators: list[str]) -> tuple[list[str], list[str]]:
    """The clauses with a sum's "and" put back ("add 42" + "8" -> "add 42 and 8")."""
    kept: list[str] = []
    joints: list[str] = []
    for clause, separator in zip(clauses, separators, strict=True):
        if kept and separator.lower() == "and" and re.fullmatch(NUMBER, clause.strip(), re.I) and \
                re.search(rf"\b(?:add|sum\s+of|product\s+of|difference\s+between|difference\s+of|multiply)\s+"
                          rf"{NUMBER}$", kept[-1], re.I):
            kept[-1] = f"{kept[-1]} and {clause.strip()}"
            continue
        kept.append(clause)
        joints.append(separator)
    return kept, joints


def _bare(clause: str) -> str:
    # a sentence's end glued to its last word ("... and save."); a mark said after a space is one to type ("a !")
    words = _WANT_NEW.sub("make ", re.sub(r"(?<=[^\s.!?])[.!?]+$", "", clause.strip()).strip())
    words = _ON_CLIPBOARD.sub(r"copy \g<what>", words)
    while (trimmed := _FILLER.sub("", words).strip()) != words:
        words = trimmed
    while (trimmed := _TRAILING.sub("", words).strip()) != words and trimmed:
        words = trimmed
    return words


def _read_clause(words: str, context: Context) -> list[str] | None:
    """The steps one clause asks for (an empty list: a clause that only says something later ones refer to), or
    None where no convention takes it."""
    steps = menu_steps(words, context) if says_a_menu(words, context) else None
    if steps is not None:
        return steps
    for reader in READERS:
        steps = reader(words, context)
        if steps is not None:
            return steps
    return None


READERS: tuple[Reader, ...] = (in_a_terminal, calculating, referring, by_button, named_choice, saving,
                               in_a_file_manager,
                               on_screen_controls, double_clicking, button_alone, by_shortcut, filling, choice_alone,
                               replacing_with_a_dialog, editing)

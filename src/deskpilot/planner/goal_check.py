"""The goal check before "done": what the task and the actions taken say must hold on the final screen, and
whether it does. The agent calls `GoalTracker.follow` after every action and `check` when a planner says it has
finished; the run is a success only when every expectation holds.

Expectations, each read off the final screen's elements (grounding, and the accessibility tree where the app
exposes it):
- every value typed shows exactly (no prefix, no leftover) in the field it went into, where that field is still
  on the screen (a dialog closed by its OK took the field with it). The field is read before the typing, right
  after it and at the end: text it held before that is still there beside the value is a leftover; a reading
  that differs from the value where the field was empty is OCR's (a single "x" it cannot see), not the app's;
- every value the task asks to type ("type "Ada" into Name", "set Amount to "250"") was typed whole into a field,
  not inside a longer text; a task that asks to type without quoting what ("type that word into the box", "enter
  the time") saw something typed or pasted, or a field shows a text it says; a text the task describes by its
  start or end ("an item that starts with "Au" and ends with "lia"") shows in a field or was typed, whole (and
  counts as said by the task);
- what the task asks to click by its quoted words ("click the "Export" link") was clicked, and so was a button
  on the final screen that the task asks to press by its name ("finish with Submit claim", "press the Join
  button"), unless the run pressed Enter, which presses a form's default button (Enter that picks an open list's
  option presses none); a control the task names by its rank ("click the 2nd checkbox") was clicked (or, a check
  box or radio button, shows ticked where the first screen showed it not), as the first screen ranked them;
- a click outside what the click before it opened (a list), after which the screen is as it was before that click,
  only closed it: it pressed nothing and chose nothing (a web page's list open over Join took the click);
- a check box or radio button clicked shows the state the click gave it; a check box the task names by a word of
  its own (its label's word that nothing else on the screen says) was clicked; a radio option the run chose is one
  the task says a word of;
- an option clicked in a drop-down list the run opened shows in the drop-down, right after the click and (unless
  a later submit moved the app on) at the end; a list the run opened and left open, or an option the task asks to
  choose ("select "Spain" from Country") that is neither chosen nor shown outside an open list, is a failure; so is
  an option the first screen showed that the task asks to choose with no list named ("pick out Own money") where
  nothing shows it chosen (no click on it that changed the screen, no box of its name ticked, no list showing it);
- a text copied from one field and pasted into another: the field copied from showed text, the paste went into
  another field, changed the screen, and that field shows the text;
- a click on a control that submits, saves, confirms or closes changed something on the screen (a click on a title
  bar's text, which changes nothing, is caught here);
- every clause that asks for something ("Select -8 with the slider") says a word of what the run did or the check
  read back (planner/task_coverage.py): a part no evidence covers is no success; a task that asks for something to
  be done is no success where no step changed the screen and the check held nothing;
- no text that reads as an error or a refusal appeared during the run ("Invalid email", "Cannot be saved!",
  "Zugriff verweigert", "保存に失敗しました")."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from collections.abc import Callable
from dataclasses import dataclass, field

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.geometry import Box, Point
from deskpilot.core.observation import TEXT_AREA_HEIGHT, Element
from deskpilot.core.secrets import PLACEHOLDER
from deskpilot.core.verdict import GoalCheck
from deskpilot.core.task_text import QUOTED, WORD, look_alike, names_acted_on, ranked_references, said_in
from deskpilot.grounding.action_context import (FIELD_ROLES, TOGGLE_ROLES, KeyboardFocus, elements_at,
                                                label_of_field)
from deskpilot.grounding.task_echoes import echoes_task
from deskpilot.grounding.text_match import PATH
from deskpilot.grounding.widgets import toggle_for_label

from .equations import DECIMALS, solve
from .field_text import SELECTING_KEYS, replaces
from .field_values import field_values
from .number_controls import goals as number_goals
from .sliders import SLIDER_WORDS, shown_number
from .spin_boxes import spin_boxes
from .task_coverage import CLAUSE, asks_to_act, coverage

# Text that reads as an error or a refusal, in the languages the safety words cover.
ERROR_TEXT = re.compile(
    r"\b(?:invalid|error|errors|failed|failure|fails|cannot|can't|can ?not|could not|couldn't|unable to|denied|"
    r"not found|not allowed|not permitted|incorrect|is required|are missing|is missing|not saved|was not|"
    r"rejected|refused|forbidden|unauthori[sz]ed|not valid|isn't valid|too (?:long|short|large|small)|"
    r"ungültig|fehler|fehlgeschlagen|nicht gefunden|verweigert|kann nicht|konnte nicht|"
    r"invalide|erreur|échec|échoué|impossible|refusé|introuvable|non valide|"
    r"inválido|inválida|falló|no se puede|no se pudo|denegado|no encontrado|no válido)\b"
    r"|错误|失败|无效|无法|拒绝|未找到|エラー|失敗|無効|できません|拒否|見つかりません", re.I)
# Controls whose click must change the screen: they submit, save, confirm or close.
# A task that asks to confirm what it did ("enter it and confirm", "..., then OK"), not a field it names ("Confirm
# password"): some step must press OK, Save, Submit, Yes, ... (SUBMITS) or Enter.
CONFIRMING = re.compile(r"\bconfirm\b(?!\s+(?:the\s+|your\s+|new\s+)?(?:password|pass\s*word|e-?mail|pin|code))"
                        r"|\b(?:then|and)\s+(?:ok|okay)\W*$", re.I)
OK_SAID = re.compile(r"\b(?:ok|okay)\b", re.I)
# "change milk to bread", "replace the word milk with bread", "swap milk for bread": one word or quoted text put in
# place of another (not "change it to ...", "change the size to ...": a field's value, held by the value checks)
REPLACING = re.compile(r"\b(?:change|replace|swap)\s+(?:the\s+word\s+)?(?P<old>[\"“'][^\"”']{1,40}[\"”']|"
                       r"(?!(?:the|a|an|it|this|that|them|all|everything|its|my|your)\b)[\w.@-]+)\s+"
                       r"(?:to|with|for|into|by)\s+(?P<new>[\"“'][^\"”']{1,40}[\"”']|[\w.@-]+)", re.I)
REDIRECT = re.compile(r"[^>]>{1,2}\s*[\w~./-]+")  # a shell command's output put into a file: "ls -a > all.txt"
# A task that asks to save its work ("... and save", "store it as x.txt", "hit the save icon"): some step must save
# (the save keys, a click on Save or Save As, or Enter while a Save button shows: a file dialog's own).
SAVING = re.compile(r"\b(?:sav(?:e|ed|es|ing)|stor(?:e|ed|es|ing))\b", re.I)
SAVE_KEYS = (("ctrl", "s"), ("ctrl", "shift", "s"))
# A sum of two numbers typed with its "=" ("7*6="), as into a calculator: where the screen shows a number it did not
# show at the start (a display OCR read), that number must be its result (a "999" typed before it and never cleared
# had made 59982, and the run was judged done); a display OCR does not read says nothing.
NUMBER_SHOWN = re.compile(r"-?\d+(?:[.,]\d+)?\.?")
SUM_TYPED = re.compile(r"^\s*\d+(?:\.\d+)?\s*[-+*/×÷]\s*\d+(?:\.\d+)?\s*=\s*$")
# A task that asks to make a folder or a file of a name ("create a new folder named Photos", "set up a directory
# called reports"): the name must show by the end where it did not at the start and no text field holds it (the new
# icon, a listing, a terminal's line), not only typed into a field.
MAKING = re.compile(r"\b(?:create|make|add|set\s+up)\s+(?:me\s+|us\s+)?(?:a\s+|an\s+)?(?:new\s+)?(?:empty\s+)?"
                    r"(?:folder|directory|file)\s+(?:called|named|titled|with\s+the\s+name)\s+[\"“']?(?P<name>\w[\w.-]*)",
                    re.I)
SAVE_LABEL = re.compile(r"^\W*(?:save|speichern|enregistrer|guardar|保存)\b", re.I)  # "Save As...", "Save changes"
SUBMITS = re.compile(r"^\W*(?:ok|okay|save|save as|submit|send|apply|confirm|done|close|continue|next|finish|"
                     r"sign in|log in|login|sign up|register|create|add|search|go|yes|accept|update|upload|"
                     r"speichern|senden|anwenden|enregistrer|envoyer|valider|guardar|enviar|aceptar|"
                     r"确定|保存|提交|発行|送信|完了)\W*$", re.I)
# "type "X" into ...", "enter "X" as ...", "set the amount to "X"": values the task asks to type.
_TASK_VALUE = re.compile(r"\b(?:type|enter|write|input|key in|fill in|fill|put|insert|append|add|tack|prepend|"
                         r"set\b[^\"“'”]{0,60}?\bto|"
                         r"change\b[^\"“'”]{0,60}?\bto|rename\b[^\"“'”]{0,60}?\bto)\s+(?:(?:in|down|out)\s+)?"
                         r"[\"“']([^\"”']{1,80})[\"”']", re.I)  # "put down "R-1001"", "key in "240"
# "select "Spain" from Country", "choose Express in the shipping list": options the task asks to choose.
_TASK_CHOICE = re.compile(r"\b(?:select|choose|pick)\s+(?:[\"“']([^\"”']{1,80})[\"”']|"
                          r"((?!(?:all|everything|it|this|that|the|a|an|text)\b)[^\s,;.\"“']+(?:\s+[^\s,;.\"“']+){0,2}?))"
                          r"\s+(?:from|in|on)\b", re.I)
# "pick out Own money.", "choose "Express", then ...", "select the Evening option", "go with "Afternoon".": an option
# the task asks to choose with no list named (a radio button's, a drop-down's the task opened, a button's).
_BARE_CHOICE = re.compile(r"\b(?:select|choose|pick|go\s+with|go\s+for|opt\s+for)(?:\s+out)?\s+(?:the\s+)?"
                          r"(?:[\"“']([^\"”']{1,80})[\"”']|"
                          r"((?!(?:all|everything|it|this|that|text|nothing|none|both|one|any|either|neither|no)\b)"
                          r"[^\s,;.!?\"“']+(?:\s+[^\s,;.!?\"“']+){0,2}?))"
                          r"(?:\s+(?:option|entry|item|choice|one))?"
                          r"(?=\s*(?:[,;.!?]|$)|\s+(?:and|then|please|thanks?|thank)\b)", re.I)
KIND_WORDS = re.compile(r"\b(?:box|checkbox|button|link|tab|field|list|menu|dropdown|drop-down)$", re.I)
# "click the "Export" link", "click on "Open report"", "tap "Next"": what the task asks to click, by its words.
_TASK_CLICK = re.compile(r"\b(?:click|clicking|tap|tapping)\s+(?:on\s+)?(?:the\s+)?"
                         r"(?:(?:link|button|tab|item|option|entry|icon|word|text)\s+)?"
                         r"[\"“']([^\"”']{1,80})[\"”']", re.I)
# Words that ask for a box unticked, in the clause that names it.
NEGATION = re.compile(r"\b(?:un(?:tick|check|mark|select)(?:ed)?|deselect|clear|disable|deactivate|off|don't|dont|"
                      r"do not|no|not|without|remove|drop|exclude|leave out|take out|never|stop|opt out|skip|omit|"
                      r"ignore|forgo|decline|avoid)\b")
# What a task says right before a control it asks to press ("press the", "finish with", "then click on", a menu's
# "Edit menu: " or "Edit > " before its item), and after it ("... button").
PRESS_BEFORE = re.compile(r"(?:\bmenu\s*:\s*|>\s*|\b(?:click|clicking|clicks|press|pressing|presses|push|pushing|hit|"
                          r"hitting|tap|tapping|select|selecting|choose|choosing|pick|picking|go\s+for|going\s+for|opt\s+for|go\s+with|"
                          r"(?:finish|finishing|end|ending|wrap up|submit|submitting|confirm|confirming|"
                          r"complete|completing|close|closing)\s+(?:it\s+|this\s+|that\s+|off\s+|up\s+)?"
                          r"(?:with|by|using|via)(?:\s+(?:clicking|pressing|hitting))?)"
                          r"\s+(?:on\s+)?(?:the\s+)?)$", re.I)
# "pick Select All and then Copy": a control named after another that a verb of pressing asks for, joined to it
PRESS_CHAIN = re.compile(r"\b(?i:click|press|pick|choose|select|tap|hit)\s+(?i:on\s+)?(?i:the\s+)?"
                         r"[A-Z]\w*(?:\s+[A-Z]\w*){0,3}(?:\s*,\s*(?:(?i:and|then)\s+)?|\s+(?i:and|then)\s+(?:(?i:then)\s+)?)$")
TITLE_GOES_ON = re.compile(r"\s+(?:(?:and|&|or|of)\s+)?[A-Z]\w")  # "Find| and Replace", "Save| As"
CHOOSE_VERB = re.compile(r"(?:select|choos|pick|go|opt)", re.I)  # the words of choosing among PRESS_BEFORE's
CHOSEN_FROM = re.compile(r"^\s+(?:from|in|on|out\s+of)\b", re.I)
PRESS_AFTER = re.compile(r"^\s+(?:button|btn)\b", re.I)
CLAUSE_START = re.compile(r"(?:^|[,;.!?:]|\b(?:and|then|please|now|finally|also))\s*$", re.I)  # what a clause
# of its own follows
BARE_NO = re.compile(r"^(?:no|nope|off|not|none|false|unticked|unchecked)$")  # a clause that only answers no
ENTER_KEYS = frozenset({"enter", "return", "kp_enter"})
PASTE_KEYS = (("ctrl", "v"), ("shift", "insert"))
COPY_KEYS = (("ctrl", "c"), ("ctrl", "insert"))
# a verb of typing (or pasting) that starts a clause ("..., type that into the textbox", "Enter 1:49 PM as the
# time", "and paste it into the text input"); "enter"
# after a word of pressing, or before "key", is the key
TYPE_ASKED = re.compile(r"(?:^|[,;.!?:]|\b(?:and|then|please|now|finally|also|you|to))\s*"
                        r"(?:type|write|input|enter|paste)\b(?!\s+(?:key|button|to\b))", re.I)
# a text the task describes by its start or its end
_STARTS_WITH = re.compile(r"\b(?:starts?|starting|begins?|beginning)\s+with\s+[\"“']([^\"”']{1,40})[\"”']", re.I)
_ENDS_WITH = re.compile(r"\b(?:ends?|ending)\s+with\s+[\"“']([^\"”']{1,40})[\"”']", re.I)
COMMON_TASK_WORDS = frozenset("the a an and then to into in as for of with my is it be please type enter put set "
                              "fill click press select choose field box text".split())
OCR_ALIKE = 0.5  # difflib's ratio of a reading to a value for it to be OCR's reading of that value
READABLE = 3  # characters a typed text needs before OCR's silence about it says it is not there
WHOLE_READING = 12  # letters and digits of a typed text up to which its field shows it whole (longer ones scroll)
SHORT_VALUE = 3  # characters of a value beside which one more character is content, not OCR's noise
DISTINCT = 5  # letters a word of a check box's label needs for the task's saying it to name that box
PRESSABLE = ("button", "link", "menu_item", "tab")  # what a submit's click must land on, where one shows it
OPTION_ROLES = ("list_item", "menu_item")  # what an open list shows: options, not a value chosen
SHOWN_START = 6  # letters and digits of an option's start a narrow drop-down must show to count as showing it
CLOSING_KEYS = {"escape", "esc", "enter", "return", "kp_enter", "tab"}
CARET = re.compile(r"\s*[|\]\[]$")
CARET_READ_AS = "l"  # the folded letter a text cursor after the last character can be read as ("i", "l", "I", "1")
INSIDE = 0.8  # a text line is a field's content when this share of it lies inside the field (not a label run over)
MAX_NAME = 40  # a longer "label" is a sentence near the field, not its name
# the controls a task may name by rank ("click the 2nd checkbox") whose click the check looks for, by family
RANKED_CLICKS = {"checkbox": ("checkbox",), "radio": ("radio",), "button": ("button",), "link": ("link",),
                 "tab": ("tab",), "list_item": ("list_item",)}
RANK_SLACK = 4  # pixels around a ranked control where a click still counts as on it


Blank = Callable[[Box], bool]  # whether a field's box (screen pixels) shows no mark wider than a text cursor
Read = Callable[[Box], str]  # the marks inside a field's box (screen pixels) read as text, "" where none reads


def task_values(task: str) -> list[str]:
    """The quoted values a task asks to type."""
    return [m.group(1).strip() for m in _TASK_VALUE.finditer(task) if m.group(1).strip()]


def task_choices(task: str) -> list[str]:
    """The options a task asks to choose in a list."""
    return [(m.group(1) or m.group(2)).strip() for m in _TASK_CHOICE.finditer(task)]


def bare_choices(task: str) -> list[str]:
    """The options a task asks to choose without naming a list ("pick out Own money."), less controls it names by
    their kind ("select the Urgent check box")."""
    found = [(m.group(1) or m.group(2)).strip() for m in _BARE_CHOICE.finditer(task)]
    return [value for value in found if value and not KIND_WORDS.search(value)]


def task_clicks(task: str) -> list[str]:
    """The quoted things a task asks to click."""
    return [m.group(1).strip() for m in _TASK_CLICK.finditer(task) if m.group(1).strip()]


def asks_to_confirm(task: str) -> bool:
    """Whether the task asks to confirm: it says "confirm", ends on "then OK", or says OK (too short a name for
    `asked_to_press`) with the words of pressing right before it ("press OK", "submit with OK")."""
    return bool(CONFIRMING.search(task)) or any(PRESS_BEFORE.search(task[:m.start()]) for m in OK_SAID.finditer(task))


def asked_to_press(task: str, name: str, whole: bool = False) -> bool:
    """Whether the task asks to press the control called `name` (as OCR read it: "Submitclaim" for "Submit claim"):
    it says the name, with the words of pressing or choosing right before it ("press the", "finish with", "then click
    on", "go for"; not an option chosen from a list: "choose Travel from the Category") or
    "button" right after it, or a name the task says in two words or more as a clause of its own ("... and then
    submit claim": the name is what to do). `whole`: not where the task's name goes on past it ("Find" of "choose
    Find and Replace")."""
    wanted = _skeleton(name)
    if len(wanted) < READABLE:
        return False
    words = list(WORD.finditer(task))
    for first, start in enumerate(words):
        said = ""
        for end in words[first:first + 6]:
            said += _skeleton(end.group())
            if said == wanted:
                if whole and TITLE_GOES_ON.match(task[end.end():]):
                    break
                before = task[:start.start()]
                pressing = PRESS_BEFORE.search(before)
                if pressing and CHOOSE_VERB.match(pressing.group()) and CHOSEN_FROM.match(task[end.end():]):
                    break  # "choose Travel from the Category": an option, whatever grounding takes its list for
                chained = PRESS_CHAIN.search(before) and task[start.start()].isupper()  # a name, as written
                if pressing or PRESS_AFTER.match(task[end.end():]) or chained or (
                        end is not start and CLAUSE_START.search(before)):
                    return True
                break
            if not wanted.startswith(said):
                break
    return False


# where a task puts a value, in its own words: "for the Currency", "into the Notes field", "as my nickname"
_PLACE = re.compile(r"\b(?:for|into|in|as|under)\s+(?:the\s+|my\s+|your\s+|our\s+)?(?P<place>[a-z][\w'-]*"
                    r"(?:\s+[a-z][\w'-]*){0,2}?)(?:\s+(?:field|box|list|drop-?down|menu))?"
                    r"(?=\s*(?:[,;.!?]|\b(?:and|then|please|thanks|now)\b|$))", re.I)


def _named_places(task: str) -> list[str]:
    """The places a task puts values in its own words ("Currency" of "choose 'USD' for the Currency, thanks")."""
    return list(dict.fromkeys(m.group("place") for m in _PLACE.finditer(QUOTED.sub('""', task))))


def nth_of(elements: list[Element], roles: tuple[str, ...], rank: int) -> Element | None:
    """The `rank`-th (1-based) element of these roles, in the order grounding lists them (reading order)."""
    found = [e for e in elements if e.role in roles]
    return found[rank - 1] if 1 <= rank <= len(found) else None


def asks_to_type(task: str) -> bool:
    """Whether a clause of the task starts with a verb of typing (the key Enter and "type of" are no typing)."""
    return any(not re.match(r"\s+of\b", task[m.end():]) for m in TYPE_ASKED.finditer(task))


def same_text(shown: str, expected: str) -> bool:
    """Equal up to case, spacing and the characters OCR confuses (0/o, 1/l, 5/s, ...)."""
    return "".join(look_alike(shown).split()) == "".join(look_alike(expected).split())


def without_caret(text: str) -> str:
    """A field's reading without the text cursor, which OCR reads as a last "|" or "]"."""
    return CARET.sub("", text)


def _skeleton(text: str) -> str:
    """The ASCII letters and digits of `text`, accents taken off, look-alikes folded: what OCR reads reliably."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in look_alike(plain) if ch.isalnum())


def _beside_more(shown: str, value: str) -> bool:
    """Whether `shown` holds the value and more beside it: two characters or more that are not a text cursor (read
    as l, i, 1 or |), or one beside a value of three or fewer ("28" for "8"; one stray letter before a long value
    is OCR's: "eZoeAngstrom")."""
    whole, own = _skeleton(shown), _skeleton(value)
    if not own or own not in whole:
        return False
    more = whole.replace(own, "", 1).replace("l", "")
    return len(more) >= 2 or (len(more) == 1 and len(own) <= SHORT_VALUE)


def described_by(task: str) -> tuple[list[str], list[str]]:
    """The starts and the ends of a text the task describes by them ("an item that starts with "Au" and ends with
    "lia"")."""
    return [m.group(1) for m in _STARTS_WITH.finditer(task)], [m.group(1) for m in _ENDS_WITH.finditer(task)]


def fits_description(text: str, starts: list[str], ends: list[str]) -> bool:
    """Whether `text` starts with every one of `starts` and ends with every one of `ends`."""
    return all(look_alike(text).startswith(look_alike(x)) for x in starts) and \
        all(look_alike(text).endswith(look_alike(x)) for x in ends)


def shows_chosen(reading: str, chosen: list[str]) -> str | None:
    """Which of `chosen` (suggestions the run clicked) a field's reading shows, its frame's side read before it ("[")
    and its text cursor after it ("|", "]", a letter "l") aside: "[Nigerial" shows "Nigeria"; None for none."""
    bare = without_caret(reading.strip().lstrip("[|(").strip()).strip()
    candidates = (bare, bare[:-1] if look_alike(bare[-1:]) == CARET_READ_AS else bare)
    return next((option for option in chosen if any(same_text(c, option) for c in candidates)), None)


def _alike(shown: str, expected: str) -> bool:
    """Whether a reading is like enough to a value to be OCR's reading of it (at least half its characters in
    order: accents dropped), not another value; a value in another script has nothing to compare by."""
    wanted = _skeleton(expected)
    return not wanted or SequenceMatcher(None, _skeleton(shown), wanted).ratio() >= OCR_ALIKE


def _one_off(shown: str, expected: str) -> bool:
    """One character read as another (same length): how OCR gets a word wrong."""
    a, b = _skeleton(shown), _skeleton(expected)
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b)) <= 1


def _one_extra(shown: str, expected: str) -> bool:
    """One character read where there is none (a field's border taken for a letter at a fractional scale), in a
    value long enough that one more character does not make another short value ("1" and "11")."""
    a, b = _skeleton(shown), _skeleton(expected)
    return len(b) >= 4 and len(a) == len(b) + 1 and any(a[:i] + a[i + 1:] == b for i in range(len(a)))


def _truncated(shown: str, expected: str) -> bool:
    """Whether a field shows only the start of the value (it took fewer characters than it was given)."""
    a, b = _skeleton(shown), _skeleton(expected)
    return bool(a) and len(a) < len(b) and b.startswith(a)


@dataclass
class TypedField:
    """A value typed into a field, with what the field showed just before (`held`) and just after (`shown`)."""

    name: str
    box: Box
    text: str
    held: str = ""
    shown: str | None = None
    replaced: bool = True  # what the field held was selected first (or there was nothing): the value is all of it
    blank_after: bool | None = None  # the field showed no mark right after the typing (its pixels; None: not looked)

    @property
    def document(self) -> bool:
        """A text area taller than a line or two (an editor): it holds more than the value, whose place in it OCR
        cannot pin down."""
        return self.box.height > TEXT_AREA_HEIGHT

    def problem(self, now: str | None) -> str | None:
        """What is wrong with the field showing `now` (None: it is gone), or None. A field gone or emptied (a form
        clears itself on submit; OCR may also run a value into its label and lose it) says nothing either way; nor
        does a document, or a field added to rather than replaced, that shows the value among its other text."""
        if now is None or not now.strip() or same_text(now, self.text) or _skeleton(self.text) == _skeleton(now) != "":
            return None  # gone, emptied, or the value (OCR drops accents: "Cafe Roma" for "Café Roma")
        if self.document or not self.replaced:
            return None if self.document or _skeleton(self.text) in _skeleton(now) else \
                f"{_quote(self.name)} shows {_quote(now)}, which does not hold {_quote(self.text)}"
        leftover = bool(self.held.strip()) and text_key(self.held) in text_key(now)
        if not leftover and not _truncated(now, self.text):
            if self.shown is not None and same_text(self.shown, self.text) and (
                    _one_off(now, self.text) or _one_extra(now, self.text)):
                return None  # read right after the typing, one character off now: OCR's reading, not the app's
            if (self.shown is None or same_text(now, self.shown)) and not self.held.strip() \
                    and not _beside_more(now, self.text) and _alike(now, self.text):
                # an empty field, read as it was right after the typing: what OCR makes of the value (accents,
                # other scripts), not what the app did with it — unless it shows the value beside more ("28" for
                # "8": a "2" OCR had not read before the typing), or nothing like it ("S" for the "L" typed into
                # a list that takes no typing, its "S" unread before)
                return None
        return f"{_quote(self.name)} shows {_quote(now)}, expected {_quote(self.text)}"


def reads_as(reading: str, value: str) -> bool:
    """Whether what a control shows is `value`: as `shows_option`, but a value of one or two letters or digits
    only exactly ("S" is not "M", which one letter read wrong would make it)."""
    return same_text(reading, value) if len(_skeleton(value)) < READABLE else shows_option(reading, value)


def shows_option(reading: str, option: str) -> bool:
    """Whether a drop-down reading `reading` is `option`: OCR may add its arrow as a letter or two, and a drop-down
    narrower than the option shows only its start."""
    if same_text(reading, option) or _one_off(reading, option):
        return True
    a, b = _skeleton(reading), _skeleton(option)
    return bool(b) and (a.startswith(b) and len(a) - len(b) <= 2 or len(a) >= min(len(b), SHOWN_START)
                        and b.startswith(a))


@dataclass
class OpenList:
    """A drop-down list a click opened: its name, the drop-down's box, and the texts the opening brought up."""

    name: str
    box: Box
    brought: frozenset[str]


@dataclass
class Choice:
    """An option clicked in an open list, with what the drop-down showed right after (`shown`); `moved_on` once a
    later submit changed the screen (a form that resets after Submit no longer shows what was chosen)."""

    name: str
    box: Box
    option: str
    shown: str | None
    moved_on: bool = False

    def problem(self, now: str | None) -> str | None:
        for reading in (self.shown, None if self.moved_on else now):
            if reading is not None and reading.strip() and not shows_option(reading, self.option):
                return f"{_quote(self.name)} shows {_quote(reading)}, expected {_quote(self.option)}"
        return None


@dataclass
class GoalTracker:
    """What the run has done that the final screen must show; see the module's docstring."""

    task: str = ""
    secrets: tuple[str, ...] = ()
    said: str = ""  # the task as the user wrote it, where `task` is a reading of it ("save" read as ctrl+s): what it
    # asks to save or confirm is held to it as well
    initial: set[str] = field(default_factory=set)  # texts on the screen when the run began
    first_sliders: list[tuple[Box, str]] = field(default_factory=list)  # the sliders the run began with (where,
    # and the number each showed)
    fields: list[TypedField] = field(default_factory=list)
    toggles: list[tuple[str, Box, bool]] = field(default_factory=list)  # name, box, the state the click gave
    submits: dict[str, bool] = field(default_factory=dict)  # a control's label -> whether its last click changed
    # the screen
    choices: list[Choice] = field(default_factory=list)
    opened: OpenList | None = None  # the drop-down list the last click opened, while it is open
    errors: list[str] = field(default_factory=list)  # error texts that appeared, in order
    typed: list[str] = field(default_factory=list)  # every text typed (not secret), a line each
    unseen: list[str] = field(default_factory=list)  # typed texts the screen did not change for
    unshown: list[str] = field(default_factory=list)  # short typed texts the screen right after did not show whole
    missed: list[str] = field(default_factory=list)  # a button's words clicked where the button was not
    overwritten: list[str] = field(default_factory=list)  # values a later typing into the same field replaced
    pressables: dict[str, Element] = field(default_factory=dict)  # each control seen during the run, by its text
    # (a menu's item, gone with its menu by the end)
    clicked: list[tuple[Point, list[Element]]] = field(default_factory=list)  # where every click landed, with the
    # texts it landed on
    picked: list[str] = field(default_factory=list)  # texts clicked outside a drop-down where the click changed the
    # screen: a list's row, a calendar's day, a menu's item
    entered: bool = False  # whether Enter was pressed (it presses a form's default button), not into an open list
    confirmed: bool = False  # whether a press of OK (or the like) or Enter changed the screen
    saved: bool = False  # whether a step saved: the save keys, a click on Save, Enter while a Save button showed
    wrote: bool = False  # whether any text was typed (secrets included) or pasted
    typed_secret: bool = False  # whether a secret was typed (its value is in no typed text: the agent fills it in)
    acted: bool = False  # whether any action changed the screen (or typed): the run did something to check
    unasked: list[str] = field(default_factory=list)  # radio options the run chose that the task says no word of
    copied: tuple[Box | None, str] | None = None  # the field text was copied from (where seen), and what it showed
    pasted: tuple[Box | None, bool] | None = None  # the field a paste went into (where seen), and whether it changed
    shown: list[str] = field(default_factory=list)  # the first screen's texts, less the task's own words it repeats
    keys: list[str] = field(default_factory=list)  # every key or combination pressed ("escape", "ctrl+c")
    effective: list[str] = field(default_factory=list)  # the texts under each click and the targets clicked, less
    # the page's own copy of the task
    ranked: dict[str, Element] = field(default_factory=dict)  # the controls the task names by rank ("the 2nd
    # checkbox"), as the first screen showed them
    number_screen: list[Element] = field(default_factory=list)  # the last screen that showed a slider or a spin
    # box (a page that moves on at Submit shows none at the end)
    box_screen: list[Element] = field(default_factory=list)  # the last screen that showed a box the task names
    # (a list left open over it, or a dialog closed at OK, shows none at the end)
    _last: Action | None = None
    # the texts before the last click, and where the texts it brought stand, where it brought some (a list it opened)
    _opened_by_last: tuple[set[str], Box] | None = None

    def start(self, elements: list[Element]) -> None:
        self.initial = {text_key(e.text) for e in elements if e.text}
        self.first_sliders = _sliders(elements)
        self._note_number_controls(elements)
        self.shown = [e.text for e in elements if e.text and not self._echoes_task(e.text)]
        self.ranked = {words: element for (family, rank), words in ranked_references(self.task).items()
                       if family in RANKED_CLICKS and (element := nth_of(elements, RANKED_CLICKS[family], rank))}

    def follow(self, action: Action, focus: KeyboardFocus, before: list[Element], after: list[Element],
               changed: bool, selected: bool = False, blank: Blank | None = None) -> None:
        """Note what `action` (just done, with `focus` as it was when it ran, `before` the elements it was done on,
        `after` those of the screen it left) must leave on the screen. `changed`: whether the screen changed;
        `selected`: whether a typed text replaced a selection the agent made first; `blank`: whether a field's box
        shows no mark on the screen it left (pixels)."""
        choosing = self.opened is not None  # Enter now picks the open list's option: it presses no default button
        self._note_number_controls(after)
        for element in (*before, *after):
            if element.role in PRESSABLE and element.text:
                self.pressables.setdefault(text_key(element.text), element)
        if action.kind not in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK):
            self._opened_by_last = None
        if action.kind is ActionKind.TYPE and action.text and not action.secret:
            lines = [line for line in re.split(r"[\n\t]", action.text) if line.strip()]
            self.typed += lines
            if not changed:  # nothing on the screen took the text: it must show by the end, or it went nowhere
                self.unseen += [line for line in lines if len(_skeleton(line)) >= READABLE]  # OCR misses "x"
            elif "\n" not in action.text and "\t" not in action.text and focus.field is not None and \
                    focus.field.height <= TEXT_AREA_HEIGHT and \
                    READABLE <= len(_skeleton(action.text)) <= WHOLE_READING and \
                    not _anywhere(action.text, self._not_the_tasks(action.text, after)):
                # typed into a one-line field (not a document, a calculator or a terminal, which show what they
                # make of the keys): a time field took "12:16" of "12:16 AM" and opened its picker
                self.unshown.append(action.text)
            selected = selected or (self._last is not None and self._last.kind is ActionKind.HOTKEY
                                    and self._last.keys in SELECTING_KEYS)
            self._typed(action.text, focus, before, after, selected, blank)
            if "\n" in action.text:
                self.opened = None  # typed into the open list and entered
        elif action.kind in (ActionKind.CLICK, ActionKind.DOUBLE_CLICK) and action.point is not None:
            hit = elements_at(action.point, before)
            opened, self._opened_by_last = self._opened_by_last, None
            keys_before, keys_after = _text_keys(before), _text_keys(after)
            if opened is not None and changed and keys_after <= opened[0] and 2 * len(keys_after) >= len(opened[0]) \
                    and not opened[1].contains(*action.point):
                # outside what the click before opened, the screen back as it was before that: this click only
                # closed it (a web page's list open over Join took the click meant for Join); a screen that lost
                # most of its texts (a dialog closed at OK) is not back as it was
                self._last = action
                return
            brought = [e.box for e in after if e.text and _skeleton(e.text) in keys_after - keys_before]
            if changed and brought:
                self._opened_by_last = (keys_before, Box(min(b.x0 for b in brought), min(b.y0 for b in brought),
                                                         max(b.x1 for b in brought), max(b.y1 for b in brought)))
            self.clicked.append((action.point, [e for e in hit if e.text]))
            # what the click landed on, and what it was located as ("4": a calculator's key whose glyph no line holds),
            # unless it landed on the page's own copy of the task, which speaks of everything and shows nothing done
            under = [e.text for e in hit if e.text]
            if not under or not all(echoes_task(text, self.task, "") for text in under):
                self.effective += [text for text in [*under, action.target or ""]
                                   if text and not echoes_task(text, self.task, "")]
            toggles = [e for e in hit if e.role in TOGGLE_ROLES and e.checked is not None]
            if toggles and action.kind is ActionKind.CLICK:
                toggle = min(toggles, key=lambda e: e.box.area)
                state = True if toggle.role == "radio" else not toggle.checked
                self.toggles = [t for t in self.toggles if t[1] != toggle.box] + [(toggle.text, toggle.box, state)]
            self._radio_click(action.point, before, changed)
            self._list_click(action, hit, before, after, changed)
            texts = [e for e in hit if e.text and e.role != "dropdown"]
            if changed and texts:
                self.picked.append(min(texts, key=lambda e: e.box.area).text)
            label = next((e.text for e in hit if e.text and SUBMITS.match(e.text)), None)
            if label is not None and not any(e.role in PRESSABLE for e in hit) and any(
                    e.role in PRESSABLE and text_key(e.text) == text_key(label) for e in before):
                self.missed.append(label)  # its words, read off a heading or a title: the button stands elsewhere
            elif label is not None:
                self.submits[label] = changed
                self.saved = self.saved or bool(SAVE_LABEL.match(label))
                for choice in self.choices:
                    choice.moved_on = choice.moved_on or changed
        elif action.kind in (ActionKind.DRAG, ActionKind.RIGHT_CLICK, ActionKind.SCROLL, ActionKind.MOVE) and \
                action.point is not None:
            # what was dragged and where to, what a menu was opened on, scrolled over or hovered: touched, as a
            # click touches
            points = [action.point, *([action.end_point] if action.end_point is not None else [])]
            self.effective += [e.text for point in points for e in elements_at(point, before)
                               if e.text and not echoes_task(e.text, self.task, "")]
        if action.kind in (ActionKind.KEY, ActionKind.HOTKEY) and CLOSING_KEYS & {k.lower() for k in action.keys}:
            self.opened = None  # chosen with the keyboard, or closed: the drop-down's reading says which
        combo = tuple(k.lower() for k in action.keys) if action.kind is ActionKind.HOTKEY else ()
        if combo in COPY_KEYS and focus.field is not None:  # a field's text (not a file, or a selection elsewhere)
            self.copied = (focus.field, field_reading(focus.field, before) or "")
        elif combo in PASTE_KEYS:
            self.pasted = (focus.field, changed)
        keys = {k.lower() for k in action.keys} if action.kind in (ActionKind.KEY, ActionKind.HOTKEY) else set()
        self.keys += ["+".join(action.keys)] if keys else []
        self.acted = self.acted or (changed and action.kind not in (ActionKind.WAIT, ActionKind.MOVE)) or \
            (action.kind is ActionKind.TYPE and bool(action.text))
        self.wrote = self.wrote or (action.kind is ActionKind.TYPE and bool(action.text)) or combo in PASTE_KEYS
        self.typed_secret = self.typed_secret or (action.kind is ActionKind.TYPE and action.secret)
        self.entered = self.entered or not choosing and (bool(keys & ENTER_KEYS) or (
            action.kind is ActionKind.TYPE and "\n" in (action.text or "")))
        self.confirmed = self.confirmed or changed and (bool(keys & ENTER_KEYS) or any(self.submits.values()))
        saving_dialog = any(e.role in PRESSABLE and e.text and SAVE_LABEL.match(e.text) for e in before)
        if (action.kind is ActionKind.TYPE and action.text or combo in PASTE_KEYS) and not saving_dialog:
            self.saved = False  # the document changed after its last save (a file dialog's name is no change)
        entered_lines = (action.text or "").split("\n")[:-1] if action.kind is ActionKind.TYPE else \
            self.typed[-1:] if keys & ENTER_KEYS else []
        redirected = any(REDIRECT.search(line) for line in entered_lines)  # a command run that writes a file
        self.saved = self.saved or combo in SAVE_KEYS or bool(keys & ENTER_KEYS) and saving_dialog or redirected
        self._last = action

    def _note_number_controls(self, elements: list[Element]) -> None:
        if _number_controls(elements):
            self.number_screen = elements
        if named_toggles(self.task, elements):
            self.box_screen = elements

    def _boxes_on(self, elements: list[Element]) -> list[Element]:
        """The screen the boxes the task names are held on: the final one where it shows one of them, else the
        last that did."""
        return elements if named_toggles(self.task, elements) or not self.box_screen else self.box_screen

    def _radio_click(self, point: Point, before: list[Element], changed: bool) -> None:
        """A click that chose a radio option (on its button, or on its label beside it) the task says no word of."""
        radio = radio_at(point, before)
        if radio is None or radio[0].checked is not False or not changed:
            return
        name = radio[1] or radio[0].text
        if name and not says_a_word_of(self.task, name, read=True):
            self.unasked.append(name)

    def _list_click(self, action: Action, hit: list[Element], before: list[Element], after: list[Element],
                    changed: bool) -> None:
        """A click that opens a drop-down list, or picks an option in the one open (or closes it)."""
        lists = [e for e in hit if e.role == "dropdown"]
        opened, self.opened = self.opened, None
        if opened is not None and any(e.box.iou(opened.box) > 0.5 for e in lists):
            return  # a click on the drop-down itself closes its list
        if opened is not None and action.point is not None:
            option = _option_at(action.point, opened, before)
            if option is not None:
                self.choices = [c for c in self.choices if c.box != opened.box]
                self.choices.append(Choice(opened.name, opened.box, option, list_reading(opened.box, after)))
            return
        if lists and changed and action.kind is ActionKind.CLICK:
            box = min(lists, key=lambda e: e.box.area).box
            was = {text_key(e.text) for e in before if e.text}
            self.opened = OpenList(label_of_field(box, before) or "the list", box,
                                   frozenset(text_key(e.text) for e in after if e.text) - was)

    def _typed(self, text: str, focus: KeyboardFocus, before: list[Element], after: list[Element],
               selected: bool, blank: Blank | None) -> None:
        """The field a value went into is the one whose reading the typing changed (the focus the click left is
        the fallback, where grounding saw a field there): a click on a label, or a described target, may name a
        box that is not the field."""
        value = text.split("\n")[0].split("\t")[0]
        if not value:
            return
        fields = [e.box for e in after if e.role in FIELD_ROLES]
        changed = [box for box in fields if field_reading(box, after) != field_reading(box, before)]
        # the focused field as the screen after shows it (its box may have moved a pixel: a focus ring)
        box = changed[0] if len(changed) == 1 else next(
            (b for b in fields if focus.field is not None and (b.iou(focus.field) > 0.5 or
                                                               focus.field.share_in(b) >= INSIDE)), None)
        if box is None:
            return  # typed where no field can be read back
        shown = field_reading(box, after) if "\n" not in text and "\t" not in text else None
        previous = self.fields[-1] if self.fields else None
        blank_after = blank(box) if blank is not None else None
        if (previous is not None and previous.box == box and self._last is not None
                and self._last.kind is ActionKind.TYPE and not self._last.secret):
            previous.text, previous.shown, previous.blank_after = previous.text + value, shown, blank_after
            return
        self.overwritten += [f.text for f in self.fields if f.box == box and not same_text(f.text, value)]
        self.fields = [f for f in self.fields if f.box != box]
        name = label_of_field(box, before) or focus.name or "the field"
        held = field_reading(box, before) or ""
        self.fields.append(TypedField(name if len(name) <= MAX_NAME else "the text area", box, value, held, shown,
                                      selected or not held.strip(), blank_after))

    def look(self, elements: list[Element]) -> str | None:
        """After a step: the first new text on the screen that reads as an error (also kept for `check`)."""
        typed = {text_key(f.text) for f in self.fields}
        for element in elements:
            key = text_key(element.text)
            if element.text and key not in self.initial and key not in typed and ERROR_TEXT.search(element.text) \
                    and not self._echoes_task(element.text):
                if element.text not in self.errors:
                    self.errors.append(element.text)
                return element.text
        return None

    def _evidence(self, held: list[str], elements: list[Element]) -> list[str]:
        """Every text the run's doing or the final screen's fields speak of: what the check held, the texts typed,
        clicked, ticked, chosen, copied and the keys pressed, and what each field and box of the final screen shows
        with its label."""
        labelled = field_labels(elements)
        return [*held, *self.typed, *(self.secrets if self.typed_secret else ()),
                *(typed.name for typed in self.fields), *self.picked, *self.keys,
                *self.effective, *(name for name, _, _ in self.toggles),
                *(f"{choice.name} {choice.option}" for choice in self.choices),
                *(self.copied[1:] if self.copied else ()),
                *(f"{labelled.get(e.box, '')} {field_reading(e.box, elements) or e.text}" for e in elements
                  if e.role in FIELD_ROLES), *(e.text for e in elements if e.role in TOGGLE_ROLES and e.checked)]

    def _echoes_task(self, text: str) -> bool:
        return text_key(text) in text_key(self.task)

    def _not_the_tasks(self, value: str, elements: list[Element]) -> list[Element]:
        """`elements` less the lines of the task's own words that say more than `value` (a page that shows its
        instructions: "Enter 12:16 AM as the time and")."""
        return [e for e in elements if e.text and not (self._echoes_task(e.text) and
                                                       len(_skeleton(e.text)) > len(_skeleton(value)))]

    def _with_unread_values(self, elements: list[Element], blank: Blank, read: Read) -> list[Element]:
        """`elements`, with the value of each field typed into, or drop-down chosen in, that reads empty while its
        pixels show marks read from those marks (a Qt field holding "28" read as empty had passed as holding the "8"
        typed into it; a Tk drop-down's "S", as holding "L")."""
        found = []
        for box, now in [*((t.box, field_reading(t.box, elements)) for t in self.fields),
                         *((c.box, list_reading(c.box, elements)) for c in self.choices)]:
            area = _value_area(box, elements)
            if now is not None and not now.strip() and not blank(area) and (text := read(area)):
                found.append(Element(area, "text", text, source="ocr"))
        return elements + found

    def _misplaced(self, elements: list[Element]) -> str | None:
        """A value typed into a field the task does not name, while the task names another field of the screen
        that got nothing, or gives the value to a place of its own words that the screen shows too ("'USD' for the
        Currency", where grounding read no field of that name, only "CurrencyEUR"): the value went to the wrong
        place. (A place the screen does not show, "for my phone" of a Mobile field, may be that field.)"""
        labelled = field_labels(elements)
        filled = [typed.box for typed in self.fields]
        for typed in self.fields:
            if typed.name == "the text area" or not any(box.iou(typed.box) > 0.5 for box in labelled):
                continue
            other = other_named_field(self.task, typed.name, labelled, filled)
            if other is None:
                places = [place for place in _named_places(self.task) if not says_a_word_of(place, typed.name)
                          and any(_skeleton(place) in _skeleton(e.text) for e in elements
                                  if e.text and not typed.box.contains(*e.center))]
                given = field_values(self.task, [typed.name, *places])
                other = next((place for place in places if typed.name not in given and place in given
                              and same_text(given[place], typed.text)), None)
            if other is not None:
                return (f"{_quote(typed.text)} went into {_quote(typed.name)}, but the task names "
                        f"{_quote(other)}")
        return None

    def _unreplaced(self, elements: list[Element]) -> str | None:
        """For a word the task puts in place of another ("change milk to bread"), where the first screen showed a
        text holding the old word (not the page's own copy of the task): what is wrong where the screen shows none
        of those texts with the word replaced and the rest kept ("buy bread", not "bread" alone)."""
        for found in REPLACING.finditer(self.said or self.task):
            old, new = (found.group(part).strip("\"“”'") for part in ("old", "new"))
            word = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)", re.I)
            wanted = [word.sub(new, text) for text in self.shown if word.search(text)]
            if wanted and not any(_skeleton(text) in _skeleton(e.text) for text in wanted for e in elements
                                  if e.text):
                return f"the task puts {_quote(new)} in place of {_quote(old)}, and the screen shows " \
                       f"{_quote(wanted[0])} nowhere"
        return None

    def _unmet_value(self, elements: list[Element]) -> str | None:
        """A field the task gives a value ('set Amount to 7.99', 'the currency is GBP': planner/field_values.py)
        that the run gave another value, or that shows another at the end, or that reads empty while the value was
        never typed or chosen (a field read empty after the value was typed is OCR's miss, or grounding's: a
        value typed into another field is that field's problem)."""
        labelled = field_labels(elements)
        names = [*labelled.values(), *(typed.name for typed in self.fields)]
        loose = _loose_labels(elements, names)
        texts = [e.text for e in elements if e.text and e.role not in FIELD_ROLES and e.text not in names]
        for label, value in field_values(self.task, [*names, *(e.text for e in loose)], texts).items():
            if PLACEHOLDER.fullmatch(value) or value in self.secrets:
                continue
            if label not in names:
                unmet = self._beside(next(e for e in loose if e.text == label), value, elements)
                if unmet is not None:
                    return unmet
                continue
            found = [e for e in elements if e.role in FIELD_ROLES and labelled.get(e.box) == label]
            typed = [f for f in self.fields if f.name == label or any(f.box.iou(e.box) > 0.5 for e in found)]
            if typed:
                if typed[-1].text.removesuffix("\n") not in (value, value.rstrip(".,;:!?")):
                    # what was typed is the run's own text, not a reading, held to the task's letter for letter:
                    # "44 20 7946" is not "+44 20 7946", " Metro Taxi" not "Metro Taxi"
                    return (f"the task gives {_quote(value)} for {_quote(label)}, but {_quote(typed[-1].text)} went "
                            "into it")
                now = field_reading(typed[-1].box, elements)
                if not typed[-1].replaced and replaces(self.task) and now and now.strip() and \
                        not (same_text(now, value) or _skeleton(now) == _skeleton(value)):
                    # typed beside what the field held ("8" and "5" made "85"): the task gave the whole value
                    return f"{_quote(label)} shows {_quote(now)}, expected {_quote(value)}"
                continue  # what the field shows of it is the typed value's own check
            if not found:
                continue  # gone with its dialog, or the app moved on: nothing to read
            if any(c.box.iou(found[0].box) > 0.5 and reads_as(c.option, value) for c in self.choices):
                continue
            now = list_reading(found[0].box, elements) or ""
            if reads_as(now, value):
                continue
            if found[0].role == "dropdown":  # typing is no choice: a Tk or GTK list that is no field ignores keys
                given = any(same_text(text, value) for text in self.picked) or any(
                    c.box.iou(found[0].box) > 0.5 for c in self.choices)
            else:
                given = any(same_text(line, value) for line in self.typed)
            if not now.strip() and given:
                continue  # read empty after the value was given to it: OCR's miss of a short value
            if not now.strip() and found[0].role == "dropdown":
                return (f"the task gives {_quote(value)} for {_quote(label)}, which no step chose, and what it "
                        "shows cannot be read")
            return (f"the task gives {_quote(value)} for {_quote(label)}, which shows "
                    f"{_quote(now) if now.strip() else 'nothing'}")
        return None

    def _unchosen(self, value: str, elements: list[Element]) -> bool:
        """Whether an option the task asks to choose with no list named, and that the first screen showed, has no
        evidence of its choosing: no click on it that changed the screen, no choice of it in a list, no toggle of
        its name ticked, no click on a control of its name, no drop-down showing it, no new text saying it, not
        typed. (An option the first screen did not show, "the cheaper plan", is the other checks' to judge.)"""
        wanted = _skeleton(value)
        if len(wanted) < READABLE or not any(wanted in _skeleton(text) for text in self.initial):
            return False
        ticked = [name for toggle, name, _ in toggle_names(elements) if toggle.checked]
        ticked += [name for name, _, state in self.toggles if state and name]
        return not (any(same_text(text, value) for text in (*self.picked, *ticked, *self.typed))
                    or any(shows_option(c.option, value) for c in self.choices)
                    or any(_clicked_on(value, point, e) for point, hit in self.clicked for e in hit)
                    or any(e.role == "dropdown" and e.text and wanted in _skeleton(e.text) for e in elements)
                    or any(e.text and wanted in _skeleton(e.text) and text_key(e.text) not in self.initial
                           and e.role not in OPTION_ROLES for e in elements))

    def _beside(self, label: Element, value: str, elements: list[Element]) -> str | None:
        """For a label the task gives a value whose field grounding did not find (a drop-down it missed, a radio
        group's title): the run chose that value in a list or typed it into a field on the label's row, or something
        on the label's row right of it shows it (and where that is a radio button's or check box's name, it is
        ticked); else what is wrong."""
        def beside(box: Box) -> bool:
            return box.x1 >= label.box.x1 and abs(box.center.y - label.box.center.y) <= label.box.height

        typed = any(same_text(line, value) for line in self.typed)
        if any(reads_as(c.option, value) for c in self.choices) or any(
                same_text(f.text, value) and beside(f.box) for f in self.fields) or \
                (typed and value in task_values(self.task)):
            return None  # chosen in a list the run opened, typed into a field on the label's row, or typed as the
            # task says to type it ("type "250" into Amount"); typed into another field is no evidence
        row = [e for e in elements if e.text and e is not label and e.box.x0 >= label.box.x1 - 2 and
               abs(e.box.center.y - label.box.center.y) <= label.box.height]
        options = {text_key(name): toggle for toggle, name, _ in toggle_names(elements) if toggle.checked is not None}
        for shown in (e for e in row if reads_as(e.text, value)):
            option = options.get(text_key(shown.text))
            if option is None or option.checked:
                return None  # shown as the value, or as an option that is chosen
            return f"the task gives {_quote(value)} for {_quote(label.text)}, and that option is not chosen"
        return f"the task gives {_quote(value)} for {_quote(label.text)}, which nothing beside it shows"

    def _toggle_not_as_asked(self, elements: list[Element], earlier: bool = False) -> str | None:
        """A check box or radio button the task names by a word of its own that shows the other state than the
        task asks: ticked, unless the clause naming it says no ("untick", "don't", "no", "without", ...). On an
        `earlier` screen than the final one, only boxes no step touched: a click's own record holds the others (a
        GTK list's selected row hides its box's state from the pixels)."""
        labels = toggle_labels(elements) if earlier else {}
        for toggle, name in named_toggles(self.task, elements):
            if toggle.checked is None or earlier and self._touched(toggle, name, elements, labels):
                continue
            wanted = asked_state(self.task, toggle, name)
            if toggle.checked is not wanted:
                return f"the task asks for {_quote(name)} {'ticked' if wanted else 'unticked'}, which it is not"
        return None

    def _untouched_box(self, elements: list[Element]) -> str | None:
        """A check box the task names by a word of its label that nothing else on the screen says (five letters
        or more: "newsletter" of "get the newsletter"), which no step ticked or unticked and which does not show
        the state the task asks: what the task asked of it was not done (one whose state cannot be read fails too:
        an honest failure; one that shows the state asked needed nothing, as "check Remember me" of a box already
        ticked). A click on the box or its label touched it, where grounding missed the box at the time of the
        click."""
        labels = toggle_labels(elements)
        for box, name in named_toggles(self.task, elements):
            if box.checked is not None and box.checked is asked_state(self.task, box, name):
                continue
            if box.role == "checkbox" and box.text and not self._touched(box, name, elements, labels):
                return name
        return None

    def _touched(self, toggle: Element, name: str, elements: list[Element], labels: dict[int, Box]) -> bool:
        """Whether a step ticked or unticked `toggle`, or clicked it or its label (`labels`: toggle_labels of
        `elements`; grounding may have missed the box at the time of the click)."""
        areas = [toggle.box, labels.get(id(toggle), toggle.box),
                 *(e.box for e in elements if e.text and text_key(e.text) == text_key(name))]  # its label read apart
        return any(box.iou(toggle.box) > 0.5 for _, box, _ in self.toggles) or \
            any(area.contains(*point) for area in areas for point, _ in self.clicked)

    def _paste_problem(self, elements: list[Element]) -> str | None:
        """A text copied from one field and pasted into another: the field copied from showed text, the paste went
        into another field, changed the screen, and that field shows the text at the end (a paste of what the
        clipboard held before, or of nothing, passes for nothing)."""
        if self.pasted is None:
            return None
        into, changed = self.pasted
        if not changed:
            return "the paste changed nothing on the screen"
        if self.copied is None:
            return None  # the clipboard's own text, from before the run: nothing to hold it to
        source, text = self.copied
        if not text.strip():
            return "the field copied from showed no text"
        if into is not None and source is not None and into.iou(source) > 0.5:
            return "the text was pasted back into the field it was copied from"
        now = field_reading(into, elements) if into is not None else None
        if now is not None and not (_alike(now, text) or _skeleton(text)[:READABLE * 4] in _skeleton(now)):
            return f"the field pasted into shows {_quote(now)}, not the text copied ({_quote(text)})"
        return None

    def _described_text_missing(self, readings: list[str], starts: list[str], ends: list[str], fitting: list[str]
                                ) -> str | None:
        """Where the task describes a text by its start or end (`starts`, `ends`): unless a line typed is such a text
        whole, or a field shows one the run chose from suggestions, what is wrong (a field showing "Australialia",
        "Australia" chosen and "lia" typed after it, fits the words but is no item). `fitting`: the suggestions the
        run chose that fit."""
        if (starts or ends) and not any(fits_description(text, starts, ends) for text in self.typed) and \
                not any(shows_chosen(text, fitting) for text in readings):
            wanted = " and ".join([f"starts with {_quote(x)}" for x in starts] +
                                  [f"ends with {_quote(x)}" for x in ends])
            return f"the task asks for a text that {wanted}; no field shows one and none was typed"
        return None

    def list_in_the_way(self, point: Point, elements: list[Element]) -> bool:
        """Whether the drop-down list the last click opened still shows on `elements` (texts its opening brought
        up) and a click at `point` lands neither on one of its options nor on the drop-down: toolkits spend such a
        click on closing the list (a Qt form's Hours per week never got the focus, and the "2" typed next went
        nowhere)."""
        opened = self.opened
        if opened is None or opened.box.contains(*point):
            return False
        return any(e.text and text_key(e.text) in opened.brought for e in elements) and \
            _option_at(point, opened, elements) is None

    def caret_doubt(self, elements: list[Element]) -> bool:
        """Whether a field shows its value and that value ends in a letter the text cursor is read as: the field
        may hold the value less its last letter ("Metro Tax", the cursor read as the "i" of "Metro Taxi")."""
        return any(_skeleton(typed.text).endswith(CARET_READ_AS) and (now := field_reading(typed.box, elements))
                   and typed.problem(now) is None for typed in self.fields)

    def caret_excess(self, elements: list[Element]) -> bool:
        """Whether a field shows its value and one letter more that the text cursor after it is read as ("Adal" for
        "Ada"): a frame with the cursor off would show the value alone."""
        return any((now := field_reading(typed.box, elements))
                   and _skeleton(now) == _skeleton(typed.text) + CARET_READ_AS for typed in self.fields)

    def check(self, elements: list[Element], blank: Blank | None = None, read: Read | None = None) -> GoalCheck:
        """Every expectation against the final screen's `elements`; `blank` says whether a field's box shows no
        mark on that screen (pixels: a value of a character or two OCR does not read), and `read` reads such marks
        where a field typed into reads empty but is not blank."""
        if blank is not None and read is not None:
            elements = self._with_unread_values(elements, blank, read)
        held: list[str] = []
        error = self.look(elements) or next((e for e in self.errors if _shown(e, elements)), None)
        if error is not None:
            return GoalCheck(False, tuple(held), f"the screen shows {_quote(error)}")
        starts, ends = described_by(self.task)
        invented = next((line for line in self.typed if not said_in(line, self.task) and not (
            (starts or ends) and fits_description(line, starts, ends))), None)
        if invented is not None:
            return GoalCheck(False, tuple(held), f"{_quote(invented)} was typed, but the task does not say it")
        names = {text_key(name) for name in names_acted_on(self.task)}
        misused = next((line for line in self.typed if text_key(line) in names), None)
        if misused is not None:
            return GoalCheck(False, tuple(held), f"{_quote(misused)} was typed, but the task names it as a control "
                                                 "to tick or click, not a value")
        readings = [reading for reading in (field_reading(e.box, elements) for e in elements if e.role in FIELD_ROLES)
                    if reading and reading.strip()]
        if not self.wrote and not task_values(self.task) and asks_to_type(self.task) and not any(
                said_in(reading, self.task) for reading in readings):
            return GoalCheck(False, tuple(held), "the task asks to type something, no step typed anything, and no "
                                                 "field shows what it says")
        chosen = [text for text in self.picked if fits_description(text, starts, ends)]  # suggestions that fit
        described = self._described_text_missing(readings, starts, ends, chosen)
        if described is not None:
            return GoalCheck(False, tuple(held), described)
        for value in self.unseen:  # nor does the page's own copy of the task ('enter the name "Enola"'), or a text
            # the first screen showed already (a table the value was read from, where the typing went nowhere)
            showing = [e for e in self._not_the_tasks(value, elements) if e.role in FIELD_ROLES
                       or text_key(e.text) not in self.initial]
            if not _anywhere(value, showing):
                return GoalCheck(False, tuple(held), f"{_quote(value)} was typed, but nothing on the screen took "
                                                     "it and the screen does not show it")
        fresh = [e for e in elements if text_key(e.text) not in self.initial]  # what the first screen did not show
        for value in self.overwritten:  # shown since, in a text the first screen did not show: it went somewhere
            if value in task_values(self.task) and not _anywhere(value, fresh):
                return GoalCheck(False, tuple(held), f"{_quote(value)} was typed, then typed over in the same field")
        for label in self.missed:
            if label not in self.submits:
                return GoalCheck(False, tuple(held), f"the click meant for {_quote(label)} landed on its words "
                                                     "elsewhere, not on the button")
        unpasted = self._paste_problem(elements)
        if unpasted is not None:
            return GoalCheck(False, tuple(held), unpasted)
        misplaced = self._misplaced(elements)
        if misplaced is not None:
            return GoalCheck(False, tuple(held), misplaced)
        boxes = self._boxes_on(elements)  # the screen the task's boxes are held on
        untouched = self._untouched_box(boxes)
        if untouched is not None:
            return GoalCheck(False, tuple(held), f"the task names {_quote(untouched)}, which no step ticked or "
                                                 "unticked")
        for typed in self.fields:
            now = field_reading(typed.box, elements)
            if (starts or ends) and now and shows_chosen(now, chosen):
                held.append(f"{_quote(typed.name)} shows {_quote(now)}")  # the start typed, a suggestion chosen
                continue
            problem = typed.problem(now)
            if problem is None and typed.blank_after and now is not None and not now.strip() and blank is not None \
                    and blank(typed.box):  # empty right after the typing and still: the value never landed there
                problem = f"{_quote(typed.text)} was typed, but {_quote(typed.name)} stayed empty"
            if problem is not None:
                return GoalCheck(False, tuple(held), problem)
            if now is not None and now.strip():  # gone (its dialog closed) or unread: no evidence to claim
                held.append(f"{_quote(typed.name)} shows {_quote(typed.text)}")
        for value in self.unshown:
            if not _anywhere(value, self._not_the_tasks(value, elements)):
                return GoalCheck(False, tuple(held), f"{_quote(value)} was typed, but the screen showed it whole "
                                                     "neither right after nor at the end")
        for value in task_clicks(self.task):
            if len(_skeleton(value)) < READABLE:
                continue  # "x" of "click the "x"" is too short for OCR to be sure of
            if not any(_clicked_on(value, point, e) for point, hit in self.clicked for e in hit):
                return GoalCheck(False, tuple(held), f"the task says to click {_quote(value)}, which no step did")
            held.append(f"{_quote(value)} was clicked")
        for words, control in self.ranked.items():
            final = next((e for e in elements if e.role == control.role and e.box.iou(control.box) > 0.5), None)
            ticked = control.role in TOGGLE_ROLES and final is not None and final.checked is True and \
                control.checked is not True
            if not ticked and not any(control.box.padded(RANK_SLACK).contains(*point) for point, _ in self.clicked):
                return GoalCheck(False, tuple(held), f"the task names {_quote(words)}, which no step clicked")
            held.append(f"{_quote(words)} was clicked")
        shown = {text_key(e.text) for e in elements if e.text}
        controls = [*((e, False) for e in elements),  # and those seen during the run, gone by the end
                    *((e, True) for key, e in self.pressables.items() if key not in shown)]
        asked = [] if self.entered else [e for e, gone in controls if e.role in PRESSABLE and e.text
                                         and asked_to_press(self.task, e.text, whole=gone)]
        unpressed = next((e.text for e in asked if not any(_pressed(e, point, texts)
                                                           for point, texts in self.clicked)), None)
        if unpressed is not None:
            return GoalCheck(False, tuple(held), f"the task says to press {_quote(unpressed)}, which no step did")
        held += [f"{_quote(e.text)} was pressed" for e in asked]
        if (asks_to_confirm(self.task) or asks_to_confirm(self.said)) and not self.confirmed:
            return GoalCheck(False, tuple(held), "the task asks to confirm, and no press of OK (or the like) or "
                                                 "Enter changed the screen")
        if any(SAVING.search(QUOTED.sub(" ", task)) for task in (self.task, self.said)) and not self.saved:
            return GoalCheck(False, tuple(held), "the task asks to save, and no step saved after the last change (the "
                                                 "save keys, Save or Save As, or Enter in a file dialog)")
        made = MAKING.search(self.task)
        name = made.group("name").rstrip(".") if made else ""
        if made and not _anywhere(name, [e for e in fresh if e.role not in FIELD_ROLES]):
            return GoalCheck(False, tuple(held), f"the task asks to make {_quote(name)}, which the screen shows "
                                                 "nowhere new but in a text field")
        shown_numbers = [e.text.strip().rstrip(".") for e in fresh if e.role not in PRESSABLE and e.text
                         and NUMBER_SHOWN.fullmatch(e.text.strip())]
        for line in self.typed:
            result = solve(line) if SUM_TYPED.match(line) else None
            if result is not None and len(result.partition(".")[2]) < DECIMALS and shown_numbers \
                    and result not in shown_numbers:
                return GoalCheck(False, tuple(held), f"{_quote(line)} was typed, and the screen shows "
                                                     f"{_quote(shown_numbers[-1])}, not its result {_quote(result)}")
        for value in task_values(self.task):
            if value in self.secrets or any(same_text(line, value) for line in self.typed):
                continue
            inside = next((line for line in self.typed if look_alike(value) in look_alike(line)), None)
            if inside is not None:
                return GoalCheck(False, tuple(held), f"{_quote(value)} was typed inside a longer text "
                                                     f"({_quote(inside)}), not as the value")
            if not any(_skeleton(value) and _skeleton(value) in _skeleton(e.text) for e in elements if e.text):
                return GoalCheck(False, tuple(held), f"{_quote(value)} was never typed and is not on the screen")
        if self.opened is not None:
            still = next((e.text for e in elements if e.text and text_key(e.text) in self.opened.brought), None)
            if still is not None:
                return GoalCheck(False, tuple(held), f"the {_quote(self.opened.name)} list is still open "
                                                     f"(it shows {_quote(still)})")
        for choice in self.choices:
            now = list_reading(choice.box, elements)
            problem = choice.problem(now)
            if problem is not None:
                return GoalCheck(False, tuple(held), problem)
            if any(reading and reading.strip() for reading in (choice.shown, now)):
                held.append(f"{_quote(choice.name)} shows {_quote(choice.option)}")
        for value in task_choices(self.task):
            if any(shows_option(c.option, value) for c in self.choices) or \
                    any(same_text(p, value) for p in self.picked):
                continue
            # shown by a drop-down, or by a text that was not there at the start (a label of the same words was)
            if not any(_skeleton(value) and _skeleton(value) in _skeleton(e.text) and (
                    e.role == "dropdown" or text_key(e.text) not in self.initial) for e in elements
                       if e.text and e.role not in OPTION_ROLES):
                return GoalCheck(False, tuple(held), f"{_quote(value)} was never chosen and is not on the screen")
        unchosen = next((value for value in bare_choices(self.task) if self._unchosen(value, elements)), None)
        if unchosen is not None:
            return GoalCheck(False, tuple(held), f"the task says to choose {_quote(unchosen)}, and nothing on the "
                                                 "screen shows it chosen")
        unmet = self._unmet_value(elements) or self._unreplaced(elements)
        if unmet is not None:
            return GoalCheck(False, tuple(held), unmet)
        for name, box, state in self.toggles:
            seen = [e for e in elements if e.role in TOGGLE_ROLES and e.checked is not None
                    and e.box.iou(box) > 0.5]
            if seen and seen[0].checked is not state:
                what = "ticked" if state else "unticked"
                return GoalCheck(False, tuple(held), f"{_quote(name or 'the box')} is not {what}")
            if seen:
                held.append(f"{_quote(name or 'the box')} is {'ticked' if state else 'unticked'}")
        wrong = self._toggle_not_as_asked(boxes, earlier=boxes is not elements)
        if wrong is not None:
            return GoalCheck(False, tuple(held), wrong)
        if self.unasked:  # the demo app's "Use yellow as the colour" also chose the size Small
            return GoalCheck(False, tuple(held), f"{_quote(self.unasked[0])} was chosen, and the task says nothing "
                                                 "of it")
        for label, changed in self.submits.items():
            if not changed:
                return GoalCheck(False, tuple(held), f"clicking {_quote(label)} changed nothing on the screen")
            held.append(f"clicking {_quote(label)} had an effect")
        numbers_on = elements if _number_controls(elements) else self.number_screen
        goals = number_goals(self.task, numbers_on)
        for control, _, wanted, kind in goals:
            if shown_number(control.text) != wanted:
                return GoalCheck(False, tuple(held), f"{kind} shows {_quote(control.text or 'no number')}, and the "
                                                     f"task asks for {wanted:g}")
            held.append(f"{kind} shows {control.text}")
        if not goals and self.first_sliders and SLIDER_WORDS.search(QUOTED.sub(" ", self.task)):
            # a slider the task asks to move by no number ("to its maximum", "all the way up"): it must have moved
            if _sliders(numbers_on) == self.first_sliders:
                return GoalCheck(False, tuple(held), "the task asks to move the slider, and it shows what it showed "
                                                     "at the start")
            held.append("the slider moved")
        part, concretes = coverage(self.task, self._evidence(held, elements), [*self.shown, *(
            e.text for e in elements if e.text and not self._echoes_task(e.text))])
        if (part is not None or not concretes) and not self.acted and not held and asks_to_act(self.task):
            return GoalCheck(False, (), "the task asks for something to be done, no step changed the screen, and "
                                        "nothing on it shows the task done")
        if part is not None:
            return GoalCheck(False, tuple(held), f"the task asks to {_quote(part)}, and nothing the run did or the "
                                                 "screen shows speaks of it")
        return GoalCheck(True, tuple(held), None)


def _sliders(elements: list[Element]) -> list[tuple[Box, str]]:
    """Each slider of the screen: where it is found (its handle, where pixels found it) and the number it shows."""
    return sorted((e.box, e.text) for e in elements if e.role == "slider")


def _number_controls(elements: list[Element]) -> bool:
    """Whether the screen shows a slider or a spin box."""
    return any(e.role == "slider" for e in elements) or bool(spin_boxes(elements))


def field_reading(box: Box, elements: list[Element]) -> str | None:
    """The text a field at `box` shows now, or None when no field is there any more."""
    fields = [e for e in elements if e.role in FIELD_ROLES and e.box.iou(box) > 0.5]
    inside = sorted((e for e in elements if e.text and e.role == "text" and e.box.share_in(box) >= INSIDE),
                    key=lambda e: (e.box.y0 // 8, e.box.x0))
    if not fields and not inside:
        return None
    return without_caret(" ".join(e.text for e in inside))  # a field's own name is its label, not what it holds


def _option_at(point: Point, opened: OpenList, elements: list[Element]) -> str | None:
    """The option of the open list a click at `point` picked: the text the opening brought up on the click's row
    (a list's row is wider than its text), else an item of the list under the pointer; None for a click elsewhere."""
    options = [e for e in elements if e.text and in_its_list(e.box, opened.box)
               and (e.role in OPTION_ROLES or text_key(e.text) in opened.brought)]
    if not options or not opened.box.x0 <= point.x <= max(opened.box.x1, *(e.box.x1 for e in options)):
        return None  # beside the list: a click another window's texts stood under (a Qt list closed by it)
    row = [e for e in options if e.role == "text" and e.box.y0 <= point.y <= e.box.y1]
    if row:
        return min(row, key=lambda e: abs(e.center.x - point.x)).text
    under = [e for e in options if e.box.contains(*point)]
    return min(under, key=lambda e: e.box.area).text if under else None


def in_its_list(option: Box, dropdown: Box) -> bool:
    """Whether a text at `option` stands where the open list of the drop-down at `dropdown` shows its options:
    outside the drop-down, across its width (a list opens aligned with its drop-down, below or over it)."""
    return not dropdown.contains(*option.center) and option.x0 < dropdown.x1 and option.x1 > dropdown.x0


def _value_area(box: Box, elements: list[Element]) -> Box:
    """Where a field shows its value: a drop-down's box less its arrow (its right end, as wide as it is tall, whose
    ink made a "S" beside it unreadable), any other field's whole box."""
    if any(e.role == "dropdown" and e.box.iou(box) > 0.5 for e in elements) and box.width > 2 * box.height:
        return Box(box.x0, box.y0, box.x1 - box.height, box.y1)
    return box


def list_reading(box: Box, elements: list[Element]) -> str | None:
    """What a drop-down at `box` shows now (its accessible value, else the text in its box), or None when gone."""
    named = [e for e in elements if e.role == "dropdown" and e.text and e.box.iou(box) > 0.5]
    return named[0].text if named else field_reading(box, elements)


def field_labels(elements: list[Element]) -> dict[Box, str]:
    """The fields of the screen and their labels (a window title's path is no label)."""
    return {e.box: label for e in elements if e.role in FIELD_ROLES
            and not PATH.search(label := label_of_field(e.box, elements) or "")}


def other_named_field(task: str, label: str, labelled: dict[Box, str], filled: list[Box]) -> str | None:
    """Where a field labelled `label` is one the task does not name, the label of another field of `labelled`
    that the task names in its own words (not in the values it quotes: 'save it as "qt.txt"') and that nothing
    was typed into (`filled`); else None."""
    said = set(WORD.findall(QUOTED.sub(" ", task.lower()))) - COMMON_TASK_WORDS

    def named(text: str) -> bool:
        return bool(set(WORD.findall(text.lower())) & said)

    if named(label):
        return None
    return next((other for box, other in labelled.items() if named(other)
                 and not any(box.iou(done) > 0.5 for done in filled)), None)


def _loose_labels(elements: list[Element], names: list[str]) -> list[Element]:
    """Short lines of text that may label a control grounding did not find: not a field's label (`names`), not a
    check box's or radio button's name, not inside a control."""
    controls = [e.box for e in elements if e.role != "text"]
    toggles = {name for _, name, _ in toggle_names(elements)}
    return [e for e in elements if e.role == "text" and e.text and len(e.text.split()) <= 4 and e.text not in names
            and e.text not in toggles and not any(box.contains(*e.center) for box in controls)]


def toggle_names(elements: list[Element]) -> list[tuple[Element, str, Box]]:
    """The check boxes and radio buttons of the screen with their names (their own text, else the label beside
    them) and where that label stands (the toggle's own box where it has its text)."""
    toggles = [e for e in elements if e.role in TOGGLE_ROLES]
    named = {id(e): (e.text, e.box) for e in toggles if e.text}
    found = [(label, toggles[index]) for label in elements if label.role == "text" and label.text
             and (index := toggle_for_label(label.box, [t.box for t in toggles])) is not None]
    # first the labels right of their toggle (the usual way), then those left of one: a radio group's title
    # just before its first option is not that option's name
    for label, toggle in sorted(found, key=lambda pair: pair[1].box.x0 > pair[0].box.x0):
        if id(toggle) not in named:
            named[id(toggle)] = (label.text, label.box)
    return [(t, *named[id(t)]) for t in toggles if id(t) in named]


def toggle_labels(elements: list[Element]) -> dict[int, Box]:
    """Where each named check box's or radio button's label stands (toggle_names), by the toggle's id."""
    return {id(toggle): label for toggle, _, label in toggle_names(elements)}


def named_toggles(task: str, elements: list[Element]) -> list[tuple[Element, str]]:
    """The check boxes and radio buttons the task names by a word of their own: a word of DISTINCT letters or more
    of the name that the task says and no other text on the screen says ("newsletter" of "get the newsletter" for
    "Subscribe to newsletter"; not "save", which the Save button says too), or by their whole name of two words or
    more that no other text on the screen holds ("Has a car", whose words are all short; the same name read again,
    "Has acar" by OCR beside the accessibility tree's "Has a car", is no other text)."""
    said = set(WORD.findall(task.lower()))
    found = []
    for toggle, name, _ in toggle_names(elements):
        key = text_key(name)
        others = {w for e in elements if e.text and text_key(e.text) != key for w in WORD.findall(e.text.lower())}
        if any(len(w) >= DISTINCT and w in said and w not in others for w in WORD.findall(key)) or (
                _says_whole(task, name) and not any(e.text and _skeleton(e.text) != _skeleton(name)
                                                    and _says_whole(e.text, name) for e in elements)):
            found.append((toggle, name))
    return found


def asked_state(task: str, toggle: Element, name: str) -> bool:
    """The state the task asks of a check box or radio button it names (named_toggles): ticked, unless the clause
    naming it says no ("untick", "don't", "no", "without", ...), or a bare no follows it ("billable to client, no");
    a radio button is only ever chosen."""
    own = {w for w in WORD.findall(name.lower()) if len(w) >= DISTINCT}
    clauses = [c.strip() for c in CLAUSE.split(task.lower())]
    at = next((i for i, c in enumerate(clauses) if own & set(WORD.findall(c)) or _says_whole(c, name)), None)
    if at is None or toggle.role != "checkbox":
        return True
    answered = clauses[at + 1] if at + 1 < len(clauses) else ""  # "billable to client, no": the answer after it
    return not (NEGATION.search(clauses[at]) or BARE_NO.match(answered))


def _says_whole(text: str, name: str) -> bool:
    """Whether `text` says all of a name of two words or more, in order; or says, as two words or more, a name OCR
    read with spaces dropped ("Hasacar" or "Has acar" for the "Has a car" box)."""
    words = WORD.findall(name.lower())
    if len(words) >= 2 and re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", text.lower()):
        return True
    squashed = _skeleton(name)
    if not words or len(squashed) < DISTINCT:
        return False
    said = [_skeleton(word) for word in WORD.findall(text.lower())]
    for start in range(len(said)):
        run = said[start]
        for end in range(start + 1, len(said)):
            run += said[end]
            if len(run) >= len(squashed):
                if run == squashed:
                    return True
                break
    return False


def _clicked_on(value: str, point: Point, element: Element) -> bool:
    """Whether a click at `point` on `element` was a click on `value`: the element reads as it, or the value's words
    stand in its text where the click landed (OCR runs a link into the words beside it: "auctor.Eget"; each
    character placed by its share of the box's width, with half the box's height of slack)."""
    if _skeleton(element.text) == _skeleton(value) or _one_off(element.text, value):
        return True
    wanted = look_alike(value).strip(" .,;:!?")
    start = look_alike(element.text).find(wanted)
    if not wanted or start < 0:
        return False
    span = element.box.text_span(len(element.text), start, start + len(wanted))
    slack = element.box.height / 2
    return span.x0 - slack <= point.x <= span.x1 + slack


def _text_keys(elements: list[Element]) -> set[str]:
    """The screen's texts as OCR reads them reliably (`_skeleton`): a frame's side read with a value ("[Garden") or a
    word read again apart are the same text."""
    return {key for e in elements if e.text and (key := _skeleton(e.text))}


def _pressed(control: Element, point: Point, hit: list[Element]) -> bool:
    """Whether a click at `point`, which landed on the texts `hit` as the screen then was, pressed `control` (as the
    final screen shows it): it landed on the control's words, or inside its box with nothing else drawn over it
    then (a time picker's "12" open over Submit took the click, not Submit)."""
    if any(_clicked_on(control.text, point, e) for e in hit):
        return True
    box = control.box
    return box.contains(*point) and all(e.box.x0 <= box.x0 and e.box.y0 <= box.y0 and e.box.x1 >= box.x1
                                        and e.box.y1 >= box.y1 for e in hit)  # only what holds it, a panel


def radio_at(point: Point, elements: list[Element]) -> tuple[Element, str] | None:
    """The radio button a click at `point` chooses, with its name: on the button, or on its label beside it (read
    with the button, or as a text of its own)."""
    radios = [e for e in elements if e.role == "radio"]
    for toggle, name, label in toggle_names(elements):
        if toggle.role == "radio" and (toggle.box.contains(*point) or label.contains(*point)):
            return toggle, name
    for text in elements:
        if text.role == "text" and text.text and text.box.contains(*point) and \
                (index := toggle_for_label(text.box, [r.box for r in radios])) is not None:
            return radios[index], radios[index].text or text.text
    return None


def says_a_word_of(task: str, name: str, read: bool = False) -> bool:
    """Whether the task says a word of three letters or more of `name`; where `name` is as OCR `read` it, with
    look-alikes folded, or with its letters run together ("Ownmoney" for "Own money")."""
    fold = (lambda word: look_alike(word).lower()) if read else str.lower
    said = {fold(word) for word in WORD.findall(task)}
    return any(len(word) >= READABLE and fold(word) in said for word in WORD.findall(name)) or \
        read and _skeleton(name).lower() in _skeleton(task).lower()


def _shown(text: str, elements: list[Element]) -> bool:
    return any(e.text == text for e in elements)


def _anywhere(text: str, elements: list[Element]) -> bool:
    """Whether some element's text holds `text` (read loosely: OCR drops spaces and confuses look-alikes; a text
    of one or two characters must be a whole element's text)."""
    wanted = _skeleton(text)
    if len(wanted) < 3:
        return any(wanted and _skeleton(e.text) == wanted for e in elements if e.text)
    return bool(wanted) and any(wanted in _skeleton(e.text) for e in elements if e.text)


def text_key(text: str) -> str:
    """Lower case, single spaces: how two readings of a text are compared."""
    return " ".join(text.lower().split())


def _quote(text: str) -> str:
    text = text if len(text) <= 80 else text[:79] + "…"
    return '"' + text.replace('"', "'") + '"'

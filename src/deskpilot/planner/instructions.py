"""Plain imperative instructions -> a list of Actions with target descriptions, no model needed.

    Click "Save"; double-click the Report.txt icon; type "Ada Lovelace" into Full name; press ctrl+s;
    select "Blue" from Colour then click OK; check "Remember me"; scroll down 3 times; wait 2 seconds;
    Enter the username "x" and the password "y" into the text fields and press login.
    Focus into the 2nd text field; close the dialog by clicking "x"; expand the section.
    Save the file as "notes.txt" in Documents; select all the text with ctrl+a; press Down twice; answer No.
    Pick "GBP" from Currency, then without gift wrap (a clause that says "without X" or "with no X" unticks X).
    Enable dark mode, turn the newsletter off, disable Has a car (enable / turn on: tick; disable / turn off: untick).

Clauses are joined by `then`, `and`, commas, semicolons or full stops; a clause with no verb of its own
("... and the password "y" ...") continues the previous verb. Anything else is a PlannerError, never a guess.
A benchmark's rule pack (core.rule_packs), when a harness turns one on, adds its own clauses: a case for the typed
text, a value for two fields, tabs to look through, a clause that asks for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.errors import PlannerError
from deskpilot.core.keys import is_key_combo, split_combo
from deskpilot.core.rule_packs import active
from deskpilot.core.secrets import is_secret_label
from deskpilot.core.task_text import LETTER_CASE, in_case, letter_case
from deskpilot.grounding.description import parse_description, role_words

HELP = ('I understand: click/double-click/right-click X, type "text" into FIELD, enter the FIELD "text", '
        'press KEYS [N times], select "X" from LIST, check/uncheck X, focus X, expand X, scroll up/down [N times], '
        'wait N seconds, hover over X, drag X to Y, save as "NAME" [in FOLDER], '
        'rename X to "NAME", set FIELD to VALUE, create a new folder named "NAME", run the command "CMD", '
        'save/copy/paste/undo, copy all the text, confirm, DO X with KEYS, close the dialog, joined by "then", "and", '
        'commas or semicolons')
_VERBS = ("double-click", "double click", "doubleclick", "right-click", "right click", "rightclick", "click", "tap",
          "hit", "push", "press", "select", "choose", "pick", "open", "type", "enter", "write", "input", "fill in",
          "fill", "put", "check", "tick", "uncheck", "untick", "scroll", "wait", "hover", "move", "drag", "go to",
          "switch to", "focus", "expand", "collapse", "close", "dismiss", "switch", "go through", "look through",
          "search", "save", "rename", "set", "change", "create", "make", "add", "run", "execute", "answer",
          "copy", "paste", "cut", "undo", "redo", "submit", "send", "confirm")
_PLACE_WORDS = re.compile(r"\s+(?:below|above|underneath|here|on the (?:left|right)|at the (?:top|bottom))$", re.I)
_THANKS = re.compile(r"^(?:thanks?|thank\s+you|thx|cheers|ta)(?:\s+(?:a\s+lot|so\s+much|very\s+much))?!?$", re.I)
_TYPING = ("type", "enter", "write", "input", "fill in", "fill", "put")
_QUOTED_VALUE = re.compile(r"«\d+»")
# two fields of one kind a value goes into: "both password fields", "each of the two boxes", "both of the fields"
_BOTH_FIELDS = re.compile(r"^(?:the\s+)?(?:both(?:\s+of\s+the)?|each\s+of\s+the\s+two|the\s+two)\s+"
                          r"(?P<kind>.+?)(?:(?<=x)es|s)?$", re.I)
_ANSWER = re.compile(r"^(?:yes|no|on|off|true|false)$", re.I)
_WITHOUT = re.compile(r"^(?:without|with\s+no)\s+(?P<what>.+)$", re.I)  # "..., then without gift wrap": unticked
# other words for ticking and unticking a box, and a verb with its particle ("pick out X"): what the clause becomes
_SAME_VERBS = [
    (re.compile(r"^(?:enable|activate|turn\s+on|switch\s+on)\s+", re.I), "tick "),
    (re.compile(r"^(?:disable|deactivate|turn\s+off|switch\s+off|deselect|unselect|unmark)\s+", re.I), "untick "),
    (re.compile(r"^(?:turn|switch)\s+(?P<what>.+?)\s+on$", re.I), r"tick \g<what>"),
    (re.compile(r"^(?:turn|switch)\s+(?P<what>.+?)\s+off$", re.I), r"untick \g<what>"),
    (re.compile(r"^(?P<verb>pick|choose|select)\s+out\s+", re.I), r"\g<verb> "),
    (re.compile(r"^let\s+(?P<what>.+?)\s+be\s+", re.I), r"set \g<what> to "),  # "let Category be 'Meals'"
]
# a clause with no verb the grammar knows that starts with a word of its own before "the", "a" or a quoted value
# ("..., then prefer "Evening" for shift", "and disable the car box"): a verb the grammar does not know, not more of
# what the verb before it acts on
_UNKNOWN_VERB = re.compile(r"^(?!(?:both|all|each|every|either|neither|only|just|also|any|one|two)\b)[a-z][a-z'-]*"
                           r"\s+(?:the|a|an|my|your|our|its|their|this|that|these|those|«\d+»)(?:\s|$)")
_SUBJECT = re.compile(r"^(?:i|i'd|i'm|i'll|we|we'd|we're|you|he|she|they|let's|let\s+me)\b", re.I)  # a sentence
# everyday verbs of choosing the grammar does not know, with the word after them ("go with L for the size", "opt for
# the annual plan", "make it three copies"): a clause of its own, never a target of the verb before
_CHOOSING_VERB = re.compile(r"^(?:go|opt|settle|stick|make|keep|leave|have|want|need|get|give|switch|change|turn|"
                            r"put|use|pick|take)\s+(?:with|for|on|it|me|us|to|out|in|up|over|down|as)\b", re.I)
_STATEMENT = re.compile(r"\b(?:is|are|be|should|must|reads?|says?|equals?)\b", re.I)
# words that start a clause and ask nothing themselves: joiners, time words, a request's polite frame ("can you",
# "I need you to"); "first" only where it is no part of a name ("First name")
FILLER_WORDS = (r"and|then|and then|please|now|next|finally|first(?!\s+(?:name|line|cell|page|item|option|row|column|"
                r"one|field|box|tab)s?\b)|also|after that|(?:can|could|would|will)\s+you(?:\s+please)?|"
                r"i\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to")
_FILLER = re.compile(rf"^(?:{FILLER_WORDS})\b\s*", re.I)
# a clause that asks to open a group of collapsed parts to look in ("expand the sections below", "open each of the
# panels"): the next clause's target is looked for in each, in turn
_GROUP_SEARCH = re.compile(r"^(?:expand|open|look\s+(?:through|in)|go\s+through|browse|search)\s+"
                           r"(?:all\s+|each\s+of\s+)?the\s+(?P<group>sections|panels|groups|categories|folders)"
                           r"(?:\s+(?:below|above|on\s+the\s+(?:page|screen)))?$", re.I)
# a clause that only says what the one before is for ("Open the Advanced panel, to find and tick Proxy"):
# no step of its own, and no target of the verb before
_PURPOSE = re.compile(r"^(?:(?:in\s+order\s+)?to\s+)?(?:find|locate|look\s+for|search\s+for|see|reveal|get\s+to|reach)"
                      r"(?:\s+it)?$", re.I)  # "... and then find and click on X": a lone "find" is no step either
# politeness and time words that end a clause ("click the Submit claim button please", "... now", "... for me")
_TRAILING_FILLER = re.compile(r"\s+(?:please|now|thanks|thank\s+you|for\s+me|when\s+(?:you(?:'re|\s+are)\s+)?done|"
                              r"right\s+away|if\s+you\s+(?:can|could))$", re.I)
_QUOTE = re.compile(r"\"([^\"]*)\"|“([^”]*)”|'([^']+)'(?=\W|$)")


class Quoted:
    """Keeps quoted strings out of the way of splitting: each becomes a placeholder like «0»."""

    def __init__(self, text: str):
        self.values: list[str] = []

        def keep(match: re.Match[str]) -> str:
            self.values.append(next(g for g in match.groups() if g is not None))
            return f"«{len(self.values) - 1}»"

        self.text = _QUOTE.sub(keep, text)

    def restore(self, text: str, keep_quotes: bool = True) -> str:
        return re.sub(r"«(\d+)»", lambda m: (f'"{self.values[int(m.group(1))]}"' if keep_quotes
                                              else self.values[int(m.group(1))]), text)


class PlannedAction(NamedTuple):
    """One action of the plan. `ensure_checked` makes it conditional: skipped when the check box or radio button
    it clicks already shows that state. `look_in` ("tabs", or a group's name: "section") says where to look when
    the target is not in sight.
    `or_type` is text to type, then press Enter, when the target is not in sight (an option further down a long
    dropdown list). `unless_seen` skips the action when no element it names is found but that target is in sight
    (a list box that shows its options: nothing to open). `confirms`: the action (Enter) is a confirming, made a
    click on the one button the screen shows to confirm with (OK, Confirm, Yes, ...) where it shows one."""

    action: Action
    ensure_checked: bool | None = None
    look_in: str | None = None
    or_type: str | None = None
    unless_seen: str | None = None
    confirms: bool = False


# "Close the dialog by clicking the "x"": the "by clicking X" part is the action.
BY_CLICKING = re.compile(r"\bby\s+(?:clicking|pressing|tapping|hitting)\s+(?:on\s+)?(?P<what>.+)$", re.I)
# "Select Heard Island and McDonald Islands from the list and click Submit": everything up to "from the list" is the
# option's name, "and" included, so it is quoted before the task is split into clauses.
SELECT_FROM_LIST = re.compile(r"\b(?P<verb>select|choose|pick)\s+(?P<option>[^\"“”«,;]+?)\s+"
                              r"(?P<rest>(?:from|in)\s+(?:the\s+)?(?:\w+\s+)?"
                              r"(?:list|dropdown|drop-down|menu|combo\s?box|select)\b)", re.I)


def parse_instructions(task: str) -> list[PlannedAction]:
    """Every action the task asks for, in order. Raises PlannerError naming the clause it does not understand."""
    quoted = Quoted(SELECT_FROM_LIST.sub(lambda m: f'{m.group("verb")} "{m.group("option")}" {m.group("rest")}',
                                      task.strip()))
    # each clause with what ended the one before it: a sentence's end ("." or a line break) ends its verb too
    pieces = re.split(r"\s*(;|,|\.(?:\s+|$)|\n|\bthen\b|\band\b)\s*", quoted.text, flags=re.I)
    clauses = zip(pieces[::2], ["", *pieces[1::2]])
    actions: list[PlannedAction] = []
    verb = ""
    opened: int | None = None  # the action of an "open X" clause just before
    look_in: str | None = None
    rules = active()
    for raw, before in clauses:
        if before and before.strip() in (".", ""):  # a full stop or a line break
            verb = ""  # "... in the Paid with. urgent, no": a new sentence with no verb is no more of the last
        clause = _FILLER.sub("", raw.strip().rstrip(".!?")).strip()
        while _FILLER.match(clause):
            clause = _FILLER.sub("", clause).strip()
        while (trimmed := _TRAILING_FILLER.sub("", clause)) != clause and len(trimmed.split()) >= 2:
            clause = trimmed  # what is left still names a verb and what it acts on ("press Now" keeps its "Now")
        if not clause:
            continue
        if rules.tab_search.match(clause):
            look_in = "tabs"
            continue
        if group := _GROUP_SEARCH.match(clause):  # the next target is looked for in each of them
            look_in = group.group("group").lower().removesuffix("s")
            continue
        if _THANKS.match(clause):
            continue
        if _PURPOSE.match(clause):
            verb = ""
            continue
        without = _WITHOUT.match(clause)
        if without:
            clause = f"untick {without.group('what')}"
        for words, same in _SAME_VERBS:
            clause = words.sub(same, clause, count=1)
        if not starts_with_verb(clause):
            if not verb or (verb in _TYPING and not _QUOTED_VALUE.search(clause)) or _STATEMENT.search(clause) \
                    or _ANSWER.match(clause) or any(p.match(clause) for p in (_UNKNOWN_VERB, _SUBJECT, _CHOOSING_VERB)):
                # what a typing verb goes on to type must be quoted ("replace the Full name with ..." after "write
                # ..." is an instruction the grammar does not know, not more text to type), and a clause that says
                # what something should be ("then the full name should be ...") is no target of the verb before,
                # nor is a yes or a no ("..., urgent, no": the state of the box before it), nor a clause that starts
                # with a verb of its own ("... and go with L"), or with a subject ("... and I want the medium size")
                raise PlannerError(f"I don't understand {quoted.restore(clause)!r}. {HELP}")
            clause = f"{verb} {clause}"
        verb = _leading_verb(clause)
        if rules.nothing.match(clause):
            continue
        by_clicking = BY_CLICKING.search(clause)
        if by_clicking:
            clause = f"click {by_clicking.group('what')}"
        case = letter_case(clause) if verb in _TYPING else None  # "type "ada" in capitals into Name"
        planned = _parse_clause(LETTER_CASE.sub("", clause) if case else clause, quoted)
        if case:
            planned = [p._replace(action=_in_case(p.action, case)) for p in planned]
        if look_in and planned:
            planned[0] = planned[0]._replace(look_in=look_in)
            look_in = None
        if opened is not None and verb in ("select", "choose", "pick"):
            # "open the Category and choose Supplies": what is opened to choose from is a list or a menu, opened
            # by a click (a double click opens and closes it)
            actions[opened] = actions[opened]._replace(
                action=actions[opened].action.model_copy(update={"kind": ActionKind.CLICK}))
        opened = len(actions) if verb == "open" and len(planned) == 1 else None
        actions.extend(planned)
    if not actions:
        raise PlannerError(f"the task has no instruction in it. {HELP}")
    return _replacing_held_text(actions)


def _replacing_held_text(actions: list[PlannedAction]) -> list[PlannedAction]:
    """Text typed right after clicking an address bar, or right after the rename key, replaces what the field
    holds. Browsers select a whole address on click and many file managers do not ("~/Documents" typed there
    would be added to the path shown); rename fields select only the old name's stem ("todo" of "todo.txt"), so a
    whole new name typed after F2 would keep the old extension. Selecting all first gives what the person meant."""
    result: list[PlannedAction] = []
    for planned in actions:
        before = result[-1].action if result else None
        if planned.action.kind is ActionKind.TYPE and before is not None and _holds_text_to_replace(before):
            result.append(PlannedAction(Action(kind=ActionKind.HOTKEY, keys=("ctrl", "a"))))
        result.append(planned)
    return result


def _holds_text_to_replace(action: Action) -> bool:
    if action.kind is ActionKind.HOTKEY:
        return action.keys == ("f2",)
    return action.kind is ActionKind.CLICK and bool(action.target) and parse_description(action.target or "").address


def _in_case(action: Action, case: str) -> Action:
    if action.kind is not ActionKind.TYPE or not action.text:
        return action
    return action.model_copy(update={"text": in_case(action.text, case)})


def starts_with_verb(clause: str) -> bool:
    return bool(_leading_verb(clause))


def _leading_verb(clause: str) -> str:
    lower = clause.lower()
    for verb in _VERBS:
        if lower == verb or lower.startswith(verb + " "):
            return verb
    return ""


def _target(text: str, quoted: Quoted) -> str:
    target = quoted.restore(text.strip()).strip()
    if not target:
        raise PlannerError(f"missing what to act on. {HELP}")
    return target


def _field_target(field: str, quoted: Quoted) -> str:
    target = _target(re.sub(r"^(the|your|a|an)\s+", "", field.strip(), flags=re.I), quoted)
    has_role = any(re.search(rf"\b{re.escape(word)}s?$", target, re.I) for word in role_words())
    return target if has_role else f"{target} field"


def _value(text: str, quoted: Quoted) -> str:
    return quoted.restore(text.strip(), keep_quotes=False)


def _click(kind: ActionKind, target: str) -> Action:
    return Action(kind=kind, target=target)


def _type_into(field: str, text: str, quoted: Quoted, where: str | None = None) -> list[Action]:
    """Click the field, then type. `where` may name two fields of a kind ("both password fields"): the value goes
    into the first and the second."""
    _given_text(text, quoted)
    target = _field_target(field, quoted)
    secret = is_secret_label(target)
    typed = Action(kind=ActionKind.TYPE, text=_value(text, quoted), secret=secret)
    both = _BOTH_FIELDS.match((where or "").strip())
    if both:
        kind = _field_target(both.group("kind"), quoted)
        return [a for n in ("1st", "2nd") for a in (_click(ActionKind.CLICK, f"{n} {kind}"), typed)]
    return [_click(ActionKind.CLICK, target), typed]


# words of a place that name no one field: "into the text fields" leaves the field to the words before the value
_PLACE_WORDS_ONLY = re.compile(r"^(?:(?:the|a|an|this|that|its|your|my|empty|blank|text|fields?|box(?:es)?|inputs?|"
                               r"textbox(?:es)?|areas?|entry|entries|form|one|here|below|above)\s*)+$", re.I)


def _type_named(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """'enter the username "ada" into the text field': the words before the value name the field, unless the place
    after it names one itself ('enter the number "18" into the 2nd textbox', 'type the code "X1" in the Voucher
    field'): then those words only say what the value is."""
    field, where = match.group("field"), match.group("where")
    if where and not _BOTH_FIELDS.match(where.strip()) and not _PLACE_WORDS_ONLY.match(where.strip()):
        return _type_into(where, match.group("text"), quoted)
    return _type_into(field, match.group("text"), quoted, where)


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], Quoted], list[Action] | list[PlannedAction]]]


_REPEAT = re.compile(r"\s+(?:(?P<word>once|twice|thrice)|(?P<n>\d+)\s*(?:times|x))$", re.I)
_REPEAT_WORDS = {"once": 1, "twice": 2, "thrice": 3}


def _press(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Press keys ("press Down twice", "press Tab 3 times", "press 9", "press *"), or click the button the words
    name."""
    what = _value(match.group("what"), quoted)
    if len(what) == 1 and what.isprintable() and not what.isspace():  # a character's key
        return [Action(kind=ActionKind.TYPE, text=what)]
    repeat = _REPEAT.search(what)
    times = 1
    if repeat and is_key_combo(what[:repeat.start()]):
        times = _REPEAT_WORDS[repeat.group("word").lower()] if repeat.group("word") else int(repeat.group("n"))
        what = what[:repeat.start()]
    if is_key_combo(what):
        return [Action(kind=ActionKind.HOTKEY, keys=split_combo(what)) for _ in range(min(times, MAX_REPEAT))]
    return [_click(ActionKind.CLICK, _target(match.group("what"), quoted))]


def _by_keys(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """"Select all the text with ctrl+a", "save it using ctrl+s": the keys say how, and are the action."""
    return [Action(kind=ActionKind.HOTKEY, keys=split_combo(_value(match.group("keys"), quoted)))]


def _save_as(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Save as NAME [in FOLDER]: the Save As shortcut (ctrl+shift+s in GTK, Qt, LibreOffice and AbiWord alike), then
    the name, with the folder as a path from home (file dialogs of both toolkits read "~/Documents/notes.txt"),
    into the dialog's name field, which has the focus with its old name selected; Enter saves."""
    name = _value(match.group("name"), quoted)
    folder = match.group("folder")
    path = name
    if folder:
        folder = _value(re.sub(r"^(?:the|my|your)\s+|\s+(?:folder|directory)$", "", folder.strip(), flags=re.I), quoted)
        home_relative = folder if folder.startswith(("/", "~")) else f"~/{folder}"
        path = f"{home_relative.rstrip('/')}/{name}"
    return [Action(kind=ActionKind.HOTKEY, keys=("ctrl", "shift", "s")), *_replace_field_text(path)]


def _replace_field_text(text: str) -> list[Action]:
    """Type into the focused field in place of all it holds: name fields select only the old name's stem
    ("Book1" of "Book1.gnumeric"), so typing alone would keep the old extension."""
    return [Action(kind=ActionKind.HOTKEY, keys=("ctrl", "a")), Action(kind=ActionKind.TYPE, text=text),
            Action(kind=ActionKind.HOTKEY, keys=("enter",))]


# "enter Ada for the name": words that name a field, in a phrase no form above could split into field and value
_NAMES_A_FIELD = re.compile(r"\s(?:as|for|in|into|under|on)\s+(?:the|your|my|its|this|that)\s+\w|"
                            r"\s(?:as|for|into)\s+(?-i:[A-Z])\w*", re.I)  # "Ada for First name": a label's capital
# "write 07700 900123 where it asks for mobile": words that say where the value goes (quoted text is a «n» here)
_SAYS_WHERE = re.compile(r"\b(?:where|wherever|asks?|says?)\b", re.I)
# "type done over it": a phrase that ends in a word referring to something is not all text to type
REFERS_AT_END = re.compile(r"\s(?:it|them|this|that|these|those|there|here)$", re.I)


def _given_text(text: str, quoted: Quoted, said: str | None = None) -> None:
    """Refuse a text to type that only describes what to type ("the text below", "the form"), quoting `said` (the
    words that asked for it) or the text."""
    if _NO_VALUE.match(text):
        raise PlannerError(f"{quoted.restore(said or text)!r} says what to type, not the text itself")


def _type_at_focus(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Type into whatever has the keyboard focus — only where the phrase is all value. One that also names a field
    it could not be split from is refused before anything is done: typed whole, it would go into the wrong place."""
    text = match.group("text")
    _given_text(text, quoted, match.group(0))
    if (_SAYS_WHERE.search(text) or _NAMES_A_FIELD.search(" " + _value(text, quoted)) or "«" in text
            or REFERS_AT_END.search(text)) and \
            not re.fullmatch(r"«\d+»", text.strip()):  # a quoted value and more words: not all of it is the text
        raise PlannerError(f"cannot tell the field from the value in {quoted.restore(match.group(0))!r}; say it as: "
                           'type "VALUE" into FIELD')
    return [Action(kind=ActionKind.TYPE, text=_value(text, quoted))]


def _set_field(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Set FIELD to VALUE: click the field, select what it holds, type the value in its place (a spin box, a
    prefilled entry). Typing alone would add to the old value."""
    click, typed = _type_into(match.group("field"), match.group("value"), quoted)
    return [click, Action(kind=ActionKind.HOTKEY, keys=("ctrl", "a")), typed]


def _new_folder(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Create a new folder named X, in a file manager: ctrl+shift+n (PCManFM, Nautilus, Thunar, Nemo, Dolphin,
    Windows Explorer), then the name in place of the suggested one."""
    return [Action(kind=ActionKind.HOTKEY, keys=("ctrl", "shift", "n")),
            *_replace_field_text(_value(match.group("name"), quoted))]


def _run_command(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Run the command "X" (in a terminal that has the focus): type it, press Enter."""
    return [Action(kind=ActionKind.TYPE, text=_value(match.group("command"), quoted)),
            Action(kind=ActionKind.HOTKEY, keys=("enter",))]


def _rename(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Rename X to Y, in a file manager: select X, F2 (the rename key of every desktop's file manager), the new
    name in place of the old."""
    return [_click(ActionKind.CLICK, _target(match.group("what"), quoted)),
            Action(kind=ActionKind.HOTKEY, keys=("f2",)), *_replace_field_text(_value(match.group("name"), quoted))]


_EDIT_KEYS = {"save": ("ctrl", "s"), "copy": ("ctrl", "c"), "paste": ("ctrl", "v"), "cut": ("ctrl", "x"),
              "undo": ("ctrl", "z"), "redo": ("ctrl", "shift", "z")}


def _edit_command(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """"Save the file", "copy it", "paste": the standard shortcut of the command."""
    return [Action(kind=ActionKind.HOTKEY, keys=_EDIT_KEYS[match.group("verb").lower()])]


def _copy_from(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """"Copy the text in the Notes box": click into it, select all it holds, copy (the clipboard carries the text
    as it is, where reading and typing it again could change a letter)."""
    return [_click(ActionKind.CLICK, _target(_PLACE_WORDS.sub("", match.group("where")), quoted)),
            Action(kind=ActionKind.HOTKEY, keys=("ctrl", "a")), Action(kind=ActionKind.HOTKEY, keys=_EDIT_KEYS["copy"])]


def _paste_into(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """"Paste it into the Reference field": click into it, paste."""
    return [_click(ActionKind.CLICK, _target(_PLACE_WORDS.sub("", match.group("where")), quoted)),
            Action(kind=ActionKind.HOTKEY, keys=_EDIT_KEYS["paste"])]


def _select(match: re.Match[str], quoted: Quoted) -> list[PlannedAction]:
    # "pick the Supplies option from the category": the option is what the words around it name
    named = _OPTION_NAMED.fullmatch(match.group("option").strip())
    option_text = named.group("name") if named else match.group("option")
    option = _target(option_text, quoted)
    if match.group("list"):
        box = _target(re.sub(r"^(the|a|an)\s+", "", match.group("list"), flags=re.I), quoted)
        if _CONTAINERS.fullmatch(box):  # "pick 20 in the calendar": the place it is in, nothing to open
            return [PlannedAction(_click(ActionKind.CLICK, option))]
        has_role = any(re.search(rf"\b{re.escape(w)}s?$", box, re.I) for w in role_words())
        return [PlannedAction(_click(ActionKind.CLICK, box if has_role else f"{box} dropdown"), unless_seen=option),
                PlannedAction(_click(ActionKind.CLICK, option), or_type=_value(option_text, quoted))]
    return [PlannedAction(_click(ActionKind.CLICK, option))]


_OPTION_NAMED = re.compile(r"(?:the|an?)\s+(?P<name>.+?)\s+(?:option|item|choice|entry|value)", re.I)
_CONTAINERS = re.compile(r"(?:calendar|table|grid|tree|window|dialog|dialogue|panel|page|screen|form)", re.I)


def _toggle(match: re.Match[str], quoted: Quoted) -> list[PlannedAction]:
    target = _target(match.group("what"), quoted)
    has_role = any(re.search(rf"\b{re.escape(w)}s?$", target, re.I) for w in role_words())
    click = _click(ActionKind.CLICK, target if has_role else f"{target} checkbox")
    return [PlannedAction(click, ensure_checked=not match.group("un"))]


def _scroll(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """"Scroll down 3 times in the list", "scroll the list down": ticks of the wheel over the part named, else where
    the pointer is (the page, the window)."""
    direction = match.group("dir").lower()
    ticks = min(int(match.group("times") or 5), MAX_REPEAT)
    dx, dy = {"down": (0, ticks), "up": (0, -ticks), "right": (ticks, 0), "left": (-ticks, 0)}[direction]
    where = match.group("where")
    target = None if where is None or _PAGE.match(where) else _target(where, quoted)
    return [Action(kind=ActionKind.SCROLL, dx=dx, dy=dy, target=target)]


def _scroll_to_end(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """"Scroll to the bottom of the agreement": as far as a plan scrolls, down (bottom, end) or up (top, start),
    over the part named, else where the pointer is."""
    ticks = MAX_REPEAT if match.group("end").lower() in ("bottom", "end") else -MAX_REPEAT
    where = match.group("where")
    target = None if where is None or _PAGE.match(where) else _target(where, quoted)
    return [Action(kind=ActionKind.SCROLL, dy=ticks, target=target)]


def _open(match: re.Match[str], quoted: Quoted) -> list[Action]:
    target = _target(match.group("what"), quoted)
    is_menu = re.search(r"\b(menu|tab)$", target, re.I)
    return [_click(ActionKind.CLICK if is_menu else ActionKind.DOUBLE_CLICK, target)]


def _focus(match: re.Match[str], quoted: Quoted) -> list[Action]:
    return [_click(ActionKind.CLICK, _field_target(match.group("what"), quoted))]


def _expand(match: re.Match[str], quoted: Quoted) -> list[Action]:
    """Expand / collapse / close X: click X (its header, its close button), wherever the sentence says it is."""
    return [_click(ActionKind.CLICK, _target(_PLACE_WORDS.sub("", match.group("what")), quoted))]


# what a typing verb acts on when it says no text ("fill in the form", "type the text below into the field"); a
# value the agent reads off the screen before planning ("the value of Customer", screen_values.py) is not refused
_NO_VALUE = re.compile(r"^(?!the\s+value\s+(?:of|for)\b)(?:(?:the|this|that|these|those|my|your|our|all|every|each|out|"
                       r"in)\b|(?:a|an|some)\s+\w)", re.I)  # "the text below", "a copy of todo.txt": a description
MAX_REPEAT = 20  # "press Down 500 times" is not a plan
# a scroll over the page or the window is one where the pointer is
_PAGE = re.compile(r"^(?:the\s+|this\s+)?(?:(?:web\s*)?page|window|screen|document|site)$", re.I)
_TYPE_VERBS = r"(?:type|enter|write|input|put(?:\s+down)?|fill in)"
_IT = r"(?:it|this|that|the\s+(?:file|document|text|sheet|spreadsheet|page|selection|result)|everything|your\s+work)"
_RULES: list[Rule] = [
    (re.compile(r"^(?!fill\b)(?P<what>.+?)\s+(?:with|using|by\s+pressing|via)\s+(?:the\s+)?(?:keys?\s+|shortcut\s+)?"
                r"(?P<keys>[\w+\-]+)(?:\s+(?:keys?|shortcut))?$", re.I),
     lambda m, q: _by_keys(m, q) if is_key_combo(_value(m.group("keys"), q)) else _parse_rest(m.group(0), q)),
    (re.compile(rf"^save\s+(?:{_IT}\s+)?as\s+(?:a\s+file\s+(?:named|called)\s+)?(?P<name>«\d+»|\S+)"
                r"(?:\s+(?:in|into|to|under|on)\s+(?P<folder>.+))?$", re.I), _save_as),
    (re.compile(rf"^(?P<verb>save|copy|paste|cut|undo|redo)(?:\s+{_IT})?$", re.I), _edit_command),
    (re.compile(r"^copy\s+(?:all\s+(?:of\s+)?(?:the\s+)?(?:text|contents?|words)|everything)(?:\s+(?:to|onto|into)\s+"
                r"the\s+clipboard)?$", re.I),  # in the window in focus: select all, copy
     lambda m, q: [Action(kind=ActionKind.HOTKEY, keys=("ctrl", "a")), Action(kind=ActionKind.HOTKEY,
                                                                              keys=("ctrl", "c"))]),
    (re.compile(r"^confirm(?:\s+(?:it|this|that|them|the\s+(?:dialog|choice|choices|selection|form)))?$", re.I),
     lambda m, q: [PlannedAction(Action(kind=ActionKind.HOTKEY, keys=("enter",)), confirms=True)]),
    (re.compile(r"^copy\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:text|contents?|words|value)\s+(?:in|of|from|inside)\s+"
                r"(?P<where>.+)$", re.I), _copy_from),
    (re.compile(r"^paste\s+(?:it|that|this|them|the\s+(?:copied\s+)?text)?\s*(?:in|into|to|inside|in\s+to)\s+"
                r"(?P<where>.+)$", re.I), _paste_into),
    (re.compile(r"^(?:create|make|add)\s+(?:a\s+)?(?:new\s+)?(?:folder|directory)\s+(?:named|called)\s+"
                r"(?P<name>«\d+»|\S+)(?:\s+(?:here|in\s+(?:this|the\s+current)\s+folder))?$", re.I), _new_folder),
    (re.compile(r"^change\s+the\s+name\s+of\s+(?:the\s+(?:file|folder)\s+)?(?P<what>.+?)\s+to\s+(?P<name>«\d+»|\S+)$",
                re.I), _rename),
    (re.compile(r"^(?:run|execute)\s+(?:the\s+command\s+)?(?P<command>«\d+»)(?:\s+(?:in|on)\s+(?:the\s+|a\s+)?"
                r"(?:terminal|shell|console|command line))?$", re.I), _run_command),
    (re.compile(r"^(?:set|change)\s+(?:the\s+)?(?P<field>.+?)\s+to\s+(?P<value>«\d+»|\S+)$", re.I), _set_field),
    (re.compile(r"^rename\s+(?:the\s+(?:file|folder)\s+)?(?P<what>.+?)\s+(?:to|as)\s+(?P<name>«\d+»|\S+)$", re.I),
     _rename),
    (re.compile(r"^(?:close|dismiss)\s+(?:the\s+|this\s+)?(?:dialog|dialogue|pop-?up)(?:\s+box|\s+window)?$", re.I),
     lambda m, q: [Action(kind=ActionKind.HOTKEY, keys=("escape",))]),
    (re.compile(r"^answer\s+(?:with\s+)?(?P<what>.+)$", re.I),
     lambda m, q: [_click(ActionKind.CLICK, _target(m.group("what"), q))]),
    (re.compile(r"^(?:double[- ]?click|doubleclick)\s+(?:on\s+)?(?P<what>.+)$", re.I),
     lambda m, q: [_click(ActionKind.DOUBLE_CLICK, _target(m.group("what"), q))]),
    (re.compile(r"^(?:right[- ]?click|rightclick)\s+(?:on\s+)?(?P<what>.+)$", re.I),
     lambda m, q: [_click(ActionKind.RIGHT_CLICK, _target(m.group("what"), q))]),
    (re.compile(r"^open\s+(?P<what>.+)$", re.I), _open),
    (re.compile(r"^(?:select|choose|pick)\s+(?P<option>.+?)\s+(?:from|in)\s+(?P<list>.+)$", re.I), _select),
    (re.compile(r"^focus\s+(?:on\s+|into\s+|in\s+|inside\s+)?(?P<what>.+)$", re.I), _focus),
    (re.compile(r"^(?:expand|collapse|close|dismiss)\s+(?P<what>.+)$", re.I), _expand),
    (re.compile(r"^(?P<un>un)?(?:check|tick)\s+(?:the\s+)?(?:box\s+)?(?P<what>.+)$", re.I), _toggle),
    (re.compile(r"^(?P<verb>submit|send)(?:\s+(?:it|this|that|the\s+form|the\s+answers?|your\s+answers?))?"
                r"(?:\s+when\s+(?:you(?:'re|\s+are)\s+)?(?:done|finished))?$", re.I),  # the form's own button
     lambda m, q: [_click(ActionKind.CLICK, m.group("verb").capitalize())]),
    (re.compile(r"^(?:press|hit|push)\s+(?:the\s+)?(?:keys?\s+)?(?P<what>.+?)(?:\s+keys?)?$", re.I), _press),
    (re.compile(r"^(?:click|tap|select|choose|pick|go to|switch to)\s+(?:on\s+)?(?P<what>.+)$", re.I),
     lambda m, q: [_click(ActionKind.CLICK, _target(m.group("what"), q))]),
    (re.compile(rf"^{_TYPE_VERBS}\s+(?:the\s+|your\s+|an?\s+)?(?P<field>[^«]+?)\s+(?:as\s+|with\s+)?(?P<text>«\d+»)"
                r"(?:\s+(?:in|into|to)\s+(?P<where>.+))?$", re.I), _type_named),
    (re.compile(rf"^{_TYPE_VERBS}\s+(?P<text>«\d+»|.+?)\s+(?:in|into|to|in the|on)\s+(?P<field>.+)$", re.I),
     lambda m, q: _type_into(m.group("field"), m.group("text"), q, m.group("field"))),
    (re.compile(r"^fill\s+(?:in\s+|out\s+)?(?P<field>.+?)\s+with\s+(?P<text>.+)$", re.I),
     lambda m, q: _type_into(m.group("field"), m.group("text"), q)),
    (re.compile(rf"^{_TYPE_VERBS}\s+(?P<text>«\d+»|.+?)\s+as\s+(?:the\s+|your\s+|my\s+|its\s+)?(?P<field>.+)$", re.I),
     lambda m, q: _type_into(m.group("field"), m.group("text"), q)),
    (re.compile(rf"^{_TYPE_VERBS}\s+(?P<text>.+)$", re.I), _type_at_focus),
    (re.compile(r"^scroll\s+(?:all\s+the\s+way\s+)?(?:down\s+|up\s+)?(?:to|until\s+you\s+reach)\s+the\s+"
                r"(?:very\s+)?(?P<end>bottom|end|top|start|beginning)(?:\s+of\s+(?P<where>.+))?$", re.I),
     _scroll_to_end),
    (re.compile(r"^scroll\s+(?P<dir>up|down|left|right)(?:\s+(?P<times>\d+)\s*(?:times?|x|ticks?|clicks?)?)?"
                r"(?:\s+(?:a\s+(?:bit|little)|some|more|further))?"
                r"(?:\s+(?:(?:in|on|over|inside|within|through)\s+)?(?P<where>.+))?$", re.I), _scroll),
    (re.compile(r"^scroll\s+(?P<where>.+?)\s+(?P<dir>up|down|left|right)(?:\s+(?P<times>\d+)\s*(?:times?|x)?)?$",
                re.I), _scroll),
    (re.compile(r"^wait\s+(?:for\s+)?(?P<s>\d+(?:\.\d+)?)\s*(?:s|secs?|seconds?)?$", re.I),
     lambda m, q: [Action(kind=ActionKind.WAIT, seconds=float(m.group("s")))]),
    (re.compile(r"^(?:hover|move)\s+(?:the\s+mouse\s+)?(?:over|to|on)\s+(?P<what>.+)$", re.I),
     lambda m, q: [_click(ActionKind.MOVE, _target(m.group("what"), q))]),
    (re.compile(r"^drag\s+(?P<src>.+?)\s+(?:to|onto|into|over)\s+(?P<dst>.+)$", re.I),
     lambda m, q: [Action(kind=ActionKind.DRAG, target=_target(m.group("src"), q),
                          end_target=_target(m.group("dst"), q))]),
]


def _parse_clause(clause: str, quoted: Quoted, rules: list[Rule] | None = None) -> list[PlannedAction]:
    for pattern, build in _RULES if rules is None else rules:
        match = pattern.match(clause)
        if match:
            return [a if isinstance(a, PlannedAction) else PlannedAction(a) for a in build(match, quoted)]
    raise PlannerError(f"I don't understand {quoted.restore(clause)!r}. {HELP}")


def _parse_rest(clause: str, quoted: Quoted) -> list[PlannedAction]:
    """The clause read by the rules after the first (the "with KEYS" rule, when its last word names no keys)."""
    return _parse_clause(clause, quoted, _RULES[1:])

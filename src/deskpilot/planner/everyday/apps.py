"""Everyday requests to three kinds of application: a calculator the screen shows (sums in words or signs, typed
with "=" or clicked key by key), a terminal (mkdir, touch, echo, cd, ls, and a command the task gives, every name
and text quoted for the shell as one argument), a file manager or file dialog (copies and moves between the files it
shows, said whole or one move at a time, files and folders opened, new folders, renames)."""

from __future__ import annotations

import re
import shlex

from deskpilot.core.task_text import NUMBER_WORDS

from .context import FILE_NAME, NUMBER, Context, type_step, value_of
from .documents import COPY_RESULT

# a calculation: the clause's verb, then its sum in words or signs
_CALC_VERB = re.compile(r"^(?:(?:please\s+)?(?:work\s+out|calculate|compute|evaluate|figure\s+out|find|do|solve|get)|"
                        r"what(?:'s|\s+is|\s+are|\s+does)|how\s+much\s+is|type|enter|key\s+in|punch\s+in|input)\s+",
                        re.I)
_OPERATOR_WORDS = {"plus": "+", "and": "+", "+": "+", "minus": "-", "less": "-", "-": "-", "−": "-", "times": "*",
                   "multiplied by": "*", "x": "*", "*": "*", "×": "*", "divided by": "/", "over": "/", "/": "/",
                   "÷": "/"}
_OPERATOR = "(?:" + "|".join(re.escape(w) for w in sorted(_OPERATOR_WORDS, key=len, reverse=True)) + ")"
_SUM = re.compile(rf"^{NUMBER}(?:\s*{_OPERATOR}\s*{NUMBER}){{1,5}}(?:\s*=)?(?:\s+(?:equal|make|come\s+to)s?)?\s*\??$",
                  re.I)
_POWER = re.compile(rf"^(?:(?P<a>{NUMBER})\s+(?:squared|cubed)|the\s+(?:square|cube)\s+of\s+(?P<b>{NUMBER}))\s*\??$",
                    re.I)
_SUM_PART = re.compile(rf"\s*(?P<op>{_OPERATOR})?\s*(?P<number>{NUMBER})", re.I)
_VERB_SUM = re.compile(
    rf"^(?:(?P<add>add(?:\s+up)?|sum)\s+(?P<a1>{NUMBER})\s+(?:and|to|plus)\s+(?P<b1>{NUMBER})|"
    rf"(?P<mul>multiply)\s+(?P<a2>{NUMBER})\s+(?:by|and|with|times)\s+(?P<b2>{NUMBER})|"
    rf"(?P<div>divide)\s+(?P<a3>{NUMBER})\s+(?:by|over)\s+(?P<b3>{NUMBER})|"
    rf"(?P<sub>subtract|take(?:\s+away)?)\s+(?P<b4>{NUMBER})\s+(?:away\s+)?from\s+(?P<a4>{NUMBER})|"
    rf"the\s+(?P<of>sum|product|difference)\s+of\s+(?P<a5>{NUMBER})\s+and\s+(?P<b5>{NUMBER}))$", re.I)
BY_BUTTONS = re.compile(r"(?:^|,?\s*)(?:(?:by\s+)?using\s+(?:the\s+)?(?:calculator'?s?\s+)?(?:buttons|keypad|keys)|"
                         r"(?:with|on)\s+the\s+(?:calculator'?s?\s+)?(?:buttons|keypad)|by\s+clicking\s+(?:the\s+)?"
                         r"(?:buttons|keys)|use\s+the\s+(?:calculator'?s?\s+)?(?:buttons|keys|keypad)\s+to|"
                         r"(?:click|press|hit|tap)\s+the\s+(?:buttons|keys)\s+(?:to|for))(?:\s*,\s*|\s+|$)", re.I)
_PRESS_TO_CLEAR = re.compile(r"^(?:press|click|hit|tap)\s+(?:the\s+)?(?P<key>\w{1,5})(?:\s+(?:key|button))?\s+to\s+"
                             r"(?:clear|reset)(?:\s+(?:it|the\s+display))?$|"
                             r"^(?:clear|reset)(?:\s+(?:it|the\s+display))?\s+(?:with|using|by\s+pressing)\s+(?:the\s+)?"
                             r"(?P<key2>\w{1,5})(?:\s+(?:key|button))?$", re.I)
_PRESS_KEY = re.compile(r"^(?i:press|hit|tap|click(?:\s+on)?)\s+(?i:the\s+)?(?P<key>C|CE|AC|CA|MC|MR|%|=|±)"
                        r"(?i:\s+(?:key|button))?$")  # a calculator's own keys, as it writes them
_CLEAR_CALC = re.compile(r"^(?:clear|reset)(?:\s+(?:it|the\s+(?:display|calculator|screen|entry|number)))?$", re.I)
TERMINAL = re.compile(r"(?:^|,?\s*)(?:(?:from|in|on|using|with|via)\s+(?:the\s+|a\s+)?"
                       r"(?:terminal|shell|command\s+line|console)|use\s+the\s+(?:terminal|shell|command\s+line|console)"
                       r"\s+to)(?:\s*,\s*|\s+|$)", re.I)
_MAKE = r"(?:make|create|add|set\s+up|open)(?:\s+(?:me|us))?\s+(?:a\s+|an\s+)?(?:new\s+)?"
_NAMED = r"(?:\s+(?:called|named|titled|with\s+the\s+name|by\s+the\s+name))?\s+"
# "make a folder called Photos", "new folder: Photos"
MKDIR = re.compile(rf"^{_MAKE}(?:directory|folder|dir){_NAMED}(?P<name>«\d+»|[\w.-]+)$|"
                   r"^(?:a\s+)?new\s+(?:folder|directory)\s*:\s*(?P<name2>«\d+»|[\w.-]+)$", re.I)
_TOUCH = re.compile(rf"^{_MAKE}(?:empty\s+)?(?:file{_NAMED})?(?P<name>«\d+»|{FILE_NAME})(?:\s+(?:in|inside|into)\s+"
                    r"(?:the\s+)?(?P<folder>[\w.-]+)(?:\s+(?:folder|directory))?)?$", re.I)
_ECHO = re.compile(rf"^(?:write|put|save|store|echo)\s+(?P<text>.+?)\s+(?:in|into|to)\s+(?:a\s+|the\s+)?(?:new\s+)?"
                   rf"(?:file{_NAMED})?(?P<name>«\d+»|{FILE_NAME})$|"
                   rf"^(?:{_MAKE}(?:file{_NAMED})?)?(?P<name2>«\d+»|{FILE_NAME})\s+(?:containing|that\s+says|saying|"
                   r"with\s+the\s+(?:text|words?)|which\s+says)\s+(?P<text2>.+)$|"
                   rf"^(?:{_MAKE}(?:file{_NAMED})?)?(?P<name3>«\d+»|{FILE_NAME})\s+with\s+(?P<text3>.+?)\s+in\s+it$",
                   re.I)
_RUN = re.compile(r"^(?:run|execute|type|enter)\s+(?:the\s+command\s+)?(?P<command>(?!the\b)[\w.~/-]+(?:\s+\S+){0,8}?)"
                  r"(?:\s+and\s+press\s+enter)?$", re.I)
_LIST_FILES = re.compile(rf"^(?:list|save\s+(?:a|the)\s+list\s+of|write\s+(?:a|the)\s+list\s+of)\s+(?:all\s+|every\s+)?"
                         r"(?:the\s+)?files?(?:\s+here)?(?P<hidden>,?\s+(?:including|with|and|plus)\s+(?:the\s+)?hidden"
                         rf"(?:\s+(?:ones|files))?(?:\s+too)?)?\s+(?:in|into|to)\s+(?P<name>«\d+»|{FILE_NAME})$", re.I)
_PLAIN_COMMAND = re.compile(rf"^(?P<command>touch|mkdir)\s+(?P<name>«\d+»|{FILE_NAME}|[\w.-]+)$", re.I)
_CD = re.compile(r"^(?:(?:go|change|move|switch|step|cd)\s+(?:in)?to|go\s+into|enter|open)\s+(?:the\s+)?"
                 r"(?P<name>«\d+»|[\w.~/-]+)(?:\s+(?:folder|directory))?$", re.I)
_UNNAMED_FOLDER = re.compile(rf"^(?:{_MAKE})?(?:a\s+)?new\s+(?:folder|directory)$", re.I)
_CALL_IT_PLAIN = re.compile(r"^(?:call(?:ing)?|nam(?:e|ing)|giving\s+it\s+the\s+name)(?:\s+it)?\s+"
                            r"(?P<name>«\d+»|[\w.-]+)$", re.I)
_RENAME_ALONE = re.compile(rf"^rename\s+(?:the\s+file\s+)?(?P<what>«\d+»|{FILE_NAME})$", re.I)
_GIVE_NAME = re.compile(rf"^give\s+(?P<old>«\d+»|{FILE_NAME})\s+the\s+(?:new\s+)?name\s+(?P<new>«\d+»|{FILE_NAME})$|"
                        rf"^(?:change|set)\s+(?P<old2>«\d+»|{FILE_NAME})'s\s+name\s+to\s+(?P<new2>«\d+»|{FILE_NAME})$|"
                        rf"^(?:i(?:'d|\s+would)\s+like|i\s+want|please\s+have|have)\s+(?P<old3>«\d+»|{FILE_NAME})\s+"
                        rf"(?:renamed|called)\s+(?:to\s+|as\s+)?(?P<new3>«\d+»|{FILE_NAME})$", re.I)
# a file manager's moves, between files and folders the first screen shows
_COPY_INTO = re.compile(rf"^(?:copy|(?:put|make|place)\s+a\s+copy\s+of|duplicate)\s+(?P<what>«\d+»|{FILE_NAME})\s+"
                        r"(?:in|into|to|inside)\s+(?:the\s+)?(?P<where>«\d+»|[\w.-]+)(?:\s+folder)?$", re.I)
_MOVE_INTO = re.compile(rf"^(?:move|drag(?:\s+and\s+drop)?|put)\s+(?:the\s+file\s+)?(?P<what>«\d+»|{FILE_NAME})\s+"
                        r"(?:over\s+)?(?:in|into|to|onto|on|over|inside)\s+(?:the\s+)?(?P<where>«\d+»|[\w.-]+)(?:\s+folder)?(?:\s+(?:with|using)\s+the\s+"
                        r"mouse|\s+by\s+dragging(?:\s+it)?)?$", re.I)


def calculating(words: str, context: Context) -> list[str] | None:
    """A sum worked out on a calculator the screen shows: typed with "=" (or its keys clicked, where the task says
    to use the buttons), the result copied, the display cleared."""
    if not context.screen.calculator:
        return None
    if COPY_RESULT.match(words):
        return ["press ctrl+c"]
    # "press C", "press C to clear", "clear it with C": the key as the screen shows it
    pressed = _PRESS_KEY.match(words) or _PRESS_TO_CLEAR.match(words)
    shown_key = context.screen.button(pressed.group("key") or pressed.group("key2")) if pressed else None
    if shown_key:
        return [f'click "{shown_key}"']
    if _CLEAR_CALC.match(words):
        key = context.screen.button("C", "AC", "CE", "Clear", "CA")
        return None if key is None else [f'click "{key}"']
    expression = _expression(_CALC_VERB.sub("", words, count=1).strip())
    if expression is None:
        return None
    context.screen_bound = not context.screen.any_screen
    if not context.by_buttons:
        return [type_step(expression + "=")]
    steps = []
    for key in expression + "=":
        shown = context.screen.button(*{"*": ("*", "×", "x", "X"), "/": ("/", "÷"), "-": ("-", "−", "–")}.get(
            key, (key,)))
        steps.append(f'click "{shown}"' if shown else f'press "{key}"')
    return steps


def _expression(words: str) -> str | None:
    """"12 times 12" -> "12*12", "add 42 and 8" -> "42+8", "subtract 3 from 10" -> "10-3"; None for anything
    else."""
    power = _POWER.match(words)
    if power:  # "12 squared", "the square of 12", "3 cubed"
        number = _number(power.group("a") or power.group("b"))
        return "*".join([number] * (3 if re.search("cube", words, re.I) else 2))
    if _SUM.match(words):  # "78 plus 5", "3 + 4 + 5", "twelve times twelve"
        parts = _SUM_PART.findall(re.sub(r"(?:\s*=)?(?:\s+(?:equal|make|come\s+to)s?)?\s*\??$", "", words, flags=re.I))
        return "".join((_OPERATOR_WORDS[op.lower()] if op else "") + _number(number) for op, number in parts)
    said = _VERB_SUM.match(words)
    if said is None:
        return None
    groups = said.groupdict()
    for index, op in ((1, "+"), (2, "*"), (3, "/"), (4, "-"), (5, None)):
        a, b = groups.get(f"a{index}"), groups.get(f"b{index}")
        if a and b:
            if op is None:
                op = {"sum": "+", "product": "*", "difference": "-"}[groups["of"].lower()]
            return f"{_number(a)}{op}{_number(b)}"
    return None


def _number(word: str) -> str:
    return str(NUMBER_WORDS.index(word.lower())) if word.lower() in NUMBER_WORDS else word


def in_a_terminal(words: str, context: Context) -> list[str] | None:
    """A few commands every shell has, said in words, where the task says a terminal or the screen shows one."""
    if not context.terminal:
        return None

    def name(text: str) -> str:
        return shlex.quote(context.quoted.restore(text, keep_quotes=False))

    made = MKDIR.match(words)
    if made:
        return [f'run the command "mkdir {name(made.group("name") or made.group("name2"))}"']
    touched = _TOUCH.match(words)
    if touched:
        folder = touched.group("folder")
        path = name(f"{folder}/{touched.group('name')}" if folder else touched.group("name"))
        return [f'run the command "touch {path}"']
    plain = _PLAIN_COMMAND.match(words)
    if plain:  # "touch done.flag", "mkdir reports": a command said as itself, its one argument quoted
        return [f'run the command "{plain.group("command").lower()} {name(plain.group("name"))}"']
    listed = _LIST_FILES.match(words)
    if listed:  # "list every file including hidden ones into all.txt"
        hidden = " -a" if listed.group("hidden") else ""
        return [f'run the command "ls{hidden} > {name(listed.group("name"))}"']
    echoed = _ECHO.match(words)
    if echoed:
        text = value_of(echoed.group("text") or echoed.group("text2") or echoed.group("text3"), context)
        if text is None:
            return None
        target = echoed.group("name") or echoed.group("name2") or echoed.group("name3")
        return [f'run the command "echo {shlex.quote(text)} > {name(target)}"']
    went = _CD.match(words)
    if went:
        return [f'run the command "cd {name(went.group("name"))}"']
    command = _RUN.match(words)
    if command and '"' not in command.group("command"):  # the task's own command, as its words give it
        return [f'run the command "{context.quoted.restore(command.group("command"), keep_quotes=False)}"']
    return None


# one move of a file manager's at a time: "copy todo.txt", "open Archive", "paste it there"
_TO_CLIPBOARD = re.compile(rf"^(?P<verb>copy|cut)\s+(?:the\s+file\s+)?(?P<what>«\d+»|{FILE_NAME})$", re.I)
_OPEN = re.compile(rf"^(?i:open|go\s+into)\s+(?:the\s+)?(?P<what>«\d+»|{FILE_NAME}|[A-Z][\w-]*)(?:\s+folder)?"
                   r"(?:\s+(?:from|in|inside)\s+(?:the\s+|my\s+)?(?P<folder>[A-Z][\w-]*)(?:\s+folder)?)?$")
_INSIDE_FOLDER = re.compile(r"^(?i:inside|in|within|into)\s+(?i:the\s+|my\s+)?(?P<what>[A-Z][\w-]*)(?:\s+folder)?$")
_PASTE = re.compile(r"^paste\s+(?:it|them|the\s+files?|a\s+copy)"
                    r"(?:\s+(?:there|here|in\s+there|inside|in\s+it|into\s+it))?$", re.I)


def in_a_file_manager(words: str, context: Context) -> list[str] | None:
    """Copying or moving a file into a folder, both shown: the clipboard keys, or a drag; a new folder named
    right after the word ("add a new folder Projects"), or named in the next clause ("new folder, call it X"); a
    file given a new name."""
    folder = MKDIR.match(words)
    if folder:
        made = folder.group("name") or folder.group("name2")
        return [f'create a new folder named "{context.quoted.restore(made, keep_quotes=False)}"']
    if _UNNAMED_FOLDER.match(words):
        context.new_folder = True
        return []
    renaming = _RENAME_ALONE.match(words)
    if renaming:  # "rename notes.txt, calling it minutes.txt": the new name in the next clause
        context.renaming = context.quoted.restore(renaming.group("what"), keep_quotes=False)
        return []
    named = _CALL_IT_PLAIN.match(words)
    if named and context.renaming:
        old, context.renaming = context.renaming, None
        return [f'rename "{old}" to "{context.quoted.restore(named.group("name"), keep_quotes=False)}"']
    if named and context.new_folder:
        context.new_folder = False
        return [f'create a new folder named "{context.quoted.restore(named.group("name"), keep_quotes=False)}"']
    renamed = _GIVE_NAME.match(words)
    if renamed:
        old, new = (context.quoted.restore(renamed.group(g) or renamed.group(f"{g}2") or renamed.group(f"{g}3"),
                                           keep_quotes=False) for g in ("old", "new"))
        return [f'rename "{old}" to "{new}"']
    steps = _file_by_file(words, context)
    if steps is not None:
        return steps
    for pattern, copy in ((_COPY_INTO, True), (_MOVE_INTO, False)):
        match = pattern.match(words)
        if match is None:
            continue
        what, where = (context.quoted.restore(match.group(g), keep_quotes=False) for g in ("what", "where"))
        if not (context.screen.shows(what) and context.screen.shows(where)) or '"' in what + where:
            return None
        context.screen_bound = not context.screen.any_screen
        if copy:
            return [f'click "{what}"', "press ctrl+c", f'double-click "{where}"', "press ctrl+v"]
        return [f'drag "{what}" onto "{where}"']
    return None


def _file_by_file(words: str, context: Context) -> list[str] | None:
    """A file manager's (or file dialog's) moves said one at a time, on files and folders the screen shows: a file
    copied or cut ("copy todo.txt"), a folder or file opened ("open Archive", "open report.txt from the Documents
    folder": double clicks), the clipboard pasted ("paste it there")."""
    if not context.screen.files:
        return None
    if _PASTE.match(words):
        return ["press ctrl+v"]
    inside = _INSIDE_FOLDER.match(words)
    if inside and context.screen.shows(inside.group("what")) and not context.screen.menu(inside.group("what")):
        return [f'double-click "{inside.group("what")}"']  # "inside the Archive folder, ...": into it first
    clipped = _TO_CLIPBOARD.match(words)
    opened = _OPEN.match(words)
    said = clipped or opened
    what = context.quoted.restore(said.group("what"), keep_quotes=False) if said else ""
    if clipped and context.screen.shows(what) and '"' not in what:
        return [f'click "{what}"', f"press ctrl+{'x' if clipped.group('verb').lower() == 'cut' else 'c'}"]
    if opened is None or '"' in what:
        return None
    folder = opened.group("folder")
    if folder and context.screen.shows(folder):  # the file is in a folder the screen shows: into it, then open it
        context.screen_bound = not context.screen.any_screen
        return [f'double-click "{folder}"', f'double-click "{what}"']
    if folder is None and context.screen.shows(what) and not context.screen.menu(what):
        context.screen_bound = not context.screen.any_screen
        return [f'double-click "{what}"']
    return None

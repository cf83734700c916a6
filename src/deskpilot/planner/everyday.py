"""Everyday requests to desktop applications read as the grammar's steps, done the way people do them there:

    "Go to the very end of the file, add ' and eggs' and save"  ->  press ctrl+End, type " and eggs", press ctrl+s
    "Wipe the text, write all done instead"                      ->  press ctrl+a, press Delete, type "all done"
    "Save a file called qt.txt in Documents that says Qt notes"  ->  type "Qt notes", save the file as "qt.txt" in
                                                                     Documents
    "What is 12 times 12? Copy the result" (a calculator's keys in sight)  ->  type "12*12=", press ctrl+c
    "Make a directory called reports from the terminal"          ->  run the command "mkdir reports"
    "My name is Ada, enter it and confirm"                       ->  type "Ada" into the name field, confirm
    "Move todo.txt into Archive" (both in sight)                 ->  drag "todo.txt" onto "Archive"

Each clause is read by the first convention below that takes it whole; a clause none takes stays as written, for
the grammar (instructions.py). The first screen decides where words alone do not: a calculator's keys, a file
dialog's name field, a spreadsheet's cells, a calendar's days, a slider, the files a file manager shows. The agent
reads a task this way only where the grammar refuses it as written and takes it as read; the reading is named in the
episode, and the goal check follows it. Values come from the task, quoted or not; a name typed into a shell is
quoted for it, so a task's words are never run as more than the one command it names."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from deskpilot.core.errors import PlannerError
from deskpilot.core.observation import Element
from deskpilot.core.task_text import NUMBER_WORDS, normalised
from deskpilot.grounding.action_context import FIELD_ROLES

from .field_values import field_values
from .goal_check import field_labels
from .instructions import Quoted, parse_instructions, starts_with_verb

# a file's name: a word with an extension ("qt.txt", "answer.gnumeric", "done.flag")
FILE_NAME = r"[\w][\w.-]*\.[A-Za-z0-9]{1,9}"
_WHOLE_DOC = r"(?:the\s+)?(?:very\s+)?(?P<end>end|bottom|start|beginning|top)(?:\s+of\s+(?:the\s+|this\s+|my\s+)?" \
             r"(?:file|text|document|doc|note|notes|page|memo|line|letter|sheet|spreadsheet))?"
_AT_PLACE = re.compile(rf"^(?:at|to|on)\s+{_WHOLE_DOC}\s*,?\s*", re.I)  # "at the end of the text, ..."
_PLACE_AFTER = re.compile(rf"\s+(?:(?:at|to|on(?:to)?)\s+{_WHOLE_DOC}|"
                          r"after\s+the\s+last\s+(?:word|line|letter|character))$", re.I)
_GO_TO_PLACE = re.compile(rf"^(?:go|jump|move|skip|scroll|head)\s+(?:right\s+|all\s+the\s+way\s+)?(?:down\s+|up\s+)?"
                          rf"to\s+{_WHOLE_DOC}$", re.I)
_FINISH_WITH = re.compile(r"^(?:finish|end|complete|close)\s+(?:off\s+)?(?:the|this)\s+(?:line|text|sentence|note|file|"
                          r"document)\s+with\s+(?P<value>.+)$", re.I)
_APPEND = re.compile(r"^append\s+(?P<value>.+?)(?:\s+(?:to|onto)\s+(?:the\s+|this\s+)?(?:file|text|document|note|"
                     r"memo|line))?$", re.I)
_STYLE_KEYS = {"bold": "ctrl+b", "italics": "ctrl+i", "italic": "ctrl+i", "underlined": "ctrl+u"}
_STYLED = re.compile(r"\s+(?:in\s+)?(?P<style>bold|italics|italic|underlined)(?:\s+(?:type|letters|text))?$", re.I)
_WRITING = re.compile(r"^(?:write|type(?:\s+out)?|write\s+(?:out|down)|jot\s+down|put(?:\s+down)?|enter|add|insert|"
                      r"append)\s+(?P<value>.+?)(?:\s+instead)?$", re.I)
_PLACE_WORDS = re.compile(r"\s(?:in|into|to|on|onto|under|as|for|inside)\s", re.I)  # a value that names a place
# "the words X", "the word X", "the text X": what to type is X
_DESCRIBED = re.compile(r"^(?:the\s+)?(?:words?|text|phrase|line|sentence|letters?)\s+(?P<value>.+)$", re.I)
# what names a value rather than being one ("your name", "the details", "all of it", "it")
_DESCRIPTION = re.compile(r"^(?:(?:the|a|an|this|that|these|those|my|your|our|his|her|its|their|some|every|each|any)\s|"
                          r"all\s+(?:the|of|my|your)\b|(?:it|them|something|anything)$)", re.I)
_MARKS = {"exclamation mark": "!", "exclamation point": "!", "full stop": ".", "period": ".", "dot": ".",
          "comma": ",", "question mark": "?", "colon": ":", "semicolon": ";", "hyphen": "-", "dash": "-",
          "space": " ", "hash": "#", "hash sign": "#", "at sign": "@", "plus sign": "+"}
_MARK = re.compile(r"^(?:an?\s+|one\s+)?(?P<name>" + "|".join(sorted(_MARKS, key=len, reverse=True)) +
                   r")(?:\s*\(\s*(?P<shown>«\d+»|\S)\s*\))?$", re.I)
_ALL_TEXT = r"(?:all\s+(?:of\s+)?(?:the\s+|its\s+)?(?:text|contents?|words)|everything|the\s+(?:whole\s+|entire\s+)?" \
            r"(?:text|contents?|file|document|note|memo))(?:\s+(?:in|of)\s+(?:the\s+|this\s+)?(?:file|document|note|" \
            r"memo|editor|window))?"
_REPLACE_ALL = re.compile(rf"^(?:replace|overwrite|substitute)\s+{_ALL_TEXT}\s+with\s+(?P<value>.+)$|"
                          rf"^(?:change|set|turn|make)\s+{_ALL_TEXT}\s+(?:to|into)\s+(?P<value3>.+)$|"
                          rf"^overwrite\s+(?:it|the\s+file)\s+with\s+(?P<value2>.+)$", re.I)
_CLEAR_ALL = re.compile(rf"^(?:wipe|clear|erase|delete|remove|empty|get\s+rid\s+of)\s+(?:out\s+)?{_ALL_TEXT}$", re.I)
_SELECT_ALL = re.compile(rf"^(?:select|highlight|mark)\s+(?:{_ALL_TEXT}|all)$", re.I)
_DELETE_SELECTED = re.compile(r"^(?:delete|remove|erase|clear)\s+(?:it|them|that|the\s+selection|"
                              r"the\s+selected\s+text)$", re.I)  # after a selection: the Delete key
_SAVE_VERB = re.compile(r"^(?:save|store|keep|write)\b", re.I)
_SAVED_THING = re.compile(r"^(?:(?:it|this|that|them|your\s+(?:changes|work|edits)|the\s+changes|my\s+(?:changes|work)|"
                          r"(?:the\s+|this\s+|a\s+|a\s+new\s+)?(?:file|document|doc|text|note|sheet|spreadsheet|"
                          r"workbook|memo|letter))\b\s*)", re.I)
_CONTENT = re.compile(r"\s+(?:that\s+says|saying|containing|which\s+says|with\s+the\s+(?:text|words?)|reading)\s+"
                      r"(?P<value>.+)$", re.I)
_NAMING = r"(?:as|under\s+the\s+name|with\s+the\s+name|named|called|to)"
_IN_FOLDER = re.compile(r"(?:^|\s+)(?:in|inside|into|under|to|within|on)\s+(?:my\s+|the\s+|your\s+)?(?P<folder>[~/]"
                        r"[\w~/.-]*|[A-Z][\w-]*)(?:\s+(?:folder|directory))?(?=\s|$)")
_CALL_IT = re.compile(rf"^(?:call|name)\s+(?:it|this|the\s+file|the\s+document)\s+(?P<name>«\d+»|{FILE_NAME}|\S+)$|"
                      rf"^use\s+(?:file\s*>\s*)?save\s+as\s+to\s+(?:call|name)\s+it\s+(?P<name2>«\d+»|{FILE_NAME})$",
                      re.I)
_PRESS_SAVE = re.compile(r"^(?:(?:click|press|hit|tap|push)\s+(?:on\s+)?(?:the\s+)?)?(?:save|ok|okay)(?:\s+button)?$",
                         re.I)
_SAVE_PLAIN = re.compile(r"^(?:save|store|keep)(?:\s+(?:it|this|that|your\s+(?:changes|work|edits)|the\s+changes|"
                         r"(?:the\s+)?(?:file|document|doc|text|sheet|spreadsheet|workbook|memo|letter|note)))?"
                         r"(?:\s+(?:again|now))?$", re.I)
_ANSWER = re.compile(r"^(?:reply|respond|say|answer)\s+(?:with\s+)?(?:a\s+)?(?P<answer>yes|no)"
                     r"(?:\s+to\s+(?:it|the\s+question|the\s+dialog))?$", re.I)
_STATEMENT = re.compile(r"^(?:my|the|our|your)\s+(?P<noun>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|will\s+be|should\s+be)\s+"
                        r"(?P<value>«\d+»|[^\s,]+(?:\s+[^\s,]+){0,3})$|"
                        r"^i(?:'d|\s+would)?\s+(?:want|like|need|choose|prefer|take|pick)\s+(?P<wanted>«\d+»|[A-Za-z0-9]"
                        r"[\w-]*)$", re.I)
_ENTER_IT = re.compile(r"^(?:enter|type|write|put|fill|input|give)\s+it(?:\s+in)?$", re.I)
_PICK_IT = re.compile(r"^(?:pick|choose|select|click|take|tick|check)\s+(?:it|that|that\s+one|both|them|them\s+both|"
                      r"all|all\s+of\s+them|each|each\s+of\s+them|those)$", re.I)
_RENAMED = re.compile(rf"^(?P<old>«\d+»|{FILE_NAME})\s+(?:should|must|needs?\s+to|has\s+to|ought\s+to)\s+be\s+"
                      rf"(?:called|named|renamed(?:\s+to)?)\s+(?P<new>«\d+»|{FILE_NAME})$", re.I)
_RENAME_IT = re.compile(r"^(?:rename|change|do)\s+(?:it|that|this|the\s+name)$|^make\s+it\s+so$", re.I)
_SUBMIT_IT = re.compile(r"^(?:submit|send|confirm)\s+it$", re.I)
# a calculation: the clause's verb, then its sum in words or signs
_CALC_VERB = re.compile(r"^(?:(?:please\s+)?(?:work\s+out|calculate|compute|evaluate|figure\s+out|find|do|solve|get)|"
                        r"what(?:'s|\s+is|\s+are|\s+does)|how\s+much\s+is|type|enter)\s+", re.I)
_NUMBER = r"(?:\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")"
_OPERATOR_WORDS = {"plus": "+", "and": "+", "+": "+", "minus": "-", "less": "-", "-": "-", "−": "-", "times": "*",
                   "multiplied by": "*", "x": "*", "*": "*", "×": "*", "divided by": "/", "over": "/", "/": "/",
                   "÷": "/"}
_OPERATOR = "(?:" + "|".join(re.escape(w) for w in sorted(_OPERATOR_WORDS, key=len, reverse=True)) + ")"
_SUM = re.compile(rf"^{_NUMBER}(?:\s*{_OPERATOR}\s*{_NUMBER}){{1,5}}(?:\s*=)?(?:\s+(?:equal|make|come\s+to)s?)?\s*\??$",
                  re.I)
_POWER = re.compile(rf"^(?:(?P<a>{_NUMBER})\s+(?:squared|cubed)|the\s+(?:square|cube)\s+of\s+(?P<b>{_NUMBER}))\s*\??$",
                    re.I)
_SUM_PART = re.compile(rf"\s*(?P<op>{_OPERATOR})?\s*(?P<number>{_NUMBER})", re.I)
_VERB_SUM = re.compile(
    rf"^(?:(?P<add>add(?:\s+up)?|sum)\s+(?P<a1>{_NUMBER})\s+(?:and|to|plus)\s+(?P<b1>{_NUMBER})|"
    rf"(?P<mul>multiply)\s+(?P<a2>{_NUMBER})\s+(?:by|and|with|times)\s+(?P<b2>{_NUMBER})|"
    rf"(?P<div>divide)\s+(?P<a3>{_NUMBER})\s+(?:by|over)\s+(?P<b3>{_NUMBER})|"
    rf"(?P<sub>subtract|take(?:\s+away)?)\s+(?P<b4>{_NUMBER})\s+(?:away\s+)?from\s+(?P<a4>{_NUMBER})|"
    rf"the\s+(?P<of>sum|product|difference)\s+of\s+(?P<a5>{_NUMBER})\s+and\s+(?P<b5>{_NUMBER}))$", re.I)
_BY_BUTTONS = re.compile(r"(?:^|,?\s*)(?:(?:by\s+)?using\s+(?:the\s+)?(?:calculator'?s?\s+)?(?:buttons|keypad|keys)|"
                         r"(?:with|on)\s+the\s+(?:calculator'?s?\s+)?(?:buttons|keypad)|by\s+clicking\s+(?:the\s+)?"
                         r"(?:buttons|keys)|click\s+the\s+(?:buttons|keys)\s+to)(?:\s*,\s*|\s+|$)", re.I)
_COPY_RESULT = re.compile(r"^copy\s+(?:the\s+|that\s+|this\s+)?(?:answer|result|total|sum|product|value|number|it|"
                          r"what\s+it\s+(?:shows|says)|what(?:'s|\s+is)\s+(?:shown|on\s+the\s+display)|display)"
                          r"(?:\s+(?:to|onto|into)\s+the\s+clipboard)?$", re.I)
_PRESS_TO_CLEAR = re.compile(r"^(?:press|click|hit|tap)\s+(?:the\s+)?(?P<key>\w{1,5})(?:\s+(?:key|button))?\s+to\s+"
                             r"(?:clear|reset)(?:\s+(?:it|the\s+display))?$", re.I)
_CLEAR_CALC = re.compile(r"^(?:clear|reset)(?:\s+(?:it|the\s+(?:display|calculator|screen|entry|number)))?$", re.I)
_MENU = re.compile(r"\s*,?\s+(?:from|using|through|via|with|in)\s+the\s+(?P<menu>[A-Z]?\w+)\s+menu$|"
                   r"^(?:use\s+the\s+(?P<menu2>[A-Z]?\w+)\s+menu\s+to|(?:from|in|using|via|through)\s+the\s+"
                   r"(?P<menu3>[A-Z]?\w+)\s+menu\s*,?)\s+", re.I)
# "use Edit > Copy to copy it", "go to File > Save As": a menu and its item
_MENU_PATH = re.compile(r"^(?:(?i:use|choose|click|pick|select|go\s+to|open)\s+)?(?P<menu>[A-Z]\w+)\s*>\s*"
                        r"(?P<item>[A-Z][\w ]*?\w)(?:\s+to\s+.+)?$")
_MENU_COMMANDS = {"copy": "Copy", "paste": "Paste", "cut": "Cut", "undo": "Undo", "redo": "Redo", "save": "Save"}
_TERMINAL = re.compile(r"(?:^|,?\s*)(?:(?:from|in|on|using|with|via)\s+(?:the\s+|a\s+)?"
                       r"(?:terminal|shell|command\s+line|console)|use\s+the\s+(?:terminal|shell|command\s+line|console)"
                       r"\s+to)(?:\s*,\s*|\s+|$)", re.I)
_PLACES = {"home", "desktop", "documents", "recent", "other locations", "file system", "computer", "downloads"}
_PROMPT = re.compile(r"\S+@\S+.*[$#]\s*$|^\s*[$#]\s*$")  # a shell's prompt, as a terminal shows it
_MAKE = r"(?:make|create|add|set\s+up|open)\s+(?:a\s+|an\s+)?(?:new\s+)?"
_NAMED = r"(?:\s+(?:called|named))?\s+"
_MKDIR = re.compile(rf"^{_MAKE}(?:directory|folder|dir){_NAMED}(?P<name>«\d+»|[\w.-]+)$", re.I)
_TOUCH = re.compile(rf"^{_MAKE}(?:empty\s+)?(?:file{_NAMED})?(?P<name>«\d+»|{FILE_NAME})(?:\s+(?:in|inside|into)\s+"
                    r"(?:the\s+)?(?P<folder>[\w.-]+)(?:\s+(?:folder|directory))?)?$", re.I)
_ECHO = re.compile(rf"^(?:write|put|save|store|echo)\s+(?P<text>.+?)\s+(?:in|into|to)\s+(?:a\s+|the\s+)?(?:new\s+)?"
                   rf"(?:file{_NAMED})?(?P<name>«\d+»|{FILE_NAME})$|"
                   rf"^(?:{_MAKE}(?:file{_NAMED})?)?(?P<name2>«\d+»|{FILE_NAME})\s+(?:containing|that\s+says|saying|"
                   r"with\s+the\s+(?:text|words?)|which\s+says)\s+(?P<text2>.+)$", re.I)
_RUN = re.compile(r"^(?:run|execute|type|enter)\s+(?:the\s+command\s+)?(?P<command>(?!the\b)[\w.~/-]+(?:\s+\S+){0,8}?)"
                  r"(?:\s+and\s+press\s+enter)?$", re.I)
_CD = re.compile(r"^(?:(?:go|change|move|switch|step|cd)\s+(?:in)?to|go\s+into|enter|open)\s+(?:the\s+)?"
                 r"(?P<name>«\d+»|[\w.~/-]+)(?:\s+(?:folder|directory))?$", re.I)
_UNNAMED_FOLDER = re.compile(rf"^(?:{_MAKE})?(?:a\s+)?new\s+(?:folder|directory)$", re.I)
_CALL_IT_PLAIN = re.compile(r"^(?:call|name)\s+it\s+(?P<name>«\d+»|[\w.-]+)$", re.I)
_GIVE_NAME = re.compile(rf"^give\s+(?P<old>«\d+»|{FILE_NAME})\s+the\s+(?:new\s+)?name\s+(?P<new>«\d+»|{FILE_NAME})$",
                        re.I)
# a file manager's moves, between files and folders the first screen shows
_COPY_INTO = re.compile(rf"^(?:copy|put\s+a\s+copy\s+of|duplicate)\s+(?P<what>«\d+»|{FILE_NAME})\s+"
                        r"(?:in|into|to|inside)\s+(?:the\s+)?(?P<where>«\d+»|[\w.-]+)(?:\s+folder)?$", re.I)
_MOVE_INTO = re.compile(rf"^(?:move|drag(?:\s+and\s+drop)?|put)\s+(?P<what>«\d+»|{FILE_NAME})\s+(?:in|into|to|onto|"
                        r"inside)\s+(?:the\s+)?(?P<where>«\d+»|[\w.-]+)(?:\s+folder)?(?:\s+(?:with|using)\s+the\s+"
                        r"mouse|\s+by\s+dragging(?:\s+it)?)?$", re.I)
_CELL = re.compile(r"^(?P<column>[A-Z]{1,2})(?P<row>\d{1,4})$")
_CELL_VALUE = re.compile(r"^(?:enter|type|put|write|input)\s+(?P<value>«\d+»|\S+)\s+(?:in|into)\s+(?:the\s+)?"
                         r"(?:(?P<first>first|top[\s-]left)\s+cell|cell\s+(?P<cell>[A-Z]{1,2}\d{1,4})|"
                         r"(?P<ref>[A-Z]{1,2}\d{1,4})|(?P<current>(?:current|selected|active)\s+)?cell)$|"
                         r"^(?:change|set)\s+(?:the\s+value\s+(?:in|of)\s+|cell\s+)?(?P<cell2>[A-Z]{1,2}\d{1,4})\s+to\s+"
                         r"(?P<value2>«\d+»|\S+)$", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = r"(?:" + "|".join(_MONTHS) + r")"
_DAY = re.compile(r"^(?:pick|choose|select|click(?:\s+on)?|set\s+the\s+(?:date|day)\s+to|make\s+it)\s+(?:the\s+)?"
                  rf"(?:(?P<before>{_MONTH})\s+(?:the\s+)?)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?"
                  rf"(?:\s+(?:of\s+)?(?P<after>{_MONTH}))?(?:\s+(?:in|on|from)\s+the\s+calendar)?$", re.I)
_SLIDER_END = re.compile(r"^(?:turn|set|move|slide|push|put|drag|crank)\s+(?:the\s+)?(?:\w+\s+){0,2}?"
                         r"(?:all\s+the\s+way|right)?\s*(?P<way>up|down|to\s+(?:the\s+|its\s+)?(?:max(?:imum)?|"
                         r"min(?:imum)?|top|bottom|full|highest|lowest|zero|100\s*%)(?:\s+(?:value|setting|level))?)$",
                         re.I)
_COMPOUND_VERBS = ((re.compile(r"\bdrag\s+and\s+drop\b", re.I), "drag"),
                   (re.compile(r"\bcut\s+and\s+paste\b", re.I), "move"),
                   (re.compile(r"\bcopy\s+and\s+paste\b", re.I), "copy"))
SEPARATORS = re.compile(r"\s*(;|,|\.(?:\s+|$)|\?(?:\s+|$)|!(?:\s+|$)|\n|\bthen\b|\band\b)\s*", re.I)
_FILLER = re.compile(r"^(?:and|then|and then|please|now|next|finally|first(?!\s+(?:name|line|cell|page|item|option|row|"
                     r"column|one|field|box|tab)s?\b)|also|after\s+that|afterwards|so|(?:can|could|would|will)\s+you"
                     r"(?:\s+please)?|i\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to|use\s+the\s+mouse\s+to)\b\s*",
                     re.I)
# "I need a new folder called Photos": wanting a new thing is making it
_WANT_NEW = re.compile(r"^(?:i\s+(?:need|want|would\s+like|'d\s+like)|we\s+need|give\s+me)\s+(?=(?:a|an)\s+(?:new\s+)?"
                       r"(?:empty\s+)?(?:folder|directory|file|document|tab)\b)", re.I)
_TRAILING = re.compile(r"\s+(?:please|for\s+me|afterwards|after|too|as\s+well)$", re.I)


@dataclass
class Screen:
    """What the first screen shows that decides between conventions (None elements: any screen, for a task read
    before there is one)."""

    texts: set[str]
    buttons: set[str]
    roles: set[str]
    field_labels: tuple[str, ...] = ()  # the labels of the text fields shown
    other_texts: tuple[str, ...] = ()  # texts that label no field
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
                         and e.text not in labelled.values()))

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

    def button(self, *names: str) -> str | None:
        """The first of `names` the screen shows as a button's text (any of them with no screen)."""
        if self.any_screen:
            return names[0]
        return next((n for n in names if n in self.buttons), None)


@dataclass
class _Referent:
    """What a statement said ("my name is Ada": the name field, "Ada"; "I need milk and bread": two values; "x.txt
    should be called y.txt": a rename), and whether a later clause acted on it."""

    noun: str | None
    values: list[str]
    renames: bool = False
    used: bool = False


@dataclass
class _Context:
    """What earlier clauses said that later ones refer to."""

    screen: Screen
    quoted: Quoted
    terminal: bool = False
    by_buttons: bool = False
    referent: _Referent | None = None
    joined_by: str = ""  # what joined the clause being read to the one before ("and", ",", ...)
    selected: bool = False  # a clause selected all the text: "delete it" is the Delete key
    new_folder: bool = False  # "new folder, ...": its name comes in the next clause
    save_folder: str | None = None  # "save it to Documents, ...": the folder a later "name it X" saves X in
    saved_as: bool = False  # a save as was read: a later plain "save it" is the dialog's own (done)
    dialog_unsaved: bool = False  # a file dialog's name was set and its Save not yet pressed
    screen_bound: bool = False  # a clause was read by a kind of screen only this one shows
    menu: str | None = None  # the menu the task says to do its commands from ("use the Edit menu to ...")
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reading:
    """A task as the grammar takes it, and what was read differently from its words."""

    task: str
    notes: tuple[str, ...]
    screen_bound: bool = False  # a clause was read by what the screen shows (a calculator, a calendar, a file
    # dialog, ...): the reading stands even where the grammar takes the words another way


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
    context = _Context(Screen.of(elements), quoted)
    text = quoted.text
    if _TERMINAL.search(text) or context.screen.terminal:
        context.terminal, text = True, _TERMINAL.sub(" ", text).strip(" ,")
    if _BY_BUTTONS.search(text):
        context.by_buttons, text = True, _BY_BUTTONS.sub(" ", text).strip(" ,")
    for compound, verb in _COMPOUND_VERBS:  # one verb of two joined by "and": no clause of its own
        text = compound.sub(verb, text)
    pieces = SEPARATORS.split(text)
    clauses, separators = _joined_sums(pieces[::2], ["", *pieces[1::2]])
    read: list[str] = []
    changed = after_reading = False
    for clause, separator in zip(clauses, separators, strict=True):
        words = _bare(clause)
        if not words:
            continue
        context.joined_by = separator.strip()
        steps = _read_clause(words, context)
        if steps is None:
            if after_reading and not starts_with_verb(words):
                return None  # the grammar would give it the verb of the steps read before it
            read.append(f"{_joint(separator)}{words}")
            after_reading = False
            continue
        changed = after_reading = True
        if steps:
            context.notes.append(f"{quoted.restore(words)!r} read as {'; '.join(quoted.restore(s) for s in steps)}")
            read.append(_joint(separator) + ", ".join(steps))
    if not changed or (context.referent is not None and not context.referent.used):
        return None  # a value stated and never acted on would be dropped from the task
    if (context.save_folder and not context.saved_as) or context.new_folder:
        return None  # a folder to save in, and never a name
    if context.dialog_unsaved:
        read.append(", press Enter")  # the file dialog's name set: its Save pressed last
    written = quoted.restore("".join(read).strip().lstrip(",;. ").strip())
    return Reading(written, tuple(context.notes), context.screen_bound) if grammar_takes(written) else None


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
        if kept and separator.lower() == "and" and re.fullmatch(_NUMBER, clause.strip(), re.I) and \
                re.search(rf"\b(?:add|sum\s+of|product\s+of|difference\s+between|difference\s+of|multiply)\s+"
                          rf"{_NUMBER}$", kept[-1], re.I):
            kept[-1] = f"{kept[-1]} and {clause.strip()}"
            continue
        kept.append(clause)
        joints.append(separator)
    return kept, joints


def _bare(clause: str) -> str:
    words = _WANT_NEW.sub("make ", clause.strip().rstrip(".!?").strip())
    while (trimmed := _FILLER.sub("", words).strip()) != words:
        words = trimmed
    while (trimmed := _TRAILING.sub("", words).strip()) != words and trimmed:
        words = trimmed
    return words


Reader = Callable[[str, _Context], list[str] | None]


def _read_clause(words: str, context: _Context) -> list[str] | None:
    """The steps one clause asks for (an empty list: a clause that only says something later ones refer to), or
    None where no convention takes it."""
    path = _MENU_PATH.match(words)
    if path:
        return [f"open the {path.group('menu')} menu", f'choose "{path.group("item")}"']
    menu = _MENU.search(words)
    if menu:
        words = (words[:menu.start()] + " " + words[menu.end():]).strip()
        if menu.group("menu2") or menu.group("menu3"):
            context.menu = menu.group("menu2") or menu.group("menu3")  # "use the Edit menu to select all and copy"
    chosen = menu.group("menu") if menu and menu.group("menu") else context.menu
    if chosen:
        return _through_menu(words, chosen)
    for reader in READERS:
        steps = reader(words, context)
        if steps is not None:
            return steps
    return None


def _through_menu(words: str, menu: str) -> list[str] | None:
    """"Copy the result from the Edit menu", "use the Edit menu to select everything": the menu's own items."""
    lower = words.lower()
    if _SELECT_ALL.match(words) or lower in ("select all", "select everything"):
        items = ["Select All"]
    elif re.fullmatch(rf"copy\s+{_ALL_TEXT}(?:\s+(?:to|onto|into)\s+the\s+clipboard)?", words, re.I):
        items = ["Select All", "Copy"]
    elif _COPY_RESULT.match(words) or lower == "copy":
        items = ["Copy"]
    elif lower.split(" ", 1)[0] in _MENU_COMMANDS and re.fullmatch(r"\w+(?:\s+(?:it|this|that|the\s+file))?", lower):
        items = [_MENU_COMMANDS[lower.split(" ", 1)[0]]]
    elif chosen := re.fullmatch(r"(?:choose|click|pick|select)\s+(?:on\s+)?(?P<item>[A-Z][\w ]*?\w)", words):
        items = [chosen.group("item")]  # "from the Edit menu choose Select All": the item as the task names it
    else:
        return None
    return [step for item in items for step in (f"open the {menu.capitalize()} menu", f'choose "{item}"')]


def _value(text: str, context: _Context) -> str | None:
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
    if "«" in text or _PLACE_WORDS.search(f" {text} ") or _DESCRIPTION.match(text) or not text:
        return None
    return text


def _typed(value: str) -> str:
    """The grammar's typing of `value`, quoted with marks it does not hold."""
    for left, right in (('"', '"'), ("“", "”")):
        if left not in value and right not in value:
            return f"type {left}{value}{right}"
    raise PlannerError("a value holds both kinds of quotes")


def _editing(words: str, context: _Context) -> list[str] | None:
    """Typing at a place in a document, replacing or clearing all its text, going to its end."""
    go = _GO_TO_PLACE.match(words)
    if go:
        return [_place_key(go.group("end"))]
    if _SELECT_ALL.match(words):
        context.selected = True
        return ["press ctrl+a"]
    if re.fullmatch(rf"copy\s+{_ALL_TEXT}(?:\s+(?:to|onto|into)\s+the\s+clipboard)?", words, re.I):
        return ["press ctrl+a", "press ctrl+c"]
    if context.selected and _DELETE_SELECTED.match(words):
        return ["press Delete"]
    if _CLEAR_ALL.match(words):
        return ["press ctrl+a", "press Delete"]
    replace = _REPLACE_ALL.match(words)
    if replace:
        value = _value(replace.group("value") or replace.group("value2") or replace.group("value3"), context)
        return None if value is None else ["press ctrl+a", _typed(value)]
    place = _AT_PLACE.match(words)
    keys = []
    if place:
        keys, words = [_place_key(place.group("end"))], words[place.end():]
    after = _PLACE_AFTER.search(words)
    if after:
        keys, words = [_place_key(after.group("end") or "end")], words[:after.start()]
    style = _STYLED.search(words)
    if style:
        keys, words = [*keys, f"press {_STYLE_KEYS[style.group('style').lower()]}"], words[:style.start()]
    finish = _FINISH_WITH.match(words)
    if finish and not keys:  # "finish the line with an exclamation mark"
        keys, words = ["press ctrl+End"], f"append {finish.group('value')}"
    appended = _APPEND.match(words)
    if appended and not keys:  # appending is at the end
        keys, words = ["press ctrl+End"], f"append {appended.group('value')}"
    writing = _WRITING.match(words)
    if writing is None:
        return None
    value = _value(writing.group("value"), context)
    return None if value is None else [*keys, _typed(value)]


def _place_key(end: str) -> str:
    return "press ctrl+End" if end.lower() in ("end", "bottom") else "press ctrl+Home"


def _saving(words: str, context: _Context) -> list[str] | None:
    """Save as a name (in a folder), with the text the file should hold; a plain save; naming a file in a save
    dialog."""
    call = None if context.new_folder else _CALL_IT.match(words)  # "new folder, call it X": the folder's name
    if call:
        return _saved_as(call.group("name") or call.group("name2"), context.save_folder, context)
    if _SAVE_PLAIN.match(words) or (context.saved_as and _PRESS_SAVE.match(words)):
        if context.dialog_unsaved:
            context.dialog_unsaved = False
            return ["press Enter"]  # the dialog's own Save (or OK)
        if context.saved_as:
            return []  # the save as before saved it
        return ["press Enter"] if context.screen.save_dialog else ["press ctrl+s"]
    if not _SAVE_VERB.match(words):
        return None
    rest = words.split(None, 1)[1] if " " in words else ""
    content = _CONTENT.search(" " + rest)
    typed: list[str] = []
    if content:
        value = _value(content.group("value"), context)
        if value is None:
            return None
        typed, rest = [_typed(value)], (" " + rest)[:content.start()].strip()
    folder = _IN_FOLDER.search(rest)
    folder_name = None
    if folder:
        folder_name, rest = folder.group("folder"), (rest[:folder.start()] + " " + rest[folder.end():]).strip()
    rest = _SAVED_THING.sub("", rest).strip()
    if not rest and folder_name:  # "save the file to Documents, name it x.txt": the name comes later
        context.save_folder = folder_name
        return [*typed]
    said = re.fullmatch(rf"(?P<text>.+?)\s+as\s+(?P<name>«\d+»|{FILE_NAME})", rest, re.I)
    if said and not typed and (text := _value(said.group("text"), context)) is not None:
        typed, rest = [_typed(text)], f"as {said.group('name')}"  # "save Dear team as memo.txt": write it, save it
    name = re.fullmatch(rf"(?:{_NAMING}\s+)?(?:a\s+file\s+(?:called|named)\s+)?(?P<name>«\d+»|{FILE_NAME})", rest, re.I)
    if name is None:
        name = re.fullmatch(rf"(?:a\s+)?(?:new\s+)?file\s+(?:called|named)\s+(?P<name>«\d+»|{FILE_NAME})", rest, re.I)
    if name is None:
        return None
    return [*typed, *_saved_as(name.group("name"), folder_name, context)]


def _saved_as(name: str, folder: str | None, context: _Context) -> list[str]:
    """Save as `name` (in `folder`): in a file dialog the screen shows, its Name field, then Enter (its Save or OK,
    pressed where the task says to, else at the end); elsewhere the grammar's save as."""
    context.saved_as = True
    shown = context.quoted.restore(name) if name.startswith("«") else f'"{name}"'
    if context.screen.save_dialog:
        context.dialog_unsaved = context.screen_bound = True
        path = shown if folder is None else f'"~/{folder}/{shown.strip(chr(34))}"'
        return [f"set the Name field to {path}"]
    return [f"save the file as {shown}" + (f" in {folder}" if folder else "")]


def _referring(words: str, context: _Context) -> list[str] | None:
    """"My name is Ada, enter it", "I need milk and bread; tick both", "The password is X, submit it", "todo.txt
    should be called shopping.txt, rename it": what a clause states, then the steps that act on "it"."""
    renamed = _RENAMED.match(words)
    if renamed:
        context.referent = _Referent(None, [renamed.group("old"), renamed.group("new")], renames=True)
        return []
    statement = _STATEMENT.match(words)
    if statement:
        noun = statement.group("noun")
        value = statement.group("value") or statement.group("wanted")
        if noun and noun.lower() in ("answer", "reply", "response"):
            return None  # "the answer is no": the grammar's
        context.referent = _Referent(noun, [value])
        return []
    referent = context.referent
    if referent is None:
        return None
    if context.joined_by.lower() == "and" and not referent.used and not referent.renames and \
            re.fullmatch(r"«\d+»|[A-Za-z0-9][\w-]*", words) and not starts_with_verb(words):
        referent.values.append(words)  # "I need milk and bread": a second value of the same statement
        return []
    values = [context.quoted.restore(v, keep_quotes=False) for v in referent.values]
    steps = _acting_on(words, referent, values)
    if steps is not None:
        referent.used = True
    return steps


def _acting_on(words: str, referent: _Referent, values: list[str]) -> list[str] | None:
    if referent.renames:
        old, new = values
        return [f'rename "{old}" to "{new}"'] if _RENAME_IT.match(words) else None
    field_words = f" into the {referent.noun} field" if referent.noun else ""
    if _ENTER_IT.match(words) and len(values) == 1:
        return [_typed(values[0]) + field_words]
    if _PICK_IT.match(words) and (len(values) == 1) == bool(re.search(r"\b(?:it|that)\b", words, re.I)):
        verb = "tick" if words.lower().startswith(("tick", "check")) else "click"
        return [f'{verb} "{value}"' for value in values]
    if _SUBMIT_IT.match(words) and len(values) == 1:
        if referent.used or not referent.noun:
            return ["confirm"]
        return [_typed(values[0]) + field_words, "press Enter"]
    return None


def _button_alone(words: str, context: _Context) -> list[str] | None:
    """"..., then OK": a dialog's button said alone, as the screen shows it."""
    if not _BUTTON_WORD.fullmatch(words):
        return None
    shown = next((b for b in context.screen.buttons if b.lower() == words.lower().replace("okay", "ok")), None)
    return [f'click "{shown or words}"'] if shown or context.screen.any_screen else None


_BUTTON_WORD = re.compile(r"ok|okay|cancel|save|submit|done|apply|next|finish|close", re.I)


def _filling(words: str, context: _Context) -> list[str] | None:
    """"First name Ada", "City: London", "(fill the form with) Ada as first name": a clause of a text field's label,
    as the screen shows it, and its value alone (field_values.py reads the pair), typed into that field."""
    words = _FILL_FORM.sub("", words)
    led = _TYPING_VERB.match(words)  # "Enter Ada for First name": the value, then the field's label
    if led:
        words = words[led.end():]
        if not re.search(r"\s(?:as|for|in|into)\s", words, re.I):
            return None
    if starts_with_verb(words) or len(words.split()) < 2:
        return None
    if context.screen.any_screen:  # some screen may label a field with the first words
        return [_typed(words.split()[-1]) + " into the field"]
    given = field_values(context.quoted.restore(words), context.screen.field_labels, context.screen.other_texts)
    if len(given) != 1:
        return None
    label, value = next(iter(given.items()))
    said = normalised(context.quoted.restore(words, keep_quotes=False))
    named, given_value = re.escape(normalised(label)), re.escape(normalised(value))
    if not _PLAIN_LABEL.fullmatch(label) or not (
            re.fullmatch(rf"(?:(?:the|my|your|our)\s+)?{named}\s*(?:(?::|=|is|-)\s*)?{given_value}", said) or
            re.fullmatch(rf"{given_value}\s+(?:as|for|in|into)\s+(?:(?:the|my|your|our)\s+)?{named}(?:\s+(?:field|box))?",
                         said)):
        return None  # only the label and its value; a label is screen text, written in where the clause says it
    return [_typed(value) + f" into the {label} field"]


# a typing verb before an unquoted value (a quoted one is the grammar's)
_TYPING_VERB = re.compile(r"^(?:enter|type|put|write|input|use|fill\s+in)\s+(?!«\d+»)", re.I)
_FILL_FORM = re.compile(r"^(?:fill\s+(?:in\s+|out\s+)?(?:the|this)\s+(?:form|fields|dialog)\s+with|"
                        r"complete\s+(?:the|this)\s+form\s+with)\s+", re.I)
_PLAIN_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 '-]{0,39}")


def _calculating(words: str, context: _Context) -> list[str] | None:
    """A sum worked out on a calculator the screen shows: typed with "=" (or its keys clicked, where the task says
    to use the buttons), the result copied, the display cleared."""
    if not context.screen.calculator:
        return None
    if _COPY_RESULT.match(words):
        return ["press ctrl+c"]
    pressed = _PRESS_TO_CLEAR.match(words)
    if pressed and context.screen.button(pressed.group("key")):  # "press C to clear": the key the screen shows
        return [f'click "{context.screen.button(pressed.group("key"))}"']
    if _CLEAR_CALC.match(words):
        key = context.screen.button("C", "AC", "CE", "Clear", "CA")
        return None if key is None else [f'click "{key}"']
    expression = _expression(_CALC_VERB.sub("", words, count=1).strip())
    if expression is None:
        return None
    context.screen_bound = not context.screen.any_screen
    if not context.by_buttons:
        return [_typed(expression + "=")]
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


def _in_a_terminal(words: str, context: _Context) -> list[str] | None:
    """A few commands every shell has, said in words, where the task says a terminal or the screen shows one."""
    if not context.terminal:
        return None

    def name(text: str) -> str:
        return shlex.quote(context.quoted.restore(text, keep_quotes=False))

    made = _MKDIR.match(words)
    if made:
        return [f'run the command "mkdir {name(made.group("name"))}"']
    touched = _TOUCH.match(words)
    if touched:
        folder = touched.group("folder")
        path = name(f"{folder}/{touched.group('name')}" if folder else touched.group("name"))
        return [f'run the command "touch {path}"']
    echoed = _ECHO.match(words)
    if echoed:
        text = _value(echoed.group("text") or echoed.group("text2"), context)
        if text is None:
            return None
        target = echoed.group("name") or echoed.group("name2")
        return [f'run the command "echo {shlex.quote(text)} > {name(target)}"']
    went = _CD.match(words)
    if went:
        return [f'run the command "cd {name(went.group("name"))}"']
    command = _RUN.match(words)
    if command and '"' not in command.group("command"):  # the task's own command, as its words give it
        return [f'run the command "{context.quoted.restore(command.group("command"), keep_quotes=False)}"']
    return None


def _in_a_file_manager(words: str, context: _Context) -> list[str] | None:
    """Copying or moving a file into a folder, both shown: the clipboard keys, or a drag; a new folder named
    right after the word ("add a new folder Projects"), or named in the next clause ("new folder, call it X"); a
    file given a new name."""
    folder = _MKDIR.match(words)
    if folder:
        return [f'create a new folder named "{context.quoted.restore(folder.group("name"), keep_quotes=False)}"']
    if _UNNAMED_FOLDER.match(words):
        context.new_folder = True
        return []
    named = _CALL_IT_PLAIN.match(words)
    if named and context.new_folder:
        context.new_folder = False
        return [f'create a new folder named "{context.quoted.restore(named.group("name"), keep_quotes=False)}"']
    renamed = _GIVE_NAME.match(words)
    if renamed:
        old, new = (context.quoted.restore(renamed.group(g), keep_quotes=False) for g in ("old", "new"))
        return [f'rename "{old}" to "{new}"']
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


def _double_clicking(words: str, context: _Context) -> list[str] | None:
    """"Open Banana from the list with a double click": the way of clicking said after the thing."""
    match = _BY_DOUBLE_CLICK.match(words)
    if match is None:
        return None
    what = context.quoted.restore(match.group("what"), keep_quotes=False)
    return None if '"' in what else [f'double-click "{what}"']


_BY_DOUBLE_CLICK = re.compile(r"^(?:open|choose|select|pick|activate|launch|start|click(?:\s+on)?)\s+(?:the\s+)?"
                              r"(?P<what>«\d+»|[\w.-]+(?:\s+[\w.-]+)?)(?:\s+(?:item|entry|row|file|icon))?"
                              r"(?:\s+(?:from|in|on)\s+the\s+(?:list|table|folder|window))?\s+(?:with|using|by)\s+"
                              r"(?:a\s+)?double[- ]?click(?:ing)?(?:\s+(?:on\s+)?it)?$", re.I)


def _on_screen_controls(words: str, context: _Context) -> list[str] | None:
    """A calendar's day ("pick the 15th"), a yes or a no ("reply no"), a slider to its end ("turn it all the way
    up"), a spreadsheet's cell ("put 42 in the first cell", "change B3 to 300")."""
    day = _DAY.match(words)
    month = day and (day.group("before") or day.group("after"))
    if day and context.screen.calendar and 1 <= int(day.group("day")) <= 31 and \
            (not month or context.screen.shows_word(month)):  # a month the calendar does not show: not this click
        context.screen_bound = not context.screen.any_screen
        return [f'click "{int(day.group("day"))}"']
    answer = _ANSWER.match(words)
    if answer:
        return [f"answer {answer.group('answer').capitalize()}"]
    slider = _SLIDER_END.match(words)
    if slider and (context.screen.any_screen or "slider" in context.screen.roles):
        up = re.search(r"up|max|top|full|high|100", slider.group("way"), re.I)
        context.screen_bound = not context.screen.any_screen
        return ["click the slider", f"press {'End' if up else 'Home'}"]
    cell = _CELL_VALUE.match(words)
    if cell and context.screen.spreadsheet:
        value = context.quoted.restore(cell.group("value") or cell.group("value2"), keep_quotes=False)
        where = cell.group("cell") or cell.group("ref") or cell.group("cell2")
        steps = ["press ctrl+Home"] if cell.group("first") else _to_cell(where.upper()) if where else []
        context.screen_bound = steps is not None
        return None if steps is None else [*steps, _typed(value), "press Enter"]
    return None


def _to_cell(reference: str) -> list[str] | None:
    """The keys from the sheet's first cell to `reference` ("B3": ctrl+Home, Down twice, Right)."""
    match = _CELL.match(reference)
    if match is None:
        return None
    column = 0
    for letter in match.group("column"):
        column = column * 26 + ord(letter) - ord("A") + 1
    row = int(match.group("row"))
    if row > 20 or column > 20:
        return None  # further than a plan presses arrow keys
    steps = ["press ctrl+Home"]
    if row > 1:
        steps.append(f"press Down {row - 1} times")
    if column > 1:
        steps.append(f"press Right {column - 1} times")
    return steps


def _by_shortcut(words: str, context: _Context) -> list[str] | None:
    """Commands every desktop binds to the same keys, said in words: "open a new tab", "reload the page", "go back",
    "undo the last change", "show hidden files", "go up a folder", "zoom in"; a web address visited; a word found in
    the document."""
    for pattern, keys in _SHORTCUTS:
        if pattern.match(words):
            return [f"press {keys}"]
    visit = _VISIT.match(words)
    if visit:
        return ["press ctrl+l", _typed(context.quoted.restore(visit.group("address"), keep_quotes=False)),
                "press Enter"]
    find = _FIND_IN_TEXT.match(words)
    if find:
        value = _value(find.group("value"), context)
        return None if value is None else ["press ctrl+f", _typed(value)]
    return None


_SHORTCUTS = tuple((re.compile(pattern, re.I), keys) for pattern, keys in (
    (r"^(?:open|start|add)\s+(?:a\s+)?new\s+(?:browser\s+)?tab$", "ctrl+t"),
    (r"^(?:close)\s+(?:this|the|the\s+current)\s+tab$", "ctrl+w"),
    (r"^(?:reload|refresh)(?:\s+(?:the|this)\s+(?:page|web\s*page|site|view|folder))?$", "F5"),
    (r"^go\s+back(?:\s+(?:a|one)\s+page|\s+to\s+the\s+(?:last|previous)\s+page)?$", "alt+Left"),
    (r"^go\s+forward(?:\s+(?:a|one)\s+page)?$", "alt+Right"),
    (r"^undo\s+(?:that|the\s+last\s+(?:change|edit|step|thing)|what\s+(?:i|you)\s+(?:did|typed)|my\s+last\s+change)$",
     "ctrl+z"),
    (r"^(?:show|reveal|display)\s+(?:the\s+)?hidden\s+files$", "ctrl+h"),
    (r"^go\s+up\s+(?:a|one)\s+(?:folder|directory|level)$|^go\s+to\s+the\s+parent\s+(?:folder|directory)$",
     "alt+Up"),
    (r"^zoom\s+in$", "ctrl+plus"),
    (r"^zoom\s+out$", "ctrl+minus"),
    (r"^(?:create|make|open|start)\s+(?:a\s+)?new\s+(?:empty\s+|blank\s+)?(?:document|file|window)$", "ctrl+n"),
))
_ADDRESS = r"(?:https?://\S+|(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\." \
           r"(?:com|org|net|edu|gov|io|dev|info|co\.uk|uk|de|fr)(?:/\S*)?)"
_VISIT = re.compile(rf"^(?:go\s+to|open|visit|navigate\s+to|browse\s+to|load)\s+(?:the\s+(?:site|website|page)\s+)?"
                    rf"(?P<address>«\d+»|{_ADDRESS})(?:\s+in\s+the\s+browser)?$", re.I)
_FIND_IN_TEXT = re.compile(r"^(?:find|search\s+for|look\s+for|locate)\s+(?P<value>.+?)\s+(?:in|on|within)\s+"
                           r"(?:the|this)\s+(?:text|document|file|page|note)$", re.I)


READERS: tuple[Reader, ...] = (_in_a_terminal, _calculating, _referring, _saving, _in_a_file_manager,
                               _on_screen_controls, _double_clicking, _button_alone, _by_shortcut, _filling, _editing)

"""Everyday requests to dialogs and forms: a value stated, then acted on as "it" ("my name is Ada, enter it"); a
field's label with its value ("First name Ada", "Ada for First name"), or its noun ("type the password X"); a button
said alone ("..., then OK", "submit"), or as the means ("save using the Save button"); a thing named with its kind
("the Train option"); a double click said after the thing; a calendar's day, a yes or a no, a slider to an end, a
spreadsheet's cell."""

from __future__ import annotations

import re

from deskpilot.core.task_text import normalised

from ..field_values import field_values
from ..instructions import starts_with_verb
from .context import in_quotes, FILE_NAME, Context, Referent, type_step

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
_SUBMIT = re.compile(r"^(?P<verb>submit|send)(?:\s+(?:it|this|the\s+(?:form|dialog|answer|details)))?$", re.I)
_BUTTON_WORD = re.compile(r"ok|okay|cancel|save|submit|done|apply|next|finish|close", re.I)
# the request's own words are any case; the button's name is written as the screen writes it (capitalised)
_BY_BUTTON = re.compile(r"^(?i:[a-z]+(?:\s+(?:it|this|that|them|the\s+\w+))?\s+(?:using|with|via|through|"
                        r"by\s+(?:clicking|pressing|hitting|using)(?:\s+on)?)\s+(?:the\s+)?(?:(?:toolbar|tool\s+bar)(?:'s)?\s+)?)"
                        r"(?P<button>[A-Z]\w*(?:\s+[A-Z]\w*)?)(?i:\s+(?:button|icon)(?:\s+(?:on|in)\s+the\s+"
                        r"tool\s*bar)?)$")
# "pick the Train option", "go for Train": a thing the screen shows, chosen
_PICK_THE = re.compile(r"^(?:(?:pick|choose|select|click(?:\s+on)?|tick|check)\s+the\s+(?=\S+(?:\s+\S+)?\s+"
                       r"(?:option|item|entry|row|choice|radio\s+button|one)$)|(?:go|settle|opt)\s+(?:for|with|on)\s+"
                       r"(?:the\s+)?)"
                       r"(?P<what>«\d+»|[\w.'-]+(?:\s+[\w.'-]+)??)"
                       r"(?:\s+(?:option|item|entry|row|choice|radio\s+button|one))?$", re.I)
_CHOOSE_FOR = re.compile(r"^(?i:choose|pick|select|set|go\s+with)\s+(?P<value>«\d+»|[\w.-]+)\s+(?i:for|as|in)\s+"
                         r"(?i:the\s+)?(?P<label>[A-Z][\w-]*(?:\s+[\w-]+)?)(?i:\s+(?:list|dropdown|field|box))?$")
_TYPE_THE_NOUN = re.compile(r"^(?:type|enter|put\s+in|input|key\s+in)\s+(?:the|my|your)\s+"
                            r"(?P<noun>[a-z]+(?:\s+[a-z]+)?)\s+(?P<value>«\d+»|[^\s«»]+)$", re.I)
# a typing verb before an unquoted value (a quoted one is the grammar's)
_TYPING_VERB = re.compile(r"^(?:enter|type|put|write|input|use|fill\s+in)\s+(?!«\d+»)", re.I)
_FILL_FORM = re.compile(r"^(?:fill\s+(?:in\s+|out\s+)?(?:the|this)\s+(?:form|fields|dialog)\s+with|"
                        r"complete\s+(?:the|this)\s+form\s+with)\s+", re.I)
_LABEL_VALUE_SHAPE = re.compile(r"(?:[A-Za-z][\w'-]*\s+){1,4}(?:(?::|=|is|-)\s*)?(?:«\d+»|[\w@.+-]+)|"
                                r"(?:«\d+»|[\w@.+-]+(?:\s+[\w@.+-]+)?)\s+(?:as|for|in|into)\s+(?:[A-Za-z][\w'-]*\s*){1,4}")
_PLAIN_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 '-]{0,39}")
_BY_DOUBLE_CLICK = re.compile(r"^(?:open|choose|select|pick|activate|launch|start|click(?:\s+on)?)\s+(?:the\s+)?"
                              r"(?P<what>«\d+»|[\w.-]+(?:\s+[\w.-]+)?)(?:\s+(?:item|entry|row|file|icon))?"
                              r"(?:\s+(?:from|in|on)\s+the\s+(?:list|table|folder|window))?\s+(?:with|using|by)\s+"
                              r"(?:a\s+)?double[- ]?click(?:ing)?(?:\s+(?:on\s+)?it)?$", re.I)
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
                         r"min(?:imum)?|top|bottom|full|highest|lowest|zero|100\s*%|right|left|end|start)(?:\s+(?:value|setting|level))?)$",
                         re.I)


def referring(words: str, context: Context) -> list[str] | None:
    """"My name is Ada, enter it", "I need milk and bread; tick both", "The password is X, submit it", "todo.txt
    should be called shopping.txt, rename it": what a clause states, then the steps that act on "it"."""
    renamed = _RENAMED.match(words)
    if renamed:  # said is asked: "notes.txt needs to be renamed to minutes.txt" (a later "rename it" adds nothing)
        old, new = (context.quoted.restore(renamed.group(g), keep_quotes=False) for g in ("old", "new"))
        context.referent = Referent(None, [old, new], renames=True, used=True)
        return [f'rename "{old}" to "{new}"']
    statement = _STATEMENT.match(words)
    if statement:
        noun = statement.group("noun")
        value = statement.group("value") or statement.group("wanted")
        if noun and noun.lower() in ("answer", "reply", "response"):
            return None  # "the answer is no": the grammar's
        context.referent = Referent(noun, [value])
        label = _field_named(noun, context) if noun else None
        if label is None:
            return []
        context.referent.used = context.referent.typed = True  # "the name should be Grace": the field set now
        return [f"set the {label} field to {in_quotes(context.quoted.restore(value, keep_quotes=False))}"]
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


def _field_named(noun: str, context: Context) -> str | None:
    """The label of the one text field the screen shows that a statement's noun names ("name": "Your name"), as
    the screen writes it (a plain label only: it is written into the task); any field, before there is a screen."""
    if context.screen.any_screen:
        return noun
    wanted = set(normalised(noun).split())
    found = list(dict.fromkeys(label.rstrip(": ") for label in context.screen.field_labels  # a field two sources
                               if wanted <= set(normalised(label).split())))  # saw is one
    return found[0] if len(found) == 1 and _PLAIN_LABEL.fullmatch(found[0]) else None


def _acting_on(words: str, referent: Referent, values: list[str]) -> list[str] | None:
    if referent.renames:
        return [] if _RENAME_IT.match(words) else None  # read as the rename already
    field_words = f" into the {referent.noun} field" if referent.noun else ""
    if referent.typed:  # the statement set its field: "enter it" is done, "submit it" presses its default button
        return [] if _ENTER_IT.match(words) else ["press Enter"] if _SUBMIT_IT.match(words) else None
    if _ENTER_IT.match(words) and len(values) == 1:
        return [type_step(values[0]) + field_words]
    if _PICK_IT.match(words) and (len(values) == 1) == bool(re.search(r"\b(?:it|that)\b", words, re.I)):
        verb = "tick" if words.lower().startswith(("tick", "check")) else "click"
        return [f'{verb} "{value}"' for value in values]
    if _SUBMIT_IT.match(words) and len(values) == 1:
        if referent.used or not referent.noun:
            return ["confirm"]
        return [type_step(values[0]) + field_words, "press Enter"]
    return None


def choice_alone(words: str, context: Context) -> list[str] | None:
    """"Cherry please, then OK": a thing the screen shows said alone, first in a sentence, as the choice of it (a
    list's row, an option; after a comma it is more of the verb before: "select words similar to end, slice");
    "tick the boxes for Milk and Bread": the boxes by their labels."""
    boxes = _BOXES_FOR.match(words)
    if boxes:
        return [f'{boxes.group("verb").lower().replace("check", "tick")} "{boxes.group("what")}"']
    if starts_with_verb(words) or len(words.split()) > 4 or "«" in words and not re.fullmatch(r"«\d+»", words) or \
            context.joined_by.lower() not in ("", ".", "?", "!"):  # after a comma or an "and": more of the verb before
        return None
    said = context.quoted.restore(words, keep_quotes=False)
    if not context.screen.any_screen and (said.lower() not in context.screen.texts or '"' in said or
                                          said in context.screen.field_labels):
        return None
    return [f'click "{said}"']


_BOXES_FOR = re.compile(r"^(?P<verb>tick|check|untick|uncheck)\s+(?:the\s+)?(?:check\s*)?box(?:es)?\s+"
                        r"(?:for|of|next\s+to|beside|labell?ed)\s+(?P<what>[\w .-]+)$", re.I)


def named_choice(words: str, context: Context) -> list[str] | None:
    """"Pick the Train option", "choose the Lisbon row": a thing the screen shows, named with its kind; "type the
    password hunter2": a value with the noun of the one field it goes in."""
    chosen = _CHOOSE_FOR.match(words)
    if chosen and context.screen.shows(chosen.group("label")) and (context.screen.any_screen
                                                                   or "dropdown" in context.screen.roles):
        value = context.quoted.restore(chosen.group("value"), keep_quotes=False)
        if '"' not in value:  # "choose Large for Size": the Size list's option (a list's options are not in sight)
            return [f'select "{value}" from {chosen.group("label")}']
    picked = _PICK_THE.match(words)
    if picked:
        what = context.quoted.restore(picked.group("what"), keep_quotes=False)
        return [f'click "{what}"'] if '"' not in what and context.screen.shows(what) else None
    given = _TYPE_THE_NOUN.match(words)
    label = _field_named(given.group("noun"), context) if given else None
    if given is None or label is None:
        return None
    return [type_step(context.quoted.restore(given.group("value"), keep_quotes=False)) + f" into the {label} field"]


def by_button(words: str, context: Context) -> list[str] | None:
    """"Save using the toolbar's Save button", "confirm by clicking OK": a request and the button that does it, said
    by its name: the click on that button."""
    match = _BY_BUTTON.match(words)
    if match is None:
        return None
    name = match.group("button")
    return [f"click the {name} button"] if context.screen.any_screen or context.screen.shows(name) else None


def button_alone(words: str, context: Context) -> list[str] | None:
    """"..., then OK": a dialog's button said alone, as the screen shows it; "submit" where the screen shows no such
    button: the dialog's own confirming (its OK, or Enter)."""
    submit = _SUBMIT.match(words)
    if submit and not context.screen.any_screen and context.screen.button(submit.group("verb").capitalize()) is None:
        return ["confirm"]
    if not _BUTTON_WORD.fullmatch(words):
        return None
    shown = next((b for b in context.screen.buttons if b.lower() == words.lower().replace("okay", "ok")), None)
    return [f'click "{shown or words}"'] if shown or context.screen.any_screen else None


def filling(words: str, context: Context) -> list[str] | None:
    """"First name Ada", "City: London", "(fill the form with) Ada as first name": a clause of a text field's label,
    as the screen shows it, and its value alone (field_values.py reads the pair), typed into that field."""
    words = _FILL_FORM.sub("", words)
    led = _TYPING_VERB.match(words)  # "Enter Ada for First name": the value, then the field's label
    if led:
        if context.screen.any_screen:
            return None  # read only against a screen's labels (before one, the grammar's refusal stands)
        words = words[led.end():]
        if not re.search(r"\s(?:as|for|in|into)\s", words, re.I):
            return None
    if starts_with_verb(words) or len(words.split()) < 2:
        return None
    if context.screen.any_screen:  # some screen may label a field so: a few plain words, then one value
        return ["type \"x\" into the field"] if _LABEL_VALUE_SHAPE.fullmatch(words) else None
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
    return [type_step(value) + f" into the {label} field"]


def double_clicking(words: str, context: Context) -> list[str] | None:
    """"Open Banana from the list with a double click": the way of clicking said after the thing."""
    match = _BY_DOUBLE_CLICK.match(words)
    if match is None:
        return None
    what = context.quoted.restore(match.group("what"), keep_quotes=False)
    return None if '"' in what else [f'double-click "{what}"']


def on_screen_controls(words: str, context: Context) -> list[str] | None:
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
        up = re.search(r"up|max|top|full|high|100|right|end", slider.group("way"), re.I)
        context.screen_bound = not context.screen.any_screen
        return ["click the slider", f"press {'End' if up else 'Home'}"]
    cell = _CELL_VALUE.match(words)
    if cell and context.screen.spreadsheet:
        value = context.quoted.restore(cell.group("value") or cell.group("value2"), keep_quotes=False)
        where = cell.group("cell") or cell.group("ref") or cell.group("cell2")
        steps = ["press ctrl+Home"] if cell.group("first") else _to_cell(where.upper()) if where else []
        context.screen_bound = steps is not None
        return None if steps is None else [*steps, type_step(value), "press Enter"]
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

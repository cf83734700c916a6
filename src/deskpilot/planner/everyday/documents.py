"""Everyday requests about a document's text: typing at its end ("add ' and eggs' at the very end"), replacing or
clearing it ("wipe the text, write all done instead"), saving it (as a name, in a folder, with the text it should
say, in a file dialog the screen shows), its menus' commands ("copy the result from the Edit menu", "Edit > Copy",
"File then Save As", "the same menu"), a word replaced through its find-and-replace dialog, and the shortcuts every
desktop shares ("open a new tab", "go back", "undo the last change", a folder's path in the location bar)."""

from __future__ import annotations

import re

from .context import FILE_NAME, Context, in_quotes, type_step, value_of

_WHOLE_DOC = r"(?:the\s+)?(?:very\s+)?(?P<end>end|bottom|start|beginning|top)(?:\s+of\s+(?:the\s+|this\s+|my\s+)?" \
             r"(?:file|text|document|doc|note|notes|page|memo|line|letter|sheet|spreadsheet))?"
_AT_PLACE = re.compile(rf"^(?:at|to|on)\s+{_WHOLE_DOC}\s*,?\s*", re.I)  # "at the end of the text, ..."
_PLACE_ALONE = re.compile(rf"^(?:at|to)\s+{_WHOLE_DOC}$", re.I)  # "at the end of the line, add ...": go there first
_PLACE_AFTER = re.compile(rf"\s+(?:(?:at|to|on(?:to)?)\s+{_WHOLE_DOC}|"
                          r"after\s+the\s+last\s+(?:word|line|letter|character)|"
                          r"after\s+(?:the|what(?:'s|\s+is))\s+(?:existing|current|present|there)(?:\s+(?:text|words?|line|"
                          r"contents?))?|after\s+the\s+(?:text|contents?)(?:\s+(?:already\s+)?there)?)$", re.I)
_GO_TO_PLACE = re.compile(rf"^(?:go|jump|move|skip|scroll|head)\s+(?:right\s+|all\s+the\s+way\s+)?(?:down\s+|up\s+)?"
                          rf"to\s+{_WHOLE_DOC}$", re.I)
_FINISH_WITH = re.compile(r"^(?:finish|end|complete|close)\s+(?:off\s+)?(?:the|this)\s+(?:line|text|sentence|note|file|"
                          r"document)\s+with\s+(?P<value>.+)$", re.I)
_APPEND = re.compile(r"^append\s+(?P<value>.+?)(?:\s+(?:to|onto)\s+(?:the\s+|this\s+)?(?:file|text|document|note|"
                     r"memo|line))?$", re.I)
_STYLE_KEYS = {"bold": "ctrl+b", "italics": "ctrl+i", "italic": "ctrl+i", "underlined": "ctrl+u"}
_STYLED = re.compile(r"\s+(?:in\s+)?(?P<style>bold|italics|italic|underlined)(?:\s+(?:type|letters|text))?$", re.I)
_WRITING = re.compile(r"^(?:write|type(?:\s+out)?|write\s+(?:out|down)|jot\s+down|put(?:\s+down)?|enter|add|insert|"
                      r"append|stick|tack|pop|key\s+in|punch\s+in)\s+(?P<value>.+?)(?:\s+(?:in|into)\s+(?:the|this)\s+"
                      r"(?:editor|document|file|text(?:\s+area)?|window|page|note))?(?:\s+instead|\s+over\s+(?:it|that|this|the\s+"
                      r"(?:text|selection)))?$", re.I)
_ALL_TEXT = r"(?:all\s+(?:of\s+)?(?:the\s+|its\s+)?(?:text|contents?|words)|all\s+of\s+it|everything|" \
            r"the\s+(?:whole\s+|entire\s+)?(?:text|contents?|file|document|note|memo))" \
            r"(?:\s+(?:in|of)\s+(?:the\s+|this\s+)?(?:file|document|note|memo|editor|window))?"
_REPLACE_ALL = re.compile(rf"^(?:replace|overwrite|substitute)\s+{_ALL_TEXT}\s+with\s+(?P<value>.+)$|"
                          rf"^(?:change|set|turn|make)\s+{_ALL_TEXT}\s+(?:to|into)\s+(?P<value3>.+)$|"
                          rf"^overwrite\s+(?:it|the\s+file)\s+with\s+(?P<value2>.+)$", re.I)
_CLEAR_ALL = re.compile(rf"^(?:wipe|clear|erase|delete|remove|empty|get\s+rid\s+of)\s+(?:out\s+)?{_ALL_TEXT}$", re.I)
_SELECT_ALL = re.compile(rf"^(?:select|highlight|mark)\s+(?:{_ALL_TEXT}|all(?:\s+(?:of\s+)?(?:the\s+)?"
                         r"(?:files|items|icons|of\s+them))?)$", re.I)
# after a selection: the clipboard's keys ("select all the files and copy them")
_COPY_SELECTED = re.compile(r"^(?P<verb>copy|cut)\s+(?:it|them|that|those|these|the\s+selection|"
                            r"the\s+selected\s+(?:text|files|items))$", re.I)
_DELETE_SELECTED = re.compile(r"^(?:delete|remove|erase|clear)\s+(?:it|them|that|the\s+selection|"
                              r"the\s+selected\s+text)$", re.I)  # after a selection: the Delete key
_FOLDER_WORDS = r"(?:\s+(?:in|inside|into)\s+(?:my\s+|the\s+)?(?P<{}>[A-Z][\w-]*)(?:\s+folder)?)?"
# "put Qt notes into a new file, ...": a new document, and the text in it (its name comes in a later clause)
_INTO_NEW_FILE = re.compile(r"^(?:put|write|type)\s+(?P<text>.+?)\s+(?:in|into)\s+a\s+new\s+(?:file|document)$", re.I)
_NEW_FILE = re.compile(rf"^(?:put|write|type|save|store)\s+(?P<text>.+?)\s+(?:in|into|to)\s+a\s+new\s+file\s+"
                       rf"(?:called\s+|named\s+)?(?P<name>«\d+»|{FILE_NAME}){_FOLDER_WORDS.format('folder')}$|"
                       rf"^(?:make|create)\s+(?:a\s+|an\s+)?(?:new\s+)?(?:file\s+)?(?:called\s+|named\s+)?"
                       rf"(?P<name2>«\d+»|{FILE_NAME}){_FOLDER_WORDS.format('folder2')}\s+(?:containing|that\s+says|"
                       r"saying|with\s+the\s+(?:text|words?))\s+(?P<text2>.+)$", re.I)
_SAVE_VERB = re.compile(r"^(?:save|saved|store|stored|keep|write)\b", re.I)
_SAVED_THING = re.compile(r"^(?:(?:it|this|that|them|your\s+(?:changes|work|edits)|the\s+changes|my\s+(?:changes|work)|"
                          r"(?:the\s+|this\s+|a\s+|a\s+new\s+)?(?:file|document|doc|text|note|sheet|spreadsheet|"
                          r"workbook|memo|letter))\b\s*)", re.I)
_CONTENT = re.compile(r"\s+(?:that\s+says|saying|containing|which\s+says|with\s+the\s+(?:text|words?)|reading)\s+"
                      r"(?P<value>.+)$", re.I)
_NAMING = r"(?:as|under\s+the\s+name|with\s+the\s+name|named|called|to)"
_IN_FOLDER = re.compile(r"(?:^|\s+)(?:in|inside|into|under|to|within|on)\s+(?:my\s+|the\s+|your\s+)?(?P<folder>[~/]"
                        r"[\w~/.-]*|[A-Z][\w-]*)(?:\s+(?:folder|directory))?(?=\s|$)")
_CALL_IT = re.compile(rf"^(?:call|name)\s+(?:it|this|the\s+file|the\s+document)\s+(?P<name>«\d+»|{FILE_NAME}|\S+)$|"
                      rf"^(?:the\s+)?(?:file\s*name|name)\s*(?::|=|is)?\s+(?P<name3>«\d+»|{FILE_NAME})$|"
                      rf"^use\s+(?:file\s*>\s*)?save\s+as\s+to\s+(?:call|name)\s+it\s+(?P<name2>«\d+»|{FILE_NAME})$",
                      re.I)
_PRESS_SAVE = re.compile(r"^(?:(?:click|press|hit|tap|push)\s+(?:on\s+)?(?:the\s+)?)?(?:save|ok|okay)(?:\s+button)?$",
                         re.I)
_SAVE_PLAIN = re.compile(r"^(?:save|store|keep)(?:\s+(?:it|this|that|your\s+(?:changes|work|edits)|the\s+changes|"
                         r"(?:the\s+)?(?:file|document|doc|text|sheet|spreadsheet|workbook|memo|letter|note)))?"
                         r"(?:\s+(?:again|now))?$", re.I)
COPY_RESULT = re.compile(r"^copy\s+(?:the\s+|that\s+|this\s+)?(?:answer|result|total|sum|product|value|number|it|"
                          r"what\s+it\s+(?:shows|says)|what(?:'s|\s+is)\s+(?:shown|on\s+the\s+display)|display)"
                          r"(?:\s+(?:to|onto|into)\s+the\s+clipboard)?$", re.I)
_MENU = re.compile(r"\s*,?\s+(?:from|using|through|via|with|in)\s+(?:the\s+)?(?P<menu>[A-Z]?\w+)\s+menu$|"
                   r"^(?:use\s+the\s+(?P<menu2>[A-Z]?\w+)\s+menu\s+to|(?:from|in|using|via|through)\s+the\s+"
                   r"(?P<menu3>[A-Z]?\w+)\s+menu\s*,?)\s+", re.I)
# "use Edit > Copy to copy it", "go to File > Save As": a menu and its item
_MENU_PATH = re.compile(r"^(?:(?i:use|choose|click|pick|select|go\s+to|open|in|from|via|through)\s+)?"
                        r"(?P<menu>[A-Z]\w+)\s*>\s*"
                        r"(?P<item>«\d+»|[A-Z]\w*(?:\s+(?:[A-Z]\w*|and|or|of))*)"
                        r"(?:\s+to\s+(?P<purpose>(?!(?i:call|name)\b)[a-z][^>]*))?$")  # "to copy it": what it does
# "change milk into bread", "swap milk for bread", "replace milk with bread": a text in the document for another
_REPLACE_TEXT = re.compile(r"^(?:replace|change|swap|turn|switch|substitute)\s+(?:every\s+|each\s+|all\s+)?"
                           r"(?:the\s+word\s+)?(?P<old>«\d+»|[\w'-]+)\s+(?:with|into|for|to|by)\s+(?:the\s+word\s+)?"
                           r"(?P<new>«\d+»|[\w'-]+)$", re.I)
# "swap milk for bread using Find and Replace"; "using Find and Replace" alone, its change in the next clause
_USING_A_DIALOG = re.compile(r"^(?:(?P<change>.+?)\s+(?:using|with|via|through|in)|using|with|via|through|in|open)\s+"
                             r"(?:the\s+)?(?P<item>«\d+»)(?:\s+(?:dialog|window|tool|feature|option))?$", re.I)
# "use Save As in the File menu to save it as list.txt": an item, then its menu
_ITEM_IN_MENU = re.compile(r"^(?i:use|choose|pick|click(?:\s+on)?)\s+(?P<item>[A-Z][\w ]*?)\s+(?i:in|from|on)\s+"
                           r"(?i:the\s+)?(?P<menu>[A-Z]\w+)\s+(?i:menu)(?:\s+(?i:to)\s+(?P<purpose>[a-z].*))?$")
_SAME_MENU = ("same", "that", "this", "previous")  # "pick Copy from the same menu": the menu opened before
_MENU_COMMANDS = {"copy": "Copy", "paste": "Paste", "cut": "Cut", "undo": "Undo", "redo": "Redo", "save": "Save"}
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
# "go to ~/Documents/Archive using the location bar": a folder's path typed where ctrl+l puts the keys (a file
# manager's or a file dialog's location, a browser's address)
# "type ~/Documents/Archive into the location bar": the path where ctrl+l puts the keys
_PATH_INTO_BAR = re.compile(r"^(?:type|enter|put|write|paste)\s+(?P<path>«\d+»|[~/][\w~/.-]*)\s+(?:in|into)\s+"
                            r"(?:the\s+)?(?:location|address|path)\s*(?:bar|field|box|entry)$", re.I)
_GO_TO_PATH = re.compile(r"^(?:go\s+to|open|navigate\s+to|browse\s+to|visit|jump\s+to)\s+"
                         r"(?:the\s+(?:folder|directory)\s+)?(?P<path>«\d+»|[~/][\w~/.-]*)(?:\s+(?:using|with|in|via|from|through|by)\s+(?:the\s+)?"
                         r"(?:location|address|path)\s*(?:bar|field|box|entry)?)?$", re.I)
_FIND_IN_TEXT = re.compile(r"^(?:find|search\s+for|look\s+for|locate)\s+(?P<value>.+?)\s+(?:in|on|within)\s+"
                           r"(?:the|this)\s+(?:text|document|file|page|note)$", re.I)


_OPEN_MENU = re.compile(r"^(?i:open|click(?:\s+on)?|go\s+to)\s+(?:the\s+)?(?P<menu>[A-Z]\w+)(?i:\s+menu)?$")
_MENU_ALONE = re.compile(r"^(?:using|from|in|via|through|with)\s+the\s+(?P<menu>[A-Z]?\w+)\s+menu$", re.I)


def says_a_menu(words: str, context: Context) -> bool:
    """Whether the clause is said through a menu (its own words, or "use the Edit menu to ..." before it), or
    opens a menu of the menu bar by its name alone ("open Edit")."""
    opened = _OPEN_MENU.match(words)
    return bool(context.menu or _MENU_PATH.match(words) or _MENU.search(words) or _MENU_ALONE.match(words)
                or _ITEM_IN_MENU.match(words) or opened and context.screen.menu(opened.group("menu")))


def menu_steps(words: str, context: Context) -> list[str] | None:
    """A clause said through a menu: "use Edit > Copy", "copy the result from the Edit menu", "use the Edit menu to
    select everything" (and the clauses after it), "from the Edit menu choose Select All": the menu opened and its
    item chosen. None where the clause names no menu, or one whose item it does not say."""
    opened = _OPEN_MENU.match(words)
    if opened and context.screen.menu(opened.group("menu")):  # "open Edit": the menu bar's Edit menu
        context.last_menu = opened.group("menu")
        return [f"open the {opened.group('menu')} menu"]
    alone = _MENU_ALONE.match(words)
    if alone:  # "Using the Edit menu, select all and then copy": the clauses after it
        context.menu = alone.group("menu")
        return []
    path = _MENU_PATH.match(words) or _ITEM_IN_MENU.match(words)
    if path:
        return _menu_item(path.group("menu"), context.quoted.restore(path.group("item"), keep_quotes=False),
                          path.group("purpose"), context)
    menu = _MENU.search(words)
    if menu:
        words = (words[:menu.start()] + " " + words[menu.end():]).strip()
        if menu.group("menu2") or menu.group("menu3"):
            context.menu = menu.group("menu2") or menu.group("menu3")  # "use the Edit menu to select all and copy"
    chosen = menu.group("menu") if menu and menu.group("menu") else context.menu
    if chosen and chosen.lower() in _SAME_MENU:
        chosen = context.last_menu
    through = _through_menu(words, chosen) if chosen else None
    if through:
        context.last_menu = chosen
    return through


def _menu_item(menu: str, item: str, purpose: str | None, context: Context) -> list[str]:
    """A menu's item chosen, and what the task says it is for: "... Find and Replace to change milk into bread"
    (its two fields, its Replace), "... Save As to save it as list.txt" (the name its dialog takes)."""
    context.last_menu = menu
    steps = [f"open the {menu} menu", f"choose {in_quotes(item)}"]
    replaced = _replacing(purpose, context) if purpose and "replace" in item.lower() else None
    if replaced:
        return [*steps, *replaced]
    named = saving(purpose, context) if purpose else None
    context.replace_dialog = not purpose and "replace" in item.lower()  # "..., replace milk with bread" fills it
    return [*steps, *named] if named and context.saved_as else steps


def replacing_with_a_dialog(words: str, context: Context) -> list[str] | None:
    """"Swap milk for bread using Find and Replace": the editor's find-and-replace dialog, opened from the menu
    the screen shows that holds it in desktop editors (Search, else Edit), and filled in; "replace milk with bread"
    right after a clause that opened it: filled in."""
    if context.replace_dialog:
        context.replace_dialog = False
        return _replacing(words, context)
    match = _USING_A_DIALOG.match(words)
    menu = next((m for m in ("Search", "Edit") if context.screen.menu(m)), None)
    item = context.quoted.restore(match.group("item"), keep_quotes=False) if match else ""
    if match is None or menu is None or "replace" not in item.lower():
        return None
    if match.group("change") is None:  # "using Find and Replace, replace milk with bread"
        return _menu_item(menu, item, None, context)
    replaced = _replacing(match.group("change"), context)
    if replaced is None:
        return None
    context.last_menu = menu
    return [f"open the {menu} menu", f"choose {in_quotes(item)}", *replaced]


def _replacing(words: str, context: Context) -> list[str] | None:
    """"change milk into bread" in a find-and-replace dialog just opened: what to find in its first field, what to
    put instead in its second, its Replace, and the dialog closed."""
    match = _REPLACE_TEXT.match(words)
    if match is None:
        return None
    old, new = (value_of(match.group(g), context) for g in ("old", "new"))
    if old is None or new is None:
        return None
    return [f"{type_step(old)} into the first text field", f"{type_step(new)} into the second text field",
            'click "Replace"', "close the dialog"]


def _through_menu(words: str, menu: str) -> list[str] | None:
    """"Copy the result from the Edit menu", "use the Edit menu to select everything": the menu's own items."""
    lower = words.lower()
    if _SELECT_ALL.match(words) or lower in ("select all", "select everything"):
        items = ["Select All"]
    elif re.fullmatch(rf"copy\s+{_ALL_TEXT}(?:\s+(?:to|onto|into)\s+the\s+clipboard)?", words, re.I):
        items = ["Select All", "Copy"]
    elif COPY_RESULT.match(words) or lower == "copy":
        items = ["Copy"]
    elif lower.split(" ", 1)[0] in _MENU_COMMANDS and re.fullmatch(r"\w+(?:\s+(?:it|this|that|the\s+file))?", lower):
        items = [_MENU_COMMANDS[lower.split(" ", 1)[0]]]
    elif chosen := re.fullmatch(r"(?:(?:choose|click|pick|select)\s+(?:on\s+)?)?(?P<item>[A-Z][\w ]*?\w)", words):
        items = [chosen.group("item")]  # "from the Edit menu choose Select All", "..., Save As": the item as named
    else:
        return None
    return [step for item in items for step in (f"open the {menu.capitalize()} menu", f'choose "{item}"')]


def editing(words: str, context: Context) -> list[str] | None:
    """Typing at a place in a document, replacing or clearing all its text, going to its end."""
    go = _GO_TO_PLACE.match(words) or _PLACE_ALONE.match(words)
    if go:
        return [_place_key(go.group("end"))]
    if _SELECT_ALL.match(words):
        context.selected = True
        return ["press ctrl+a"]
    if re.fullmatch(rf"copy\s+{_ALL_TEXT}(?:\s+(?:to|onto|into)\s+the\s+clipboard)?", words, re.I):
        return ["press ctrl+a", "press ctrl+c"]
    if context.selected and _DELETE_SELECTED.match(words):
        return ["press Delete"]
    copied = _COPY_SELECTED.match(words) if context.selected else None
    if copied:
        return [f"press ctrl+{'x' if copied.group('verb').lower() == 'cut' else 'c'}"]
    if _CLEAR_ALL.match(words):
        return ["press ctrl+a", "press Delete"]
    replace = _REPLACE_ALL.match(words)
    if replace:
        value = value_of(replace.group("value") or replace.group("value2") or replace.group("value3"), context)
        return None if value is None else ["press ctrl+a", type_step(value)]
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
    value = value_of(writing.group("value"), context)
    return None if value is None else [*keys, type_step(value)]


def _place_key(end: str) -> str:
    return "press ctrl+End" if end.lower() in ("end", "bottom") else "press ctrl+Home"


def saving(words: str, context: Context) -> list[str] | None:
    """Save as a name (in a folder), with the text the file should hold; a plain save; naming a file in a save
    dialog."""
    call = None if context.new_folder else _CALL_IT.match(words)  # "new folder, call it X": the folder's name
    if call:
        return _saved_as(call.group("name") or call.group("name2") or call.group("name3"), context.save_folder, context)
    if _SAVE_PLAIN.match(words) or (context.saved_as and _PRESS_SAVE.match(words)):
        if context.dialog_unsaved:
            context.dialog_unsaved = False
            return ["press Enter"]  # the dialog's own Save (or OK)
        if context.saved_as:
            return []  # the save as before saved it
        return ["press Enter"] if context.screen.save_dialog else ["press ctrl+s"]
    into_new = _INTO_NEW_FILE.match(words)
    if into_new and (text := value_of(into_new.group("text"), context)) is not None:
        return ["press ctrl+n", type_step(text)]
    new_file = _NEW_FILE.match(words)
    if new_file:  # "put Dear team in a new file memo.txt (in Documents)", "make a file qt.txt containing Qt notes"
        text = value_of(new_file.group("text") or new_file.group("text2"), context)
        if text is None:
            return None
        return [type_step(text), *_saved_as(new_file.group("name") or new_file.group("name2"),
                                            new_file.group("folder") or new_file.group("folder2"), context)]
    if not _SAVE_VERB.match(words):
        return None
    rest = words.split(None, 1)[1] if " " in words else ""
    content = _CONTENT.search(" " + rest)
    typed: list[str] = []
    if content:
        value = value_of(content.group("value"), context)
        if value is None:
            return None
        typed, rest = [type_step(value)], (" " + rest)[:content.start()].strip()
    folder = _IN_FOLDER.search(rest)
    folder_name = None
    if folder:
        folder_name, rest = folder.group("folder"), (rest[:folder.start()] + " " + rest[folder.end():]).strip()
    rest = _SAVED_THING.sub("", rest).strip()
    if not rest and folder_name:  # "save the file to Documents, name it x.txt": the name comes later
        context.save_folder = folder_name
        return [*typed]
    said = re.fullmatch(rf"(?P<text>.+?)\s+as\s+(?P<name>«\d+»|{FILE_NAME})", rest, re.I)
    if said and not typed and (text := value_of(said.group("text"), context)) is not None:
        typed, rest = [type_step(text)], f"as {said.group('name')}"  # "save Dear team as memo.txt": write it, save it
    name = re.fullmatch(rf"(?P<naming>{_NAMING}\s+)?(?:a\s+file\s+(?:called|named)\s+)?(?P<name>«\d+»|{FILE_NAME})",
                        rest, re.I)
    if name is None:
        name = re.fullmatch(rf"(?P<naming>(?:a\s+)?(?:new\s+)?file\s+(?:called|named)\s+)(?P<name>«\d+»|{FILE_NAME})",
                            rest, re.I)
    said_name = context.quoted.restore(name.group("name"), keep_quotes=False) if name else ""
    if name is None or not (name.group("naming") or re.fullmatch(FILE_NAME, said_name)):
        return None  # "write ' thanks'": a text to write, not a name to save as
    return [*typed, *_saved_as(name.group("name"), folder_name, context)]


def _saved_as(name: str, folder: str | None, context: Context) -> list[str]:
    """Save as `name` (in `folder`): in a file dialog the screen shows, its Name field, then Enter (its Save or OK,
    pressed where the task says to, else at the end); elsewhere the grammar's save as."""
    context.saved_as = True
    plain = context.quoted.restore(name, keep_quotes=False)
    if context.screen.save_dialog:
        context.dialog_unsaved = context.screen_bound = True
        return [f"set the Name field to {in_quotes(plain if folder is None else f'~/{folder}/{plain}')}"]
    return [f"save the file as {in_quotes(plain)}" + (f" in {folder}" if folder else "")]


def by_shortcut(words: str, context: Context) -> list[str] | None:
    """Commands every desktop binds to the same keys, said in words: "open a new tab", "reload the page", "go back",
    "undo the last change", "show hidden files", "go up a folder", "zoom in"; a web address visited; a word found in
    the document."""
    for pattern, keys in _SHORTCUTS:
        if pattern.match(words):
            return [f"press {keys}"]
    visit = _VISIT.match(words)
    if visit:
        return ["press ctrl+l", type_step(context.quoted.restore(visit.group("address"), keep_quotes=False)),
                "press Enter"]
    into_bar = _PATH_INTO_BAR.match(words)
    if into_bar:
        where = context.quoted.restore(into_bar.group("path"), keep_quotes=False)
        return None if '"' in where else ["press ctrl+l", type_step(where)]
    path = _GO_TO_PATH.match(words)
    if path:
        where = context.quoted.restore(path.group("path"), keep_quotes=False)
        if where.startswith(("~", "/")) and '"' not in where:
            return ["press ctrl+l", type_step(where), "press Enter"]
    find = _FIND_IN_TEXT.match(words)
    if find:
        value = value_of(find.group("value"), context)
        return None if value is None else ["press ctrl+f", type_step(value)]
    return None

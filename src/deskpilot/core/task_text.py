"""What a task's words give without reading the screen: its quoted values ('Type "Ada"' gives Ada) and unquoted
literals ('Enter 01/28/2011 as the date' gives 01/28/2011), its shape (the
task with each quoted value blanked), which tells two tasks that differ only in their values, one spelling of
ordinals ('the third field' and 'the 3rd field' say the same), and the controls it names by rank ('the 3rd
textbox': the third field), and the letter case it asks the typed text in ('in capital letters')."""

from __future__ import annotations

import difflib
import re

from .rule_packs import active

# A quoted string: in double quotes or guillemets, or in single quotes that stand outside words (the apostrophe of
# "I'd like "Own money"" opens nothing).
QUOTED = re.compile(r"(?:[\"“«]|(?<!\w)')([^\"”»']{1,80})(?:[\"”»]|'(?!\w))")


# A number, date, time or amount of two digits or more (1991, 01/28/2011, 3:48 AM, $3.50), a telephone number
# written in groups (+44 20 7946, 07700 900123), or a handle (@ada), standing as a word of its own: one digit alone
# is more often part of a name ('Tab #2') or a count, and a rank ('3rd') is read by ranked_references.
LITERAL = re.compile(r"(?<![\w#@$./:,+-])(?:@\w+|\+\d{1,4}(?:[ -]\d{2,})*|0\d{2,}(?: \d{3,})+"
                     r"|[$€£]?\d[\d/:.,-]*\d(?:\s?[AaPp][Mm]\b)?)(?![\w@])")


# An arrow written between a menu and its item ("Edit → Copy", "File -> Save As"): the grammar's ">".
MENU_ARROW = re.compile(r"\s*(?:→|⟶|➔|➜|⇒|->)\s*")


def menu_paths(task: str) -> str:
    """The task with each arrow between a menu and its item written as " > " ("Edit → Copy": "Edit > Copy"),
    quoted values kept as the task gives them."""
    kept = [m.span() for m in QUOTED.finditer(task)]
    return MENU_ARROW.sub(lambda m: m.group() if any(a <= m.start() < b for a, b in kept) else " > ", task)


def task_values(task: str) -> list[str]:
    """What the task gives to type or find: its quoted strings, in order."""
    return [m.group(1).strip() for m in QUOTED.finditer(task) if m.group(1).strip()]


# A quoted name the task asks to tick, untick or click ('tick "Remember me"', 'click the "Save" button'): a
# control's name, not a value to type (an option chosen, 'select "Blue"', may be typed into its combo box).
ACTED_ON = re.compile(r"\b(?:tick|untick|check|uncheck|mark|unmark|click|tap|press|hit|enable|disable)\s+"
                      r"(?:on\s+)?(?:the\s+)?(?:(?:box|checkbox|button|link|tab)\s+)?[\"“«]([^\"”»]{1,80})[\"”»]", re.I)


def names_acted_on(task: str) -> list[str]:
    """The quoted names of controls the task asks to tick, untick or click, less any it also gives to type."""
    typed = {m.group(1).strip().lower() for m in QUOTED.finditer(ACTED_ON.sub(" ", task))}
    return [name for m in ACTED_ON.finditer(task) if (name := m.group(1).strip()) and name.lower() not in typed]


def literal_values(task: str) -> list[str]:
    """What the task gives to type or find without quoting it: numbers, dates, times and @handles outside its
    quoted strings, in order ('Enter 01/28/2011 as the date', 'For the user @ada, click Reply')."""
    return [m.group(0) for m in LITERAL.finditer(QUOTED.sub('""', task))]


# How a task asks its typed text to be cased: "in upper case", "in all lower-case letters", "in capital letters",
# "in block capitals", "using small letters", "in caps", "all caps". The case word stands after "in", "using",
# "with" or "all", with "case", "letters" or "capitals" beside it (or is "caps" / "capitals" itself): "the capital
# city field", "the lower button" and "into the Upper case field" say no case.
LETTER_CASE = re.compile(
    r"\s*\b(?:(?:in|using|with)\s+(?:all\s+)?|all\s+)"
    r"(?:(?P<case>lower|upper|capital|small|block)(?:[\s-]*case(?:\s+letters)?|\s+letters|\s+capitals)"
    r"|(?P<caps>caps|capitals))\b", re.I)


def letter_case(text: str) -> str | None:
    """The case `text` asks typed text to be in ("lower" or "upper"), if it asks for one."""
    match = LETTER_CASE.search(text)
    if not match:
        return None
    return "lower" if (match.group("case") or "").lower() in ("lower", "small") else "upper"


def in_case(text: str, case: str) -> str:
    """`text` in `case` (as letter_case names it)."""
    return text.lower() if case == "lower" else text.upper()


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve")  # counts people say in words ("make it three copies")
ORDINALS = {word: f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}" for n, word in enumerate(
    ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"), 1)}
_ORDINAL_WORD = re.compile(r"\b(" + "|".join(ORDINALS) + r")\b", re.I)
WORD = re.compile(r"[^\W_]+")


def said_in(typed: str, task: str, fold: bool = True) -> bool:
    """Whether every word of a typed text is a word of the task (a count said in words counts as its digits): a
    value the person never gave is the agent's invention, not their goal. `fold`: the characters OCR confuses
    count as one (a text read off the screen); without it a model's "1" is not the "I" of "I'd like"."""
    same = look_alike if fold else str
    # words first, folded after: a task's "GBP!" is the word "GBP" ("!" folds to "l", as OCR confuses them)
    said = WORD.findall(task.lower())
    words = {same(word) for word in said} | {same(str(number)) for number, name in enumerate(NUMBER_WORDS)
                                             if name in said}  # "five" before folding (which makes it "flve")
    return all(same(word) in words for word in WORD.findall(typed.lower()))


SAME_SPELLING = 0.8  # how alike (difflib's ratio) a typed text and the task's words must be to be those words


def task_spelling(typed: str, task: str) -> str | None:
    """The task's own words that a typed text misspells, as the task writes them: the run of as many of the task's
    words that reads most like it, where that is alike enough (SAME_SPELLING) and not the same ("Kathleen Johnson"
    -> "Katherine Johnson"); else None."""
    words = task.split()
    size = len(typed.split())
    best, score = None, SAME_SPELLING
    for start in range(len(words) - size + 1):
        span = " ".join(words[start:start + size]).strip(".,;:!?\"'“”")
        ratio = difflib.SequenceMatcher(None, span.lower(), typed.lower()).ratio()
        if ratio >= score and span != typed:
            best, score = span, ratio
    return best


def counts(task: str) -> bool:
    """Whether the task says a number (in digits, or a count in words): a number worked out from it (a sum, a
    total) is the task's too."""
    words = set(WORD.findall(task.lower()))
    return any(word.isdigit() for word in words) or any(name in words for name in NUMBER_WORDS)


def numbered_ordinals(task: str) -> str:
    """The task with spelled ordinals outside its quoted values written in digits ('the third box' -> 'the 3rd
    box'), so that a model reads one spelling of each."""
    def in_digits(words: str) -> str:
        return _ORDINAL_WORD.sub(lambda m: ORDINALS[m.group(1).lower()], words)

    parts: list[str] = []
    start = 0
    for quoted in QUOTED.finditer(task):
        parts += [in_digits(task[start:quoted.start()]), quoted.group(0)]
        start = quoted.end()
    return "".join(parts) + in_digits(task[start:])


# what a task calls a kind of control -> the family its rank counts in (see planner/som_text.py); longer names first
_RANKED_NOUNS = {"radio button": "radio", "text box": "field", "textbox": "field", "text field": "field",
                 "check box": "checkbox", "checkbox": "checkbox", "field": "field", "input": "field",
                 "dropdown": "field", "button": "button", "link": "link", "tab": "tab", "item": "list_item",
                 "box": "field"}
_NOUN = "(?:" + "|".join(_RANKED_NOUNS) + ")"
_RANK_REFERENCE = re.compile(rf"\b(?P<rank>\d{{1,2}})(?:st|nd|rd|th)\s+(?:[a-z-]+\s+){{0,2}}?"
                             rf"(?:{_NOUN}\s+)?(?P<noun>{_NOUN})(?:es|s)?\b", re.I)  # "text input box": the last


def kind_named(value: str) -> tuple[str, ...]:
    """The roles of the controls a value names when the value is the name of a kind of control (`checkbox`) in the
    rule pack turned on, else none."""
    return active().quoted_kinds.get(normalised(value), ())


def ranked_references(task: str) -> dict[tuple[str, int], str]:
    """The controls the task names by their rank, as (family, rank) -> the words that name it: 'Click into the
    third text box' gives {("field", 3): "3rd text box"}, 'check the 2nd checkbox' {("checkbox", 2):
    "2nd checkbox"}."""
    return {(_RANKED_NOUNS[m["noun"].lower()], int(m["rank"])): m.group(0)
            for m in _RANK_REFERENCE.finditer(numbered_ordinals(QUOTED.sub('""', task)))}


def normalised(text: str) -> str:
    """Lower case, punctuation as spaces, single spaces: how names and phrases are compared."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


_LOOK_ALIKES = str.maketrans("qi1|!05", "gllllos")


def look_alike(text: str) -> str:
    """Lower case with the characters OCR confuses folded together (0 and o, 1, i, l, | and !, 5 and s, and q and g,
    which an underline turns into each other): how a word read off the screen is compared with one typed."""
    return text.lower().translate(_LOOK_ALIKES)


def task_shape(task: str) -> str:
    """The task with every quoted value blanked, lower case, single spaces: equal shapes mean the same task with
    other values."""
    return " ".join(QUOTED.sub('"…"', task).lower().split())

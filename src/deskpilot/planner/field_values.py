"""Which value a task gives each field it names, read against the labels the screen shows: 'set Amount to 7.99', 'the
currency is "GBP"', 'insert Café Roma into the Merchant field', 'my full name is Li Wei', 'Category: Meals', 'three
copies', 'make the Full name Li Wei', 'type "ng" in capitals into Surname' (NG), 'open the Category and choose
Supplies'. The planner types a value into its own field with it, and the goal check holds each named field to its
value. It reads English's ways of giving a thing a value — a label and a value in one clause, joined by a word that
assigns (is, to, as, with, should read, into, for, ':'), or a clause of a label and its value alone ("city London")
— and binds nothing it cannot tell apart (two values, two labels, a value run into instruction words): an unbound
field is left to the model and the other checks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deskpilot.core.task_text import LETTER_CASE, NUMBER_WORDS, in_case, letter_case, normalised

# A task's pieces: quoted strings, e-mail addresses, things with digits (7.99, R-1001, +44, 12/24/2026), words,
# the marks that assign (":" "="), and the marks that end a clause (a "." in 7.99 is not one).
_TOKEN = re.compile(r"""(?P<quoted>["“«][^"”»]{1,80}["”»]|(?<!\w)'[^']{1,80}'(?!\w))
                      |(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
                      |(?P<number>[+$€£]?(?:[^\W_][\w-]*)?\d[\w/:.,-]*(?<![.,:-]))
                      |(?P<word>[^\W\d_][\w'’-]*(?:[./][\w-]+)*)
                      |(?P<assign>[:=])
                      |(?P<stop>[,;!?]|\.(?!\w))""", re.X)
# Words that end one clause and start the next ("set Amount to 5 and Currency to EUR").
JOINS = frozenset("and then also plus but next after finally lastly".split())
# Words that join a label to the value after it: "Amount is 5", "Team to Garden", "Name should read Ada".
AFTER = frozenset("is are was be becomes become to as with read reads say says show shows contain contains equal "
                  "equals".split()) | {":", "="}
# Words that may stand between a label and that joining word: "the Name field should read", "Amount needs to be".
BETWEEN = frozenset("field box list drop-down dropdown menu value entry text number address should must will would "
                    "needs need has have now set it over".split())
# Words that join a value to the label after it: "Ada into the Name field", "7.99 as the amount", "M for size".
BEFORE = frozenset("into in as for under on from".split())  # "from": "pick Spain from the Country list"
OPTION_WORDS = frozenset("option item choice entry value".split())  # "the Evening option from Shift"
OPENS = frozenset("open click expand".split())  # "open the Category and choose Supplies": a list opened to choose
CHOOSES = frozenset("choose select pick".split())
NAMING = frozenset("make set call name".split())  # "make the Full name Li Wei": the value right after the label
PLACED = frozenset("goes go belongs belong should must will can".split())  # "X goes in Y": X is Y's value
DETERMINERS = frozenset("the a an my our your their this that its".split())
# Words that are never part of an unquoted value: instruction verbs, pronouns, modals, politeness.
NOT_VALUE = DETERMINERS | JOINS | AFTER | BETWEEN | BEFORE | OPTION_WORDS | frozenset(
    """type enter put write input insert record fill use make change update replace key choose select pick prefer
    add append switch go open check tick mark turn click press hit tap push want like love wish please kindly thanks
    thank i i'd i'm i’d i’m me we us you it it's let let's could can may of at from by or not no so if just down up
    set clear empty erase delete remove leave keep out off goes go belongs belong he she they them who where when
    what which how""".split())
SUBJECTS = frozenset("i it we you he she they who which that".split())  # a word after one is its verb
MAX_VALUE_WORDS = 5
DISTINCT = 4  # letters a word of a label needs to name that label alone ("name" of "Full name")


@dataclass(frozen=True)
class _Token:
    kind: str  # quoted, email, number, word, assign, stop
    text: str

    @property
    def value(self) -> str:
        return self.text[1:-1].strip() if self.kind == "quoted" else self.text

    @property
    def key(self) -> str:
        return self.text.lower()

    @property
    def given(self) -> bool:
        """A value on its own, whatever words stand around it: quoted, an address, something with digits."""
        return self.kind in ("quoted", "email", "number")


def field_values(task: str, labels: Sequence[str], texts: Sequence[str] = ()) -> dict[str, str]:
    """The value the task gives each of `labels` (the screen's field labels) it names, by label; a label the task
    names with two different values, or with none it can tell, is left out. `texts`: the screen's other texts (a
    check box's "Has receipt"), whose words cannot name a field alone. A label of no word but articles and single
    letters ("A", an icon read as a letter) names nothing a task says ("make a new folder")."""
    names = {label: words for label in dict.fromkeys(labels) if (words := normalised(label).split())
             and any(len(word) > 1 and word not in DETERMINERS for word in words)}
    shown = {word for text in texts for word in normalised(text).split()}
    found: dict[str, set[str]] = {}
    case = letter_case(task)  # "type "ng" in capitals into Surname": NG, and "capitals" is no value
    clauses = _clauses(LETTER_CASE.sub("", task) if case else task)
    for number, clause in enumerate(clauses):
        mentions = _mentions(clause, names, shown)
        candidates = [i for i, token in enumerate(clause) if token.given and not any(s <= i < e for _, s, e in
                                                                                      mentions)]
        said = list(dict.fromkeys(label for label, _, _ in mentions))
        for label in said:
            places = [(start, end) for other, start, end in mentions if other == label]
            value = next((v for start, end in places if (v := _joined(clause, start, end))), None)
            if value is None and len(said) == 1 and len(candidates) == 1:
                start, end = places[-1]  # one label, one value: "7.99 please, for the amount"
                value = _around(clause, candidates[0], start, end)
            if value is None and len(said) == 1 and number + 1 < len(clauses):
                value = _chosen_next(clause, places[0][0], clauses[number + 1], names, shown)
            if value:
                found.setdefault(label, set()).add(in_case(value, case) if case else value)
    return {label: values.pop() for label, values in found.items() if len(values) == 1}


def _clauses(task: str) -> list[list[_Token]]:
    tokens = [_Token(m.lastgroup or "word", m.group(0)) for m in _TOKEN.finditer(task)]
    clauses: list[list[_Token]] = [[]]
    for token in tokens:
        if token.kind == "stop" or (token.kind == "word" and token.key in JOINS):
            clauses.append([])
        else:
            clauses[-1].append(token)
    return [clause for clause in clauses if clause]


def _mentions(clause: list[_Token], names: dict[str, list[str]], shown: set[str]) -> list[tuple[str, int, int]]:
    """The labels a clause says, as (label, first token, token after the last); longer labels first, no two on the
    same words, each place a label is said ("12 Baker Street in the Street box"). A label's words may be split by its
    hyphens ("T-shirt size")."""
    words: list[tuple[str, int]] = []  # each word of the clause's words (hyphens split) with its token's index
    for index, token in enumerate(clause):
        if token.kind == "word":
            words += [(part, index) for part in normalised(token.text).split()]
    taken: set[int] = set()
    mentions = []
    for label, parts in sorted(names.items(), key=lambda item: (-len(item[1]), -len("".join(item[1])))):
        for at in range(len(words)):
            count = _said_at(words, at, parts)
            if count:
                start, end = words[at][1], words[at + count - 1][1] + 1
                if not taken & set(range(start, end)):
                    taken |= set(range(start, end))
                    mentions.append((label, start, end))
    if mentions:
        return mentions
    # None said whole: a word of one label that no other label or text has ("my name is ..." for "Full name")
    for label, parts in names.items():
        others = shown | {part for other, other_parts in names.items() if other != label for part in other_parts}
        own = {part for part in parts if len(part) >= DISTINCT and part not in NOT_VALUE and part not in others}
        mentions += [(label, index, index + 1) for word, index in words if word in own][:1]
    return mentions if len(mentions) == 1 else []


def _said_at(words: list[tuple[str, int]], at: int, parts: list[str]) -> int:
    """How many of `words` from `at` say a label of these `parts` (0: none): word for word, or with its words run
    together as OCR reads a label whose spaces it drops ("Receiptnumber" for "receipt number")."""
    if [w for w, _ in words[at:at + len(parts)]] == parts:
        return len(parts)
    wanted, joined = "".join(parts), ""
    for count, (word, _) in enumerate(words[at:], 1):
        joined += word
        if joined == wanted:
            return count if count > 1 else 0  # one word alike is the word-for-word case
        if not wanted.startswith(joined):
            return 0
    return 0


def _joined(clause: list[_Token], start: int, end: int) -> str | None:
    """The value a word that assigns joins to the label at clause[start:end]: after it ("Amount should be 7.99",
    "Team to Garden") or before it ("Ada into the Name field", "three copies"); None when there is none."""
    after = end
    while after < len(clause) and clause[after].key in BETWEEN:
        after += 1
    if after < len(clause) and clause[after].key == "from":  # "change Amount from 5 to 7": what it holds now
        after = next((i for i in range(after + 1, min(after + 1 + MAX_VALUE_WORDS, len(clause)))
                      if clause[i].key == "to"), len(clause))
    if after < len(clause) and clause[after].key in AFTER:
        while after + 1 < len(clause) and clause[after + 1].key in AFTER | BETWEEN:
            after += 1  # "to be", "should be set to"
        value = _run(clause[after + 1:])
        if value:
            return value
    before = start - 1
    while before >= 0 and clause[before].key in DETERMINERS:
        before -= 1
    if before >= 0 and clause[before].key in BEFORE:
        while before > 0 and clause[before - 1].key in PLACED | OPTION_WORDS:
            before -= 1  # "news.site goes in the Home page", "the XL option from the size"
        return _run(clause[:before][::-1], backwards=True) or _before_where(clause, before - 1)
    if before >= 0 and (value := _before_where(clause, before)):
        return value  # "type Ada where it says Name"
    if before >= 0 and before == start - 1 and (count := _count(clause[before])):
        return count  # "three copies", "5 hours per week": a count said right before what it counts
    if before >= 0 and clause[before].key in NAMING and after < len(clause):
        return _run(clause[after:])  # "make the Full name Li Wei": the label, then its value
    opens = all(token.key in DETERMINERS for token in clause[:start]) or clause[start - 1].key == ":"
    if opens and end < len(clause) and (value := _run(clause[end:])) is not None and \
            len(value.split()) == len(clause) - end:
        return value  # "..., last name Lovelace, the city London", "the form: First name Ada": a clause of the
        # label and its value alone (after its article, or after the colon that opens a list of them)
    return None


def _chosen_next(clause: list[_Token], start: int, following: list[_Token], names: dict[str, list[str]],
                 shown: set[str]) -> str | None:
    """The value the next clause chooses for a label this clause opens: "open the Category and choose Supplies",
    "click the Country list, then pick Spain" (the next clause naming no label of its own)."""
    if not any(token.key in OPENS for token in clause[:start]) or _mentions(following, names, shown):
        return None
    at = next((i for i, token in enumerate(following) if token.key in CHOOSES), None)
    if at is None or any(token.kind != "word" or token.key not in NOT_VALUE for token in following[:at]):
        return None  # "choose" must be the next clause's verb ("and then choose", "please pick")
    rest = following[at + 1:]
    if rest and rest[0].key == "out":  # "pick out Own money"
        rest = rest[1:]
    while rest and rest[0].key in DETERMINERS:
        rest = rest[1:]
    return _run(rest)


def _before_where(clause: list[_Token], verb: int) -> str | None:
    """The value before a clause that says where it goes, ending at clause[verb]: "Katherine Johnson where it asks
    for the full name", "Ada where it says Name"."""
    if verb >= 2 and clause[verb - 1].key in SUBJECTS and clause[verb - 2].key in ("where", "wherever"):
        return _run(clause[:verb - 2][::-1], backwards=True)
    return None


def _run(tokens: list[_Token], backwards: bool = False) -> str | None:
    """The value at the start of `tokens` (read from the end when `backwards`): a quoted value or an address, else
    the words and numbers up to the first word that cannot be part of a value, at most MAX_VALUE_WORDS. Read
    backwards, a run after a subject ("it asks for", "I require Double as") starts with that subject's verb, and
    a run after a given value is that value's verb ("'Alan Kay' goes in the Name")."""
    if tokens and tokens[0].kind in ("quoted", "email"):
        return tokens[0].value
    run: list[_Token] = []
    for token in tokens:
        if token.kind not in ("word", "number") or token.key in NOT_VALUE or len(run) > MAX_VALUE_WORDS:
            break
        run.append(token)
    if backwards and run:
        ahead = tokens[len(run)] if len(run) < len(tokens) else None
        if ahead is not None and ahead.kind in ("quoted", "email"):
            return ahead.value
        if ahead is not None and ahead.key in SUBJECTS:
            run.pop()
        run.reverse()
    if not run or len(run) > MAX_VALUE_WORDS:
        return None  # nothing, or more words than a value has: a sentence, not a value
    if len(run) == 1 and (count := _count(run[0])):
        return count
    return " ".join(token.text for token in run)


def _around(clause: list[_Token], index: int, start: int, end: int) -> str | None:
    """The value that holds the given value at clause[index], with the words and numbers on either side of it up to
    the label at clause[start:end] or a word that cannot be part of a value ("make the Arrival field Jan 5")."""
    if clause[index].kind != "number":
        return clause[index].value

    def part(at: int) -> bool:
        return not start <= at < end and clause[at].kind in ("word", "number") and clause[at].key not in NOT_VALUE

    first, last = index, index
    while first > 0 and part(first - 1):
        first -= 1
    while last + 1 < len(clause) and part(last + 1):
        last += 1
    return " ".join(token.text for token in clause[first:last + 1]) if last - first < MAX_VALUE_WORDS else None


def _count(token: _Token) -> str | None:
    """A count as digits: '5', or a number said in words ('three' -> '3')."""
    if token.kind == "number" and token.text.isdigit():
        return token.text
    return str(NUMBER_WORDS.index(token.key)) if token.key in NUMBER_WORDS else None


"""Every part of a task that asks for something concrete must be spoken for before a run counts as a success: a
clause that asks to select, type, click, ... a value or a thing the screen shows ("Select -8 with the slider",
"click the Edit tab") whose own words show up nowhere in what the run did (the texts it clicked, typed, ticked and
chose, the keys it pressed) or in what the final screen's fields show is a part no evidence covers, and the run is
no success. The goal check holds what it knows how to read (values, boxes, choices, presses); this holds the rest
to at least a word of evidence, so a press of Submit after an unread slider is an honest failure, not a success. A
file the task names ("save a file called qt.txt") must be named by what the run typed or touched (clicked, dragged,
scrolled over), whatever verb asks for it.

Clauses that only say how to get somewhere (scroll, find, look, open, switch) or that say no verb of asking are
not held: they are means, or statements the field checks read ("the full name is ..."); one that quotes a value is
held whatever its verb."""

from __future__ import annotations

import re
from collections.abc import Iterable

from deskpilot.core.task_text import NUMBER_WORDS, QUOTED, WORD, look_alike

# Verbs that ask for an end state or an act the screen or the run can show.
ASKING = frozenset("select choose pick mark tick check uncheck untick click press hit push tap type enter write "
                   "input fill put set change make use give add copy paste drag move slide rename star delete "
                   "remove forward reply prefer opt".split())
# Verbs of doing that leave nothing to hold to words ("push the buttons in the order displayed", "open the menu"):
# a run that changed nothing did none of them.
DOING = ASKING | frozenset("find open expand collapse scroll drop submit send save buy book order create "
                           "draw highlight guess generate solve answer sign log switch go turn enable disable".split())
# Words that say nothing of what was asked for: articles, pronouns, places, kinds of control, politeness.
PLAIN = frozenset("the a an and or then to into in on at as for of with by from my your our their its it this that "
                  "these those them is are be please now thanks thank you me i we us can could would will should "
                  "just also all each every any some both one below above here there next first last when done "
                  "button buttons box boxes checkbox checkboxes field fields link links tab tabs list item items "
                  "option options icon icons entry text value values page screen form window menu dropdown "
                  "drop-down area textbox textarea input so again more less up down out off not no way word words "
                  "sure which who starts start begins begin ends end contains containing".split())
# Words after which a task describes what it means instead of naming it ("words similar to slice"): not names the
# screen shows.
DESCRIBING = re.compile(r"\b(?:similar\s+to|like|such\s+as|related\s+to|synonyms?\s+(?:of|for)|opposite\s+of|"
                        r"meaning|that\s+means?)\b.*$", re.I)
# A file's name ("qt.txt", "answer.gnumeric"), standing as a word of its own (not the end of an e-mail address or
# a path): a task that names one asks for something done to that file, which the run must have typed or touched.
FILE_NAME = re.compile(r"(?<![\w/~.@-])[\w-]+\.(?:txt|md|csv|tsv|pdf|docx?|odt|ods|odp|xlsx?|pptx?|rtf|abw|gnumeric|"
                       r"png|jpe?g|gif|svg|bmp|zip|tar|gz|7z|py|js|html?|json|xml|ya?ml|ini|conf|cfg|log|sh|ics|vcf|"
                       r"mp3|mp4|wav|ogg|bak)(?![\w.])", re.I)
CLAUSE = re.compile(r"[,;.!?]|\b(?:and|then|but|also)\b", re.I)  # where one clause of a task ends
DIGITS = {name: str(number) for number, name in enumerate(NUMBER_WORDS)}


def uncovered(task: str, evidence: Iterable[str], shown: Iterable[str]) -> str | None:
    """The first clause of `task` that asks for something concrete and says no word the `evidence` texts hold;
    None where every such clause is spoken for."""
    return coverage(task, evidence, shown)[0]


def coverage(task: str, evidence: Iterable[str], shown: Iterable[str]) -> tuple[str | None, int]:
    """The first clause of `task` that asks for something concrete and says no word the `evidence` texts hold (None
    where every such clause is spoken for), and how many concrete clauses there are. A clause is concrete where it
    says a value (quoted, or a number) or a word the screen shows (`shown`: the texts of the screens, less the
    task's own words a page repeats); one that only describes ("choose the cheaper plan") cannot be held to words,
    and is left to the other checks."""
    concretes = 0
    known = _folded(" ".join(evidence))
    words, joined = set(known.split()), known.replace(" ", "")
    on_screen = set(_folded(" ".join(shown)).split())
    quoted = [m.group(0) for m in QUOTED.finditer(task)]
    plain_task = QUOTED.sub(lambda m: f" q{quoted.index(m.group(0))} ", task)
    for clause in CLAUSE.split(plain_task):
        said = WORD.findall(DESCRIBING.sub("", clause).lower())
        verb = next((i for i, word in enumerate(said) if word in ASKING), None)
        if verb is None and any(re.fullmatch(r"q\d+", word) for word in said):
            verb = -1  # a value the task quotes is asked for, whatever verb brings it ("I'd go for "GBP" there")
        if verb is None:
            continue
        wanted, concrete = [], False
        for word in said[verb + 1:]:
            if word in PLAIN or word in ASKING:
                continue
            if re.fullmatch(r"q\d+", word):  # a quoted value: its own words
                wanted += WORD.findall(quoted[int(word[1:])].lower())
                concrete = True
            elif word in DIGITS or word.isdigit():
                wanted += [word, DIGITS[word]] if word in DIGITS else [word]  # "two" or "2"
                concrete = True
            else:
                wanted.append(word)
                concrete = concrete or _folded(word) in on_screen
        concretes += bool(wanted and concrete)
        if wanted and concrete and not any(_held(word, words, joined) for word in wanted):
            return " ".join(re.sub(r"\bq(\d+)\b", lambda m: quoted[int(m.group(1))], clause).split()), concretes
    for name in FILE_NAME.finditer(task):  # whatever verb asks for it ("save a file called qt.txt")
        concretes += 1
        if _folded(name.group()).replace(" ", "") not in joined:
            return next(c.strip() for c in re.split(r"[,;.!?](?:\s|$)|\b(?:and|then|but)\b", task, flags=re.I)
                        if name.group() in c), concretes
    return None, concretes


def asks_to_act(task: str) -> bool:
    """Whether the task asks for something to be done (a verb of doing), not only whether something holds ("is the
    form fine?")."""
    return any(word in DOING for word in WORD.findall(QUOTED.sub(" ", task).lower()))


def _held(word: str, words: set[str], joined: str) -> bool:
    """Whether a word of the task shows in the evidence: as a word (a plural as its singular), or, two letters or
    more, inside the evidence's run-together text (OCR drops spaces: "Firstaidtrained"; "Au" of "Australia")."""
    folded = _folded(word)
    stem = folded[:-1] if len(folded) > 3 and folded.endswith("s") else folded
    return folded in words or stem in words or (len(stem) >= 2 and stem in joined)


def _folded(text: str) -> str:
    """Lower case, the characters OCR confuses folded, every run of other marks one space."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", look_alike(text)).split())

"""Goals said in many ways: each intent kind has over twenty phrasing families (imperatives, requests, statements
of the wanted state, label-first and value-first orders, terse `Label: value` notes, implicit values such as
"three copies" for Copies = 3), whose verbs come from a base list widened with WordNet's synonyms of pinned verb
senses when WordNet is installed (Debian's wordnet-base, read through nltk); intents are joined in varied order
of connectives, with or without politeness. `canonical` is the one wording the offline grammar executes, used to
collect the demonstrations the paraphrases are attached to."""

from __future__ import annotations

import functools
import logging
import random
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from deskpilot.core.task_text import NUMBER_WORDS

from .forms import Goal, Intent

log = logging.getLogger(__name__)

WORDNET_DIR = Path("/usr/share/wordnet")  # Debian's wordnet-base
# WordNet's 45 lexicographer files, which Debian's copy does not list (nltk reads them from `lexnames`).
LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
            "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
            "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
            "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
            "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
            "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather "
            "adj.ppl").split()
# The senses whose synonyms fit a form: WordNet's synsets, and the lemmas of them that do not fit a control.
SENSES = {"choose": ("choose.v.01", "choose.v.02"), "fill": ("insert.v.01", "record.v.01"),
          "check": ("check.v.06",), "want": ("desire.v.01", "want.v.02", "wish.v.02")}
MISFITS = {"infix", "introduce", "take", "opt", "wish", "desire", "mark off", "tick off"}
BASE_VERBS = {"choose": ("choose", "select", "pick"), "fill": ("type", "enter", "put", "write", "input"),
              "check": ("check", "tick", "select"), "want": ("want", "need", "would like")}
IMPLICIT_COUNTS = 10  # the largest value a phrasing may say as a word instead of typing it
OPENERS = ("", "", "", "Please ", "Could you ", "Can you ", "I need you to ", "Kindly ", "Go ahead and ",
           "Would you ")
CLOSERS = ("", "", "", " please", ", thanks", ", thank you", " for me", " now")
JOINS = (" and ", ", then ", ", ", ". Then ", "; ", " and then ", ". ", ", and ")


@functools.cache
def _wordnet_verbs() -> dict[str, tuple[str, ...]]:
    """WordNet's lemmas of the pinned senses (empty where WordNet or nltk is not installed)."""
    if not (WORDNET_DIR / "data.verb").is_file():
        return {}
    try:
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
    except ImportError:
        return {}

    class DebianWordNet(WordNetCorpusReader):  # type: ignore[misc]
        def map_wn(self, version: str = "3.0") -> None:  # Debian's copy is 3.0 itself: nothing to map
            return None

    folder = Path(tempfile.mkdtemp(prefix="deskpilot-wordnet-"))
    for path in WORDNET_DIR.iterdir():
        if path.is_file():
            shutil.copyfile(path, folder / path.name)  # nltk reads only below its own root
    kinds = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
    (folder / "lexnames").write_text("".join(f"{number:02d}\t{name}\t{kinds[name.split('.')[0]]}\n"
                                             for number, name in enumerate(LEXNAMES)))
    nltk.data.path.append(str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wordnet = DebianWordNet(str(folder), None)
    found = {kind: tuple(sorted({lemma.name().replace("_", " ") for name in names
                                 for lemma in wordnet.synset(name).lemmas()} - MISFITS))
             for kind, names in SENSES.items()}
    shutil.rmtree(folder, ignore_errors=True)
    return found


def verbs(kind: str) -> tuple[str, ...]:
    """The verbs a phrasing of `kind` may use: the base list and WordNet's synonyms."""
    return tuple(dict.fromkeys(BASE_VERBS[kind] + _wordnet_verbs().get(kind, ())))


def uses_wordnet() -> bool:
    return bool(_wordnet_verbs())


Family = Callable[[Intent, random.Random], str]


def _value(text: str, rng: random.Random) -> str:
    """A value as a person writes it: quoted in one of a few ways, or bare."""
    return rng.choice((f'"{text}"', f'"{text}"', f"'{text}'", text, text, text))


def _label(text: str, rng: random.Random, noun: tuple[str, ...] = ("field", "box")) -> str:
    """A control's name as a person writes it: as shown, in lower case, with or without "the" and a noun."""
    name = rng.choice((text, text, text.lower()))
    return rng.choice((name, f"the {name}", f"the {name} {rng.choice(noun)}", f"the {name}"))


def _verb(kind: str, rng: random.Random) -> str:
    return rng.choice(verbs(kind))


def _number_word(value: str) -> str | None:
    return NUMBER_WORDS[int(value)] if value.isdigit() and int(value) <= IMPLICIT_COUNTS else None


FILL: tuple[Family, ...] = (
    lambda i, r: f"{_verb('fill', r)} {_value(i.value, r)} into {_label(i.label, r)}",
    lambda i, r: f"{_verb('fill', r)} {_value(i.value, r)} in {_label(i.label, r)}",
    lambda i, r: f"enter {_value(i.value, r)} as {_label(i.label, r)}",
    lambda i, r: f"set {_label(i.label, r)} to {_value(i.value, r)}",
    lambda i, r: f"fill in {_label(i.label, r)} with {_value(i.value, r)}",
    lambda i, r: f"{i.label}: {_value(i.value, r)}",
    lambda i, r: f"use {_value(i.value, r)} for {_label(i.label, r)}",
    lambda i, r: f"my {i.label.lower()} is {_value(i.value, r)}",
    lambda i, r: f"{_label(i.label, r)} should be {_value(i.value, r)}",
    lambda i, r: f"make {_label(i.label, r)} {_value(i.value, r)}",
    lambda i, r: f"change {_label(i.label, r)} to {_value(i.value, r)}",
    lambda i, r: f"I'd like {_value(i.value, r)} as {_label(i.label, r)}",
    lambda i, r: f"{_value(i.value, r)} goes in {_label(i.label, r)}",
    lambda i, r: f"{_label(i.label, r)} should read {_value(i.value, r)}",
    lambda i, r: f"key in {_value(i.value, r)} for {_label(i.label, r)}",
    lambda i, r: f"update {_label(i.label, r)} to {_value(i.value, r)}",
    lambda i, r: f"replace {_label(i.label, r)} with {_value(i.value, r)}",
    lambda i, r: f"let {_label(i.label, r)} be {_value(i.value, r)}",
    lambda i, r: f"the {i.label.lower()} is {_value(i.value, r)}",
    lambda i, r: f"write {_value(i.value, r)} where it asks for {_label(i.label, r)}",
    lambda i, r: f"{_value(i.value, r)} for {_label(i.label, r)}",
    lambda i, r: f"put down {_value(i.value, r)} as {_label(i.label, r)}",
    lambda i, r: f"{i.label.lower()} = {_value(i.value, r)}",
)
CHOOSE: tuple[Family, ...] = (
    lambda i, r: f"{_verb('choose', r)} {_value(i.value, r)} from {_label(i.label, r, ('list', 'menu', 'drop-down'))}",
    lambda i, r: f"{_verb('choose', r)} {_value(i.value, r)} in {_label(i.label, r, ('list', 'drop-down'))}",
    lambda i, r: f"set {_label(i.label, r, ('list', 'drop-down'))} to {_value(i.value, r)}",
    lambda i, r: f"{_verb('choose', r)} {_value(i.value, r)} for {_label(i.label, r, ('list', 'menu'))}",
    lambda i, r: f"{i.label}: {_value(i.value, r)}",
    lambda i, r: f"I'd like {_value(i.value, r)} as {_label(i.label, r, ('option',))}",
    lambda i, r: f"make {_label(i.label, r, ('list',))} {_value(i.value, r)}",
    lambda i, r: f"change {_label(i.label, r, ('list',))} to {_value(i.value, r)}",
    lambda i, r: f"switch {_label(i.label, r, ('list',))} over to {_value(i.value, r)}",
    lambda i, r: f"use {_value(i.value, r)} for {_label(i.label, r, ('list',))}",
    lambda i, r: f"{_label(i.label, r, ('list',))} should be {_value(i.value, r)}",
    lambda i, r: f"go with {_value(i.value, r)} for {_label(i.label, r, ('list',))}",
    lambda i, r: f"{_value(i.value, r)} for {_label(i.label, r, ('list',))}",
    lambda i, r: f"open {_label(i.label, r, ('list', 'drop-down'))} and {_verb('choose', r)} {_value(i.value, r)}",
    lambda i, r: f"I {_verb('want', r)} {_value(i.value, r)} as {_label(i.label, r, ('option',))}",
    lambda i, r: f"my {i.label.lower()} is {_value(i.value, r)}",
    lambda i, r: f"the {i.label.lower()} is {_value(i.value, r)}",
    lambda i, r: f"prefer {_value(i.value, r)} for {_label(i.label, r, ('list',))}",
    lambda i, r: f"pick the {_value(i.value, r)} option from {_label(i.label, r, ('list',))}",
    lambda i, r: f"let {_label(i.label, r, ('list',))} be {_value(i.value, r)}",
    lambda i, r: f"{i.label.lower()} = {_value(i.value, r)}",
)
PICK: tuple[Family, ...] = CHOOSE + (
    lambda i, r: f"{_verb('choose', r)} {_value(i.value, r)}",
    lambda i, r: f"{_value(i.value, r)}, please",
    lambda i, r: f"go with {_value(i.value, r)}",
    lambda i, r: f"click the {_value(i.value, r)} option",
    lambda i, r: f"{_verb('choose', r)} the {i.value.lower()} one",
)
ON_WORDS = ("checked", "on", "ticked", "selected")
OFF_WORDS = ("unchecked", "off", "not ticked", "cleared")
CHECK: tuple[Family, ...] = (
    lambda i, r: f"{_verb('check', r)} {_label(i.label, r, ('box', 'option', 'check box'))}",
    lambda i, r: f"turn on {_label(i.label, r, ('option', 'setting'))}",
    lambda i, r: f"enable {_label(i.label, r, ('option',))}",
    lambda i, r: f"make sure {_label(i.label, r, ('box', 'option'))} is {r.choice(ON_WORDS)}",
    lambda i, r: f"I {_verb('want', r)} {i.label.lower()}",
    lambda i, r: f"switch on {_label(i.label, r, ('option',))}",
    lambda i, r: f"{i.label}: yes",
    lambda i, r: f"yes to {i.label.lower()}",
    lambda i, r: f"mark {_label(i.label, r, ('box',))}",
    lambda i, r: f"opt into {i.label.lower()}",
    lambda i, r: f"{i.label.lower()} on",
    lambda i, r: f"include {i.label.lower()}",
    lambda i, r: f"add {i.label.lower()}",
    lambda i, r: f"check the box for {i.label.lower()}",
    lambda i, r: f"put a tick in {_label(i.label, r, ('box',))}",
    lambda i, r: f"{i.label.lower()} should be {r.choice(('on', 'enabled', 'checked'))}",
    lambda i, r: f"activate {_label(i.label, r, ('option',))}",
    lambda i, r: f"I'd like {i.label.lower()}, please",
    lambda i, r: f"select the {i.label} {r.choice(('box', 'option', 'check box'))}",
    lambda i, r: f"{i.label.lower()}, yes",
    lambda i, r: f"with {i.label.lower()}",
)
UNCHECK: tuple[Family, ...] = (
    lambda i, r: f"un{_verb('check', r).replace(' ', '')} {_label(i.label, r, ('box', 'option'))}",
    lambda i, r: f"untick {_label(i.label, r, ('box',))}",
    lambda i, r: f"turn off {_label(i.label, r, ('option', 'setting'))}",
    lambda i, r: f"disable {_label(i.label, r, ('option',))}",
    lambda i, r: f"clear {_label(i.label, r, ('check box', 'box'))}",
    lambda i, r: f"make sure {_label(i.label, r, ('box', 'option'))} is {r.choice(OFF_WORDS)}",
    lambda i, r: f"I don't {r.choice(('want', 'need'))} {i.label.lower()}",
    lambda i, r: f"no {i.label.lower()}",
    lambda i, r: f"switch off {_label(i.label, r, ('option',))}",
    lambda i, r: f"{i.label}: no",
    lambda i, r: f"deselect {_label(i.label, r, ('option', 'box'))}",
    lambda i, r: f"opt out of {i.label.lower()}",
    lambda i, r: f"{i.label.lower()} off",
    lambda i, r: f"drop {i.label.lower()}",
    lambda i, r: f"remove the tick from {_label(i.label, r, ('box',))}",
    lambda i, r: f"{i.label.lower()} should be {r.choice(('off', 'disabled', 'unchecked'))}",
    lambda i, r: f"without {i.label.lower()}",
    lambda i, r: f"leave {i.label.lower()} unchecked",
    lambda i, r: f"skip {i.label.lower()}",
    lambda i, r: f"{i.label.lower()}, no",
    lambda i, r: f"uncheck the box for {i.label.lower()}",
)
PRESS: tuple[Family, ...] = (
    lambda i, r: f"click {i.label}",
    lambda i, r: f"press {i.label}",
    lambda i, r: f"hit {_label(i.label, r, ('button',))}",
    lambda i, r: f"click the {i.label} button",
    lambda i, r: f"finish with {i.label}",
    lambda i, r: f"tap {i.label}",
    lambda i, r: f"push the {i.label} button",
    lambda i, r: f"click on {i.label}",
    lambda i, r: f"press the {i.label.lower()} button",
    lambda i, r: f"{i.label.lower()}",
    lambda i, r: f"hit {i.label.lower()}",
    lambda i, r: f"use the {i.label} button",
    lambda i, r: f"then {i.label.lower()}",
    lambda i, r: f"confirm with {i.label}",
    lambda i, r: f"end by clicking {i.label}",
    lambda i, r: f"select {i.label}",
    lambda i, r: f"go for {i.label}",
    lambda i, r: f"press {i.label} when done",
    lambda i, r: f"and {i.label.lower()} it",
    lambda i, r: f"click {i.label} to finish",
    lambda i, r: f"choose {i.label}",
)
FAMILIES: dict[str, tuple[Family, ...]] = {"fill": FILL, "choose": CHOOSE, "pick": PICK, "check": CHECK,
                                           "uncheck": UNCHECK, "press": PRESS}
# Values a person leaves implicit: a count said in words, not typed as digits.
IMPLICIT_FILL: tuple[Callable[[Intent, str], str], ...] = (
    lambda i, word: f"make it {word} {i.label.lower()}",
    lambda i, word: f"{i.label}: {word}",
    lambda i, word: f"I need {word} for {i.label.lower()}",
)
# The verbs an imperative wording starts with: only these take "Could you" before them.
IMPERATIVES = frozenset(
    "type enter put write input insert record set fill use make change key update replace let choose select pick "
    "prefer switch go open check tick mark turn enable untick uncheck unselect uncheckoff unmark disable clear "
    "deselect drop remove leave skip click press hit tap push finish confirm end activate include add opt "
    "pick".split())
SENTENCE_WORDS = frozenset("my the i i'd yes no with without and then would could can please kindly".split())


def phrase_intent(intent: Intent, rng: random.Random) -> str:
    """One intent in a wording picked at random."""
    if intent.kind == "fill" and (word := _number_word(intent.value)) and rng.random() < 0.25:
        return rng.choice(IMPLICIT_FILL)(intent, word)
    return rng.choice(FAMILIES[intent.kind])(intent, rng)


def paraphrase(goal: Goal, rng: random.Random) -> str:
    """The whole goal in one wording: its intents phrased and joined, the button last, maybe politely."""
    parts = [phrase_intent(intent, rng) for intent in goal.intents]
    text = parts[0]
    for part in parts[1:]:
        join = rng.choice(JOINS)
        text += join + (_sentence_start(part) if join.endswith(". ") else part)
    opener = rng.choice(OPENERS)
    if opener and text.split(" ", 1)[0].lower() in IMPERATIVES:
        text = opener + text
    text = _sentence_start(text)
    closer = rng.choice(CLOSERS)
    return (text + closer).rstrip() + rng.choice(("", "", ".", "!"))


def _sentence_start(text: str) -> str:
    """`text` with a capital first letter where its first word is a word of the sentence, not a value."""
    first = text.split(" ", 1)[0].lower()
    return text[:1].upper() + text[1:] if first in IMPERATIVES or first in SENTENCE_WORDS else text


def paraphrases(goal: Goal, rng: random.Random, count: int) -> list[str]:
    """Up to `count` different wordings of the goal."""
    found: dict[str, None] = {}
    for _ in range(count * 3):
        found.setdefault(paraphrase(goal, rng), None)
        if len(found) >= count:
            break
    return list(found)


def canonical(goal: Goal) -> str:
    """The goal in the offline grammar's words, which collection runs to demonstrate it."""
    said = {"fill": lambda i: f'type "{i.value}" into the {i.label} field',
            "choose": lambda i: f'select "{i.value}" from the {i.label} dropdown',
            "pick": lambda i: f'click "{i.value}"',
            "check": lambda i: f'click the "{i.label}" checkbox',
            "uncheck": lambda i: f'click the "{i.label}" checkbox',
            "press": lambda i: f'click the "{i.label}" button'}
    text = ", then ".join(said[intent.kind](intent) for intent in goal.intents)
    return text[:1].upper() + text[1:]

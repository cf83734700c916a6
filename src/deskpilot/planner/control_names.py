"""Boxes a task asks for by what they do rather than by their label: "keep me logged in" is the box a sign-in form
labels "Remember me", "Keep me signed in" or "Stay signed in"; "sign me up for the newsletter" the one labelled
"Subscribe to newsletter" or "Send me updates". Forms label a few common choices in many ways, and people ask for
them in more; each group below holds both (the words a person says, and those a label shows). Read against the
first screen, a clause of the task that asks for one of them and says nothing else becomes 'tick "LABEL"' (or
'untick "LABEL"' where it asks for the opposite: "don't keep me signed in", "no newsletter"), with the label of the
one box the screen shows for that group, so the grammar, the model and the goal check all hold the run to that box.

Nothing changes where the screen shows no such box, or two, or where the clause says anything more than the
group's words and words of wanting and ticking ("keep me logged in on the Work account" is left as written). The
label is screen text, so it is only ever quoted as a box's name: one holding a quote, or longer than a label, is not
used."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deskpilot.core.observation import Element
from deskpilot.core.task_text import QUOTED, normalised

TOGGLES = ("checkbox",)  # the roles of a box a clause may become a tick of (a switch is found as a checkbox)
MAX_LABEL = 80  # characters: a longer "label" is a paragraph, never a box's name


@dataclass(frozen=True)
class Group:
    """One common choice: what people say to want it, what they say to not want it, and the words of the labels
    forms give its box (a label holding any of them, as whole words, is the group's box)."""

    wanted: tuple[str, ...]
    unwanted: tuple[str, ...]
    labels: tuple[str, ...]


GROUPS = (
    Group(wanted=("remember me", "stay signed in", "stay logged in", "stay signed on", "stay logged on",
                  "keep me signed in", "keep me logged in", "keep me signed on", "keep me logged on",
                  "remain signed in", "remain logged in", "remember my login", "remember my sign in",
                  "remember my log in", "remember my details", "remember this device", "remember this computer",
                  "trust this device", "trust this computer", "don't log me out", "do not log me out",
                  "don't sign me out", "do not sign me out", "keep my session", "save my login",
                  "no need to sign in again", "no need to log in again", "don't ask me to sign in again",
                  "don't ask me to log in again"),
          unwanted=("forget me", "log me out", "sign me out", "don't remember me", "do not remember me",
                    "don't keep me signed in", "don't keep me logged in", "do not keep me signed in",
                    "do not keep me logged in"),
          labels=("remember me", "signed in", "logged in", "signed on", "logged on", "remember my login",
                  "remember this device", "remember this computer", "trust this device", "trust this computer",
                  "remember login", "stay signed", "keep me signed", "keep me logged")),
    Group(wanted=("newsletter", "newsletters", "mailing list", "email updates", "e mail updates", "updates by email",
                  "news by email", "marketing emails", "promotional emails", "product updates", "keep me posted",
                  "keep me updated", "send me updates", "send me news", "special offers"),
          unwanted=("unsubscribe", "opt out", "no newsletter", "no newsletters", "no emails", "no marketing",
                    "no updates", "no spam", "stop the newsletter", "stop the emails"),
          labels=("newsletter", "newsletters", "mailing list", "send me updates", "email me updates",
                  "email updates", "marketing emails", "promotional emails", "special offers", "product updates",
                  "receive updates", "keep me updated", "keep me posted")),
    Group(wanted=("terms", "terms and conditions", "terms of service", "terms of use", "t cs", "ts and cs",
                  "the conditions", "the licence", "the license", "privacy policy", "eula", "user agreement"),
          unwanted=("decline the terms", "reject the terms", "don't agree", "do not agree", "don't accept",
                    "do not accept"),
          labels=("terms", "conditions", "licence", "license", "privacy policy", "eula", "user agreement",
                  "i agree", "i accept")),
)
# Words a clause asking for a box may say besides the group's: wanting, ticking, politeness, the box itself.
FILLER = frozenset("""make sure ensure see to it that i i'd id i'm im want wanna would like love to please kindly next
time also so can could you will be is it just yes always from now on now the a an my me option box checkbox check
tick setting settings thing select choose mark enable turn on switch activate opt in into for and then thanks thank
too as well get receive send sign up subscribe join agree accept consent read have with okay ok sure of fine need
should this that when go ahead do""".split())
# Words that turn a clause asking for a box into one asking for it off: negation, unticking.
AGAINST = frozenset("""don't dont not never no without untick uncheck unmark clear disable deactivate off deselect
unselect stop""".split())
BOUNDARY = re.compile(r"[,;.!?]|\b(?:and|then|but|also)\b", re.I)  # where one clause ends


def speaks_of_a_box(task: str) -> bool:
    """Whether the task says words of one of the groups (then the first screen is read for its box)."""
    words = f" {normalised(QUOTED.sub(' ', task))} "
    return any(f" {normalised(phrase)} " in words for group in GROUPS for phrase in group.wanted + group.unwanted)


def with_box_labels(task: str, elements: list[Element]) -> tuple[str, tuple[str, ...]]:
    """`task` with each clause that asks for a group's box (and says nothing more) written as the tick or untick of
    the label the screen (`elements`) shows for that group, and a note per clause rewritten; the task as it was,
    and no notes, where none is."""
    notes: list[str] = []
    for group in GROUPS:
        label = _label_shown(group, elements)
        if label is None:
            continue
        for phrase, against in sorted(((p, False) for p in group.wanted), key=lambda p: -len(p[0])) + \
                sorted(((p, True) for p in group.unwanted), key=lambda p: -len(p[0])):
            match = _phrase(phrase).search(task)
            if match is None or _inside_quotes(task, match.start()):
                continue
            start, end = _clause(task, match.start(), match.end())
            others = _words(task[start:match.start()] + " " + task[match.end():end])
            if not all(word in FILLER or word in AGAINST for word in others):
                continue
            unticks = against != any(word in AGAINST for word in others)
            verb = "untick" if unticks else "tick"
            lead = " " if start > 0 and not task[start - 1].isspace() else ""
            task = f'{task[:start]}{lead}{verb} "{label}"{task[end:]}'
            notes.append(f'"{match.group(0)}" is the box "{label}" ({verb})')
            break
    return task, tuple(notes)


def _label_shown(group: Group, elements: list[Element]) -> str | None:
    """The label of the one box on the screen that the group names; None where none is, or two are."""
    labels = {e.text.strip() for e in elements if e.role in TOGGLES and e.text.strip()
              and any(f" {normalised(word)} " in f" {normalised(e.text)} " for word in group.labels)}
    if len(labels) != 1:
        return None
    label = labels.pop()
    return label if len(label) <= MAX_LABEL and not re.search(r"[\"“”«»']", label) else None


def _phrase(phrase: str) -> re.Pattern[str]:
    """A phrase as a pattern over the task's own spelling: its words in order, any spaces or marks between them."""
    words = [re.escape(word).replace("'", "['’]?") for word in phrase.split()]
    return re.compile(r"(?<![\w'])" + r"[\s\-]*".join(words) + r"(?![\w'])", re.I)


def _clause(task: str, start: int, end: int) -> tuple[int, int]:
    """The span of the clause around task[start:end]: from the last clause boundary before it to the first after it
    (a boundary inside the phrase, "terms and conditions", is none)."""
    before = [m.end() for m in BOUNDARY.finditer(task) if m.end() <= start]
    after = [m.start() for m in BOUNDARY.finditer(task) if m.start() >= end]
    head = before[-1] if before else 0
    while head < start and task[head].isspace():
        head += 1
    tail = after[0] if after else len(task)
    while tail > end and task[tail - 1].isspace():
        tail -= 1
    return head, tail


def _inside_quotes(task: str, index: int) -> bool:
    return any(m.start() <= index < m.end() for m in QUOTED.finditer(task))


def _words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower().replace("’", "'"))

"""A som-text model's answer set right, before it is acted on, by what the task says and the screen shows: a
date the task gives is chosen on the calendar the screen shows (planner/dates.py), a value the task gives a field
goes into that field (planner/field_values.py), a button the task names waits for
those fields and for the boxes it names, a click on what the task does not name goes to the box it does name, the
name of a box typed is a click on it, and the task's words misspelt are typed as the task spells them; an answer
that would do nothing (a box as asked already, a field done already) or that types what the task does not give
gives way to what the task says is left (`next_given`: a field to fill, a box to set, then the button to press).
Each correction is one the model's own answer shows it needed (an answer that already fits is left alone), and
each says why; the episode's history keeps the corrected call as if the model had given it."""

from __future__ import annotations


from dataclasses import dataclass, field

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Step
from deskpilot.core.geometry import Box, Point
from deskpilot.core.observation import Element
from deskpilot.core.secrets import PLACEHOLDER
from deskpilot.core.task_text import WORD, normalised, task_spelling
from deskpilot.grounding.action_context import FIELD_ROLES, TOGGLE_ROLES, elements_at
from deskpilot.grounding.task_echoes import task_echoes
from deskpilot.grounding.widgets import field_for_label

from .dates import calendar_step, chose_the_date
from .number_controls import all_set, goals, is_number_of, number_step
from .field_values import field_values
from .offline import LIST_WAIT_SECONDS, next_untried_tab
from .goal_check import (OPTION_ROLES, PRESSABLE, SUBMITS, asked_state, asked_to_press, described_by, field_labels,
                         fits_description, in_its_list, list_reading, named_toggles, other_named_field,
                         radio_at, reads_as, says_a_word_of, toggle_labels, toggle_names)
from .som_text import SomText, TextScreen
from .task_phrases import comparable, holds_phrase


LIST_ROWS = 12  # field heights from its drop-down within which an open list's options stand
CONTROL_REACH = 6  # pixels around a slider's handle or a spin box within which a click or drag is on it


@dataclass
class AnswerCorrections:
    """The corrections of one episode, with what they remember across its steps."""

    filled_first: set[str] = field(default_factory=set)  # fields a click on a button was sent to first
    seen_labels: list[tuple[Box, str]] = field(default_factory=list)  # each field's label as first seen
    waited: set[int] = field(default_factory=set)  # the steps (clicks on a drop-down) after which a wait was made
    not_done: set[str] = field(default_factory=set)  # what was left when the model said done, each acted on once

    def labels(self, elements: list[Element]) -> dict[Box, str]:
        """The fields of this screen and their labels, each field named as the episode first saw it named: a
        field in focus may be seen narrower than it is, and then the text it holds looks like its label (a Tk
        entry holding "12.50" after a click)."""
        named = {}
        for box, label in field_labels(elements).items():
            earlier = next((name for seen, name in self.seen_labels if seen.iou(box) > 0.5), None)
            if earlier is None:
                self.seen_labels.append((box, label))
            named[box] = earlier or label
        return named

    def correct(self, episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                labelled: dict[Box, str], history: list[Step]) -> tuple[Action, str] | None:
        """The action to take instead of the model's, and why; None to act as answered (also where the action
        instead cannot be said in som-text terms, so the history could not keep it, but for a calendar's day)."""
        on_calendar = _on_the_calendar(episode.task, action, history, elements) or \
            _on_the_control(episode.task, action, history, elements) or \
            _after_the_date(episode.task, action, history, elements)
        if on_calendar is not None:
            return on_calendar  # a day of a grid a long screen's listing may leave out, a drag: taken all the same
        found = _suggestion_that_fits(episode.task, action, elements, history) or \
            _described_text_shown(episode.task, action, elements, history) or \
            self._unasked_choice(episode, screen, action, elements, labelled, history) or \
            self._not_done_yet(episode, screen, action, elements, labelled, history) or \
            self._option_of_the_open_list(episode.task, action, elements, history) or \
            self._wait_for_the_list(episode.task, action, elements, history) or \
            _type_what_the_field_needs(episode, action, elements, labelled, history) or \
            self._label_to_field(episode, screen, action, elements, labelled, history) or \
            _to_its_field(episode, action, elements, labelled) or \
            _look_in_tabs(episode, action, elements, history) or \
            self._as_given(episode, screen, action, elements, labelled, history) or \
            _boxes_before_pressing(episode, action, elements, history) or \
            _named_toggle(episode, action, elements, labelled, history) or \
            _toggle_as_asked_already(episode.task, action, elements, history) or \
            _clicked_not_typed(episode.task, action, elements, labelled) or _task_spelling(episode, screen, action) or \
            self._instead_of_an_invented_text(episode, screen, action, elements, labelled, history)
        if found is not None and (clicked := _clicked_not_typed(episode.task, found[0], elements, labelled)):
            found = clicked[0], f"{found[1]}; {clicked[1]}"  # the value to type instead is an option shown
        if found is not None and (dated := _after_the_date(episode.task, found[0], history, elements)):
            found = dated[0], f"{found[1]}; {dated[1]}"  # a correction would open the calendar again
        if found is None or episode.answer_for(found[0], screen) is None:
            return None
        return found

    def _not_done_yet(self, episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                      labelled: dict[Box, str], history: list[Step]) -> tuple[Action, str] | None:
        """The model saying done while the task says what is left on this screen (`next_given`) does that instead,
        once for each thing left (a thing it cannot do then ends the run, failed by the goal check): Qt 69001 set
        the currency and the receipt number and said done with the Category the task gives still on "Travel"."""
        if action.kind is not ActionKind.FINISHED:
            return None
        left = self.next_given(episode, screen, elements, labelled, history)
        if left is None or left[1] in self.not_done:
            return None
        self.not_done.add(left[1])
        return left[0], f"not done yet: {left[1]}"

    def _unasked_choice(self, episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                        labelled: dict[Box, str], history: list[Step]) -> tuple[Action, str] | None:
        """Once the run has acted, a click that would choose an option or tick a box the task says no word of does
        what the task says is left on this screen instead (`next_given`), or says done where nothing is: "Use yellow
        as the colour" chose Yellow, then clicked the size Small."""
        if action.kind is not ActionKind.CLICK or action.point is None or not history:
            return None
        radio = radio_at(action.point, elements)
        name = radio[1] if radio is not None else next(iter(_toggle_names_at(action.point, elements)), "")
        if not name or says_a_word_of(episode.task, name, read=True):
            return None
        why = f"{name!r} is not asked for"
        left = self.next_given(episode, screen, elements, labelled, history)
        if left is not None:
            return left[0], f"{why}; {left[1]}"
        return Action(kind=ActionKind.FINISHED, text="done"), f"{why}, and the task says nothing more is left"

    def _label_to_field(self, episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                        labelled: dict[Box, str], history: list[Step]) -> tuple[Action, str] | None:
        """A click on a field's label goes to the field (`_field_not_its_label`), and is then held to the values the
        task gives (`_as_given`): a field that shows its value already is not opened again (a date picker's field,
        clicked again after its date was chosen, opened the calendar over Submit)."""
        to_field = _field_not_its_label(action, elements)
        if to_field is None or to_field[0].point is None:
            return None
        given, fields = _given(episode.task, elements, labelled), _fields_by_label(elements, labelled)
        if _filled_field(to_field[0].point, given, fields, elements) is None:
            return to_field
        instead = self._as_given(episode, screen, to_field[0], elements, labelled, history)
        return (instead[0], f"{to_field[1]}; {instead[1]}") if instead is not None else to_field

    def _option_of_the_open_list(self, task: str, action: Action, elements: list[Element], history: list[Step]
                                 ) -> tuple[Action, str] | None:
        """Right after a click on a field the task gives a value, while one option reading that value shows in line
        with the field (in the list the click opened, below or over it), a click on that option: the model had
        clicked the task's next value instead and left the list unchosen (a held-out form, in four toolkits)."""
        last = _last_step(history)
        if last is None or last.action.kind is not ActionKind.CLICK or last.action.point is None:
            return None
        given = self._given_to_field_at(task, elements, last.action.point)
        if given is None or comparable(given[2]) in _typed(history) or _chose(last, given[2]):
            return None
        box, label, value = given
        option = _option_in_line(value, box, elements)
        if option is None:
            return None
        if action.kind is ActionKind.CLICK and action.point is not None and \
                option.box.y0 <= action.point.y <= option.box.y1 and box.x0 <= action.point.x <= box.x1:
            return None  # on the option's row already
        return (Action(kind=ActionKind.CLICK, point=option.click_point),
                f"the {label!r} list is open and shows {value!r}, the value the task gives it")

    def _given_to_field_at(self, task: str, elements: list[Element], point: Point) -> tuple[Box, str, str] | None:
        """The field at `point` (as the episode first saw it), its label and the value the task gives it; None
        where there is no such field or the task gives it nothing."""
        field_at = next(((box, label) for box, label in self.seen_labels if box.contains(*point)), None)
        value = None if field_at is None else _given(task, elements, dict(self.seen_labels)).get(field_at[1])
        return None if field_at is None or value is None else (*field_at, value)

    def _wait_for_the_list(self, task: str, action: Action, elements: list[Element], history: list[Step]
                           ) -> tuple[Action, str] | None:
        """Right after a click on a drop-down the task gives a value, while no option reading that value is in
        sight, one wait (LIST_WAIT_SECONDS) before anything else: a busy machine may draw the list after the
        screen has settled (a GTK run saw the closed drop-down, clicked it again and so chose what it held)."""
        last = _last_step(history)
        if last is None or last.action.kind is not ActionKind.CLICK or last.action.point is None or \
                action.kind is ActionKind.WAIT or last.index in self.waited:
            return None
        point = last.action.point
        if not any(e.role == "dropdown" and e.box.contains(*point) for e in last.seen):
            return None
        given = self._given_to_field_at(task, elements, point)
        if given is None or comparable(given[2]) in _typed(history):
            return None
        _, label, value = given
        if any(e.text and comparable(e.text) == comparable(value) and e.role in ("text", *OPTION_ROLES)
               for e in elements):
            return None
        self.waited.add(last.index)
        return (Action(kind=ActionKind.WAIT, seconds=LIST_WAIT_SECONDS),
                f"the {label!r} list shows no {value!r} yet: waiting for it once")

    def next_given(self, episode: SomText, screen: TextScreen, elements: list[Element], labelled: dict[Box, str],
                   history: list[Step]) -> tuple[Action, str] | None:
        """Where the model is unsure what to do next, or answers what cannot be done, what the task itself says is
        left: the option of an open list that reads the value the task gives its field, clicked (a GTK list open
        over its field is read as a field too: its value typed there chose nothing), or else the value the task
        gives the text field in focus, typed, or else a click on the first field it gives a value
        that shows another and was never typed into, or else on a box it names that shows the other state and was
        never clicked, or else on the one button it asks to press that no step pressed; None when the task says
        nothing more of this screen."""
        fields = _fields_by_label(elements, labelled)
        left = self._unfilled(_given(episode.task, elements, labelled), fields, elements, history, first=False)
        box = episode.field_in_focus
        found = next(((Action(kind=ActionKind.CLICK, point=option.click_point),
                       f"the {label!r} list is open and shows {value!r}, the value the task gives it")
                      for label, value, _ in left
                      if (option := _option_in_line(value, fields[label].box, elements)) is not None), None)
        found = found or next(((Action(kind=ActionKind.TYPE, text=value), f"the task gives {value!r} for {label!r}")
                               for label, value, _ in left if box is not None and fields[label].box.iou(box) > 0.5
                               and fields[label].role == "input"), None)
        if found is None and left:
            label, value, now = left[0]
            found = (Action(kind=ActionKind.CLICK, point=fields[label].click_point),
                     f"the task gives {value!r} for {label!r}, which shows {now.strip()!r}")
        if found is None:
            found = _box_not_as_asked(episode.task, elements, history) or \
                _press_what_is_left(episode.task, elements, history, "every field the task gives a value shows it")
        return found if found is not None and episode.answer_for(found[0], screen) is not None else None

    def _as_given(self, episode: SomText, screen: TextScreen, action: Action, elements: list[Element],
                  labelled: dict[Box, str], history: list[Step]) -> tuple[Action, str] | None:
        """Where the task gives values to fields this screen shows (planner/field_values.py), an action that would
        not leave each of them with its value, done another way: (the action instead, why), or None. A value the
        task gives another field goes there (that field is clicked first; the model types into it next); any other
        text typed into a field the task gives a value becomes that value; a click on a button the task
        names (or one that submits) while a field the task gives a value shows another goes to that field first,
        and so does a click on a field that shows its value already or on one the task neither names nor gives a
        value (once a field an episode: a drop-down OCR cannot read stays unread; and never where the value was
        typed already: a field grounding reads as empty may hold it)."""
        given = _given(episode.task, elements, labelled)
        fields = _fields_by_label(elements, labelled)
        if not given:
            return None
        done = other = None
        if action.kind is ActionKind.TYPE and action.text and (box := episode.field_in_focus) is not None:
            label = next((name for field, name in labelled.items() if field.iou(box) > 0.5), None)
            text = comparable(action.text)
            if label is not None and " ".join(given.get(label, "").split()) == " ".join(action.text.split()):
                return None  # the value itself (a sign or a mark dropped, "44 20 7946" for "+44 20 7946", is not)
            owner = next((name for name, value in given.items() if comparable(value) == text), None)
            if owner is not None and owner in fields and owner != label and \
                    any(name == owner for name, _, _ in self._unfilled(given, fields, elements, history, first=False)):
                # (its own field holds it already, or it was typed there: the text is this field's mistake)
                instead = Action(kind=ActionKind.CLICK, point=fields[owner].click_point)
                why = f"the task gives {action.text!r} for {owner!r}, not {label or 'this field'!r}: its field first"
            elif label in given:  # anything else typed there is not what the task gives it ("1" for a mobile)
                instead = action.model_copy(update={"text": given[label]})
                why = f"the task gives {given[label]!r} for {label!r}"
            else:
                return None
        elif action.kind is ActionKind.CLICK and action.point is not None and \
                not _on_an_option(action.point, elements) and (_presses(episode.task, action.point, elements) or
                (done := _filled_field(action.point, given, fields, elements)) is not None or
                (other := _unasked_field(episode.task, action.point, given, fields)) is not None):
            unfilled = self._unfilled(given, fields, elements, history)
            if not unfilled:
                return None if done is None else _press_what_is_left(episode.task, elements, history,
                                                                     f"{done!r} shows its value already")
            label, value, now = unfilled[0]
            self.filled_first.add(label)
            instead = Action(kind=ActionKind.CLICK, point=fields[label].click_point)
            why = f"{done!r} shows its value already; the task gives {value!r} for {label!r}, which shows " \
                f"{now.strip()!r}" if done is not None else \
                f"the task gives {value!r} for {label!r}, and nothing for {other!r}" if other is not None else \
                f"the task gives {value!r} for {label!r}, which shows {now.strip()!r}: that first"
        else:
            return None
        return instead, why

    def _unfilled(self, given: dict[str, str], fields: dict[str, Element], elements: list[Element],
                  history: list[Step], first: bool = True) -> list[tuple[str, str, str]]:
        """The fields the task gives a value (`given`) that show another and were never typed into with it:
        (label, value, what it shows) each. `first`: only those not sent to already, and no drop-down read empty
        (OCR may miss its one short value): where a model's answer is redirected to them."""
        typed = _typed(history)
        return [(label, value, now) for label, value in given.items() if label in fields and comparable(value) not in
                typed and not reads_as(now := list_reading(fields[label].box, elements) or "", value) and not (
                    first and (label in self.filled_first or not now.strip() and fields[label].role == "dropdown"))]

    def _instead_of_an_invented_text(self, episode: SomText, screen: TextScreen, action: Action,
                                     elements: list[Element], labelled: dict[Box, str], history: list[Step]
                                     ) -> tuple[Action, str] | None:
        """An answer typing what the task does not give (it would be refused: SomText.invented) gives way to what
        the task says is left (`next_given`): the shipped planner typed "yes" for "weekends only, yes, then ...",
        "ms" and "0" on forms with fields still to fill."""
        if action.kind is not ActionKind.TYPE or not action.text or not episode.invented(action, screen):
            return None
        left = self.next_given(episode, screen, elements, labelled, history)
        return None if left is None else (left[0], f"{action.text!r} is no value of the task; {left[1]}")


def _type_what_the_field_needs(episode: SomText, action: Action, elements: list[Element], labelled: dict[Box, str],
                               history: list[Step]) -> tuple[Action, str] | None:
    """Right after a click into a text field the task gives a value that it does not show, and that no step typed,
    an answer clicking a field (that one again, or another) types the value instead: the shipped planner, sent to
    Merchant for "change the merchant to Metro Taxi", clicked the Receipt number field five times and said done."""
    last, box = _last_step(history), episode.field_in_focus
    if action.kind is not ActionKind.CLICK or action.point is None or box is None or last is None or \
            last.action.kind is not ActionKind.CLICK or last.action.point is None or \
            not box.contains(*last.action.point) or \
            any(e.role == "dropdown" and e.box.contains(*last.action.point) for e in last.seen):
        return None  # a drop-down when clicked (its open list may read as fields now: Tk 71004 typed "Meals" there)
    fields = [e for e in elements if e.role in FIELD_ROLES]
    if not any(f.box.contains(*action.point) for f in fields):
        return None  # a click on a button or a box: the model's way on, judged by the other corrections
    field = next((f for f in fields if f.box.iou(box) > 0.5), None)
    label = next((name for seen, name in labelled.items() if seen.iou(box) > 0.5), None)
    if field is None or field.role != "input" or label is None:
        return None
    value = _given(episode.task, elements, labelled).get(label)
    if value is None or comparable(value) in _typed(history) or reads_as(list_reading(field.box, elements) or "",
                                                                          value):
        return None
    return Action(kind=ActionKind.TYPE, text=value), \
        f"{label!r} was just clicked and the task gives it {value!r}, which it does not show: typed"


def _press_what_is_left(task: str, elements: list[Element], history: list[Step], why: str
                        ) -> tuple[Action, str] | None:
    """With every field the task gives a value showing it, the click on the one button the task asks to press that
    no step pressed, once each box the task names is as it asks (else on that box), and `why` (what the answer
    instead did) with the reason: a Tk run filled the form, clicked the Amount field again, then typed the word
    "Amount" into it."""
    clicks = _click_points(history)
    buttons = [e for e in elements if e.role in PRESSABLE and e.text and asked_to_press(task, e.text)]
    if len(buttons) != 1 or any(buttons[0].box.contains(*point) for point in clicks):
        return None
    box = _box_not_as_asked(task, elements, history)
    if box is not None:
        return box[0], f"{why}; {box[1]}"
    return (Action(kind=ActionKind.CLICK, point=buttons[0].click_point),
            f"{why}; the task asks to press {buttons[0].text!r}")


def _on_an_option(point: Point, elements: list[Element]) -> bool:
    """Whether `point` is on a named option of an open list (a GTK list's rows are also read as fields: a click
    there chooses, it does not go to a field the task does not name)."""
    return any(e.role in OPTION_ROLES and e.text and e.box.contains(*point) for e in elements)


def _chose(step: Step, value: str) -> bool:
    """Whether `step` clicked an option reading `value` (a Tk list's row, seen while the list was open, may have been
    taken for a field the task gives that value; the click on it chose it, and the list is closed now)."""
    point = step.action.point
    return point is not None and any(e.text and comparable(e.text) == comparable(value) and e.box.contains(*point)
                                     for e in step.seen)


def _click_points(history: list[Step]) -> list[Point]:
    """Where each click of `history` landed."""
    return [step.action.point for step in history if step.action.kind is ActionKind.CLICK and step.action.point]


def _suggestion_that_fits(task: str, action: Action, elements: list[Element], history: list[Step]
                          ) -> tuple[Action, str] | None:
    """Right after typing the start of a text the task describes by its start or end ("an item that starts with "Au"
    and ends with "lia""), while a suggestion fitting the description shows outside the field typed into (an
    autocomplete's list: new since the typing), a click on the first such suggestion: the run had typed "Cze" and
    said done with the list open."""
    starts, ends = described_by(task)
    at = next((i for i in range(len(history) - 1, -1, -1) if history[i].action.kind is ActionKind.TYPE
               and history[i].action.text), None)
    if not (starts or ends) or at is None:
        return None
    if _last_step(history) is not history[at]:
        return None
    point = next((s.action.point for s in reversed(history[:at]) if s.action.kind is ActionKind.CLICK
                  and s.action.point is not None), None)
    own = [e.box for e in elements if e.role in FIELD_ROLES and point is not None and e.box.contains(*point)]
    echoes = {id(e) for e in task_echoes(elements, task)}
    before = {comparable(e.text) for e in history[at].seen if e.text}  # a label that fits was there before the typing
    fitting = [e for e in elements if e.text and e.role in ("text", *OPTION_ROLES) and id(e) not in echoes
               and comparable(e.text) not in before and fits_description(e.text.strip(), starts, ends)
               and not any(box.contains(*e.center) for box in own)]
    if not fitting:
        return None
    choice = min(_once_each(fitting), key=lambda e: (e.box.y0, e.box.x0))
    if action.kind is ActionKind.CLICK and action.point is not None and choice.box.contains(*action.point):
        return None
    return (Action(kind=ActionKind.CLICK, point=choice.click_point),
            f"{choice.text!r} fits the text the task describes: chosen from the suggestions")


def _described_text_shown(task: str, action: Action, elements: list[Element], history: list[Step]
                          ) -> tuple[Action, str] | None:
    """Where a field shows a text that fits the one the task describes by its start or end, the typing of that
    start or end again does what is left instead (a run chose "Australia" for "starts with "Au" and ends with "lia""
    and then typed "lia" after it)."""
    starts, ends = described_by(task)
    if action.kind is not ActionKind.TYPE or (action.text or "").strip() not in (*starts, *ends):
        return None
    fitting = [e for e in elements
               if e.role in FIELD_ROLES and e.text and fits_description(e.text.strip(), starts, ends)]
    if not fitting:
        return None
    why = f"the field shows {fitting[0].text.strip()!r}, which fits the text the task describes"
    return _press_what_is_left(task, elements, history, why) or (Action(kind=ActionKind.FINISHED, text="done"), why)


def _on_the_calendar(task: str, action: Action, history: list[Step], elements: list[Element]
                     ) -> tuple[Action, str] | None:
    """While a month calendar shows, the click that brings it to the date the task gives (planner/dates.py) instead
    of anything else: a date picker's field may take no keys (the model typed "12/24/2016" into one, which kept
    nothing). Not where that same click was made twice already and the calendar still asks for it."""
    step = calendar_step(task, elements)
    if step is None or (action.kind is ActionKind.CLICK and action.point is not None and
                        any(e.box.contains(*action.point) and e.box.contains(*step[0].point) for e in elements
                            if step[0].point is not None)):
        return None
    if [s.action.point for s in history[-2:]] == [step[0].point] * 2:
        return None
    return step


def _on_the_control(task: str, action: Action, history: list[Step], elements: list[Element]
                    ) -> tuple[Action, str] | None:
    """While a slider or spin box the task gives a number does not show it, the move that brings it closer
    (planner/number_controls.py) instead of anything else (the model typed the number into a slider's handle, which
    took nothing); once each shows its number, a click or drag on one of them, or the typing of its number, does
    what is left instead."""
    step = number_step(task, history, elements)
    if step is not None:
        return step
    on_one = action.kind in (ActionKind.CLICK, ActionKind.DRAG) and action.point is not None and \
        any(control.box.padded(CONTROL_REACH).contains(*action.point) for control, _, _, _ in goals(task, elements))
    typing_its_number = action.kind is ActionKind.TYPE and is_number_of(action.text or "", task, elements)
    if (on_one or typing_its_number) and all_set(task, history, elements):
        return _press_what_is_left(task, elements, history, "each control shows the number the task gives already")
    return None


def _after_the_date(task: str, action: Action, history: list[Step], elements: list[Element]
                    ) -> tuple[Action, str] | None:
    """Once a step chose the date the task gives on a calendar that shows no more, the button the task asks to
    press instead of a click that would open the calendar again or a typing into its field (a run chose the day,
    clicked the date field again, chose the day again and typed "10" over it)."""
    if action.kind not in (ActionKind.CLICK, ActionKind.TYPE, ActionKind.FINISHED) or \
            calendar_step(task, elements) is not None or not any(chose_the_date(task, step) for step in history):
        return None
    if action.kind is ActionKind.CLICK and action.point is not None and not any(
            e.role in FIELD_ROLES and e.box.contains(*action.point) for e in elements):
        return None  # a click elsewhere (the Submit button itself) stands
    return _press_what_is_left(task, elements, history, "the date the task gives was chosen on the calendar")


def _toggle_names_at(point: Point, elements: list[Element]) -> list[str]:
    """The names of the check boxes and radio buttons a click at `point` lands on (on the toggle or its label)."""
    return [name for toggle, name, label in toggle_names(elements) if toggle.box.contains(*point) or
            label.contains(*point)]


def _last_step(history: list[Step]) -> Step | None:
    """The last step that did something (a wait for the screen does not)."""
    return next((step for step in reversed(history) if step.action.kind is not ActionKind.WAIT), None)


def _field_not_its_label(action: Action, elements: list[Element]) -> tuple[Action, str] | None:
    """A click on a field's label, or on the text a field shows, is a click on the field: only a web page's label
    passes its click on to the field, and the text inside a field is the field."""
    if action.kind is not ActionKind.CLICK or action.point is None:
        return None
    under = elements_at(action.point, elements)
    if any(e.role != "text" for e in under):
        return None
    fields = [e for e in elements if e.role in FIELD_ROLES]
    labelled = field_labels(elements)
    for text in under:
        inside = [f for f in fields if f.box.contains(*text.center)]
        named = [f for f in fields if labelled.get(f.box) == text.text]  # the fields this text is the label of
        index = field_for_label(text.box, [f.box for f in named])
        field = inside[0] if inside else named[index] if index is not None else None
        if field is not None:
            return (Action(kind=ActionKind.CLICK, point=field.click_point),
                    f"{text.text!r} {'is in' if inside else 'labels'} a field: the field itself")
    return None


def _to_its_field(episode: SomText, action: Action, elements: list[Element], labelled: dict[Box, str]
                  ) -> tuple[Action, str] | None:
    """A click on a value no element of the screen shows, which the task gives a field of the screen, goes to that
    field: a drop-down is opened ("Currency: USD" while the Currency list is closed: its options show once it is
    open), a text field is clicked (the value is typed there next: a Qt run had ended "could not find '+44 20
    7946'")."""
    if action.kind is not ActionKind.CLICK or action.point is not None or not action.target:
        return None
    wanted = comparable(action.target)
    owner = next((label for label, value in _given(episode.task, elements, labelled).items()
                  if comparable(value) == wanted), None)
    fields = [e for e in elements if e.role in FIELD_ROLES and owner is not None and labelled.get(e.box) == owner]
    if not fields:
        return None
    why = f"{action.target!r} is an option of {owner!r}, which is closed: open it first" if fields[0].role == \
        "dropdown" else f"{action.target!r} is the value the task gives {owner!r}, not a thing on the screen: its field"
    return Action(kind=ActionKind.CLICK, point=fields[0].click_point), why


def _look_in_tabs(episode: SomText, action: Action, elements: list[Element], history: list[Step]
                  ) -> tuple[Action, str] | None:
    """A click on something no element of the screen shows, for a task that speaks of tabs, goes to the next tab
    of the screen's tab row not tried yet: what is asked for may be on another tab ("look through the tabs for the
    Invoices link")."""
    if action.kind is not ActionKind.CLICK or action.point is not None or not action.target or \
            not {"tab", "tabs"} & set(WORD.findall(episode.task.lower())):
        return None
    echoes = task_echoes(elements, episode.task)  # the page showing the task shows its words, not the thing
    if any(e.text and e not in echoes and holds_phrase(e.text, action.target) for e in elements):
        return None
    clicks = _click_points(history)
    tab = next_untried_tab(elements, [e.box for e in elements if any(e.box.contains(*point) for point in clicks)])
    if tab is None:
        return None
    return Action(kind=ActionKind.CLICK, point=tab.center), f"{action.target!r} is not in sight: trying the tab " \
                                                             f"{tab.text!r}"


def given_to_its_field(episode: SomText, action: Action, elements: list[Element], labelled: dict[Box, str]) -> bool:
    """Whether an action types into the field in focus the value the task gives that field: the task says so
    itself, however unsure the model was of it."""
    box = episode.field_in_focus
    if action.kind is not ActionKind.TYPE or not action.text or box is None:
        return False
    label = next((name for field, name in labelled.items() if field.iou(box) > 0.5), None)
    value = _given(episode.task, elements, labelled).get(label or "")
    return value is not None and comparable(value) == comparable(action.text)


def _filled_field(point: Point, given: dict[str, str], fields: dict[str, Element], elements: list[Element]
                  ) -> str | None:
    """The label of the field under `point` when the task gives it a value and it shows that value already."""
    return next((label for label, value in given.items() if label in fields and fields[label].box.contains(*point)
                 and reads_as(list_reading(fields[label].box, elements) or "", value)), None)


def _unasked_field(task: str, point: Point, given: dict[str, str], fields: dict[str, Element]) -> str | None:
    """The label of the field under `point` when the task gives it no value and says no word of its label."""
    return next((label for label, field in fields.items() if field.box.contains(*point) and label not in given
                 and not says_a_word_of(task, label)), None)


def _option_in_line(value: str, box: Box, elements: list[Element]) -> Element | None:
    """The one option reading `value` that shows in line with the field at `box` (in its open list, below or over
    it); None where none or several do. A value of a character or two is read as it is, not folded with its
    look-alikes: "5" for Hours per week is not the "S" of the T-shirt size below it."""
    same = normalised if len(normalised(value)) <= 2 else comparable
    options = _once_each([e for e in elements if e.role in ("text", *OPTION_ROLES) and e.text
                          and in_its_list(e.box, box) and same(e.text) == same(value)
                          and abs(e.center.y - box.center.y) <= LIST_ROWS * box.height])
    return options[0] if len(options) == 1 else None


def _fields_by_label(elements: list[Element], labelled: dict[Box, str]) -> dict[str, Element]:
    """The fields of this screen that have a label, by label."""
    return {label: e for e in elements if e.role in FIELD_ROLES and (label := labelled.get(e.box))}


def _typed(history: list[Step]) -> set[str]:
    """Every text the episode typed so far, as compared (`comparable`)."""
    return {comparable(step.action.text) for step in history if step.action.kind is ActionKind.TYPE and
            step.action.text}


def _given(task: str, elements: list[Element], labelled: dict[Box, str]) -> dict[str, str]:
    """The values the task gives the fields of this screen (`labelled`), by label; secrets' placeholders left
    out (the agent types those)."""
    texts = [e.text for e in elements if e.text and e.role not in FIELD_ROLES and e.text not in labelled.values()]
    return {label: value for label, value in field_values(task, list(labelled.values()), texts).items()
            if not PLACEHOLDER.fullmatch(value)}


def _boxes_before_pressing(episode: SomText, action: Action, elements: list[Element],
                           history: list[Step]) -> tuple[Action, str] | None:
    """A click on a button the task names (or one that submits) while a box the task names shows the other state
    than the task asks, and no step has clicked it, goes to that box first: the shipped planner pressed Submit
    claim for "... and include billable to client. Finish with Submit claim" with the box still clear."""
    if action.kind is not ActionKind.CLICK or action.point is None or not _presses(episode.task, action.point,
                                                                                   elements):
        return None
    left = _box_not_as_asked(episode.task, elements, history)
    return None if left is None else (left[0], left[1] + ": that first")


def _box_not_as_asked(task: str, elements: list[Element], history: list[Step]) -> tuple[Action, str] | None:
    """A click on the first box the task names that shows the other state than the task asks and that no step
    clicked (a box clicked is the goal check's to judge), and why; None when there is none."""
    for toggle, name in _unclicked_named_toggles(task, elements, history):
        wanted = asked_state(task, toggle, name)
        if toggle.checked is not None and toggle.checked is not wanted:
            return (Action(kind=ActionKind.CLICK, point=toggle.click_point),
                    f"the task asks for {name!r} {'ticked' if wanted else 'unticked'}, which it is not")
    return None


def _unclicked_named_toggles(task: str, elements: list[Element], history: list[Step]) -> list[tuple[Element, str]]:
    """The boxes the task names (goal_check.named_toggles) that no step of `history` clicked, on them or their
    labels."""
    clicks = _click_points(history)
    labels = toggle_labels(elements)
    return [(toggle, name) for toggle, name in named_toggles(task, elements)
            if not any(box.contains(*point) for box in (toggle.box, labels[id(toggle)]) for point in clicks)]


def _named_toggle(episode: SomText, action: Action, elements: list[Element], labelled: dict[Box, str],
                  history: list[Step]) -> tuple[Action, str] | None:
    """A click on a check box or radio button (or its label, a line of text, or a field) whose name the task
    does not say, while the task names an unticked one by a word of its own that no step clicked yet
    (goal_check.named_toggles), goes to that one: the shipped planner clicked the label of the "Small" radio
    button (which grounding did not see) for "Opt into the newsletter", and the Password field, to type "me",
    for "Sign me up for the newsletter"."""
    if action.kind is not ActionKind.CLICK or action.point is None:
        return None
    under = elements_at(action.point, elements)
    fields = [e for e in under if e.role in FIELD_ROLES]
    names = _toggle_names_at(action.point, elements) + \
        [e.text for e in under if e.role == "text" and e.text] + [labelled.get(e.box, "") for e in fields]
    if not names or not all(names) or any(e.role not in ("text", *TOGGLE_ROLES, *FIELD_ROLES) for e in under) or \
            any(says_a_word_of(episode.task, name) for name in names):
        return None
    named = [(toggle, name) for toggle, name in _unclicked_named_toggles(episode.task, elements, history)
             if toggle.checked is False]
    if not named:
        return None
    toggle, name = named[0]
    instead = Action(kind=ActionKind.CLICK, point=toggle.click_point)
    return instead, f"the task names {name!r}, not {names[0]!r}"


def _toggle_as_asked_already(task: str, action: Action, elements: list[Element], history: list[Step]
                             ) -> tuple[Action, str] | None:
    """A click on a box or radio button the task names (or its label) that shows the state the task asks of it
    already, which would undo it or do nothing, goes to a box the task names that does not and that no step
    clicked: the shipped planner clicked a chosen "Evening" again and again for "... disable the Has a car, and the
    shift should be "Evening"", the box left ticked (seed 63003 in GTK and Tk)."""
    if action.kind is not ActionKind.CLICK or action.point is None:
        return None
    point = action.point
    labels = toggle_labels(elements)
    on = [(toggle, name) for toggle, name in named_toggles(task, elements)
          if toggle.box.contains(*point) or labels[id(toggle)].contains(*point)]
    if len(on) != 1 or on[0][0].checked is None or on[0][0].checked is not asked_state(task, *on[0]):
        return None
    left = _box_not_as_asked(task, elements, history)
    if left is None or left[0].point is not None and on[0][0].box.contains(*left[0].point):
        return None
    toggle, name = on[0]
    return left[0], f"{name!r} is {'ticked' if toggle.checked else 'unticked'} as the task asks already; {left[1]}"


def _clicked_not_typed(task: str, action: Action, elements: list[Element], labelled: dict[Box, str]
                       ) -> tuple[Action, str] | None:
    """Typing the name of an unticked check box or radio button of the screen ("small" for "The size should be
    small", where a radio button says Small), or of a label on a row of them, or the value the task gives a
    drop-down while its open list shows that option ("open the Category and choose Supplies"), or the name of a
    button the task says ("... then hit join!"), is a click on it: what names a thing on the screen is clicked, not
    typed."""
    if action.kind is not ActionKind.TYPE or not action.text:
        return None
    wanted = comparable(action.text)
    named = [toggle for toggle, name, _ in toggle_names(elements) if comparable(name) == wanted]
    if not named:  # an option's label whose button grounding missed, in a row of others it found
        toggles = [e.box for e in elements if e.role in TOGGLE_ROLES]
        named = [e for e in elements if e.role == "text" and comparable(e.text) == wanted and any(
            abs(box.center.y - e.box.center.y) <= e.box.height / 2 for box in toggles)]
    if not named and any(comparable(value) == wanted for value in _given(task, elements, labelled).values()):
        # an open list's options, as grounding reads them: list items, or lines of text
        named = _once_each([e for e in elements if e.role in ("text", *OPTION_ROLES) and e.text
                            and comparable(e.text) == wanted])
    if not named and holds_phrase(task, action.text):  # "... and then hit join!": the Join button; "... then
        # submit claim": "submit" of the Submit claim button the task asks to press
        named = [e for e in elements if e.role in PRESSABLE and e.text and (comparable(e.text) == wanted or (
            asked_to_press(task, e.text) and "".join(comparable(e.text).split()).startswith("".join(wanted.split()))))]
    if len(named) != 1 or named[0].role in TOGGLE_ROLES and named[0].checked is not False:
        return None
    instead = Action(kind=ActionKind.CLICK, point=named[0].click_point)
    return instead, f"{action.text!r} names an option of the screen: clicked, not typed"


def _once_each(options: list[Element]) -> list[Element]:
    """`options` (all reading the same) without the texts read inside another of them: one option of a GTK list is
    a menu item (the accessibility tree's) and the text line OCR read in it."""
    return [o for o in options if not any(other is not o and other.box.contains(*o.center) and other.box.area >
                                          o.box.area for other in options)]


def _task_spelling(episode: SomText, screen: TextScreen, action: Action) -> tuple[Action, str] | None:
    """Text the task does not say that is the task's own words misspelt ("Kathleen Johnson" for "Write
    Katherine Johnson where it asks for the full name") is typed as the task spells it: a small model copies
    names letter by letter and slips."""
    if action.kind is not ActionKind.TYPE or not action.text or not episode.invented(action, screen):
        return None
    spelt = task_spelling(action.text, episode.task)
    if spelt is None:
        return None
    instead = action.model_copy(update={"text": spelt})
    if episode.invented(instead, screen):
        return None
    return instead, f"{action.text!r} is the task's {spelt!r} misspelt"


def _presses(task: str, point: Point, elements: list[Element]) -> bool:
    """Whether a click at `point` lands on a button or link that the task names or that submits."""
    return any(e.role in PRESSABLE and e.text and (SUBMITS.match(e.text) or holds_phrase(task, e.text))
               for e in elements_at(point, elements))


def elsewhere(episode: SomText, action: Action, labelled: dict[Box, str]) -> str | None:
    """Where an action types into a field the task does not name while it names another field of the screen
    (`labelled`: its fields and their labels), why that is the wrong field; else None."""
    box = episode.field_in_focus
    if action.kind is not ActionKind.TYPE or box is None:
        return None
    label = next((name for field, name in labelled.items() if field.iou(box) > 0.5), None)
    other = other_named_field(episode.task, label, labelled, []) if label else None
    return f"the task names {other!r}, not {label!r}" if other else None

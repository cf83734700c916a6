"""The agent loop: observe -> parse -> plan -> locate -> safety -> act -> wait for the screen to settle -> record.
Every run is an Episode; every outcome (done, failed, step limit, stop, refusal, error) is written into it.

A task that takes a value from the screen ("enter the value of Religion into the text field") is planned and checked
with the value the first screen shows written in (screen_values.py); the first step says what was read.

"Done" is checked, not believed: when the planner finishes, the goal check (goal_check.py) reads the final screen,
and the run is a success only when every expectation holds (and, for a model planner that changed the screen, when
the check read something back); text that reads as an error ends a run as failed. A
model planner is told about a failed check, or an error on the screen, once and may go on; the offline planner,
which cannot take advice, fails at once.

The planner runs in a thread of its own, so the stop (hotkey, corner, Ctrl+C, the app's button) ends a run even
while a model is thinking, and a planner that never answers runs into `decide_timeout`. The task's secrets never
reach the episode: a model types `{{password}}`-style placeholders that are filled here, and only into a field
whose label fits (else the safety policy asks)."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.controller import Controller
from deskpilot.core.episode import EpisodeWriter, Step
from deskpilot.core.errors import DeskpilotError, GoalFailed, GroundingError, PlannerError
from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element, Observation, in_whole_parts, parted_field
from deskpilot.core.outcome import RunResult, outcome_of
from deskpilot.core.periodic import Periodic
from deskpilot.core.rule_packs import active
from deskpilot.core.safety import CornerWatch, Safety
from deskpilot.core.screen import SETTLE_QUIET, TYPED_QUIET, Screen, changed_box
from deskpilot.core.secrets import (TaskSecret, fill_placeholders, redact_tokens, scrub, scrub_read,
                                    scrubbed_elements, shares_secret, task_secrets)
from deskpilot.core.task_text import menu_paths
from deskpilot.core.verdict import GoalCheck
from deskpilot.grounding.action_context import FIELD_ROLES, KeyboardFocus, action_context
from deskpilot.grounding.base import Grounder
from deskpilot.grounding.layout import ink_box

from .base import Decision, Planner
from .control_names import speaks_of_a_box, with_box_labels
from .everyday import may_read_everyday, read_everyday
from .field_text import CARET_KEYS, SELECTING_KEYS, FieldSelector, replaces, selections
from .goal_check import GoalTracker, field_reading, same_text, text_key, without_caret
from .instructions import parse_instructions
from .offline import OfflinePlanner
from .routing import RoutingPlanner
from .screen_values import read_from_screen, takes_screen_values

log = logging.getLogger(__name__)
LOCATE_RETRY_SECONDS = 0.25
CARET_LOOKS = 5  # frames over one blink of a text cursor (Tk's is off for 300 ms of every 900) ...
CARET_LOOK_SECONDS = 0.25  # ... this far apart
CARET_WIDTH = 3  # pixels: a mark no wider than this in an empty field is its text cursor
POINTED_CLICKS = (ActionKind.CLICK, ActionKind.DOUBLE_CLICK, ActionKind.RIGHT_CLICK)
MASK_COLOUR = (128, 128, 128)  # what a secret's region shows in every frame that leaves the process
PLANNER_POLL_SECONDS = 0.05  # how often a waiting agent looks at the stop while the planner thinks


def read_on_the_first_screen(task: str) -> bool:
    """Whether the task is read against the first screen before it is planned: a value it takes from the screen
    (screen_values.py), a box it asks for by what it does (control_names.py), a request in everyday words the
    grammar refuses as written (everyday/). Until then, a planner's refusal of the task as written waits."""
    return takes_screen_values(task) or speaks_of_a_box(task) or may_read_everyday(task)


@dataclass
class StepReport:
    """What a listener (CLI log, app view) is told after each step. `changed`: whether the action changed what
    the screen says (None for a last answer, or a dry run, which act on nothing)."""

    step: Step
    observation: Observation
    elements: list[Element]
    changed: bool | None = None


class Agent:
    def __init__(self, screen: Screen, grounder: Grounder, planner: Planner, controller: Controller, safety: Safety,
                 episodes_dir: Path, locate_timeout: float = 3.0, settle_timeout: float = 2.0,
                 on_step: Callable[[StepReport], None] | None = None, decide_timeout: float = 120.0):
        self.screen, self.grounder, self.planner = screen, grounder, planner
        self.controller, self.safety = controller, safety
        self.episodes_dir = episodes_dir
        self.locate_timeout, self.settle_timeout = locate_timeout, settle_timeout
        self._looked_ahead_ms = 0.0  # time the current step's settle wait spent parsing frames that changed
        self.decide_timeout = decide_timeout
        self.on_step = on_step
        self._secrets: list[TaskSecret] = []
        self._focus = KeyboardFocus()
        self._secret_boxes: list[Box] = []  # fields a secret was typed into: masked in every frame that leaves
        self._goal = GoalTracker()
        self._selector = FieldSelector(screen, controller, safety.stop)
        self._elements: list[Element] = []  # what grounding found on the screen the current step saw
        self._seen: Observation | None = None  # ... and that screen
        self._feedback: str | None = None  # told to a model planner with its next decision
        self._told: set[str] = set()  # what a model planner has been told already (each thing once)
        self._read_notes = ""  # what the task was read as on the first screen (said in the first step)

    def run(self, task: str, max_steps: int = 30, app: str | None = None,
            until: Callable[[Step], bool] | None = None) -> RunResult:
        """Work on `task` until the planner finishes or asks for help, the step limit, a stop or an error.
        `until`, asked after every step, lets an environment that keeps its own score end the run (outcome
        "ended")."""
        refusal: DeskpilotError | None = None
        said, task = task, menu_paths(task)  # "Edit → Copy" is the grammar's "Edit > Copy"
        try:
            planner_secrets = self.planner.secrets(task)
        except DeskpilotError as exc:  # e.g. an instruction the offline planner does not understand
            planner_secrets, refusal = [], exc
        self._secrets = run_secrets(task, planner_secrets)
        self._focus, self._secret_boxes = KeyboardFocus(), []
        secrets = [s.value for s in self._secrets]
        self._goal, self._feedback, self._told = GoalTracker(task, tuple(secrets)), None, set()
        self._read_notes = ""
        self.grounder.set_task(task)
        writer = EpisodeWriter.create(self.episodes_dir, scrub(said, secrets), source="agent", app=app,
                                      model=self.planner.name, dry_run=self.safety.dry_run)
        steps: list[Step] = []
        outcome, detail = "max_steps", f"stopped after the step limit of {max_steps}"
        check = None
        watch: Periodic | None = None
        try:
            from_screen, names_boxes = takes_screen_values(task), speaks_of_a_box(task)
            if refusal is not None and not (from_screen or names_boxes or may_read_everyday(task)):
                raise refusal  # nothing to read on the first screen first
            watch = CornerWatch(self.safety.stop, self.screen.cursor, self.screen.monitors()).start()
            first = self.screen.wait_until_settled(timeout=self.settle_timeout, on_change=self._look_ahead,
                                                   check=self.safety.stop.check)
            obs = self._observe(first)
            initial = self.grounder.parse(obs)
            if names_boxes:
                task, refusal = self._with_box_labels(task, initial, refusal)
            if from_screen:
                task, refusal = self._with_screen_values(task, initial)
            if isinstance(self.planner, (OfflinePlanner, RoutingPlanner)):  # a model chosen by name reads the words
                task, refusal = self._in_everyday_words(task, obs, initial, refusal)
            before = writer.add_frame(self._masked(obs, initial).image)  # kept with a refusal too: what it saw
            if refusal is not None:
                raise refusal
            self._goal.start(initial)
            for index in range(max_steps):
                step, obs, before = self._step(index, task, steps, obs, before, writer)
                steps.append(step)
                if step.action.kind is ActionKind.FINISHED and self.safety.dry_run:
                    outcome, detail = "success", f"dry run: {step.action.text or 'finished'} (nothing was done, " \
                                                 "so nothing was checked)"
                    break
                if step.action.kind is ActionKind.FINISHED:
                    check = self._final_check()
                    if check.passed and not check.held and self._goal.acted and \
                            self.planner.name != OfflinePlanner.name:
                        # a model's "done" after it changed the screen is no evidence: the check must hold something
                        # (the offline grammar did the task's own steps, each located on the screen)
                        check = GoalCheck(False, (), "the planner said done, and nothing on the screen shows what "
                                                     "the task asks (no value, box, choice or press to read back)")
                    if not check.passed and self._tell(f"You said the task is done, but it is not: "
                                                       f"{check.failed}. Carry on, or call the user."):
                        continue
                    outcome = "success" if check.passed else "failed"
                    detail = (step.action.text or "finished") if check.passed else check.failed or "check failed"
                    break
                if step.action.is_terminal:
                    outcome, detail = "needs_user", step.action.text or "the agent asks for help"
                    break
                if until is not None and until(step):
                    outcome, detail = "ended", "the environment ended the episode"
                    check = self._goal.check(self._elements)  # kept beside the environment's verdict
                    break
        except DeskpilotError as exc:
            outcome, detail = outcome_of(exc), scrub(str(exc), secrets)
        except Exception as exc:  # noqa: BLE001 - a bug or a broken part: the episode says so in one line
            log.debug("the run failed", exc_info=True)
            first_line = (str(exc).splitlines() or [""])[0]
            outcome, detail = "error", scrub(f"{type(exc).__name__}: {first_line}"[:300], secrets)
        finally:
            if watch is not None:
                watch.close()
            try:
                self.controller.release_all()
            finally:
                writer.finish(outcome, detail, check)
        return RunResult(outcome, detail, writer.directory, steps, check)

    def _with_screen_values(self, task: str, elements: list[Element]) -> tuple[str, DeskpilotError | None]:
        """The task with the values it takes from the first screen (`elements`) written in, and the planner's
        refusal of it (None where it takes it); a value that cannot be read is a refusal, never typed as the words
        that describe it. The goal check and the task's secrets follow the task as read."""
        read = read_from_screen(task, elements)
        if read is None:
            return task, PlannerError("the task takes a value from the screen that I cannot read there (no one label "
                                      "or paragraph it names shows, or its value is not plain text)")
        task, self._read_notes = read.task, "; ".join(filter(None, (self._read_notes, *read.notes)))
        log.info("the task read with the screen's values: %s", task)
        return task, self._restarted(task)

    def _with_box_labels(self, task: str, elements: list[Element],
                         refusal: DeskpilotError | None) -> tuple[str, DeskpilotError | None]:
        """The task with each clause that asks for a common box by what it does ("keep me logged in") written as
        the tick of the label the first screen (`elements`) shows it by (control_names.py), and the planner's
        refusal of the task as written now; the task and `refusal` as they were where no clause is."""
        written, notes = with_box_labels(task, elements)
        if not notes:
            return task, refusal
        self._read_notes = "; ".join(filter(None, (self._read_notes, *notes)))
        log.info("the task read with the screen's box labels: %s", written)
        return written, self._restarted(written)

    def _grammar_misreads(self, task: str, obs: Observation, read: tuple[str, ...]) -> bool:
        """Whether the grammar refuses the task as written, or reads it with a first target the first screen does
        not show ("pick the 15th" read as a thing called "the 15th"), or with a target the first screen does not
        show in a clause `read` takes another way ("go to the end" read as a thing called "the end")."""
        try:
            plan = [planned.action for planned in parse_instructions(task)]
        except PlannerError:
            return True
        return any(action.target is not None and action.point is None and (
            index == 0 or any(action.target.lower() in clause.lower() for clause in read))
            and self.grounder.locate(obs, action.target) is None for index, action in enumerate(plan))

    def _in_everyday_words(self, task: str, obs: Observation, elements: list[Element],
                           refusal: DeskpilotError | None) -> tuple[str, DeskpilotError | None]:
        """The task read as the steps its everyday words ask for on the first screen (`obs`, its `elements`;
        everyday/), and the planner's refusal of that: where the grammar refuses or misreads the words as
        written, or a clause is read by what only this screen shows (a calculator's keys, a calendar, a file
        dialog); else the task and `refusal` as they were."""
        reading = read_everyday(task, elements)
        if reading is None or not (reading.screen_bound or self._grammar_misreads(task, obs, reading.clauses)):
            return task, refusal
        self._read_notes = "; ".join(filter(None, (self._read_notes, *reading.notes)))
        refusal = self._restarted(reading.task)
        log.info("the task read in everyday words: %s", scrub(reading.task, [s.value for s in self._secrets]))
        return reading.task, refusal

    def _restarted(self, task: str) -> DeskpilotError | None:
        """Secrets, goal check and grounding set up again for the task as read against the first screen; the
        planner's refusal of it (None where it takes it). A secret of the task as written stays one: a reading never
        lets a value out that the words before it kept."""
        refusal = None
        try:
            found = run_secrets(task, self.planner.secrets(task))
            names = {s.name for s in found}
            for kept in self._secrets:
                if all(s.value != kept.value for s in found):
                    name = kept.name if kept.name not in names else f"secret_{len(found) + 1}"
                    found.append(TaskSecret(name, kept.value))
                    names.add(name)
            self._secrets = found
        except DeskpilotError as exc:
            refusal = exc
        said = self._goal.said or self._goal.task  # what the user wrote, as the first tracker had it
        self._goal = GoalTracker(task, tuple(s.value for s in self._secrets), said=said)
        self.grounder.set_task(task)
        return refusal

    def _type_in_place(self, action: Action, task: str, history: list[Step], elements: list[Element],
                       obs: Observation) -> bool:
        """Type `action`'s text into the focused field in place of what it shows (field_text.py): select it first
        where it holds text (read, or marks OCR did not read) and no key before placed the caret or selected, and
        where the field then shows more than the value, select it another way and type again, once. Into a date or
        time field that shows its empty parts, each number goes in whole ("01:49 PM"). Whether what the field held
        was selected before the typing."""
        box = self._focus.field
        held = field_reading(box, elements) if box is not None else None
        # a time or date field's empty parts, as this screen shows them or as the click into it saw them (a web time
        # field's picker, opened by the click, covers them)
        shown = [e.text for e in [*elements, *(history[-1].seen if history else [])]
                 if box is not None and e.role in FIELD_ROLES and e.box.iou(box) > 0.5]
        if any(parted_field(text) for text in [held or "", *shown]) and action.text and not action.secret:
            action = action.model_copy(update={"text": in_whole_parts(action.text)})
        if box is not None and not (held or "").strip() and not blank_in(obs)(box):
            held = "?"  # marks OCR did not read ("8" alone, on seed 83000): the field holds something all the same
        previous = history[-1].action if history else None
        fresh = previous is None or previous.kind is not ActionKind.TYPE and not (
            previous.kind is ActionKind.HOTKEY and previous.keys in SELECTING_KEYS + CARET_KEYS)
        if box is None or not held or not fresh or not replaces(task):
            self.controller.execute(action)
            return False
        ways = [name for name, _ in selections(box)]
        way = self._selector.select(box)
        self.controller.execute(action)
        value = (action.text or "").split("\n")[0]
        if way is None or action.secret or "\n" in (action.text or "") or not value:
            return way is not None
        settled = self.screen.wait_until_settled(obs.image, timeout=self.settle_timeout, quiet=TYPED_QUIET,
                                                 check=self.safety.stop.check)
        now = field_reading(box, self.grounder.parse(self._observe(settled)))
        if now is None or same_text(now, value) or text_key(held) not in text_key(now):
            return True
        log.info("the field still shows %r beside the value after %s: selecting it another way", held, way)
        if self._selector.select(box, skip=ways.index(way) + 1) is not None:
            self.controller.execute(action)
        return True

    def _close_open_list(self, obs: Observation) -> None:
        """Escape the drop-down list the last click opened, so that the click elsewhere that follows lands on what
        it aims at instead of only closing the list."""
        log.info("a drop-down list is open: escaping it before the click elsewhere")
        self.controller.execute(Action(kind=ActionKind.HOTKEY, keys=("escape",)))
        self.screen.wait_until_settled(obs.image, timeout=self.settle_timeout, check=self.safety.stop.check)

    def _final_check(self) -> GoalCheck:
        """The goal check on the last screen, and where the text cursor may have been read as a letter, also on
        frames taken over one blink of it: where a field's value ends in such a letter (the field may hold the value
        less it), each frame must hold too; where a field failed showing its value and such a letter more, the first
        frame that holds (the cursor off) is the check."""
        seen = self._seen
        check = self._goal.check(self._elements, None if seen is None else blank_in(seen),
                                 None if seen is None else partial(self.grounder.read_inside, seen))
        doubt = check.passed and self._goal.caret_doubt(self._elements)
        excess = not check.passed and self._goal.caret_excess(self._elements)
        if not (doubt or excess):
            return check
        for again in self._checks_over_a_blink():
            if again.passed is excess:
                return again
        return check

    def _checks_over_a_blink(self) -> Iterator[GoalCheck]:
        """The goal check on frames taken over one blink of a text cursor, each read when asked for."""
        frames, started = [], time.perf_counter()
        for look in range(CARET_LOOKS):  # taken first, read after: a slow read cannot stretch the spacing
            self.safety.stop.check()
            time.sleep(max(0.0, started + look * CARET_LOOK_SECONDS - time.perf_counter()))
            frames.append(self._observe())
        return (self._goal.check(self.grounder.parse(obs), blank_in(obs), partial(self.grounder.read_inside, obs))
                for obs in frames)

    def _done_already(self, decision: Decision, elements: list[Element], history: list[Step]) -> Decision:
        """A model planner that, after the run has acted, calls the user (unsure of its next step, or its answer
        not the task's) or repeats its last action, while the screen shows the task done (the goal check passes on
        it and holds what the run did), is done: "finished", which the final check then judges as it would the
        model's own "done". Anything else, and the offline planner's decisions, as they are."""
        action = decision.action
        repeated = bool(history) and action.kind is not ActionKind.FINISHED and history[-1].action == action
        if not (action.kind is ActionKind.CALL_USER or repeated) or not history or not self._goal.acted or \
                self.planner.name == OfflinePlanner.name:
            return decision
        check = self._goal.check(elements, None if self._seen is None else blank_in(self._seen))
        if not check.passed or not check.held:
            return decision
        return Decision(f"{decision.thought}; but the screen shows the task done ({'; '.join(check.held)})",
                        Action(kind=ActionKind.FINISHED, text="done: the screen shows what the task asks"),
                        decision.confidence)

    def _tell(self, feedback: str) -> bool:
        """Give a model planner `feedback` with its next decision, once per thing; False where it cannot take
        advice (the offline planner) or was told already."""
        if not getattr(self.planner, "takes_feedback", False) or feedback in self._told:
            return False
        self._told.add(feedback)
        self._feedback = feedback
        return True

    def _observe(self, image: object = None) -> Observation:
        if image is None:
            return self.screen.capture()
        window = self.screen.focused_window()
        return Observation(image=image, monitor=self.screen.monitor(), cursor=self.screen.cursor(),  # type: ignore[arg-type]
                           window_title=window.title if window else None, window=window)

    def _scrubbed_text(self, text: str) -> str:
        """Text a model wrote (a thought, a finished() answer, a question) as it may be shown and kept: no secret
        value, no part of one, no key- or token-shaped text."""
        return redact_tokens(scrub_read(text, [s.value for s in self._secrets]))

    def _masked(self, obs: Observation, elements: list[Element]) -> Observation:
        """`obs` as it may leave the process (to a model, into the episode, onto the app's view): the fields a
        secret was typed into, and every element whose text shows a secret (a ticked "Show password"), painted
        over."""
        values = [s.value for s in self._secrets]
        boxes = list(self._secret_boxes) + [e.box for e in elements if e.text and scrub_read(e.text, values) != e.text]
        if not boxes:
            return obs
        image = obs.image.copy()
        height, width = image.shape[:2]
        for box in boxes:
            x0, y0 = obs.monitor.screen_to_image(box.x0, box.y0)
            x1, y1 = obs.monitor.screen_to_image(box.x1, box.y1)
            region = Box(int(x0) - 2, int(y0) - 2, int(x1) + 2, int(y1) + 2).clipped(Box(0, 0, width, height))
            image[region.y0:region.y1, region.x0:region.x1] = MASK_COLOUR
        return replace(obs, image=image)

    def _step(self, index: int, task: str, history: list[Step], obs: Observation, before: str,
              writer: EpisodeWriter) -> tuple[Step, Observation, str]:
        self.safety.stop.check()
        timing: dict[str, float] = {}
        started = time.perf_counter()
        elements = self.grounder.parse(obs)
        self._elements, self._seen = elements, obs
        timing["parse_ms"] = _ms(started)
        error = self._goal.look(elements)
        if error is not None and not self._tell(f"The screen shows an error: {error!r}. Put it right, or call the "
                                                "user."):
            raise GoalFailed(f"the screen shows {error!r}")
        timing.update({stage: round(spent, 1) for stage, spent in self.grounder.timing.items()})
        mark = time.perf_counter()
        shown, shown_elements = self._masked(obs, elements), self._stored(elements)
        feedback, self._feedback = self._feedback, None
        decision = _closing_press(self._done_already(
            self._decide(f"{task}\n\n{feedback}" if feedback else task, history, shown, shown_elements),
            elements, history), elements, history)
        timing["plan_ms"] = _ms(mark)
        action = decision.action
        thought = self._scrubbed_text(decision.thought)
        if index == 0 and self._read_notes:
            thought = f"{self._scrubbed_text(self._read_notes)}; {thought}"
        monitor = obs.monitor
        if action.is_terminal:
            if action.text:
                action = action.model_copy(update={"text": self._scrubbed_text(action.text)})
            step = Step(index, action, before, None, thought, monitor, timing=timing, seen=shown_elements,
                        confidence=decision.confidence)
            writer.append(step)
            self._report(step, shown, shown_elements)
            return step, obs, before

        mark = time.perf_counter()
        action, used, obs, before = self._ground(action, obs, before, writer)
        timing["locate_ms"] = _ms(mark)
        action, executed = self._with_secrets(action)
        seen = elements + [e for e in used if e not in elements]
        context = action_context(executed, obs, seen, self._focus, self._secrets)
        self.safety.check(executed, self.screen.monitors(), self.screen.cursor(), context)
        if executed.secret and executed.kind is ActionKind.TYPE and self._focus.box is not None:
            self._secret_boxes.append(self._focus.box)
        mark = time.perf_counter()
        selected = False
        if not self.safety.dry_run:
            if executed.kind in POINTED_CLICKS and executed.point is not None and \
                    self._goal.list_in_the_way(executed.point, seen):
                self._close_open_list(obs)
            if executed.kind is ActionKind.TYPE:
                selected = self._type_in_place(executed, task, history, elements, obs)
            else:
                self.controller.execute(executed)
        focus_then = replace(self._focus)
        self._focus.follow(executed, seen)
        timing["act_ms"] = _ms(mark)
        mark = time.perf_counter()
        self._looked_ahead_ms = 0.0
        after_image = self.screen.wait_until_settled(
            obs.image, timeout=self.settle_timeout, on_change=self._look_ahead,
            quiet=TYPED_QUIET if executed.kind is ActionKind.TYPE else SETTLE_QUIET, check=self.safety.stop.check)
        timing["settle_ms"] = _ms(mark)
        timing["look_ahead_ms"] = round(self._looked_ahead_ms, 1)
        after_obs = self._observe(after_image)
        after_elements = self.grounder.parse(after_obs)
        after = writer.add_frame(self._masked(after_obs, after_elements).image)
        changed = screen_changed(elements, after_elements, obs, after_obs)
        self._goal.follow(executed, focus_then, seen, after_elements, changed, selected, blank_in(after_obs))
        self._elements, self._seen = after_elements, after_obs  # the latest screen, until the next step reads it
        timing["step_ms"] = _ms(started)
        step = Step(index, action, before, after, thought, monitor, self._stored(used), timing,
                    dry_run=self.safety.dry_run, window=obs.window_title, seen=self._stored(elements),
                    confidence=decision.confidence)
        writer.append(step)
        log.info("step %d: %s", index + 1, action.redacted().describe())
        self._report(step, shown, shown_elements, None if self.safety.dry_run else changed)
        return step, after_obs, after

    def _look_ahead(self, frame: np.ndarray) -> None:
        """Parse a frame that changed while the screen settles: the wait overlaps the next step's reading, whose
        own parse then finds the settled frame (mostly) read already."""
        started = time.perf_counter()
        try:
            self.grounder.parse(Observation(image=frame, monitor=self.screen.monitor(), cursor=None))
        except DeskpilotError:
            log.debug("parsing a frame while the screen settled failed", exc_info=True)  # the next parse will say
        self._looked_ahead_ms += _ms(started)

    def _decide(self, task: str, history: list[Step], obs: Observation, elements: list[Element]) -> Decision:
        """The planner's Decision, asked in a thread of its own: the stop ends the wait at once, and a planner
        that takes longer than `decide_timeout` fails the step (its thread is left to finish on its own)."""
        result: dict[str, object] = {}
        done = threading.Event()

        def work() -> None:
            try:
                result["decision"] = self.planner.decide(task, history, obs, elements)
            except BaseException as exc:  # noqa: BLE001 - handed over to the agent's thread below
                result["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="planner", daemon=True).start()
        deadline = time.monotonic() + self.decide_timeout
        while not done.wait(PLANNER_POLL_SECONDS):
            self.safety.stop.check()
            if time.monotonic() > deadline:
                raise PlannerError(f"the planner did not decide within {self.decide_timeout:g} s")
        self.safety.stop.check()
        if "error" in result:
            raise result["error"]  # type: ignore[misc]
        return result["decision"]  # type: ignore[return-value]

    def _with_secrets(self, action: Action) -> tuple[Action, Action]:
        """(the action as stored, the action as executed): `{{password}}` placeholders are filled only in the
        executed one; typed text holding a secret value is marked secret, so it is stored redacted."""
        if action.kind is not ActionKind.TYPE or not action.text:
            return action, action
        filled, used = fill_placeholders(action.text, self._secrets)
        holds_secret = bool(used) or any(shares_secret(action.text, s) for s in self._secrets)
        if not holds_secret:
            return action, action
        executed = action.model_copy(update={"text": filled, "secret": True})
        keeps_placeholders = bool(used) and not action.secret and not any(shares_secret(action.text, s)
                                                                           for s in self._secrets)
        return (action if keeps_placeholders else executed), executed

    def _stored(self, elements: list[Element]) -> list[Element]:
        """Elements as they may be written down: no task secret and no key- or token-shaped text in them."""
        return scrubbed_elements(elements, [s.value for s in self._secrets])

    def _ground(self, action: Action, obs: Observation, before: str,
                writer: EpisodeWriter) -> tuple[Action, list[Element], Observation, str]:
        """Resolve target descriptions to points, re-looking at the screen until `locate_timeout` (the target
        may still be appearing). Returns the resolved action, the elements used, and the observation used."""
        wanted = {name: description for name, description in
                  (("point", action.target if action.point is None else None),
                   ("end_point", action.end_target if action.end_point is None else None)) if description}
        if not wanted:
            return action, [], obs, before
        deadline = time.monotonic() + self.locate_timeout
        while True:
            found = {name: self.grounder.locate(obs, description) for name, description in wanted.items()}
            missing = [wanted[name] for name, element in found.items() if element is None]
            if not missing:
                break
            if time.monotonic() >= deadline:
                raise GroundingError(f"could not find {missing[0]!r} on the screen")
            self.safety.stop.sleep(LOCATE_RETRY_SECONDS)
            obs = self.screen.capture()
            before = writer.add_frame(self._masked(obs, self.grounder.parse(obs)).image)
        points = {name: element.click_point for name, element in found.items() if element is not None}
        return action.with_points(**points), [e for e in found.values() if e is not None], obs, before

    def _report(self, step: Step, obs: Observation, elements: list[Element], changed: bool | None = None) -> None:
        if self.on_step is not None:
            self.on_step(StepReport(step, obs, elements, changed))


def _closing_press(decision: Decision, elements: list[Element], history: list[Step]) -> Decision:
    """Under a rule pack whose pages end every task with a button (`closing_buttons`: MiniWoB++'s Submit), "done"
    while the screen shows one that no step pressed presses it first; with no pack on, the decision as it is."""
    names = {name.lower() for name in active().closing_buttons}
    if decision.action.kind is not ActionKind.FINISHED or not names:
        return decision
    # a press is a click on the button as its own screen showed it (a list open over it took an earlier click)
    pressed = any(step.action.kind is ActionKind.CLICK and step.action.point is not None and any(
        e.role == "button" and e.text.strip().lower() in names and e.box.contains(*step.action.point)
        for e in step.seen) for step in history)
    button = next((e for e in elements if e.role == "button" and e.text.strip().lower() in names), None)
    if button is None or pressed:
        return decision
    return Decision(f"{decision.thought}; the page ends every task with {button.text!r}: pressed first",
                    Action(kind=ActionKind.CLICK, point=button.click_point))


def blank_in(obs: Observation) -> Callable[[Box], bool]:
    """Whether a field's box (screen pixels) shows no mark wider than a text cursor on `obs`: a value of a character
    or two OCR does not read is there or not by its pixels."""
    def blank(box: Box) -> bool:
        ink = ink_box(obs.image, obs.monitor.screen_box_to_image(box))
        return ink is None or ink.width <= CARET_WIDTH * obs.monitor.scale

    return blank


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def screen_changed(before: list[Element], after: list[Element], obs: Observation, after_obs: Observation) -> bool:
    """Whether an action changed what the screen says: its texts, controls or their states, or the focused
    window's title (a saved document's loses its modified mark). A blinking caret or a hover colour is not a
    change; where grounding found nothing at all, any changed pixel is."""
    def said(elements: list[Element]) -> Counter[tuple[str, str, bool | None]]:
        return Counter((" ".join(without_caret(e.text).split()), e.role, e.checked) for e in elements)

    titles = (obs.window_title, after_obs.window_title)
    retitled = None not in titles and titles[0] != titles[1]  # from none to one is the focus arriving, not an effect
    return said(before) != said(after) or retitled or (changed_box(obs.image, after_obs.image) is not None
                                                       and not before)


def run_secrets(task: str, planner_secrets: list[str]) -> list[TaskSecret]:
    """The secrets of one run: those the task names, and the values the planner says it will type as secrets."""
    found = task_secrets(task)
    for value in planner_secrets:
        if value and all(s.value != value for s in found):
            found.append(TaskSecret("secret" if not found else f"secret_{len(found) + 1}", value))
    return found

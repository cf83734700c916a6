"""Replaying a recorded episode on the live screen. Each pointer target is found again rather than trusted: by the
element recorded under or beside it (the same role and text, nearest to the recorded place among equals; a click
inside it lands at the same relative position, one beside it keeps its offset), else by matching the recorded
pixels around the point (template matching, refused when ambiguous). Between steps it waits for the screen to
settle. Every step that had a visible effect when it was recorded must have it again: the screen changes around
the target, or it already looks there as it did after the recorded step (a field that was focused, a box already
ticked) rather than before it. A step that misses is retried once after looking again, then the replay stops with
`step N: ... did not happen`. It also stops with a clear message when a target cannot be found."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import cv2
import numpy as np

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.secrets import REDACTED
from deskpilot.core.controller import Controller
from deskpilot.core.episode import Episode, EpisodeWriter, Step
from deskpilot.core.errors import ActionRefused, DeskpilotError, GroundingError
from deskpilot.core.outcome import RunResult, outcome_of
from deskpilot.core.geometry import Box, Point
from deskpilot.grounding.action_context import action_context
from deskpilot.core.observation import Element, Observation
from deskpilot.core.safety import Safety
from deskpilot.core.screen import SETTLE_QUIET, TYPED_QUIET, Screen
from deskpilot.grounding.base import Grounder
from deskpilot.grounding.changes import visible_effect
from deskpilot.grounding.text_match import match_text

log = logging.getLogger(__name__)
PATCH_HALF = (70, 22)
MATCH_MIN = 0.9
AMBIGUOUS_GAP = 0.03  # a second match this close to the best one makes template matching ambiguous
MAX_GAP_SECONDS = 2.0
SAME_SCALE = 0.3  # text heights within this share of each other are one screen scale (OCR boxes vary by pixels)
SecretSource = Callable[[Step], str | None]


class Replayer:
    def __init__(self, screen: Screen, grounder: Grounder, controller: Controller, safety: Safety,
                 writer: EpisodeWriter, speed: float = 1.0, settle_timeout: float = 2.0, locate_timeout: float = 3.0,
                 secret: SecretSource | None = None, on_step: Callable[[Step], None] | None = None,
                 by_text_only: set[int] | None = None):
        self.screen, self.grounder, self.controller, self.safety = screen, grounder, controller, safety
        self.writer = writer
        self.speed = speed
        self.settle_timeout, self.locate_timeout = settle_timeout, locate_timeout
        self.secret = secret
        self.on_step = on_step
        self.by_text_only = by_text_only or set()  # steps whose target has another value now: never by old pixels

    def replay(self, episode: Episode, start: int = 0) -> RunResult:
        """Replay the episode's steps from the one at index `start` (0: all of them)."""
        todo = [step for step in episode.steps if step.index >= start and not step.action.is_terminal]
        steps: list[Step] = []
        outcome, detail = "success", f"replayed {len(todo)} step(s)" + (f" from step {start + 1}" if start else "")
        previous_at = None
        try:
            for recorded in todo:
                at = recorded.timing.get("at_s")
                if previous_at is not None and at is not None:
                    self.safety.stop.sleep(min(MAX_GAP_SECONDS, max(0.0, at - previous_at)) / self.speed * 0.25)
                previous_at = at
                steps.append(self._replay_step(len(steps), episode, recorded))
        except DeskpilotError as exc:
            outcome, detail = outcome_of(exc), str(exc)
        except Exception as exc:  # noqa: BLE001 - a bug or a broken part: the replay episode says so in one line
            log.debug("the replay failed", exc_info=True)
            outcome, detail = "error", f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"[:300]
        finally:
            try:
                self.controller.release_all()
            finally:
                self.writer.finish(outcome, detail)
        return RunResult(outcome, detail, self.writer.directory, steps)

    def _replay_step(self, index: int, episode: Episode, recorded: Step) -> Step:
        image = self.screen.wait_until_settled(timeout=self.settle_timeout, check=self.safety.stop.check)
        obs = Observation(image, self.screen.monitor(), self.screen.cursor())
        before = self.writer.add_frame(image)
        started = time.perf_counter()
        action, used, after_image = self._act(episode, recorded, obs)
        if not self.safety.dry_run and _had_effect(episode, recorded) \
                and not _took_effect(episode, recorded, action, obs, after_image):
            log.info("step %d had no visible effect; looking again", recorded.index + 1)
            again = Observation(after_image, obs.monitor, self.screen.cursor())
            action, used, after_image = self._act(episode, recorded, again)
            if not _took_effect(episode, recorded, action, again, after_image):
                raise GroundingError(f"step {recorded.index + 1}: {_expected(recorded)} did not happen")
        locate_ms = (time.perf_counter() - started) * 1000
        after = self.writer.add_frame(after_image)
        step = Step(index, action, before, after, f"replay of step {recorded.index + 1}", obs.monitor, used,
                    {"locate_ms": locate_ms}, dry_run=self.safety.dry_run)
        self.writer.append(step)
        if self.on_step:
            self.on_step(step)
        return step

    def _act(self, episode: Episode, recorded: Step, obs: Observation) -> tuple[Action, list[Element], np.ndarray]:
        """Find the recorded step's target on `obs`, check it with the safety policy, do it; returns the action
        done, the elements used and the settled screen after it."""
        action, used = self._relocate(episode, recorded, self._with_secret(recorded), obs)
        context = action_context(action, obs, used, None, [])
        self.safety.check(action, self.screen.monitors(), self.screen.cursor(), context)
        if not self.safety.dry_run:
            self.controller.execute(action)
        quiet = TYPED_QUIET if action.kind is ActionKind.TYPE else SETTLE_QUIET
        return action, used, self.screen.wait_until_settled(obs.image, timeout=self.settle_timeout, quiet=quiet,
                                                            check=self.safety.stop.check)

    def _with_secret(self, recorded: Step) -> Action:
        action = recorded.action
        if action.kind is not ActionKind.TYPE or action.text != REDACTED:
            return action
        text = self.secret(recorded) if self.secret else None
        if not text:
            raise ActionRefused(f"step {recorded.index + 1} typed a secret that was not recorded, and none was "
                                "given (replay at a terminal or from the app to type it yourself)")
        return action.model_copy(update={"text": text, "secret": True})  # typed, then stored redacted again

    def _relocate(self, episode: Episode, recorded: Step, action: Action,
                  obs: Observation) -> tuple[Action, list[Element]]:
        if action.point is None:
            return action, []
        frame = episode.frame(recorded.before)
        deadline = time.monotonic() + self.locate_timeout
        while True:
            try:
                point, used = self._find(frame, recorded, action.point, obs)
                end = None
                if action.end_point is not None:
                    end, _ = self._find(frame, recorded, action.end_point, obs, use_text=False)
                return action.with_points(point, end), used
            except GroundingError:
                if time.monotonic() >= deadline:
                    raise
                self.safety.stop.sleep(0.3)
                obs = Observation(self.screen.grab(), obs.monitor, self.screen.cursor())

    def _find(self, frame: np.ndarray, recorded: Step, point: Point, obs: Observation,
              use_text: bool = True) -> tuple[Point, list[Element]]:
        """Where the recorded point is now: by the element it was on or beside, else by the description the step
        named its target with (an agent's run: 'Full name field', a field whose own text is empty), else by its
        pixels."""
        texts = [e for e in recorded.elements if e.text] if use_text else []
        live = self.grounder.parse(obs) if texts else []
        for element in texts:
            found = _same_element(element, live)
            if found is not None:
                return _same_place(point, element.box, found.box), [found]
        target = recorded.action.target if use_text and recorded.index not in self.by_text_only else None
        if target:
            try:
                described = self.grounder.locate(obs, target)
            except GroundingError:  # a description locate cannot read: the pixels may still find it
                described = None
            if described is not None:
                # The recorded element of the same kind is the one found (its place carries over); one of another
                # kind (a label beside a field) says nothing of where in the field found: its middle, then.
                same = next((e for e in texts if e.role == described.role), None)
                return (_same_place(point, same.box, described.box) if same else described.center), [described]
        if recorded.index in self.by_text_only:
            raise GroundingError(f"step {recorded.index + 1}: could not find '{texts[0].text if texts else '?'}' "
                                 "on the screen")
        rm = recorded.monitor or obs.monitor
        px, py = (round(v) for v in rm.screen_to_image(*point))
        hw, hh = PATCH_HALF
        patch_box = Box(px - hw, py - hh, px + hw, py + hh).clipped(Box(0, 0, frame.shape[1], frame.shape[0]))
        patch = frame[patch_box.y0:patch_box.y1, patch_box.x0:patch_box.x1]
        if patch.size and patch.std() > 3:
            scores = cv2.matchTemplate(obs.image, patch, cv2.TM_CCOEFF_NORMED)
            _, best, _, (bx, by) = cv2.minMaxLoc(scores)
            masked = scores.copy()
            cv2.rectangle(masked, (bx - hw, by - hh), (bx + hw, by + hh), -1.0, -1)
            second = float(masked.max())
            if best >= MATCH_MIN and best - second >= AMBIGUOUS_GAP:
                ix, iy = bx + px - patch_box.x0, by + py - patch_box.y0
                return obs.monitor.image_to_screen(ix, iy), []
        what = f"'{texts[0].text}'" if texts else f"the target of step {recorded.index + 1}"
        raise GroundingError(f"step {recorded.index + 1}: could not find {what} on the screen (recorded at "
                             f"({point.x}, {point.y}))")


def _same_element(recorded: Element, live: list[Element]) -> Element | None:
    """The live element of the recorded one's role that reads like it (whole texts on both sides, so places carry
    over: an OCR line is never taken for the check box whose box holds that line and the box itself); among equals,
    one from the same source, nearest the recorded place."""
    scored = [(m.score, e) for e in live if e.role == recorded.role and (m := match_text(recorded.text, e.text))
              and m.score >= 0.9 and m.start == 0 and m.end >= len(e.text.rstrip())]
    if not scored:
        return None
    top = max(score for score, _ in scored)
    best = [e for score, e in scored if score >= top - 0.02]
    # The same source first: an OCR line recorded is found as an OCR line, whose box is drawn the same way (the
    # accessibility tree's label of that text may be a row tall).
    return min(best, key=lambda e: (e.source != recorded.source,
                                    abs(e.box.x0 - recorded.box.x0) + abs(e.box.y0 - recorded.box.y0)))


def _same_place(point: Point, recorded: Box, found: Box) -> Point:
    """The recorded point moved with its element: at the same relative position when it was inside the element
    (the element may have grown or shrunk), else at the same offset from it (a field beside its label), an offset
    that grows with the text when the screen's scale changed (a label twice as tall: its field twice as far)."""
    if recorded.contains(point.x, point.y) and recorded.width > 0 and recorded.height > 0:
        return Point(round(found.x0 + (point.x - recorded.x0) * found.width / recorded.width),
                     round(found.y0 + (point.y - recorded.y0) * found.height / recorded.height))
    ratio = found.height / recorded.height if recorded.height > 0 else 1.0
    scale = ratio if abs(ratio - 1) > SAME_SCALE else 1.0  # a box a pixel taller is the same text, not a new scale
    return Point(round(found.x0 + (point.x - recorded.x0) * scale), round(found.y0 + (point.y - recorded.y0) * scale))


def _had_effect(episode: Episode, recorded: Step) -> bool:
    """Whether the recording saw the step change the screen (near the pointer, for pointer actions)."""
    if recorded.after is None or recorded.action.kind in (ActionKind.WAIT, ActionKind.MOVE):
        return False
    try:
        before, after = episode.frame(recorded.before), episode.frame(recorded.after)
    except DeskpilotError:  # frames not kept: nothing to compare with
        return False
    return visible_effect(before, after, _image_point(recorded.action, recorded.monitor, before))


def _took_effect(episode: Episode, recorded: Step, action: Action, obs: Observation, after: np.ndarray) -> bool:
    """Whether the replayed step had the recorded one's effect: the screen changed around its target, or the
    target already looks as the recording saw it after the step (closer to that than to how it looked before)."""
    point = _image_point(action, obs.monitor, obs.image)
    if visible_effect(obs.image, after, point):
        return True
    if point is None:
        return False
    before_then, after_then = episode.frame(recorded.before), episode.frame(recorded.after)  # type: ignore[arg-type]
    then = _image_point(recorded.action, recorded.monitor, before_then)
    looks, was, became = _patch(after, point), _patch(before_then, then), _patch(after_then, then)
    if looks.shape != was.shape:
        return True  # cut off by the screen's edge: nothing to compare, so no reason to stop
    return _distance(looks, became) < _distance(looks, was)


def _patch(image: np.ndarray, point: tuple[int, int] | None) -> np.ndarray:
    x, y = point or (0, 0)
    hw, hh = PATCH_HALF
    box = Box(x - hw, y - hh, x + hw, y + hh).clipped(Box(0, 0, image.shape[1], image.shape[0]))
    return image[box.y0:box.y1, box.x0:box.x1].astype(np.int16)


def _distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


def _image_point(action: Action, monitor: object, image: np.ndarray) -> tuple[int, int] | None:
    if action.point is None or action.kind is ActionKind.SCROLL or monitor is None:
        return None  # typing, keys and scrolling may change the screen anywhere
    x, y = monitor.screen_to_image(*action.point)  # type: ignore[attr-defined]
    return min(int(x), image.shape[1] - 1), min(int(y), image.shape[0] - 1)


def _expected(recorded: Step) -> str:
    """What the recording saw happen, in words: 'the effect of the click on 'Remember me''."""
    action = recorded.action.redacted()
    target = next((e.text for e in recorded.elements if e.text), None)
    if action.kind is ActionKind.TYPE:
        return f"the effect of typing {action.text!r}"
    if target:
        return f"the effect of the {action.kind.value.replace('_', ' ')} on '{target}'"
    return f"the effect of {action.describe()}"

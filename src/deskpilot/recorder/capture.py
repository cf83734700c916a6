"""Recorder: captures a demonstration as an Episode (`source: demonstration`).

pynput listeners only timestamp and queue raw events, so the user's input is never delayed; a frame grabber keeps
the last few screens, so each event gets the frame from just before it; a worker thread merges events into
actions (EventMerger), reads the text under each click (OCR of a small crop), scrubs secrets, and appends each
finished step with its before and after frames. Frames identical to the previous one are stored once."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeWriter, Step
from deskpilot.core.geometry import Box, Monitor, Point
from deskpilot.core.hotkeys import wait_ready
from deskpilot.core.periodic import Periodic
from deskpilot.core.keys import ALIASES
from deskpilot.core.observation import Element
from deskpilot.core.screen import Screen
from deskpilot.core.secrets import is_secret_label, looks_like_secret, redact_tokens
from deskpilot.grounding.changes import changed_regions
from deskpilot.grounding.base import TextReader

if TYPE_CHECKING:
    from deskpilot.grounding.ocr import TextLine

from .events import RawEvent, RawEventLog
from .merge import EventMerger, MergedAction

log = logging.getLogger(__name__)
GRAB_INTERVAL = 0.05
FRAMES_KEPT = 60  # three seconds of history at GRAB_INTERVAL
FRAMES_REMEMBERED = 8  # written frames kept in memory, so reading a step's frame back needs no PNG decoding
AFTER_DELAY = 0.15  # the after-frame is taken this long after an action ends
CLICK_CROP = (320, 28)  # half width, half height of the region read around a click (wide enough for a label)
LABEL_ABOVE = 40  # how much higher the region reaches when it held no text (a label above an empty field)


class FrameBuffer:
    """Grabs the screen every GRAB_INTERVAL in its own thread and keeps the recent frames with their times."""

    def __init__(self, screen: Screen):
        self.screen = screen
        self._frames: deque[tuple[float, np.ndarray]] = deque(maxlen=FRAMES_KEPT)
        self._lock = threading.Lock()
        self._grabber = Periodic(self._grab, GRAB_INTERVAL, "frame-grabber")

    def start(self) -> FrameBuffer:
        self._grab()
        self._grabber.start()
        return self

    def stop(self) -> None:
        self._grabber.close()

    def _grab(self) -> None:
        image = self.screen.grab()
        with self._lock:
            self._frames.append((time.monotonic(), image))

    def before(self, t: float) -> np.ndarray:
        """The newest frame grabbed before time `t` (the oldest kept one if all are newer)."""
        with self._lock:
            frames = list(self._frames)
        earlier = [image for stamp, image in frames if stamp <= t]
        return earlier[-1] if earlier else frames[0][1]


class Recorder:
    def __init__(self, writer: EpisodeWriter, screen: Screen, ocr: TextReader | None = None,
                 mask_typing: bool = False, ignore_hotkeys: tuple[tuple[str, ...], ...] = (),
                 on_step: Callable[[Step], None] | None = None,
                 excluded: Callable[[], list[Box]] | None = None):
        self.writer = writer
        self.screen = screen
        self.ocr = ocr
        self.mask_typing = mask_typing
        self.ignore_hotkeys = {tuple(sorted(k)) for k in ignore_hotkeys}
        self.on_step = on_step
        self.excluded = excluded  # screen regions whose clicks are not part of the demonstration (the app itself)
        self.paused = False
        self.steps: list[Step] = []
        self._frames = FrameBuffer(screen)
        self._events: queue.Queue[RawEvent | None] = queue.Queue()
        self._merger = EventMerger()
        self._worker = threading.Thread(target=self._work, name="recorder", daemon=True)
        self._listeners: list[object] = []
        self._written: OrderedDict[str, np.ndarray] = OrderedDict()  # the frames written last, by name, oldest first
        self._secret_field = False
        self._monitor = screen.monitor()
        self._t0 = time.monotonic()
        self._raw_log = RawEventLog(writer.directory)
        self._raw_pending: list[RawEvent] = []
        self._secret_since: float | None = None  # start of a secret typing run among the pending raw events

    # capture (listener threads): timestamp and queue, nothing else
    def start(self) -> Recorder:
        from pynput import keyboard, mouse

        self._frames.start()
        self._worker.start()
        self._listeners = [mouse.Listener(on_click=self._on_click, on_scroll=self._on_scroll),
                           keyboard.Listener(on_press=self._on_key(True), on_release=self._on_key(False))]
        for listener in self._listeners:
            listener.start()  # type: ignore[attr-defined]
            wait_ready(listener)
        return self

    def _queue(self, event: RawEvent) -> None:
        if not self.paused:
            self._events.put(event)

    def _on_click(self, x: int, y: int, button: object, pressed: bool) -> None:
        if self.excluded and any(box.contains(x, y) for box in self.excluded()):
            return
        name = getattr(button, "name", "left")
        self._queue(RawEvent(time.monotonic(), "press" if pressed else "release", int(x), int(y), name))

    def _on_scroll(self, x: int, y: int, dx: int, dy: int) -> None:
        self._queue(RawEvent(time.monotonic(), "scroll", int(x), int(y), dx=int(dx), dy=-int(dy)))

    def _on_key(self, down: bool) -> Callable[[object], None]:
        def handle(key: object) -> None:
            name = key_name(key)
            if name:
                self._queue(RawEvent(time.monotonic(), "key_down" if down else "key_up", key=name))
        return handle

    def stop(self, outcome: str = "success", detail: str | None = None) -> list[Step]:
        from deskpilot.core.hotkeys import stop_pynput_listener

        for listener in self._listeners:
            stop_pynput_listener(listener)
        self._events.put(None)
        self._worker.join(timeout=30)
        self._frames.stop()
        self._raw_log.close()
        self.writer.meta.extra["final_frame"] = self._frame_name(self.screen.grab())
        self.writer.finish(outcome, detail or f"{len(self.steps)} step(s) recorded")
        return self.steps

    # the worker thread: frames, merging, OCR, privacy, writing
    def _work(self) -> None:
        if self.ocr is not None:
            self.ocr.load()  # now, while the person starts: not in the middle of their first click
        while True:
            try:
                event = self._events.get(timeout=0.1)
            except queue.Empty:
                self._write(self._merger.tick(time.monotonic()))
                self._keep_raw()
                continue
            if event is None:
                self._write(self._merger.flush())
                self._keep_raw()
                return
            if event.kind in ("press", "scroll", "key_down") and not (self._merger.typing and
                                                                     event.types_a_character):
                # A character that goes on a run of typing needs no frame of its own: the run's step starts from
                # the frame before its first character (and the window cannot have changed in between).
                event = RawEvent(**{**event.__dict__, "frame": self._frame_name(self._frames.before(event.t)),
                                    "window": self.screen.window_title()})
            self._raw_pending.append(event)
            self._write(self._merger.feed(event))
            self._keep_raw()

    def _keep_raw(self) -> None:
        """Write the pending raw events once no typing run is open: by then it is known whether the run was a
        secret, and if so its characters (key presses and releases alike) are stored masked."""
        if self._merger.typing or not self._raw_pending:
            return
        since, self._secret_since = self._secret_since, None
        self._raw_log.append([e.masked() if since is not None and e.t >= since and e.types_a_character else e
                              for e in self._raw_pending])
        self._raw_pending = []

    def _frame_name(self, image: np.ndarray) -> str:
        if self._written:
            last_name, last_image = next(reversed(self._written.items()))
            if np.array_equal(last_image, image):
                return last_name
        name = self.writer.add_frame(image)
        self._written[name] = image
        while len(self._written) > FRAMES_REMEMBERED:
            self._written.popitem(last=False)
        return name

    def _write(self, merged: list[MergedAction]) -> None:
        for item in merged:
            action = item.action
            if action.kind is ActionKind.HOTKEY and tuple(sorted(action.keys)) in self.ignore_hotkeys:
                continue
            before = item.frame or self._frame_name(self._frames.before(item.started))
            elements: list[Element] = []
            if action.point is not None and action.kind is not ActionKind.SCROLL:
                elements = self._text_under(before, action.point)
                self._secret_field = any(is_secret_label(e.text) for e in elements)
            elif action.kind is ActionKind.TYPE:
                action = self._scrubbed(action)
                if action.secret and self._secret_since is None:
                    self._secret_since = item.started
            due = item.events[-1].t + AFTER_DELAY
            time.sleep(max(0.0, due - time.monotonic()))
            # Running late (the OCR of a click target, its models loading) the writer takes the frame grabbed when
            # the step's effect was due, not a newer one that already shows the next actions (typed text).
            late = time.monotonic() - due > 2 * GRAB_INTERVAL
            after_image = self._frames.before(due) if late else self.screen.grab()
            after = self._frame_name(after_image)
            if _moves_focus(action):
                self._secret_field = self._focus_moved_into_secret(before, after_image)
            step = Step(len(self.steps), action, before, after, monitor=self._monitor, elements=elements,
                        timing={"at_s": round(item.started - self._t0, 3)}, window=item.events[0].window)
            self.writer.append(step)
            self.steps.append(step)
            if self.on_step:
                self.on_step(step)

    def _scrubbed(self, action: Action) -> Action:
        secret = self.mask_typing or self._secret_field or looks_like_secret(action.text or "")
        return action.model_copy(update={"secret": True}) if secret else action

    def _focus_moved_into_secret(self, before_frame: str, after: np.ndarray) -> bool:
        """Whether a key (Tab, or Enter in a form that moves on to its next field) moved the focus into a
        password-like field: the focus ring and caret show where the focus
        went, so the text on the rows of what changed (and left of it, where labels sit) is read. Leaving a
        password field counts too: better a plain value redacted than a password kept."""
        before = self._image(before_frame)
        if self.ocr is None or before is None:
            return self._secret_field
        bounds = Box(0, 0, after.shape[1], after.shape[0])
        for region in changed_regions(before, after)[:4]:
            rows = Box(region.x0 - CLICK_CROP[0], region.y0 - 4, region.x1 + 8, region.y1 + 4).clipped(bounds)
            lines = self.ocr.read(after[rows.y0:rows.y1, rows.x0:rows.x1])
            if any(is_secret_label(line.text) for line in lines):
                return True
        return False

    def _image(self, frame: str) -> np.ndarray | None:
        image = self._written.get(frame)
        if image is None:
            from deskpilot.core.episode import read_image

            image = read_image(self.writer.directory / frame)
        return image

    def _text_under(self, frame: str, point: Point) -> list[Element]:
        image = self._image(frame)
        return [] if self.ocr is None or image is None else text_under(image, self._monitor, point, self.ocr)


def _moves_focus(action: Action) -> bool:
    """Whether `action` may move the keyboard focus without a click: Tab, or Enter (typed or pressed)."""
    if action.kind is ActionKind.TYPE:
        return any(ch in (action.text or "") for ch in "\n\t")
    return action.kind in (ActionKind.HOTKEY, ActionKind.KEY) and bool({"tab", "enter", "return"} & set(action.keys))


def text_under(image: np.ndarray, monitor: Monitor, point: Point, ocr: TextReader, above: int = 0) -> list[Element]:
    """OCR of a strip around a point: the text under it, then the two nearest texts to its left on the same line
    (a dropdown's current value, then its label), or else the nearest text; so a click into an empty field or a
    dropdown still says which one it was. Only those candidates are read (a list's other rows in the strip are
    found, not read). When the strip holds nothing readable (an empty field whose label stands above it), it is
    read again reaching `LABEL_ABOVE` higher. Key- and token-shaped text is redacted (a token beside a Copy
    button)."""
    x, y = monitor.screen_to_image(*point)
    w, h = CLICK_CROP
    region = Box(int(x) - w, int(y) - h - above, int(x) + w, int(y) + h).clipped(
        Box(0, 0, image.shape[1], image.shape[0]))
    strip = image[region.y0:region.y1, region.x0:region.x1]
    found = [box.shifted(region.x0, region.y0) for box in ocr.find_text(strip)]

    def distance(box: Box) -> float:
        dx = max(box.x0 - x, 0, x - box.x1)
        dy = max(box.y0 - y, 0, y - box.y1)
        return (dx * dx + dy * dy) ** 0.5

    lines: dict[Box, TextLine] = {}
    tried: set[Box] = set()

    def readable(boxes: list[Box], count: int) -> list[Box]:
        """The first `count` of `boxes` that read as text, reading the next ones only when one reads as nothing."""
        got: list[Box] = []
        for box in boxes:
            if len(got) == count:
                break
            if box not in tried:
                batch = [b for b in boxes if b not in tried][:count - len(got)]
                tried.update(batch)
                read = ocr.read_boxes(strip, [b.shifted(-region.x0, -region.y0) for b in batch])
                lines.update((line.box, line) for line in (line.shifted(region.x0, region.y0) for line in read))
            if box in lines:
                got.append(box)
        return got

    under = sorted((b for b in found if distance(b) <= 8), key=distance)
    labels = sorted((b for b in found if b not in under and b.x1 <= x and b.y0 - 4 <= y <= b.y1 + 4),
                    key=lambda b: x - b.x1)
    near = sorted((b for b in found if b not in under), key=distance)
    chosen = readable(under, 1) + (readable(labels, 2) or readable(near, 1))
    if not chosen and not above:
        return text_under(image, monitor, point, ocr, LABEL_ABOVE)
    return [Element(monitor.image_box_to_screen(box), "text", redact_tokens(lines[box].text), lines[box].score, "ocr")
            for box in chosen]


_PYNPUT_NAMES = {"cmd": "win", "cmd_l": "win", "cmd_r": "win", "alt_gr": "alt", "page_up": "pageup",
                 "page_down": "pagedown", "caps_lock": "capslock", "print_screen": "printscreen", "menu": "apps"}


def key_name(key: object) -> str:
    """A pynput key -> deskpilot's key name (`ctrl`, `enter`, `f5`) or the character typed."""
    char = getattr(key, "char", None)
    if char:
        return chr(ord(char) + 96) if len(char) == 1 and ord(char) < 32 else char
    name = getattr(key, "name", None)
    if not name:
        return ""
    if name in _PYNPUT_NAMES:
        return _PYNPUT_NAMES[name]
    base = name.removesuffix("_l").removesuffix("_r")
    return ALIASES.get(base, base)

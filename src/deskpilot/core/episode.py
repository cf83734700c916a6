"""The on-disk Episode shared by agent runs, recordings and training, written so a crash loses at most one step.

    <root>/<id>/episode.json   metadata; replaced atomically (write temp file, then rename)
    <root>/<id>/steps.jsonl    one JSON line per step, appended and flushed after its frames exist
    <root>/<id>/labels.jsonl   verdicts and rewards given after the run, one record a line, appended
    <root>/<id>/frames/NNNNNN.png

A reader skips a torn or corrupt line (the step in flight when a process died) with one warning per episode, and
any damage it cannot read past is one EpisodeError, never another exception. A live writer holds a lock on
`.writer.lock`, so nobody deletes or rewrites an episode that is still being written. Each step is written once, by
the writer: verdicts and rewards that come later are records appended to labels.jsonl under `.steps.lock` (the
latest record for a step wins when the episode is read), and a person's label is never replaced by a machine's
unless forced. The environment's score, the goal check and each verdict are typed (core.verdict).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import cv2
import numpy as np

from .actions import Action
from .errors import DeskpilotError, EpisodeError
from .files import write_atomic
from .geometry import Monitor
from .observation import Element
from .secrets import scrub, task_secrets
from .verdict import EnvironmentRun, GoalCheck, Verdict

log = logging.getLogger(__name__)

EPISODE_FILE = "episode.json"
TRASH = ".deleted"  # deleted episodes wait here, beside the others, until the trash is emptied
STEPS_FILE = "steps.jsonl"
LABELS_FILE = "labels.jsonl"
CORRUPT_STEPS_FILE = "steps.corrupt.jsonl"  # lines `episodes repair` took out, kept for the record
FRAMES_DIR = "frames"
WRITER_LOCK = ".writer.lock"
STEPS_LOCK = ".steps.lock"
Source = Literal["agent", "demonstration"]
FramePolicy = Literal["all", "ends", "none"]
FRAMES_KEPT = "frames"  # episode.json `extra` key: which frames were kept when some were pruned


@dataclass
class EpisodeMeta:
    id: str
    task: str
    source: Source
    started: float
    app: str | None = None
    model: str | None = None
    finished: float | None = None
    outcome: str = "running"
    detail: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    goal_check: GoalCheck | None = None  # the check before "done"
    environment: EnvironmentRun | None = None  # the score of an environment that scores itself
    paraphrases: list[str] = field(default_factory=list)  # the task in other words (a synthetic environment's)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if v is not None and v != {} and v != []}
        for name in ("goal_check", "environment"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name).to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Any) -> EpisodeMeta:
        """From episode.json; a field of the wrong type is a TypeError or ValueError naming it. Scores that
        episodes from before the typed fields kept in `extra` become `environment`."""
        if not isinstance(data, dict):
            raise TypeError(f"expected an object, found {type(data).__name__}")
        known = {k: v for k, v in data.items() if k not in ("goal_check", "environment")}
        meta = cls(**known)
        for name, kind, optional in (("id", str, False), ("task", str, False), ("source", str, False),
                                     ("started", (int, float), False), ("app", str, True), ("model", str, True),
                                     ("finished", (int, float), True), ("outcome", str, False),
                                     ("detail", str, True), ("extra", dict, False), ("paraphrases", list, False)):
            _typed(getattr(meta, name), kind, name, optional)
        if not all(isinstance(text, str) for text in meta.paraphrases):
            raise TypeError("paraphrases must be texts")
        if meta.source not in ("agent", "demonstration"):
            raise ValueError(f"source must be agent or demonstration, not {meta.source[:40]!r}")
        if data.get("goal_check") is not None:
            meta.goal_check = GoalCheck.from_dict(data["goal_check"])
        if data.get("environment") is not None:
            meta.environment = EnvironmentRun.from_dict(data["environment"])
        else:
            meta.extra = dict(meta.extra)
            meta.environment = EnvironmentRun.from_legacy(meta.extra)
        return meta


@dataclass
class Step:
    """One step: the action taken, the frames around it, why, what was used, and how it went."""

    index: int
    action: Action
    before: str
    after: str | None = None
    thought: str = ""
    monitor: Monitor | None = None
    elements: list[Element] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    verification: Verdict | None = None
    reward: float | None = None
    dry_run: bool = False
    window: str | None = None  # title of the focused window when the step began
    seen: list[Element] = field(default_factory=list)  # every element grounding found on the screen the step saw
    confidence: float | None = None  # the model's probability of the answer taken, where it gives one

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "index": self.index, "action": self.action.to_dict(), "thought": self.thought,
            "before": self.before, "after": self.after,
            "elements": [e.to_dict() for e in self.elements],
            "timing": {k: round(v, 2) for k, v in self.timing.items()},
        }
        if self.monitor is not None:
            data["monitor"] = self.monitor._asdict()
        if self.verification is not None:
            data["verification"] = self.verification.as_dict()
        for name in ("reward", "window", "confidence"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        if self.dry_run:
            data["dry_run"] = True
        if self.seen:
            data["seen"] = [e.to_dict() for e in self.seen]
        return data

    def monitor_for(self, frame: np.ndarray) -> Monitor:
        """The monitor the step was taken on; for steps without one, a monitor covering `frame` exactly."""
        return self.monitor or Monitor(0, 0, frame.shape[1], frame.shape[0])

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        """A step from its JSON form; a value of the wrong type, or a frame name that leaves the episode folder,
        is a TypeError or ValueError (the reader sets such a line aside)."""
        verification = None if data.get("verification") is None else Verdict.from_dict(data["verification"])
        timing = _typed(data.get("timing", {}), dict, "timing")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in timing.values()):
            raise TypeError("timing values must be numbers")
        return cls(
            index=_typed(data["index"], int, "index"), action=Action.from_dict(_typed(data["action"], dict, "action")),
            before=frame_name(data["before"]), after=None if data.get("after") is None else frame_name(data["after"]),
            thought=_typed(data.get("thought", ""), str, "thought"),
            monitor=Monitor(**_typed(data["monitor"], dict, "monitor")) if data.get("monitor") else None,
            elements=[Element.from_dict(e) for e in _typed(data.get("elements", []), list, "elements")],
            timing=timing, verification=verification,
            reward=_typed(data.get("reward"), (int, float), "reward", optional=True),
            dry_run=bool(data.get("dry_run", False)), window=_typed(data.get("window"), str, "window", optional=True),
            seen=[Element.from_dict(e) for e in _typed(data.get("seen", []), list, "seen")],
            confidence=_typed(data.get("confidence"), (int, float), "confidence", optional=True),
        )


def _typed(value: Any, kind: type | tuple[type, ...], name: str, optional: bool = False) -> Any:
    """`value` when it is of `kind` (None too when `optional`), else a TypeError naming the field."""
    if (value is None and optional) or (isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)):
        return value
    expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
    raise TypeError(f"{name} must be {expected}, not {type(value).__name__}")


def frame_name(value: Any) -> str:
    """A frame's name as a step may give it: a relative path inside the episode folder (`frames/000001.png`),
    never an absolute one or one that climbs out with `..`."""
    if not isinstance(value, str) or not value:
        raise TypeError("a frame name must be text")
    parts = Path(value).parts
    if Path(value).is_absolute() or "\\" in value or ".." in parts or any(ch in value for ch in "\x00\n"):
        raise ValueError(f"frame name {value[:60]!r} leaves the episode folder")
    return value


def new_episode_id() -> str:
    """Sortable by creation time (to the millisecond), unique by a random suffix."""
    now = time.time()
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"{int(now * 1000) % 1000:03d}-" + secrets.token_hex(3)


@contextmanager
def _locked(path: Path, blocking: bool = True) -> Iterator[bool]:
    """An exclusive lock on `path` for the block; yields False when `blocking` is off and someone else holds it."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no cross-process locks, so nothing to wait for
        yield True
        return
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def is_being_written(directory: Path | str) -> bool:
    """Whether a live process is still writing this episode (it holds the writer lock)."""
    lock = Path(directory) / WRITER_LOCK
    if not lock.exists():
        return False
    with _locked(lock, blocking=False) as free:
        return not free


# Screens are flat colour: without PNG's per-row filters a frame is as small and 4x faster to write (1280x800:
# 6-9 ms instead of 25-40; 2560x1600: 33 ms instead of 143). OpenCV before 4.11 has no filter choice.
PNG_PARAMS = [cv2.IMWRITE_PNG_COMPRESSION, 1] + (
    [cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_NONE] if hasattr(cv2, "IMWRITE_PNG_FILTER") else [])


def encode_png(image_rgb: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), PNG_PARAMS)
    if not ok:
        raise EpisodeError("could not encode a frame as PNG")
    return buf.tobytes()


def read_image(path: Path) -> np.ndarray | None:
    """An image file as RGB, or None when it is missing or not an image (no decoder warnings on stderr)."""
    if not path.is_file():
        return None
    image = cv2.imdecode(np.fromfile(path, np.uint8), cv2.IMREAD_COLOR)
    return None if image is None else cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


class EpisodeWriter:
    """Appends steps to a new episode folder; every write leaves a readable episode behind."""

    def __init__(self, directory: Path, meta: EpisodeMeta):
        self.directory = directory
        self.meta = meta
        self.frames_dir = directory / FRAMES_DIR
        self._frame_count = 0
        with _disk(f"cannot start the episode in {directory}"):
            self.frames_dir.mkdir(parents=True, exist_ok=True)
            self._lock = _hold_writer_lock(directory / WRITER_LOCK)
            self._steps = open(directory / STEPS_FILE, "a", encoding="utf-8")  # noqa: SIM115 - closed in finish()
            self._write_meta()

    @classmethod
    def create(cls, root: Path | str, task: str, source: Source = "agent", app: str | None = None,
               model: str | None = None, **extra: Any) -> EpisodeWriter:
        task = scrub(task, [secret.value for secret in task_secrets(task)])  # never a named password on disk
        meta = EpisodeMeta(id=new_episode_id(), task=task, source=source, started=time.time(), app=app, model=model,
                           extra=extra)
        try:
            Path(root).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EpisodeError(f"cannot create episodes folder {root}: {exc.strerror}") from None
        return cls(Path(root) / meta.id, meta)

    def add_frame(self, image_rgb: np.ndarray) -> str:
        """Write one frame (atomically) and return its name relative to the episode folder."""
        self._frame_count += 1
        name = f"{FRAMES_DIR}/{self._frame_count:06d}.png"
        with _disk(f"cannot write frame {self.directory / name}"):
            write_atomic(self.directory / name, encode_png(image_rgb))
        return name

    def append(self, step: Step) -> None:
        with _disk(f"cannot write a step to {self.directory / STEPS_FILE}"):
            self._steps.write(json.dumps(step.to_dict(), ensure_ascii=False) + "\n")
            self._steps.flush()
            os.fsync(self._steps.fileno())

    def finish(self, outcome: str, detail: str | None = None, goal_check: GoalCheck | None = None) -> None:
        self.meta.outcome = outcome
        self.meta.detail = detail
        self.meta.goal_check = goal_check
        self.meta.finished = time.time()
        try:
            with _disk(f"cannot finish the episode in {self.directory}"):
                self._write_meta()
        finally:
            with contextlib.suppress(OSError):
                self._steps.close()
            if self._lock is not None:
                self._lock.close()  # closing the file lets go of the lock
                self._lock = None

    def _write_meta(self) -> None:
        rewrite_meta(self.directory, self.meta)


@contextmanager
def _disk(what: str) -> Iterator[None]:
    """An OSError (a full disk, a folder taken away) as one EpisodeError line."""
    try:
        yield
    except OSError as exc:
        raise EpisodeError(f"{what}: {exc.strerror or exc}") from None


def _hold_writer_lock(path: Path) -> IO[bytes] | None:  # an open file, or None where there are no locks
    try:
        import fcntl
    except ImportError:
        return None
    handle = open(path, "a+b")  # noqa: SIM115 - held (and so locked) until the writer finishes or dies
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return handle


@dataclass
class Episode:
    directory: Path
    meta: EpisodeMeta
    steps: list[Step]

    def frame_path(self, name: str) -> Path:
        """Where frame `name` is: inside this episode's folder, links followed, or an EpisodeError."""
        try:
            path = (self.directory / frame_name(name)).resolve()
            path.relative_to(self.directory.resolve())
        except (TypeError, ValueError, OSError):
            raise EpisodeError(f"{self.directory}: frame {str(name)[:60]!r} is outside the episode folder") from None
        return path

    def frame(self, name: str) -> np.ndarray:
        image = read_image(self.frame_path(name))
        if image is None:
            raise EpisodeError(f"missing or unreadable frame {self.directory / name}")
        return image


_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError, RecursionError, DeskpilotError)


def read_episode(directory: Path | str) -> Episode:
    """The episode in `directory`; any damage it cannot read past is one EpisodeError."""
    directory = Path(directory)
    try:
        meta = EpisodeMeta.from_dict(json.loads((directory / EPISODE_FILE).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise EpisodeError(f"{directory} is not an episode (no {EPISODE_FILE})") from None
    except OSError as exc:
        raise EpisodeError(f"cannot read {directory / EPISODE_FILE}: {exc.strerror}") from None
    except _UNREADABLE as exc:
        raise EpisodeError(f"{directory / EPISODE_FILE} is corrupt ({type(exc).__name__}: {_short(exc)}); "
                           f"try `deskpilot episodes repair {directory}`") from None
    return Episode(directory, meta, read_steps(directory)[0])


def read_steps(directory: Path) -> tuple[list[Step], list[tuple[int, str]]]:
    """(the readable steps, the (line number, text) of lines that are not), with one warning for the latter."""
    path = directory / STEPS_FILE
    steps: list[Step] = []
    bad: list[tuple[int, str]] = []
    lines = _json_lines(path)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            steps.append(Step.from_dict(_json_object(line)))
        except _UNREADABLE as exc:
            bad.append((number, line))
            last_error = f"{type(exc).__name__}: {_short(exc)}"
    if len(bad) == 1 and bad[0][0] == len(lines):
        log.warning("%s: skipping torn last line %d (%s)", path, bad[0][0], last_error)
    elif bad:
        numbers = ", ".join(str(number) for number, _ in bad[:5]) + (" ..." if len(bad) > 5 else "")
        log.warning("%s: skipped %d unreadable line(s) (%s; %s)", path, len(bad), numbers, last_error)
    _apply_labels(directory, steps)
    return steps, bad


def _json_lines(path: Path) -> list[str]:
    """The lines of a JSON-lines file of the episode (none when it is not there); an EpisodeError when unreadable."""
    try:
        raw = path.read_bytes() if path.exists() else b""
    except OSError as exc:
        raise EpisodeError(f"cannot read {path}: {exc.strerror}") from None
    return raw.decode("utf-8", errors="replace").splitlines()


def _json_object(line: str) -> dict[str, Any]:
    """One line of a JSON-lines file, which must hold an object (else a TypeError or ValueError)."""
    data = json.loads(line)
    if not isinstance(data, dict):
        raise TypeError("a line must hold an object")
    return data


def _apply_labels(directory: Path, steps: list[Step]) -> None:
    """Lay the records of labels.jsonl over `steps`, in the order they were written (the latest for a step wins);
    a record that cannot be read, or names no step, is skipped with one warning."""
    path = directory / LABELS_FILE
    by_index = {step.index: step for step in steps}
    skipped = 0
    for line in _json_lines(path):
        if not line.strip():
            continue
        try:
            record = _json_object(line)
            step = by_index.get(_typed(record.get("step"), int, "step"))
            if step is None:
                raise ValueError("the record names no step of the episode")
            if "verdict" in record:
                step.verification = Verdict.from_dict(record["verdict"])
            if "reward" in record:
                step.reward = float(_typed(record["reward"], (int, float), "reward"))
        except _UNREADABLE:
            skipped += 1
    if skipped:
        log.warning("%s: skipped %d unreadable label record(s)", path, skipped)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:119] + "…"


def rewrite_steps(episode: Episode, steps: list[Step]) -> None:
    """Replace an episode's steps.jsonl atomically (for rewards and labels added after the fact); frames and
    episode.json are left alone. Never while a writer is still appending to it."""
    if is_being_written(episode.directory):
        raise EpisodeError(f"{episode.directory} is still being written; wait until its run ends")
    with _locked(episode.directory / STEPS_LOCK):
        _write_steps(episode.directory, steps)


def _write_steps(directory: Path, steps: list[Step]) -> None:
    """Write `steps` whole (repair, re-merge): they were read with their label records laid over them, so those
    records are folded in and labels.jsonl goes."""
    lines = "".join(json.dumps(step.to_dict(), ensure_ascii=False) + "\n" for step in steps)
    write_atomic(directory / STEPS_FILE, lines.encode())
    (directory / LABELS_FILE).unlink(missing_ok=True)


def label_steps(directory: Path | str, verdicts: dict[int, Verdict], force: bool = False) -> tuple[int, int]:
    """Append step verdicts (step index -> Verdict) to an episode on disk as label records, under the steps lock
    and judged against a fresh read, so concurrent labellers keep each other's labels. A person's label (verifier
    "human") is kept unless the new one is a person's too, or `force`. Returns (labels written, human labels
    kept)."""
    directory = Path(directory)
    if is_being_written(directory):
        raise EpisodeError(f"{directory} is still being written; label it when its run has ended")
    written = kept = 0
    records = []
    with _locked(directory / STEPS_LOCK):
        for step in read_episode(directory).steps:
            verdict = verdicts.get(step.index)
            if verdict is None:
                continue
            current = step.verification
            if current is not None and current.verifier == "human" and verdict.verifier != "human" and not force:
                kept += 1
                continue
            records.append({"step": step.index, "verdict": verdict.as_dict()})
            written += 1
        _append_records(directory, records)
    return written, kept


def reward_steps(directory: Path | str, rewards: dict[int, float]) -> None:
    """Append the rewards an environment gave steps (step index -> reward) as label records."""
    directory = Path(directory)
    with _locked(directory / STEPS_LOCK):
        _append_records(directory, [{"step": index, "reward": reward} for index, reward in sorted(rewards.items())])


def score_episode(directory: Path | str, run: EnvironmentRun, rewards: dict[int, float],
                  judge: Callable[[Episode], list[Verdict | None]]) -> None:
    """What an environment said of a finished episode: its score into episode.json, the rewards it gave steps (step
    index -> reward) and the labels `judge` gives the steps so rewarded, as label records."""
    directory = Path(directory)
    episode = read_episode(directory)
    episode.meta.environment = run
    rewrite_meta(directory, episode.meta)
    reward_steps(directory, rewards)
    for step in episode.steps:
        step.reward = rewards.get(step.index, step.reward)
    label_steps(directory, {step.index: verdict for step, verdict in zip(episode.steps, judge(episode))
                            if verdict is not None})


def _append_records(directory: Path, records: list[dict[str, Any]]) -> None:
    if not records:
        return
    with _disk(f"cannot write labels to {directory / LABELS_FILE}"), \
            open(directory / LABELS_FILE, "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
        handle.flush()
        os.fsync(handle.fileno())


def delete_episode(directory: Path | str) -> None:
    """Remove an episode folder; refused while a live process is still writing it."""
    import shutil

    directory = Path(directory)
    if is_being_written(directory):
        raise EpisodeError(f"{directory.name} is still being written; stop its run first")
    try:
        shutil.rmtree(directory)
    except OSError as exc:
        raise EpisodeError(f"cannot delete {directory}: {exc.strerror}") from None


def move_to_trash(directory: Path | str) -> Path:
    """Set an episode folder aside in its folder's TRASH folder, from where restore_from_trash brings it back (an
    earlier one of the same name there is removed); refused while a live process is still writing it."""
    import shutil

    directory = Path(directory)
    if is_being_written(directory):
        raise EpisodeError(f"{directory.name} is still being written; stop its run first")
    aside = directory.parent / TRASH / directory.name
    try:
        aside.parent.mkdir(exist_ok=True)
        if aside.exists():
            shutil.rmtree(aside)
        directory.rename(aside)
    except OSError as exc:
        raise EpisodeError(f"cannot delete {directory}: {exc.strerror}") from None
    return aside


def restore_from_trash(aside: Path) -> Path:
    """An episode folder moved_to_trash back where it was."""
    home = aside.parent.parent / aside.name
    if home.exists():
        raise EpisodeError(f"cannot restore {aside.name}: {home} exists again")
    try:
        aside.rename(home)
    except OSError as exc:
        raise EpisodeError(f"cannot restore {aside.name}: {exc.strerror}") from None
    return home


def empty_trash(root: Path | str) -> None:
    """Remove for good what was moved to the trash under `root`."""
    import shutil

    shutil.rmtree(Path(root) / TRASH, ignore_errors=True)


@dataclass
class RepairReport:
    directory: Path
    dropped_lines: int = 0
    dropped_steps: int = 0  # readable steps whose before-frame is gone
    meta_rebuilt: bool = False
    finished: bool = False  # a run that died while "running" is now "interrupted"
    temp_files: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.dropped_lines or self.dropped_steps or self.meta_rebuilt or self.finished or self.temp_files)


def repair_episode(directory: Path | str) -> RepairReport:
    """Make a damaged episode readable again: unreadable step lines move to steps.corrupt.jsonl, steps whose
    frames are gone are dropped, an unreadable episode.json is rebuilt from what is left, a run whose writer died
    is marked "interrupted", and leftover temporary files are removed. Refused while a writer is alive."""
    directory = Path(directory)
    if not directory.is_dir():
        raise EpisodeError(f"{directory} is not a folder")
    if is_being_written(directory):
        raise EpisodeError(f"{directory} is still being written; repair it after its run ends")
    report = RepairReport(directory)
    with _locked(directory / STEPS_LOCK):
        steps, bad = read_steps(directory)
        if bad:
            with open(directory / CORRUPT_STEPS_FILE, "a", encoding="utf-8") as handle:
                handle.writelines(f"{line}\n" for _, line in bad)
            report.dropped_lines = len(bad)
        try:
            meta: EpisodeMeta | None = read_episode(directory).meta
        except EpisodeError:
            meta = None
        pruned = meta is not None and meta.extra.get(FRAMES_KEPT) in ("ends", "none")  # frames left out on purpose
        kept = steps if pruned else [s for s in steps if (directory / s.before).is_file()]
        report.dropped_steps = len(steps) - len(kept)
        for index, step in enumerate(kept):
            step.index = index
        if bad or report.dropped_steps:
            _write_steps(directory, kept)
        if meta is None:
            meta = EpisodeMeta(id=directory.name, task="(unknown: episode.json was unreadable)", source="agent",
                               started=(directory / STEPS_FILE).stat().st_mtime if (directory / STEPS_FILE).exists()
                               else time.time())
            report.meta_rebuilt = True
        if meta.outcome == "running":
            meta.outcome, meta.detail, meta.finished = "interrupted", "the run ended without finishing its episode", \
                meta.finished or time.time()
            report.finished = True
        if report.meta_rebuilt or report.finished:
            rewrite_meta(directory, meta)
        for temp in [*directory.glob(".*.tmp"), *(directory / FRAMES_DIR).glob(".*.tmp")]:
            temp.unlink(missing_ok=True)
            report.temp_files += 1
    return report


def prune_frames(episode: Episode, keep: FramePolicy) -> int:
    """Delete the frames text-only training does not need: `ends` keeps the first and the last, `none` keeps
    none; `all` keeps every one. The steps keep their frame names, and episode.json says which were kept.
    Returns how many frames were deleted."""
    if keep == "all":
        return 0
    names = sorted({name for step in episode.steps for name in (step.before, step.after) if name})
    wanted = {names[0], names[-1]} if keep == "ends" and names else set()
    deleted = 0
    for frame in (episode.directory / FRAMES_DIR).glob("*.png"):
        if f"{FRAMES_DIR}/{frame.name}" not in wanted:
            frame.unlink(missing_ok=True)
            deleted += 1
    episode.meta.extra[FRAMES_KEPT] = keep
    rewrite_meta(episode.directory, episode.meta)
    return deleted


def rewrite_meta(directory: Path, meta: EpisodeMeta) -> None:
    """Replace an episode's episode.json atomically (as it is written, and for scores added after the run)."""
    write_atomic(directory / EPISODE_FILE, json.dumps(meta.to_dict(), indent=2).encode())


def list_episodes(root: Path | str) -> list[Path]:
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / EPISODE_FILE).is_file())

"""ONNX Runtime sessions for grounding's models (OCR and the UI detector): the execution providers for the CPU or
CUDA (cuDNN's heuristic algorithm choice; a CUDA session that fell back to the CPU is an error), the choice between
them under `auto` (grounding.device_choice), threads, one-line errors for files that are not models, and
the cache of rewritten graphs (onnx_graph's rewrite of PP-OCR's recogniser costs ~0.3 s a process, import included;
its result is kept on disk, keyed by the source file and the rewriting code, so only the first process pays).

On CUDA a model is a set of sessions, one per input shape (ShapeSessions), and its callers pad their inputs up to
the sizes of a coarse ladder (`ladder`) so that shapes recur: ONNX Runtime's CUDA convolutions re-plan every time a
session's input shape differs from its last run's, which made grounding's many runs of varying shapes slower on a
GPU than on the CPU beside it. Making a session costs a few hundred milliseconds on a GPU, so under `auto` a shape
whose session is not made yet runs on the CPU while a background thread makes it (a new screen costs what the CPU
takes, not 3-5x that)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from deskpilot.core.errors import GroundingError
from deskpilot.core.files import cache_dir, write_atomic

from . import onnx_graph
from .device_choice import Choice, resolve, timed_ms

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

log = logging.getLogger(__name__)
SESSIONS_PER_MODEL = 12  # input shapes a model keeps a CUDA session for (the least recently used one goes)
Shape = tuple[tuple[int, ...], ...]  # the shapes of one run's inputs
Rewrite = Callable[[Path], bytes]  # one of onnx_graph's rewrites of a model file


class ModelSession(Protocol):
    """What grounding asks of a model's session: an ONNX Runtime InferenceSession, or ShapeSessions on CUDA."""

    def run(self, output_names: list[str] | None, input_feed: dict[str, Any]) -> list[Any]: ...

    def get_inputs(self) -> list[Any]: ...

    def get_modelmeta(self) -> Any: ...

    def get_providers(self) -> list[str]: ...


class ShapeSessions:
    """One model's CUDA sessions, one per input shape, each made on the first run of its shape: a session that only
    ever sees one shape keeps its convolutions' plans (a busy full-HD parse's text models took 3-5x the CPU's time
    in one session re-planning on every shape change). The least recently used session goes past `limit`.

    With a `stand_in` (a CPU session of the same model, `auto`'s choice), a shape's first runs go to the stand-in
    while its session is made on a background thread, one at a time, and warmed by a run of that shape; from then on
    the shape runs on its own session. Without one, the first run of a shape makes its session and waits for it."""

    def __init__(self, open_one: Callable[[], InferenceSession], limit: int = SESSIONS_PER_MODEL):
        self._open = open_one
        self._limit = limit
        self._spare: InferenceSession | None = open_one()  # opened now, so a model that cannot load says so now
        self._meta = self._spare
        self._by_shape: OrderedDict[Shape, ModelSession] = OrderedDict()
        self._stand_in: ModelSession | None = None
        self._wanted: OrderedDict[Shape, dict[str, Any]] = OrderedDict()  # shapes waiting for a session, one input
        self._making: tuple[Shape, Future[InferenceSession]] | None = None
        self._maker: ThreadPoolExecutor | None = None
        self._lock = threading.RLock()
        self._made = threading.Condition(self._lock)

    def stand_in_with(self, session: ModelSession) -> None:
        """Run shapes without a session of their own on `session` while theirs is made in the background."""
        self._stand_in = session

    def run(self, output_names: list[str] | None, input_feed: dict[str, Any]) -> list[Any]:
        with self._lock:
            session = self._session_for(input_feed)
        outputs: list[Any] = session.run(output_names, input_feed)
        return outputs

    def prepare(self, input_feed: dict[str, Any]) -> None:
        """Makes the session for the shape of `input_feed` ahead of its first real run: in the background with a
        stand-in, else now (warmed by a run of the input)."""
        with self._lock:
            session = self._session_for(input_feed)
            if self._stand_in is not None:
                return  # made, or being made, in the background
        session.run(None, input_feed)

    def _session_for(self, input_feed: dict[str, Any]) -> ModelSession:
        """The session the shape of `input_feed` runs on now (the lock held)."""
        shape = tuple(tuple(value.shape) for value in input_feed.values())
        session = self._by_shape.get(shape)
        if session is not None:
            self._by_shape.move_to_end(shape)
            return session
        if self._stand_in is not None:
            if shape not in self._wanted and (self._making is None or self._making[0] != shape):
                self._wanted[shape] = {name: value.copy() for name, value in input_feed.items()}
                self._make_next()
            return self._stand_in
        made: ModelSession = self._spare or self._open()
        self._spare = None
        self._keep(shape, made)
        return made

    def _keep(self, shape: Shape, session: ModelSession) -> None:
        self._by_shape[shape] = session
        if len(self._by_shape) > self._limit:
            self._by_shape.popitem(last=False)

    def _make_next(self) -> None:
        """Starts making the next wanted shape's session unless one is being made (the lock held)."""
        if self._making is not None or not self._wanted:
            return
        shape, feed = self._wanted.popitem(last=False)
        if self._maker is None:
            self._maker = ThreadPoolExecutor(1, thread_name_prefix="cuda-sessions")
        try:
            making = self._maker.submit(self._warmed, feed)
        except RuntimeError:  # the interpreter is exiting: what is still wanted stays on the stand-in
            return
        self._making = (shape, making)
        making.add_done_callback(self._finished)

    def _warmed(self, feed: dict[str, Any]) -> InferenceSession:
        with self._lock:
            spare, self._spare = self._spare, None
        session = spare or self._open()
        session.run(None, feed)  # the shape's first run plans its convolutions here, not in a parse
        return session

    def _finished(self, making: Future[InferenceSession]) -> None:
        with self._lock:
            assert self._making is not None
            shape, self._making = self._making[0], None
            try:
                self._keep(shape, making.result())
            except Exception as exc:  # noqa: BLE001 - the stand-in keeps the shape; the reason goes to the log
                log.warning("no CUDA session for input shape %s: %s", shape, str(exc).splitlines()[0])
                if self._stand_in is not None:
                    self._keep(shape, self._stand_in)
            self._make_next()
            self._made.notify_all()

    def settle(self) -> None:
        """Waits until every shape seen so far has its own session (or failed to get one)."""
        with self._made:
            self._made.wait_for(lambda: self._making is None)

    @property
    def shapes(self) -> int:
        """Input shapes with a session of their own."""
        return len(self._by_shape)

    def get_inputs(self) -> list[Any]:
        return list(self._meta.get_inputs())

    def get_modelmeta(self) -> Any:
        return self._meta.get_modelmeta()

    def get_providers(self) -> list[str]:
        return list(self._meta.get_providers())


def fixed_shapes(session: ModelSession) -> TypeGuard[ShapeSessions]:
    """Whether a session keeps one plan per input shape (ShapeSessions): then its inputs are padded to `ladder`
    sizes, so few shapes recur."""
    return isinstance(session, ShapeSessions)


def rungs(smallest: int, largest: int) -> list[int]:
    """The ladder's sizes from `smallest` up to `largest`: the shapes a model's CUDA sessions are made for at load,
    so a new screen's lines find their sessions ready."""
    found = [smallest]
    while found[-1] < largest:
        found.append(ladder(found[-1] + 1, smallest))
    return found


def ladder(size: int, smallest: int) -> int:
    """The smallest of `smallest` x 1, 1.5, 2, 3, 4, 6, ... that holds `size`: the sizes inputs are padded to on
    CUDA (at most a third of a padded side is padding)."""
    rung, grow = smallest, True
    while rung < size:
        rung = rung * 3 // 2 if grow else rung * 4 // 3
        grow = not grow
    return rung


def rewrite_cache_dir() -> Path:
    """Where rewritten graphs are kept: $XDG_CACHE_HOME/deskpilot/onnx (~/.cache/deskpilot/onnx)."""
    return cache_dir() / "onnx"


def rewritten(path: Path, rewrite: Rewrite) -> str | bytes:
    """An onnx_graph rewrite of the model at `path`: the cached file's path when an earlier process made it, else
    made now and cached (written whole or not at all); the bytes themselves where the cache cannot be written."""
    stat = path.stat()
    code = _code_digest(onnx_graph)
    key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{rewrite.__name__}|{code}|"
                         f"{metadata.version('onnx')}".encode()).hexdigest()[:24]
    cached = rewrite_cache_dir() / f"{path.stem}-{key}.onnx"
    if cached.is_file():
        return str(cached)
    model = rewrite(path)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cached, model)
    except OSError as exc:
        log.debug("rewritten graph of %s not cached: %s", path, exc)
        return model
    return str(cached)


def _code_digest(module: ModuleType) -> str:
    """A digest of the rewrite's code (its functions' byte code, names and constants), so a changed rewrite is not
    served from the cache. Byte code, not the source file: a bundle (PyInstaller) ships no .py files."""
    digest = hashlib.sha256()
    for name, value in sorted(vars(module).items()):
        code = getattr(value, "__code__", None)
        if isinstance(code, CodeType) and getattr(value, "__module__", None) == module.__name__:
            digest.update(name.encode() + _code_bytes(code))
    return digest.hexdigest()


def _code_bytes(code: CodeType) -> bytes:
    parts = [code.co_code, repr(code.co_names).encode()]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            parts.append(_code_bytes(const))
        elif isinstance(const, frozenset):
            parts.append(repr(sorted(map(repr, const))).encode())  # set order changes with hash seeds
        else:
            parts.append(repr(const).encode())
    return b"".join(parts)


# cuDNN's exhaustive search tries every convolution algorithm on each new input shape: seconds per screen for
# grounding's many small runs of varying sizes (a busy full-HD parse 37-51x the CPU's time on an H100 machine, 20x
# on an H200); its heuristic picks at once. Copies on the default stream keep a run's input and output in order
# without extra synchronisation.
CUDA_OPTIONS = {"cudnn_conv_algo_search": "HEURISTIC", "do_copy_in_default_stream": "1"}


def providers(device: str) -> list[str | tuple[str, dict[str, str]]]:
    """ONNX Runtime execution providers for `device` (cpu | cuda, as device_choice resolved it)."""
    if device == "cuda":
        return [("CUDAExecutionProvider", CUDA_OPTIONS), "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def open_session(path: Path, device: str = "cpu", threads: int = 0, what: str = "model",
                 rewrite: Rewrite | None = None) -> ModelSession:
    """An inference session on `path` on `device` (cpu | cuda) with all graph optimisations; on CUDA ShapeSessions,
    one per input shape. `threads` 0 lets ONNX Runtime choose; `rewrite` (one of onnx_graph's: `simplified` for
    PP-OCR's models, `byte_input` for deskpilot's detectors) first rewrites the graph (cached). A CUDA session that
    ONNX Runtime could only start on the CPU (no GPU, no driver or no cuDNN) is an error: the caller asked for
    CUDA."""
    if device == "cuda":
        return ShapeSessions(lambda: _one_session(path, device, threads, what, rewrite))
    session: ModelSession = _one_session(path, device, threads, what, rewrite)
    return session


def _one_session(path: Path, device: str, threads: int, what: str, rewrite: Rewrite | None) -> InferenceSession:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Worker threads sleep between runs instead of spinning: the CPU is shared with the app being driven and with
    # grounding's other work between runs (decoding, PP-OCR's readers side by side); spinning took ~20 % more CPU
    # time and made a busy full-HD parse slower, not faster.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # warnings about unused initialisers are not the user's business
    if device == "cuda":
        _preload_cuda_libraries(ort)
        # ONNX Runtime's process-wide logger warns on every CUDA convolution whose input shape changed and whose
        # cuDNN plan fell back ("running in Fallback mode. May be extremely slow"): thousands of lines a screen on
        # a terminal. What that costs is measured by device_choice and shown by `deskpilot doctor` instead.
        ort.set_default_logger_severity(3)
    chosen = providers(device)
    try:
        source = rewritten(path, rewrite) if rewrite else str(path)
        try:
            session = ort.InferenceSession(source, options, providers=chosen)
        except Exception:
            if not rewrite or isinstance(source, bytes):
                raise
            Path(source).unlink(missing_ok=True)  # a cached rewrite damaged on disk: make it again
            session = ort.InferenceSession(rewritten(path, rewrite), options, providers=chosen)
    except Exception as exc:  # not an ONNX file, a truncated one, or a broken install
        raise GroundingError(f"cannot load the {what} {path}: {str(exc).splitlines()[0]}") from None
    if device == "cuda" and session_device(session) != "cuda":
        raise GroundingError(f"the {what} cannot run on CUDA here: ONNX Runtime started it on the CPU (no NVIDIA GPU, "
                             "driver or cuDNN found); set the device to cpu or auto")
    return session


def _preload_cuda_libraries(ort: ModuleType) -> None:
    """CUDA and cuDNN from NVIDIA's pip packages where they are installed (onnxruntime-gpu does not find them by
    itself); libraries the system has are used otherwise."""
    preload = getattr(ort, "preload_dlls", None)
    if preload is None:
        return
    said = io.StringIO()  # it prints its warnings: they belong in the log, not in a command's output
    with contextlib.suppress(Exception), contextlib.redirect_stdout(said):
        preload()
    if said.getvalue().strip():
        log.debug("onnxruntime.preload_dlls: %s", said.getvalue().strip())


def session_device(session: ModelSession) -> str:
    """'cuda' when the session runs on the GPU, else 'cpu'."""
    return "cuda" if session.get_providers()[0] == "CUDAExecutionProvider" else "cpu"


def open_on_best_device(path: Path, setting: str, threads: int, what: str,
                        workload: Callable[[ModelSession], object], rewrite: Rewrite | None = None,
                        cpu_threads: int | None = None) -> tuple[ModelSession, Choice | None]:
    """A session on the device `setting` names (auto | cpu | cuda); under `auto` with CUDA offered, the one
    device_choice measured faster for `workload(session)`: what one screen asks of this model. `cpu_threads`
    replaces `threads` on the CPU. The session measured on the chosen device is the one returned."""
    sessions: dict[str, ModelSession] = {}

    def session_on(device: str) -> ModelSession:
        if device not in sessions:
            count = cpu_threads if device == "cpu" and cpu_threads is not None else threads
            sessions[device] = open_session(path, device, count, what, rewrite)
        return sessions[device]

    def measure(device: str) -> float:
        session = session_on(device)
        return timed_ms(lambda: workload(session))

    device, choice = resolve(setting, path, what, measure)
    chosen = session_on(device)
    if setting == "auto" and isinstance(chosen, ShapeSessions):  # new shapes run on the CPU while theirs are made
        chosen.stand_in_with(sessions["cpu"] if "cpu" in sessions and cpu_threads is None
                             else open_session(path, "cpu", threads, what, rewrite))
    return chosen, choice

"""What the CLI commands and the app share: where the CLI writes (results on stdout, progress and errors on stderr,
never wrapped, since scripts parse them), the configured grounder, planner and agent, the confirmation prompt,
and writing PNGs and JSON reports."""

from __future__ import annotations

import json
import signal
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from deskpilot.core.plain_text import plain
from deskpilot.core.safety import Confirmation, Confirmer
from deskpilot.core.settings import Settings

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
                     if hasattr(signal, name))
DECIDE_GRACE_SECONDS = 1.0  # the agent's own deadline comes just after the backend's, whose error says more
JsonOption = Annotated[Optional[Path], typer.Option("--json", help="write the JSON report here")]


def progress_bar(total: int, description: str):  # noqa: ANN201 - a rich Progress and its task
    """A transient progress bar on stderr with a free-text `info` field."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        TextColumn("{task.fields[info]}"), console=err, transient=True)
    return progress, progress.add_task(description, total=total, info="")


def write_json(path: Optional[Path], report: dict) -> None:
    """Write a command's JSON report to `path` (when given) and say where."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2))
        out.print(f"report: {path}", markup=False)


def planner_for(settings: Settings, task: str, grounder, on_text=None, example: str = "",  # noqa: ANN001, ANN201
                example_screen=None):  # noqa: ANN001
    """The configured planner; the offline one reads the task first, so an instruction it cannot follow fails
    before anything starts."""
    from deskpilot.planner.factory import build_planner
    from deskpilot.planner.offline import OfflinePlanner
    from deskpilot.planner.routing import RoutingPlanner

    from deskpilot.core.errors import DeskpilotError
    from deskpilot.planner.agent import read_on_the_first_screen

    planner = build_planner(settings, on_text=on_text, grounder=grounder, example=example,
                            example_screen=example_screen)
    try:
        if isinstance(planner, OfflinePlanner):
            planner.plan(task)
        elif isinstance(planner, RoutingPlanner):
            planner.route(task)  # the model, where the task needs one, is loaded now
    except DeskpilotError:
        if not read_on_the_first_screen(task):
            raise  # else the agent reads the task against the first screen, and refuses it there if it must
    return planner


def build_agent(settings: Settings, grounder, planner, stop, confirm, on_step,  # noqa: ANN001, ANN201
                screen=None, no_go=None):
    """The agent loop with its safety checks (policy, rate limit, dry run, no-go regions) as the settings say.
    Without `no_go` (the CLI), the terminal deskpilot was started from is the no-go window: no click lands on it
    and no key is typed while it has the focus."""
    from deskpilot.core.controller import Controller
    from deskpilot.core.display import ProtectedWindow
    from deskpilot.core.screen import Screen
    from deskpilot.planner.agent import Agent

    keyboard_no_go = None
    terminal = ProtectedWindow.controlling_terminal() if no_go is None else None
    if terminal is not None:
        no_go = lambda: [box for box in (terminal.box(),) if box is not None]  # noqa: E731
        keyboard_no_go = lambda: terminal.name if terminal.has_focus() else None  # noqa: E731
    screen = screen or Screen(settings.monitor, settings.scale)
    return Agent(screen, grounder, planner, Controller(stop),
                 safety_for(settings, stop, confirm, screen, no_go, keyboard_no_go),
                 settings.episodes_dir, locate_timeout=settings.locate_timeout,
                 settle_timeout=settings.settle_timeout, on_step=on_step,
                 decide_timeout=settings.planner_timeout + DECIDE_GRACE_SECONDS)


def build_replayer(settings: Settings, recorded, stop, confirm, on_step, secret,  # noqa: ANN001, ANN201
                   screen=None, no_go=None, by_text_only: set[int] | None = None, speed: float = 1.0,
                   task: str | None = None):
    """A Replayer of the episode `recorded`, writing a new episode (its task `task`, else "replay: <recorded
    task>") with the safety checks the settings say; `secret` asks for a secret the recording left out."""
    from deskpilot.core.controller import Controller
    from deskpilot.core.episode import EpisodeWriter
    from deskpilot.core.screen import Screen
    from deskpilot.grounding.factory import build_grounder
    from deskpilot.recorder.replay import Replayer

    writer = EpisodeWriter.create(settings.episodes_dir, task or f"replay: {recorded.meta.task}", source="agent",
                                  model="replay", replay_of=recorded.meta.id)
    screen = screen or Screen(settings.monitor, settings.scale)
    safety = safety_for(settings, stop, confirm, screen, no_go)
    return Replayer(screen, build_grounder(settings), Controller(stop), safety, writer, speed=speed,
                    settle_timeout=settings.settle_timeout, locate_timeout=settings.locate_timeout, secret=secret,
                    on_step=on_step, by_text_only=by_text_only)


def safety_for(settings: Settings, stop, confirm, screen, no_go=None, keyboard_no_go=None):  # noqa: ANN001, ANN201
    """The safety checks the settings say (policy, rate limit, dry run), the person's standing allowances and the
    no-go regions, for actions on `screen`."""
    from deskpilot.core.allowances import Allowances
    from deskpilot.core.safety import ConfirmationPolicy, Safety

    return Safety(stop, ConfirmationPolicy(settings.confirm), confirm=confirm,
                  min_interval=settings.min_action_interval, dry_run=settings.dry_run, no_go=no_go,
                  keyboard_no_go=keyboard_no_go, allowed=Allowances().allows, app_at=screen.app_at)


def recorder_for(settings: Settings, writer, screen, on_step, ocr: bool = True,  # noqa: ANN001, ANN201
                 mask_typing: bool = False, excluded=None):
    """A Recorder that leaves the recording's own stop/pause hotkeys out of the demonstration."""
    from deskpilot.core.keys import split_combo
    from deskpilot.grounding.factory import build_ocr
    from deskpilot.recorder.capture import Recorder

    return Recorder(writer, screen, build_ocr(settings, threads=1) if ocr else None,
                    mask_typing=mask_typing, on_step=on_step, excluded=excluded,
                    ignore_hotkeys=(split_combo(settings.record_stop_hotkey),
                                    split_combo(settings.record_pause_hotkey)))


def listen_for_stop(settings: Settings, stack: ExitStack):  # noqa: ANN201 - the EmergencyStop
    """An emergency stop fired by the stop hotkey, Ctrl+C, SIGTERM, SIGHUP (the terminal closed) or SIGQUIT (the
    failsafe corner works regardless): the run ends its step, lets go of every key and closes its episode. The
    listener closes with `stack`."""
    from deskpilot.core.errors import SettingsError
    from deskpilot.core.hotkeys import stop_hotkey_limit
    from deskpilot.core.safety import EmergencyStop

    stop = EmergencyStop()
    limit = stop_hotkey_limit()
    if limit:
        err.print(f"warning: {limit}", markup=False, highlight=False)
    try:
        stack.callback(stop.listen(settings.stop_hotkey).close)
    except SettingsError:
        raise
    except Exception as exc:  # no keyboard hook on this desktop: the failsafe corner and Ctrl+C still stop it
        err.print(f"warning: no global stop hotkey ({exc}); Ctrl+C and the screen-corner failsafe still work",
                  markup=False, highlight=False)
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda number, _: stop.trigger(f"interrupted ({signal.Signals(number).name})"))
    return stop


def write_png(path: Path, image_rgb) -> None:  # noqa: ANN001
    from deskpilot.core.episode import encode_png
    from deskpilot.core.files import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, encode_png(image_rgb))


def confirmer(yes: bool, crop_file: Optional[Path] = None) -> Confirmer | None:
    """Asks on the terminal (None where there is no terminal to ask on: the action is refused, saying so). Input
    typed before the question (a model may have typed "y" and Enter into this very terminal) is thrown away first;
    the picture of what the action acts on is written to `crop_file`."""
    if yes:
        return lambda request: True
    if not sys.stdin.isatty():
        return None

    def ask(request: Confirmation) -> bool:
        from rich.prompt import Confirm

        if request.crop is not None and request.crop.size and crop_file is not None:
            write_png(crop_file, request.crop)
            err.print(f"what it acts on: {crop_file}", markup=False, highlight=False)
        _discard_typed_ahead()
        return Confirm.ask(confirm_prompt(request), default=False)

    return ask


def confirm_prompt(request: Confirmation) -> str:
    """The question in rich markup, the model's words escaped (so `[/x]` cannot crash it nor `[black on black]`
    hide text) and stripped of terminal control sequences."""
    from rich.markup import escape

    return f"[yellow]{escape(plain(request.question()))}[/]"


def _discard_typed_ahead() -> None:
    try:
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):  # not a POSIX terminal: nothing typed ahead can be told apart
        pass

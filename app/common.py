"""What the CLI commands and the app share: where the CLI writes (results on stdout, progress and errors on stderr,
never wrapped, since scripts parse them), the configured grounder, planner and agent, the confirmation prompt,
and writing PNGs and JSON reports."""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from deskpilot.core.actions import Action
from deskpilot.core.settings import Settings

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

JsonOption = Annotated[Optional[Path], typer.Option("--json", help="write the JSON report here")]


def write_json(path: Optional[Path], report: dict) -> None:
    """Write a command's JSON report to `path` (when given) and say where."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2))
        out.print(f"report: {path}", markup=False)


def grounder_for(settings: Settings):  # noqa: ANN202 - returns the configured Grounder
    from deskpilot.grounding import OcrGrounder
    from deskpilot.grounding.detector import UiDetector
    from deskpilot.grounding.ocr import OcrEngine

    detector = UiDetector(settings.detector_model, settings.detector_device) if settings.detector else None
    return OcrGrounder(OcrEngine(threads=settings.ocr_threads), detector=detector)


def planner_for(settings: Settings, task: str, grounder, on_text=None):  # noqa: ANN001, ANN201
    """The configured planner; the offline one reads the task first, so an instruction it cannot follow fails
    before anything starts."""
    from deskpilot.planner.factory import build_planner
    from deskpilot.planner.offline import OfflinePlanner

    planner = build_planner(settings, on_text=on_text, grounder=grounder)
    if isinstance(planner, OfflinePlanner):
        planner.plan(task)
    return planner


def build_agent(settings: Settings, grounder, planner, stop, confirm, on_step,  # noqa: ANN001, ANN201
                screen=None, no_go=None):
    """The agent loop with its safety checks (policy, rate limit, dry run, no-go regions) as the settings say."""
    from deskpilot.core.controller import Controller
    from deskpilot.core.safety import ConfirmationPolicy, Safety
    from deskpilot.core.screen import Screen
    from deskpilot.planner.agent import Agent

    safety = Safety(stop, ConfirmationPolicy(settings.confirm), confirm=confirm,
                    min_interval=settings.min_action_interval, dry_run=settings.dry_run, no_go=no_go)
    return Agent(screen or Screen(settings.monitor, settings.scale), grounder, planner, Controller(stop), safety,
                 settings.episodes_dir, locate_timeout=settings.locate_timeout,
                 settle_timeout=settings.settle_timeout, on_step=on_step)


def recorder_for(settings: Settings, writer, screen, on_step, ocr: bool = True,  # noqa: ANN001, ANN201
                 mask_typing: bool = False, excluded=None):
    """A Recorder that leaves the recording's own stop/pause hotkeys out of the demonstration."""
    from deskpilot.core.keys import split_combo
    from deskpilot.grounding.ocr import OcrEngine
    from deskpilot.recorder.capture import Recorder

    return Recorder(writer, screen, OcrEngine(threads=1) if ocr else None,
                    mask_typing=mask_typing, on_step=on_step, excluded=excluded,
                    ignore_hotkeys=(split_combo(settings.record_stop_hotkey),
                                    split_combo(settings.record_pause_hotkey)))


def listen_for_stop(settings: Settings, stack: ExitStack):  # noqa: ANN201 - the EmergencyStop
    """An emergency stop fired by the stop hotkey, Ctrl+C or SIGTERM (the failsafe corner works regardless);
    the listener closes with `stack`."""
    import signal

    from deskpilot.core.errors import SettingsError
    from deskpilot.core.safety import EmergencyStop

    stop = EmergencyStop()
    try:
        stack.callback(stop.listen(settings.stop_hotkey).close)
    except SettingsError:
        raise
    except Exception as exc:  # no keyboard hook on this desktop: the failsafe corner and Ctrl+C still stop it
        err.print(f"warning: stop hotkey unavailable ({exc}); Ctrl+C and the screen-corner failsafe still work")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.trigger("interrupted (Ctrl+C / SIGTERM)"))
    return stop


def write_png(path: Path, image_rgb) -> None:  # noqa: ANN001
    from deskpilot.core.episode import encode_png, write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, encode_png(image_rgb))


def confirmer(yes: bool):  # noqa: ANN202
    def ask(action: Action, reason: str) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            return False
        from rich.prompt import Confirm

        return Confirm.ask(f"[yellow]{action.redacted().describe()}[/]: {reason}. Go ahead?", default=False)

    return ask

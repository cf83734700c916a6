"""`deskpilot record` and `deskpilot replay`: demonstrations in, demonstrations played back."""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import STOP_SIGNALS, build_replayer, confirmer, err, listen_for_stop, out, recorder_for
from deskpilot.core.errors import ScreenError, UsageError
from deskpilot.core.settings import load_settings


def record(task: Annotated[str, typer.Option(help="what the demonstration does (stored with the episode)")] = "",
           out_dir: Annotated[Optional[Path], typer.Option("--out", help="episodes folder")] = None,
           mask_typing: Annotated[bool, typer.Option("--mask-typing", help="redact everything typed")] = False,
           ocr: Annotated[bool, typer.Option(help="read the text under each click (for replay and training)")]
           = True) -> None:
    """Record a demonstration until the stop hotkey (ctrl+shift+f10), Ctrl+C or SIGTERM; ctrl+shift+f9 pauses."""
    from deskpilot.core.display import ensure_xauthority, has_display
    from deskpilot.core.episode import EpisodeWriter
    from deskpilot.core.hotkeys import GlobalHotkeys
    from deskpilot.core.screen import Screen

    settings = load_settings(episodes_dir=out_dir)
    if not has_display():
        raise ScreenError("recording needs a display: run it in your desktop session (DISPLAY is not set)")
    ensure_xauthority()
    screen = Screen(settings.monitor, settings.scale)
    writer = EpisodeWriter.create(settings.episodes_dir, task, source="demonstration")
    done = threading.Event()
    recorder = recorder_for(settings, writer, screen,
                            lambda step: out.print(f"{step.index + 1:>3}. {step.action.describe()}", markup=False,
                                                   highlight=False), ocr=ocr, mask_typing=mask_typing)

    def toggle_pause() -> None:
        recorder.paused = not recorder.paused
        err.print("paused" if recorder.paused else "recording again", style="yellow")

    for sig in STOP_SIGNALS:  # a closed terminal (SIGHUP) ends the recording as the stop hotkey does
        signal.signal(sig, lambda *_: done.set())
    hotkeys = GlobalHotkeys({settings.record_stop_hotkey: done.set, settings.record_pause_hotkey: toggle_pause})
    recorder.start()
    err.print(f"recording: stop with {settings.record_stop_hotkey} or Ctrl+C, pause with "
              f"{settings.record_pause_hotkey}", style="dim")
    try:
        while not done.wait(0.2):
            pass
    finally:
        hotkeys.close()
        steps = recorder.stop()
    out.print(f"recorded {len(steps)} step(s): {writer.directory}", markup=False)


def replay(episode: Annotated[Path, typer.Argument(help="an episode folder")],
           speed: Annotated[float, typer.Option(help="faster (>1) or slower (<1) than recorded")] = 1.0,
           dry_run: Annotated[bool, typer.Option("--dry-run", help="find every target, touch nothing")] = False,
           episodes_dir: Annotated[Optional[Path], typer.Option(help="where the replay's episode goes")] = None,
           yes: Annotated[bool, typer.Option("--yes", help="approve every confirmation without asking")] = False,
           set_values: Annotated[Optional[list[str]], typer.Option(
               "--set", help="NAME=VALUE: type or choose another value in the field the recording names so "
                             "(repeat for more)")] = None,
           start: Annotated[int, typer.Option("--from", min=1, help="start at this step (1 = the first)")] = 1) \
        -> None:
    """Replay a recorded episode, finding each target again on the live screen (with other values: --set)."""
    from deskpilot.core.display import ensure_xauthority, has_display
    from deskpilot.core.episode import read_episode
    from deskpilot.recorder.template import parse_assignments, with_values

    settings = load_settings(episodes_dir=episodes_dir, dry_run=dry_run or None)
    recorded, by_text_only = with_values(read_episode(episode), parse_assignments(set_values or []))
    if speed <= 0:
        raise UsageError("--speed must be above 0")
    if start > len(recorded.steps):
        raise UsageError(f"--from {start}: {episode.name} has {len(recorded.steps)} step(s)")
    if not has_display():
        raise ScreenError("replay needs a display (DISPLAY is not set)")
    ensure_xauthority()
    with ExitStack() as stack:
        result = replay_recording(recorded, settings, yes, stack, by_text_only, speed, start=start - 1)
    out.print(f"{result.outcome}: {result.detail}", style="green" if result.ok else "red", markup=False)
    out.print(f"episode: {result.episode_dir}", markup=False)
    if not result.ok:
        raise typer.Exit(1)


def replay_recording(recorded, settings, yes: bool, stack: ExitStack, by_text_only: set[int],  # noqa: ANN001, ANN201
                     speed: float = 1.0, task: str | None = None, start: int = 0):
    """Replay `recorded` on the live screen from its step at index `start` as a new episode (its task `task`, else
    "replay: <recorded task>"), with the stop hotkey, Ctrl+C and SIGTERM listened for; returns the RunResult."""
    stop = listen_for_stop(settings, stack)
    replayer = build_replayer(settings, recorded, stop, confirmer(yes),
                              lambda s: out.print(f"{s.index + 1:>3}. {s.action.redacted().describe()}",
                                                  markup=False, highlight=False),
                              _ask_secret, by_text_only=by_text_only, speed=speed, task=task)
    return replayer.replay(recorded, start)


def _ask_secret(step):  # noqa: ANN001, ANN202
    if not sys.stdin.isatty():
        return None
    import getpass

    return getpass.getpass(f"step {step.index + 1} typed a secret; type it now (not echoed): ")

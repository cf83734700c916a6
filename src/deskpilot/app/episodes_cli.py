"""`deskpilot episodes list|show|export|repair|remerge`: looking at, exporting and mending recorded and agent
episodes, and merging a recording's raw events again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import err, out, plain
from deskpilot.core.errors import DeskpilotError, UsageError
from deskpilot.core.settings import load_settings

episodes_app = typer.Typer(help="List, show and export episodes (agent runs and demonstrations).",
                           no_args_is_help=True)


@episodes_app.command("list")
def episodes_list(directory: Annotated[Optional[Path], typer.Option("--dir", help="episodes folder")] = None,
                  as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Every episode in the folder, oldest first."""
    from deskpilot.core.episode import list_episodes, read_episode

    root = load_settings(episodes_dir=directory).episodes_dir
    if not root.is_dir():
        raise UsageError(f"no episodes folder {root}; pass --dir with the folder the runs were written to")
    rows = []
    for path in list_episodes(root):
        try:
            episode = read_episode(path)
        except DeskpilotError as exc:
            err.print(f"warning: {exc}", markup=False, highlight=False)
            continue
        rows.append({"id": episode.meta.id, "source": episode.meta.source, "outcome": episode.meta.outcome,
                     "steps": len(episode.steps), "task": episode.meta.task, "path": str(path)})
    if as_json:
        print(json.dumps(rows))
        return
    for row in rows:  # episode text is untrusted: no escape sequence in it reaches the terminal
        out.print(plain(f"{row['id']}  {row['source']:<13} {row['outcome']:<10} {row['steps']:>3} steps  "
                        f"{row['task']}"), markup=False, highlight=False)


@episodes_app.command("show")
def episodes_show(episode: Annotated[Path, typer.Argument(help="an episode folder")],
                  as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """An episode's metadata and steps."""
    from deskpilot.core.episode import read_episode

    read = read_episode(episode)
    if as_json:
        print(json.dumps({"episode": read.meta.to_dict(), "steps": [s.to_dict() for s in read.steps]}))
        return
    out.print(plain(f"{read.meta.id} ({read.meta.source}) {read.meta.outcome}: {read.meta.task}"), markup=False,
              highlight=False)
    if read.meta.detail:
        out.print(plain(f"     {read.meta.detail}"), markup=False, highlight=False)
    if read.meta.goal_check is not None:
        out.print(plain(f"     {read.meta.goal_check.describe()}"), markup=False, highlight=False)
    for step in read.steps:
        label = f"  [{step.verification.label}]" if step.verification else ""
        out.print(plain(f"{step.index + 1:>3}. {step.action.describe()}{label}  {step.thought}"), markup=False,
                  highlight=False)


@episodes_app.command("export")
def episodes_export(episodes: Annotated[Optional[list[Path]], typer.Argument(help="episode folders (default: all)")]
                    = None,
                    out_dir: Annotated[Path, typer.Option("--out", help="where the dataset is saved")]
                    = Path("dataset"),
                    fmt: Annotated[str, typer.Option("--format", help="hf (Hugging Face datasets)")] = "hf",
                    directory: Annotated[Optional[Path], typer.Option("--dir", help="episodes folder")] = None) -> None:
    """Export episodes as a Hugging Face dataset (one row per step; load with datasets.load_from_disk)."""
    from deskpilot.core.episode import list_episodes
    from deskpilot.recorder.export import export_hf

    if fmt != "hf":
        raise UsageError(f"unknown export format {fmt!r}; available: hf")
    chosen = episodes or list_episodes(load_settings(episodes_dir=directory).episodes_dir)
    if not chosen:
        raise UsageError("no episodes to export")
    rows = export_hf(list(chosen), out_dir)
    out.print(f"exported {rows} step(s) from {len(chosen)} episode(s) to {out_dir}", markup=False)


@episodes_app.command("repair")
def episodes_repair(episodes: Annotated[Optional[list[Path]], typer.Argument(help="episode folders (default: all)")]
                    = None,
                    directory: Annotated[Optional[Path], typer.Option("--dir", help="episodes folder")] = None) -> None:
    """Make damaged episodes readable: unreadable step lines go to steps.corrupt.jsonl, steps whose frames are
    gone are dropped, a broken episode.json is rebuilt, runs whose process died are marked interrupted."""
    from deskpilot.core.episode import EPISODE_FILE, STEPS_FILE, repair_episode

    root = load_settings(episodes_dir=directory).episodes_dir
    if episodes:
        chosen = list(episodes)
    elif root.is_dir():
        chosen = sorted(p for p in root.iterdir() if (p / EPISODE_FILE).exists() or (p / STEPS_FILE).exists())
    else:
        chosen = []
    repaired = 0
    for path in chosen:
        report = repair_episode(path)
        if not report.changed:
            continue
        repaired += 1
        parts = [f"{report.dropped_lines} unreadable line(s) set aside" if report.dropped_lines else "",
                 f"{report.dropped_steps} step(s) without frames dropped" if report.dropped_steps else "",
                 "episode.json rebuilt" if report.meta_rebuilt else "",
                 "marked interrupted" if report.finished else "",
                 f"{report.temp_files} temporary file(s) removed" if report.temp_files else ""]
        out.print(f"{path.name}: {', '.join(p for p in parts if p)}", markup=False, highlight=False)
    out.print(f"{repaired} of {len(chosen)} episode(s) repaired", markup=False)


@episodes_app.command("remerge")
def episodes_remerge(episodes: Annotated[list[Path], typer.Argument(help="recorded episode folders")],
                     ocr: Annotated[bool, typer.Option("--ocr/--no-ocr", help="read the text under each click "
                                                       "again")] = True) -> None:
    """Rebuild recordings' steps from their raw input events (the old steps are kept in steps.previous.jsonl)."""
    from deskpilot.core.keys import split_combo
    from deskpilot.grounding.factory import build_ocr
    from deskpilot.recorder.remerge import remerge

    settings = load_settings()
    ignored = (split_combo(settings.record_stop_hotkey), split_combo(settings.record_pause_hotkey))
    reader = build_ocr(settings, threads=1) if ocr else None
    for path in episodes:
        steps = remerge(path, reader, ignored)
        out.print(f"{path.name}: {len(steps)} step(s): " + ", ".join(s.action.redacted().describe() for s in steps),
                  markup=False, highlight=False)

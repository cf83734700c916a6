"""`deskpilot episodes list|show|export`: looking at and exporting recorded and agent episodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import out
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.settings import load_settings

episodes_app = typer.Typer(help="List, show and export episodes (agent runs and demonstrations).",
                           no_args_is_help=True)


@episodes_app.command("list")
def episodes_list(directory: Annotated[Optional[Path], typer.Option("--dir", help="episodes folder")] = None,
                  as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Every episode in the folder, oldest first."""
    from deskpilot.core.episode import list_episodes, read_episode

    rows = []
    for path in list_episodes(load_settings(episodes_dir=directory).episodes_dir):
        episode = read_episode(path)
        rows.append({"id": episode.meta.id, "source": episode.meta.source, "outcome": episode.meta.outcome,
                     "steps": len(episode.steps), "task": episode.meta.task, "path": str(path)})
    if as_json:
        print(json.dumps(rows))
        return
    for row in rows:
        out.print(f"{row['id']}  {row['source']:<13} {row['outcome']:<10} {row['steps']:>3} steps  {row['task']}",
                  markup=False, highlight=False)


@episodes_app.command("show")
def episodes_show(episode: Annotated[Path, typer.Argument(help="an episode folder")],
                  as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """An episode's metadata and steps."""
    from deskpilot.core.episode import read_episode

    read = read_episode(episode)
    if as_json:
        print(json.dumps({"episode": read.meta.to_dict(), "steps": [s.to_dict() for s in read.steps]}))
        return
    out.print(f"{read.meta.id} ({read.meta.source}) {read.meta.outcome}: {read.meta.task}", markup=False)
    for step in read.steps:
        label = f"  [{step.verification['label']}]" if step.verification else ""
        out.print(f"{step.index + 1:>3}. {step.action.describe()}{label}  {step.thought}", markup=False,
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
        raise DeskpilotError(f"unknown export format {fmt!r}; available: hf")
    chosen = episodes or list_episodes(load_settings(episodes_dir=directory).episodes_dir)
    if not chosen:
        raise DeskpilotError("no episodes to export")
    rows = export_hf(list(chosen), out_dir)
    out.print(f"exported {rows} step(s) from {len(chosen)} episode(s) to {out_dir}", markup=False)

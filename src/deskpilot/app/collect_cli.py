"""`deskpilot collect miniwob`: labelled episodes at scale, from parallel workers, resumable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from deskpilot.app.common import JsonOption, err, out, write_json
from deskpilot.evaluation.collect import CollectConfig

from .job_options import job_command

collect_app = typer.Typer(help="Collect labelled episodes for training.", no_args_is_help=True)


def collect_miniwob_command(config: CollectConfig, json_file: Path | None = None) -> None:
    """Run a policy on MiniWoB++ tasks and keep every episode, scored by the page and labelled step by step."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from deskpilot.evaluation.collect import Collected, collect_miniwob

    workers, out_dir, frames = config.workers, config.out, config.frames
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TextColumn("{task.fields[info]}"),
                  TimeRemainingColumn(), console=err, transient=False) as progress:
        bar = progress.add_task(f"collect ({config.policy_name}, {workers} worker{'s' * (workers > 1)})", total=None,
                                info="")
        seen = {"steps": 0, "ok": 0, "episodes": 0}

        def started(total: int) -> None:
            progress.update(bar, total=total)

        def finished(episode: Collected) -> None:
            seen["episodes"] += 1
            seen["steps"] += episode.steps
            seen["ok"] += episode.raw_reward > 0
            progress.update(bar, advance=1, info=f"{seen['steps']} steps, success {seen['ok'] / seen['episodes']:.2f}")

        summary = collect_miniwob(config, on_episode=finished, on_start=started)
    report = summary.as_dict()
    report.update({"policy": config.policy_name, "out": str(out_dir), "workers": workers, "frames": frames})
    labels = report["labels"]
    out.print(f"{report['episodes']} episodes, {report['steps']} steps, success {report['success_rate']:.3f}, "
              f"labels good {labels['good']} / bad {labels['bad']} / unknown {labels['unknown']} "
              f"in {report['seconds']:.0f} s ({report['steps_per_second']:.2f} steps/s); "
              f"{report['skipped']} already there, {report['removed']} unfinished removed", markup=False,
              highlight=False)
    for failure in report["failed_workers"]:
        err.print(f"error: {failure}", markup=False, highlight=False)
    write_json(json_file, report)
    if report["failed_workers"]:
        raise typer.Exit(1)


collect_app.command("miniwob")(job_command(CollectConfig, collect_miniwob_command,
                                           collect_miniwob_command.__doc__ or "",
                                           extra={"json_file": (JsonOption, None)}))


@collect_app.command("tasks")
def collect_tasks(as_json: Annotated[bool, typer.Option("--json", help="print as JSON")] = False) -> None:
    """The MiniWoB++ tasks collected by default, and those kept out for measuring generalisation."""
    from deskpilot.evaluation.miniwob.tasks import COLLECT_TASKS, HELD_OUT_TASKS

    if as_json:
        print(json.dumps({"collect": list(COLLECT_TASKS), "held_out": list(HELD_OUT_TASKS)}))
        return
    out.print("collect:  " + ",".join(COLLECT_TASKS), markup=False, highlight=False)
    out.print("held out: " + ",".join(HELD_OUT_TASKS), markup=False, highlight=False)

"""`deskpilot collect miniwob`: labelled episodes at scale, from parallel workers, resumable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import JsonOption, err, out, write_json
from deskpilot.core.errors import UsageError

collect_app = typer.Typer(help="Collect labelled episodes for training.", no_args_is_help=True)


@collect_app.command("miniwob")
def collect_miniwob_command(
        tasks: Annotated[Optional[str], typer.Option(help="comma-separated MiniWoB tasks (default: the collection "
                                                          "set, see `deskpilot collect tasks`)")] = None,
        episodes: Annotated[int, typer.Option(help="episodes per task")] = 10,
        seed: Annotated[int, typer.Option(help="seed of the first episode; episode i uses seed+i")] = 0,
        policy: Annotated[str, typer.Option(help="offline | explore | model")] = "offline",
        model: Annotated[Optional[str], typer.Option(help="model folder for --policy model (or a model's name at "
                                                          "--base-url)")] = None,
        base_url: Annotated[Optional[str], typer.Option(help="an OpenAI-compatible endpoint serving --model "
                                                             "(vLLM, Ollama, ...), asked in som-text mode")] = None,
        epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="share of steps replaced by random "
                                                                      "exploration")] = 0.0,
        temperature: Annotated[float, typer.Option(min=0.0, max=2.0, help="sampling temperature of --policy "
                                                                          "model")] = 0.0,
        workers: Annotated[int, typer.Option(min=1, max=64, help="parallel workers, each with its own display "
                                                                 "and browser")] = 1,
        frames: Annotated[str, typer.Option(help="frames kept on disk: all | ends | none")] = "all",
        scale: Annotated[float, typer.Option(help="Chromium's device scale factor")] = 2.0,
        out_dir: Annotated[Path, typer.Option("--out", help="episodes folder (a re-run adds to it)")]
        = Path("episodes/collected"),
        json_file: JsonOption = None) -> None:
    """Run a policy on MiniWoB++ tasks and keep every episode, scored by the page and labelled step by step."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from deskpilot.evaluation.collect import CollectConfig, Collected, collect_miniwob
    from deskpilot.evaluation.miniwob.tasks import COLLECT_TASKS

    chosen = tuple(t.strip() for t in tasks.split(",") if t.strip()) if tasks else COLLECT_TASKS
    if not chosen:
        raise UsageError("--tasks names no task")
    if episodes < 1:
        raise UsageError("--episodes must be at least 1")
    if frames not in ("all", "ends", "none"):
        raise UsageError("--frames must be all, ends or none")
    config = CollectConfig(chosen, episodes, out_dir, seed=seed, policy=policy, model=model, base_url=base_url,
                           epsilon=epsilon, temperature=temperature, workers=workers, frames=frames, scale=scale)  # type: ignore[arg-type]
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


@collect_app.command("tasks")
def collect_tasks(as_json: Annotated[bool, typer.Option("--json", help="print as JSON")] = False) -> None:
    """The MiniWoB++ tasks collected by default, and those kept out for measuring generalisation."""
    from deskpilot.evaluation.miniwob.tasks import COLLECT_TASKS, HELD_OUT_TASKS

    if as_json:
        print(json.dumps({"collect": list(COLLECT_TASKS), "held_out": list(HELD_OUT_TASKS)}))
        return
    out.print("collect:  " + ",".join(COLLECT_TASKS), markup=False, highlight=False)
    out.print("held out: " + ",".join(HELD_OUT_TASKS), markup=False, highlight=False)

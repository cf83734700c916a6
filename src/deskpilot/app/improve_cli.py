"""`deskpilot improve`: rounds of collect -> label -> train -> score, starting from a trained planner model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from deskpilot.app.common import JsonOption, err, out, write_json
from deskpilot.core.errors import UsageError


def improve(model: Annotated[str, typer.Option(help="the starting model folder (som-text, trained)")],
            tasks: Annotated[str, typer.Option(help="comma-separated MiniWoB tasks to collect and train on")],
            out_dir: Annotated[Path, typer.Option("--out", help="folder for every round's data, models and "
                                                            "scores (a re-run resumes)")],
            rounds: Annotated[int, typer.Option(min=1, help="rounds after the start")] = 2,
            method: Annotated[str, typer.Option(help="kto | grpo | sft")] = "kto",
            episodes_per_round: Annotated[int, typer.Option(min=1, help="episodes per task and round")] = 20,
            workers: Annotated[int, typer.Option(min=1, max=64, help="parallel collection workers")] = 1,
            eval_tasks: Annotated[Optional[str], typer.Option(help="tasks to score (default: --tasks)")] = None,
            eval_episodes: Annotated[int, typer.Option(min=1, help="held-out episodes per task and round")] = 5,
            eval_seed: Annotated[int, typer.Option(help="first held-out seed (never collected)")] = 1000,
            seed: Annotated[int, typer.Option(help="first collection seed")] = 10_000,
            temperature: Annotated[float, typer.Option(min=0.0, max=2.0, help="sampling while collecting")] = 0.7,
            epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="share of random steps while "
                                                                          "collecting")] = 0.05,
            full: Annotated[bool, typer.Option("--full", help="train all weights (else a LoRA adapter)")] = False,
            max_steps: Annotated[Optional[int], typer.Option(help="optimizer steps per round")] = None,
            config: Annotated[Optional[Path], typer.Option(help="training settings (JSON/YAML), as for "
                                                                "`train`")] = None,
            label: Annotated[str, typer.Option(help="env+heuristic | rollout (also name the step that lost each "
                                                    "failed episode, from continuations) | branch (play the "
                                                    "model's other answers on each screen of a failed "
                                                    "episode)")] = "env+heuristic",
            rollouts: Annotated[int, typer.Option(min=1, help="continuations per prefix, with --label "
                                                              "rollout")] = 2,
            answers: Annotated[int, typer.Option(min=2, help="answers played out per screen, with --label "
                                                             "branch")] = 3,
            replay: Annotated[Optional[list[Path]], typer.Option(help="a folder of earlier episodes every round "
                                                                     "also trains on (repeatable)")] = None,
            focus: Annotated[int, typer.Option(min=0, help="more episodes per round for each task the round's "
                                                           "collection both solved and failed")] = 0,
            json_file: JsonOption = None) -> None:
    """Improve a planner model in rounds: collect with it, label every step, train, score on held-out seeds."""
    from deskpilot.evaluation.rounds import PLOT_FILE, ROUNDS_FILE, Rounds, RoundsConfig, best_round

    chosen = tuple(t.strip() for t in tasks.split(",") if t.strip())
    if not chosen:
        raise UsageError("--tasks names no task")
    scored = tuple(t.strip() for t in eval_tasks.split(",") if t.strip()) if eval_tasks else ()
    settings = RoundsConfig(model, chosen, rounds, out_dir, method=method, episodes_per_round=episodes_per_round,
                            workers=workers, eval_tasks=scored, eval_episodes=eval_episodes, eval_seed=eval_seed,
                            seed=seed, temperature=temperature, epsilon=epsilon, lora=not full,
                            max_steps=max_steps, train_config=config, label=label, rollouts=rollouts, answers=answers,
                            replay=tuple(replay or ()), focus=focus)
    runner = Rounds(settings, on_stage=lambda number, stage: err.print(f"round {number}: {stage}", style="dim",
                                                                       markup=False))
    records = runner.run()
    table = Table("round", "collected", "labels good/bad/unknown", "trained", "held-out success (95 % interval)",
                  "vs round 0 (same episodes)", title=f"deskpilot improve ({method})")
    for record in records:
        labels = record.collected.get("labels", {})
        table.add_row(str(record.round),
                      f"{record.collected['episodes']} episodes, {record.collected['steps']} steps, success "
                      f"{record.collected['success_rate']:.2f}" + _focused(record.collected) if record.collected
                      else "-",
                      "/".join(str(labels.get(k, 0)) for k in ("good", "bad", "unknown")) if labels else "-",
                      _trained(record.trained),
                      f"{record.mean_success:.3f} ({record.interval[0]:.2f}-{record.interval[1]:.2f})",
                      _versus(record.versus_start))
    out.print(table)
    best = best_round(records)
    why = "the start: no round won significantly more of the held-out episodes than it lost" if best.round == 0 \
        else f"round {best.round}"
    out.print(f"rounds: {out_dir / ROUNDS_FILE}, plot: {out_dir / PLOT_FILE}, best model: {best.model} ({why})",
              markup=False, highlight=False)
    write_json(json_file, json.loads((out_dir / ROUNDS_FILE).read_text()))


def _versus(versus: dict) -> str:
    if not versus:
        return "-"
    verdict = "better" if versus["better"] else "not better"
    return f"+{versus['won']} / -{versus['lost']} of {versus['episodes']}, p={versus['p']:.2f}: {verdict}"


def _focused(collected: dict) -> str:
    focused = collected.get("focused")
    return f" (focus: {', '.join(focused)})" if focused else ""


def _trained(trained: dict) -> str:
    if not trained:
        return "-"
    if "skipped" in trained:
        return "skipped: " + str(trained["skipped"])[:60]
    loss = trained.get("loss")
    return f"{trained['steps']} steps" + (f", loss {loss:.3f}" if isinstance(loss, (int, float)) else "")

"""`deskpilot improve`: rounds of collect -> label -> train -> score, starting from a trained planner model."""

from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from deskpilot.app.common import JsonOption, err, out, write_json
from deskpilot.evaluation.rounds import RoundsConfig

from .job_options import job_command


def run_rounds(settings: RoundsConfig, json_file: Path | None = None) -> None:
    """Improve a planner model in rounds: collect with it, label every step, train, score on held-out seeds."""
    from deskpilot.evaluation.rounds import PLOT_FILE, ROUNDS_FILE, Rounds, best_round

    method, out_dir = settings.method, settings.out
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


improve = job_command(RoundsConfig, run_rounds, run_rounds.__doc__ or "", extra={"json_file": (JsonOption, None)})

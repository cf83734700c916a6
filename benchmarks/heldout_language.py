"""Understanding measured where it matters: instructions in everyday words, on apps and forms no training sample
used. Two held-out sets, written before the training data existed:

- the bundled demo app driven by benchmarks/heldout/demo_app.json (30 instructions, each with the app state that
  must hold at the end: any other change is a stray action);
- synthetic forms of the held-out themes (words no training form uses) in Qt, Tk, GTK and Chromium, the task said
  in a paraphrase (`deskpilot eval forms --held-out --wording paraphrase`);
- with --desktop, the desktop-apps suite driven by benchmarks/heldout/desktop_suite.json (32 of its tasks in other
  words; each task's checker reads the application's own output: no stray count there);
  `--desktop-instructions benchmarks/heldout/desktop_suite_2.json` runs the second set (38, written for round 15),
  `desktop_suite_3.json` the third (40) and `desktop_suite_4.json` the fourth (40), each written during round 15
  before its first run.

Each planner runs the same instructions; per planner: done, stray, honest failure (failed / asked the user /
refused), false success, with Wilson intervals, and paired comparisons (exact sign test on the discordant pairs).

    python benchmarks/heldout_language.py --planner offline --planner "auto:MODEL" --planner learned \
        [--forms 10] [--desktop [--desktop-instructions FILE]] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.evaluation.stats import paired, wilson

HERE = Path(__file__).parent
INSTRUCTIONS = HERE / "heldout" / "demo_app.json"
DESKTOP_INSTRUCTIONS = HERE / "heldout" / "desktop_suite.json"
# The demo app as it opens: a change to any of these that an instruction did not ask for is a stray action.
START = {"full_name": "", "email": "", "password": "", "colour": "Red", "remember_me": False, "newsletter": False,
         "size": None, "selected_file": None, "saved": 0, "opened": [], "status": "Ready", "files": 41}
HONEST = ("failed", "needs_user", "refused", "error", "max_steps")


def planner_args(spec: str) -> list[str]:
    """`offline`, `learned`, `auto` (with the shipped language planner), or `auto:MODEL` / `transformers:MODEL` as
    command-line options."""
    name, _, model = spec.partition(":")
    args = ["--planner", name]
    if model:
        args += ["--model", model, "--mode", "som-text"] if name == "transformers" else ["--model", model]
    return args


def verdict(outcome: str, state: dict[str, Any], expect: dict[str, Any]) -> tuple[str, list[str]]:
    held = all(state.get(key) == value for key, value in expect.items())
    strays = [key for key, start in START.items() if key not in expect and state.get(key, start) != start
              and not (key == "status" and state.get(key, "").startswith(("Saved", "OK", "Cancelled")) and
                       ("saved" in expect or expect.get("status")))]
    if strays:
        return "stray", strays
    if held:
        return "done", []
    return ("false success" if outcome == "success" else "honest failure"), []


def demo_app(spec: str, out: Path, limit: int | None) -> dict[str, Any]:
    rows = []
    instructions = json.loads(INSTRUCTIONS.read_text())["instructions"][:limit]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}  # its own screen
    env["DESKPILOT_LANGUAGE_MODEL"] = "shipped"  # `auto` measured with the language planner deskpilot ships
    for number, item in enumerate(instructions):
        folder = out / f"demo-{number:02d}"
        result = subprocess.run([sys.executable, "-m", "deskpilot.app", "run", item["text"], *planner_args(spec),
                                 "--max-steps", "10", "--episodes-dir", str(folder)], capture_output=True,
                                text=True, env=env, timeout=900)
        state_file = folder / "demo-state.json"
        state = json.loads(state_file.read_text()) if state_file.is_file() else dict(START)
        episodes = list_episodes(folder)
        outcome = read_episode(episodes[0]).meta.outcome if episodes else "refused"
        kind, strays = verdict(outcome, state, item["expect"])
        rows.append({"text": item["text"], "outcome": outcome, "verdict": kind, "strays": strays,
                     "exit": result.returncode, "said": (result.stderr.strip().splitlines() or [""])[-1][:200]})
        print(f"{spec:<12} {kind:<15} {outcome:<11} {item['text']}", flush=True)
    return {"rows": rows}


def forms(spec: str, out: Path, count: int, seed: int) -> dict[str, Any]:
    folder = out / "forms"
    subprocess.run([sys.executable, "-m", "deskpilot.app", "eval", "forms", "--held-out", "--wording", "paraphrase",
                    "--episodes", str(count), "--seed", str(seed), *planner_args(spec), "--episodes-dir",
                    str(folder), "--json", str(out / "forms.json")], check=False, timeout=7200,
                   env={**os.environ, "DESKPILOT_LANGUAGE_MODEL": "shipped"})
    return scored_rows(folder)


def desktop(spec: str, out: Path, instructions: Path) -> dict[str, Any]:
    folder = out / "desktop"
    subprocess.run([sys.executable, "-m", "deskpilot.app", "eval", "desktop", "--instructions",
                    str(instructions), *planner_args(spec), "--episodes-dir", str(folder), "--json",
                    str(out / "desktop.json")], check=False, timeout=7200,
                   env={**os.environ, "DESKPILOT_LANGUAGE_MODEL": "shipped"})
    return scored_rows(folder)


def scored_rows(folder: Path) -> dict[str, Any]:
    """A row per episode an environment scored: its task, outcome and verdict (done by the environment's own
    check; a success the environment did not see is a false success)."""
    rows = []
    for directory in list_episodes(folder):
        meta = read_episode(directory).meta
        won = bool(meta.environment and meta.environment.won)
        kind = "done" if won else "false success" if meta.outcome == "success" else "honest failure"
        rows.append({"text": meta.task, "task": meta.environment.task if meta.environment else "", "outcome":
                     meta.outcome, "verdict": kind})
    return {"rows": rows}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    total = len(rows)
    counts = {kind: sum(r["verdict"] == kind for r in rows) for kind in
              ("done", "stray", "honest failure", "false success")}
    return {"total": total, **counts, "done_rate": counts["done"] / total if total else 0.0,
            "interval": wilson(counts["done"], total)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--planner", action="append", required=True, help="offline | learned | auto:MODEL | "
                        "transformers:MODEL (repeat to compare)")
    parser.add_argument("--forms", type=int, default=10, help="held-out forms per toolkit (0: none)")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--demo-limit", type=int, default=None, help="only the first N demo-app instructions")
    parser.add_argument("--desktop", action="store_true", help="also the desktop suite in other words")
    parser.add_argument("--desktop-instructions", type=Path, default=DESKTOP_INSTRUCTIONS,
                        help="the file of instructions --desktop runs (benchmarks/heldout/desktop_suite_2.json: the "
                        "second set)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-heldout-")))
    options = parser.parse_args()
    report: dict[str, Any] = {"planners": {}}
    for spec in options.planner:
        out = options.out / spec.replace("/", "_").replace(":", "-")
        out.mkdir(parents=True, exist_ok=True)
        found = {"demo_app": demo_app(spec, out, options.demo_limit)}
        if options.forms:
            found["forms"] = forms(spec, out, options.forms, options.seed)
        if options.desktop:
            found["desktop"] = desktop(spec, out, options.desktop_instructions)
        report["planners"][spec] = {name: {**part, "summary": summary(part["rows"])} for name, part in found.items()}
        (options.out / "heldout.json").write_text(json.dumps(report, indent=2))
    print(f"\n{'planner':<40} {'set':<9} {'done':>6} {'interval':>15} {'stray':>6} {'honest':>7} {'false+':>7}")
    for spec, parts in report["planners"].items():
        for name, part in parts.items():
            s = part["summary"]
            print(f"{spec[-40:]:<40} {name:<9} {s['done_rate']:>6.3f} [{s['interval'][0]:.2f}, {s['interval'][1]:.2f}]"
                  f" {s['stray']:>6} {s['honest failure']:>7} {s['false success']:>7}  (n={s['total']})")
    specs = list(report["planners"])
    for other in specs[1:]:
        for name in report["planners"][specs[0]]:
            first = {(r.get("task") or r["text"], 0): r["verdict"] == "done"
                     for r in report["planners"][specs[0]][name]["rows"]}
            second = {(r.get("task") or r["text"], 0): r["verdict"] == "done"
                      for r in report["planners"][other][name]["rows"]}
            print(f"{other} vs {specs[0]} on {name}: {paired(first, second).to_dict()}")
    print(f"report: {options.out / 'heldout.json'}")


if __name__ == "__main__":
    main()

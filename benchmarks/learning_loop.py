"""Does step-verified KTO (or GRPO) make the agent better than more SFT? Every arm starts from the same SFT model,
gets the same number of optimizer steps on the same collected episodes, and is scored live from pixels on the same
held-out seeds:

    sft-more   more SFT on the good steps           kto    KTO on the good and bad steps (step-verified)
    grpo       GRPO with the som-text rule rewards   rounds `deskpilot improve` with --method of the best arm

    python benchmarks/learning_loop.py --sft MODEL --data COLLECTED [--tasks a,b] [--episodes 5] [--seed 1000]
        [--steps 300] [--arms sft-more,kto,grpo] [--rounds 0] [--verifiers env] [--out DIR]

Prints one line per arm and task, and per arm its mean success with a 95 % Wilson interval over all episodes, the
difference to `sft-more` (the baseline measured in the same run) and, since every arm plays the same seeds, the
episodes it won and lost against `sft-more` with the exact McNemar p-value. The reports land in --out."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from deskpilot.evaluation.rounds import outcomes
from deskpilot.evaluation.stats import paired, wilson

ARMS = {"sft-more": "sft", "kto": "kto", "grpo": "grpo"}
CONTINUED = {"learning_rate": 2e-4, "warmup_steps": 0, "logging_steps": 10, "save_strategy": "no",
             "per_device_train_batch_size": 4}  # a trained model, trained further: a gentler step than from scratch


def deskpilot(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "deskpilot.app", *args], check=True, stdout=subprocess.DEVNULL)


def score(model: str, name: str, options: argparse.Namespace) -> dict:
    """The arm's live report; one already in --out is kept, so a cut run resumes where it stopped."""
    report = options.out / f"miniwob-{name}.json"
    if report.is_file():
        return json.loads(report.read_text())
    tasks = ["--tasks", options.tasks] if options.tasks else []
    deskpilot("eval", "miniwob", *tasks, "--episodes", str(options.episodes), "--seed", str(options.seed),
              "--planner", "transformers", "--mode", "som-text", "--model", model, "--json", str(report),
              "--episodes-dir", str(options.out / f"episodes-{name}"))
    return json.loads(report.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sft", required=True, help="the SFT model every arm starts from")
    parser.add_argument("--data", type=Path, action="append", required=True, help="collected episodes")
    parser.add_argument("--tasks", default=None, help="MiniWoB tasks to score (default: the standard 19)")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1000, help="first held-out seed (never collected)")
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps of every arm")
    parser.add_argument("--arms", default="sft-more,kto,grpo")
    parser.add_argument("--rounds", type=int, default=0, help="rounds of `improve` with the best arm's method")
    parser.add_argument("--verifiers", default=None, help="only these verifiers' labels count (e.g. env); "
                                                         "default: every verifier's")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-loop-")))
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    config = options.out / "continued.json"
    labels = {"labels": {"verifiers": options.verifiers.split(",")}} if options.verifiers else {}
    config.write_text(json.dumps({**CONTINUED, **labels}))
    data = [arg for folder in options.data for arg in ("--data", str(folder))]
    reports = {"sft": score(options.sft, "sft", options)}
    for arm in options.arms.split(","):
        model = options.out / arm
        if not (model / "config.json").is_file():
            deskpilot("train", ARMS[arm], "--mode", "som-text", "--full", "--model", options.sft, *data, "--out",
                      str(model), "--max-steps", str(options.steps), "--config", str(config))
        reports[arm] = score(str(model), arm, options)
    if options.rounds:
        best = max((arm for arm in reports if arm in ARMS), key=lambda arm: reports[arm]["mean_success_rate"])
        tasks = options.tasks or ",".join(reports["sft"]["tasks"])
        deskpilot("improve", "--model", str(options.out / best), "--tasks", tasks, "--rounds", str(options.rounds),
                  "--method", ARMS[best], "--full", "--max-steps", str(options.steps), "--config", str(config),
                  "--eval-seed", str(options.seed), "--eval-episodes", str(options.episodes),
                  "--out", str(options.out / "rounds"))
        rounds = json.loads((options.out / "rounds" / "rounds.json").read_text())["rounds"]
        for record in rounds:
            print(f"rounds ({ARMS[best]}) round {record['round']}  mean success {record['mean_success']:.3f}")
    base = "sft-more" if "sft-more" in reports else "sft"
    baseline = reports[base]["mean_success_rate"]
    for arm, report in reports.items():
        for task, figures in report["tasks"].items():
            print(f"{arm:<9} {task:<28} success {figures['success_rate']:.2f} ({figures['episodes']} episodes)")
    for arm, report in reports.items():
        episodes = sum(f["episodes"] for f in report["tasks"].values())
        wins = round(sum(f["success_rate"] * f["episodes"] for f in report["tasks"].values()))
        low, high = wilson(wins, episodes)
        versus = paired(outcomes(options.out / f"episodes-{base}"), outcomes(options.out / f"episodes-{arm}"))
        print(f"arm {arm:<9} mean success {report['mean_success_rate']:.3f} (95% CI of all episodes {low:.2f}-"
              f"{high:.2f}, {episodes} episodes)  vs {base} {report['mean_success_rate'] - baseline:+.3f} "
              f"(same episodes: +{versus.won} / -{versus.lost}, McNemar p={versus.p_value:.2f})")
    print(f"reports and episodes: {options.out}")


if __name__ == "__main__":
    main()

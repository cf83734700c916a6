"""Does step-verified KTO (or GRPO) make the agent better than more SFT? Every arm starts from the same SFT model,
gets the same number of optimizer steps on the same collected episodes, and is scored live from pixels on the same
held-out seeds of (a) the training tasks and (b) tasks never in any training data:

    sft-more   more SFT on the good steps           kto    KTO on the good and bad steps (step-verified)
    grpo       GRPO: rule + environment rewards      rounds `deskpilot improve` with --method of the best arm

    python benchmarks/learning_loop.py --sft MODEL --data COLLECTED [--tasks a,b] [--unseen-tasks c,d]
        [--episodes 5] [--unseen-episodes 5] [--seed 1000] [--workers 2] [--steps 300] [--arms sft-more,kto,grpo]
        [--rounds 0] [--verifiers env] [--kto-beta 0.1] [--grpo-prompts all|contrasted] [--out DIR]

Scoring is `deskpilot collect miniwob --policy model` (greedy, `--workers` Chromiums side by side). Prints one line
per arm, set and task, and per arm and set its mean success with a 95 % Wilson interval over all episodes, the
difference to `sft-more` (the baseline measured in the same run) and, since every arm plays the same seeds, the
episodes it won and lost against `sft-more` with the exact McNemar p-value. The reports land in --out."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from commands import deskpilot

from deskpilot.evaluation.miniwob.tasks import DEFAULT_TASKS
from deskpilot.evaluation.rounds import outcomes
from deskpilot.evaluation.stats import paired, wilson
from deskpilot.evaluation.miniwob.tasks import HELD_OUT_TASKS

ARMS = {"sft-more": "sft", "kto": "kto", "grpo": "grpo"}
CONTINUED = {"learning_rate": 2e-4, "warmup_steps": 0, "logging_steps": 10, "save_strategy": "no",
             "per_device_train_batch_size": 4}  # a trained model, trained further: a gentler step than from scratch
GENERATIONS = 4  # GRPO's answers per prompt; TRL counts its batch in answers, so a step holds 4 prompts as the others'


def score(model: str, name: str, tasks: str, episodes: int, options: argparse.Namespace) -> dict:
    """The arm's live report on one set of tasks; one already in --out is kept, so a cut run resumes."""
    report = options.out / f"miniwob-{name}.json"
    if report.is_file():
        return json.loads(report.read_text())
    deskpilot("collect", "miniwob", "--policy", "model", "--model", model, "--tasks", tasks, "--episodes",
              str(episodes), "--seed", str(options.seed), "--temperature", "0", "--epsilon", "0", "--workers",
              str(options.workers), "--frames", "none", "--out", str(options.out / f"episodes-{name}"), "--json",
              str(report))
    return json.loads(report.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sft", required=True, help="the SFT model every arm starts from")
    parser.add_argument("--data", type=Path, action="append", required=True, help="collected episodes")
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="training tasks to score at new seeds "
                                                                           "(default: the standard 19)")
    parser.add_argument("--unseen-tasks", default=",".join(HELD_OUT_TASKS),
                        help="tasks never in the training data (default: the 12 kept out; '' for none)")
    parser.add_argument("--episodes", type=int, default=5, help="episodes per training task")
    parser.add_argument("--unseen-episodes", type=int, default=5, help="episodes per unseen task")
    parser.add_argument("--seed", type=int, default=1000, help="first held-out seed (never collected)")
    parser.add_argument("--workers", type=int, default=2, help="Chromiums scoring side by side")
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps of every arm")
    parser.add_argument("--arms", default="sft-more,kto,grpo")
    parser.add_argument("--rounds", type=int, default=0, help="rounds of `improve` with the best arm's method")
    parser.add_argument("--verifiers", default=None, help="only these verifiers' labels count (e.g. env); "
                                                         "default: every verifier's")
    parser.add_argument("--kto-beta", type=float, default=None, help="KTO's beta: how far the KTO arm may move from "
                                                                      "the start (higher: less; TRL's default 0.1)")
    parser.add_argument("--grpo-prompts", choices=("all", "contrasted"), default="all",
                        help="the GRPO arm's prompts: all, or only those whose answers the environment scored apart")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-loop-")))
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    config = options.out / "continued.json"
    labels = {"labels": {"verifiers": options.verifiers.split(",")}} if options.verifiers else {}
    config.write_text(json.dumps({**CONTINUED, **labels}))
    configs = {arm: config for arm in ARMS}
    configs["grpo"] = options.out / "continued-grpo.json"
    configs["grpo"].write_text(json.dumps({**CONTINUED, **labels, "num_generations": GENERATIONS,
                                           "per_device_train_batch_size": CONTINUED["per_device_train_batch_size"]
                                           * GENERATIONS, "prompts": options.grpo_prompts}))
    if options.kto_beta is not None:
        configs["kto"] = options.out / "continued-kto.json"
        configs["kto"].write_text(json.dumps({**CONTINUED, **labels, "beta": options.kto_beta}))
    data = [arg for folder in options.data for arg in ("--data", str(folder))]
    sets = {"trained": (options.tasks, options.episodes)}
    if options.unseen_tasks:
        sets["unseen"] = (options.unseen_tasks, options.unseen_episodes)
    models = {"sft": options.sft}
    for arm in options.arms.split(","):
        model = options.out / arm
        if not (model / "config.json").is_file():
            deskpilot("train", ARMS[arm], "--mode", "som-text", "--full", "--model", options.sft, *data, "--out",
                      str(model), "--max-steps", str(options.steps), "--config", str(configs[arm]))
        models[arm] = str(model)
    reports = {(arm, part): score(model, f"{arm}-{part}", tasks, episodes, options)
               for arm, model in models.items() for part, (tasks, episodes) in sets.items()}
    if options.rounds:
        best = max((arm for arm in models if arm in ARMS), key=lambda arm: reports[arm, "trained"]["success_rate"])
        deskpilot("improve", "--model", models[best], "--tasks", options.tasks, "--rounds", str(options.rounds),
                  "--method", ARMS[best], "--full", "--max-steps", str(options.steps), "--config", str(config),
                  "--eval-seed", str(options.seed), "--eval-episodes", str(options.episodes), "--workers",
                  str(options.workers), "--out", str(options.out / "rounds"))
        rounds = json.loads((options.out / "rounds" / "rounds.json").read_text())["rounds"]
        for record in rounds:
            print(f"rounds ({ARMS[best]}) round {record['round']}  mean success {record['mean_success']:.3f}")
    base = "sft-more" if "sft-more" in models else "sft"
    for (arm, part), report in reports.items():
        for task, figures in report["tasks"].items():
            print(f"{arm:<9} {part:<8} {task:<28} success {figures['success_rate']:.2f} ({figures['episodes']} "
                  "episodes)")
    for (arm, part), report in reports.items():
        found = outcomes(options.out / f"episodes-{arm}-{part}")
        low, high = wilson(sum(found.values()), len(found))
        rate = sum(found.values()) / max(1, len(found))
        baseline = outcomes(options.out / f"episodes-{base}-{part}")
        versus = paired(baseline, found)
        print(f"arm {arm:<9} {part:<8} mean success {rate:.3f} (95% CI {low:.2f}-{high:.2f}, {len(found)} "
              f"episodes)  vs {base} {rate - sum(baseline.values()) / max(1, len(baseline)):+.3f} (same episodes: "
              f"+{versus.won} / -{versus.lost}, McNemar p={versus.p_value:.2f})")
    print(f"reports and episodes: {options.out}")


if __name__ == "__main__":
    main()

"""The planner model deskpilot trains itself, measured: its step time (prompt -> action) beside grounding's parse
time, its step accuracy on held-out steps, and its live MiniWoB++ success from pixels beside the offline planner's
on the same tasks and seeds (the standard 19, other collected tasks, and tasks never in its training data).

    python benchmarks/learned_planner.py --model DIR --data HELD_OUT_EPISODES [--tasks a,b] [--episodes 5]
        [--seed 1000] [--repeats 50] [--out DIR] [--live-only]

Prints one line per figure; the JSON reports land in --out."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import tempfile
from pathlib import Path

from commands import deskpilot
from timing import median_ms

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.settings import Settings
from deskpilot.planner.families import FAMILIES
from deskpilot.planner.som_text import ANSWER_TOKENS
from deskpilot.planner.transformers_backend import TransformersBackend
from deskpilot.training.samples import SampleBuilder


def _spin() -> None:
    while True:
        pass


def busy_cpu_speed(model: str, prompts: list, repeats: int) -> None:
    """One answer's median time while every core also runs another busy process (the app being driven, grounding,
    a second collect worker): with torch's own thread count, then with the backend's choice (one thread for a
    small model on CPU)."""
    import torch

    own = TransformersBackend(model, max_new_tokens=ANSWER_TOKENS, threads=torch.get_num_threads())
    chosen = TransformersBackend(model, max_new_tokens=ANSWER_TOKENS)
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(os.cpu_count() or 1)]
    for hog in hogs:
        hog.start()
    try:
        own_ms = median_ms(lambda: own.complete(prompts[0].messages), repeats, warmup=1)
        chosen_ms = median_ms(lambda: chosen.complete(prompts[0].messages), repeats, warmup=1)
    finally:
        for hog in hogs:
            hog.kill()
    print(f"model step beside {len(hogs)} busy processes, {own.threads} threads (torch's own)  median "
          f"{own_ms:7.1f} ms")
    print(f"model step beside {len(hogs)} busy processes, {chosen.threads or own.threads} thread(s) (chosen)  median "
          f"{chosen_ms:7.1f} ms  ratio to torch's own {chosen_ms / own_ms:.3f}")


def step_speed(model: str, data: Path, repeats: int) -> None:
    """The model's median step (one held-out prompt -> its answer) beside grounding's median parse on the same
    episodes (recorded by the agent as they were collected)."""
    samples = [s for s in SampleBuilder(FAMILIES["screen"], mode="som-text").samples([data]) if s.label == "good"]
    backend = TransformersBackend(model, max_new_tokens=ANSWER_TOKENS)
    prompts = iter(samples * (repeats // max(1, len(samples)) + 2))
    model_ms = median_ms(lambda: backend.complete(next(prompts).messages), repeats, warmup=3)
    answers = Settings().model_answers
    ranked_ms = median_ms(lambda: backend.alternatives(next(prompts).messages, answers), repeats, warmup=3)
    # A step's parsing: at decision time, plus what its settle wait parsed ahead of the next step (look-ahead).
    parse = [step.timing["parse_ms"] + step.timing.get("look_ahead_ms", 0.0) for directory in list_episodes(data)
             for step in read_episode(directory).steps if "parse_ms" in step.timing]
    parse_ms = statistics.median(parse) if parse else float("nan")
    print(f"model step (prompt -> action)   median {model_ms:7.1f} ms  ({repeats} prompts, {backend.threads or 'all'} "
          f"CPU thread(s))")
    print(f"model step, {answers} answers (beams) median {ranked_ms:7.1f} ms  ratio to one answer "
          f"{ranked_ms / model_ms:.2f}")
    print(f"grounding parse (same screens, look-ahead included)  median {parse_ms:7.1f} ms  ratio model/parse "
          f"{ranked_ms / parse_ms:.2f}")
    busy_cpu_speed(model, samples, max(3, repeats // 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", type=Path, required=True, help="held-out episodes (never trained on)")
    parser.add_argument("--tasks", default=None, help="MiniWoB tasks to run live (default: the standard 19)")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1000, help="first seed of the live runs (unseen in training)")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-learned-")))
    parser.add_argument("--live-only", action="store_true", help="only the live MiniWoB++ runs (step time and "
                                                                   "held-out steps measured elsewhere)")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    if not options.live_only:
        step_speed(options.model, options.data, options.repeats)
        steps_json = options.out / "steps.json"
        deskpilot("eval", "steps", "--model", options.model, "--data", str(options.data), "--mode", "som-text",
                  "--report", str(steps_json))
        metrics = json.loads(steps_json.read_text())["metrics"]
        print(f"held-out steps: exact {metrics['exact']:.3f}, action type {metrics['action_type']:.3f}, parsed "
              f"{metrics['parsed']:.3f}")
    tasks = ["--tasks", options.tasks] if options.tasks else []
    common = [*tasks, "--episodes", str(options.episodes), "--seed", str(options.seed)]
    reports = {}
    for name, extra in (("offline", []), ("model", ["--planner", "transformers", "--mode", "som-text", "--model",
                                                     options.model])):
        report = options.out / f"miniwob-{name}.json"
        deskpilot("eval", "miniwob", *common, *extra, "--json", str(report), "--episodes-dir",
                  str(options.out / f"episodes-{name}"))
        reports[name] = json.loads(report.read_text())
    offline, model = reports["offline"]["tasks"], reports["model"]["tasks"]
    for task in offline:
        print(f"miniwob {task:<28} offline {offline[task]['success_rate']:.2f}  model {model[task]['success_rate']:.2f}"
              f"  ({offline[task]['episodes']} episodes, seeds {options.seed}+)")
    print(f"miniwob mean success  offline {reports['offline']['mean_success_rate']:.3f}  model "
          f"{reports['model']['mean_success_rate']:.3f}")
    print(f"reports and episodes: {options.out}")


if __name__ == "__main__":
    main()

"""The learned planner on every device torch offers here (CPU, and CUDA where a GPU is present), in each precision:

- answering: one answer's and the 4-beam step's median time on held-out som-text prompts, and how often the
  likeliest answer (and the whole ranked list) is the one float32 on the CPU gives on the same prompt;
- training: the planner fine-tuned whole, as `deskpilot train sft --mode som-text --full` does on a user's episodes
  (same data, seed, steps and learning rate) per device and precision: steps/s, peak memory and the mean loss of
  the last steps, each a ratio to float32 on the CPU. Mixed precision (bf16 autocast over float32 weights, the
  default on a GPU) must end where float32 ends.

    python benchmarks/planner_devices.py --model src/deskpilot/resources/models/planner --data HELD_OUT_EPISODES \
        --train-data EPISODES [--steps 100] [--learning-rate 1e-4] [--repeats 30] [--prompts 200] [--out DIR]

Prints one line per figure; each training run's folder (metrics.csv, deskpilot_training.json) stays in --out."""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import tempfile
from pathlib import Path

from commands import deskpilot
from timing import median_ms

from deskpilot.core.settings import Settings
from deskpilot.planner.families import FAMILIES
from deskpilot.planner.som_text import ANSWER_TOKENS
from deskpilot.planner.transformers_backend import TransformersBackend
from deskpilot.training.samples import SampleBuilder

LAST_STEPS = 10  # the training loss compared is the mean of this many last logged steps


def devices() -> list[tuple[str, str]]:
    """(device, dtype) pairs to measure: float32 on the CPU (the reference), float32 and bfloat16 on CUDA."""
    import torch

    found = [("cpu", "float32")]
    if torch.cuda.is_available():
        found += [("cuda", "float32"), ("cuda", "bfloat16")]
    return found


def answering(model: str, data: Path, prompts: int, repeats: int) -> None:
    samples = [s for s in SampleBuilder(FAMILIES["screen"], mode="som-text").samples([data]) if s.label == "good"]
    messages = [s.messages for s in samples[:prompts]]
    count = Settings().model_answers
    reference: list[list[str]] | None = None
    reference_ms = 0.0
    for device, dtype in devices():
        backend = TransformersBackend(model, max_new_tokens=ANSWER_TOKENS, device=device, dtype=dtype)
        ranked = [backend.alternatives(m, count) for m in messages]
        cycle = iter(messages * (repeats // max(1, len(messages)) + 2))
        one_ms = median_ms(lambda: backend.complete(next(cycle)), repeats, warmup=3)
        beams_ms = median_ms(lambda: backend.alternatives(next(cycle), count), repeats, warmup=3)
        name = f"{device} {dtype}"
        if reference is None:
            reference, reference_ms = ranked, one_ms
            print(f"answer {name:<15} median {one_ms:7.1f} ms; {count} beams {beams_ms:7.1f} ms  "
                  f"({len(ranked)} prompts)")
            continue
        same_first = sum(a[:1] == b[:1] for a, b in zip(ranked, reference)) / len(ranked)
        same_list = sum(a == b for a, b in zip(ranked, reference)) / len(ranked)
        print(f"answer {name:<15} median {one_ms:7.1f} ms; {count} beams {beams_ms:7.1f} ms  ratio to cpu float32 "
              f"{one_ms / reference_ms:.2f}; likeliest answer as cpu float32's {same_first:.3f}, whole ranking "
              f"{same_list:.3f}")


def training(model: str, data: Path, steps: int, learning_rate: float, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    reference: tuple[float, float] | None = None
    for device, dtype in devices():
        name = f"{device} {dtype}" + (" (mixed: float32 weights, bf16 autocast)" if dtype == "bfloat16" else "")
        folder = out / f"sft-{device}-{dtype}"
        config = out / f"{device}-{dtype}.yaml"
        config.write_text(f"bf16: {'true' if dtype == 'bfloat16' else 'false'}\nlearning_rate: {learning_rate}\n")
        deskpilot("train", "sft", "--mode", "som-text", "--full", "--model", model, "--data", str(data), "--out",
                  str(folder), "--max-steps", str(steps), "--config", str(config),
                  env={"CUDA_VISIBLE_DEVICES": ""} if device == "cpu" else None)
        result = json.loads((folder / "deskpilot_training.json").read_text())
        rows = csv.DictReader((folder / "metrics.csv").open())
        losses = [float(row["value"]) for row in rows if row["name"] == "loss"]
        loss = statistics.mean(losses[-LAST_STEPS:])
        speed = result["steps_per_second"]
        line = (f"train sft {name:<15} {speed:6.2f} steps/s, peak {result['peak_memory_mb']:7.0f} MB, loss of the "
                f"last {LAST_STEPS} steps {loss:.4f}")
        if reference is None:
            reference = (speed, loss)
            print(line)
        else:
            print(f"{line}  ratio to cpu float32: speed {speed / reference[0]:.2f}, loss {loss / reference[1]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="the learned planner's folder")
    parser.add_argument("--data", type=Path, required=True, help="held-out episodes: the prompts answered")
    parser.add_argument("--train-data", type=Path, required=True, help="episodes the short training runs use")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--learning-rate", type=float, default=1e-4, help="the shipped model's fine-tuning rate")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-devices-")))
    args = parser.parse_args()
    answering(args.model, args.data, args.prompts, args.repeats)
    training(args.model, args.train_data, args.steps, args.learning_rate, args.out)


if __name__ == "__main__":
    main()

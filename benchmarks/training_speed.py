"""Training throughput and peak memory per method (sft, kto, grpo; LoRA), on episodes of 1280x800 screenshots,
for a tiny VLM (the tests' ~100k-parameter LLaVA, 28 px images) and a small one (~4M parameters, 224 px images,
257 image tokens per screenshot). Each run is a fresh process so its peak memory is its own; prints the median
steps/s over repeats and each method's ratio to SFT on the same model.

    python benchmarks/training_speed.py [--steps 8] [--repeats 3] [--sizes tiny,small]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the offline model builder lives there

SIZES = {"tiny": {"image_size": 28, "hidden": 32, "layers": 1}, "small": {"image_size": 224, "hidden": 256,
                                                                         "layers": 4}}


def write_episodes(root: Path) -> None:
    """Two form-filling episodes on drawn 1280x800 screens: one labelled good throughout, one bad."""
    from deskpilot.core.actions import Action, ActionKind
    from deskpilot.core.episode import EpisodeWriter, Step
    from deskpilot.core.geometry import Box, Monitor, Point
    from deskpilot.core.observation import Element

    monitor = Monitor(0, 0, 1280, 800)
    for label in ("good", "bad"):
        writer = EpisodeWriter.create(root, 'type "Ada Lovelace" into Full name then click "Save"')
        actions = [Action(kind=ActionKind.CLICK, point=Point(365, 139)), Action(kind=ActionKind.TYPE,
                   text="Ada Lovelace"), Action(kind=ActionKind.CLICK, point=Point(154, 561))] * 2
        for index, action in enumerate(actions):
            frame = np.full((800, 1280, 3), 235, np.uint8)
            cv2.rectangle(frame, (300, 125), (600, 155), (255, 255, 255), -1)
            cv2.putText(frame, f"Full name {index}", (120, 147), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1)
            cv2.rectangle(frame, (110, 545), (200, 578), (60, 120, 220), -1)
            name = writer.add_frame(frame)
            writer.append(Step(index, action, name, name, thought=f"step {index + 1}", monitor=monitor,
                               elements=[Element(Box(300, 125, 600, 155), "input"),
                                         Element(Box(110, 545, 200, 578), "button", "Save")],
                               verification={"label": label, "reason": "benchmark", "score": 1.0,
                                             "verifier": "human"}))
        writer.finish("success")


def one_run(method: str, model: str, data: str, out: str, steps: int) -> None:
    """Child process: train once and print `steps_per_second peak_memory_mb` as the last line."""
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    from deskpilot.training.jobs import TrainRequest
    from deskpilot.training.trainers import train

    config = Path(out).with_suffix(".yaml")
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("save_strategy: 'no'\nreport_to: none\n"
                      + ("max_completion_length: 32\n" if method == "grpo" else ""))
    result = train(TrainRequest(method, model, [Path(data)], Path(out), max_steps=steps, config=config,
                                family="qwen2.5-vl"))
    print(result.steps_per_second, result.peak_memory_mb)


def measure(method: str, model: Path, data: Path, work: Path, steps: int) -> tuple[float, float]:
    done = subprocess.run([sys.executable, __file__, "--child", method, str(model), str(data), str(work / method),
                           str(steps)], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{method} run failed: {done.stderr.strip().splitlines()[-1]}")
    speed, memory = done.stdout.strip().splitlines()[-1].split()
    return float(speed), float(memory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default="tiny,small")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, model, data, out, steps = args.child
        one_run(method, model, data, out, int(steps))
        return
    from tiny_models import build_tiny_llava

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_episodes(root / "episodes")
        for size in args.sizes.split(","):
            model = build_tiny_llava(root / f"model-{size}", **SIZES[size])
            import torch  # noqa: F401 - after the build, for the parameter count
            from safetensors import safe_open

            with safe_open(str(model / "model.safetensors"), "np") as weights:
                parameters = sum(np.prod(weights.get_slice(k).get_shape()) for k in weights.keys())
            baseline = None
            for method in ("sft", "kto", "grpo"):
                runs = [measure(method, model, root / "episodes", root / f"{size}-{i}", args.steps)
                        for i in range(args.repeats)]
                speed = statistics.median(r[0] for r in runs)
                memory = max(r[1] for r in runs)
                baseline = baseline or speed
                print(f"{size} ({parameters / 1e6:.2f}M params) {method:<4} LoRA batch 4: {speed:.2f} steps/s "
                      f"(x{speed / baseline:.2f} of sft), peak memory {memory:.0f} MB", flush=True)


if __name__ == "__main__":
    main()

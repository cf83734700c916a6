"""Collection on local worker processes against Ray actors, in one run: the same tasks, seeds and worker count
through `deskpilot collect miniwob` and `deskpilot collect miniwob --ray auto` (a local Ray instance: start-up
included), each into its own folder; prints episodes, steps, seconds and steps per second of each, the ratio, and
whether both collected the same episodes (task, seed, reward, outcome). Starts its own Xvfb.

    python benchmarks/ray_collect.py [--tasks click-button,focus-text,enter-text] [--episodes 5] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from deskpilot.core.display import VirtualDisplay
from deskpilot.core.episode import list_episodes, read_episode


def collect(tasks: str, episodes: int, workers: int, out: Path, ray: bool) -> dict:
    report = out.with_suffix(".json")
    command = [sys.executable, "-m", "deskpilot.app", "collect", "miniwob", "--tasks", tasks, "--episodes",
               str(episodes), "--workers", str(workers), "--frames", "none", "--seed", "700", "--out", str(out),
               "--json", str(report), *(["--ray", "auto"] if ray else [])]
    subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(report.read_text())


def outcomes(folder: Path) -> list[tuple]:
    return sorted((m.environment.task, m.environment.seed, m.environment.reward, m.outcome)
                  for m in (read_episode(path).meta for path in list_episodes(folder)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="click-button,focus-text,enter-text")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, VirtualDisplay() as display:
        display.activate()
        root = Path(tmp)
        local = collect(args.tasks, args.episodes, args.workers, root / "local", ray=False)
        on_ray = collect(args.tasks, args.episodes, args.workers, root / "ray", ray=True)
        for name, report in (("local processes", local), ("Ray actors", on_ray)):
            print(f"{name:<16} {report['episodes']} episodes, {report['steps']} steps in {report['seconds']:.1f} s: "
                  f"{report['steps_per_second']:.3f} steps/s, success {report['success_rate']:.3f}", flush=True)
        ratio = on_ray["steps_per_second"] / local["steps_per_second"] if local["steps_per_second"] else 0.0
        same = outcomes(root / "local") == outcomes(root / "ray")
        print(f"Ray / local throughput {ratio:.2f}x; same episodes (task, seed, reward, outcome): {same}")


if __name__ == "__main__":
    main()

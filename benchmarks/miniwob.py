"""The full MiniWoB++ run: the agent (offline planner + bundled grounding by default) on the 19 standard tasks from
pixels, then grounding alone on the same kind of screens. Prints one line per task and the means; the JSON reports
land in --out.

    python benchmarks/miniwob.py [--episodes 20] [--grounding-episodes 10] [--scale 2] [--out DIR] [--planner P]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from commands import deskpilot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--grounding-episodes", type=int, default=10)
    parser.add_argument("--scale", default="2")
    parser.add_argument("--planner", default="offline")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-miniwob-")))
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    agent_json, grounding_json = options.out / "miniwob.json", options.out / "grounding.json"
    deskpilot("eval", "miniwob", "--episodes", str(options.episodes), "--scale", options.scale,
              "--planner", options.planner, "--json", str(agent_json), "--episodes-dir", str(options.out / "episodes"))
    deskpilot("eval", "grounding-miniwob", "--episodes", str(options.grounding_episodes), "--scale", options.scale,
              "--json", str(grounding_json))
    agent, grounding = json.loads(agent_json.read_text()), json.loads(grounding_json.read_text())
    for task, row in agent["tasks"].items():
        print(f"miniwob {task:<24} success {row['success_rate']:.2f}  mean reward {row['mean_reward']:+.2f}  "
              f"{row['seconds_per_step']:.2f} s/step  ({row['episodes']} episodes)")
    print(f"miniwob mean success rate {agent['mean_success_rate']:.3f} (scale {agent['scale']:g}, "
          f"planner {options.planner})")
    print(f"grounding parse recall {grounding['parse_recall']:.3f}, clickable recall "
          f"{grounding['clickable_recall']:.3f}, locate accuracy {grounding['locate_accuracy']:.3f} "
          f"({grounding['screens']} screens)")
    print(f"reports and episodes: {options.out}")


if __name__ == "__main__":
    main()

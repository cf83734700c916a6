"""The full desktop-apps suite: the agent (offline planner + bundled grounding by default) on every task of
`deskpilot eval desktop`, at scale 1 and at scale 2 (a desktop twice as large, the toolkits at scale factor 2).
Prints one line per task and per application at each scale, then the means; the JSON reports and the episodes land
in --out.

    python benchmarks/desktop_suite.py [--repeats 1] [--scales 1,2] [--planner offline] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--scales", default="1,2")
    parser.add_argument("--planner", default="offline")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-desktop-")))
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    reports = {}
    for scale in options.scales.split(","):
        report = options.out / f"desktop-scale{scale}.json"
        subprocess.run([sys.executable, "-m", "deskpilot.app", "eval", "desktop", "--repeats", str(options.repeats),
                        "--scale", scale, "--planner", options.planner, "--json", str(report),
                        "--episodes-dir", str(options.out / f"episodes-scale{scale}")],
                       check=True, stdout=subprocess.DEVNULL)
        reports[scale] = json.loads(report.read_text())
    for scale, report in reports.items():
        for task, row in report["tasks"].items():
            print(f"desktop scale {scale} {task:<28} {row['app']:<11} success {row['success_rate']:.2f}  "
                  f"{row['mean_steps']:.1f} steps  {row['seconds_per_step']:.2f} s/step")
        for app, rate in report["apps"].items():
            print(f"desktop scale {scale} app {app:<11} success {rate:.2f}")
    for scale, report in reports.items():
        print(f"desktop scale {scale} mean success rate {report['mean_success_rate']:.3f} "
              f"({len(report['tasks'])} tasks x {options.repeats})")


if __name__ == "__main__":
    main()

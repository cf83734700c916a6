"""The full desktop-apps suite: the agent (offline planner + bundled grounding by default) on every task of
`deskpilot eval desktop`, at each scale asked for (1, 1.25, 1.5, 2: a desktop as much larger, the toolkits' scale
factors set to match) and, with --second-monitor, at scale 1 on two monitors with the apps on the second, left of
the primary. Prints one line per task and per application for each run, then the means; the JSON reports and the
episodes land in --out.

    python benchmarks/desktop_suite.py [--repeats 1] [--scales 1,2] [--second-monitor] [--planner offline] [--out DIR]
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
    parser.add_argument("--second-monitor", action="store_true")
    parser.add_argument("--planner", default="offline")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="deskpilot-desktop-")))
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    runs = {f"scale {scale}": ["--scale", scale] for scale in options.scales.split(",")}
    if options.second_monitor:
        runs["second monitor"] = ["--monitors", "two", "--apps-on", "second"]
    reports = {}
    for name, layout in runs.items():
        slug = name.replace(" ", "-")
        report = options.out / f"desktop-{slug}.json"
        subprocess.run([sys.executable, "-m", "deskpilot.app", "eval", "desktop", "--repeats", str(options.repeats),
                        *layout, "--planner", options.planner, "--json", str(report),
                        "--episodes-dir", str(options.out / f"episodes-{slug}")],
                       check=True, stdout=subprocess.DEVNULL)
        reports[name] = json.loads(report.read_text())
    for name, report in reports.items():
        for task, row in report["tasks"].items():
            print(f"desktop {name} {task:<28} {row['app']:<11} success {row['success_rate']:.2f}  "
                  f"{row['mean_steps']:.1f} steps  {row['seconds_per_step']:.2f} s/step")
        for app, rate in report["apps"].items():
            print(f"desktop {name} app {app:<11} success {rate:.2f}")
    for name, report in reports.items():
        print(f"desktop {name} mean success rate {report['mean_success_rate']:.3f} "
              f"({len(report['tasks'])} tasks x {options.repeats})")


if __name__ == "__main__":
    main()

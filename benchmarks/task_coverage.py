"""How the goal check's task-coverage rule (planner/task_coverage.py) judges runs already recorded, against their
true verdicts: for MiniWoB++ reports (`deskpilot eval miniwob --json`, whose failures name their episodes) and
held-out form reports (`benchmarks/heldout_language.py`'s heldout.json, episodes in time order beside it), each run
is counted by its verdict, whether the agent claimed it, and whether the rule finds a concrete part of its task that
no evidence covers. A claimed true success the rule marks is a false failure it would add; a claimed failure it
marks is a false success it would catch. The evidence is read back from each episode: what the check held, the
texts typed, the texts under each click, the targets named.

    python benchmarks/task_coverage.py REPORT.json [REPORT.json ...]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from deskpilot.core.observation import Element
from deskpilot.planner.screen_values import read_from_screen, takes_screen_values
from deskpilot.planner.task_coverage import uncovered


def read_run(folder: Path) -> tuple[str, list[str], list[str], dict]:
    """An episode's task (with the values it takes from the first screen written in, as the agent read it), the
    evidence its steps give, the texts its screens showed (less the task's own words), and its episode.json."""
    episode = json.loads((folder / "episode.json").read_text())
    steps = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    task = episode["task"]
    if steps and takes_screen_values(task):
        read = read_from_screen(task, [Element.from_dict(e) for e in steps[0].get("seen", [])])
        task = read.task if read is not None else task
    evidence = list((episode.get("goal_check") or {}).get("held", []))
    shown = []
    for step in steps:
        action, seen = step["action"], step.get("seen", [])
        shown += [e["text"] for e in seen if e.get("text") and " ".join(e["text"].lower().split())
                  not in " ".join(task.lower().split())]
        if action.get("kind") == "type" and action.get("text"):
            evidence.append(action["text"])
        if action.get("point") and action.get("kind") in ("click", "double_click"):
            x, y = action["point"]
            evidence += [e["text"] for e in seen if e.get("text") and e["box"][0] <= x <= e["box"][2]
                         and e["box"][1] <= y <= e["box"][3]]
        if action.get("target"):
            evidence.append(action["target"])
    return task, evidence, shown, episode


def runs(report: Path) -> list[tuple[str, str, Path]]:
    """(suite, true verdict, episode folder) for every run a report holds."""
    data = json.loads(report.read_text())
    if "tasks" in data:  # a MiniWoB++ report
        failed = {f["episode"] for task in data["tasks"].values() for f in task.get("failures", [])}
        folder = Path(data.get("episodes_dir") or "")
        return [("miniwob", "fail" if str(ep) in failed else "done", ep) for ep in sorted(folder.glob("*"))
                if (ep / "episode.json").exists()]
    rows = data["planners"]["auto"]["forms"]["rows"]
    episodes = sorted((report.parent / "auto" / "forms").glob("*"))
    return [("forms", row["verdict"], ep) for row, ep in zip(rows, episodes)] if len(rows) == len(episodes) else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    options = parser.parse_args()
    counts: Counter[tuple[str, str, str, str]] = Counter()
    for report in options.reports:
        for suite, verdict, folder in runs(report):
            task, evidence, shown, episode = read_run(folder)
            check = episode.get("goal_check") or {}
            claimed = episode["outcome"] == "success" or (episode["outcome"] == "ended" and check.get("passed"))
            part = uncovered(task, evidence, shown)
            key = (suite, verdict, "claimed" if claimed else "not claimed", "part uncovered" if part else "covered")
            counts[key] += 1
            if part and claimed and verdict == "done":
                print(f"would fail a true success: {task!r} ({part!r}) {folder}")
    for key, number in sorted(counts.items()):
        print(f"{' / '.join(key):<55} {number:>5}")


if __name__ == "__main__":
    main()

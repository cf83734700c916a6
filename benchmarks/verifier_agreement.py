"""How far each step verifier agrees with the environment's own verdicts, on collected episodes (`deskpilot collect
miniwob` keeps every verifier's label under `verification.checks`). Only steps the environment is sure about
count: every step of a successful episode (good) and the step after which the page ended a failed one (bad).

    python benchmarks/verifier_agreement.py --data EPISODES [--data MORE]

Prints one line per verifier: steps compared, agreement, and precision / recall of its `bad` (a verifier that
says `unknown` is counted as not saying `bad`)."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.errors import DeskpilotError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", required=True, help="collected episodes")
    options = parser.parse_args()
    pairs: dict[str, Counter[tuple[str, str]]] = {}
    for folder in options.data:
        for directory in list_episodes(folder):
            try:
                steps = read_episode(directory).steps
            except DeskpilotError:
                continue
            for step in steps:
                checks = (step.verification.checks if step.verification else None) or {}
                truth = checks.get("env")
                if truth not in ("good", "bad"):
                    continue
                for verifier, label in checks.items():
                    if verifier != "env":
                        pairs.setdefault(verifier, Counter())[(truth, label)] += 1
    if not pairs:
        raise SystemExit("no step carries both the environment's verdict and another verifier's: collect with "
                         "`deskpilot collect miniwob` first")
    for verifier, counts in sorted(pairs.items()):
        total = sum(counts.values())
        agree = counts[("good", "good")] + counts[("bad", "bad")]
        said_bad = sum(n for (_, label), n in counts.items() if label == "bad")
        truly_bad = sum(n for (truth, _), n in counts.items() if truth == "bad")
        precision = counts[("bad", "bad")] / said_bad if said_bad else float("nan")
        recall = counts[("bad", "bad")] / truly_bad if truly_bad else float("nan")
        print(f"verifier {verifier:<10} vs env: {total} steps ({truly_bad} bad), agreement {agree / total:.3f}, "
              f"bad precision {precision:.3f}, bad recall {recall:.3f}")


if __name__ == "__main__":
    main()

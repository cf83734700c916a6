"""`deskpilot label`: verify the steps of episodes (heuristic from the frames, or a person's label) and write the
verdicts into them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import out
from deskpilot.core.episode import read_episode, rewrite_steps
from deskpilot.core.errors import DeskpilotError

VERIFIERS = ("heuristic", "human")


def label(episodes: Annotated[list[Path], typer.Argument(help="episode folders")],
          verifier: Annotated[str, typer.Option(help=f"one of: {', '.join(VERIFIERS)}")] = "heuristic",
          set_label: Annotated[Optional[str], typer.Option("--set", help="good | bad (with --verifier human, "
                                                           "the default when given)")] = None,
          step: Annotated[Optional[int], typer.Option(help="only this step (1-based)")] = None) -> None:
    """Label each step good / bad / unknown and store the verdict in the episode."""
    from deskpilot.training.verify import HeuristicVerifier, human_verdict

    if set_label is not None:
        verifier = "human"
        if set_label not in ("good", "bad"):
            raise DeskpilotError(f"--set takes good or bad, not {set_label!r}")
    if verifier not in VERIFIERS:
        raise DeskpilotError(f"unknown verifier {verifier!r}; available: {', '.join(VERIFIERS)}")
    if verifier == "human" and set_label is None:
        raise DeskpilotError("the human verifier needs --set good|bad")
    heuristic = HeuristicVerifier() if verifier == "heuristic" else None
    totals: Counter[str] = Counter()
    for path in episodes:
        episode = read_episode(path)
        if step is not None and not 1 <= step <= len(episode.steps):
            raise DeskpilotError(f"{path} has no step {step} (it has {len(episode.steps)})")
        verdicts = (heuristic.judge_episode(episode) if heuristic
                    else [human_verdict(set_label) for _ in episode.steps])  # type: ignore[arg-type]
        steps = list(episode.steps)
        for index, verdict in enumerate(verdicts):
            if verdict is None or (step is not None and index != step - 1):
                continue
            steps[index].verification = verdict.as_dict()
            totals[verdict.label] += 1
            out.print(f"{episode.meta.id} {index + 1:>3}. {steps[index].action.describe()}: {verdict.label} "
                      f"({verdict.reason})", markup=False, highlight=False)
        rewrite_steps(episode, steps)
    out.print(", ".join(f"{n} {name}" for name, n in sorted(totals.items())) or "nothing to label", markup=False)

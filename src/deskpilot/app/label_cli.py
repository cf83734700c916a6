"""`deskpilot label`: verify the steps of episodes (heuristic from the frames, a vision-language judge, the
environment's reward, both as collection combines them, continuations of a failed episode's prefixes, the model's
other answers on its screens played out, or a person's label) and write the verdicts into them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from deskpilot.app.common import err, out
from deskpilot.core.episode import label_steps, read_episode
from deskpilot.core.errors import UsageError
from deskpilot.core.verdict import Label, Verdict
from deskpilot.evaluation import labellers  # noqa: F401 - offers rollout and branch to the registry
from deskpilot.labelling.registry import Verifier, VerifierOptions, make, names

if TYPE_CHECKING:
    from deskpilot.core.episode import Episode


def label(episodes: Annotated[list[Path], typer.Argument(help="episode folders")],
          verifier: Annotated[str, typer.Option(help=f"one of: {', '.join(names())}")] = "heuristic",
          set_label: Annotated[Optional[str], typer.Option("--set", help="good | bad (with --verifier human, "
                                                           "the default when given)")] = None,
          step: Annotated[Optional[int], typer.Option(help="only this step (1-based)")] = None,
          planner: Annotated[str, typer.Option(help="judge model backend: openai | transformers")] = "openai",
          model: Annotated[Optional[str], typer.Option(help="judge model, or the policy of --verifier rollout or "
                                                            "branch: a name at --base-url, or a folder")] = None,
          base_url: Annotated[Optional[str], typer.Option(help="the model's endpoint (OpenAI-compatible)")] = None,
          rollouts: Annotated[int, typer.Option(min=1, help="rollout: continuations per prefix of a failed "
                                                            "episode")] = 4,
          answers: Annotated[int, typer.Option(min=2, help="branch: the model's likeliest answers played out on "
                                                           "each screen of a failed episode")] = 3,
          temperature: Annotated[Optional[float], typer.Option(min=0.0, max=2.0, help="rollout, branch: the "
                                                               "policy's sampling temperature (default 0.7 for "
                                                               "rollout, 0 (greedy) for branch)")] = None,
          workers: Annotated[int, typer.Option(min=1, max=64, help="rollout, branch: parallel workers")] = 1,
          ray: Annotated[Optional[str], typer.Option(help="rollout, branch: the workers as Ray actors: auto or a "
                                                          "cluster's address (as for collect miniwob --ray)")] = None,
          rollouts_dir: Annotated[Optional[Path], typer.Option(help="rollout, branch: folder of the continuations "
                                                                    "(a re-run resumes; default: beside the "
                                                                    "episodes' folder, named ...-rollouts or "
                                                                    "...-branches)")] = None,
          force: Annotated[bool, typer.Option("--force", help="replace labels a person set, too")] = False) -> None:
    """Label each step good / bad / unknown and store the verdict in the episode (merged with labels written
    meanwhile; a person's label is kept unless --force). `rollout` finds the step that lost a failed MiniWoB++
    episode by playing its page again from each prefix of its steps with a model (see evaluation/rollouts.py);
    `branch` plays each of the model's likeliest answers on each of its screens (evaluation/branches.py)."""
    if set_label is not None:
        verifier = "human"
        if set_label not in ("good", "bad"):
            raise UsageError(f"--set takes good or bad, not {set_label!r}")
    if verifier not in names():
        raise UsageError(f"unknown verifier {verifier!r}; available: {', '.join(names())}")
    if verifier == "human" and set_label is None:
        raise UsageError("the human verifier needs --set good|bad")
    folder = None
    if verifier in ("rollout", "branch"):
        if not model or not episodes:
            raise UsageError(f"the {verifier} verifier needs --model (the policy that continues) and episodes")
        parent = episodes[0].resolve().parent
        folder = rollouts_dir or parent.with_name(f"{parent.name}-{verifier}s")
    person: Label | None = "good" if set_label == "good" else "bad" if set_label == "bad" else None
    chosen_verifier = make(verifier, VerifierOptions(
        set_label=person, step=None if step is None else step - 1, planner=planner, model=model, base_url=base_url,
        rollouts=rollouts, answers=answers, temperature=temperature, workers=workers, ray=ray, out=folder))
    read = [read_episode(path) for path in episodes]
    for path, episode in zip(episodes, read):
        if step is not None and not 1 <= step <= len(episode.steps):
            raise UsageError(f"{path} has no step {step} (it has {len(episode.steps)})")
    verdicts = _with_progress(chosen_verifier, read) if verifier in ("rollout", "branch") else \
        chosen_verifier.label(read)
    totals: Counter[str] = Counter()
    for path, episode in zip(episodes, read):
        chosen: dict[int, Verdict] = {}
        for recorded, verdict in zip(episode.steps, verdicts.get(episode.meta.id, [])):
            if verdict is None or (step is not None and recorded.index != step - 1):
                continue
            chosen[recorded.index] = verdict
            totals[verdict.label] += 1
            out.print(f"{episode.meta.id} {recorded.index + 1:>3}. {recorded.action.redacted().describe()}: "
                      f"{verdict.label} ({verdict.reason})", markup=False, highlight=False)
        written, kept = label_steps(path, chosen, force=force)
        if kept:
            totals["kept (a person's label)"] += kept
    out.print(", ".join(f"{n} {name}" for name, n in sorted(totals.items())) or "nothing to label", markup=False)


def _with_progress(verifier: Verifier, episodes: list[Episode]) -> dict[str, list[Verdict | None]]:
    """Play the continuations or branches of the failed episodes (with a progress bar) and return their verdicts."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from deskpilot.evaluation.collect import Collected

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeRemainingColumn(), console=err, transient=False) as progress:
        bar = progress.add_task(f"{verifier.name} episodes", total=None)

        def started(total: int) -> None:
            progress.update(bar, total=total, completed=0)

        def finished(_: Collected) -> None:
            progress.update(bar, advance=1)

        verifier.on_episode, verifier.on_start = finished, started  # type: ignore[attr-defined]
        verdicts = verifier.label(episodes)
    out.print(f"{'continuations' if verifier.name == 'rollout' else 'branches'} in "
              f"{verifier.config.out}", markup=False, highlight=False)  # type: ignore[attr-defined]
    return verdicts

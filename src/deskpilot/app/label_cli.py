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
from deskpilot.core.verdict import Verdict

if TYPE_CHECKING:
    from deskpilot.evaluation.branches import BranchLabeller
    from deskpilot.evaluation.rollouts import RolloutLabeller

VERIFIERS = ("heuristic", "judge", "env", "env+heuristic", "rollout", "branch", "human")


def label(episodes: Annotated[list[Path], typer.Argument(help="episode folders")],
          verifier: Annotated[str, typer.Option(help=f"one of: {', '.join(VERIFIERS)}")] = "heuristic",
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
    if verifier not in VERIFIERS:
        raise UsageError(f"unknown verifier {verifier!r}; available: {', '.join(VERIFIERS)}")
    if verifier == "human" and set_label is None:
        raise UsageError("the human verifier needs --set good|bad")
    if verifier in ("rollout", "branch"):
        if not model or not episodes:
            raise UsageError(f"the {verifier} verifier needs --model (the policy that continues) and episodes")
        parent = episodes[0].resolve().parent
        folder = rollouts_dir or parent.with_name(f"{parent.name}-{verifier}s")
        if verifier == "rollout":
            from deskpilot.evaluation.rollouts import RolloutConfig, RolloutLabeller

            labeller: RolloutLabeller | BranchLabeller = RolloutLabeller(RolloutConfig(
                model, folder, rollouts, 0.7 if temperature is None else temperature, workers, base_url))
        else:
            from deskpilot.evaluation.branches import BranchConfig, BranchLabeller

            labeller = BranchLabeller(BranchConfig(model, folder, answers, temperature or 0.0, workers, base_url))
        judge_episode = _played_verdicts(episodes, labeller)
    else:
        judge_episode = _verifier(verifier, set_label, step, planner, model, base_url)
    totals: Counter[str] = Counter()
    for path in episodes:
        episode = read_episode(path)
        if step is not None and not 1 <= step <= len(episode.steps):
            raise UsageError(f"{path} has no step {step} (it has {len(episode.steps)})")
        verdicts = judge_episode(episode)
        chosen: dict[int, Verdict] = {}
        for recorded, verdict in zip(episode.steps, verdicts):
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


def _verifier(name: str, set_label: Optional[str], step: Optional[int], planner: str,  # noqa: ANN202
              model: Optional[str], base_url: Optional[str]):
    """The chosen verifier's `judge_episode(episode) -> [Verdict | None]`."""
    from deskpilot.training.verify import CombinedVerifier, EnvVerifier, HeuristicVerifier, human_verdict

    if name == "heuristic":
        return HeuristicVerifier().judge_episode
    if name == "env":
        return EnvVerifier().judge_episode
    if name == "env+heuristic":
        return CombinedVerifier().judge_episode
    if name == "judge":
        from deskpilot.core.settings import load_settings
        from deskpilot.planner.factory import build_backend
        from deskpilot.training.judge import JudgeVerifier

        if planner not in ("openai", "transformers"):
            raise UsageError(f"the judge runs on openai or transformers, not {planner!r}")
        backend = build_backend(load_settings(planner=planner, model=model, base_url=base_url))
        judge = JudgeVerifier(backend)
        return lambda episode: judge.judge_episode(episode, only=None if step is None else step - 1)
    return lambda episode: [human_verdict(set_label) for _ in episode.steps]  # type: ignore[arg-type]


def _played_verdicts(paths: list[Path], labeller: RolloutLabeller | BranchLabeller):  # noqa: ANN202
    """Play the continuations or branches of the failed episodes among `paths` (with a progress bar) and return a
    `judge_episode` that hands out their verdicts."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from deskpilot.evaluation.collect import Collected

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeRemainingColumn(), console=err, transient=False) as progress:
        bar = progress.add_task(f"{labeller.name} episodes", total=None)

        def started(total: int) -> None:
            progress.update(bar, total=total, completed=0)

        def finished(_: Collected) -> None:
            progress.update(bar, advance=1)

        labeller.on_episode, labeller.on_start = finished, started
        verdicts = labeller.label([read_episode(path) for path in paths])
    out.print(f"{'continuations' if labeller.name == 'rollout' else 'branches'} in {labeller.config.out}",
              markup=False, highlight=False)
    return lambda episode: verdicts[episode.meta.id]

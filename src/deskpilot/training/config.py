"""Training settings: per-method defaults, overridden by a YAML/JSON `--config` file, then by command-line flags.

A config file holds TRL config fields at the top level (any field of SFTConfig / KTOConfig / GRPOConfig:
`learning_rate`, `per_device_train_batch_size`, `beta`, `num_generations`, `deepspeed`, ...) plus sections of
deskpilot's own:

    lora: {r: 16, lora_alpha: 32, lora_dropout: 0.05, target_modules: [q_proj, v_proj]}
    rewards: {format: 0.5, action_type: 1.0, click: 1.0, click_distance: 0.5, text: 1.0, similarity: 0.2}  # GRPO
    balance: {min_per_app: 300}  # each app's (task's) rows repeated up to at least this many per epoch
    labels: {verifiers: [env]}  # only these verifiers' verdicts count; the others' steps are unknown
    prompts: contrasted  # GRPO: only prompts whose answers the environment scored apart (default: all)
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from deskpilot.core.errors import TrainingError

from .data import Method
from .rewards import DEFAULT_WEIGHTS, REWARDS, TEXT_MODE_WEIGHTS

DEFAULT_LORA: dict[str, Any] = {"r": 16, "lora_alpha": 32, "lora_dropout": 0.05, "target_modules": "all-linear"}
COMMON: dict[str, Any] = {
    "per_device_train_batch_size": 4, "gradient_accumulation_steps": 1, "logging_steps": 1,
    "save_strategy": "steps", "save_steps": 200, "save_total_limit": 2, "num_train_epochs": 3,
    "lr_scheduler_type": "cosine", "warmup_steps": 0, "seed": 0, "dataloader_num_workers": 0,
}
DEFAULTS: dict[str, dict[str, Any]] = {
    "sft": {"learning_rate": 1e-4, "max_length": None},
    "kto": {"learning_rate": 5e-5, "max_length": None, "beta": 0.1},
    "grpo": {"learning_rate": 1e-5, "num_generations": 4, "max_completion_length": 96, "temperature": 1.0},
}


def read_config_file(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TrainingError(f"cannot read training config {path}: {exc.strerror}") from None
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text) or {}
    except (ValueError, ImportError) as exc:
        raise TrainingError(f"training config {path} is not valid {path.suffix.lstrip('.') or 'YAML'}: "
                             f"{str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise TrainingError(f"training config {path} must hold a mapping of settings")
    return data


def config_class(method: Method) -> type:
    import trl

    return {"sft": trl.SFTConfig, "kto": trl.KTOConfig, "grpo": trl.GRPOConfig}[method]


# Training a small language model from scratch on som-text steps (`deskpilot model init`, all weights): a high
# learning rate with warm-up and cosine decay, bigger batches, and packed sequences (no padding wasted); float32 on
# a GPU too (bf16 autocast ran the 4M-parameter planner at 5.2 steps/s on an H200 where float32 ran 16.1, same loss).
FROM_SCRATCH: dict[str, dict[str, Any]] = {
    "sft": {"learning_rate": 1e-3, "per_device_train_batch_size": 4, "packing": True, "max_length": 1024,
            "warmup_steps": 0.05, "num_train_epochs": 3, "weight_decay": 0.01, "bf16": False},
    "kto": {"learning_rate": 1e-4, "per_device_train_batch_size": 8, "bf16": False},
    "grpo": {"learning_rate": 1e-4, "max_completion_length": 24, "bf16": False},
}


OWN_SECTIONS = ("lora", "rewards", "balance", "labels", "prompts")


def trl_arguments(method: Method, file_settings: dict[str, Any], flags: dict[str, Any],
                  from_scratch: bool = False) -> dict[str, Any]:
    """The keyword arguments for TRL's config class: defaults (those for a from-scratch model when
    `from_scratch`) < config file < flags, unknown names refused."""
    settings = {k: v for k, v in file_settings.items() if k not in OWN_SECTIONS}
    known = {f.name for f in dataclasses.fields(config_class(method))}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise TrainingError(f"unknown {method} training setting(s): {', '.join(unknown)}")
    merged = {**COMMON, **DEFAULTS[method], **(FROM_SCRATCH[method] if from_scratch else {}), **settings,
              **{k: v for k, v in flags.items() if v is not None}}
    if merged.get("max_steps") is None:
        merged.pop("max_steps", None)
    return merged


def kto_weights(good: int, bad: int) -> dict[str, float]:
    """KTO's desirable / undesirable weights from the label balance, so that both sides weigh the same in the loss
    (weight x count equal; TRL's guidance keeps that ratio between 1 and 4/3): the commoner side is weighted down,
    so the loss keeps its scale."""
    if good >= bad:
        return {"desirable_weight": round(max(1, bad) / max(1, good), 4), "undesirable_weight": 1.0}
    return {"desirable_weight": 1.0, "undesirable_weight": round(max(1, good) / bad, 4)}


def lora_settings(file_settings: dict[str, Any]) -> dict[str, Any]:
    section = file_settings.get("lora") or {}
    if not isinstance(section, dict):
        raise TrainingError("the `lora` section of a training config must be a mapping")
    return {**DEFAULT_LORA, **section}


def min_rows_per_app(file_settings: dict[str, Any]) -> int:
    """The `balance` section's `min_per_app` (0: no balancing)."""
    section = file_settings.get("balance") or {}
    if not isinstance(section, dict) or set(section) - {"min_per_app"}:
        raise TrainingError("the `balance` section of a training config takes one setting: min_per_app")
    value = section.get("min_per_app", 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TrainingError(f"balance.min_per_app must be a whole number >= 0, not {value!r}")
    return value


def contrasted_prompts_only(file_settings: dict[str, Any]) -> bool:
    """The `prompts` setting: `contrasted` keeps GRPO to the prompts where the environment's reward tells the
    answers apart (the rest give GRPO no advantage once the model answers them one way); `all` (the default)."""
    value = file_settings.get("prompts", "all")
    if value not in ("all", "contrasted"):
        raise TrainingError(f"prompts must be all or contrasted, not {value!r}")
    return value == "contrasted"


def label_verifiers(file_settings: dict[str, Any]) -> list[str] | None:
    """The `labels` section's `verifiers`: whose verdicts count (None: everyone's)."""
    section = file_settings.get("labels")
    if section is None:
        return None
    verifiers = section.get("verifiers") if isinstance(section, dict) and set(section) == {"verifiers"} else None
    if not isinstance(verifiers, list) or not verifiers or not all(isinstance(v, str) for v in verifiers):
        raise TrainingError("the `labels` section takes one setting: verifiers, a list of names such as [env]")
    return verifiers


def reward_weights(file_settings: dict[str, Any], text_mode: bool = False) -> dict[str, float]:
    section = file_settings.get("rewards")
    if section is None:
        return dict(TEXT_MODE_WEIGHTS if text_mode else DEFAULT_WEIGHTS)
    if not isinstance(section, dict) or not section:
        raise TrainingError("the `rewards` section must map reward names to weights, e.g. {click: 1.0}")
    unknown = sorted(set(section) - set(REWARDS))
    if unknown:
        raise TrainingError(f"unknown reward(s) {', '.join(unknown)}; available: {', '.join(REWARDS)}")
    return {name: float(weight) for name, weight in section.items()}

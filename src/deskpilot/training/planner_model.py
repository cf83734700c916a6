"""The planner model deskpilot builds itself (`deskpilot model init`): a from-scratch Llama-style causal language
model for the som-text mode, with a byte-level BPE tokenizer trained here (the `tokenizers` library) on the
som-text prompts and answers of the user's episodes, or on built-in text when none are given. Both are saved with
`save_pretrained`, so the folder loads exactly like a hub model (`AutoModelForCausalLM`, `AutoTokenizer`).

The model's chat template reads only the user and assistant turns: the fixed system line says nothing a model
trained on these prompts does not already know, and leaving it out keeps every training sample shorter."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from deskpilot.core.errors import TrainingError

Size = Literal["tiny", "small", "base"]
END, PAD = "<|end|>", "<|pad|>"
SPECIAL_TOKENS = [PAD, END, "<|user|>", "<|assistant|>", "<|system|>"]
CHAT_TEMPLATE = ("{% for m in messages %}{% if m['role'] != 'system' %}<|{{ m['role'] }}|>\n{{ m['content'] }}"
                 "{% if m['role'] == 'assistant' %}" + END + "{% endif %}\n{% endif %}{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
INIT_FILE = "deskpilot_model.json"


@dataclass(frozen=True)
class ModelSize:
    vocab: int
    hidden: int
    layers: int
    heads: int
    intermediate: int
    context: int


# tiny and small train on 2 CPU cores in well under an hour on tens of thousands of steps; base wants a GPU;
# micro learns only a handful of steps by heart, in seconds (for trying the pipeline out, and for tests).
SIZES: dict[str, ModelSize] = {
    "micro": ModelSize(vocab=1024, hidden=64, layers=2, heads=2, intermediate=176, context=1024),
    "tiny": ModelSize(vocab=4096, hidden=256, layers=4, heads=4, intermediate=704, context=1024),
    "small": ModelSize(vocab=4096, hidden=384, layers=6, heads=6, intermediate=1024, context=1024),
    "base": ModelSize(vocab=8192, hidden=768, layers=12, heads=12, intermediate=2048, context=2048),
}
BUILT_IN_TEXT = [
    "Task: Click on the \"OK\" button.\nValues: $1=\"OK\"\nScreen:\nbutton 1 \"OK\" =$1\nbutton 2 \"Cancel\"\n"
    "Done:\n(nothing yet)",
    "Action: click(target='$1')", "Action: type(content='$2')", "Action: hotkey(key='enter')",
    "Action: click(target='input 2')", "Action: finished(content='done')", "Action: scroll(direction='down')",
    "text checkbox radio dropdown link icon tab slider menu_item list_item checked unchecked focused",
]


def init_planner_model(out: Path, size: str = "tiny", texts: list[str] | None = None, seed: int = 0) -> dict[str, Any]:
    """Write a fresh model and its tokenizer to `out`; returns what was made (also saved as deskpilot_model.json)."""
    if size not in SIZES:
        raise TrainingError(f"unknown model size {size!r}; known: {', '.join(SIZES)}")
    import torch
    import transformers

    spec = SIZES[size]
    corpus = list(texts or []) + BUILT_IN_TEXT
    tokenizer = train_tokenizer(corpus, spec.vocab)
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=spec.hidden, num_hidden_layers=spec.layers,
        num_attention_heads=spec.heads, num_key_value_heads=spec.heads, intermediate_size=spec.intermediate,
        max_position_embeddings=spec.context, tie_word_embeddings=True, bos_token_id=None,
        eos_token_id=tokenizer.convert_tokens_to_ids(END), pad_token_id=tokenizer.convert_tokens_to_ids(PAD))
    model = transformers.LlamaForCausalLM(config)
    model.generation_config.eos_token_id = config.eos_token_id
    model.generation_config.pad_token_id = config.pad_token_id
    try:
        out.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
    except OSError as exc:
        raise TrainingError(f"cannot write the model to {out}: {exc.strerror}") from None
    made = {"size": size, "parameters": sum(p.numel() for p in model.parameters()), "vocab": len(tokenizer),
            "tokenizer_texts": len(corpus), "out": str(out)}
    (out / INIT_FILE).write_text(json.dumps(made, indent=2))
    return made


def train_tokenizer(texts: list[str], vocab: int) -> Any:
    """A byte-level BPE tokenizer with single-digit numbers, trained on `texts`, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                       pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=2, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer=trainer)
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=END, pad_token=PAD,
                                      padding_side="left")
    wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def som_text_corpus(paths: list[Path]) -> list[str]:
    """The som-text prompts and answers of the episodes in `paths` (every step, whatever its label)."""
    from deskpilot.planner.families import FAMILIES

    from .samples import SampleBuilder

    samples = SampleBuilder(FAMILIES["screen"], mode="som-text").samples(paths)
    texts: list[str] = []
    for sample in samples:
        texts.extend(str(m["content"]) for m in sample.messages if m["role"] != "system")
        texts.append(sample.completion)
    return texts

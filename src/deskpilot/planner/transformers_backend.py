"""Chat backend for a local model through transformers, from a folder (or a cached model id), on CUDA when present
in the checkpoint's own precision (a VLM's bf16; float32 for the planners deskpilot trains, whose 4-beam rankings
bf16 reorders on 5 % of prompts at no gain in speed on an H200: benchmarks/planner_devices.py), float32 on CPU:
vision-language models with `AutoModelForImageTextToText` and `AutoProcessor`, and language models
(`...ForCausalLM`, such as the planner `deskpilot model init` makes) with `AutoModelForCausalLM` and
`AutoTokenizer`, for the som-text mode. A folder holding a peft LoRA adapter (`adapter_config.json`) is
loaded on top of its base model, so what deskpilot trains runs here.

On CPU a small model (under SMALL_MODEL parameters, such as the planners deskpilot trains) generates on one thread:
its matrices are too small for a second thread to pay much (one answer 23 -> 28 ms on an idle 2-core machine), and
torch's threads wait for each other by spinning, so on a CPU shared with the app being driven, grounding or other
agents a 2-thread generation took 2.8 s where one thread took 37 ms (benchmarks/learned_planner.py's lines
"model step beside N busy processes").

A LoRA adapter is merged into its base at load (the backend only generates: a merged model computes the same at
less cost a token). A greedy single answer of a language model reuses the attention cache of the longest start
its prompt shares with the previous generation's (the system line and the task, and at the next step of an episode
often much of the screen too), so only the rest of the prompt is computed again; beams and sampling start afresh.
With `static_cache` (setting `model_compile`) a greedy answer instead writes into a static attention cache of a
fixed length (the shortest of STATIC_LENGTHS that holds prompt and answer, each kept between answers), which on
CUDA lets `generate` compile its decoding step into CUDA graphs (transformers' own auto-compile): an eager step of
a 135M model is ~20 ms of kernel launches on an H100 whatever the GPU's speed; compiled, an answer took 0.13 s
against 0.24-0.32 s (benchmarks/gpu_language_planner.py answer-time, docs/experiments). The first answer of each
length compiles first: 47 s on a fresh H100 machine, 13.5 s once torch's compile cache on disk is warm, so it is
for long runs and off by default. (Compiling on a thread of its own while the first answers are computed eagerly
broke those answers: torch's tracing patches every module's call in the process.) A compile that fails leaves the
backend on the cache above, said once. With a static cache the prompt is computed whole (a few ms on a GPU).

Qwen2-VL / Qwen2.5-VL processors in recent transformers want a video processor that needs torchvision; without
torchvision an image-only processor is built instead (deskpilot sends only images)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deskpilot.core.errors import PlannerError

from .backbone import BACKBONES, converted
from .context import image_from_url

log = logging.getLogger(__name__)
QWEN_VL_TYPES = {"qwen2_vl": "Qwen2VLProcessor", "qwen2_5_vl": "Qwen2_5_VLProcessor"}
SMALL_MODEL = 100_000_000  # parameters: on CPU, a model below this generates on one thread
STATIC_LENGTHS = (1024, 2048, 4096, 8192)  # a static cache's length: the shortest that holds prompt and answer


def base_model(source: str) -> str:
    """Where the model in `source` is described: for a folder holding a peft adapter (no config.json of its own),
    the adapter's base model; else `source` itself."""
    adapter_file = Path(source) / "adapter_config.json"
    if not adapter_file.is_file():
        return source
    try:
        base = json.loads(adapter_file.read_text())["base_model_name_or_path"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PlannerError(f"cannot load model {source!r}: its adapter_config.json names no base model "
                           f"({type(exc).__name__})") from None
    if not isinstance(base, str) or not base:
        raise PlannerError(f"cannot load model {source!r}: its adapter_config.json names no base model")
    if base in BACKBONES and not Path(base).exists():  # an adapter made on a backbone deskpilot converts itself
        return str(converted(BACKBONES[base]))
    return base


def is_causal_lm(source: str) -> bool:
    """Whether the model in `source` (an adapter folder: its base) is a text-only causal language model (else a
    vision-language one)."""
    import transformers

    try:
        config = transformers.AutoConfig.from_pretrained(base_model(source))
    except (OSError, ValueError) as exc:
        raise PlannerError(f"cannot load model {source!r}: {str(exc).splitlines()[0]}") from None
    return not hasattr(config, "vision_config") and any(a.endswith("ForCausalLM")
                                                         for a in (config.architectures or []))


class TransformersBackend:
    """`threads`: torch's CPU threads while generating (0: one for a small model, torch's own choice otherwise);
    `dtype`: the weights' precision ("float32", "bfloat16"; default: the checkpoint's own on CUDA, float32 on CPU);
    `one_line`: a reply is the first line the model writes (the som-text planner asks for one line), and generation
    stops at its end instead of paying for what a model may write after it (up to `max_new_tokens` tokens);
    `static_cache`: a greedy answer uses a static attention cache, its decoding step compiled on CUDA."""

    def __init__(self, model: str, max_new_tokens: int = 512, device: str | None = None, temperature: float = 0.0,
                 threads: int = 0, dtype: str | None = None, int8: bool = False, one_line: bool = False,
                 static_cache: bool = False):
        try:
            import torch
            import transformers
        except ImportError:
            raise PlannerError("the transformers planner needs torch and transformers: "
                               "pip install 'deskpilot[models]'") from None
        self._torch = torch
        self.name = f"transformers:{Path(model).name or model}"
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.one_line = one_line
        self.likelihood: dict[str, float] = {}  # the last generation's replies and their probabilities
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        weights = getattr(torch, dtype) if dtype else "auto" if self.device.startswith("cuda") else torch.float32
        source = Path(model)
        adapter_file = source / "adapter_config.json"
        try:
            base = base_model(model)
            self.causal = is_causal_lm(base)
            auto = transformers.AutoModelForCausalLM if self.causal else transformers.AutoModelForImageTextToText
            self.model: Any = auto.from_pretrained(base, dtype=weights)  # a model, or a PeftModel around one
            # an adapter folder may hold a tokenizer but no processor: a VLM's processor then comes from the base
            own = ("tokenizer.json", "tokenizer_config.json") if self.causal else ("processor_config.json",
                                                                                   "preprocessor_config.json")
            has_processor = any((source / f).is_file() for f in own)
            processor_source = str(source) if has_processor or not adapter_file.is_file() else base
            if adapter_file.is_file():
                from peft import PeftModel

                self.model = PeftModel.from_pretrained(self.model, str(source)).merge_and_unload()
            self.processor: Any = transformers.AutoTokenizer.from_pretrained(processor_source) if self.causal else \
                load_processor(processor_source, self.model.config.model_type)
        except (OSError, ValueError, KeyError) as exc:
            raise PlannerError(f"cannot load model {model!r}: {str(exc).splitlines()[0]}") from None
        self.model.to(self.device).eval()
        small = sum(p.numel() for p in self.model.parameters()) < SMALL_MODEL
        if int8 and self.device == "cpu" and self.causal:
            # int8 weights for the linear layers, activations quantised on the fly
            quantize: Any = torch.ao.quantization.quantize_dynamic  # untyped in torch
            self.model = quantize(self.model, {torch.nn.Linear}, dtype=torch.qint8)
        self.threads = threads or (1 if small and self.device == "cpu" else 0)
        self._line_ends = self._line_end_tokens() if one_line else []
        self._cache: Any = None  # the attention cache of the latest greedy generation, and the tokens it holds
        self._cached_ids: list[int] = []
        self.static_cache = self.causal and static_cache
        self._static: dict[int, Any] = {}  # static attention caches by length

    def complete(self, messages: list[dict[str, object]], on_text: Callable[[str], None] | None = None) -> str:
        text = self._generate(messages, 1)[0]
        if on_text and text:
            on_text(text)
        if not text.strip():
            raise PlannerError(f"{self.name} generated an empty reply")
        return text

    def alternatives(self, messages: list[dict[str, object]], count: int) -> list[str]:
        """The model's `count` likeliest replies, best first (beam search); with a temperature, `count` sampled
        ones. Empty replies are left out."""
        return [text for text in self._generate(messages, count) if text.strip()]

    def _generate(self, messages: list[dict[str, object]], count: int) -> list[str]:
        conversation = [text_message(m) if self.causal else to_hf_message(m) for m in messages]
        try:
            inputs = self.processor.apply_chat_template(conversation, add_generation_prompt=True, tokenize=True,
                                                        return_dict=True, return_tensors="pt")
        except (ValueError, TypeError) as exc:
            raise PlannerError(f"the model's processor could not build the prompt: {exc}") from None
        inputs = inputs.to(self.device)
        search: dict[str, Any]
        if self.temperature > 0:
            search = {"do_sample": True, "temperature": self.temperature}
        else:
            search = {"do_sample": False, "num_beams": count} if count > 1 else {"do_sample": False}
        if self.one_line:  # a token holding a line end ends the reply as the end-of-text token does
            search["eos_token_id"] = self._line_ends
        greedy = self.causal and count == 1 and not search["do_sample"]
        prompt_length = inputs["input_ids"].shape[1]
        with self._torch.inference_mode(), self._cpu_threads():  # a kept cache's tensors are inference tensors
            static = self._static_for(prompt_length) if greedy and self.static_cache else None
            reuse = greedy and static is None
            cache = {"past_key_values": static} if static is not None else \
                self._cache_for(inputs["input_ids"][0].tolist()) if reuse else {}
            try:
                output = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens,
                                             num_return_sequences=count, output_scores=True,
                                             return_dict_in_generate=True, **search, **cache)
            except Exception as exc:  # torch.compile's failures have no common type; the cache below always works
                if static is None:
                    raise
                self._give_up_static(exc)
                return self._generate(messages, count)
            steps = self.model.compute_transition_scores(output.sequences, output.scores,
                                                         getattr(output, "beam_indices", None),
                                                         normalize_logits=not search.get("num_beams"))
        if reuse:
            self._cache = output.past_key_values
            self._cached_ids = output.sequences[0, :self._cache.get_seq_length()].tolist()
        texts = [self.processor.decode(row[prompt_length:], skip_special_tokens=True) for row in output.sequences]
        if self.one_line:  # a stop token may hold more than the line's end
            texts = [text.split("\n", 1)[0] for text in texts]
        # each reply's probability: the product of its tokens' (-inf where a beam ended early: padding, not counted)
        chances = [float(self._torch.exp(row[self._torch.isfinite(row)].sum())) for row in steps.float()]
        self.likelihood = {}
        for text, chance in zip(texts, chances):
            self.likelihood[text] = max(chance, self.likelihood.get(text, 0.0))
        return texts

    def _line_end_tokens(self) -> list[int]:
        """The model's end-of-text tokens and every token whose text holds a line end (~0.4 s for a 49,152-token
        vocabulary, once)."""
        tokenizer = getattr(self.processor, "tokenizer", self.processor)
        ends = self.model.generation_config.eos_token_id
        own = [] if ends is None else [ends] if isinstance(ends, int) else list(ends)
        texts = tokenizer.batch_decode([[token] for token in range(len(tokenizer))])
        return [*own, *(token for token, text in enumerate(texts) if "\n" in text and token not in own)]

    def _give_up_static(self, exc: Exception) -> None:
        log.warning("the planner's compiled static attention cache failed (%s); answering without it",
                    str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__)
        self.static_cache, self._static = False, {}

    def _static_for(self, prompt_length: int) -> Any:
        """An emptied static attention cache long enough for this prompt and its answer (made once per length, so
        the compiled decoding step sees one shape per length), or None when the prompt is longer than the longest."""
        from transformers import StaticCache

        needed = prompt_length + self.max_new_tokens
        length = next((n for n in STATIC_LENGTHS if n >= needed), None)
        if length is None:
            return None
        if length not in self._static:
            self._static[length] = StaticCache(config=self.model.config, max_cache_len=length)
        else:
            self._static[length].reset()
        return self._static[length]

    def forget_prompt(self) -> None:
        """Drop the kept attention cache: the next prompt is computed whole."""
        self._cache, self._cached_ids = None, []

    def _cache_for(self, prompt: list[int]) -> dict[str, Any]:
        """`generate`'s cache argument for this prompt: the previous generation's cache cut back to the tokens this
        prompt starts with (at least its last token left to compute), or a fresh start when they share none."""
        shared = 0
        for old, new in zip(self._cached_ids, prompt[:-1]):
            if old != new:
                break
            shared += 1
        if not shared or self._cache is None or not self._cache.is_croppable:
            self.forget_prompt()
            return {}
        if shared < len(self._cached_ids):  # a negative count: the tokens taken off its end (in every version)
            self._cache.crop(shared - len(self._cached_ids))
            self._cached_ids = self._cached_ids[:shared]
        return {"past_key_values": self._cache}

    @contextmanager
    def _cpu_threads(self) -> Iterator[None]:
        """torch's thread count set to `threads` for one generation and given back after (the process may train
        too, which wants all its threads)."""
        before = self._torch.get_num_threads()
        if self.threads and self.threads != before:
            self._torch.set_num_threads(self.threads)
        try:
            yield
        finally:
            if self._torch.get_num_threads() != before:
                self._torch.set_num_threads(before)


def text_message(message: dict[str, object]) -> dict[str, str]:
    """An OpenAI-format message for a text-only model: its text parts joined (it has no use for images)."""
    content = message["content"]
    if not isinstance(content, str):
        content = "\n".join(part["text"] for part in _parts(content) if part.get("type") == "text")
    return {"role": str(message["role"]), "content": content}


def to_hf_message(message: dict[str, object]) -> dict[str, Any]:
    """An OpenAI-format message -> transformers' chat format (data-URL images become PIL images)."""
    content = message["content"]
    if isinstance(content, str):
        return {"role": message["role"], "content": [{"type": "text", "text": content}]}
    parts: list[dict[str, Any]] = []
    for part in _parts(content):
        if part["type"] == "image_url":
            parts.append({"type": "image", "image": image_from_url(part["image_url"]["url"])})
        else:
            parts.append({"type": "text", "text": part["text"]})
    return {"role": message["role"], "content": parts}


def _parts(content: object) -> list[dict[str, Any]]:
    """The parts of a message's content that is not a plain string (a list of OpenAI content parts)."""
    return list(content) if isinstance(content, list) else []


def load_processor(source: str, model_type: str) -> Any:
    """AutoProcessor, or for Qwen-VL models on machines without torchvision an image-only processor."""
    import transformers

    auto: Any = transformers  # its Auto classes' from_pretrained are untyped
    try:
        return auto.AutoProcessor.from_pretrained(source)
    except (ImportError, AttributeError, ValueError, OSError) as exc:
        if model_type not in QWEN_VL_TYPES:
            raise
        log.info("AutoProcessor failed for %s (%s); using the image-only Qwen-VL processor", source, exc)
    parent = getattr(transformers, QWEN_VL_TYPES[model_type])

    class ImageOnlyProcessor(parent):  # type: ignore[misc, valid-type]
        attributes = ["image_processor", "tokenizer"]

        def __init__(self, image_processor: Any = None, tokenizer: Any = None, chat_template: Any = None,
                     **kwargs: Any):
            super().__init__(image_processor=image_processor, tokenizer=tokenizer, video_processor=None,
                             chat_template=chat_template, **kwargs)

    return ImageOnlyProcessor(image_processor=auto.AutoImageProcessor.from_pretrained(source),
                              tokenizer=auto.AutoTokenizer.from_pretrained(source),
                              chat_template=auto.AutoTokenizer.from_pretrained(source).chat_template)

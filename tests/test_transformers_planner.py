"""`--planner transformers`: real loading (AutoModelForImageTextToText / AutoProcessor from a local folder, LoRA
adapters through peft) and real generation, on tiny models the tests build offline."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import deskpilot, read_state
from tiny_models import build_tiny_llava, build_tiny_qwen25_vl, teach_reply

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.geometry import Monitor
from deskpilot.planner.context import PromptBuilder, Screenshot, model_image
from deskpilot.planner.families import FAMILIES, load_template
from deskpilot.planner.transformers_backend import TransformersBackend, to_hf_message

REPLY = "Thought: done.\nAction: finished(content='ok')"
SPACE = FAMILIES["qwen2.5-vl"].space(Monitor(0, 0, 1280, 800))


def prompt(task: str, seed: int = 0) -> list[dict]:
    image = np.random.default_rng(seed).integers(0, 255, (800, 1280, 3), dtype=np.uint8)
    return PromptBuilder(load_template("native")).messages(task, [], Screenshot.of(model_image(image, SPACE)), SPACE)


@pytest.fixture(scope="module")
def taught_model(tmp_path_factory):
    """A tiny model overfit to answer `finished(...)` to deskpilot's own prompts."""
    folder = build_tiny_llava(tmp_path_factory.mktemp("taught"))
    prompts = [[to_hf_message(m) for m in prompt(task, seed)]
               for seed, task in enumerate(["click Save", "fill the form", "open the file", "check the box"])]
    teach_reply(folder, prompts, REPLY, steps=200)
    return folder


@pytest.fixture(scope="module")
def random_model(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("random"))


@pytest.mark.slow
def test_backend_generates_from_a_saved_folder(taught_model):
    import torch

    backend = TransformersBackend(str(taught_model), max_new_tokens=32)
    on_gpu = torch.cuda.is_available()
    assert backend.device == ("cuda" if on_gpu else "cpu")
    assert next(backend.model.parameters()).dtype == (torch.bfloat16 if on_gpu else torch.float32)
    assert backend.complete(prompt("a task it never saw", seed=9)) == REPLY
    if not on_gpu:  # a small model generates on one thread, and the process gets its own thread count back
        threads = torch.get_num_threads()
        torch.set_num_threads(2)
        try:
            assert backend.threads == 1
            assert backend.complete(prompt("a task it never saw", seed=9)) == REPLY
            assert torch.get_num_threads() == 2
        finally:
            torch.set_num_threads(threads)


def test_qwen25_vl_loads_and_generates(tmp_path):
    """The Qwen2.5-VL path: AutoProcessor where torchvision exists, the image-only processor where it does not."""
    import importlib.util

    backend = TransformersBackend(str(build_tiny_qwen25_vl(tmp_path / "qwen")), max_new_tokens=8)
    has_torchvision = importlib.util.find_spec("torchvision") is not None
    assert (type(backend.processor).__name__ == "ImageOnlyProcessor") is not has_torchvision
    reply = backend.complete(prompt("click Save"))
    assert isinstance(reply, str) and reply


def test_a_run_finishes_through_real_loading_and_generation(demo_app, taught_model, tmp_path):
    result = deskpilot("run", "is the form fine?", "--planner", "transformers", "--model", str(taught_model),
                       "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    episode = read_episode(list_episodes(tmp_path / "ep")[0])
    assert episode.meta.outcome == "success" and episode.meta.model.startswith("transformers:")
    assert episode.steps[-1].action.text == "ok"


def test_random_output_is_retried_then_fails_cleanly_without_acting(demo_app, random_model, tmp_path):
    before = read_state(demo_app.state_file)
    result = deskpilot("run", "click Save", "--planner", "transformers", "--model", str(random_model),
                       "--episodes-dir", str(tmp_path / "ep"), env={"DESKPILOT_MAX_NEW_TOKENS": "24"})
    assert result.returncode == 1
    assert "could not be used twice" in result.stdout and "Traceback" not in result.stdout + result.stderr
    assert read_state(demo_app.state_file) == before
    assert read_episode(list_episodes(tmp_path / "ep")[0]).meta.outcome == "error"


def test_a_lora_adapter_folder_loads_on_its_base_model_merged_in(taught_model, tmp_path):
    """The adapter (a trained one: its weights not zero) is merged into its base at load: the model computes what
    base and adapter compute together."""
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import LlavaForConditionalGeneration

    base = LlavaForConditionalGeneration.from_pretrained(taught_model)
    torch.manual_seed(0)
    adapted = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                              init_lora_weights=False))
    adapted.save_pretrained(tmp_path / "adapter")
    backend = TransformersBackend(str(tmp_path / "adapter"), max_new_tokens=32)
    assert not isinstance(backend.model, PeftModel)
    apart = PeftModel.from_pretrained(LlavaForConditionalGeneration.from_pretrained(taught_model),
                                      str(tmp_path / "adapter")).eval()
    ids = torch.tensor([[1, 5, 9, 14, 3, 7]])
    with torch.no_grad():
        merged_logits, apart_logits = backend.model(input_ids=ids).logits, apart(input_ids=ids).logits
        plain_logits = LlavaForConditionalGeneration.from_pretrained(taught_model).eval()(input_ids=ids).logits
    assert torch.allclose(merged_logits, apart_logits, atol=1e-4)
    assert not torch.allclose(merged_logits, plain_logits, atol=1e-3)  # the adapter does change the answer


def test_a_missing_model_is_a_one_line_error(tmp_path):
    result = deskpilot("run", "click Save", "--planner", "transformers", "--model", str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot load model") and len(result.stderr.strip().splitlines()) == 1


def test_a_lora_adapter_of_a_causal_lm_is_known_as_one_and_runs(taught_model, tmp_path):
    """`--planner transformers --model <adapter folder>` first asks whether the model is a language model: the
    adapter folder has no config.json, its base has."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from deskpilot.planner.transformers_backend import is_causal_lm

    tokenizer = AutoTokenizer.from_pretrained(taught_model)
    base = Qwen2ForCausalLM(Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id))
    base.save_pretrained(tmp_path / "base")
    tokenizer.save_pretrained(tmp_path / "base")
    base = Qwen2ForCausalLM.from_pretrained(tmp_path / "base")  # the adapter names the folder it was made on
    adapted = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    adapted.save_pretrained(tmp_path / "adapter")
    tokenizer.save_pretrained(tmp_path / "adapter")
    assert is_causal_lm(str(tmp_path / "adapter"))
    backend = TransformersBackend(str(tmp_path / "adapter"), max_new_tokens=4)
    assert backend.causal
    backend.alternatives([{"role": "user", "content": "click Save"}], 1)

"""Tiny random-initialised vision-language models built offline and saved with `save_pretrained`, so the real
loading and generation code runs in tests without downloading weights. Their output is random."""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<image>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
CORPUS = ["Thought: click the Save button.\nAction: click(point='<point>120 340</point>')",
          "Action: type(content='Ada Lovelace')", "hotkey(key='ctrl s')", "scroll(direction='down')",
          "finished(content='done')", "You operate a Linux computer. The user's task: fill the form 0123456789"]


def build_tiny_llava(folder: Path, image_size: int = 28, hidden: int = 32, layers: int = 1) -> Path:
    """A LLaVA-style model (CLIP vision + Qwen2 text; ~100k parameters at the defaults) with its processor, saved to
    `folder`. Larger `image_size` / `hidden` / `layers` give a slower model of the same shape for benchmarks."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlavaConfig, LlavaForConditionalGeneration,
                              LlavaProcessor, PreTrainedTokenizerFast, Qwen2Config)

    specials = ["<|endoftext|>", "<image>", "<|im_start|>", "<|im_end|>"]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(CORPUS * 4, trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        extra_special_tokens={"image_token": "<image>"})
    image_processor = CLIPImageProcessor(size={"shortest_edge": image_size},
                                         crop_size={"height": image_size, "width": image_size})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer, patch_size=14,
                               vision_feature_select_strategy="default", num_additional_image_tokens=1,
                               chat_template=CHAT_TEMPLATE, image_token="<image>")
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=hidden // 2, intermediate_size=hidden, num_hidden_layers=layers,
                                       num_attention_heads=2, image_size=image_size, patch_size=14,
                                       projection_dim=hidden // 2),
        text_config=Qwen2Config(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=hidden * 2,
                                num_hidden_layers=layers,
                                num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096,
                                eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"), vision_feature_select_strategy="default",
        vision_feature_layer=-1)
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def teach_reply(folder: Path, prompts: list[list[dict]], reply: str, steps: int = 120) -> None:
    """Overfit the tiny model in `folder` to answer `reply` to chat prompts like `prompts` (transformers-format
    messages with PIL images), so a test can see a whole run go through real loading and generation."""
    import torch
    from transformers import AutoProcessor, LlavaForConditionalGeneration

    processor = AutoProcessor.from_pretrained(folder)
    model = LlavaForConditionalGeneration.from_pretrained(folder)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    batches = []
    for messages in prompts:
        full = [*messages, {"role": "assistant", "content": [{"type": "text", "text": reply}]}]
        prompt_len = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                   return_dict=True, return_tensors="pt")["input_ids"].shape[1]
        inputs = processor.apply_chat_template(full, tokenize=True, return_dict=True, return_tensors="pt")
        labels = inputs["input_ids"].clone()
        labels[:, :prompt_len] = -100
        batches.append((inputs, labels))
    model.train()
    for step in range(steps):
        inputs, labels = batches[step % len(batches)]
        loss = model(**inputs, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    model.save_pretrained(folder)


QWEN_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_qwen25_vl(folder: Path) -> Path:
    """A Qwen2.5-VL-architecture model (~0.2M parameters) with tokenizer, image processor and chat template.
    With torchvision present its processor saves like the real one; without it only the parts deskpilot uses."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (PreTrainedTokenizerFast, Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration,
                              Qwen2VLImageProcessor)

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                "<|image_pad|>", "<|video_pad|>"]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(CORPUS * 4, trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.chat_template = QWEN_TEMPLATE
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in specials}
    config = Qwen2_5_VLConfig(
        text_config={"vocab_size": len(tokenizer), "hidden_size": 64, "intermediate_size": 128,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                     "max_position_embeddings": 8192,
                     "rope_parameters": {"rope_type": "default", "mrope_section": [4, 2, 2], "rope_theta": 1e4},
                     "bos_token_id": None, "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"]},
        vision_config={"depth": 2, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2,
                       "out_hidden_size": 64, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
                       "window_size": 56, "fullatt_block_indexes": [1]},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    torch.manual_seed(0)
    model = Qwen2_5_VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    Qwen2VLImageProcessor(min_pixels=4 * 28 * 28, max_pixels=64 * 28 * 28).save_pretrained(folder)
    try:  # the full processor (with its video part) needs torchvision; saved where it can be built
        from transformers import AutoProcessor

        AutoProcessor.from_pretrained(folder).save_pretrained(folder)
    except Exception:  # noqa: BLE001 - without torchvision deskpilot's image-only fallback loads these files
        pass
    return folder

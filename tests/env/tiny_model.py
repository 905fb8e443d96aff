"""A tiny randomly initialised chat model whose tokenizer is built here, for the training smoke tests.

No model that calls tools can be installed from the package registries, so the smoke tests train
a Qwen3-architecture model of a few thousand parameters, initialised at random, with a byte-level
BPE tokenizer trained on a few sentences and the Qwen3 chat template that TRL ships (TRL knows how
to parse that template's tool calls). It checks the plumbing of training, not learning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>",
           "</tool_response>", "<think>", "</think>"]  # fmt: skip


def build_tiny_model(out: Path, corpus: list[str], hidden: int = 16, layers: int = 1) -> tuple[Any, Any]:
    """Save a tokenizer and a random model under `out`; returns (model, tokenizer)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    raw.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left",
        additional_special_tokens=SPECIAL[1:],
    )  # fmt: skip
    tokenizer.chat_template = qwen3_chat_template
    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
        num_attention_heads=2, num_key_value_heads=1, head_dim=hidden // 2, max_position_embeddings=65536,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=True,
    )  # fmt: skip
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return model, tokenizer


def wire_policy(model: Any, tokenizer: Any, reply: str) -> Any:
    """Hand-set a model's weights so that, whatever the prompt, it answers `reply` and stops.

    `reply` becomes one added token; the single layer's outputs are zeroed so that the last
    hidden state is the current token's embedding, and the output head maps the token that ends
    the generation prompt to `reply` and `reply` to the end of the turn, each with a margin no
    sampling temperature undoes. A scripted policy inside a real model: the trainer generates,
    parses and runs its tool calls exactly as it would a trained model's.
    """
    import torch
    from tokenizers import AddedToken
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import get_training_chat_template

    tokenizer.add_tokens([AddedToken(reply, special=False, normalized=False)])
    reply_id = tokenizer.convert_tokens_to_ids(reply)
    ends = set()
    for template in (tokenizer.chat_template, get_training_chat_template(tokenizer)):
        if template:
            user = [{"role": "user", "content": "x"}]
            ids = tokenizer.apply_chat_template(
                user, chat_template=template, add_generation_prompt=True, tokenize=True, return_dict=False
            )
            ends.add(int(ids[-1]))
    size = len(tokenizer)
    config = Qwen3Config(
        vocab_size=size, hidden_size=size, intermediate_size=8, num_hidden_layers=1, num_attention_heads=1,
        num_key_value_heads=1, head_dim=8, max_position_embeddings=65536, tie_word_embeddings=False,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    model = Qwen3ForCausalLM(config)
    with torch.no_grad():
        model.model.embed_tokens.weight.copy_(torch.eye(size))
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        head = torch.zeros(size, size)
        for end in ends:
            head[reply_id, end] = 50.0
        head[tokenizer.eos_token_id, reply_id] = 50.0
        model.lm_head.weight.copy_(head)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model

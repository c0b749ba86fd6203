"""The policy (Qwen2ForCausalLM from a config, random init, nothing downloaded), the critic
(a Qwen2 backbone with a scalar head), LoRA through PEFT, and their forward passes over
``prompt + response`` sequences."""

from __future__ import annotations

import torch
from torch import nn

from .config import MODEL_SIZES
from .task import VOCAB_SIZE

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def qwen2_config(size: str, vocab_size: int = VOCAB_SIZE, max_positions: int = 64, init_std: float = 0.02):
    from transformers import Qwen2Config

    return Qwen2Config(
        vocab_size=vocab_size,
        max_position_embeddings=max_positions,
        initializer_range=init_std,
        tie_word_embeddings=True,
        attn_implementation="sdpa",
        use_cache=True,
        **MODEL_SIZES[size],
    )


def build_policy(size: str, seed: int, device: torch.device | str = "cpu", init_std: float = 0.02) -> nn.Module:
    """A randomly initialised Qwen2 causal LM; the same ``seed`` gives the same weights."""
    from transformers import Qwen2ForCausalLM

    torch.manual_seed(seed)
    return Qwen2ForCausalLM(qwen2_config(size, init_std=init_std)).to(device)


class Critic(nn.Module):
    """Value model: Qwen2 backbone + linear head; one value per position."""

    def __init__(self, config) -> None:
        super().__init__()
        from transformers import Qwen2Model

        self.backbone = Qwen2Model(config)
        self.head = nn.Linear(config.hidden_size, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.backbone(input_ids=input_ids, use_cache=False).last_hidden_state
        return self.head(hidden).squeeze(-1).float()


def build_critic(size: str, seed: int, device: torch.device | str = "cpu") -> Critic:
    torch.manual_seed(seed + 1)
    return Critic(qwen2_config(size)).to(device)


def add_lora(model: nn.Module, rank: int = 8) -> nn.Module:
    """Wrap the policy with PEFT LoRA on every attention and MLP projection (base frozen)."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=LORA_TARGETS, bias="none", task_type="CAUSAL_LM"
    )
    return get_peft_model(model, config)


def response_logits(model: nn.Module, sequences: torch.Tensor, response_length: int) -> torch.Tensor:
    """Logits that predict each response token (positions ``P-1 .. P+R-2``)."""
    logits = model(input_ids=sequences, use_cache=False).logits
    return logits[:, -response_length - 1 : -1]


def response_values(critic: Critic, sequences: torch.Tensor, response_length: int) -> torch.Tensor:
    """Critic values of the states before each response token."""
    return critic(sequences)[:, -response_length - 1 : -1]


def count_parameters(*modules: nn.Module) -> int:
    return sum(p.numel() for m in modules if m is not None for p in m.parameters())

"""Settings of one mini-PPO run (plain dataclass, JSON-serialisable for worker processes)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

# name -> Qwen2Config keyword arguments (vocab and positions come from the task)
MODEL_SIZES: dict[str, dict[str, int]] = {
    "tiny": {
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    },
    "small": {
        "hidden_size": 256,
        "intermediate_size": 704,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    },
    "medium": {
        "hidden_size": 1024,
        "intermediate_size": 2816,
        "num_hidden_layers": 8,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
    },
}


@dataclass
class RunConfig:
    """One RL run. ``algorithm`` is ``grpo`` (no critic) or ``ppo`` (critic + GAE)."""

    algorithm: str = "grpo"
    size: str = "tiny"
    init_std: float = 0.1  # initializer_range of the random weights (0.02 learns slowly, LoRA hardly)
    seed: int = 0
    steps: int = 30
    prompts_per_step: int = 16  # global, over all data-parallel ranks
    samples_per_prompt: int = 4  # n
    num_digits: int = 2
    fixed_digit: int | None = None  # None: answer the prompt's first digit; else always this digit
    response_length: int = 2
    temperature: float = 1.0
    lr: float = 3e-3
    critic_lr: float = 3e-3
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    mini_batches: int = 2  # optimizer steps per RL step (ratio != 1 after the first)
    micro_batches: int = 2  # gradient accumulation inside a mini-batch
    clip_ratio: float = 0.2
    value_clip: float = 0.5
    entropy_coef: float = 0.0
    kl_loss_coef: float = 0.001  # GRPO: KL in the loss (low_var_kl / k3)
    kl_loss_type: str = "low_var_kl"
    kl_reward_coef: float = 0.001  # PPO: KL in the reward (k1)
    gamma: float = 1.0
    lam: float = 0.95
    lora: bool = False
    lora_rank: int = 8
    lora_lr: float = 1e-2
    bf16: bool = False
    engine: str = "builtin"  # builtin | vllm | auto

    def __post_init__(self) -> None:
        problems = []
        if self.algorithm not in ("grpo", "ppo"):
            problems.append(f"algorithm must be 'grpo' or 'ppo', not {self.algorithm!r}")
        if self.size not in MODEL_SIZES:
            problems.append(f"size must be one of {sorted(MODEL_SIZES)}, not {self.size!r}")
        if self.prompts_per_step % self.mini_batches:
            problems.append(
                f"prompts_per_step ({self.prompts_per_step}) must divide into mini_batches ({self.mini_batches})"
            )
        if problems:
            raise ValueError("mini-PPO RunConfig: " + "; ".join(problems))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def replace(self, **changes) -> RunConfig:
        return dataclasses.replace(self, **changes)

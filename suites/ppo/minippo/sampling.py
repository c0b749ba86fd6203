"""What every rollout engine produces and the interface it offers (built-in and vLLM samplers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch


@dataclass
class Rollout:
    sequences: torch.Tensor  # [B, P + R] prompt followed by response
    responses: torch.Tensor  # [B, R]
    log_probs: torch.Tensor  # [B, R] log-prob of each sampled token under the sampling policy


class Sampler(Protocol):
    name: str

    def generate(
        self,
        model: torch.nn.Module,
        prompts: torch.Tensor,
        max_new_tokens: int,
        temperature: float,
        generator: torch.Generator,
        rows: tuple[int, int],
    ) -> Rollout:
        """Sample one response per prompt row. ``rows = (offset, total)`` places these rows
        in the global batch (for noise slicing); ``(0, len(prompts))`` in one process."""
        ...

"""The verifiable toy task: a digit string, a separator, then repeat its first digit (or,
in the easier variant, answer one fixed digit whatever the prompt).

Token ids: digits are 0..9, ``SEP`` is 10, the rest of the vocabulary is unused (a random
policy can emit them, and earns nothing). The reward is rule-based, in the spirit of GSM8K
checkers: the fraction of response tokens equal to the prompt's first digit, so a response
with one of two positions right earns partial credit 0.5.
"""

from __future__ import annotations

import torch

DIGITS = 10
SEP = 10
VOCAB_SIZE = 16


def sample_prompts(count: int, num_digits: int, generator: torch.Generator) -> torch.Tensor:
    """``count`` prompts ``[d1 .. dk SEP]`` as a CPU ``long`` tensor ``[count, k + 1]``."""
    digits = torch.randint(0, DIGITS, (count, num_digits), generator=generator)
    return torch.cat([digits, torch.full((count, 1), SEP)], dim=1)


def target_of(prompts: torch.Tensor, fixed_digit: int | None = None) -> torch.Tensor:
    """The correct answer token of each prompt: its first digit, or ``fixed_digit``."""
    if fixed_digit is not None:
        return torch.full_like(prompts[:, 0], fixed_digit)
    return prompts[:, 0]


def reward(prompts: torch.Tensor, responses: torch.Tensor, fixed_digit: int | None = None) -> torch.Tensor:
    """Per-sample score in [0, 1]: the fraction of response tokens that equal the answer.

    ``prompts`` ``[B, P]`` and ``responses`` ``[B, R]`` row-aligned (repeat prompts for n samples).
    """
    target = target_of(prompts, fixed_digit).to(responses.device).unsqueeze(1)
    return (responses == target).float().mean(dim=1)

"""PPO / GRPO maths on tensors, following verl's ``core_algos`` (token-level, masked).

Losses return per-token values; :func:`masked_sum` with a global token count gives the
token-mean that data parallel ranks can add up exactly. ``reduce`` arguments take a
function that sums a tensor over data-parallel ranks (identity in one process).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

Reduce = Callable[[torch.Tensor], torch.Tensor]


def _identity(t: torch.Tensor) -> torch.Tensor:
    return t


def masked_sum(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum()


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp_min(1)


def masked_whiten(
    values: torch.Tensor, mask: torch.Tensor, reduce: Reduce = _identity, eps: float = 1e-8
) -> torch.Tensor:
    """``(x - mean) / sqrt(var + eps)`` over the masked entries of every rank (unbiased var)."""
    stats = reduce(torch.stack([(values * mask).sum(), (values * values * mask).sum(), mask.sum()]).double())
    total, total_sq, count = stats
    mean = total / count
    var = (total_sq / count - mean * mean) * count / (count - 1).clamp_min(1)
    return ((values.double() - mean) * torch.rsqrt(var + eps)).to(values.dtype)


def grpo_advantages(scores: torch.Tensor, group_size: int, mask: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """GRPO outcome advantages: each score normalised within its group of ``group_size``
    consecutive samples (same prompt), ``(s - mean) / (std + eps)``, unbiased std; a group of
    one gets mean 0 and std 1. Broadcast over the response tokens."""
    groups = scores.view(-1, group_size)
    mean = groups.mean(dim=1, keepdim=True)
    std = groups.std(dim=1, keepdim=True) if group_size > 1 else torch.ones_like(mean)
    normalised = ((groups - mean) / (std + eps)).view(-1)
    return normalised.unsqueeze(1) * mask


def gae(
    token_rewards: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor,
    gamma: float,
    lam: float,
    reduce: Reduce = _identity,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation over response tokens; returns (whitened advantages,
    returns). The value after the last token is 0."""
    length = token_rewards.shape[1]
    last = torch.zeros_like(token_rewards[:, 0])
    reversed_adv = []
    for t in reversed(range(length)):
        next_value = values[:, t + 1] if t + 1 < length else torch.zeros_like(last)
        delta = token_rewards[:, t] + gamma * next_value - values[:, t]
        last = delta + gamma * lam * last
        reversed_adv.append(last)
    advantages = torch.stack(reversed_adv[::-1], dim=1)
    returns = advantages + values
    return masked_whiten(advantages, mask, reduce) * mask, returns


def score_to_token_rewards(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The sequence score placed on the last response token (verl's token-level reward)."""
    rewards = torch.zeros_like(mask, dtype=scores.dtype)
    last = mask.long().cumsum(dim=1).argmax(dim=1)
    rewards[torch.arange(len(scores)), last] = scores
    return rewards


def kl_penalty(log_prob: torch.Tensor, ref_log_prob: torch.Tensor, kind: str) -> torch.Tensor:
    """Per-token KL(policy || reference) estimate: ``k1`` (``kl``) = log p - log q;
    ``low_var_kl`` (``k3``) = exp(q - p) - (q - p) - 1, clamped to [-10, 10]."""
    if kind in ("k1", "kl"):
        return log_prob - ref_log_prob
    if kind in ("k3", "low_var_kl"):
        diff = ref_log_prob - log_prob
        return torch.clamp(torch.exp(diff) - diff - 1, min=-10, max=10)
    raise ValueError(f"kl_penalty: unknown estimator {kind!r} (k1, kl, k3, low_var_kl)")


def policy_loss(
    log_prob: torch.Tensor, old_log_prob: torch.Tensor, advantages: torch.Tensor, clip_ratio: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO clipped surrogate per token, ``max(-A r, -A clip(r, 1-e, 1+e))``; and whether
    the clipped branch was taken (for the clip fraction)."""
    ratio = torch.exp(log_prob - old_log_prob)
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_ratio, 1.0 + clip_ratio)
    return torch.maximum(unclipped, clipped), (clipped > unclipped).float()


def value_loss(values: torch.Tensor, old_values: torch.Tensor, returns: torch.Tensor, clip: float) -> torch.Tensor:
    """Clipped value loss per token: ``0.5 max((v - R)^2, (clip(v, v_old +- c) - R)^2)``."""
    clipped = old_values + torch.clamp(values - old_values, -clip, clip)
    return 0.5 * torch.maximum((values - returns) ** 2, (clipped - returns) ** 2)


def entropy_from_logits(logits: torch.Tensor) -> torch.Tensor:
    """Entropy of the categorical distribution of each row of logits."""
    logits = logits.float()
    probs = torch.softmax(logits, dim=-1)
    return torch.logsumexp(logits, dim=-1) - (probs * logits).sum(dim=-1)


def token_log_probs(logits: torch.Tensor, tokens: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log softmax(logits / T) at ``tokens`` (computed in fp32)."""
    log_probs = torch.log_softmax(logits.float() / temperature, dim=-1)
    return log_probs.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)

"""Rollout engines behind one interface: :class:`Sampler` ``.generate(...) -> Rollout``.

The built-in sampler decodes autoregressively with the model's KV cache. It samples with the
Gumbel-max trick from noise drawn for the *global* batch and sliced per rank, so a
data-parallel run draws exactly the samples a single process would.
"""

from __future__ import annotations

import torch

from .losses import token_log_probs
from .sampling import Rollout, Sampler

__all__ = [
    "BuiltinSampler",
    "Rollout",
    "Sampler",
    "full_forward_log_probs",
    "gumbel_noise",
    "select_sampler",
    "vllm_available",
]


def gumbel_noise(
    shape: tuple[int, int], rows: tuple[int, int], generator: torch.Generator, device: torch.device
) -> torch.Tensor:
    """Gumbel(0, 1) noise for rows ``offset .. offset + shape[0]`` of a global ``[total, V]`` draw."""
    offset, total = rows
    uniform = torch.rand((total, shape[1]), generator=generator, dtype=torch.float64)
    uniform = uniform[offset : offset + shape[0]].clamp(1e-20, 1 - 1e-16)
    return (-torch.log(-torch.log(uniform))).float().to(device)


class BuiltinSampler:
    """Temperature sampling with a KV cache (prefill once, then one token per forward)."""

    name = "builtin"

    @torch.no_grad()
    def generate(
        self,
        model: torch.nn.Module,
        prompts: torch.Tensor,
        max_new_tokens: int,
        temperature: float,
        generator: torch.Generator,
        rows: tuple[int, int],
    ) -> Rollout:
        was_training = model.training
        model.eval()
        out = model(input_ids=prompts, use_cache=True)
        cache, logits = out.past_key_values, out.logits[:, -1]
        tokens, log_probs = [], []
        for step in range(max_new_tokens):
            scaled = torch.log_softmax(logits.float() / temperature, dim=-1)
            token = (scaled + gumbel_noise(tuple(scaled.shape), rows, generator, scaled.device)).argmax(dim=-1)
            tokens.append(token)
            log_probs.append(scaled.gather(-1, token.unsqueeze(-1)).squeeze(-1))
            if step + 1 < max_new_tokens:
                out = model(input_ids=token.unsqueeze(1), past_key_values=cache, use_cache=True)
                cache, logits = out.past_key_values, out.logits[:, -1]
        model.train(was_training)
        responses = torch.stack(tokens, dim=1)
        return Rollout(torch.cat([prompts, responses], dim=1), responses, torch.stack(log_probs, dim=1))


def full_forward_log_probs(
    model: torch.nn.Module, sequences: torch.Tensor, response_length: int, temperature: float
) -> torch.Tensor:
    """Log-probs of the response tokens from one forward pass without a cache (the check)."""
    from .model import response_logits

    logits = response_logits(model, sequences, response_length)
    return token_log_probs(logits, sequences[:, -response_length:], temperature)


def vllm_available() -> bool:
    try:
        import vllm  # noqa: F401
    except Exception:  # ImportError, or a broken install that raises at import
        return False
    return True


def select_sampler(engine: str, device: torch.device) -> Sampler:
    """``builtin``; ``vllm`` (error if missing); ``auto``: vLLM on a GPU when installed."""
    if engine == "builtin":
        return BuiltinSampler()
    if engine not in ("vllm", "auto"):
        raise ValueError(f"mini-PPO: unknown rollout engine {engine!r} (builtin, vllm, auto)")
    if vllm_available() and device.type == "cuda":
        from .vllm_sampler import VLLMSampler

        return VLLMSampler()
    if engine == "vllm":
        raise RuntimeError(
            "mini-PPO: engine 'vllm' asked for, but vLLM is not importable "
            "or there is no GPU; use engine 'auto' to fall back to the built-in sampler"
        )
    return BuiltinSampler()

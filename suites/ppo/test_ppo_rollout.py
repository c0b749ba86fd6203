"""Rollout: KV-cache decoding agrees with a full forward pass, sampling follows the
temperature-scaled distribution, the same seed gives the same samples, engine selection."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'pytest-rocmcompat[ppo]')")
pytest.importorskip("transformers", reason="transformers is not installed (pip install 'pytest-rocmcompat[ppo]')")

from minippo import task  # noqa: E402
from minippo.model import build_policy  # noqa: E402
from minippo.rollout import BuiltinSampler, full_forward_log_probs, gumbel_noise, select_sampler  # noqa: E402

pytestmark = pytest.mark.uses("transformers")


def _rollout(device, seed: int, temperature: float = 1.0, length: int = 4):
    policy = build_policy("tiny", seed=3, device=device)
    prompts = task.sample_prompts(16, 4, torch.Generator().manual_seed(seed)).to(device)
    out = BuiltinSampler().generate(
        policy, prompts, length, temperature, torch.Generator().manual_seed(seed), (0, len(prompts))
    )
    return policy, out


@pytest.fixture
def no_tf32(torch):
    """fp32 matmuls in full fp32 (another test may have allowed TF32), restored after."""
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32 = before


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_kv_cache_log_probs_match_full_forward(ppo_device, temperature, no_tf32):
    """Attention with a cache, one token at a time, must give what one causal pass gives."""
    policy, out = _rollout(ppo_device, seed=1, temperature=temperature)
    with torch.no_grad():
        full = full_forward_log_probs(policy, out.sequences, out.responses.shape[1], temperature)
    err = (full - out.log_probs).abs().max().item()
    assert err < 1e-4, f"KV-cache decoding log-probs differ from the full forward pass by {err:.2e}"
    assert out.sequences.shape == (16, 5 + 4)


def test_sampling_follows_the_softmax(ppo_device):
    """Gumbel-max samples of fixed logits have softmax(logits / T) frequencies."""
    logits = torch.tensor([2.0, 1.0, 0.0, -1.0], device=ppo_device)
    temperature, draws = 0.8, 20000
    noise = gumbel_noise((draws, 4), (0, draws), torch.Generator().manual_seed(0), ppo_device)
    tokens = (torch.log_softmax(logits / temperature, -1) + noise).argmax(-1)
    freq = torch.bincount(tokens, minlength=4).float().cpu() / draws
    expected = torch.softmax(logits.cpu() / temperature, -1)
    # binomial standard error <= 0.0036 at 20000 draws: 0.015 is > 4 sigma
    assert (freq - expected).abs().max() < 0.015, f"sampled {freq.tolist()} vs softmax {expected.tolist()}"


def test_noise_slices_are_rows_of_the_global_draw():
    whole = gumbel_noise((8, 16), (0, 8), torch.Generator().manual_seed(5), torch.device("cpu"))
    part = gumbel_noise((4, 16), (4, 8), torch.Generator().manual_seed(5), torch.device("cpu"))
    assert torch.equal(whole[4:], part)


def test_same_seed_same_samples_and_rewards(ppo_device):
    _, first = _rollout(ppo_device, seed=7)
    _, again = _rollout(ppo_device, seed=7)
    _, other = _rollout(ppo_device, seed=8)
    assert torch.equal(first.responses, again.responses)
    assert torch.equal(
        task.reward(first.sequences[:, :5], first.responses), task.reward(again.sequences[:, :5], again.responses)
    )
    assert not torch.equal(first.responses, other.responses)


def test_reward_rule():
    prompts = torch.tensor([[3, 1, 2, 5, task.SEP]] * 3)
    responses = torch.tensor([[3, 3], [3, 1], [12, 0]])
    assert task.reward(prompts, responses).tolist() == [1.0, 0.5, 0.0]


def test_rollout_engine_selection(ppo_device, request):
    sampler = select_sampler("auto", ppo_device)
    request.node.user_properties.append(("ppo_rollout_engine", sampler.name))
    try:
        import vllm  # noqa: F401

        has_vllm = True
    except Exception:
        has_vllm = False
    assert sampler.name == ("vllm" if has_vllm and ppo_device.type == "cuda" else "builtin")
    assert select_sampler("builtin", ppo_device).name == "builtin"
    with pytest.raises(ValueError, match="unknown rollout engine 'sglang'"):
        select_sampler("sglang", ppo_device)
    if not has_vllm:
        with pytest.raises(RuntimeError, match="vLLM is not importable"):
            select_sampler("vllm", ppo_device)

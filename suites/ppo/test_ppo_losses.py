"""The RL maths against hand-computed values, on the device under test (a stack with broken
exp/log/softmax/reductions fails here before any training)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'pytest-rocmcompat[ppo]')")

from minippo import losses  # noqa: E402


def t(values, device):
    return torch.tensor(values, dtype=torch.float32, device=device)


def close(actual, expected, tol=1e-5):
    expected = torch.as_tensor(expected, dtype=torch.float32)
    assert torch.allclose(actual.float().cpu(), expected, atol=tol, rtol=tol), (
        f"{actual.tolist()} != {expected.tolist()}"
    )


def test_kl_k1_and_low_var_kl(ppo_device):
    logp, ref = t([-1.0, -2.0], ppo_device), t([-1.5, -1.0], ppo_device)
    close(losses.kl_penalty(logp, ref, "k1"), [0.5, -1.0])
    # k3: exp(ref - logp) - (ref - logp) - 1 = exp(-0.5) + 0.5 - 1 and e - 2
    close(losses.kl_penalty(logp, ref, "low_var_kl"), [math.exp(-0.5) - 0.5, math.e - 2.0])
    assert losses.kl_penalty(logp, logp, "k3").abs().max() == 0  # zero when the policies agree
    close(losses.kl_penalty(t([0.0], ppo_device), t([20.0], ppo_device), "low_var_kl"), [10.0])  # clamped


def test_kl_unknown_estimator_is_named():
    with pytest.raises(ValueError, match="unknown estimator 'k9'"):
        losses.kl_penalty(torch.zeros(1), torch.zeros(1), "k9")


def test_grpo_group_normalised_advantages(ppo_device):
    scores = t([1, 0, 0, 0, 1, 1, 0, 0], ppo_device)
    mask = torch.ones(8, 2, device=ppo_device)
    adv = losses.grpo_advantages(scores, 4, mask)
    # group 1: mean 0.25, unbiased std 0.5; group 2: mean 0.5, std sqrt(1/3)
    s3 = 0.5 / math.sqrt(1 / 3)
    expected = [1.5, -0.5, -0.5, -0.5, s3, s3, -s3, -s3]
    close(adv[:, 0], expected, 1e-4)
    close(adv[:, 1], expected, 1e-4)  # same advantage on every response token
    same = losses.grpo_advantages(t([1, 1, 1, 1], ppo_device), 4, torch.ones(4, 1, device=ppo_device))
    close(same[:, 0], [0, 0, 0, 0])  # no signal when every sample scores the same


def test_ppo_clipped_policy_loss(ppo_device):
    ratio = [1.5, 1.5, 0.5, 1.1]
    old = t([-1.0] * 4, ppo_device)
    logp = old + torch.log(t(ratio, ppo_device))
    adv = t([1.0, -1.0, 1.0, 1.0], ppo_device)
    loss, clipped = losses.policy_loss(logp, old, adv, clip_ratio=0.2)
    # A>0, r=1.5: max(-1.5, -1.2) = -1.2 (clipped); A<0, r=1.5: max(1.5, 1.2) = 1.5;
    # A>0, r=0.5: max(-0.5, -0.8) = -0.5; inside the range: -1.1
    close(loss, [-1.2, 1.5, -0.5, -1.1])
    close(clipped, [1, 0, 0, 0])


def test_gae_and_returns(ppo_device):
    rewards = t([[0.0, 1.0], [0.0, 0.0]], ppo_device)
    values = t([[0.5, 0.8], [0.2, 0.1]], ppo_device)
    mask = torch.ones(2, 2, device=ppo_device)
    adv, returns = losses.gae(rewards, values, mask, gamma=1.0, lam=0.5)
    # row 1: d1 = 1 - 0.8 = 0.2, d0 = 0.8 - 0.5 = 0.3, A0 = 0.3 + 0.5 * 0.2 = 0.4
    # row 2: d1 = -0.1, d0 = 0.1 - 0.2 = -0.1, A0 = -0.1 - 0.05 = -0.15
    raw = torch.tensor([[0.4, 0.2], [-0.15, -0.1]])
    close(returns, raw + values.cpu())
    whitened = (raw - raw.mean()) / raw.std()
    close(adv, whitened, 1e-4)


def test_masked_whiten_ignores_masked_entries(ppo_device):
    values = t([[1.0, 3.0, 100.0]], ppo_device)
    mask = t([[1.0, 1.0, 0.0]], ppo_device)
    out = losses.masked_whiten(values, mask)
    close(out[:, :2], [[-1 / math.sqrt(2), 1 / math.sqrt(2)]], 1e-4)


def test_value_loss_clipping(ppo_device):
    v, old, ret = t([1.0, 1.0], ppo_device), t([0.0, 0.8], ppo_device), t([2.0, 0.0], ppo_device)
    # clipped prediction 0.5 is further from 2.0: 0.5 * 1.5^2; inside the clip: 0.5 * 1^2
    close(losses.value_loss(v, old, ret, clip=0.5), [1.125, 0.5])


def test_entropy_from_logits(ppo_device):
    logits = t([[0.0, 0.0, 0.0, 0.0], [math.log(0.5), math.log(0.25), math.log(0.25), -1e4]], ppo_device)
    close(losses.entropy_from_logits(logits), [math.log(4), 1.5 * math.log(2)])


def test_token_log_probs_with_temperature(ppo_device):
    logits = t([[[2.0, 0.0]]], ppo_device)
    tokens = torch.tensor([[0]], device=ppo_device)
    close(losses.token_log_probs(logits, tokens, temperature=2.0), [[-math.log1p(math.exp(-1.0))]])


def test_score_on_last_token(ppo_device):
    mask = torch.ones(2, 3, device=ppo_device)
    close(losses.score_to_token_rewards(t([0.5, 1.0], ppo_device), mask), [[0, 0, 0.5], [0, 0, 1.0]])

"""End to end: GRPO and PPO on a tiny Qwen2 learn the digit task; the LoRA (PEFT) and bf16
variants learn too; the same seed gives the same rewards; the phase throughput and MFU of a
larger model on a GPU. Targets and step budgets come from the seed sweep in docs/ppo.md."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'pytest-rocmcompat[ppo]')")
pytest.importorskip("transformers", reason="transformers is not installed (pip install 'pytest-rocmcompat[ppo]')")

from minippo.config import RunConfig  # noqa: E402
from minippo.learning import LEARNING_PRESETS, learn  # noqa: E402
from minippo.trainer import Trainer  # noqa: E402

pytestmark = pytest.mark.uses("transformers")


def _check_learning(result, preset, label: str) -> None:
    curve = " ".join(f"{r:.2f}" for r in result.rewards)
    assert result.start <= preset.start_max, (
        f"{label}: the first step already scores {result.start:.3f} > {preset.start_max} (reward curve: {curve})"
    )
    assert result.reached_at is not None, (
        f"{label}: mean reward over {preset.window} steps never reached {preset.target} within "
        f"{preset.config.steps} steps (best {result.best:.3f}; reward curve: {curve})"
    )
    for stats in result.history:
        assert math.isfinite(stats.kl) and math.isfinite(stats.entropy), f"{label}: non-finite statistics {stats}"


@pytest.mark.parametrize("algorithm", ["grpo", "ppo"])
def test_rl_learns(algorithm, ppo_device, ppo_report):
    preset = LEARNING_PRESETS[algorithm]
    result = learn(preset.config, preset, ppo_device)
    ppo_report(result.trainer, f"{algorithm} learning run")
    _check_learning(result, preset, algorithm)


@pytest.mark.uses("peft")
@pytest.mark.filterwarnings("ignore:.*is_gradient_checkpointing.*:FutureWarning")  # peft on transformers 5
def test_lora_grpo_learns(ppo_device, ppo_report):
    pytest.importorskip("peft", reason="peft is not installed (pip install 'pytest-rocmcompat[ppo]')")
    preset = LEARNING_PRESETS["lora"]
    result = learn(preset.config, preset, ppo_device)
    trainer = result.trainer
    trainable = sum(p.numel() for p in trainer.policy_params)
    assert 0 < trainable < 0.5 * sum(p.numel() for p in trainer.policy.parameters()), (
        "LoRA: only the rank-8 adapters should be trained"
    )
    assert all("lora_" in name for name, p in trainer.policy.named_parameters() if p.requires_grad)
    ppo_report(trainer, "GRPO + LoRA r8 learning run")
    _check_learning(result, preset, "GRPO + LoRA")


@pytest.mark.gpus(1)
@pytest.mark.parametrize("algorithm", ["grpo", "ppo"])
def test_bf16_learns(algorithm, gpu_device, ppo_report):
    if not torch.cuda.is_bf16_supported():
        pytest.skip(f"{torch.cuda.get_device_name(gpu_device)} has no bf16 support; the fp32 tests cover it")
    preset = LEARNING_PRESETS[algorithm]
    result = learn(preset.config.replace(bf16=True), preset, gpu_device)
    ppo_report(result.trainer, f"{algorithm} bf16 learning run")
    _check_learning(result, preset, f"{algorithm} bf16")


@pytest.mark.parametrize("algorithm", ["grpo", "ppo"])
def test_same_seed_same_rewards(algorithm, ppo_device):
    config = RunConfig(algorithm=algorithm, seed=11, steps=3)
    first = [s.reward for s in Trainer(config, ppo_device).run()]
    again = [s.reward for s in Trainer(config, ppo_device).run()]
    other = [s.reward for s in Trainer(config.replace(seed=12), ppo_device).run()]
    assert first == again, f"same seed, different rewards: {first} vs {again}"
    assert first != other, "a different seed gave the very same rewards: the seed is not used"


@pytest.mark.gpus(1)
def test_phase_throughput(gpu_device, ppo_size, ppo_report):
    """A larger model, bigger batch: rollout / inference / training breakdown and MFU."""
    bf16 = torch.cuda.is_bf16_supported()
    config = RunConfig(
        algorithm="ppo",
        size=ppo_size,
        steps=4,
        prompts_per_step=64,
        samples_per_prompt=8,
        response_length=16,
        mini_batches=2,
        micro_batches=2,
        bf16=bf16,
        init_std=0.02,
    )
    trainer = Trainer(config, gpu_device)
    trainer.step()  # warm-up: kernels, allocator, cache
    trainer.clock = type(trainer.clock)(trainer.device)
    history = trainer.run(config.steps)
    mfu = ppo_report(trainer, f"{ppo_size} throughput run")
    assert all(math.isfinite(s.kl) and math.isfinite(s.entropy) for s in history)
    assert all(trainer.clock.tokens_per_s(p) > 0 for p in ("rollout", "inference", "training"))
    assert mfu is None or 0 < mfu < 1, f"MFU {mfu} is outside (0, 1): the FLOP count or the peak is wrong"

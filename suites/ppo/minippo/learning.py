"""The learning criterion shared by the tests and the seed sweep (bench/ppo_seeds.py):
train until the windowed mean reward reaches the target, within a step budget."""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import RunConfig
from .trainer import StepStats, Trainer


@dataclass(frozen=True)
class LearningPreset:
    config: RunConfig
    target: float  # windowed mean reward to reach
    window: int  # steps in the moving window
    start_max: float  # the first step's mean reward (before any update) must be at most this


# Budgets from 50-seed sweeps on the CPU (docs/ppo.md): worst seeds needed 20 (GRPO), 21 (PPO)
# and 25 (LoRA) steps; first-step rewards were at most 0.109 (chance is 1/16).
LEARNING_PRESETS: dict[str, LearningPreset] = {
    "grpo": LearningPreset(RunConfig(algorithm="grpo", steps=40, samples_per_prompt=8), 0.6, 5, 0.2),
    "ppo": LearningPreset(RunConfig(algorithm="ppo", steps=40, samples_per_prompt=8), 0.6, 5, 0.2),
    "lora": LearningPreset(RunConfig(algorithm="grpo", steps=40, samples_per_prompt=8, lora=True), 0.6, 5, 0.2),
}


@dataclass
class LearningResult:
    rewards: list[float]
    start: float
    best: float
    reached_at: int | None  # step (1-based) whose window first reached the target
    trainer: Trainer = field(repr=False)
    history: list[StepStats] = field(repr=False, default_factory=list)


def learn(config: RunConfig, preset: LearningPreset, device="cpu") -> LearningResult:
    """Train ``config`` and stop as soon as the windowed mean reaches ``preset.target``."""
    trainer = Trainer(config, device)
    history: list[StepStats] = []
    reached, best = None, 0.0
    for _ in range(config.steps):
        history.append(trainer.step())
        rewards = [s.reward for s in history]
        if len(rewards) >= preset.window:
            mean = sum(rewards[-preset.window :]) / preset.window
            best = max(best, mean)
            if mean >= preset.target:
                reached = len(rewards)
                break
    rewards = [s.reward for s in history]
    start = rewards[0]
    return LearningResult(rewards, start, best, reached, trainer, history)

"""One RL step in verl's three phases: rollout, inference (old / reference log-probs,
critic values), training (PPO clipped loss, GRPO or GAE advantages, KL, entropy, AdamW,
gradient clipping, mini-batches of micro-batches with gradient accumulation)."""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass

import torch

from . import losses
from .config import RunConfig
from .dist import DataParallel
from .model import add_lora, build_critic, build_policy, count_parameters, response_logits, response_values
from .perf import PhaseClock
from .rollout import select_sampler
from .task import reward, sample_prompts


@dataclass
class StepStats:
    step: int
    reward: float  # global mean score of this step's samples (before the update)
    seconds: dict[str, float]
    kl: float
    clip_fraction: float
    entropy: float


class Trainer:
    def __init__(self, config: RunConfig, device: torch.device | str = "cpu", dp: DataParallel | None = None) -> None:
        self.cfg, self.device, self.dp = config, torch.device(device), dp
        self.world, self.rank = (dp.world, dp.rank) if dp else (1, 0)
        if config.prompts_per_step % self.world:
            raise ValueError(
                f"mini-PPO: prompts_per_step ({config.prompts_per_step}) must divide "
                f"over {self.world} data-parallel ranks"
            )
        policy = build_policy(config.size, config.seed, self.device, config.init_std)
        if config.lora:
            self.reference = None  # the base model: adapter disabled
            policy = add_lora(policy, config.lora_rank)
        else:
            self.reference = copy.deepcopy(policy).eval().requires_grad_(False)
        self.policy = policy
        self.critic = build_critic(config.size, config.seed, self.device) if config.algorithm == "ppo" else None
        trainable = [p for p in policy.parameters() if p.requires_grad]
        self.policy_params = trainable
        self.optimizer = torch.optim.AdamW(
            trainable, lr=config.lora_lr if config.lora else config.lr, weight_decay=config.weight_decay
        )
        self.critic_optimizer = (
            torch.optim.AdamW(self.critic.parameters(), lr=config.critic_lr, weight_decay=config.weight_decay)
            if self.critic
            else None
        )
        self.sampler = select_sampler(config.engine, self.device)
        self.prompt_gen = torch.Generator().manual_seed(config.seed * 7919 + 1)
        self.noise_gen = torch.Generator().manual_seed(config.seed * 7919 + 2)
        self.clock = PhaseClock(self.device)
        self.trained_parameters = count_parameters(policy, self.critic)
        self.step_index = 0

    # -- helpers ------------------------------------------------------------------------
    def _autocast(self):
        if self.cfg.bf16:
            return torch.autocast(self.device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def _sum(self, tensor: torch.Tensor) -> torch.Tensor:
        return self.dp.all_reduce_sum(tensor) if self.dp else tensor

    def _ref_logits(self, sequences: torch.Tensor) -> torch.Tensor:
        R = self.cfg.response_length
        if self.reference is not None:
            return response_logits(self.reference, sequences, R)
        with self.policy.disable_adapter():
            return response_logits(self.policy, sequences, R)

    # -- the RL step --------------------------------------------------------------------
    def step(self) -> StepStats:
        cfg, n, R = self.cfg, self.cfg.samples_per_prompt, self.cfg.response_length
        total = cfg.prompts_per_step * n
        local = total // self.world
        offset = self.rank * local
        prompts = sample_prompts(cfg.prompts_per_step, cfg.num_digits, self.prompt_gen)
        prompts = prompts.repeat_interleave(n, dim=0)[offset : offset + local].to(self.device)
        seq_tokens = local * (prompts.shape[1] + R)

        with self.clock.phase("rollout", local * R), self._autocast():
            rollout = self.sampler.generate(self.policy, prompts, R, cfg.temperature, self.noise_gen, (offset, total))
        scores = reward(prompts, rollout.responses, cfg.fixed_digit)
        mask = torch.ones_like(rollout.log_probs)

        with self.clock.phase("inference", seq_tokens), torch.no_grad(), self._autocast():
            old_log_probs = losses.token_log_probs(
                response_logits(self.policy, rollout.sequences, R), rollout.responses, cfg.temperature
            )
            ref_log_probs = losses.token_log_probs(
                self._ref_logits(rollout.sequences), rollout.responses, cfg.temperature
            )
            old_values = response_values(self.critic, rollout.sequences, R) if self.critic else None

        if cfg.algorithm == "grpo":
            advantages, returns = losses.grpo_advantages(scores, n, mask), None
        else:
            kl = losses.kl_penalty(old_log_probs, ref_log_probs, "k1")
            token_rewards = losses.score_to_token_rewards(scores, mask) - cfg.kl_reward_coef * kl
            advantages, returns = losses.gae(token_rewards, old_values, mask, cfg.gamma, cfg.lam, self._sum)

        stats = torch.zeros(4, dtype=torch.float64, device=self.device)  # kl, clipped, entropy, tokens
        with self.clock.phase("training", seq_tokens):
            global_rows = torch.arange(offset, offset + local, device=self.device)
            for k in range(cfg.mini_batches):
                rows = torch.nonzero((global_rows // n) % cfg.mini_batches == k).squeeze(1)
                mb_tokens = float(total // cfg.mini_batches * R)  # global token count of this mini-batch
                self.optimizer.zero_grad(set_to_none=True)
                if self.critic:
                    self.critic_optimizer.zero_grad(set_to_none=True)
                for micro in rows.tensor_split(cfg.micro_batches):
                    if len(micro):
                        stats += self._micro_step(
                            rollout,
                            micro,
                            old_log_probs,
                            ref_log_probs,
                            advantages,
                            old_values,
                            returns,
                            mask,
                            mb_tokens,
                        )
                self._apply(self.policy_params, self.optimizer)
                if self.critic:
                    self._apply(list(self.critic.parameters()), self.critic_optimizer)
        stats = self._sum(stats)
        score_stats = self._sum(torch.stack([scores.sum(), torch.tensor(float(len(scores)), device=scores.device)]))
        self.step_index += 1
        kl_sum, clipped, entropy, tokens = stats.tolist()
        return StepStats(
            self.step_index,
            float(score_stats[0] / score_stats[1]),
            dict(self.clock.seconds),
            kl_sum / tokens,
            clipped / tokens,
            entropy / tokens,
        )

    def _micro_step(
        self, rollout, rows, old_log_probs, ref_log_probs, advantages, old_values, returns, mask, normaliser: float
    ) -> torch.Tensor:
        cfg, R = self.cfg, self.cfg.response_length
        sequences, m = rollout.sequences[rows], mask[rows]
        with self._autocast():
            logits = response_logits(self.policy, sequences, R)
        log_probs = losses.token_log_probs(logits, rollout.responses[rows], cfg.temperature)
        entropy = losses.entropy_from_logits(logits.float() / cfg.temperature)
        pg, clipped = losses.policy_loss(log_probs, old_log_probs[rows], advantages[rows], cfg.clip_ratio)
        per_token = pg - cfg.entropy_coef * entropy
        kl = losses.kl_penalty(log_probs, ref_log_probs[rows], cfg.kl_loss_type)
        if cfg.algorithm == "grpo":
            per_token = per_token + cfg.kl_loss_coef * kl
        loss = losses.masked_sum(per_token, m) / normaliser
        if self.critic:
            with self._autocast():
                values = response_values(self.critic, sequences, R)
            vl = losses.value_loss(values, old_values[rows], returns[rows], cfg.value_clip)
            loss = loss + losses.masked_sum(vl, m) / normaliser
        loss.backward()
        return (
            torch.stack(
                [losses.masked_sum(kl, m), losses.masked_sum(clipped, m), losses.masked_sum(entropy, m), m.sum()]
            )
            .detach()
            .double()
        )

    def _apply(self, params: list[torch.nn.Parameter], optimizer: torch.optim.Optimizer) -> None:
        """All-reduce (data parallel), clip the global gradient norm, AdamW step."""
        if self.dp:
            self.dp.all_reduce_grads(params)
        torch.nn.utils.clip_grad_norm_(params, self.cfg.grad_clip)
        optimizer.step()

    def run(self, steps: int | None = None) -> list[StepStats]:
        return [self.step() for _ in range(self.cfg.steps if steps is None else steps)]

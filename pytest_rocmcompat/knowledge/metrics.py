"""Performance metrics that matrices may set ``floors`` for: the bundled ones (name -> (unit,
meaning)), and the shape of a project's own, declared in a matrix's ``metrics:`` section.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rocmcompat.outcomes import PROP_METRIC_PREFIX

METRIC_PREFIX = PROP_METRIC_PREFIX  # a measurement's JUnit property is METRIC_PREFIX + its name

METRICS: dict[str, tuple[str, str]] = {
    "gemm_bf16_tflops": ("TFLOP/s", "bf16 matrix multiply throughput"),
    "gemm_fp16_tflops": ("TFLOP/s", "fp16 matrix multiply throughput"),
    "gemm_fp32_tflops": ("TFLOP/s", "fp32 matrix multiply throughput"),
    "gemm_fp8_tflops": ("TFLOP/s", "fp8 matrix multiply throughput"),
    "copy_d2d_gbps": ("GB/s", "device-to-device copy, bytes read plus written"),
    "copy_h2d_gbps": ("GB/s", "host-to-device copy from pinned memory"),
    "copy_d2h_gbps": ("GB/s", "device-to-host copy into pinned memory"),
    "allreduce_busbw_gbps": ("GB/s", "all_reduce bus bandwidth at the largest size"),
    "allgather_busbw_gbps": ("GB/s", "all_gather bus bandwidth at the largest size"),
    "reducescatter_busbw_gbps": ("GB/s", "reduce_scatter bus bandwidth at the largest size"),
    "broadcast_busbw_gbps": ("GB/s", "broadcast bus bandwidth at the largest size"),
    "alltoall_busbw_gbps": ("GB/s", "all_to_all bus bandwidth at the largest size"),
    "ppo_train_tokens_per_s": ("tokens/s", "mini-PPO training throughput"),
    "ppo_rollout_tokens_per_s": ("tokens/s", "mini-PPO rollout throughput"),
    "ppo_inference_tokens_per_s": ("tokens/s", "mini-PPO inference (old/ref log-probs, values) throughput"),
    "ppo_train_mfu": ("%", "mini-PPO training model-FLOPs utilisation (6 x params x tokens/s / peak)"),
}
METRICS["sendrecv_busbw_gbps"] = ("GB/s", "ring send/recv bus bandwidth at the largest size")

# A project's own metrics, declared in a matrix's ``metrics:`` section (matrix/schema.py checks them).
BETTER = ("higher", "lower")  # a declared metric's direction: which way is an improvement
METRIC_NAME = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"  # letters, digits, _: no "@" (a size) or "[" (a backend)
MAX_UNIT = 24
MAX_LABEL = 80


@dataclass(frozen=True)
class DeclaredMetric:
    """A project's metric: its unit, which way is better, and whether it is a headline figure
    (recorded in the site's history, plotted, listed among the figures that moved).
    """

    name: str
    unit: str
    higher_is_better: bool = True
    headline: bool = True
    label: str = ""  # a reader's name for it; the metric's name where empty
    description: str = ""

    @property
    def shown_as(self) -> str:
        return self.label or self.name

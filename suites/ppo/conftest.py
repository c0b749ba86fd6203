"""Fixtures of the mini-PPO suite. Puts this folder on ``sys.path`` so the tests (and the
bench script) import the suite's code as the package ``minippo``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def ppo_device(torch):
    """Where the suite runs: the first GPU when torch sees one, else the CPU."""
    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


@pytest.fixture(scope="module", autouse=True)
def _one_cpu_thread(request):
    """The tiny CPU model gains nothing from intra-op threads and loses a lot to them on a
    busy machine: one thread while a module of this suite runs, restored after."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def ppo_size(ppo_device) -> str:
    """Model size of the throughput test: tiny on the CPU, larger on a GPU."""
    return "medium" if ppo_device.type == "cuda" else "tiny"


@pytest.fixture
def ppo_report(request, rocm_measure, rocm_env, capsys):
    """Record a finished run: engine property, per-phase seconds and tokens/s, training MFU
    against the device's datasheet peak, and the printed phase breakdown."""
    from minippo.perf import PHASES, breakdown, train_mfu
    from peaks import peak_for

    def report(trainer, label: str) -> float | None:
        clock, cfg = trainer.clock, trainer.cfg
        # user_properties directly: record_property warns under the default junit_family
        request.node.user_properties.append(("ppo_rollout_engine", trainer.sampler.name))
        request.node.user_properties.append(("ppo_device", str(trainer.device)))
        detail = (
            f"{label}: {cfg.algorithm}, {cfg.size} Qwen2, {trainer.trained_parameters} trained params, "
            f"{'bf16 autocast' if cfg.bf16 else 'fp32'}{', LoRA' if cfg.lora else ''}, "
            f"engine {trainer.sampler.name}"
        )
        for name in PHASES:
            rocm_measure(f"ppo_{name}_seconds", clock.seconds[name], "s", higher_is_better=False, detail=detail)
        rocm_measure("ppo_rollout_tokens_per_s", clock.tokens_per_s("rollout"), detail=detail + "; generated tokens")
        rocm_measure("ppo_inference_tokens_per_s", clock.tokens_per_s("inference"), detail=detail + "; sequence tokens")
        rocm_measure("ppo_train_tokens_per_s", clock.tokens_per_s("training"), detail=detail + "; sequence tokens")
        mfu = None
        gpu = rocm_env.gpus[0] if trainer.device.type == "cuda" and rocm_env.gpus else None
        peak = peak_for(gpu.name, gpu.arch) if gpu else None
        if peak is not None:
            tflops = peak.get("bf16" if cfg.bf16 else "fp32")
            mfu = train_mfu(trainer.trained_parameters, clock.tokens_per_s("training"), tflops)
            if mfu is not None:
                rocm_measure(
                    "ppo_train_mfu",
                    100 * mfu,
                    detail=detail + f"; 6 x params x tokens/s / {tflops} TFLOP/s "
                    f"({peak.product} {'bf16' if cfg.bf16 else 'fp32'} peak)",
                )
        with capsys.disabled():
            print(f"\nmini-PPO phase breakdown ({detail})\n{breakdown(clock, mfu)}")
        return mfu

    return report

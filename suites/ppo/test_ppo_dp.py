"""Data parallel: two real worker processes (gloo on the CPU, nccl over two GPUs) train the
same runs as one process; gradients are all-reduced, so rewards and weights must agree."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'pytest-rocmcompat[ppo]')")
pytest.importorskip("transformers", reason="transformers is not installed (pip install 'pytest-rocmcompat[ppo]')")

import torch.distributed as dist  # noqa: E402
from minippo.config import RunConfig  # noqa: E402
from minippo.dist import launch  # noqa: E402
from minippo.trainer import Trainer  # noqa: E402

pytestmark = pytest.mark.uses("transformers")

ALGORITHMS = ["grpo", "ppo"]
CONFIGS = [RunConfig(algorithm=a, seed=3, steps=3) for a in ALGORITHMS]


def _launch_once(backend: str, tmp_path_factory):
    """Both algorithms in one launch: the workers' start-up is paid once."""
    out = tmp_path_factory.mktemp(f"dp2-{backend}")
    return out, launch(2, backend, [c.to_dict() for c in CONFIGS], out, timeout=300)


@pytest.fixture(scope="module")
def gloo_runs(tmp_path_factory):
    if not (dist.is_available() and dist.is_gloo_available()):
        pytest.skip("torch.distributed with gloo is not available in this torch build")
    return _launch_once("gloo", tmp_path_factory)


@pytest.fixture(scope="module")
def nccl_runs(tmp_path_factory, gpu_device):
    if torch.cuda.device_count() < 2:
        pytest.skip("needs 2 GPUs")
    if not dist.is_nccl_available():
        pytest.skip("torch.distributed has no nccl (RCCL) backend in this build")
    return _launch_once("nccl", tmp_path_factory)


def _compare(index: int, runs, device, tolerance: float) -> None:
    out, ranks = runs
    single = Trainer(CONFIGS[index], device)
    rewards = [s.reward for s in single.run()]
    rank0, rank1 = ranks[0][index], ranks[1][index]
    assert rank0["rewards"] == rank1["rewards"], f"ranks disagree: {rank0} vs {rank1}"
    # step 1 samples with the initial weights: identical; later steps within float noise
    assert rank0["rewards"][0] == rewards[0], f"first-step rewards: DP {rank0['rewards']} vs single {rewards}"
    assert rank0["rewards"] == pytest.approx(rewards, abs=0.02), f"DP {rank0['rewards']} vs single {rewards}"
    dp_params = torch.load(out / f"params_rank0_{index}.pt")
    worst = max(
        (dp_params[name] - value.detach().cpu()).abs().max().item()
        for name, value in single.policy.state_dict().items()
    )
    assert worst < tolerance, f"DP=2 weights differ from the single-process run by up to {worst:.2e}"


@pytest.mark.parametrize("index", range(len(ALGORITHMS)), ids=ALGORITHMS)
def test_dp2_gloo_matches_single_process(index, gloo_runs):
    _compare(index, gloo_runs, torch.device("cpu"), 1e-4)


@pytest.mark.gpus(2)
@pytest.mark.parametrize("index", range(len(ALGORITHMS)), ids=ALGORITHMS)
def test_dp2_nccl_matches_single_process(index, nccl_runs, gpu_device):
    _compare(index, nccl_runs, gpu_device, 1e-3)

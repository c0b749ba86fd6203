"""``nccl-nvls-init``: NCCL releases whose communicator init fails where NVLS multicast set-up fails."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_rocmcompat.knowledge.checks import nccl_nvls
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, run_source

BASE = Environment(platform="cuda", python="3.11.7", os="Linux")
SIGNATURE = compile_signature(nccl_nvls.PREDICTS)

# (message as the source quotes it, source): NVLS set-up failing in communicator init
VERBATIM: list[tuple[str, str]] = [
    # NCCL 2.26.2 on 8x H100 (vLLM), cuMulticastAddDevice failing; NCCL_NVLS_ENABLE=0 avoided it
    (
        "[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 "
        "'the operation cannot be performed in the present state'",
        "https://github.com/NVIDIA/nccl/issues/1788",
    ),
    # NCCL 2.29.3 on pytorch's H100 CI (Fabric Manager failure), as torch's exception quotes NCCL's last error
    (
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 "
        "'the operation cannot be performed in the present state'.",
        "https://github.com/pytorch/pytorch/pull/177472",
    ),
    # the same bind failure as NCCL_DEBUG=WARN prints it (file, line and function)
    (
        "[2026-06-23 15:45:07] gpu-stress-dgc86-xfpt6:420:437 [5] transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN "
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 "
        "'the operation cannot be performed in the present state'.",
        "https://github.com/NVIDIA/DCGM/issues/304",
    ),
    # vLLM tensor parallelism: a CUDA call of the NVLS set-up failing in init
    (
        "kmaker-54-033138205093:44712:44746 [2] transport/nvls.cc:246 NCCL WARN Cuda failure 3 'initialization error'",
        "https://github.com/vllm-project/vllm/issues/9369",
    ),
]

# Other NCCL failures of real reports: no NVLS set-up named, never claimed
OTHER_FAILURES: list[tuple[str, str]] = [
    (
        "2025-04-04T16:57:57.7153695Z [2025-04-04 16:57:39] ip-10-0-9-191:95209:95228 [0] init.cc:416 NCCL WARN "
        "Cuda failure 'operation not supported'",
        "https://github.com/meta-pytorch/torchtune/issues/2556",
    ),
    ("Cuda failure 'initialization error'", "https://github.com/NVIDIA/nccl/issues/1029"),
    (
        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "https://github.com/aarora79/agentic-coding-harness-benchmarks/pull/173",
    ),
    ("ncclUnhandledCudaError: Call to CUDA function failed.", "https://github.com/pytorch/pytorch/pull/177472"),
]


def _found(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, list(stack))
    return [f for f in evaluate(env) if f.check == nccl_nvls.ID]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        (("arch=sm_90", "nccl=2.17.1"), "NCCL 2.17.1 fails communicator init where NVLS multicast set-up fails"),
        (("arch=sm_90", "nccl=2.27.2"), "(no fall back until 2.27.3)"),
        (("arch=sm_100", "lib.nvidia-nccl-cu12=2.21.5"), "NCCL 2.21.5 fails"),  # the NCCL wheel states it
        (("arch=sm_90", "torch=2.5.1+cu124"), "NCCL 2.21.5 fails"),  # the NCCL torch 2.5.1's wheel pins
        (("arch=sm_90", "nccl=2.29.2"), "2.29.2 made a failed multicast bind fatal again"),
        (("arch=sm_90a", "nccl=2.30.7"), "NCCL 2.30.7 fails"),
        (("arch=sm_90", "nccl=2.28.9", "env.NCCL_NVLS_ENABLE=1"), "NCCL_NVLS_ENABLE=1 forces NVLS"),
        (("arch=sm_90", "nccl=2.21.5", "env.NCCL_NVLS_ENABLE=2"), "NCCL 2.21.5 fails"),  # 2: the default
        (("arch=sm_86,sm_90", "nccl=2.21.5"), "(GPU sm_90: NVLS"),  # the sm_90 GPU is named
        (("platform=cuda", "nccl=2.21.5"), "(no GPU arch stated: NVLS on an sm_90/sm_100"),  # may be such a host
        (("arch=sm_90",), "the stack states no NCCL version"),  # an unknown NCCL: most releases are fatal
        (("platform=cuda",), "the stack states no NCCL version"),
        (("arch=sm_100", "env.NCCL_NVLS_ENABLE=1"), "the stack states no NCCL version"),
    ],
)
def test_an_nccl_that_does_not_fall_back_is_a_collective_risk(stack: tuple[str, ...], problem: str) -> None:
    (finding,) = _found(*stack)
    assert problem in finding.reason
    assert finding.conditional and finding.uncertain  # not counted against the stack; only its failure confirms it
    assert "NCCL_NVLS_ENABLE" in finding.fix


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=sm_90", "nccl=2.16.5"),  # before NVLS
        ("arch=sm_90", "nccl=2.27.3"),  # falls back by default
        ("arch=sm_90", "nccl=2.28.9"),
        ("arch=sm_90", "nccl=2.31.1"),  # newer than the newest tag read: not judged
        ("arch=sm_89", "nccl=2.21.5"),  # below sm_90: no NVLink SHARP
        ("arch=sm_120", "nccl=2.21.5"),  # RTX 50 series: no NVSwitch baseboard
        ("arch=sm_80", "nccl=2.29.3"),
        ("arch=sm_90", "nccl=2.21.5", "env.NCCL_NVLS_ENABLE=0"),  # NVLS switched off
        ("arch=sm_90", "nccl=2.30.7", "env.NCCL_NVLS_ENABLE=0x0"),  # strtoll reads 0
        ("arch=sm_90", "env.NCCL_NVLS_ENABLE=0"),  # no NCCL stated, NVLS switched off
        ("arch=sm_89",),  # no NCCL stated, no NVSwitch GPU
        ("arch=sm_90", "lib.nvidia-nccl-cu11=2.21.5"),  # built with CUDA 11: NVLS stubs only
        ("arch=sm_90", "torch=2.5.1+cu118"),  # its NCCL is CUDA 11's
        ("arch=sm_90", "nccl=2.21.5", "driver_cuda=12.0"),  # a driver without multicast
        ("platform=rocm", "arch=gfx942", "nccl=2.21.5"),  # RCCL
    ],
)
def test_a_stack_without_the_risk_is_not_found(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_the_finding_reaches_every_test_and_names_its_source() -> None:
    """NCCL runs under vLLM, SGLang, DeepSpeed and torchrun code too: the risk reaches every test, claiming
    only NCCL's NVLS messages, and is not counted against the stack (conditional)."""
    (finding,) = _found("arch=sm_90", "nccl=2.21.5")
    assert finding.everything and finding.conditional and finding.uncertain
    assert finding.link == "https://github.com/NVIDIA/nccl/blob/v2.26.6-1/src/transport/nvls.cc"
    (rule,) = [
        r for r in compile_rules(evaluate(apply_overrides(BASE, ["arch=sm_90", "nccl=2.21.5"]))) if r.id == nccl_nvls.ID
    ]
    assert rule.at_risk and rule.applies_to.everything
    assert rule.signature is not None and rule.signature.pattern == PREDICTS[nccl_nvls.ID]


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_signature_matches_what_users_see(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize(("message", "source"), OTHER_FAILURES)
def test_other_nccl_failures_are_not_claimed(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is None


_SOURCE = """
import pytest

@pytest.mark.uses("torch.distributed")
def test_predicted():
    raise RuntimeError({predicted!r})

@pytest.mark.uses("torch.distributed")
def test_unrelated():
    raise ValueError({unrelated!r})

@pytest.mark.uses("nccl")
def test_passes():
    pass

def test_elsewhere():
    raise RuntimeError({predicted!r})
"""


def test_predicted_is_known_bad_unrelated_fails_and_a_pass_stays_a_pass(pytester: pytest.Pytester) -> None:
    """Through pytest: an NVLS failure is known-bad in a collective test and in one that names no collective
    (a vLLM or torchrun test meets NCCL too), an unrelated one stays a failure with no cause named (an
    unconfirmed risk), a passing collective test stays a pass (a risk, no stale rule).
    """
    source = _SOURCE.format(predicted=VERBATIM[1][0], unrelated=UNRELATED)
    cases = run_source(pytester, source, ("arch=sm_90", "nccl=2.21.5"), env=BASE)
    predicted, unrelated, passes = cases["test_predicted"], cases["test_unrelated"], cases["test_passes"]
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == nccl_nvls.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert nccl_nvls.ID not in unrelated.get("rocm_diagnosis", "")  # an unconfirmed risk is no cause
    assert passes.get("rocm_outcome", "pass") == "pass"
    assert cases["test_elsewhere"]["rocm_outcome"] == "known-bad"


def test_a_live_probe_without_nccl_is_not_judged_as_an_unknown_nccl() -> None:
    """Only a stated stack gets the unknown-NCCL risk: a live host's NCCL is the one its torch imports."""
    stated = apply_overrides(BASE, ["arch=sm_90"])
    live = replace(stated, source="live", origin="")  # the same GPU, probed
    assert [f for f in evaluate(live) if f.check == nccl_nvls.ID] == []
    (found,) = _found("arch=sm_90")
    assert found.uncertain and found.conditional and found.everything
    assert "nccl=<torch.cuda.nccl.version()>" in found.fix


def test_a_named_torch_whose_nccl_is_unknown_says_so() -> None:
    """A torch no table maps to its NCCL (an NGC/source build) leaves the NCCL unknown: the reason says whose."""
    (found,) = _found("arch=sm_90", "torch=2.4.0a0+git1234abc")
    assert "torch 2.4.0a0+git1234abc's NCCL is not known here" in found.reason
    (bare,) = _found("arch=sm_90")
    assert "the stack states no NCCL version" in bare.reason

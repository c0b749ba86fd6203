"""``rccl-arch-not-in-release``: the processors each ROCm release's RCCL is built for."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rccl_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
SIGNATURE = compile_signature(rccl_arch.PREDICTS)

# (message as the source quotes it, source): an RCCL collective on a GPU it has no code for
VERBATIM: list[tuple[str, str]] = [
    # RCCL 2.7.6 on an RX 5700 XT (gfx1010, in no RCCL list): rccl-tests' all_reduce_perf
    (
        '/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:92: guarantee(false && "hipErrorNoBinaryForGpu: '
        "Coudn't find binary for current devices!\")",
        "https://github.com/ROCm/rccl/issues/289",
    ),
    # RCCL's rcclCudaErrorHandler, ERROR("HIP failure: '%s'", ...), with HIP's text for hipErrorInvalidDeviceFunction
    # (https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp)
    (
        "HIP failure: 'invalid device function'",
        "https://github.com/ROCm/rocm-systems/blob/8260530b7bf3a6681aa9a5507ff1c13ee85cf2e1/projects/rccl/src/include/debug.h",
    ),
    # RCCL's host validator refusing a collective whose kernels were not generated for the GPU
    (
        "ncclPrepareTasks: unsupported architecture (gfx1250) for collective AllReduce(RING, LL, Sum, ncclFloat32, "
        "Acc=1, Pipeline=0)",
        "https://github.com/ROCm/rocm-systems/pull/7184",
    ),
    # the HIP runtime finding no code object for the GPU in a fat binary, on an RX 6600 (gfx1032, RDNA2 but not gfx1030); HSA_OVERRIDE_GFX_VERSION=10.3.0 fixed it
    (
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "https://github.com/ROCm/legacy-rocm-build/issues/2061",
    ),
    # the NCCL/RCCL warning format (RCCL's src/include/checks.h prints the same "Cuda failure '%s'")
    (
        "NCCL WARN Cuda failure 'invalid device function' and 'invalid device ordinal'",
        "https://github.com/NVIDIA/nccl/issues/932",
    ),
    ("Cuda failure 'invalid device function'", "https://github.com/horovod/horovod/issues/1171"),
]

# Other RCCL/NCCL failures of real reports: no missing code object, never claimed
OTHER_FAILURES: list[tuple[str, str]] = [
    (
        "UVOSLinux:19402:19419 [0] /usr/src/debug/rccl/build/hipify/src/transport/p2p.cc:237 NCCL WARN Cuda failure "
        "'invalid argument'",
        "https://github.com/ROCm/rccl/issues/1454",
    ),
    ("Cuda failure 1 'invalid argument'", "https://github.com/NVIDIA/nccl/issues/1410"),
    (
        "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 999 'unknown error'",
        "https://github.com/pytorch/pytorch/issues/170045",
    ),
    (
        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "https://github.com/vllm-project/vllm/issues/17170",
    ),
    (
        "Test NCCL failure common.cu:1285 'internal error - please report this issue to the NCCL developers'",
        "https://github.com/ROCm/rccl-tests/issues/50",
    ),
]


def _found(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == rccl_arch.ID]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # RDNA2 variants, RDNA1 and APUs are in no list; RDNA4 first in 6.3; MI300 first in 5.7
        (("arch=gfx1031", "torch=2.5.1+rocm6.2"), "RCCL of ROCm 6.2 has no device code for gfx1031"),
        (("arch=gfx1010", "rocm=6.1.2"), "ROCm 6.1 has no device code for gfx1010"),
        (("arch=gfx1103", "rocm=6.3.1"), "ROCm 6.3 has no device code for gfx1103"),
        (("arch=gfx1151", "rocm=6.3.0"), "ROCm 6.3 has no device code for gfx1151"),
        (("arch=gfx1201", "torch=2.4.1+rocm6.1"), "ROCm 6.1 has no device code for gfx1201"),
        (("arch=gfx942", "rocm=5.6.1"), "ROCm 5.6 has no device code for gfx942"),
        # the releases before 5.4, generated from the tags: gfx1030 and gfx90a first in 4.3, gfx803 in 3.5
        (("arch=gfx1031", "rocm=5.2.3"), "RCCL of ROCm 5.2 has no device code for gfx1031"),
        (("arch=gfx1030", "torch=1.9.0+rocm4.2"), "ROCm 4.2 has no device code for gfx1030"),
        (("arch=gfx1100", "rocm=5.3.0"), "ROCm 5.3 has no device code for gfx1100"),
        (("arch=gfx803", "rocm=3.3.0"), "ROCm 3.3 has no device code for gfx803"),
        # 6.3 dropped Polaris and Vega 10
        (("arch=gfx900", "rocm=6.3.2"), "ROCm 6.3 has no device code for gfx900"),
        (("arch=gfx803", "torch=2.6.0+rocm6.3"), "ROCm 6.3 has no device code for gfx803"),
        # an override to a target of no list is no help
        (("arch=gfx90a", "rocm=6.2", "env.HSA_OVERRIDE_GFX_VERSION=10.3.1"), "gfx90a (as gfx1031 by"),
    ],
)
def test_a_gpu_the_release_s_rccl_lacks_is_found(stack: tuple[str, ...], problem: str) -> None:
    (finding,) = _found(*stack)
    assert problem in finding.reason
    assert finding.conditional and not finding.uncertain  # only collective tests meet it


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1030", "torch=2.5.1+rocm6.2"),
        ("arch=gfx1100", "rocm=5.4.3"),
        ("arch=gfx90a:sramecc+:xnack-", "rocm=6.0.2"),  # feature suffixes name the same processor
        ("arch=gfx942", "rocm=5.7.1"),
        ("arch=gfx1201", "rocm=6.3.0"),
        ("arch=gfx900", "rocm=6.2.4"),  # still built before 6.3
        ("arch=gfx1031", "torch=2.5.1+rocm6.2", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),  # loads gfx1030's code
        ("arch=gfx1151", "rocm=7.12.0"),  # TheRock's releases (7.9 and later): not judged
        ("arch=gfx1151", "torch=2.10.0a0+rocm7.11.0a20251211"),  # TheRock's own builds: not judged
        ("arch=gfx1030", "rocm=4.3.1"),
        ("arch=gfx803", "torch=1.8.1+rocm4.0.1"),
        ("arch=gfx1031", "rocm=3.0"),  # before the table (3.3)
        # no ROCm release named: a risk (tests/knowledge/test_rccl_arch_unstated.py)
        ("rocm=6.2",),  # no arch named
        ("arch=gfx1031", "torch=2.5.1+cu124", "rocm=6.2"),  # a CUDA torch loads no RCCL
    ],
)
def test_a_served_or_unjudged_stack_is_not_found(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_torch_s_bundled_rccl_is_judged_before_the_system_rocm() -> None:
    """A +rocm wheel bundles the librccl.so of its ROCm build; the system ROCm only without one."""
    assert _found("arch=gfx1201", "torch=2.5.1+rocm6.2", "rocm=6.3.0")
    assert _found("arch=gfx1201", "torch=2.6.0+rocm6.3", "rocm=6.2.0") == []


def test_the_finding_reaches_collective_tests_and_names_its_source() -> None:
    (finding,) = _found("arch=gfx1031", "rocm=6.1")
    assert finding.uses == ("nccl", "torch.distributed") and finding.markers == ()
    assert finding.nodeids == ("suites/collectives", "*/suites/collectives/*")
    assert finding.link == "https://github.com/ROCm/rccl/blob/rocm-6.1.0/CMakeLists.txt"
    (rule,) = [
        r
        for r in compile_rules(evaluate(apply_overrides(BASE, ["platform=rocm", "arch=gfx1031", "rocm=6.1"])))
        if r.id == rccl_arch.ID
    ]
    assert rule.applies_to.uses == ("nccl", "torch-distributed") and not rule.applies_to.everything


def test_every_release_s_list_is_sourced_and_changes_only_by_named_steps() -> None:
    for release, (targets, source) in rccl_arch.TARGETS.items():
        assert source.startswith(
            ("https://github.com/ROCm/rccl/blob/", "https://github.com/ROCm/rocm-systems/blob/")
        ), release
        assert len(set(targets)) == len(targets) and all(t.startswith("gfx") for t in targets)
    table = {release: set(targets) for release, (targets, _) in rccl_arch.TARGETS.items()}
    assert table["5.7"] - table["5.6"] == {"gfx940", "gfx941", "gfx942"} and table["5.6"] <= table["5.7"]
    assert table["6.2"] == table["5.7"]
    assert table["6.2"] - table["6.3"] == {"gfx803", "gfx900"} and table["6.3"] - table["6.2"] == {"gfx1200", "gfx1201"}


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_signature_matches_what_users_see(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize(("message", "source"), OTHER_FAILURES)
def test_other_collective_failures_are_not_claimed(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is None


@pytest.mark.parametrize("uses", ["torch.distributed", "nccl", "rccl", "RCCL"])
def test_predicted_is_known_bad_and_unrelated_fails_with_the_cause(pytester: pytest.Pytester, uses: str) -> None:
    """Through pytest: a collective test's missing-code failure is known-bad, an unrelated one stays a
    failure with the stack problem as its likely cause, and a test that names no collective is not reached.
    """
    stack = ("platform=rocm", "arch=gfx1031", "torch=2.5.1+rocm6.2", "torch_archs=gfx1031")
    found, unrelated = predicted_and_unrelated(pytester, VERBATIM[1][0], stack, uses=uses, env=BASE)
    assert found["rocm_rule"] == rccl_arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{rccl_arch.ID}: RCCL of ROCm 6.2 has no device code for gfx1031")

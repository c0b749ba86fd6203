"""``rccl-arch-not-in-release`` for ROCm 6.4 and 7.0-7.2, and the RCCL releases that shipped with them.

The lists: RCCL's ``DEFAULT_GPUS`` at a development commit of the 7.0 line (``rccl_arch.SOURCE_7``: gfx950
added, gfx940/941 gone); RCCL 2.26.6 "for ROCm 7.0.0" is the release that "Added new GPU target gfx950",
and no later target comes before RCCL 2.28.3 "for ROCm 7.12" (``rccl_arch.RCCL_RELEASES_SOURCE``). 6.4
keeps the 6.3 list. The RCCL versions: that CHANGELOG's "RCCL 2.22.3 for ROCm 6.4.0" ... "RCCL 2.27.7 for
ROCm 7.2.0" headings.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rccl_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
SIGNATURE = compile_signature(rccl_arch.PREDICTS)


def _found(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == rccl_arch.ID]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # 6.4: no MI350 yet, and still no Strix Halo, RDNA2 variant or APU
        (("arch=gfx950", "rocm=6.4.1"), "RCCL of ROCm 6.4 has no device code for gfx950"),
        (("arch=gfx1151", "rocm=6.4.3"), "RCCL of ROCm 6.4 has no device code for gfx1151"),
        (("arch=gfx1032", "torch=2.7.1+rocm6.4"), "RCCL of ROCm 6.4 has no device code for gfx1032"),
        # 7.0-7.2: gfx1151 only from RCCL 2.28.3 (TheRock's 7.12); gfx940/941 gone; Vega 10 still absent
        (("arch=gfx1151", "rocm=7.0.2"), "RCCL of ROCm 7.0 has no device code for gfx1151"),
        (("arch=gfx1151", "torch=2.9.1+rocm7.1"), "RCCL of ROCm 7.1 has no device code for gfx1151"),
        (("arch=gfx1103", "rocm=7.2.0"), "RCCL of ROCm 7.2 has no device code for gfx1103"),
        (("arch=gfx941", "rocm=7.0.0"), "RCCL of ROCm 7.0 has no device code for gfx941"),
        (("arch=gfx900", "rocm=7.1.1"), "RCCL of ROCm 7.1 has no device code for gfx900"),
    ],
)
def test_a_gpu_outside_a_recent_release_s_list_is_found(stack: tuple[str, ...], problem: str) -> None:
    (finding,) = _found(*stack)
    assert problem in finding.reason, finding.reason
    assert finding.conditional and not finding.uncertain


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx942", "rocm=6.4.0"),
        ("arch=gfx1201", "torch=2.8.0+rocm6.4"),
        ("arch=gfx950", "rocm=7.0.0"),
        ("arch=gfx950", "torch=2.9.1+rocm7.1"),
        ("arch=gfx906", "rocm=7.2.0"),  # still in RCCL's list
        ("arch=gfx1100", "rocm=7.2.1"),
        ("arch=gfx1031", "rocm=7.1.0", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),  # loads gfx1030's code
    ],
)
def test_a_gpu_in_a_recent_release_s_list_is_not_found(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


@pytest.mark.parametrize(
    ("rccl", "series"),
    [("2.22.3", "6.4"), ("2.26.6", "7.0"), ("2.27.7", "7.1"), ("2.21.5", "6.3")],
)
def test_a_stated_rccl_is_judged_by_the_release_it_shipped_with(rccl: str, series: str) -> None:
    (finding,) = _found("arch=gfx1151", f"nccl={rccl}")
    assert f"RCCL of ROCm {series} has no device code for gfx1151" in finding.reason, finding.reason
    assert finding.uncertain  # known by the RCCL version only: a source build may target more


def test_a_stated_rccl_of_a_release_serving_the_gpu_is_not_found() -> None:
    assert _found("arch=gfx950", "nccl=2.26.6") == []
    assert _found("arch=gfx950", "nccl=2.22.3")  # 6.4's RCCL: no gfx950


def test_recent_lists_change_only_by_the_named_steps() -> None:
    table = {release: set(targets) for release, (targets, _) in rccl_arch.TARGETS.items()}
    assert table["6.4"] == table["6.3"]
    assert table["7.0"] - table["6.4"] == {"gfx950"} and table["6.4"] - table["7.0"] == {"gfx940", "gfx941"}
    assert table["7.0"] == table["7.1"] == table["7.2"]
    assert len(rccl_arch.TARGETS["7.0"][0]) == 11  # DEFAULT_GPUS at SOURCE_7 names eleven processors
    assert {rccl_arch.TARGETS[r][1] for r in ("7.0", "7.1", "7.2")} == {rccl_arch.SOURCE_7}


def test_the_rccl_releases_map_to_tabled_series_in_order() -> None:
    releases = list(rccl_arch.RCCL_RELEASES.items())
    assert releases[-3:] == [("2.22.3", "6.4"), ("2.26.6", "7.0"), ("2.27.7", "7.1")]
    series = [tuple(int(p) for p in s.split(".")) for _, s in releases]
    assert series == sorted(series)  # a newer RCCL never shipped with an older ROCm
    # a series may ship two numberings (5.6: CHANGELOG's 2.16.2, the tag's version.mk 2.16.5), never more
    assert all(series.count(one) <= 2 for one in series)
    assert rccl_arch.RCCL_RELEASES_SOURCE.startswith("https://github.com/ROCm/rocm-systems/blob/")


# (message as the source prints it, source): RCCL or HIP source text for a GPU the library has no code for
FROM_SOURCE: list[tuple[str, str]] = [
    # WARN("Failed to get kernel attributes") in ncclInitKernelsForDevice (RCCL 2.20.5-2.21.5), printed after
    # debug.cc's "<host>:<pid>:<tid> [<dev>] <file>:<line> NCCL WARN " prefix
    ("NCCL WARN Failed to get kernel attributes", "https://github.com/ROCm/rccl/blob/rocm-6.2.0/src/enqueue.cc"),
    # checks.h's WARN("Cuda failure '%s'", ...) with HIP's text for hipErrorNoBinaryForGpu
    # (https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp)
    (
        "NCCL WARN Cuda failure 'no kernel image is available for execution on the device'",
        "https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/include/checks.h",
    ),
    # rcclCudaErrorHandler's ERROR("HIP failure: '%s'", ...), the same HIP text
    (
        "HIP failure: 'no kernel image is available for execution on the device'",
        "https://github.com/ROCm/rocm-systems/blob/8260530b7bf3a6681aa9a5507ff1c13ee85cf2e1/projects/rccl/src/include/debug.h",
    ),
]

# Other RCCL or HIP texts (same sources): not a missing code object, never claimed
NOT_CLAIMED: list[tuple[str, str]] = [
    # checks.h's warning with HIP's text for hipErrorInvalidImage
    (
        "NCCL WARN Cuda failure 'device kernel image is invalid'",
        "https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp",
    ),
    # enqueue.cc's warnings for a collective left out of the build (not a processor) and for no algorithm
    (
        "NCCL WARN appendWorkElemP2p: unsupported collective. Please ensure the collective has been enabled in build.",
        "https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/enqueue.cc",
    ),
    (
        "NCCL WARN Error : no algorithm/protocol available",
        "https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/enqueue.cc",
    ),
]


@pytest.mark.parametrize(("message", "source"), FROM_SOURCE)
def test_signature_matches_rccl_s_own_text(message: str, source: str) -> None:
    assert source.startswith("https://github.com/ROCm/")
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize(("message", "source"), NOT_CLAIMED)
def test_other_texts_are_not_claimed(message: str, source: str) -> None:
    assert source.startswith("https://github.com/ROCm/")
    assert SIGNATURE.search(message) is None

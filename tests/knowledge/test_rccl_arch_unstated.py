"""``rccl-arch-not-in-release`` for stacks that name only their RCCL, or no ROCm release at all.

RCCL's CHANGELOG.md names the ROCm release each RCCL shipped with (``RCCL 2.20.5 for ROCm 6.2.0``,
``rccl_arch.RCCL_RELEASES_SOURCE``): a stack stating ``nccl=2.20.5`` (what torch reports on ROCm)
is judged by ROCm 6.2's list. A stack naming no release gets a risk where some or all of the tabled
releases' RCCL lack the GPU; an RCCL release outside the table is not judged.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rccl_arch
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# the HIP runtime loading RCCL on a GPU its kernels were not built for, verbatim from
# https://github.com/ROCm/rccl/issues/289
NO_KERNEL = (
    '/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:92: guarantee(false && "hipErrorNoBinaryForGpu: '
    "Coudn't find binary for current devices!\")"
)


def _found(*stack: str) -> list[tuple[bool, str]]:
    env = derive(apply_overrides(BASE, list(stack)))
    return [(f.uncertain, f.reason) for f in rccl_arch.check(env)]


@pytest.mark.parametrize(
    ("stack", "uncertain", "text"),
    [
        # known by the RCCL version only: a risk (a distribution's or a source build may target more)
        (("nccl=2.20.5",), True, "RCCL of ROCm 6.2 has no device code for gfx1031"),
        (("nccl=2.17.1",), True, "RCCL of ROCm 5.7 has no device code for gfx1031"),
        (("lib.rccl=2.18.3",), True, "RCCL of ROCm 6.0 has no device code for gfx1031"),  # a package's version
        (("nccl=2.20.5", "rocm=6.2"), False, "RCCL of ROCm 6.2 has no device code for gfx1031"),  # the release named
        # an RCCL of before 5.4, as its tag's version.mk numbers it (generated): the release it shipped with
        (("nccl=2.12.12",), True, "RCCL of ROCm 5.2 has no device code for gfx1031"),
        (("nccl=2.16.5",), True, "RCCL of ROCm 5.6 has no device code for gfx1031"),
        ((), True, "gfx1031 in none of ROCm 5.4, 5.5, 5.6, 5.7, 6.0, 6.1, 6.2, 6.3, 6.4, 7.0, 7.1, 7.2"),
    ],
)
def test_gfx1031(stack: tuple[str, ...], uncertain: bool, text: str) -> None:
    ((found_uncertain, reason),) = _found("platform=rocm", "arch=gfx1031", *stack)
    assert found_uncertain is uncertain and text in reason, reason


def test_a_gpu_only_some_releases_serve_is_a_risk_naming_them() -> None:
    ((uncertain, reason),) = _found("platform=rocm", "arch=gfx1200")
    assert uncertain and "gfx1200 only in ROCm 6.3, 6.4, 7.0, 7.1, 7.2" in reason


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx90a",),  # every release since 5.4 serves it (4.3 was its first: an older one is not assumed)
        ("arch=gfx1100",),  # likewise: its first RCCL is 5.4's
        ("arch=gfx1031", "nccl=2.28.3"),  # an RCCL of TheRock's releases (7.11 on): not judged
        ("arch=gfx1031", "rocm=7.11"),
        ("arch=gfx1030", "nccl=2.20.5"),
        ("arch=gfx1031", "nccl=2.20.5", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),  # runs gfx1030's code
    ],
)
def test_nothing_where_the_release_serves_it_or_is_unknown(stack: tuple[str, ...]) -> None:
    assert _found("platform=rocm", *stack) == []


def test_every_tabled_rccl_names_a_tabled_release() -> None:
    assert set(rccl_arch.RCCL_RELEASES.values()) <= set(rccl_arch.TARGETS)


def test_through_pytest_an_rccl_stated_stack(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx1031", "nccl=2.20.5")
    found, unrelated = predicted_and_unrelated(pytester, NO_KERNEL, stack, uses="torch.distributed", env=BASE)
    assert found["rocm_rule"] == rccl_arch.ID
    assert "rocm_rule" not in unrelated

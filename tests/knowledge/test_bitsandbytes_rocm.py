"""``bitsandbytes-rocm-build``: bitsandbytes' ROCm libraries per release, ROCm and GPU target."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm, bitsandbytes_rocm_data
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM = ("platform=rocm",)


def _found(*stack: str) -> list[tuple[str, bool]]:
    env = apply_overrides(BASE, list(stack))
    return [(f.reason, f.conditional) for f in evaluate(env) if f.check == bitsandbytes_rocm.ID]


@pytest.mark.parametrize(
    ("stack", "problem", "conditional"),
    [
        # PyPI wheels before 0.49.0 carry no ROCm library (0.48.0's guide: preview wheels or source only)
        (("arch=gfx90a", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.45.0"), "carries no ROCm library", False),
        (("arch=gfx942", "rocm=6.3.1", "lib.bitsandbytes=0.48.2"), "carries no ROCm library", False),
        # no bitsandbytes build of any kind serves ROCm 5.x (0.44.1: "from ROCm 6.1 onwards")
        (("arch=gfx1030", "rocm=5.7.1"), "has no ROCm 5.7 build", True),
        (("arch=gfx90a", "torch=2.1.2+rocm5.6", "lib.bitsandbytes=0.49.1"), "has no ROCm 5.6 build", False),
        # a GPU no release, preview or source build lists
        (("arch=gfx906", "rocm=6.2.4"), "has no ROCm build for gfx906", True),
        (("arch=gfx1031", "rocm=6.2.4", "env.HSA_OVERRIDE_GFX_VERSION=9.0.6"), "for gfx906", True),
        # a release's own table: gfx1102 came with 0.50, the ROCm 7.2 library with 0.49.2
        (("arch=gfx1102", "torch=2.7.1+rocm6.3", "lib.bitsandbytes=0.49.1"), "no kernels for gfx1102", False),
        (("arch=gfx942", "torch=2.10.0+rocm7.2", "lib.bitsandbytes=0.49.1"), "ships no library for ROCm 7.2", False),
        # 0.50's loader takes the same major's nearest library (ROCm 6.2 -> its 6.4 one): that one's targets
        (("arch=gfx1030", "torch=2.6.0+rocm6.2", "lib.bitsandbytes=0.50.0"), "in its ROCm 6.4 library", False),
        # ... before 0.50 only the exact ROCm release's library loads
        (("arch=gfx942", "torch=2.5.1+rocm6.1", "lib.bitsandbytes=0.49.2"), "ships no library for ROCm 6.1", False),
    ],
)
def test_unserved_stacks_are_found(stack: tuple[str, ...], problem: str, conditional: bool) -> None:
    (found,) = _found(*ROCM, *stack)
    assert problem in found[0] and found[1] is conditional


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "arch=gfx90a", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.49.1"),
        ("platform=rocm", "arch=gfx1102", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.0"),
        ("platform=rocm", "arch=gfx942", "torch=2.10.0+rocm7.2", "lib.bitsandbytes=0.49.2"),
        # a preview wheel or source build on what its previews carry, a local label (a fork, a source
        # build): nothing (test_bitsandbytes_rocm_preview.py has what the previews lack)
        ("platform=rocm", "arch=gfx90a", "rocm=6.2.4", "lib.bitsandbytes=0.44.1.dev0+rocm"),
        ("platform=rocm", "arch=gfx90a", "rocm=6.2.4", "lib.bitsandbytes=0.43.3+rocm"),
        ("platform=cuda", "arch=sm_80", "lib.bitsandbytes=0.45.0"),  # CUDA: not this check's
        ("lib.bitsandbytes=0.45.0",),  # no platform, GPU or ROCm release stated
        ("platform=rocm", "arch=gfx942", "torch=2.6.0+rocm6.2", "lib.bitsandbytes=0.50.0"),  # loads the 6.4 library
    ],
)
def test_served_or_unknown_stacks_say_nothing(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_finding_reaches_tests_using_bitsandbytes_with_the_release_guide() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx90a", "rocm=6.2.4", "lib.bitsandbytes=0.45.0"])
    (f,) = [f for f in evaluate(env) if f.check == bitsandbytes_rocm.ID]
    assert f.uses == ("bitsandbytes",) and not f.everything
    assert f.link == "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.48.0/docs/source/installation.mdx"


def test_tables_are_the_guides_targets() -> None:
    """The guides' tables (0.49.2, 0.50.1), as the wheels of those releases carry them."""
    assert bitsandbytes_rocm_data.LINUX_0492["6.2"] == ("gfx90a", "gfx942", "gfx1100", "gfx1101")
    assert (
        "gfx950" in bitsandbytes_rocm_data.LINUX_0501["7.0"]
        and "gfx950" not in bitsandbytes_rocm_data.LINUX_0501["6.4"]
    )
    # gfx1010/gfx1012 are served from 0.50.2's ROCm 7.14/7.15 libraries (bitsandbytes#2046)
    assert {"gfx803", "gfx900", "gfx906"}.isdisjoint(bitsandbytes_rocm.EVER)


@pytest.mark.parametrize(
    ("stack", "arch"),
    [
        (("platform=rocm", "arch=gfx1010", "rocm=6.4.4"), "gfx1010"),  # RDNA1 only in 0.50.2's ROCm 7.14/7.15 libraries
        (("platform=rocm", "arch=gfx1035", "torch=2.5.1+rocm6.2"), "gfx1035"),
        (("platform=rocm", "arch=gfx1012", "torch=2.4.1+rocm6.1"), "gfx1012"),  # likewise
    ],
)
def test_no_official_library_of_the_rocm_major_is_uncertain(stack: tuple[str, ...], arch: str) -> None:
    """No bitsandbytes named: no release's table lists the GPU for this ROCm major (a fork might)."""
    (finding,) = bitsandbytes_rocm.check(apply_overrides(BASE, list(stack)))
    assert finding.uncertain and finding.conditional
    assert f"no official ROCm 6.x library for {arch}" in finding.reason

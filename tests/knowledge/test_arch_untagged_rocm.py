"""``arch-not-in-build`` for a ROCm stack that names torch without its build tag (``torch=2.3.1``).

Bug reports and hand-written stack lists drop the ``+rocm6.0`` of the wheel; the official ROCm
builds of that release (knowledge/wheel_targets.py ``TABLE``) then stand for it: none or only some
carrying the GPU is an uncertain finding (a risk: Arch Linux's, Fedora's and source builds name the
bare release with their own targets), all carrying it nothing; its predicted failure confirms it. A prerelease or
dev torch (``2.4.0a0+git...``: AMD's images, source builds), a tagged torch and an override that
maps the GPU onto a built target are left to the existing paths.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import arch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# a ROCm torch on a GPU its build has no code for, verbatim from https://github.com/ROCm/legacy-rocm-build/issues/5668
INVALID_DEVICE_FUNCTION = (
    "RuntimeError: HIP error: invalid device function\n"
    "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect."
)


def _found(*stack: str) -> list[tuple[bool, str]]:
    env = apply_overrides(BASE, list(stack))
    return [(f.uncertain, f.reason) for f in evaluate(env) if f.check == arch.ID]


@pytest.mark.parametrize(
    ("stack", "expected"),
    [
        # gfx1031 (RX 6700 XT) is in no official ROCm build, with or without the ROCm release
        (
            ("platform=rocm", "arch=gfx1031", "torch=2.3.1"),
            "of that release with kernels for gfx1031: none",
        ),
        (("platform=rocm", "arch=gfx1031", "torch=2.3.1", "rocm=6.0"), "torch 2.3.1 without its build tag"),
        # gfx1101 first in the 2.6 builds (rocm6.1/rocm6.2); 2.5.1's rocm6.1/rocm6.2 builds lack it
        (
            ("platform=rocm", "arch=gfx1101", "torch=2.5.1"),
            "with kernels for gfx1101: none",
        ),
        (("platform=rocm", "arch=gfx1101", "torch=2.6.0"), None),
        (("platform=rocm", "arch=gfx1030", "torch=2.3.1"), None),  # every 2.3 ROCm build carries gfx1030
        # the override maps gfx1031 onto gfx1030, which the builds carry
        (("platform=rocm", "arch=gfx1031", "torch=2.3.1", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"), None),
        (("platform=rocm", "arch=gfx1031", "torch=2.4.0a0+git1234"), None),  # a source/vendor build: unknown
        (("platform=rocm", "arch=gfx1031", "torch=1.4.0"), None),  # no ROCm wheel of that release in the table
    ],
)
def test_untagged_torch_on_rocm(stack: tuple[str, ...], expected: str | None) -> None:
    found = _found(*stack)
    if expected is None:
        assert found == [], found
    else:
        (only,) = found
        assert only[0] is True and expected in only[1], found


def test_only_some_builds_of_the_release_carry_it_is_uncertain() -> None:
    """torch 2.8's rocm6.4 build carries gfx950 (MI355), its rocm6.3 build does not: an uncertain finding
    naming the build that does.
    """
    ((uncertain, reason),) = _found("platform=rocm", "arch=gfx950", "torch=2.8.0")
    assert uncertain and "gfx950: only in rocm6.4 (torch >=2.8,<2.11)" in reason, reason


def test_a_tagged_torch_keeps_its_own_targets() -> None:
    """The tag names the build: 2.3.1+rocm6.0 lacks gfx1031 by its own row, reported as before."""
    ((uncertain, reason),) = _found("platform=rocm", "arch=gfx1031", "torch=2.3.1+rocm6.0")
    assert not uncertain and reason.startswith("torch 2.3.1+rocm6.0 has no kernels for gfx1031")


def test_a_cuda_stack_is_not_judged_by_the_rocm_builds() -> None:
    assert _found("platform=cuda", "arch=sm_90", "torch=2.3.1") == []


def test_through_pytest_predicted_is_known_bad_unrelated_fails(pytester: pytest.Pytester) -> None:
    # gfx1101 (RX 7800 XT): rocBLAS 6.2 carries it, torch 2.5.1's official ROCm builds do not
    stack = ("platform=rocm", "arch=gfx1101", "torch=2.5.1", "rocm=6.2")
    found, unrelated = predicted_and_unrelated(pytester, INVALID_DEVICE_FUNCTION, stack, env=BASE)
    assert found["rocm_rule"] == arch.ID
    assert "rocm_rule" not in unrelated  # a plain failure (an uncertain finding names no likely cause)


def test_a_live_hosts_bare_release_is_not_guessed() -> None:
    """On a live host a bare release is a distribution or source build: its targets are torch's own to report."""
    from dataclasses import replace

    from pytest_rocmcompat.knowledge.derived_facts import derive

    stated = apply_overrides(BASE, ["platform=rocm", "arch=gfx1031", "torch=2.3.1"])
    assert [f for f in arch.check(derive(stated)) if f.check == arch.ID]
    assert arch.check(derive(replace(stated, source="live"))) == []

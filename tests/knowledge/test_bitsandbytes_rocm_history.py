"""``bitsandbytes-rocm-build`` by each PyPI release's own wheels: the ROCm libraries and GPU targets read from
the wheels of 0.49.0-0.50.2 (https://pypi.org/project/bitsandbytes/#history), on both sides of each bound.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm, bitsandbytes_rocm_data
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# bitsandbytes' kernel error check on a GPU its library has no code for, verbatim from
# https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1464
INVALID_DEVICE_FUNCTION = "Error invalid device function at line 224 in file /src/csrc/ops.hip"


def _found(*stack: str) -> list[tuple[str, bool, str]]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [(f.reason, f.uncertain, f.link) for f in evaluate(env) if f.check == bitsandbytes_rocm.ID]


def _wheels(version: str) -> bitsandbytes_rocm_data.Wheels:
    wheels = bitsandbytes_rocm_data.wheels_of(Version(version))
    assert wheels is not None
    return wheels


def test_each_release_is_tabled_by_its_own_wheels() -> None:
    assert bitsandbytes_rocm_data.wheels_of(Version("0.48.2")) is None  # no ROCm library before 0.49.0
    assert "7.2" not in _wheels("0.49.1").linux and "7.2" in _wheels("0.49.2").linux
    assert "gfx1250" not in _wheels("0.50.0").linux["7.14"] and "gfx1250" in _wheels("0.50.1").linux["7.14"]
    late = _wheels("0.50.2")
    assert set(late.linux) == {"6.4", "7.0", "7.1", "7.2", "7.14", "7.15"} and set(late.windows) == {
        "7.2",
        "7.14",
        "7.15",
    }
    assert all({"gfx908", "gfx1030"} <= set(row) for row in late.linux.values())
    assert {"gfx1010", "gfx1011", "gfx1012"} <= set(late.linux["7.15"]) and "gfx1010" not in late.linux["7.2"]
    assert {"gfx90a", "gfx1103"} <= set(late.windows["7.14"]) and "gfx1103" not in late.windows["7.2"]
    assert _wheels("0.50.7").first == Version("0.50.2")  # a later 0.50.x: the newest tabled release
    assert bitsandbytes_rocm_data.wheels_of(Version("0.51.0")) is None
    # no release ever built for GCN5/Vega: still a verdict on any release
    assert {"gfx900", "gfx906"}.isdisjoint(bitsandbytes_rocm.EVER) and "gfx1012" in bitsandbytes_rocm.EVER


# (stack missing a target, the release that adds it, what the older one says)
BOUNDS = [
    (("arch=gfx1250", "torch=2.12.0+rocm7.14"), "0.50.0", "0.50.1", "no kernels for gfx1250 in its ROCm 7.14 library"),
    # ROCm 7.15: 0.50.0's loader picks the 7.14 library; 0.50.2 ships its own 7.15 one
    (("arch=gfx1250", "torch=2.13.0+rocm7.15"), "0.50.0", "0.50.2", "ROCm 7.14 library, which its loader picks for ROCm 7.15"),
    (("arch=gfx1030", "torch=2.9.1+rocm6.4"), "0.50.1", "0.50.2", "no kernels for gfx1030 in its ROCm 6.4 library"),
    (("arch=gfx908", "torch=2.10.0+rocm7.2"), "0.50.1", "0.50.2", "no kernels for gfx908 in its ROCm 7.2 library"),
    (("arch=gfx1012", "torch=2.12.0+rocm7.14"), "0.50.1", "0.50.2", "no kernels for gfx1012 in its ROCm 7.14 library"),
    (("os=Windows", "arch=gfx90a", "torch=2.12.0+rocm7.14"), "0.50.1", "0.50.2", "no kernels for gfx90a in its ROCm 7.14"),
    (("arch=gfx942", "torch=2.10.0+rocm7.2"), "0.49.1", "0.49.2", "ships no library for ROCm 7.2"),
]  # fmt: skip


@pytest.mark.parametrize(("stack", "old", "new", "problem"), BOUNDS)
def test_a_target_or_rocm_a_release_added_is_a_verdict_only_before_it(
    stack: tuple[str, ...], old: str, new: str, problem: str
) -> None:
    (found,) = _found(*stack, f"lib.bitsandbytes={old}")
    assert problem in found[0] and not found[1]
    assert _found(*stack, f"lib.bitsandbytes={new}") == []


def test_a_missing_target_names_the_release_that_adds_it() -> None:
    (found,) = _found("arch=gfx1250", "torch=2.12.0+rocm7.14", "lib.bitsandbytes=0.50.0")
    assert found[0].endswith("(its ROCm 7.14 library has them from bitsandbytes 0.50.1)")
    assert (
        found[2] == "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.50.1/docs/source/installation.mdx"
    )
    # Windows' ROCm 7.2 library has no gfx1103 in any release: no later one to name
    (none_later,) = _found("os=Windows", "arch=gfx1103", "torch=2.10.0+rocm7.2", "lib.bitsandbytes=0.50.2")
    assert (
        "no kernels for gfx1103 in its ROCm 7.2 library" in none_later[0] and "from bitsandbytes" not in none_later[0]
    )
    assert none_later[2] == bitsandbytes_rocm_data.SOURCE_0502


def test_rdna1_is_served_only_from_rocm_7() -> None:
    """No bitsandbytes named: 0.50.2's ROCm 7.14/7.15 libraries serve gfx1010-1012, no ROCm 6.x library does."""
    (on_6,) = _found("arch=gfx1010", "rocm=6.4.4")
    assert "no official ROCm 6.x library for gfx1010" in on_6[0] and on_6[1]
    (on_7,) = _found("arch=gfx1010", "rocm=7.14.0")
    assert "is not named" in on_7[0] and on_7[1]


STACK_1250 = ("platform=rocm", "arch=gfx1250", "torch=2.12.0+rocm7.14")


def test_gfx1250_on_0_50_0_is_known_bad_and_an_unrelated_failure_fails(pytester: pytest.Pytester) -> None:
    """Through pytest: bitsandbytes' missing-kernel error on 0.50.0's ROCm 7.14 library ends known-bad."""
    stack = (*STACK_1250, "lib.bitsandbytes=0.50.0")
    found, unrelated = predicted_and_unrelated(pytester, INVALID_DEVICE_FUNCTION, stack, uses="bitsandbytes", env=BASE)
    assert found["rocm_rule"] == bitsandbytes_rocm.ID
    assert "rocm_rule" not in unrelated
    assert unrelated.get("rocm_diagnosis", "").startswith(f"{bitsandbytes_rocm.ID}: ")


def test_gfx1250_on_0_50_1_claims_nothing(pytester: pytest.Pytester) -> None:
    """Through pytest: 0.50.1's ROCm 7.14 library has gfx1250, so the same failure stays a plain failure."""
    stack = (*STACK_1250, "lib.bitsandbytes=0.50.1")
    cases = run_cases(pytester, INVALID_DEVICE_FUNCTION, stack, uses="bitsandbytes", env=BASE)
    assert cases["test_predicted"].get("rocm_outcome") != "known-bad"
    assert "rocm_rule" not in cases["test_predicted"] and "rocm_diagnosis" not in cases["test_unrelated"]

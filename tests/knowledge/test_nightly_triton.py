"""requirement-not-met for a torch nightly beside a Triton of neither its series' release nor the one before."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import nightly_triton
from pytest_rocmcompat.knowledge.checks.registry import evaluate, evaluate_risks
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _reasons(*stack: str) -> list[str]:
    env = apply_overrides(BASE, list(stack))
    return [f.reason for f in [*evaluate(env), *evaluate_risks(env)] if f.check == "requirement-not-met"]


def test_the_range_comes_from_the_releases_pins() -> None:
    # torch 2.5 pins triton 3.1 and 2.6 pins 3.2 (PyPI metadata); 2.11 keeps 2.10's 3.6
    assert nightly_triton.nightly_range("2.6.0.dev20241112+cu124") == ((3, 1), (3, 2))
    assert nightly_triton.nightly_range("2.11.0.dev20260101+cu130") == ((3, 6), (3, 6))
    # not released yet: no upper bound (2.13 pins 3.7.1)
    assert nightly_triton.nightly_range("2.14.0.dev20261101+cu130") == ((3, 7), None)
    assert nightly_triton.nightly_range("2.99.0.dev20990101+cu130") is None  # 2.98 is not known either
    for not_nightly in ("2.6.0", "2.6.0a0+git1234abc", "2.6.0.dev0", None):
        assert nightly_triton.nightly_range(not_nightly) is None


@pytest.mark.parametrize(
    ("stack", "shown"),
    [
        (("torch=2.6.0.dev20241112+cu124", "lib.pytorch-triton=3.0.0"), "requires pytorch-triton>=3.1,<3.3"),
        (
            ("torch=2.6.0.dev20241112+rocm6.2", "lib.pytorch-triton-rocm=3.3.0"),
            "requires pytorch-triton-rocm>=3.1,<3.3",
        ),
        (("torch=2.5.0.dev20240801+cu121", "lib.triton=2.3.1"), "requires pytorch-triton>=3.0,<3.2"),
    ],
)
def test_a_triton_of_another_series_is_a_risk(stack: tuple[str, ...], shown: str) -> None:
    (reason,) = _reasons(*stack)
    assert shown in reason and "a nightly pins the Triton of its series' release or the one before" in reason


@pytest.mark.parametrize(
    "stack",
    [
        ("torch=2.6.0.dev20241112+cu124", "lib.pytorch-triton=3.1.0+cf34004b8a"),  # the release before's series
        ("torch=2.6.0.dev20250101+cu124", "lib.pytorch-triton=3.2.0+git0d4682f0"),  # its own release's
        ("torch=2.6.0a0+git1234abc", "lib.triton=3.0.0"),  # a source build carries its own
        ("torch=2.6.0.dev20241112+cu124",),  # no Triton named
    ],
)
def test_a_triton_in_range_or_no_nightly_is_no_finding(stack: tuple[str, ...]) -> None:
    assert _reasons(*stack) == []


def test_through_pytest_the_pair_s_import_failure_is_known_bad(pytester: pytest.Pytester) -> None:
    stack = ("torch=2.6.0.dev20241112+cu124", "lib.pytorch-triton=3.0.0")
    predicted = "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler'"
    found, unrelated = predicted_and_unrelated(pytester, predicted, stack, uses="torch.compile")
    assert found["rocm_rule"] == "requirement-not-met"
    assert "rocm_rule" not in unrelated

"""A ROCm Triton beside a torch named without its build tag: the official ROCm wheels' one pin, as a risk."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.torch_rocm_triton import release_rocm_triton_pin
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from pytest_rocmcompat.stack.versions import coerce_version

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _findings(*stack: str, base: Environment = BASE) -> list:
    return [f for f in evaluate(apply_overrides(base, list(stack))) if f.check == requirements.ID]


@pytest.mark.parametrize(
    ("release", "pin"),
    [
        ("2.5.1", "pytorch-triton-rocm==3.1.0"),
        ("2.3.1", 'pytorch-triton-rocm==2.3.1; python_version < "3.12"'),
        ("2.10.0", "triton-rocm==3.6.0"),  # renamed from 2.10
        ("2.5.1+rocm6.2", None),  # a tagged build: rocm_triton_pin's
        ("2.6.0.dev20241113", None),  # a nightly pins a commit build
        ("2.7.2", None),  # no such release in the table
    ],
)
def test_release_pin_of_an_untagged_release(release: str, pin: str | None) -> None:
    found = release_rocm_triton_pin(coerce_version(release))
    assert (found[0] if found else None) == pin


def test_another_rocm_triton_beside_a_bare_release_is_a_compile_risk() -> None:
    (finding,) = _findings("platform=rocm", "arch=gfx942", "torch=2.5.1", "lib.pytorch-triton-rocm=3.0.0")
    assert finding.uncertain and finding.signature_only  # AMD's and source builds pin their own Triton
    assert "pytorch-triton-rocm==3.1.0 (its official ROCm wheels' pin, the build not named)" in finding.reason
    assert "installed pytorch-triton-rocm 3.0.0" in finding.reason
    assert "torch.compile" in finding.uses and "torch" not in finding.uses  # Inductor only


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "arch=gfx942", "torch=2.5.1", "lib.pytorch-triton-rocm=3.1.0"),  # the pin
        ("platform=rocm", "arch=gfx942", "torch=2.5.1"),  # no ROCm Triton named
        ("platform=cuda", "arch=sm_90", "torch=2.5.1", "lib.pytorch-triton-rocm=3.0.0"),  # not ROCm
        ("platform=rocm", "arch=gfx942", "torch=2.5.1a0+git1234abc", "lib.pytorch-triton-rocm=3.0.0"),  # a source build
    ],
)
def test_no_risk_where_the_pin_holds_or_cannot_be_known(stack: tuple[str, ...]) -> None:
    assert not [f for f in _findings(*stack) if "official ROCm wheels' pin" in f.reason]


def test_not_on_a_live_host() -> None:
    live = Environment(platform="rocm", python="3.11.7", os="Linux", torch="2.5.1", source="live")
    live = live.__class__(**{**live.__dict__, "libraries": {"pytorch-triton-rocm": "3.0.0"}})
    assert not [f for f in evaluate(live) if f.check == requirements.ID and "official ROCm wheels" in f.reason]

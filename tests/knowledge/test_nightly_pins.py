"""Nightly and source-built torchvision/torchaudio beside torch, stated as users paste them.

The rule (:mod:`nightly_pins`): a nightly was built against the newest torch nightly of its day or
earlier, of the release pairing's series or the next one; a build from a checkout pins no torch.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.declared_pins import declared_requires
from pytest_rocmcompat.knowledge.nightly_pins import EVIDENCE, SOURCE, is_source_build, nightly_requirement
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.10.14", os="Linux")


def _reasons(*stack: str) -> list[str]:
    env = apply_overrides(BASE, list(stack))
    return [f.reason for f in evaluate(env) if f.check == requirements.ID]


@pytest.mark.parametrize(
    ("dist", "version", "expected"),
    [
        ("torchvision", "0.20.0.dev20241105+rocm6.2", "torch>=2.5.0.dev0,<=2.6.0.dev20241105"),
        ("torchaudio", "2.5.0.dev20240801+cu121", "torch>=2.5.0.dev0,<=2.6.0.dev20240801"),
        ("torchaudio", "2.4.0.dev20240710", "torch>=2.4.0.dev0,<=2.5.0.dev20240710"),
    ],
)
def test_nightly_requirement(dist: str, version: str, expected: str) -> None:
    assert nightly_requirement(dist, version) == ((expected,), SOURCE)
    assert SOURCE.startswith("https://github.com/pytorch/test-infra/") and len(EVIDENCE) == 4


@pytest.mark.parametrize(
    ("dist", "version"),
    [
        ("torchvision", "0.20.1"),  # a release: PyPI's data answers
        ("torchvision", "0.16.0a0+abc1234"),  # a checkout build
        ("torchvision", "0.5.0.dev20191110"),  # before the 0.N <-> 2.(N-15) pairing
        ("xformers", "0.0.29.dev20241105"),  # not a domain library
        ("torchaudio", None),
    ],
)
def test_nightly_requirement_other_versions(dist: str, version: str | None) -> None:
    assert nightly_requirement(dist, version) is None


def test_source_builds_declare_no_torch() -> None:
    assert is_source_build("0.16.0a0+abc1234") and is_source_build("2.8.0a0+6e1c7fe")
    assert not is_source_build("0.16.0") and not is_source_build("0.20.0.dev20241105+rocm6.2")
    assert declared_requires("torchvision", "0.17.0a0+abc1234") is None
    assert declared_requires("torchaudio", "2.8.0a0+6e1c7fe") is None
    assert declared_requires("torchvision", "0.17.0") is not None  # the release still answers


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # torchaudio nightly beside a torch nightly of a later day, past its series
        (
            ("platform=cuda", "torch=2.6.0.dev20240802+cu121", "lib.torchaudio=2.5.0.dev20240801+cu121"),
            "torchaudio 2.5.0.dev20240801+cu121 requires torch>=2.5.0.dev0,<=2.6.0.dev20240801",
        ),
        # a torchaudio nightly beside an older release torch
        (
            ("platform=rocm", "torch=2.4.1+rocm6.1", "lib.torchaudio=2.5.0.dev20240801+rocm6.1"),
            "installed torch 2.4.1+rocm6.1",
        ),
        # the next series' release is later than any nightly of the day
        (("platform=cuda", "torch=2.6.0+cu124", "lib.torchaudio=2.5.0.dev20241126"), "<=2.6.0.dev20241126"),
    ],
)
def test_mismatched_nightlies_are_found(stack: tuple[str, ...], problem: str) -> None:
    (reason,) = _reasons(*stack)
    assert problem in reason and SOURCE in reason


@pytest.mark.parametrize(
    "stack",
    [
        # pasted together from one nightly index (vllm-project/vllm#6807, astral-sh/uv#9651)
        ("platform=rocm", "torch=2.5.0.dev20240710+rocm6.1", "lib.torchaudio=2.4.0.dev20240710+rocm6.1"),
        ("platform=cuda", "torch=2.6.0.dev20241126", "lib.torchaudio=2.5.0.dev20241126"),
        ("platform=cuda", "torch=2.5.0.dev20240801+cu121", "lib.torchaudio=2.5.0.dev20240801+cu121"),
        # the torch of the day before (pytorch/pytorch#29530)
        ("platform=cuda", "torch=2.5.0.dev20240731+cu121", "lib.torchaudio=2.5.0.dev20240801+cu121"),
        # a checkout's torchvision/torchaudio beside a torch release: unknown (at most a risk, below)
        ("platform=cuda", "torch=2.1.0", "lib.torchvision=0.17.0a0+abc1234"),
        ("platform=rocm", "torch=2.7.1+rocm6.3", "lib.torchaudio=2.8.0a0+6e1c7fe"),
    ],
)
def test_matching_or_unknown_nightlies_say_nothing(stack: tuple[str, ...]) -> None:
    env = apply_overrides(BASE, list(stack))
    assert [f.reason for f in evaluate(env) if f.check == requirements.ID and not f.uncertain] == []


def test_a_checkouts_companion_is_a_risk_that_only_its_load_failure_confirms() -> None:
    """Built from a commit against the torch installed then: its release's pins are a risk, never a known-bad stack."""
    env = apply_overrides(BASE, ["platform=cuda", "torch=2.1.0", "lib.torchvision=0.17.0a0+abc1234"])
    (risk,) = [f for f in evaluate(env) if f.check == requirements.ID]
    assert risk.uncertain and "torchvision 0.17.0a0+abc1234 requires torch>=2.2,<2.3" in risk.reason


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # ROCm wheels, both tagged
        (("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchvision=0.17.0+rocm5.6"), "requires torch>=2.2,<2.3"),
        # a CUDA-tagged torch beside an untagged torchvision
        (("platform=cuda", "torch=2.1.0+cu121", "lib.torchvision=0.17.0"), "installed torch 2.1.0+cu121"),
        # a source-built torch (a0+git) beside a PyPI torchvision of the next series
        (("platform=cuda", "torch=2.1.0a0+git32f93b1", "lib.torchvision=0.17.0"), "installed torch 2.1.0a0+git32f93b1"),
        (("platform=cuda", "torch=2.1.0", "lib.torchaudio=2.2.0"), "torchaudio 2.2.0 requires torch>=2.2,<2.3"),
        (("platform=cuda", "torch=2.1.0", "lib.torchtext=0.17.0"), "torchtext 0.17.0 requires torch>=2.2,<2.3"),
    ],
)
def test_stacks_as_users_state_them(stack: tuple[str, ...], problem: str) -> None:
    (reason,) = _reasons(*stack)
    assert problem in reason


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchvision=0.16.0+rocm5.6"),
        ("platform=cuda", "torch=2.1.0+cu121", "lib.torchvision=0.16.0"),
    ],
)
def test_matching_stacks_as_users_state_them(stack: tuple[str, ...]) -> None:
    assert _reasons(*stack) == []


# torchaudio's extension on another torch (RangiLyu/nanodet#547)
PREDICTED = (
    "OSError: /usr/local/lib/python3.8/dist-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
    "_ZNK3c107SymBool10guard_boolEPKcl"
)


def test_through_pytest_a_nightly_pair_is_known_bad(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "torch=2.6.0.dev20241106+rocm6.2", "lib.torchaudio=2.5.0.dev20241105+rocm6.2")
    predicted, unrelated = predicted_and_unrelated(
        pytester, PREDICTED, stack, uses="torchaudio", env=BASE, error="OSError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{requirements.ID}: torchaudio 2.5.0.dev20241105+rocm6.2 requires")

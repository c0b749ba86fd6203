"""``bitsandbytes-cuda-build:unnamed``: a stated CUDA stack naming no bitsandbytes release, and the
0.37.0-0.40.0 loader that names the library by the CUDA runtime on the library path.

The releases' libraries come from their wheels (``declared.json``); which one each loader picks, from its
source at the tag. The risk claims only bitsandbytes' own loader texts, quoted below from the reports.
"""

from __future__ import annotations

from functools import partial

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import bitsandbytes_cuda
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.risk_checks import risk_rule, stated_risks
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
RULE = f"{bitsandbytes_cuda.ID}:unnamed"
# the loaders' texts as users quote them (message, source, the stack the report states)
REPORTS = (
    (
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda121_nocublaslt.so. "
        "Maybe you need to compile it from source?",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/386",
        ("platform=cuda", "arch=sm_70", "cuda=12.1"),
    ),
    (
        "Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/notebooks/bitsandbytes/bitsandbytes/libbitsandbytes_cuda124.so')",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1559",
        ("platform=cuda", "python=3.11", "env.BNB_CUDA_VERSION=124"),
    ),
)


risks = partial(stated_risks, BASE, RULE)
rule = partial(risk_rule, BASE, RULE)


def test_the_old_wheels_lack_what_the_newer_carry() -> None:
    # the facts the risk rests on, read from the wheels
    assert "libbitsandbytes_cuda121_nocublaslt.so" not in declared_data.release("bitsandbytes", "0.37.1").native
    assert "libbitsandbytes_cuda121_nocublaslt.so" in declared_data.release("bitsandbytes", "0.37.2").native
    assert "libbitsandbytes_cuda124.so" not in declared_data.release("bitsandbytes", "0.43.0").native
    assert "libbitsandbytes_cuda124.so" in declared_data.release("bitsandbytes", "0.43.1").native


@pytest.mark.parametrize(
    ("stack", "releases", "library"),
    [
        # the library path's CUDA 12.1 on a V100: 0.37.0/0.37.1 carry no 12.1 _nocublaslt library
        (("platform=cuda", "arch=sm_70", "cuda=12.1"), "0.37.0-0.37.1", "libbitsandbytes_cuda121_nocublaslt.so"),
        # torch 2.5.1's default PyPI build is CUDA 12.4: 0.40.2-0.43.0 stop before it
        (("platform=cuda", "arch=sm_90", "torch=2.5.1"), "0.40.2-0.43.0", "libbitsandbytes_cuda124.so"),
        # CUDA 13.0: every release before 0.48.0
        (("platform=cuda", "arch=sm_90", "torch=2.9.0+cu130"), "0.40.2-0.47.0", "libbitsandbytes_cuda130.so"),
        # only the override says which CUDA
        (("platform=cuda", "env.BNB_CUDA_VERSION=124"), "0.40.2-0.43.0", "libbitsandbytes_cuda124.so"),
    ],
)
def test_a_stack_naming_no_bitsandbytes_is_a_risk_where_some_release_lacks_its_library(
    stack: tuple[str, ...], releases: str, library: str
) -> None:
    (finding,) = risks(*stack)
    assert finding.uncertain and finding.conditional and finding.signature_only
    assert finding.uses == ("bitsandbytes",)
    assert f"bitsandbytes {releases} carry no {library}" in finding.reason
    assert "state the bitsandbytes release" in finding.fix


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=cuda", "arch=sm_80", "torch=2.5.1", "lib.bitsandbytes=0.45.0"),  # named: the check judges it
        ("platform=cuda", "arch=sm_80", "torch=2.1.0"),  # CUDA 12.1: every release from 0.40.2 carries it
        ("platform=rocm", "arch=gfx942", "rocm=6.2"),  # ROCm: bitsandbytes-rocm-build's
        ("platform=cuda", "arch=sm_80"),  # no CUDA release stated or implied
    ],
)
def test_no_risk_where_nothing_is_missing_or_the_release_is_named(stack: tuple[str, ...]) -> None:
    assert risks(*stack) == []


def test_the_path_loader_reads_only_a_stated_cuda_not_torchs_own_runtime() -> None:
    # torch 2.1.0 brings CUDA 12.1 in its nvidia-* packages, which are on no library path bitsandbytes searched
    assert risks("platform=cuda", "arch=sm_80", "torch=2.1.0") == []
    (finding,) = risks("platform=cuda", "arch=sm_80", "torch=2.1.0", "cuda=12.1")
    assert "0.37.0-0.37.1" in finding.reason and "the library path's CUDA 12.1" in finding.reason


def test_a_named_release_of_the_path_loader_is_judged_by_the_stated_cuda() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_80", "cuda=12.2", "lib.bitsandbytes=0.38.0"])
    (finding,) = [f for f in evaluate(env) if f.check == bitsandbytes_cuda.ID]
    assert "libbitsandbytes_cuda122.so" in finding.reason and finding.uncertain
    assert "cuda_setup/main.py" in finding.link and "/0.37.0/" in finding.link
    # 0.40.1 read CUDA_VERSION (NVIDIA's images set it): not judged
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_80", "cuda=12.3", "lib.bitsandbytes=0.40.1"])
    assert [f for f in evaluate(env) if f.check == bitsandbytes_cuda.ID] == []
    assert Version("0.40.1") in declared_data.versions("bitsandbytes")


@pytest.mark.parametrize(("message", "source", "stack"), REPORTS, ids=[s for _, s, _ in REPORTS])
def test_the_loaders_own_texts_confirm_it(message: str, source: str, stack: tuple[str, ...]) -> None:
    assert source.startswith("https://github.com/bitsandbytes-foundation/")
    found = rule(*stack)
    assert found.signature_matches(message)
    assert not found.signature_matches("CUDA out of memory. Tried to allocate 20.00 MiB")


def test_its_text_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, REPORTS[0][0], REPORTS[0][2], uses="bitsandbytes", env=BASE
    )
    assert predicted["rocm_rule"].startswith(RULE)
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated

"""The Triton each official ``+rocmX.Y`` torch release's wheel requires (``torch_rocm_triton``)."""

from __future__ import annotations

import re

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.torch_rocm_triton import (
    TORCH_ROCM_TRITON,
    rocm_triton_distribution,
    rocm_triton_pin,
)

# every official ROCm torch release 2.1 .. 2.13 -> the requirement its wheel declares
EXPECTED = {
    "2.1.0+rocm5.6": "pytorch-triton-rocm==2.1.0",
    "2.1.2+rocm5.6": "pytorch-triton-rocm==2.1.0",
    "2.2.0+rocm5.7": "pytorch-triton-rocm==2.2.0",
    "2.2.2+rocm5.7": "pytorch-triton-rocm==2.2.0",
    "2.3.0+rocm6.0": "pytorch-triton-rocm==2.3.0",
    "2.3.1+rocm5.7": "pytorch-triton-rocm==2.3.1",
    "2.4.0+rocm6.1": "pytorch-triton-rocm==3.0.0",
    "2.4.1+rocm6.1": "pytorch-triton-rocm==3.0.0",
    "2.5.0+rocm6.2": "pytorch-triton-rocm==3.1.0",
    "2.5.1+rocm6.2": "pytorch-triton-rocm==3.1.0",
    "2.6.0+rocm6.2.4": "pytorch-triton-rocm==3.2.0",
    "2.7.0+rocm6.3": "pytorch-triton-rocm==3.3.0",
    "2.7.1+rocm6.3": "pytorch-triton-rocm==3.3.1",
    "2.8.0+rocm6.4": "pytorch-triton-rocm==3.4.0",
    "2.9.0+rocm6.4": "pytorch-triton-rocm==3.5.0",
    "2.9.1+rocm6.4": "pytorch-triton-rocm==3.5.1",
    "2.10.0+rocm7.1": "triton-rocm==3.6.0",
    "2.11.0+rocm7.2": "triton-rocm==3.6.0",
    "2.12.0+rocm7.2": "triton-rocm==3.7.0",
    "2.12.1+rocm7.2": "triton-rocm==3.7.1",
    "2.13.0+rocm7.2": "triton-rocm==3.7.1",
}


@pytest.mark.parametrize(("torch", "requirement"), sorted(EXPECTED.items()))
def test_each_release_pin(torch: str, requirement: str) -> None:
    pin = rocm_triton_pin(torch)
    assert pin is not None
    assert pin[0].split(";")[0] == requirement
    before_24 = Version(Version(torch).base_version) < Version("2.4")
    assert pin[0].endswith('; python_version < "3.12"') is before_24  # no Triton on 3.12 before 2.4
    assert pin[1].startswith("https://")


def test_every_row_is_reached_and_sourced() -> None:
    """Each row answers some release above, and each source is a URL."""
    hit = {rocm_triton_pin(t)[1] for t in EXPECTED}  # type: ignore[index]
    assert {source for _, source in TORCH_ROCM_TRITON.values()} <= hit
    for key, (pinned, source) in TORCH_ROCM_TRITON.items():
        assert re.fullmatch(r"2\.\d+(\.\d+)?", key)
        assert re.fullmatch(r"\d+\.\d+\.\d+", pinned)
        assert source.startswith("https://pypi.org/project/torch/2.")


def test_rows_agree_with_pypi_cuda_triton_pin() -> None:
    """The ROCm pin is the CUDA wheel's triton pin: both read .ci/docker/triton_version.txt."""
    for torch in EXPECTED:
        rel = declared_data.release("torch", torch)
        assert rel is not None, torch
        declared = declared_data.requirements_on(rel, "triton", python="3.11")
        assert len(declared) == 1, torch
        pinned = rocm_triton_pin(torch)[0].split(";")[0].split("==")[1]  # type: ignore[index]
        assert str(declared[0].specifier) == f"=={pinned}", torch


@pytest.mark.parametrize(
    "torch",
    [
        "2.5.1",  # PyPI's CUDA wheel
        "2.5.1+cu124",
        "2.5.1+cpu",
        "2.6.0.dev20241113+rocm6.2",  # nightly (pins 3.1.0+cf34004b8a, pytorch#141956)
        "2.11.0a0+rocm7.12.0a20260211",  # TheRock
        "2.9.1+rocmsdk20260116",  # TheRock release
        "2.6.0+rocm6.4.1.git1ded221d",  # AMD's repo.radeon.com build
        "2.0.1+rocm5.4.2",  # 2.0: Triton only a setup.py extra
        "2.5.2+rocm6.2",  # no such release
        "2.3.2+rocm6.0",
        "2.14.0+rocm7.2",  # past the table (triton-rocm~=3.8.0)
        "2.5.0rc1+rocm6.2",
        "2.5.1.post1+rocm6.2",
        "not a version",
        "",
    ],
)
def test_no_pin(torch: str) -> None:
    assert rocm_triton_pin(torch) is None


def test_distribution_renamed_at_2_10() -> None:
    assert rocm_triton_distribution(Version("2.9.1+rocm6.4")) == "pytorch-triton-rocm"
    assert rocm_triton_distribution(Version("2.10.0+rocm7.1")) == "triton-rocm"


def test_pip_report_mamba_595() -> None:
    """pip's line under torch 2.5's ROCm wheel, verbatim from state-spaces/mamba#595 (2024-10-18)."""
    line = (
        "Requirement already satisfied: pytorch-triton-rocm==3.1.0 in "
        "/opt/conda/envs/py_3.10/lib/python3.10/site-packages "
        "(from torch->causal_conv1d==1.4.0) (3.1.0)"
    )
    quoted = re.search(r"satisfied: (\S+) in", line)
    assert quoted is not None
    assert Requirement(quoted.group(1)).name == "pytorch-triton-rocm"
    assert rocm_triton_pin("2.5.0+rocm6.2")[0] == quoted.group(1)  # type: ignore[index]
    assert rocm_triton_pin("2.5.1+rocm6.2")[0] == quoted.group(1)  # type: ignore[index]


def test_before_2_4_python_3_12_has_no_triton_pin() -> None:
    """2.2/2.3's Python 3.12 ROCm wheels declare no Triton (pytorch PR #128525 added it in 2.4)."""
    from pytest_rocmcompat.knowledge.checks import requirements
    from pytest_rocmcompat.knowledge.checks.registry import evaluate
    from pytest_rocmcompat.stack.environment import Environment
    from pytest_rocmcompat.stack.overrides import apply_overrides

    base = Environment(platform="cpu", python="3.11.7", os="Linux")
    stack = ["platform=rocm", "torch=2.3.1+rocm6.0", "lib.pytorch-triton-rocm=3.0.0"]
    on_312 = apply_overrides(base, [*stack, "python=3.12.3"])
    on_311 = apply_overrides(base, [*stack, "python=3.11.9"])
    assert [f for f in evaluate(on_312) if f.check == requirements.ID] == []
    assert [f.check for f in evaluate(on_311) if f.check == requirements.ID] == [requirements.ID]


# ---- wired into requirement-not-met: a ROCm torch beside another Triton reaches torch.compile tests ----
@pytest.mark.parametrize(
    ("torch", "triton", "found"),
    [
        ("2.5.1+rocm6.2", "pytorch-triton-rocm=3.0.0", "torch 2.5.1+rocm6.2 requires pytorch-triton-rocm==3.1.0"),
        ("2.5.1+rocm6.2", "pytorch-triton-rocm=3.1.0", None),
        ("2.10.0+rocm7.0", "triton-rocm=3.5.0", "torch 2.10.0+rocm7.0 requires triton-rocm==3.6.0"),
        ("2.10.0+rocm7.0", "triton-rocm=3.6.0", None),
        ("2.9.0a0+rocm7.0.0rc20250903", "triton-rocm=3.5.0", None),  # TheRock's torch pins its own Triton
    ],
)
def test_requirement_not_met_reads_the_rocm_pin(torch: str, triton: str, found: str | None) -> None:
    from pytest_rocmcompat.knowledge.checks import requirements
    from pytest_rocmcompat.knowledge.checks.registry import evaluate
    from pytest_rocmcompat.stack.environment import Environment
    from pytest_rocmcompat.stack.overrides import apply_overrides

    base = Environment(platform="cpu", python="3.11.7", os="Linux")
    env = apply_overrides(base, ["platform=rocm", "arch=gfx942", f"torch={torch}", f"lib.{triton}"])
    findings = [f for f in evaluate(env) if f.check == requirements.ID]
    if found is None:
        assert findings == []
    else:
        assert len(findings) == 1 and found in findings[0].reason
        assert findings[0].uses == requirements.COMPILE_USES  # eager torch never imports Triton

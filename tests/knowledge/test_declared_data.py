"""The generated declared-pins data (knowledge/data/declared.json) and its readers."""

from __future__ import annotations

import json
import sys

import pytest

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.declared_pins import declared_requires
from tests.conftest import REPO

DATA = REPO / "pytest_rocmcompat" / "knowledge" / "data" / "declared.json"


def test_stamped_and_reaching_back_to_2020() -> None:
    assert declared_data.since() == "2020-01-01"
    assert declared_data.generated() >= "2026-11-26"
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    for name in ("torch", "torchvision", "torchaudio", "transformers", "ray"):  # vLLM, bitsandbytes, peft: later
        dates = [entry["date"] for entry in raw["packages"][name].values()]
        assert dates and min(dates) >= "2020-01-01" and min(dates) < "2021-01-01", name


@pytest.mark.parametrize(
    ("dist", "version", "on", "expected"),
    [
        ("vllm", "0.6.3", "torch", "torch==2.4.0"),
        ("vllm", "0.6.3.post1", "torch", "torch==2.4.0"),
        (
            "torch",
            "2.5.1",
            "nvidia-nccl-cu12",
            'nvidia-nccl-cu12==2.21.5; platform_system == "Linux" and platform_machine == "x86_64"',
        ),
        (
            "torch",
            "2.5.1+cu124",
            "nvidia-cudnn-cu12",
            'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"',
        ),
        ("xformers", "0.0.16", "torch", "torch==1.13.1"),  # January 2023
        ("torchvision", "0.15.1", "torch", "torch==2.0.0"),
        (
            "torch",
            "2.0.0",
            "nvidia-cuda-runtime-cu11",
            'nvidia-cuda-runtime-cu11==11.7.99; platform_system == "Linux" and platform_machine == "x86_64"',
        ),
    ],
)
def test_declared(dist: str, version: str, on: str, expected: str) -> None:
    release = declared_data.release(dist, version)
    assert release is not None and release.source == f"https://pypi.org/project/{dist}/{release.version}/"
    assert [str(r) for r in declared_data.requirements_on(release, on)] == [expected]


def test_unknown_and_unpublished_releases() -> None:
    assert declared_data.release("torch", "1.3.1") is None  # November 2019, before the data
    assert declared_data.release("torch", "1.13.1").requires[0].startswith("nvidia-cuda-runtime-cu11==11.7.99")
    assert declared_data.release("vllm", "99.0") is None and declared_data.release("no-such-dist", "1.0") is None
    assert declared_data.release("torch", "not a version") is None
    old = declared_data.release("vllm", "0.1.0")
    assert old is not None and old.requires is None and "not published" in old.read_from


def test_markers_are_evaluated_for_linux_x86_64_and_the_python() -> None:
    torch = declared_data.release("torch", "2.5.1")
    assert torch is not None
    assert [str(r.specifier) for r in declared_data.requirements_on(torch, "triton", "3.12.1")] == ["==3.1.0"]
    assert declared_data.requirements_on(torch, "triton", "3.13.0") == ()
    transformers = declared_data.release("transformers", "4.51.1")
    assert transformers is not None and declared_data.requirements_on(transformers, "torch") == ()  # an extra's


# ---- declared_pins: the torch requirement the check reads ----------------------------------
@pytest.mark.parametrize(
    ("dist", "version", "expected"),
    [
        ("vllm", "0.3.3", ("torch==2.1.2",)),  # exact, as declared
        ("vllm", "0.8.5.post1", ("torch==2.6.0",)),
        ("torchvision", "0.15.1", ("torch>=2.0,<2.1",)),  # exact pins become the series
        ("torchvision", "0.15.0", ("torch>=2.0,<2.1",)),  # declared torch==2.0.0+cu117
        ("xformers", "0.0.20", ("torch>=2.0,<2.1",)),
        ("torchaudio", "2.1.2", ("torch>=2.1,<2.2",)),
        ("peft", "0.12.0", ("torch>=1.13.0",)),  # a range stays a range
        ("bitsandbytes", "0.50.2", ("torch<3,>=2.4",)),
    ],
)
def test_declared_pins_from_the_data(dist: str, version: str, expected: tuple[str, ...]) -> None:
    requires, source = declared_requires(dist, version)
    assert requires == expected and source == f"https://pypi.org/project/{dist}/{version}/"


def test_nothing_declared() -> None:
    assert declared_requires("flash-attn", "2.8.3") is None  # declares "torch", without a version
    assert declared_requires("flash-attn", "2.5.8") is None  # its sdist published no requirements
    assert declared_requires("transformers", "4.51.1") is None  # torch only under extras
    assert declared_requires("ray", "2.37.0") is None and declared_requires("torch", "2.5.1") is None


def test_rules_answer_only_where_nothing_is_declared() -> None:
    # torchaudio 2.11.0's wheel names no torch: the compatibility matrix answers, sourced
    requires, source = declared_requires("torchaudio", "2.11.0")
    assert requires == ("torch>=2.11,<2.12",) and source.startswith("https://pytorch.org/audio/")
    # a torchvision newer than the data: its pairing rule
    requires, source = declared_requires("torchvision", "0.99.0")
    assert requires == ("torch>=2.84,<2.85",) and source.startswith("https://github.com/pytorch/vision")


def test_cuda_wheels_pins_are_not_applied_to_rocm() -> None:
    assert declared_requires("vllm", "0.6.3", cuda_build=False) is None
    assert declared_requires("xformers", "0.0.28.post3", cuda_build=False) is None
    assert declared_requires("torchvision", "0.20.1", cuda_build=False) == (
        ("torch>=2.5,<2.6",),
        "https://pypi.org/project/torchvision/0.20.1/",
    )


def test_the_wheel_ships_the_data() -> None:
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["pytest_rocmcompat.knowledge"]
    folder = DATA.parent.parent
    shipped = {p for pattern in patterns for p in folder.glob(pattern)}
    assert DATA in shipped and all(p in shipped for p in DATA.parent.iterdir() if p.suffix == ".json")


def test_cpython_wheels_from_the_recorded_tags() -> None:
    """Version-specific CPython wheels give the minors; a py3/abi3 wheel or no wheel gives None (any Python)."""
    assert declared_data.release("torch", "1.8.1").cpython_wheels == {"3.6", "3.7", "3.8", "3.9"}
    assert declared_data.release("torch", "2.11.0+cu130").cpython_wheels == {"3.10", "3.11", "3.12", "3.13", "3.14"}
    assert declared_data.release("transformers", "4.40.0").cpython_wheels is None  # py3-none-any
    assert declared_data.release("flash-attn", "2.5.9.post1").cpython_wheels is None  # sdist only
    abi3 = declared_data.Release("x", "1.0", "2024-01-01", (), "", wheel_tags=("cp39-abi3",))
    assert abi3.cpython_wheels is None


def test_whether_a_release_published_an_sdist() -> None:
    """pip's fallback where no wheel fits: vLLM and xformers publish one, torch and Ray do not."""
    assert declared_data.release("xformers", "0.0.22.post7").sdist
    assert declared_data.release("flash-attn", "2.5.9.post1").sdist  # an sdist only
    assert not declared_data.release("torch", "2.5.1").sdist
    assert not declared_data.release("ray", "2.40.0").sdist

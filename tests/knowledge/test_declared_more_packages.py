"""The packages added to the generated declared data (session 7): real pairs from PyPI's metadata, both ways.

Every range below is the one the committed ``data/declared.json`` records for that release (read
from its PyPI metadata by ``tools/regenerate_declared.py``); each case names the release page.
"""

from __future__ import annotations

import json

import pytest
from packaging.requirements import Requirement

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import numpy_abi, requirements, wheel_python
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.declared_pins import declared_requires
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import REPO
from tools import regenerate_declared as rd

DATA = REPO / "pytest_rocmcompat" / "knowledge" / "data" / "declared.json"
BASE = Environment(platform="cpu", python="3.11.7", os="Linux")  # bench/incidents/run.py's neutral machine


def _findings(*stack: str, check: str = requirements.ID, base: Environment = BASE) -> list[str]:
    return [f.reason for f in evaluate(apply_overrides(base, list(stack))) if f.check == check]


def test_every_package_is_in_the_data_and_the_file_stays_small() -> None:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    assert list(raw["packages"]) == list(rd.PACKAGES) and len(rd.PACKAGES) == 77
    assert all(raw["packages"][name] for name in rd.PACKAGES), "a package with no release since 2020"
    assert DATA.stat().st_size < 4_000_000
    # requirements gated on an extra are left out (unsloth's per-CUDA/torch extras alone are megabytes), except
    # integration extras, named after the package they require
    extras = [
        r
        for releases in raw["packages"].values()
        for e in releases.values()
        for r in e["requires"] or ()
        if "extra" in r
    ]
    assert extras and all(rd.integration_extra(Requirement(r)) for r in extras)
    assert "sgl-kernel" in raw["kept"] and "sentence-transformers" in raw["kept"]


def test_extras_are_left_out_by_the_generator() -> None:
    lines = ["transformers>=4.41.0", 'peft>=0.8.0; extra == "dev"', 'triton>=3.0.0; "linux" in sys_platform']
    assert rd.kept_requirements(lines) == ["transformers>=4.41.0", 'triton>=3.0.0; "linux" in sys_platform']


# ---- requirement-not-met on the new pairs ------------------------------------------------------------
@pytest.mark.parametrize(
    ("stack", "found"),
    [
        # sentence-transformers 3.3.1: transformers<5.0.0,>=4.41.0
        (
            ("lib.sentence-transformers=3.3.1", "lib.transformers=4.40.2"),
            "sentence-transformers 3.3.1 requires transformers<5.0.0,>=4.41.0, installed transformers 4.40.2 "
            "(https://pypi.org/project/sentence-transformers/3.3.1/)",
        ),
        (
            ("lib.sentence_transformers=3.3.1", "lib.transformers=5.0.0"),
            "sentence-transformers 3.3.1 requires transformers<5.0.0,>=4.41.0, installed transformers 5.0.0",
        ),
        (("lib.sentence-transformers=3.3.1", "lib.transformers=4.41.0"), None),
        (("lib.sentence-transformers=3.3.1", "lib.transformers=4.57.1"), None),
        # transformers 4.51.3: tokenizers<0.22,>=0.21 and huggingface-hub<1.0,>=0.30.0
        (
            ("lib.transformers=4.51.3", "lib.tokenizers=0.22.0"),
            "transformers 4.51.3 requires tokenizers<0.22,>=0.21, installed tokenizers 0.22.0",
        ),
        (("lib.transformers=4.51.3", "lib.tokenizers=0.21.1"), None),
        (
            ("lib.transformers=4.51.3", "lib.huggingface-hub=0.29.3"),
            "transformers 4.51.3 requires huggingface-hub<1.0,>=0.30.0, installed huggingface-hub 0.29.3",
        ),
        (("lib.transformers=4.51.3", "lib.huggingface_hub=0.30.2"), None),
        # tokenizers 0.21.0 itself: huggingface-hub<1.0,>=0.16.4
        (
            ("lib.tokenizers=0.21.0", "lib.huggingface-hub=1.0.0"),
            "tokenizers 0.21.0 requires huggingface-hub<1.0,>=0.16.4, installed huggingface-hub 1.0.0",
        ),
        (("lib.tokenizers=0.21.0", "lib.huggingface-hub=0.30.2"), None),
        # unsloth 2026.10.9: transformers ... <=5.17.0,>=4.52.4
        (("lib.unsloth=2026.10.9", "lib.transformers=5.18.0"), "unsloth 2026.10.9 requires transformers!=4.53.0"),
        (("lib.unsloth=2026.10.9", "lib.transformers=5.17.0"), None),
        # SGLang 0.5.5: transformers==4.57.1, xgrammar==0.1.25
        (("lib.sglang=0.5.5", "lib.transformers=4.57.0"), "sglang 0.5.5 requires transformers==4.57.1"),
        (("lib.sglang=0.5.5", "lib.xgrammar=0.1.24"), "sglang 0.5.5 requires xgrammar==0.1.25"),
        (("lib.sglang=0.5.5", "lib.transformers=4.57.1", "lib.xgrammar=0.1.25"), None),
    ],
)
def test_requirements_of_the_new_packages(stack: tuple[str, ...], found: str | None) -> None:
    reasons = _findings(*stack)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        assert found in reasons[0] and "(https://pypi.org/project/" in reasons[0]


def test_both_packages_are_named_and_reached() -> None:
    env = apply_overrides(BASE, ["lib.sentence-transformers=3.3.1", "lib.transformers=4.40.2"])
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID]
    assert set(finding.uses) == {"sentence-transformers", "transformers"}
    assert finding.link == "https://pypi.org/project/sentence-transformers/3.3.1/"


# ---- requirements on torch: SGLang exact like vLLM, the rest reduced to their series -----------------
@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("torch=2.9.0", "lib.sglang=0.5.5"), "sglang 0.5.5 requires torch==2.8.0, installed torch 2.9.0"),
        (("torch=2.8.0", "lib.sglang=0.5.5"), None),
        (("torch=2.8.0+cu128", "lib.sglang=0.5.5"), None),  # the local label counts as pip counts it
        (("torch=2.9.0+rocm6.4", "lib.sglang=0.5.5"), None),  # PyPI's pins are the CUDA build's
        # torchtext 0.17.0 pins torch==2.2.0: the series, as for the domain libraries
        (("torch=2.2.2", "lib.torchtext=0.17.0"), None),
        (("torch=2.3.0", "lib.torchtext=0.17.0"), "torchtext 0.17.0 requires torch>=2.2,<2.3, installed torch 2.3.0"),
        (("torch=2.2.2", "lib.torchtext=0.17.0", "lib.torchdata=0.7.0"), "requires torchdata==0.7.1"),
    ],
)
def test_requirements_on_torch(stack: tuple[str, ...], found: str | None) -> None:
    reasons = _findings(*stack)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        assert found in reasons[0]


def test_sglang_torch_pin_is_kept_exact_and_cuda_only() -> None:
    assert declared_requires("sglang", "0.5.5") == (("torch==2.8.0",), "https://pypi.org/project/sglang/0.5.5/")
    assert declared_requires("sglang", "0.5.5", cuda_build=False) is None
    assert declared_requires("sglang", "0.4.6.post1") is None  # torch only in its extras then
    assert declared_requires("torchtext", "0.17.0") == (
        ("torch>=2.2,<2.3",),
        "https://pypi.org/project/torchtext/0.17.0/",
    )


# ---- numpy: requirement-not-met where declared, numpy2-abi otherwise, never both ---------------------
@pytest.mark.parametrize(
    ("onnxruntime", "check"),
    [
        ("1.18.1", requirements.ID),  # declares numpy<2.0,>=1.21.6
        ("1.18.0", numpy_abi.ID),  # declares numpy>=1.21.6, built against 1.x
        ("1.19.0", None),  # built against NumPy 2
    ],
)
def test_onnxruntime_beside_numpy2(onnxruntime: str, check: str | None) -> None:
    env = apply_overrides(BASE, [f"lib.onnxruntime={onnxruntime}", "lib.numpy=2.0.1"])
    checks = [f.check for f in evaluate(env) if f.check in (requirements.ID, numpy_abi.ID)]
    assert checks == ([check] if check else [])


def test_a_replay_that_leaves_numpy_to_the_machine_keeps_numpy2_abi() -> None:
    """requirement-not-met does not judge the machine's numpy in a replay; numpy2-abi still does."""
    machine = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={"numpy": "2.0.1"})
    checks = [f.check for f in evaluate(apply_overrides(machine, ["lib.onnxruntime=1.18.1"]))]
    assert numpy_abi.ID in checks and requirements.ID not in checks


def test_a_replay_that_leaves_the_package_to_the_machine_keeps_numpy2_abi() -> None:
    """The other way round: the replay names numpy 2 but not the machine's onnxruntime 1.18.1."""
    machine = Environment(
        platform="cpu", python="3.11.7", os="Linux", libraries={"onnxruntime": "1.18.1", "numpy": "1.26.4"}
    )
    checks = [f.check for f in evaluate(apply_overrides(machine, ["lib.numpy=2.0.0"]))]
    assert numpy_abi.ID in checks and requirements.ID not in checks


# ---- no-wheel-for-python: wheel tags decide, pure Python never -------------------------------------------
PURE_PYTHON = (
    "sentence-transformers",
    "diffusers",
    "optimum",
    "optimum-quanto",
    "compressed-tensors",
    "llmcompressor",
    "unsloth",
    "unsloth-zoo",
    "liger-kernel",
    "torchtune",
    "timm",
    "open-clip-torch",
    "lightning",
    "pytorch-lightning",
    "torchmetrics",
    "huggingface-hub",
    "datasets",
    "evaluate",
    "verl",
    "flashinfer-python",
)


@pytest.mark.parametrize("name", PURE_PYTHON)
def test_pure_python_packages_never_get_a_no_wheel_finding(name: str) -> None:
    raw = json.loads(DATA.read_text(encoding="utf-8"))["packages"][name]
    wheeled = [v for v, e in raw.items() if e["python"]]
    assert wheeled, name
    for python in ("3.8.18", "3.14.0"):
        for version in wheeled:
            env = Environment(platform="cuda", python=python, libraries={name: version}, source="replay")
            assert wheel_python.check(env) == [], (name, version, python)


@pytest.mark.parametrize(
    ("python", "libraries", "reason", "uncertain"),
    [
        # onnxruntime 1.18.0: cp38-cp312 wheels, no sdist
        ("3.13.1", {"onnxruntime": "1.18.0"}, "onnxruntime 1.18.0 published wheels for Python 3.8-3.12 only", False),
        # SGLang 0.5.23: cp311-cp313 manylinux wheels, no sdist (0.5.5 was py3-none-any)
        ("3.10.14", {"sglang": "0.5.23"}, "sglang 0.5.23 published wheels for Python 3.11-3.13 only", False),
        # xgrammar 0.1.17: cp39-cp313 wheels and an sdist (a C++ extension): a build risk
        ("3.14.0", {"xgrammar": "0.1.17"}, "xgrammar 0.1.17 published wheels for Python 3.9-3.13 only", True),
    ],
)
def test_compiled_releases_without_a_wheel_for_this_python(
    python: str, libraries: dict[str, str], reason: str, uncertain: bool
) -> None:
    env = Environment(platform="cuda", python=python, libraries=libraries, source="replay")
    (finding,) = wheel_python.check(env)
    assert finding.reason.startswith(reason) and finding.uncertain is uncertain
    (name,) = libraries
    assert wheel_python.check(Environment(platform="cuda", python="3.12.4", libraries=libraries, source="replay")) == []
    assert declared_data.release(name, libraries[name]) is not None

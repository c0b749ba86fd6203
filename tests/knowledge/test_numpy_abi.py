"""``numpy2-abi``: a compiled package built against NumPy 1.x beside NumPy 2 (both ways, per package)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import numpy_abi
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.cli.test_check import check_json
from tests.conftest import DATA
from tests.knowledge.row_checks import reasons

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
NUMPY2 = "lib.numpy=2.1.3"
NUMPY1 = "lib.numpy=1.26.4"


def _found(*stack: str) -> list[str]:
    env = apply_overrides(BASE, list(stack))
    return [f.reason for f in evaluate(env) if f.check == numpy_abi.ID]


def _declared(*stack: str) -> list[str]:
    """What requirement-not-met says of a release whose own declared numpy bound excludes the stack's numpy
    (numpy_abi leaves those to it: one finding per cause)."""
    return [part for reason in reasons(BASE, *stack) for part in reason.split("; ") if " requires numpy" in part]


def _excludes_numpy2(dist: str, version: str) -> bool:
    release = declared_data.release(dist, version)
    reqs = declared_data.requirements_on(release, "numpy", "3.11") if release is not None else ()
    return any(not r.specifier.contains("2.1.3", prereleases=True) for r in reqs)


# (a release built against NumPy 1.x, the first one built against NumPy 2), per package class
PAIRS = [
    ("opencv-python", "4.8.0.76", "4.10.0.84"),
    ("opencv-python", "4.10.0.82", "4.10.0.84"),  # "Experimental NumPy 2.0 support": still fails (opencv#25772)
    ("opencv-python-headless", "4.9.0.80", "4.10.0.84"),
    ("opencv-contrib-python", "4.8.1.78", "4.10.0.84"),
    ("scipy", "1.10.1", "1.13.0"),
    ("pandas", "2.0.3", "2.2.2"),
    ("pandas", "2.2.1", "2.2.2"),
    ("scikit-learn", "1.3.0", "1.4.2"),
    ("scikit-learn", "1.4.1.post1", "1.4.2"),  # a post release is judged as its release
    ("matplotlib", "3.8.3", "3.8.4"),
    ("contourpy", "1.2.0", "1.2.1"),
    ("numba", "0.59.1", "0.60.0"),
    ("h5py", "3.10.0", "3.11.0"),
    ("pyarrow", "15.0.2", "16.0.0"),
    ("onnxruntime", "1.17.0", "1.19.0"),
    # 1.18.1 declares numpy<2.0 on PyPI: requirement-not-met's (tests/knowledge/test_declared_more_packages.py)
    ("onnxruntime-gpu", "1.18.0", "1.19.0"),
    ("tensorflow", "2.17.0", "2.18.0"),
    ("jaxlib", "0.4.25", "0.4.26"),
    ("statsmodels", "0.14.1", "0.14.2"),
    ("numexpr", "2.9.0", "2.10.0"),
]


@pytest.mark.parametrize(("dist", "old", "first"), PAIRS, ids=[f"{d}-{o}" for d, o, _ in PAIRS])
def test_a_numpy1_build_beside_numpy2_is_found(dist: str, old: str, first: str) -> None:
    if _excludes_numpy2(dist, old):  # its declared numpy<2 (generated data): requirement-not-met's, once
        assert _found(NUMPY2, f"lib.{dist}={old}") == []
        (reason,) = _declared(NUMPY2, f"lib.{dist}={old}")
        assert reason.startswith(f"{dist} {old} requires numpy") and "installed numpy 2.1.3" in reason
        return
    (reason,) = _found(NUMPY2, f"lib.{dist}={old}")
    assert reason.startswith(f"{dist} {old} is built against NumPy 1.x") and f"is {first})" in reason


@pytest.mark.parametrize(("dist", "old", "first"), PAIRS, ids=[f"{d}-{o}" for d, o, _ in PAIRS])
def test_the_first_numpy2_build_is_not(dist: str, old: str, first: str) -> None:
    assert _found(NUMPY2, f"lib.{dist}={first}") == []


@pytest.mark.parametrize(("dist", "old", "first"), PAIRS, ids=[f"{d}-{o}" for d, o, _ in PAIRS])
def test_the_old_build_beside_numpy1_is_not(dist: str, old: str, first: str) -> None:
    assert _found(NUMPY1, f"lib.{dist}={old}") == []


def test_without_numpy_nothing_is_found() -> None:
    assert _found("lib.opencv-python=4.8.0.76", "lib.scipy=1.10.1") == []


def test_the_issue_stack_finds_each_package() -> None:
    found = _found(
        NUMPY2,
        "lib.opencv-python=4.8.0.76",
        "lib.scipy=1.10.1",
        "lib.pandas=2.0.3",
        "lib.scikit-learn=1.3.0",
        "lib.numba=0.59.0",
        "lib.onnxruntime=1.17.0",
        "lib.torch-scatter=2.1.2+pt21cu121",  # links torch, not NumPy's C API: not this check's
    )
    declared = _declared(
        NUMPY2, "lib.opencv-python=4.8.0.76", "lib.scipy=1.10.1", "lib.pandas=2.0.3", "lib.scikit-learn=1.3.0",
        "lib.numba=0.59.0", "lib.onnxruntime=1.17.0",
    )  # fmt: skip
    assert sorted(r.split(" ", 1)[0] for r in found + declared) == [
        "numba",
        "onnxruntime",
        "opencv-python",
        "pandas",
        "scikit-learn",
        "scipy",
    ]


@pytest.mark.parametrize(
    ("stack", "expected"),
    [
        (("lib.numpy=2.0.0rc1", "lib.scipy=1.12.0"), 1),  # a NumPy 2.0 pre-release has the 2.x ABI
        ((NUMPY2, "lib.scipy=1.13.0rc1"), 0),  # a pre-release is judged as its release
        ((NUMPY2, "lib.scipy=1.12.0.dev0+abc"), 1),
        ((NUMPY2, "lib.scipy=1.10.1+local"), 1),
        ((NUMPY2, "torch=2.1.2"), 0),  # torch: the bundled rule numpy2-torch-built-against-numpy1
    ],
)
def test_versions_are_judged_by_their_release(stack: tuple[str, ...], expected: int) -> None:
    assert len(_found(*stack)) + len(_declared(*stack)) == expected


def test_an_unreadable_version_says_nothing() -> None:
    for libraries in ({"numpy": "2.1.3", "opencv-python": "not-a-version"}, {"numpy": "garbage", "scipy": "1.10.1"}):
        assert numpy_abi.check(replace(BASE, libraries=libraries)) == []


def test_a_recorded_numpy_pin_is_left_to_requirement_not_met() -> None:
    stack = (NUMPY2, "lib.scipy=1.10.1", "requires.scipy=numpy<1.27.0,>=1.19.5")
    env = apply_overrides(BASE, list(stack))
    checks = {f.check for f in evaluate(env)}
    assert numpy_abi.ID not in checks and "requirement-not-met" in checks


def test_the_finding_reaches_the_package_s_tests_and_is_certain() -> None:
    env = apply_overrides(BASE, [NUMPY2, "lib.opencv-python=4.8.0.76"])
    (finding,) = [f for f in evaluate(env) if f.check == numpy_abi.ID]
    assert finding.uses == ("opencv-python",) and not finding.everything
    assert not finding.uncertain and not finding.conditional
    assert finding.fix == "upgrade opencv-python to >=4.10.0.84, or pin numpy<2"
    assert finding.link == "https://github.com/opencv/opencv-python/releases/tag/84"


@pytest.mark.parametrize(
    "message",
    [
        "Numba needs NumPy 2.0 or less. Got NumPy 2.1.",  # numba too old for a NumPy minor: another class
        "RuntimeWarning: numpy.dtype size changed, may indicate binary incompatibility. Expected 96, got 88",
        "ImportError: numpy._core.multiarray failed to import",  # a NumPy 2 build on NumPy 1.x
        "RuntimeError: Numpy is not available",  # torch's own text, the bundled rule's
    ],
)
def test_the_signature_stays_narrow(message: str) -> None:
    assert compile_signature(PREDICTS[numpy_abi.ID]).search(message) is None


_TESTS = """
import pytest

@pytest.mark.uses("opencv-python")
def test_predicted():
    raise ImportError({predicted!r})

@pytest.mark.uses("opencv-python")
def test_unrelated():
    raise ValueError("a genuinely different regression")

def test_elsewhere():
    raise ImportError({predicted!r})
"""


def test_through_pytest_predicted_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    h100 = Environment.load(str(DATA / "env_h100_archs.json"))  # numpy 2.5.2
    (pytester.path / "env.json").write_text(h100.to_json(), encoding="utf-8")
    predicted = "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash."
    pytester.makepyfile(test_stack=_TESTS.format(predicted=predicted))
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA",
        "--rocm-set", "lib.opencv-python=4.8.0.76",
    )  # fmt: skip
    result.assert_outcomes(xfailed=1, failed=2)
    cases = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    }
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"] == numpy_abi.ID
    unrelated = cases["test_unrelated"]
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert (unrelated["rocm_diagnosis"] or "").startswith(f"{numpy_abi.ID}: opencv-python 4.8.0.76 is built against")
    assert "rocm_rule" not in cases["test_elsewhere"]  # a test that does not use opencv is not reached


def test_rocmcompat_check_on_a_requirements_file_exits_1(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("torch==2.6.0\nnumpy==2.1.3\nopencv-python==4.8.0.76\nscipy==1.13.1\n")
    status, result = check_json(str(tmp_path / "r.txt"))
    assert status == 1 and result["known_bad"] is True
    (problem,) = [p for p in result["problems"] if p["check"] == numpy_abi.ID]
    assert problem["reason"].startswith("opencv-python 4.8.0.76 is built against NumPy 1.x")
    assert problem["conditional"] is False and problem["uncertain"] is False
    (tmp_path / "ok.txt").write_text("torch==2.6.0\nnumpy==2.1.3\nopencv-python==4.10.0.84\n")
    status, result = check_json(str(tmp_path / "ok.txt"))
    assert not [p for p in result["problems"] if p["check"] == numpy_abi.ID]

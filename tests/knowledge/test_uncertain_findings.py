"""Uncertain findings: a stack that does not say which build it runs, on a GPU only some builds serve.

A failure the check predicts confirms the risk (known-bad); an unrelated failure stays a plain
``fail`` (an unconfirmed risk is no likely cause); a pass stands (no stale rule); ``rocmcompat
check`` lists the risk without counting it against the stack. Real checks, sessions, subprocesses.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.checks import arch, python_range, rocblas_arch
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.cli.test_check import rocmcompat


def _rocm(gfx: str, *sets: str) -> Environment:
    env = Environment(python="3.12", platform="rocm", gpus=(GPU(0, "AMD GPU", gfx, vendor="amd"),))
    return derive(apply_overrides(env, list(sets)))


@pytest.mark.parametrize(
    ("check", "gfx", "sets", "expected"),
    [
        # arch-not-in-build: official release wheels carry gfx1151 only from torch 2.10 (rocm7 builds)
        (arch.check, "gfx1151", (), "uncertain"),
        (arch.check, "gfx1151", ("torch=2.10.0+rocm7.1",), "none"),
        (arch.check, "gfx1151", ("torch=2.5.1+rocm6.2",), "certain"),
        (arch.check, "gfx90a", (), "none"),  # every ROCm release build carries it
        # a stated ROCm release narrows the candidates to the torch builds made for it
        (arch.check, "gfx1102", ("rocm=6.1",), "uncertain"),  # no rocm6.1 build carries gfx1102
        (arch.check, "gfx1102", ("rocm=6.3",), "none"),  # every rocm6.3 build does
        (arch.check, "gfx1036", (), "certain"),  # no official wheel ever carried it
        # rocblas-arch-not-in-release: rocBLAS builds Tensile kernels for gfx1201 from ROCm 6.3
        (rocblas_arch.check, "gfx1201", (), "uncertain"),
        (rocblas_arch.check, "gfx1201", ("torch=2.10.0a0+git826b697",), "uncertain"),  # a source build: release unknown
        (rocblas_arch.check, "gfx1201", ("rocm=6.2",), "certain"),
        (rocblas_arch.check, "gfx1201", ("rocm=6.3",), "none"),
        (rocblas_arch.check, "gfx90a", (), "none"),
    ],
)
def test_a_stack_that_does_not_say_its_build_gets_a_risk_not_a_verdict(check, gfx, sets, expected) -> None:
    found = check(_rocm(gfx, *sets))
    kinds = {"uncertain" if f.uncertain else "certain" for f in found} or {"none"}
    assert kinds == {expected}, [f.describe() for f in found]
    if expected == "uncertain":
        assert "names no" in found[0].reason and gfx in found[0].reason


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        (("platform=rocm", "python=3.14"), "uncertain"),  # of the tabled releases only torch 2.9 has cp314 wheels
        (("platform=rocm", "rocm=6.2.4", "python=3.8"), "uncertain"),  # the rocm6.2 builds are torch 2.5-2.7: 3.9+
        (("platform=rocm", "rocm=6.2", "python=3.12"), "none"),
        (("platform=rocm", "python=3.11"), "none"),  # every tabled release has it
        (("python=3.14",), "none"),  # no platform: no build to reason about
        (("platform=rocm", "torch=2.5.1+rocm6.2", "python=3.8"), "certain"),
    ],
)
def test_python_without_a_named_torch_is_a_risk(sets: tuple[str, ...], expected: str) -> None:
    found = python_range.check(derive(apply_overrides(Environment(), list(sets))))
    kinds = {"uncertain" if f.uncertain else "certain" for f in found} or {"none"}
    assert kinds == {expected}, [f.describe() for f in found]


TESTS = """
import pytest

@pytest.mark.gpus(1)
def test_predicted():
    raise RuntimeError("HIP error: invalid device function")

@pytest.mark.gpus(1)
def test_unrelated():
    raise ValueError("a genuinely different regression")

@pytest.mark.gpus(1)
def test_passes():
    pass
"""


def test_a_predicted_failure_confirms_the_risk_a_pass_stands(pytester: pytest.Pytester) -> None:
    (pytester.path / "env.json").write_text(_rocm("gfx1151").to_json(), encoding="utf-8")
    pytester.makepyfile(test_risk=TESTS)
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA"
    )
    result.assert_outcomes(xfailed=1, failed=1, passed=1)
    result.stdout.fnmatch_lines(["*risk(s) the stack does not settle*", "*arch-not-in-build*gfx1151*"])
    props: dict[str, dict[str, str]] = {}
    for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"):
        props[case.get("name") or ""] = {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}
    assert props["test_predicted"]["rocm_outcome"] == "known-bad"
    assert props["test_predicted"]["rocm_rule"] in ("arch-not-in-build", "rocblas-arch-not-in-release")
    assert props["test_unrelated"].get("rocm_outcome", "fail") == "fail"
    assert "gfx1151" not in props["test_unrelated"].get("rocm_diagnosis", "")  # an unconfirmed risk is no cause
    assert (
        props["test_unrelated"].get("rocm_note", "").startswith("risk ")
        and "likely cause" not in props["test_unrelated"]["rocm_note"]
    )
    assert props["test_passes"].get("rocm_outcome", "pass") == "pass", props["test_passes"]


def test_check_lists_the_risk_without_counting_it(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("numpy==1.26.4\n")
    # gfx942 (MI300): official torch wheels carry it from the rocm6.0 builds, rocBLAS from ROCm 5.7
    proc = rocmcompat("check", str(tmp_path / "requirements.txt"), "--set", "platform=rocm", "--set", "arch=gfx942")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "at risk: the stack does not say enough to confirm it" in proc.stdout, proc.stdout
    assert "arch-not-in-build" in proc.stdout and "rocblas-arch-not-in-release" in proc.stdout
    assert "nothing known against this stack" in proc.stdout

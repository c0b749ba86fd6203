"""A check's two outcomes through pytest: its predicted failure ends known-bad, an unrelated one fail."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_rocmcompat.stack.environment import Environment
from tests.conftest import DATA

UNRELATED = "a genuinely different regression"
_TESTS = """
import pytest

@pytest.mark.gpus(1)
def test_predicted():
    raise RuntimeError({predicted!r})

@pytest.mark.gpus(1)
def test_unrelated():
    raise ValueError({unrelated!r})
"""


def predicted_and_unrelated(
    pytester: pytest.Pytester, predicted: str, stack: tuple[str, ...]
) -> tuple[dict[str, str], dict[str, str]]:
    """Run both tests against ``stack`` (``--rocm-set`` values); their JUnit properties."""
    h100 = Environment.load(str(DATA / "env_h100_archs.json"))
    (pytester.path / "env.json").write_text(h100.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=_TESTS.format(predicted=predicted, unrelated=UNRELATED))
    sets = [arg for value in stack for arg in ("--rocm-set", value)]
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA",
        *sets,
    )  # fmt: skip
    result.assert_outcomes(xfailed=1, failed=1)
    cases = junit_properties(pytester.path / "junit.xml")
    return cases["test_predicted"], cases["test_unrelated"]


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    """Each test case's properties in a JUnit file, by test name."""
    cases: dict[str, dict[str, str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        cases[case.get("name") or ""] = {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}
    return cases

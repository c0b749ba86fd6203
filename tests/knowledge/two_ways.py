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

@pytest.mark.{marker}
def test_predicted():
    raise {error}({predicted!r})

@pytest.mark.{marker}
def test_unrelated():
    raise ValueError({unrelated!r})

def test_elsewhere():
    raise {error}({predicted!r})
"""


def run_cases(
    pytester: pytest.Pytester,
    predicted: str,
    stack: tuple[str, ...],
    *,
    uses: str | None = None,
    env: Environment | None = None,
    error: str = "RuntimeError",
) -> dict[str, dict[str, str]]:
    """Run the predicted and an unrelated failure against ``stack`` (``--rocm-set`` values): the JUnit
    properties of ``test_predicted``, ``test_unrelated`` and ``test_elsewhere`` (unmarked, failing with
    the predicted text too). The tests are marked ``gpus(1)``, or ``uses(uses)``; ``env`` is the machine
    replayed (a recorded H100 by default).
    """
    marker = f"uses({uses!r})" if uses else "gpus(1)"
    source = _TESTS.format(marker=marker, error=error, predicted=predicted, unrelated=UNRELATED)
    return run_source(pytester, source, stack, env=env)


def run_source(
    pytester: pytest.Pytester, source: str, stack: tuple[str, ...], *, env: Environment | None = None
) -> dict[str, dict[str, str]]:
    """Run the test module ``source`` on ``env`` (a recorded H100 by default) with ``stack`` as ``--rocm-set``
    values, without the bundled matrix: the JUnit properties of each test case by name.
    """
    base = env if env is not None else Environment.load(str(DATA / "env_h100_archs.json"))
    (pytester.path / "env.json").write_text(base.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=source)
    sets = [arg for value in stack for arg in ("--rocm-set", value)]
    pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA",
        *sets,
    )  # fmt: skip
    return junit_properties(pytester.path / "junit.xml")


def predicted_and_unrelated(
    pytester: pytest.Pytester,
    predicted: str,
    stack: tuple[str, ...],
    *,
    uses: str | None = None,
    env: Environment | None = None,
    error: str = "RuntimeError",
) -> tuple[dict[str, str], dict[str, str]]:
    """:func:`run_cases`, asserting the predicted failure ends known-bad and, for a ``uses`` check, that
    the unmarked test is never claimed; the properties of the predicted and the unrelated test.
    """
    cases = run_cases(pytester, predicted, stack, uses=uses, env=env, error=error)
    assert cases["test_predicted"].get("rocm_outcome") == "known-bad", cases["test_predicted"]
    if uses:  # a gpus-marked check may reach every test (everything=True); a uses one never the unmarked
        assert "rocm_rule" not in cases["test_elsewhere"]
    return cases["test_predicted"], cases["test_unrelated"]


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    """Each test case's properties in a JUnit file, by test name."""
    cases: dict[str, dict[str, str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        cases[case.get("name") or ""] = {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}
    return cases

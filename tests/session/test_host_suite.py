"""A third-party-style suite means the same with and without the plugin (issue 18, "done when").

The suite has its own conftest option, ini ``addopts``, a ``-p`` plugin, ``-W error``,
pytest's own xfail and skip, subtests, a ``_Private`` base class and parametrised ids with
spaces; the plugin's run adds an isolate rule on part of it. Node ids, rootdir, counts and
outcomes must be identical in the terminal and in JUnit, serially and under ``-n 2``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import CPU_ENV

SUITE = """
import warnings

import pytest


def test_flag_and_plugin(request, plug_value):
    assert request.config.getoption("--host-flag") is True  # from the project's ini addopts
    assert plug_value == 42  # from the -p plugin


@pytest.mark.parametrize("name", ["Conv2d 1 LoRA", "plain"])
def test_param(name):
    assert name


def test_warns():
    warnings.warn(UserWarning("host warning"))  # -W error makes this a failure


@pytest.mark.xfail(reason="the project's own expected failure")
def test_own_xfail():
    assert 0


@pytest.mark.skip(reason="the project's own skip")
def test_own_skip():
    pass


def test_sub(subtests):
    for i in range(3):
        with subtests.test(i=i):
            assert i < 2  # one subtest fails


class _Private:
    def test_inherited(self):
        pass


class TestChild(_Private):
    def test_own(self):
        pass
"""

ISOLATE = """
name: Host
known_bad:
  - id: host-isolate
    applies_to:
      nodeids:
        - "test_host.py::test_flag_and_plugin"
        - "test_host.py::test_param[Conv2d 1 LoRA]"
        - "test_host.py::test_warns"
        - "test_host.py::test_sub"
    action: isolate
    reason: run these in their own process
"""

_RESULT_LINE = re.compile(r"^(PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR|SUBPASSED|SUBFAILED)\b(.*)$")


@pytest.fixture
def host(pytester: pytest.Pytester):
    pytester.makeini("[pytest]\naddopts = --host-flag -rA\n")
    pytester.makeconftest(
        "import pytest\n\ndef pytest_addoption(parser):\n    parser.addoption('--host-flag', action='store_true')\n"
    )
    pytester.makepyfile(hostplug="import pytest\n\n@pytest.fixture\ndef plug_value():\n    return 42\n")
    pytester.makepyfile(test_host=SUITE)
    pytester.makefile(".yaml", matrix=ISOLATE)
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    return pytester


def _run(pytester: pytest.Pytester, name: str, *args: str) -> tuple[dict, str, list[str], set]:
    junit = pytester.path / f"{name}.xml"
    result = pytester.runpytest_subprocess(
        "-p", "hostplug", "-W", "error", "-p", "no:cacheprovider", f"--junitxml={junit}", *args, timeout=400
    )
    out = result.stdout.lines
    assert not any("INTERNALERROR" in line for line in out), result.stdout.str()
    rootdir = next(line for line in out if line.startswith("rootdir:"))
    results = sorted(m.group(1) + m.group(2).split(" - ")[0] for line in out if (m := _RESULT_LINE.match(line)))
    cases = set()
    for case in ET.parse(junit).iter("testcase"):
        kind = next(
            (f"{c.tag}:{c.get('type') or ''}" for c in case if c.tag in ("failure", "error", "skipped")), "pass"
        )
        cases.add((case.get("classname"), case.get("name"), kind))
    return result.parseoutcomes(), rootdir, results, cases


@pytest.mark.parametrize("spread", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_suite_means_the_same_with_and_without_the_plugin(host: pytest.Pytester, spread: tuple[str, ...]) -> None:
    if spread:
        pytest.importorskip("xdist")
    without = _run(host, "without", "-p", "no:rocmcompat", *spread)
    with_plugin = _run(host, "with", "--rocm-matrix=matrix.yaml", "--rocm-env=env.json", *spread)
    counts, rootdir, results, cases = without
    assert counts["passed"] == 5 and counts["failed"] == 3 and counts["xfailed"] == 1 and counts["skipped"] == 1
    assert ("test_host", "test_param[Conv2d 1 LoRA]", "pass") in cases
    assert ("test_host.TestChild", "test_inherited", "pass") in cases
    assert ("test_host", "test_warns", "failure:") in cases  # -W error reached it
    assert with_plugin[1] == rootdir
    assert with_plugin[0] == counts, "final-line counts differ"
    assert with_plugin[2] == results, "terminal result lines (-rA) differ"
    assert with_plugin[3] == cases, "JUnit test cases and outcomes differ"


KWARG_KINDS = r"""
import pytest


class Thing:
    def __repr__(self):
        return "Thing<1>"


@pytest.mark.isolated
def test_kinds(subtests):
    cases = [dict(i=2), dict(name="a b"), dict(quote="it's \"x\""), dict(x=1.5, flag=True), dict(none=None),
             dict(pair=(1, "two")), dict(mapping={"k": [1, 2]}), dict(raw=b"\x00b"), dict(obj=Thing())]
    for kwargs in cases:
        with subtests.test("case", **kwargs):
            assert not kwargs  # every one fails: pytest's -rA lists failed subtests only
"""


@pytest.mark.parametrize("spread", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_subtest_arguments_survive_isolation_verbatim(host: pytest.Pytester, spread: tuple[str, ...]) -> None:
    """``SUBFAILED(i=2)`` for ``i=2``, as without the plugin (serially) and ``i='2'`` under -n 2, as
    pytest-xdist itself shows it: what the isolated child showed, never quoted once more."""
    if spread:
        pytest.importorskip("xdist")
    host.makepyfile(test_kinds=KWARG_KINDS)
    without = _run(host, "without", "-p", "no:rocmcompat", "-k", "test_sub or test_kinds", *spread)
    with_plugin = _run(
        host, "with", "--rocm-matrix=matrix.yaml", "--rocm-env=env.json", "-k", "test_sub or test_kinds", *spread
    )
    sub_lines = [line for line in without[2] if line.startswith("SUB")]
    assert len(sub_lines) == 10, without[2]
    assert any("(i=2)" in line for line in sub_lines) if not spread else any("(i='2')" in line for line in sub_lines)
    assert with_plugin[2] == without[2]
    assert with_plugin[0] == without[0] and with_plugin[3] == without[3]

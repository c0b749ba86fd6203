"""The plugin's own modules are imported without assertion rewriting; tests and conftests keep it."""

from __future__ import annotations

import re

import pytest

CONFTEST = """
import sys

def pytest_sessionfinish(session):
    import pytest_rocmcompat.plugin, pytest_rocmcompat.report.markdown  # one loaded at start, one lazily
    names = ("pytest_rocmcompat.plugin", "pytest_rocmcompat.report.markdown", "conftest", "test_rewrite")
    for name in names:
        print("LOADER", name, type(sys.modules[name].__loader__).__name__)
"""

TEST = """
def test_failing_assert_is_explained():
    x = [1, 2]
    assert x == [1, 3]
"""


def test_the_plugin_is_not_rewritten_but_tests_and_conftests_are(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rewrite=TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s")
    loaders = dict(re.findall(r"LOADER (\S+) (\w+)", result.stdout.str()))
    assert loaders["pytest_rocmcompat.plugin"] == "SourceFileLoader", loaders
    assert loaders["pytest_rocmcompat.report.markdown"] == "SourceFileLoader", loaders
    assert loaders["conftest"] == "AssertionRewritingHook", loaders
    assert loaders["test_rewrite"] == "AssertionRewritingHook", loaders
    result.stdout.fnmatch_lines(["*At index 1 diff: 2 != 3*"])  # the test's own assert still explained

"""The plugin's JUnit rewrite works with both of junitparser's XML back-ends: lxml (used where
it is installed, as on the GPU hosts, which refuses a ``str`` holding an encoding declaration)
and the standard library's ElementTree."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    if sys.argv[1] == "stdlib":
        sys.modules["lxml"] = None  # junitparser falls back to xml.etree
    import junitparser.junitparser as jp
    from pytest_rocmcompat.session.junit_file import _with_not_run
    text = ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="1">'
            '<testcase classname="t" name="test_a" time="0.1"/></testsuite></testsuites>')
    out = _with_not_run(text, [("tests/test_b.py::test_b", "not run: the session was interrupted")])
    print("backend", "lxml" if "lxml" in repr(jp.etree) else "stdlib")
    assert 'name="test_b"' in out and "not run: the session was interrupted" in out, out
    assert 'name="test_a"' in out, out
    print("ok")
""")


@pytest.mark.parametrize("backend", ["lxml", "stdlib"])
def test_not_run_cases_are_added_with_either_backend(backend: str) -> None:
    if backend == "lxml":
        pytest.importorskip("lxml")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, backend], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"backend {backend}" in proc.stdout and "ok" in proc.stdout

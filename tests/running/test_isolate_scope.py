"""One switch isolates more than the marked tests: ``--rocm-isolate`` / ini ``rocm_isolate``
(marked | gpu | all). Real pytest sessions; how each test got its process is read from JUnit."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import MI300_ENV

SUITE = """
import os, pytest

def _note_pid(name):
    with open(name + ".pid", "w") as fh:
        fh.write(str(os.getpid()))

def test_plain():
    _note_pid("plain")

def test_plain_2():
    _note_pid("plain_2")

@pytest.mark.gpus(1)
def test_declares_a_gpu():
    pass

@pytest.mark.isolated(timeout=60)
def test_marked():
    pass

def test_a_changes_its_process():
    import torch
    torch.set_default_dtype(torch.float64)

def test_b_sees_a_clean_process():
    import torch
    assert torch.get_default_dtype() == torch.float32, "default dtype leaked"
"""


def _pid(pytester: pytest.Pytester, name: str) -> int:
    return int((pytester.path / f"{name}.pid").read_text())


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, str | None]]:
    pytester.makepyfile(test_scope=SUITE)
    (pytester.path / "env.json").write_text(MI300_ENV.to_json())
    junit = pytester.path / "out.xml"
    result = pytester.runpytest_subprocess(
        "--rocm-env", "env.json", "-p", "no:cacheprovider", f"--junitxml={junit}", *args, timeout=300
    )
    modes: dict[str, str | None] = {}
    for case in ET.parse(junit).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        modes[str(case.get("name"))] = props.get("rocm_isolation")
    return result, modes


def test_default_isolates_only_the_marked_test(pytester: pytest.Pytester) -> None:
    _, modes = _run(pytester)
    assert modes["test_marked"] == "forked"
    assert {name for name, mode in modes.items() if mode} == {"test_marked"}
    assert _pid(pytester, "plain") == _pid(pytester, "plain_2")  # one process for both


def test_gpu_scope_adds_the_tests_that_declare_gpu_use(pytester: pytest.Pytester) -> None:
    result, modes = _run(pytester, "--rocm-isolate", "gpu")
    assert modes["test_declares_a_gpu"] == "forked" and modes["test_marked"] == "forked"
    assert modes["test_plain"] is None
    assert "rocmcompat isolation: 2 isolated test(s): 2 forked" in result.stdout.str()


@pytest.mark.parametrize("how", ["option", "ini"])
def test_all_isolates_every_test_and_nothing_leaks(pytester: pytest.Pytester, how: str) -> None:
    if importlib.util.find_spec("torch") is None:  # not imported here: pytester would unload it after
        pytest.skip("torch is not installed")
    if how == "ini":
        pytester.makeini("[pytest]\nrocm_isolate = all\n")
        args: tuple[str, ...] = ()
    else:
        args = ("--rocm-isolate=all",)
    result, modes = _run(pytester, *args)
    assert set(modes.values()) == {"forked"}, modes
    result.assert_outcomes(passed=6)  # test_b too: test_a's default dtype stayed in test_a's process
    assert "rocmcompat isolation: 6 isolated test(s): 6 forked" in result.stdout.str()
    assert _pid(pytester, "plain") != _pid(pytester, "plain_2")  # a fresh process each


def test_a_wrong_scope_is_a_usage_error_naming_the_key(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nrocm_isolate = everything\n")
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini rocm_isolate = 'everything': one of marked, gpu, all*"])
    assert "Traceback" not in result.stderr.str()


def test_the_option_refuses_an_unknown_scope(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rocm-isolate", "some")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "invalid choice: 'some'" in result.stderr.str()

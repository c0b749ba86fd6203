"""``no-wheel-for-python``: a compiled library release with no wheel for the stack's Python is a risk."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import wheel_python
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.two_ways import junit_properties


def found(python: str, **libraries: str) -> list[str]:
    env = Environment(platform="cuda", torch="2.0.1+cu118", python=python, libraries=libraries, source="replay")
    return [f.reason for f in wheel_python.check(env)]


def test_a_release_without_a_wheel_for_this_python_is_an_uncertain_finding() -> None:
    # xformers 0.0.22.post7 published cp38-cp311 wheels; on Python 3.12 pip builds it from its sdist
    # (googlecolab/colabtools#5554: "stuck at the building wheels step", only on Python 3.12)
    env = Environment(platform="cuda", python="3.12.4", libraries={"xformers": "0.0.22.post7"}, source="replay")
    (finding,) = wheel_python.check(env)
    assert finding.uncertain and finding.uses == ("xformers",) and not finding.everything
    assert finding.reason.startswith("xformers 0.0.22.post7 published wheels for Python 3.8-3.11 only")
    assert finding.reason.endswith("pip builds it from its sdist, if it can")
    assert finding.link == "https://pypi.org/project/xformers/0.0.22.post7/"


def test_without_an_sdist_pip_cannot_install_it_a_finding_of_the_stack() -> None:
    # Ray 2.40.0 published cp39-cp312 wheels and no sdist: on Python 3.13 "No matching distribution"
    env = Environment(platform="cuda", python="3.13.1", libraries={"ray": "2.40.0"}, source="replay")
    (finding,) = wheel_python.check(env)
    assert not finding.uncertain and finding.uses == ("ray",)
    assert finding.reason.endswith("and no sdist: pip cannot install it")


@pytest.mark.parametrize(
    ("python", "libraries"),
    [
        ("3.11.9", {"xformers": "0.0.22.post7"}),  # a wheel for 3.11
        ("3.12.4", {"transformers": "4.40.0"}),  # py3-none-any: every Python
        ("3.12.4", {"flash_attn": "2.5.9.post1"}),  # sdist only: nothing recorded
        ("3.12.4", {"xformers": "99.0"}),  # a release the data does not know
        ("3.12.4", {"torch": "2.0.1"}),  # torch is python-unsupported-by-torch's
    ],
)
def test_no_finding(python: str, libraries: dict[str, str]) -> None:
    assert found(python, **libraries) == []


def test_no_python_no_finding() -> None:
    env = Environment(platform="cuda", python="", libraries={"vllm": "0.2.1.post1"}, source="replay")
    assert wheel_python.check(env) == []


def test_compiled_as_an_uncertain_rule_reaching_the_library_tests() -> None:
    env = Environment(platform="cuda", python="3.12.1", libraries={"vllm": "0.2.1.post1"}, source="replay")  # sdist
    # (torch 2.0.1, which vLLM pins, pins triton 2.0.0: cp36-cp311 and PyPy wheels, no sdist: certain, apart)
    findings = [f for f in evaluate(env) if f.check == wheel_python.ID and f.reason.startswith("vllm")]
    (rule,) = compile_rules(findings)
    assert rule.at_risk and rule.action == "xfail"
    assert rule.signature_matches("ERROR: No matching distribution found for vllm==0.2.1.post1")
    assert not rule.signature_matches("RuntimeError: CUDA error: an illegal memory access was encountered")


TESTS = """
import pytest

@pytest.mark.uses("deepspeed")
def test_predicted():
    raise RuntimeError("ERROR: Failed building wheel for deepspeed")

@pytest.mark.uses("deepspeed")
def test_unrelated():
    raise ValueError("a genuinely different regression")

@pytest.mark.uses("deepspeed")
def test_passes():
    pass
"""


def test_through_pytest_a_predicted_failure_confirms_the_risk_a_pass_stands(pytester: pytest.Pytester) -> None:
    # DeepSpeed 0.16.3 published cp310-cp312 wheels and an sdist; torch 2.6 has Python 3.13 wheels
    env = Environment(platform="cuda", torch="2.6.0+cu124", python="3.13.1", source="replay")
    (pytester.path / "env.json").write_text(env.to_json(), encoding="utf-8")
    pytester.makepyfile(test_risk=TESTS)
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA",
        "--rocm-set", "lib.deepspeed=0.16.3",
    )  # fmt: skip
    result.assert_outcomes(xfailed=1, failed=1, passed=1)
    result.stdout.fnmatch_lines(["*risk(s) the stack does not settle*", "*no-wheel-for-python*deepspeed 0.16.3*"])
    props = junit_properties(pytester.path / "junit.xml")
    assert props["test_predicted"]["rocm_outcome"] == "known-bad"
    assert props["test_predicted"]["rocm_rule"] == "no-wheel-for-python"
    assert props["test_unrelated"].get("rocm_outcome", "fail") == "fail"
    assert (
        props["test_unrelated"].get("rocm_note", "").startswith("risk ")
        and "likely cause" not in props["test_unrelated"]["rocm_note"]
    )
    assert props["test_passes"].get("rocm_outcome", "pass") == "pass"


def test_an_unrelated_failure_names_only_the_certain_rules_as_cause(pytester: pytest.Pytester) -> None:
    """No torch named on Python 3.13: python-unsupported-by-torch is only a risk; Ray 2.40.0 has no
    Python 3.13 wheel and no sdist: certain. The note and the likely cause name the certain one only."""
    env = Environment(platform="cuda", python="3.13.1", source="replay")
    (pytester.path / "env.json").write_text(env.to_json(), encoding="utf-8")
    pytester.makepyfile(
        test_mixed="""
import pytest

@pytest.mark.uses("ray")
def test_unrelated():
    raise ValueError("a genuinely different regression")
"""
    )
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml",
        "--rocm-set", "lib.ray=2.40.0",
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    props = junit_properties(pytester.path / "junit.xml")["test_unrelated"]
    assert props["rocm_note"] == "rule no-wheel-for-python applies but its signature did not match"
    assert props["rocm_diagnosis"].startswith("no-wheel-for-python: ray 2.40.0")
    assert "python-unsupported-by-torch" not in props["rocm_note"] + props["rocm_diagnosis"]


def test_numpy_without_a_wheel_for_python_3_12_is_a_risk_and_its_build_failure_confirms_it() -> None:
    """NumPy 1.24.4 published cp38-cp311 wheels (and PyPy's pp38, which serve no CPython): on 3.12 pip builds its sdist."""
    (reason,) = found("3.12.4", numpy="1.24.4")
    assert reason.startswith("numpy 1.24.4 published wheels for Python 3.8-3.11 only, not for Python 3.12")
    assert found("3.12.4", numpy="1.26.4") == [] and found("3.11.9", numpy="1.24.4") == []
    signature = compile_signature(PREDICTS[wheel_python.ID])
    for quoted in (  # numpy/numpy#29345 (numpy==1.24.0 on Python 3.12), ComfyUI-Fal-API-Flux#5 (1.24.3)
        "× Getting requirements to build wheel did not run successfully.",
        "AttributeError: module 'pkgutil' has no attribute 'ImpImporter'. Did you mean: 'zipimporter'?",
    ):
        assert signature.search(quoted), quoted
    assert not signature.search("ModuleNotFoundError: No module named 'numpy'")

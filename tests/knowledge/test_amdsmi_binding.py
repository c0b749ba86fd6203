"""``amdsmi-binding-mismatch``: PyPI's amdsmi wrapper binding functions the system ROCm's libamd_smi lacks."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import amdsmi_bindings
from pytest_rocmcompat.knowledge.checks import amdsmi_binding
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_source

BASE = Environment(platform="cpu", python="3.12.7", os="Linux")
SIGNATURE = compile_signature(PREDICTS[amdsmi_binding.ID])


def _findings(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, ["platform=rocm", *stack])) if f.check == amdsmi_binding.ID]


def test_the_data_holds_what_the_wrappers_bind() -> None:
    """Read from the wheels: 6.4.1 added amdsmi_get_gpu_busy_percent, 7.0 the CPU affinity call, 6.3 dropped the
    partition resets; a release's patch releases bind the same or more."""
    busy = "amdsmi_get_gpu_busy_percent"
    assert busy not in amdsmi_bindings.bound_by("6.4.0") and busy in amdsmi_bindings.bound_by("6.4.1")
    assert "amdsmi_get_cpu_affinity_with_scope" in amdsmi_bindings.bound_by("7.0.2")
    assert "amdsmi_get_cpu_affinity_with_scope" not in amdsmi_bindings.bound_by("6.4.4")
    assert "amdsmi_reset_gpu_compute_partition" in amdsmi_bindings.bound_by("6.2.4")
    assert "amdsmi_reset_gpu_compute_partition" not in amdsmi_bindings.bound_by("6.3.0")
    assert amdsmi_bindings.bound_by("26.1.0") is None and amdsmi_bindings.bound_by("not a version") is None
    assert len(amdsmi_bindings.exported_by_rocm("6.4")) == 5 and amdsmi_bindings.exported_by_rocm("7.2.0") == ()


@pytest.mark.parametrize(
    ("stack", "named", "every"),
    [
        # a newer wrapper on an older ROCm, beside a ROCm torch that imports amdsmi: import torch fails
        (("rocm=6.4.0", "lib.amdsmi=7.0.2", "torch=2.8.0+rocm6.4"), "amdsmi_get_cpu_affinity_with_scope", True),
        (("rocm=6.4.0", "lib.amdsmi=6.4.1"), "amdsmi_get_gpu_busy_percent", False),  # a patch release apart
        (("rocm=6.4.3", "lib.amdsmi=6.2.4"), "amdsmi_reset_gpu_compute_partition", False),  # removed in 6.3
        (("rocm=6.2", "lib.amdsmi=7.0.0", "torch=2.2.2+rocm5.7"), "amdsmi_get_cpu_affinity_with_scope", False),
    ],
)
def test_a_wrapper_binding_what_the_rocm_lacks_is_found(stack: tuple[str, ...], named: str, every: bool) -> None:
    (finding,) = _findings(*stack)
    assert named in finding.reason and "does not export" in finding.reason
    assert finding.everything is every and finding.uses == (() if every else ("amdsmi",))
    assert ("import torch" in finding.reason) is every and not finding.uncertain
    assert "/opt/rocm/share/amd_smi" in finding.fix and finding.link == amdsmi_binding.SOURCE


@pytest.mark.parametrize(
    "stack",
    [
        ("rocm=6.4.3", "lib.amdsmi=6.4.3"),  # the wrapper of the ROCm in use
        ("rocm=6.4", "lib.amdsmi=6.4.1"),  # a series whose later patches export it: not certain
        ("rocm=7.1.0", "lib.amdsmi=7.0.2"),  # 7.1's wrapper is not on PyPI: not judged
        ("rocm=6.4.0", "lib.amdsmi=26.1.0"),  # ROCm's own wrapper numbers itself: not judged
        ("lib.amdsmi=7.0.2",),  # no system ROCm stated
        ("rocm=6.4.0",),  # no amdsmi listed
    ],
)
def test_a_matching_or_unjudged_pair_is_no_finding(stack: tuple[str, ...]) -> None:
    assert _findings(*stack) == []


# (message, source): ctypes' refusal as users quote it
QUOTED = [
    (
        "AttributeError: /opt/rocm-6.4.0/lib/libamd_smi.so: undefined symbol: amdsmi_get_gpu_busy_percent. Did you "
        "mean: 'amdsmi_get_gpu_fan_speed'?",
        "https://github.com/ROCm/amdsmi/issues/98",  # ROCm 6.4.0's library, a 6.4.1+ wrapper's function
    ),
    (
        "AttributeError: module 'amdsmi.amdsmi_interface' has no attribute 'amdsmi_get_gpu_kfd_info'. Did you mean: "
        "'amdsmi_get_gpu_asic_info'?",
        "https://github.com/modular/rules_mojo/pull/14",  # the amd-smi CLI of a newer ROCm over an older wrapper
    ),
]


@pytest.mark.parametrize(("message", "source"), QUOTED)
def test_quoted_texts_are_predicted(message: str, source: str) -> None:
    assert source.startswith("https://github.com/") and SIGNATURE.search(message)


@pytest.mark.parametrize(
    "message",
    [
        "UserWarning: Can't initialize amdsmi - Error code: 34",  # the driver not loaded: not the wrapper
        "ModuleNotFoundError: No module named 'amdsmi'",
        "KeyError: 'libamd_smi.so'",  # no library found at all
        "ValueError: a genuinely different regression",
    ],
)
def test_other_failures_are_not_claimed(message: str) -> None:
    assert not SIGNATURE.search(message)


SOURCE = """
def test_monitor():
    raise AttributeError("/opt/rocm-6.4.0/lib/libamd_smi.so: undefined symbol: amdsmi_get_cpu_affinity_with_scope")

def test_unrelated():
    raise ValueError("a genuinely different regression")
"""


def test_through_pytest_the_import_failure_is_known_bad_and_another_failure_keeps_its_outcome(
    pytester: pytest.Pytester,
) -> None:
    stack = ("platform=rocm", "rocm=6.4.0", "lib.amdsmi=7.0.2", "torch=2.8.0+rocm6.4")
    cases = run_source(pytester, SOURCE, stack)
    assert cases["test_monitor"]["rocm_outcome"] == "known-bad"
    assert cases["test_monitor"]["rocm_rule"] == amdsmi_binding.ID
    unrelated = cases["test_unrelated"]
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{amdsmi_binding.ID}: PyPI's amdsmi 7.0.2 binds")

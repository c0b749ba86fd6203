"""Known-bad rules from AMD's ROCm release notes (5.6 - 7.x), replayed.

Each rule in ``matrices/known_bad.yaml``'s release-notes section restates a known, resolved or fixed
issue of a ROCm release. For each: it loads from the bundled database, applies to a stack in its
release range (and arch or environment variable where the notes name one) and not to the stack just
outside it, reaches only the tests the notes' component can touch, and, having no signature (the
notes quote no error message), isolates without ever turning a failure into ``known-bad``. The
trigger/outside cases are also ``CASES`` of ``tests/knowledge/test_known_bad_rules.py``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts, uses_of
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA, REPO

KNOWN_BAD = REPO / "matrices" / "known_bad.yaml"
BASE = Environment(platform="cpu", python="3.11.7")
ROCM = "platform=rocm"
XNACK = "env.HSA_XNACK=1"

# rule id -> (overrides that trigger it, overrides just outside its conditions)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "rocm-5.6.0-hip-module-unload-memory-leak": (
        [ROCM, "arch=gfx90a", "rocm=5.6.0"],
        [ROCM, "arch=gfx90a", "rocm=5.6.1"],
    ),
    "rocm-5.6-xnack-gpuvm-fault-or-hang": (
        [ROCM, "arch=gfx90a", "rocm=5.6.1", XNACK],
        [ROCM, "arch=gfx90a", "rocm=5.7.0", XNACK],
    ),
    "rocm-6.0-rocfft-hmm-memory-access-violations": (
        [ROCM, "arch=gfx90a", "rocm=6.0.2", XNACK],
        [ROCM, "arch=gfx90a", "rocm=6.1.0", XNACK],
    ),
    "rocm-6.1-miopen-gemmbwdrest-memory-access-fault": (
        [ROCM, "arch=gfx942", "rocm=6.1.2"],
        [ROCM, "arch=gfx942", "rocm=6.2.0"],
    ),
    "rocm-6.1-hip-graph-stream-capture-unhandled-ops": (
        [ROCM, "arch=gfx942", "rocm=6.1.0"],
        [ROCM, "arch=gfx942", "rocm=6.2.0"],
    ),
    "rocm-6.2.0-hip-soft-hang-amd-serialize-kernel": (
        [ROCM, "arch=gfx942", "rocm=6.2.0", "env.AMD_SERIALIZE_KERNEL=3"],
        [ROCM, "arch=gfx942", "rocm=6.2.1", "env.AMD_SERIALIZE_KERNEL=3"],
    ),
    "rocm-6.4-hip-graph-capture-stale-state": (
        [ROCM, "arch=gfx942", "rocm=6.4.0"],
        [ROCM, "arch=gfx942", "rocm=6.4.1"],  # HIP 6.4.1's changelog: "Stale state during the graph capture" resolved
    ),
    "rocm-6.4-hipblaslt-tt-fp32-xf32-incorrect-results": (
        [ROCM, "arch=gfx942", "rocm=6.4.0"],
        [ROCM, "arch=gfx942", "rocm=6.4.1"],  # hipBLASLt 0.12.1 (ROCm 6.4.1) fixed the TT FP32/TF32 accuracy
    ),
    "rocm-7.1.0-gemm-ex-reduced-precision-m1-n1": (
        [ROCM, "arch=gfx942", "rocm=7.1.0"],
        [ROCM, "arch=gfx942", "rocm=7.1.1"],
    ),
    "rocm-7.1.1-gemm-ex-8bit-k1-incorrect-results": (
        [ROCM, "arch=gfx950", "rocm=7.1.1"],
        [ROCM, "arch=gfx950", "rocm=7.2.0"],
    ),
    "rocm-7.1.0-rccl-profiler-plugin-alltoall-segfault": (
        [ROCM, "arch=gfx942", "rocm=7.1.0", "env.NCCL_PROFILER_PLUGIN=/opt/rocm/lib/librccl-profiler.so"],
        [ROCM, "arch=gfx942", "rocm=7.1.1", "env.NCCL_PROFILER_PLUGIN=/opt/rocm/lib/librccl-profiler.so"],
    ),
    "rocm-6.0.2-radeon-igpu-with-dgpu-pytorch-crash": (
        [ROCM, "arch=gfx1100,gfx1036", "rocm=6.0.2"],
        [ROCM, "arch=gfx1100,gfx1036", "rocm=6.1.0"],
    ),
}

# Stacks inside a rule's release range that must still not be judged: the arch or variable the notes
# name is missing (a working stack a too-wide rule would mark).
NOT_REACHED: dict[str, list[str]] = {
    "rocm-5.6-xnack-gpuvm-fault-or-hang": [ROCM, "arch=gfx90a", "rocm=5.6.0"],
    "rocm-6.0-rocfft-hmm-memory-access-violations": [ROCM, "arch=gfx90a", "rocm=6.0.2", "env.HSA_XNACK=0"],
    "rocm-6.2.0-hip-soft-hang-amd-serialize-kernel": [ROCM, "arch=gfx942", "rocm=6.2.0"],
    "rocm-7.1.0-rccl-profiler-plugin-alltoall-segfault": [ROCM, "arch=gfx942", "rocm=7.1.0"],
    "rocm-6.0.2-radeon-igpu-with-dgpu-pytorch-crash": [ROCM, "arch=gfx1100", "rocm=6.0.2"],
    "rocm-6.4-hip-graph-capture-stale-state": ["platform=cuda", "arch=sm_90", "cuda=12.4"],
}

# rule id -> (a test it must reach, a test it must not reach): node id, markers, uses
GRAPH = ("tests/test_serve.py::test_cuda_graph_replay", set(), set())
PLAIN = ("tests/test_io.py::test_load_checkpoint", set(), set())
REACH: dict[str, tuple[tuple[str, set[str], set[str]], tuple[str, set[str], set[str]]]] = {
    "rocm-5.6.0-hip-module-unload-memory-leak": (("t.py::test_compiled", set(), {"torch.compile"}), PLAIN),
    "rocm-5.6-xnack-gpuvm-fault-or-hang": (("t.py::test_matmul", {"gpus"}, set()), PLAIN),
    "rocm-6.0-rocfft-hmm-memory-access-violations": (("t.py::test_rfft_roundtrip", set(), set()), PLAIN),
    "rocm-6.1-miopen-gemmbwdrest-memory-access-fault": (("t.py::test_conv2d_backward", set(), set()), PLAIN),
    "rocm-6.1-hip-graph-stream-capture-unhandled-ops": (GRAPH, PLAIN),
    "rocm-6.2.0-hip-soft-hang-amd-serialize-kernel": (("t.py::test_train_step", {"gpus"}, set()), PLAIN),
    "rocm-6.4-hip-graph-capture-stale-state": (GRAPH, PLAIN),
    "rocm-6.4-hipblaslt-tt-fp32-xf32-incorrect-results": (("t.py::test_matmul_fp32", set(), set()), PLAIN),
    "rocm-7.1.0-gemm-ex-reduced-precision-m1-n1": (("t.py::test_gemv_fp16", set(), set()), PLAIN),
    "rocm-7.1.1-gemm-ex-8bit-k1-incorrect-results": (("t.py::test_scaled_mm", set(), {"fp8"}), PLAIN),
    "rocm-7.1.0-rccl-profiler-plugin-alltoall-segfault": (
        ("t.py::test_all_to_all", set(), {"torch.distributed"}),
        ("t.py::test_all_to_all", {"gpus"}, set()),
    ),
    "rocm-6.0.2-radeon-igpu-with-dgpu-pytorch-crash": (("t.py::test_forward", {"gpus"}, set()), PLAIN),
}


@pytest.fixture(scope="module")
def rules() -> dict[str, Rule]:
    return {r.id: r for r in load_matrix(str(KNOWN_BAD)).rules}


def _active(overrides: list[str]) -> ActiveRules:
    return ActiveRules(load_matrix(str(KNOWN_BAD)).rules, apply_overrides(BASE, overrides))


def test_cases_cover_the_release_notes_section_exactly(rules) -> None:
    """Every rule of the section (and no other) has a case, a reach and a place in the file's end."""
    ours = [rid for rid in rules if "release-notes" in _section_of(rid)]
    assert sorted(ours) == sorted(CASES) == sorted(REACH)
    assert len(CASES) >= 10


def _section_of(rule_id: str) -> str:
    text = KNOWN_BAD.read_text(encoding="utf-8")
    start = text.index("# ---------------------------------------------------------------- AMD's ROCm release notes")
    return "release-notes" if f"- id: {rule_id}\n" in text[start:] else ""


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_applies_in_its_release_range_and_not_just_outside(rule_id: str) -> None:
    trigger, outside = CASES[rule_id]
    assert rule_id in {r.id for r in _active(trigger).active}, trigger
    assert rule_id not in {r.id for r in _active(outside).active}, outside


@pytest.mark.parametrize("rule_id", sorted(NOT_REACHED))
def test_rule_leaves_a_stack_without_the_named_arch_or_variable(rule_id: str) -> None:
    assert rule_id not in {r.id for r in _active(NOT_REACHED[rule_id]).active}


@pytest.mark.parametrize("rule_id", sorted(REACH))
def test_rule_reaches_only_the_tests_its_component_touches(rule_id: str) -> None:
    active = _active(CASES[rule_id][0])
    (hit_id, hit_marks, hit_uses), (miss_id, miss_marks, miss_uses) = REACH[rule_id]
    assert rule_id in {r.id for r in active.match(ItemFacts(hit_id, hit_marks, uses_of(hit_uses)))}
    assert rule_id not in {r.id for r in active.match(ItemFacts(miss_id, miss_marks, uses_of(miss_uses)))}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_is_sourced_unsigned_and_never_hides_a_failure(rules, rule_id: str) -> None:
    rule = rules[rule_id]
    assert rule.when.platforms == ("rocm",)
    assert "rocm" in dict(rule.when.versions), "each rule is bounded by ROCm release"
    # the notes quote no error message: no signature, so the rule cannot claim a failure ...
    assert rule.signature is None
    # ... and it isolates (a crash or hang ends one test) instead of skipping what it reaches
    assert rule.action == "isolate" and not rule.contested
    notes = [u for u in rule.links if "release-notes" in u or "RELEASE.md" in u or "CHANGELOG.md" in u]
    notes += [u for u in rule.links if "rn-amdgpu-unified-linux" in u]  # AMD's Radeon release notes
    assert notes and all("#" in u for u in notes if "rocm.docs.amd.com" in u), rule.links
    spec = dict(rule.when.versions)["rocm"]
    for axis, version in rule.fixed_in:
        assert axis == "rocm" and not SpecifierSet(str(spec)).contains(Version(version), prereleases=True)


def test_the_database_count_includes_the_section(rules) -> None:
    assert len(rules) >= 80 + len(CASES)


_TESTS = """
import os, pytest

@pytest.mark.gpus(1)
def test_hangs_or_crashes():
    os.abort()

@pytest.mark.gpus(1)
def test_unrelated_failure():
    raise ValueError("a genuinely different regression")
"""


def _run(pytester: pytest.Pytester, stack: list[str]) -> dict[str, dict[str, str]]:
    env = Environment.load(str(DATA / "env_h100_archs.json"))
    (pytester.path / "env.json").write_text(env.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=_TESTS)
    sets = [arg for value in stack for arg in ("--rocm-set", value)]
    result = pytester.runpytest("--rocm-env", "env.json", "-p", "no:cacheprovider", "--junitxml", "junit.xml", *sets)
    result.assert_outcomes(failed=2)  # nothing hidden: the crash and the unrelated failure both fail
    cases: dict[str, dict[str, str]] = {}
    for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"):
        cases[case.get("name") or ""] = {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}
    return cases


def test_in_range_a_crash_is_contained_and_named_and_a_failure_stays_a_failure(pytester: pytest.Pytester) -> None:
    rule_id = "rocm-6.2.0-hip-soft-hang-amd-serialize-kernel"
    stack = [*CASES[rule_id][0], "torch=2.5.1+rocm6.2"]
    cases = _run(pytester, stack)
    crash, unrelated = cases["test_hangs_or_crashes"], cases["test_unrelated_failure"]
    # the rule isolated the test: its abort ended only that process, named by the rule
    assert crash["rocm_outcome"] == "crashed" and crash["rocm_rule"] == rule_id
    assert crash["rocm_isolation"] == "forked"
    # a failure the rule does not describe is a plain failure, never known-bad
    assert unrelated.get("rocm_outcome", "fail") == "fail"
    assert unrelated.get("rocm_rule") != rule_id

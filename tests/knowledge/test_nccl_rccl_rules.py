"""Known-bad NCCL and RCCL releases, replayed against the bundled database.

Each rule of ``matrices/known_bad.yaml``'s NCCL/RCCL section restates a defect that a maintainer
confirmed (release notes, changelog, or a maintainer's comment) with its affected range and fixed
release. For each: a stack in range triggers it and the stack just outside does not (these cases are
also ``CASES`` of ``tests/knowledge/test_known_bad_rules.py``); it reaches only distributed tests; a
rule with a signature matches the verbatim error text of a real report (``QUOTES``) and no other NCCL
failure; a hang or corruption without a reliable message isolates and claims no failure.
"""

from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts, uses_of
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import REPO

KNOWN_BAD = REPO / "matrices" / "known_bad.yaml"
BASE = Environment(platform="cpu", python="3.11.7")
ROCM, CUDA = "platform=rocm", "platform=cuda"
H100 = [CUDA, "arch=sm_90"]
RTX5090 = [CUDA, "arch=sm_120"]
MI355 = [ROCM, "arch=gfx950"]
MI300 = [ROCM, "arch=gfx942"]

# rule id -> (overrides that trigger it, overrides just outside its conditions)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "nccl-before-2.15.5-h100-ring-ll128-two-gpu-hang": (
        [*H100, "nccl=2.14.3"],
        [*H100, "nccl=2.15.5"],
    ),
    "nccl-2.13-2.16-cuda-launch-blocking-hang": (
        [*H100, "nccl=2.14.3", "env.CUDA_LAUNCH_BLOCKING=1"],
        [*H100, "nccl=2.17.1", "env.CUDA_LAUNCH_BLOCKING=1"],
    ),
    "nccl-2.18.1-tree-ll128-data-corruption-hopper": (
        [*H100, "nccl=2.18.1"],
        [*H100, "nccl=2.18.3"],
    ),
    "nccl-2.25.1-comm-abort-hang": (
        [*H100, "nccl=2.25.1"],
        [*H100, "nccl=2.26.2"],
    ),
    "nccl-2.25.1-blackwell-sm120-shared-memory-launch-failure": (
        [*RTX5090, "nccl=2.25.1"],
        [*RTX5090, "nccl=2.26.2"],
    ),
    "nccl-2.26-torch-2.7.0-nonblocking-eager-init-hang": (
        [*H100, "torch=2.7.0+cu126", "nccl=2.26.2"],
        [*H100, "torch=2.7.1+cu126", "nccl=2.26.2"],
    ),
    "rccl-2.22.3-msccl-comm-split-segfault": (
        [*MI300, "rocm=6.4.1", "nccl=2.22.3"],
        [*MI300, "rocm=7.0.0", "nccl=2.26.6"],
    ),
    "rccl-rocm-7.0-7.1.0-msccl-ll-allreduce-corruption-gfx950": (
        [*MI355, "rocm=7.1.0"],
        [*MI355, "rocm=7.1.1"],
    ),
}

# rule id -> a stack in range that the rule must leave alone (other arch, or the documented workaround set)
SPARED: dict[str, list[str]] = {
    "nccl-before-2.15.5-h100-ring-ll128-two-gpu-hang": [CUDA, "arch=sm_80", "nccl=2.14.3"],
    "nccl-2.13-2.16-cuda-launch-blocking-hang": [*H100, "nccl=2.14.3", "env.CUDA_LAUNCH_BLOCKING=0"],
    "nccl-2.18.1-tree-ll128-data-corruption-hopper": [*H100, "nccl=2.18.1", "env.NCCL_PROTO=^LL128"],
    "nccl-2.25.1-comm-abort-hang": [*MI300, "nccl=2.25.1"],
    "nccl-2.25.1-blackwell-sm120-shared-memory-launch-failure": [*H100, "nccl=2.25.1"],
    "nccl-2.26-torch-2.7.0-nonblocking-eager-init-hang": [
        *H100,
        "torch=2.7.0+cu126",
        "nccl=2.26.2",
        "env.TORCH_NCCL_USE_COMM_NONBLOCKING=0",
    ],
    "rccl-2.22.3-msccl-comm-split-segfault": [*MI300, "rocm=6.4.1", "nccl=2.22.3", "env.RCCL_MSCCL_ENABLE=0"],
    "rccl-rocm-7.0-7.1.0-msccl-ll-allreduce-corruption-gfx950": [*MI300, "rocm=7.1.0"],
}

# rule id -> real error text quoted verbatim from its public source: (URL, quote)
QUOTES: dict[str, list[tuple[str, str]]] = {
    "nccl-2.25.1-blackwell-sm120-shared-memory-launch-failure": [
        (
            "https://github.com/NVIDIA/nccl-tests/issues/287",
            "GENOA-06:4766:4780 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856",
        ),
        (
            "https://github.com/NVIDIA/nccl-tests/issues/287",
            "GENOA-06:4766:4766 [1] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'",
        ),
    ],
}

# NCCL failures of other causes that no signature here may claim (verbatim, from the sources named)
OTHER_NCCL_FAILURES = (
    # NVIDIA/nccl#1788 (NVLS multicast bind, a different rule)
    "transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation cannot be performed in the present state'",
    # NVIDIA/nccl-tests#287, the generic line every NCCL CUDA error ends in
    "GENOA-06: Test NCCL failure common.cu:392 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '",
    # NVIDIA/nccl-tests#166 (shared memory segment in /dev/shm, a container limit)
    "ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment "
    "/dev/shm/nccl-KWfVyt (size 5967872)",
)

# rule id -> ((nodeid, markers, uses) of a test it reaches, the same of one it must not reach)
Item = tuple[str, set[str], set[str]]
DISTRIBUTED: Item = ("t.py::test_ddp_step", set(), {"torch.distributed"})
PLAIN_GPU: Item = ("t.py::test_matmul", {"gpus"}, set())
REACH: dict[str, tuple[Item, Item]] = {
    "nccl-before-2.15.5-h100-ring-ll128-two-gpu-hang": (DISTRIBUTED, PLAIN_GPU),
    "nccl-2.13-2.16-cuda-launch-blocking-hang": (DISTRIBUTED, PLAIN_GPU),
    "nccl-2.18.1-tree-ll128-data-corruption-hopper": (("t.py::test_all_reduce", set(), {"nccl"}), PLAIN_GPU),
    "nccl-2.25.1-comm-abort-hang": (DISTRIBUTED, PLAIN_GPU),
    "nccl-2.25.1-blackwell-sm120-shared-memory-launch-failure": (DISTRIBUTED, PLAIN_GPU),
    "nccl-2.26-torch-2.7.0-nonblocking-eager-init-hang": (DISTRIBUTED, PLAIN_GPU),
    "rccl-2.22.3-msccl-comm-split-segfault": (
        ("t.py::test_new_group_split", set(), set()),
        ("t.py::test_all_reduce", set(), {"torch.distributed"}),
    ),
    "rccl-rocm-7.0-7.1.0-msccl-ll-allreduce-corruption-gfx950": (
        ("t.py::test_all_reduce_small", set(), set()),
        ("t.py::test_all_gather", set(), {"torch.distributed"}),
    ),
}


@pytest.fixture(scope="module")
def rules() -> dict[str, Rule]:
    return {r.id: r for r in load_matrix(str(KNOWN_BAD)).rules}


def _active(overrides: list[str]) -> ActiveRules:
    return ActiveRules(load_matrix(str(KNOWN_BAD)).rules, apply_overrides(BASE, overrides))


def _active_ids(overrides: list[str]) -> set[str]:
    return {r.id for r in _active(overrides).active}


def _section_ids() -> list[str]:
    """The rule ids between this section's header and the next section's."""
    text = KNOWN_BAD.read_text(encoding="utf-8")
    start = text.index("# ---------------------------------------------------------------- NCCL / RCCL releases")
    end = text.index("# ----------------------------------------------------------------", start + 10)
    return [line.split("- id: ", 1)[1].strip() for line in text[start:end].splitlines() if "- id: " in line]


def test_cases_cover_the_section_exactly() -> None:
    assert sorted(_section_ids()) == sorted(CASES) == sorted(SPARED) == sorted(REACH)
    assert len(CASES) >= 6


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_applies_in_range_and_not_just_outside(rule_id: str) -> None:
    trigger, outside = CASES[rule_id]
    assert rule_id in _active_ids(trigger), trigger
    assert rule_id not in _active_ids(outside), outside


@pytest.mark.parametrize("rule_id", sorted(SPARED))
def test_rule_spares_other_archs_and_the_documented_workaround(rule_id: str) -> None:
    assert rule_id not in _active_ids(SPARED[rule_id]), SPARED[rule_id]


@pytest.mark.parametrize("rule_id", sorted(REACH))
def test_rule_reaches_only_collective_tests(rule_id: str) -> None:
    active = _active(CASES[rule_id][0])
    (hit_id, hit_marks, hit_uses), (miss_id, miss_marks, miss_uses) = REACH[rule_id]
    assert rule_id in {r.id for r in active.match(ItemFacts(hit_id, hit_marks, uses_of(hit_uses)))}
    assert rule_id not in {r.id for r in active.match(ItemFacts(miss_id, miss_marks, uses_of(miss_uses)))}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_is_sourced_and_fixed_outside_its_range(rules: dict[str, Rule], rule_id: str) -> None:
    rule = rules[rule_id]
    assert rule.links and all(u.startswith("https://") for u in rule.links)
    assert rule.fixed_in, f"{rule_id}: every defect here has a fixed release"
    specs = dict(rule.when.versions)
    for axis, version in rule.fixed_in:
        if axis in specs:
            assert not SpecifierSet(str(specs[axis])).contains(Version(version), prereleases=True)
    if rule.signature is None:  # a hang or corruption: contain it, never claim the failure
        assert rule.action == "isolate"
    else:
        assert rule.action == "xfail" and rule_id in QUOTES


@pytest.mark.parametrize("rule_id", sorted(QUOTES))
def test_signature_matches_each_verbatim_quote(rules: dict[str, Rule], rule_id: str) -> None:
    rule = rules[rule_id]
    for url, quote in QUOTES[rule_id]:
        assert rule.signature_matches(quote), f"{rule_id}: no match for the text quoted in {url}"


@pytest.mark.parametrize("rule_id", sorted(QUOTES))
@pytest.mark.parametrize("text", OTHER_NCCL_FAILURES)
def test_signature_does_not_claim_other_nccl_failures(rules: dict[str, Rule], rule_id: str, text: str) -> None:
    assert not rules[rule_id].signature_matches(text)


def test_cuda_launch_blocking_rule_reads_the_variable_as_nccl_does() -> None:
    """NCCL 2.17.1 treats CUDA_LAUNCH_BLOCKING as set when non-empty and not exactly "0"."""
    rule_id = "nccl-2.13-2.16-cuda-launch-blocking-hang"
    stack = [*H100, "nccl=2.16.5"]
    assert rule_id in _active_ids([*stack, "env.CUDA_LAUNCH_BLOCKING=1"])
    assert rule_id not in _active_ids([*stack, "env.CUDA_LAUNCH_BLOCKING=0"])
    assert rule_id not in _active_ids(stack)
    assert rule_id not in _active_ids([CUDA, "arch=sm_90", "nccl=2.12.12", "env.CUDA_LAUNCH_BLOCKING=1"])

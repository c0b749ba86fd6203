"""Rule conditions against environments, and matching rules to tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import CPU_ENV, MI50_ENV, MI300_ENV

RULES = """
known_bad:
  - id: gfx906-fault
    when: {arch: gfx906, torch: "==2.5.1", torch_rocm: "==6.2.*"}
    applies_to: {markers: [gpus]}
    reason: fault
  - id: gfx94-any
    when: {arch: "gfx94*"}
    applies_to: {nodeids: ["suites/gpu/test_a.py", "*::test_attn*"]}
    reason: glob
  - id: torchao-int1
    when: {libraries: {torchao: ">=0.7"}, torch: "<2.6"}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "has no attribute 'int1'"
    reason: int1
  - id: override-set
    when: {env: {HSA_OVERRIDE_GFX_VERSION: present}}
    reason: override
  - id: override-other
    when: {env: {HSA_OVERRIDE_GFX_VERSION: {not_equals: "9.0.6"}}}
    reason: override differs
  - id: expandable
    when: {env: {PYTORCH_CUDA_ALLOC_CONF: {matches: "expandable_segments:\\\\s*True"}}, libraries: {vllm: "*"}}
    reason: vllm + expandable
  - id: no-ray-var
    when: {libraries: {ray: ">=2.45"}, env: {RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES: absent}, platform: rocm}
    reason: ray
  - id: vllm-absent
    when: {libraries: {vllm: absent}, platform: [rocm, cuda]}
    reason: absent
  - id: py313
    when: {python: ">=3.13", rocm: ">=6.0"}
    reason: py313
  - id: cuda-old
    when: {torch_cuda: "<12.0", arch: ["sm_7*"]}
    reason: old
"""


@pytest.fixture
def rules(matrix_file):
    return load_matrix(matrix_file(RULES)).rules


def active(rules, env: Environment) -> set[str]:
    return {r.id for r in ActiveRules(rules, env).active}


def test_memory_fault_rule_mi50_vs_mi300(rules) -> None:
    assert "gfx906-fault" in active(rules, MI50_ENV)
    assert "gfx906-fault" not in active(rules, MI300_ENV)
    assert "gfx94-any" in active(rules, MI300_ENV)
    other_torch = replace(MI50_ENV, torch="2.4.1+rocm6.0", hip="6.0.32830-d62f6a171")
    assert "gfx906-fault" not in active(rules, other_torch)
    # The rocm6.2 tag is what matters, not the system ROCm.
    assert "gfx906-fault" in active(rules, replace(MI50_ENV, rocm="7.1.1"))
    assert "gfx906-fault" not in active(rules, replace(MI50_ENV, torch="2.5.1+rocm6.1", hip=None))


def test_library_conditions(rules) -> None:
    env = apply_overrides(CPU_ENV, ["torch=2.5.1", "lib.torchao=0.7.0"])
    assert "torchao-int1" in active(rules, env)
    assert "torchao-int1" not in active(rules, apply_overrides(env, ["lib.torchao=0.6.1"]))
    assert "torchao-int1" not in active(rules, apply_overrides(env, ["lib.torchao="]))
    assert "torchao-int1" not in active(rules, apply_overrides(env, ["torch=2.6.0"]))
    assert "vllm-absent" in active(rules, apply_overrides(CPU_ENV, ["platform=rocm"]))
    assert "vllm-absent" not in active(rules, apply_overrides(CPU_ENV, ["platform=rocm", "lib.vllm=0.9.0"]))
    assert "vllm-absent" not in active(rules, CPU_ENV)  # platform list excludes cpu


def test_env_conditions(rules) -> None:
    base = apply_overrides(MI50_ENV, [])
    assert not {"override-set", "override-other"} & active(rules, base)
    same = apply_overrides(base, ["env.HSA_OVERRIDE_GFX_VERSION=9.0.6"])
    assert "override-set" in active(rules, same) and "override-other" not in active(rules, same)
    other = apply_overrides(base, ["env.HSA_OVERRIDE_GFX_VERSION=10.3.0"])
    assert {"override-set", "override-other"} <= active(rules, other)
    vllm = apply_overrides(CPU_ENV, ["lib.vllm=0.10.0", "env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"])
    assert "expandable" in active(rules, vllm)
    assert "expandable" not in active(
        rules, apply_overrides(vllm, ["env.PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.6"])
    )
    ray = apply_overrides(MI50_ENV, ["lib.ray=2.45.0"])
    assert "no-ray-var" in active(rules, ray)
    assert "no-ray-var" not in active(rules, apply_overrides(ray, ["env.RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1"]))
    assert "no-ray-var" not in active(rules, apply_overrides(ray, ["lib.ray=2.44.1"]))


def test_version_axes_unknown_means_no_match(rules) -> None:
    assert "py313" not in active(rules, apply_overrides(CPU_ENV, ["python=3.13.1"]))  # no ROCm at all
    assert "py313" in active(rules, apply_overrides(MI50_ENV, ["python=3.13.1"]))
    assert "cuda-old" in active(rules, apply_overrides(CPU_ENV, ["arch=sm_70", "torch=2.0.1+cu118"]))
    assert "cuda-old" not in active(rules, apply_overrides(CPU_ENV, ["arch=sm_70", "torch=2.4.1+cu121"]))


def test_matching_to_tests(rules) -> None:
    engine = ActiveRules(rules, apply_overrides(MI300_ENV, ["lib.torchao=0.8.0", "lib.vllm=0.9.0", "arch=gfx942"]))

    def ids(nodeid: str, markers=(), uses=(), known=()) -> list[str]:
        return [r.id for r in engine.match(ItemFacts(nodeid, frozenset(markers), frozenset(uses), known))]

    assert ids("suites/gpu/test_a.py::test_x") == ["gfx94-any"]  # plain path covers tests below
    assert ids("suites/gpu/test_a.py::TestC::test_y[p]") == ["gfx94-any"]
    assert ids("suites/gpu/test_ab.py::test_x") == []  # ...but not a longer file name
    assert ids("other/test_b.py::test_attn_flash[bf16]") == ["gfx94-any"]
    assert ids("x.py::t", uses={"torchao"}) == ["torchao-int1"]
    assert ids("x.py::t", markers={"gpus"}) == []  # gfx906 rule inactive here
    assert ids("x.py::t", known=("gfx94-any",)) == ["gfx94-any"]
    assert ids("x.py::t", known=("gfx906-fault",)) == []  # named but not active
    assert ids("suites/gpu/test_a.py::t", uses={"torchao"}) == ["gfx94-any", "torchao-int1"]


def test_rule_without_applies_to_reaches_every_test(matrix_file) -> None:
    rules = load_matrix(matrix_file("known_bad:\n  - id: all\n    reason: r\n")).rules
    engine = ActiveRules(rules, CPU_ENV)
    assert [r.id for r in engine.match(ItemFacts("a.py::b", frozenset(), frozenset()))] == ["all"]


def test_rccl_and_nccl_are_one_library_for_uses() -> None:
    """``uses("rccl")`` reaches what NCCL rules and checks describe, ``uses("nccl")`` an RCCL rule; others untouched."""
    from pytest_rocmcompat.knowledge.rules.engine import uses_of

    assert uses_of(["RCCL"]) == {"rccl", "nccl"}
    assert uses_of(["nccl", "torch.distributed"]) == {"nccl", "rccl", "torch-distributed"}
    assert uses_of(["gloo"]) == {"gloo"}

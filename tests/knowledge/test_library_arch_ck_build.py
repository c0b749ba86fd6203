"""``library-min-arch``: Composable Kernel's static assertions in a build for an arch the library does not serve."""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

# verbatim: flash-attn 2.6.3's CK backend built from source on ROCm 6.1.3 for gfx1100
CK_ASSERT = (
    "/home/n/flash-attention/csrc/composable_kernel/include/ck_tile/core/arch/generic_memory_space_atomic_hip.hpp"
    ":66:19: error: static assertion failed due to requirement"
)
SOURCE = "https://github.com/Dao-AILab/flash-attention/issues/1215"


def test_cks_static_assertion_is_predicted_where_the_library_lacks_the_arch() -> None:
    assert SOURCE.startswith("https://github.com/Dao-AILab/")
    env = apply_overrides(
        Environment(platform="cpu", python="3.10.14", os="Linux"),
        ["platform=rocm", "arch=gfx1100", "rocm=6.1.3", "lib.flash_attn=2.6.3"],
    )
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == library_arch.ID]
    assert "flash_attn" in rule.reason and rule.signature_matches(CK_ASSERT)


def test_a_stack_naming_no_release_does_not_claim_it() -> None:
    # a source build of a later release may serve the arch: its CK error is then its own bug
    env = apply_overrides(
        Environment(platform="cpu", python="3.13.1", os="Linux"),
        ["platform=rocm", "arch=gfx1100", "rocm=6.1.3"],
    )
    rules = [r for r in compile_rules(evaluate(env)) if r.id.startswith(library_arch.ID)]
    assert not any(r.signature_matches(CK_ASSERT) for r in rules)


def test_other_static_assertions_are_not() -> None:
    signature = compile_signature(library_arch.CK_BUILD_PREDICTS)
    assert signature.search(CK_ASSERT)
    assert not compile_signature(library_arch.PREDICTS).search(CK_ASSERT)
    assert not signature.search(
        "/src/xformers/csrc/attention.cpp:12:5: error: static assertion failed due to requirement"
    )
    assert not signature.search("composable_kernel/include/ck/utility/data_type.hpp:10:3: warning: unused variable")

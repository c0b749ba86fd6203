"""``extension-build-toolkit-mismatch``: extensions compiled with a system CUDA toolkit torch was not built with."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import build_toolkit
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, run_source

BASE = Environment(platform="cuda", python="3.11.7", os="Linux")
SIGNATURE = compile_signature(build_toolkit.PREDICTS)

# (message as the source quotes it, source)
VERBATIM: list[tuple[str, str]] = [
    # torch's cpp_extension, another major (one line, as the title)
    (
        "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch "
        "(12.4). Please make sure to use the same CUDA versions.",
        "https://github.com/icip-cas/AutoAlign/issues/25",
    ),
    # ... as the traceback prints it (the message's own line break), torch 1.10.2 with CUDA 10.1
    (
        "The detected CUDA version (10.1) mismatches the version that was used to compile\n"
        "PyTorch (11.3). Please make sure to use the same CUDA versions.",
        "https://github.com/pytorch/pytorch/issues/73047",
    ),
    # ... under pip's indented build output, after DeepSpeed's own check was skipped (DS_SKIP_CUDA_CHECK=1)
    (
        "  RuntimeError:\n  The detected CUDA version (12.1) mismatches the version that was used to compile\n"
        "  PyTorch (11.8). Please make sure to use the same CUDA versions.",
        "https://github.com/deepspeedai/DeepSpeed/pull/3436",
    ),
    # torch 2.8+: RuntimeError(CUDA_MISMATCH_MESSAGE, cuda, torch.version.cuda), never formatted
    (
        "The detected CUDA version (%s) mismatches the version that was used to compilePyTorch (%s)",
        "https://github.com/SarahWeiii/diso/issues/25",
    ),
    # DeepSpeed's op builder (CUDAMismatchException from 0.9.x, a plain Exception before)
    (
        "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version "
        "12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions without "
        "a matching cuda version.",
        "https://github.com/JIA-Lab-research/MGM/issues/91",
    ),
    (
        "Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.0 does not match the version torch was compiled "
        "with 11.7, unable to compile cuda/cpp extensions",
        "https://github.com/deepspeedai/DeepSpeed/issues/2902",
    ),
    # apex's setup.py (--cuda_ext): nvcc 9.0 beside a CUDA 10.2 torch
    (
        "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used "
        "to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 10.2.",
        "https://github.com/NVIDIA/apex/issues/1171",
    ),
]

# Near misses: the tools' warnings sharing the first words, and other build failures
NOT_CLAIMED: list[tuple[str, str]] = [
    # DeepSpeed with DS_SKIP_CUDA_CHECK=1: a warning, the build goes on
    (
        "[WARNING]  DeepSpeed Op Builder: Installed CUDA version 12.1 does not match the version torch was compiled "
        "with 11.8.Detected `DS_SKIP_CUDA_CHECK=1`: Allowing this combination of CUDA, but it may result in "
        "unexpected behavior.",
        "https://github.com/deepspeedai/DeepSpeed/pull/3436",
    ),
    # DeepSpeed's accepted minor difference (the print in assert_no_cuda_mismatch, formatted)
    (
        "Installed CUDA version 12.1 does not match the version torch was compiled with 12.4 but since the APIs are "
        "compatible, accepting this combination",
        build_toolkit.DEEPSPEED_SOURCE,
    ),
    # torch's minor-difference warning (CUDA_MISMATCH_WARN, formatted as torch 2.7 does)
    (
        "The detected CUDA version (12.4) has a minor version mismatch with the version that was used to compile "
        "PyTorch (12.1). Most likely this shouldn't be a problem.",
        "https://github.com/pytorch/pytorch/blob/v2.7.0/torch/utils/cpp_extension.py",
    ),
    # no toolkit at all: another stack problem
    (
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        "https://github.com/pytorch/pytorch/blob/v2.7.0/torch/utils/cpp_extension.py",
    ),
    # a compile error of the extension itself (torch's error prefix, formatted for DeepSpeed's fused_adam op)
    (
        "RuntimeError: Error building extension 'fused_adam'",
        "https://github.com/pytorch/pytorch/blob/v2.7.0/torch/utils/cpp_extension.py",
    ),
]


def _stack(*sets: str) -> Environment:
    return apply_overrides(BASE, list(sets))


def _found(*sets: str) -> list[str]:
    return [f.reason for f in build_toolkit.check(_stack(*sets))]


def _ds(*sets: str) -> list[str]:
    """DeepSpeed's own findings (its op builder's check) for the stack."""
    return [f.reason for f in build_toolkit.check(_stack(*sets)) if f.link == build_toolkit.DEEPSPEED_SOURCE]


# ---- which stacks ---------------------------------------------------------------------------------
def test_another_major_is_refused_by_torch_and_deepspeed() -> None:
    found = build_toolkit.check(_stack("torch=2.3.0+cu121", "cuda=11.8", "lib.deepspeed=0.14.4"))
    assert [f.link for f in found] == [build_toolkit.DEEPSPEED_SOURCE, build_toolkit.TORCH_SOURCE]
    assert "system CUDA 11.8" in found[0].reason and "CUDA 12.1" in found[0].reason
    assert all(f.conditional and f.uncertain for f in found)
    assert found[0].uses == ("deepspeed",)
    assert set(found[1].uses) == {"deepspeed", "apex", "flash-attn", "xformers", "cpp_extension"}


def test_same_major_minor_difference_only_warns_in_torch_from_2_2_but_apex_refuses_it() -> None:
    (apex,) = build_toolkit.check(_stack("torch=2.5.1+cu124", "cuda=12.1"))
    assert apex.link == build_toolkit.APEX_SOURCE and apex.uses == ("apex",) and apex.uncertain
    # before 2.2 torch compared getattr(v, "major", nan): a risk where setuptools' packaging lacks it
    risk = _found("torch=2.0.1+cu117", "cuda=11.8")
    assert "before 2.2" in risk[0] and "apex" in risk[1]


def test_deepspeed_minor_difference_follows_its_table_per_release() -> None:
    # 12.4 entered cuda_minor_mismatch_ok in 0.14.3: 0.14.2 refuses 12.4 beside a cu121 torch
    assert len(_ds("torch=2.5.1+cu121", "cuda=12.4", "lib.deepspeed=0.14.2")) == 1
    assert _ds("torch=2.5.1+cu121", "cuda=12.4", "lib.deepspeed=0.14.3") == []
    # no CUDA 12 row before 0.12.3; 12.8 from 0.16.4; 12.9 from 0.17.2
    assert len(_ds("torch=2.2.0+cu121", "cuda=12.2", "lib.deepspeed=0.12.2")) == 1
    assert _ds("torch=2.2.0+cu121", "cuda=12.2", "lib.deepspeed=0.12.3") == []
    assert len(_ds("torch=2.7.0+cu128", "cuda=12.6", "lib.deepspeed=0.16.3")) == 1
    assert _ds("torch=2.7.0+cu128", "cuda=12.6", "lib.deepspeed=0.16.4") == []
    assert len(_ds("torch=2.8.0+cu129", "cuda=12.8", "lib.deepspeed=0.17.1")) == 1
    assert _ds("torch=2.8.0+cu129", "cuda=12.8", "lib.deepspeed=0.17.2") == []
    # CUDA 13 has no row: another minor is refused; a release newer than those read is not judged on a minor
    assert len(_ds("torch=2.9.0+cu130", "cuda=13.1", "lib.deepspeed=0.18.0")) == 1
    assert _ds("torch=2.9.0+cu130", "cuda=13.1", "lib.deepspeed=0.20.0") == []


def test_ds_skip_cuda_check_lifts_deepspeeds_check_but_not_torchs() -> None:
    minor = ("torch=2.5.1+cu121", "cuda=12.4", "lib.deepspeed=0.14.2", "env.DS_SKIP_CUDA_CHECK=1")
    assert _ds(*minor) == []
    (left,) = build_toolkit.check(
        _stack("torch=2.3.0+cu121", "cuda=11.8", "lib.deepspeed=0.14.4", "env.DS_SKIP_CUDA_CHECK=1")
    )
    assert left.link == build_toolkit.TORCH_SOURCE  # torch's own check still raises on another major
    # 0.9.2 has no such variable: DeepSpeed refuses regardless
    assert len(_found("torch=2.0.1+cu117", "cuda=12.1", "lib.deepspeed=0.9.2", "env.DS_SKIP_CUDA_CHECK=1")) == 2


def test_only_a_stated_toolkit_that_differs_from_the_torch_tag_is_judged() -> None:
    assert _found("torch=2.3.0+cu121", "cuda=12.1") == []  # the same release
    assert _found("torch=2.3.0+cu121", "lib.deepspeed=0.14.4") == []  # no toolkit stated
    assert _found("torch=2.3.0", "cuda=11.8") == []  # no +cuXYZ tag: torch's CUDA unknown
    # a probe's cuda is torch.version.cuda: a recorded stack is not judged, nor one that restates only torch
    recorded = Environment(platform="cuda", cuda="12.4", torch="2.5.1+cu121", libraries={"deepspeed": "0.14.4"})
    assert build_toolkit.check(recorded) == []
    replayed = apply_overrides(Environment(platform="cuda", cuda="12.4", torch="2.5.1+cu124"), ["torch=2.3.0+cu118"])
    assert build_toolkit.check(replayed) == []


def test_a_tag_derived_for_an_untagged_torch_is_not_a_stated_build() -> None:
    # torch==2.5.1 is taken as the PyPI wheel (+cu124) by derived_facts; a conda torch reads the same
    untagged = [
        f for f in evaluate(_stack("torch=2.5.1", "cuda=11.8", "lib.deepspeed=0.14.4")) if f.check == build_toolkit.ID
    ]
    assert untagged == []
    tagged = [
        f
        for f in evaluate(_stack("torch=2.5.1+cu124", "cuda=11.8", "lib.deepspeed=0.14.4"))
        if f.check == build_toolkit.ID
    ]
    assert len(tagged) == 2


def test_rocm_stacks_are_not_judged() -> None:
    # neither DeepSpeed (assert_no_cuda_mismatch skipped on ROCm torch) nor cpp_extension compares ROCm releases
    assert _found("torch=2.4.1+rocm6.1", "rocm=6.3", "lib.deepspeed=0.15.4") == []
    assert _found("torch=2.4.1+rocm6.1", "cuda=12.1", "lib.deepspeed=0.15.4") == []


def test_registered_and_compiled_as_a_risk_for_the_builders() -> None:
    env = _stack("torch=2.3.0+cu121", "cuda=11.8", "lib.deepspeed=0.14.4")
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == build_toolkit.ID]
    assert rule.at_risk and not rule.applies_to.everything
    assert set(rule.applies_to.uses) == {"deepspeed", "apex", "flash-attn", "xformers", "cpp-extension"}
    assert rule.signature is not None and rule.signature.pattern == PREDICTS[build_toolkit.ID]


# ---- the signature ------------------------------------------------------------------------------
@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_signature_matches_what_users_see(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize(("message", "source"), NOT_CLAIMED)
def test_warnings_and_other_build_failures_are_not_claimed(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is None


# ---- both ways through pytest ---------------------------------------------------------------------
_SOURCE = """
import pytest

@pytest.mark.uses("deepspeed")
def test_predicted():
    raise RuntimeError({predicted!r})

@pytest.mark.uses("deepspeed")
def test_unrelated():
    raise ValueError({unrelated!r})

@pytest.mark.uses("deepspeed")
def test_passes():
    pass

def test_elsewhere():
    raise RuntimeError({predicted!r})
"""


def test_predicted_is_known_bad_unrelated_fails_and_a_pass_stays_a_pass(pytester: pytest.Pytester) -> None:
    """A DeepSpeed test failing with the op builder's refusal is known-bad; an unrelated failure stays a failure,
    a DeepSpeed test that builds nothing stays a pass (a risk), and a test naming no builder is not reached.
    """
    source = _SOURCE.format(predicted=VERBATIM[4][0], unrelated=UNRELATED)
    cases = run_source(pytester, source, ("torch=2.3.0+cu121", "cuda=11.8", "lib.deepspeed=0.14.4"), env=BASE)
    predicted, unrelated, passes = cases["test_predicted"], cases["test_unrelated"], cases["test_passes"]
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == build_toolkit.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert passes.get("rocm_outcome", "pass") == "pass"
    assert "rocm_rule" not in cases["test_elsewhere"]


def test_same_release_claims_nothing(pytester: pytest.Pytester) -> None:
    source = _SOURCE.format(predicted=VERBATIM[4][0], unrelated=UNRELATED)
    cases = run_source(pytester, source, ("torch=2.3.0+cu121", "cuda=12.1", "lib.deepspeed=0.14.4"), env=BASE)
    assert cases["test_predicted"].get("rocm_outcome", "fail") == "fail"
    assert "rocm_rule" not in cases["test_predicted"]

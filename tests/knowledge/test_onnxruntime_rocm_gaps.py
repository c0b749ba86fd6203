"""``onnxruntime-build-mismatch`` on ROCm stacks whose onnxruntime is not (or not named as) a ROCm build.

Two risks: the stack's one onnxruntime distribution has no ROCm execution provider (onnxruntime-migraphx,
PyPI's onnxruntime-rocm 1.22.1, the CPU onnxruntime), and no onnxruntime-rocm release is named while the
GPU is outside every PyPI onnxruntime-rocm wheel's gfx targets.
"""

from __future__ import annotations

import dataclasses

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import onnxruntime_builds as ort
from pytest_rocmcompat.knowledge.checks import onnxruntime_builds_data as data
from pytest_rocmcompat.knowledge.checks import registry
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.test_check_signatures import FOREIGN
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated, run_source

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM = ("platform=rocm", "rocm=7.2.0", "arch=gfx942")
GFX1151 = ("platform=rocm", "rocm=7.2.0", "arch=gfx1151")

# Each message is the library's own text, printed by the PyPI wheel named (run on Python 3.11 / 3.8), from the
# format string of onnxruntime/python/onnxruntime_inference_collection.py at the tag in the URL.
ROCM_EP_MISSING_MIGRAPHX = (  # onnxruntime-migraphx 1.23.0, providers=["ROCMExecutionProvider", "CPUExecutionProvider"]
    "UserWarning: Specified provider 'ROCMExecutionProvider' is not in available provider names.Available "
    "providers: 'MIGraphXExecutionProvider, CPUExecutionProvider'"
)
ROCM_EP_MISSING_CPU = (  # onnxruntime 1.22.0 (PyPI's CPU build)
    "UserWarning: Specified provider 'ROCMExecutionProvider' is not in available provider names.Available "
    "providers: 'AzureExecutionProvider, CPUExecutionProvider'"
)
MIGRAPHX_EP_MISSING_CPU = (  # onnxruntime 1.22.0 (PyPI's CPU build)
    "UserWarning: Specified provider 'MIGraphXExecutionProvider' is not in available provider names.Available "
    "providers: 'AzureExecutionProvider, CPUExecutionProvider'"
)
ROCM_EP_UNAVAILABLE_1_7 = (  # onnxruntime 1.7.0: a ValueError, before the warning of 1.8
    "ValueError: Specified provider 'ROCMExecutionProvider' is unavailable. Available providers: 'CPUExecutionProvider'"
)
_SOURCE = "https://github.com/microsoft/onnxruntime/blob/{}/onnxruntime/python/onnxruntime_inference_collection.py"
ROCM_EP_MESSAGES = [
    (ROCM_EP_MISSING_MIGRAPHX, _SOURCE.format("v1.23.0")),
    (ROCM_EP_MISSING_CPU, _SOURCE.format("v1.22.0")),
    (ROCM_EP_UNAVAILABLE_1_7, _SOURCE.format("v1.7.0")),
]
# The MIGraphX provider library not loading, as the PyPI onnxruntime-migraphx 1.23.0 wheel prints it (its
# session then falls back to the CPU) where ROCm 7's HIP runtime is absent (MIGraphX's C API present), and where
# MIGraphX is absent too; the text of onnxruntime/core/session/provider_bridge_ort.cc, which it names.
_BRIDGE = (
    "EP Error /root/onnx_runtime/onnxruntime/onnxruntime-1.23.0/onnxruntime/core/session/provider_bridge_ort.cc:1844 "
    "onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load "
    "library libonnxruntime_providers_migraphx.so with error: {}: cannot open shared object file: No such file or "
    "directory"
)
MIGRAPHX_MESSAGES = [
    (
        _BRIDGE.format("libamdhip64.so.7"),
        "https://github.com/microsoft/onnxruntime/blob/v1.23.0/onnxruntime/core/session/provider_bridge_ort.cc",
    ),
    (
        _BRIDGE.format("libmigraphx_c.so.3"),
        "https://github.com/microsoft/onnxruntime/blob/v1.23.0/onnxruntime/core/session/provider_bridge_ort.cc",
    ),
]
# verbatim: HIP finding no code object for the GPU (onnxruntime built for ROCm on a gfx900),
# https://github.com/microsoft/onnxruntime/issues/12662
NO_BINARY = (
    'onnxruntime_test_all failed with "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!" '
    "with v1.12.1 (70481649e3c2dba) and rocm-5.2.0"
)


def _findings(*stack: str) -> list[Finding]:
    """The check's findings on ``stack`` (``--rocm-set`` values), with the facts it implies derived."""
    return ort.check(derive(apply_overrides(BASE, list(stack))))


def _provider(*stack: str) -> list[Finding]:
    """Only the findings predicting a missing ROCm/MIGraphX execution provider."""
    return [f for f in _findings(*stack) if f.predicts in (ort.NO_ROCM_EP_PREDICTS, ort.NO_AMD_EP_PREDICTS)]


def _unnamed_arch(*stack: str) -> list[Finding]:
    """Only the risk of an unnamed onnxruntime build on a GPU no PyPI onnxruntime-rocm wheel serves."""
    return [f for f in _findings(*stack) if f.reason.startswith("the stack names no onnxruntime-rocm release")]


# ---- the data: which builds have no ROCm provider ----------------------------------------------
@pytest.mark.parametrize(
    ("dist", "version", "covered"),
    [
        ("onnxruntime-migraphx", "1.23.0", True),
        ("onnxruntime-migraphx", "1.27.1", True),
        ("onnxruntime-migraphx", "1.30.0rc1", True),  # a pre-release of any release too
        ("onnxruntime-rocm", "1.22.1", True),
        ("onnxruntime-rocm", "1.22.2.post3", False),  # ['ROCMExecutionProvider', 'CPUExecutionProvider']
        ("onnxruntime-rocm", "1.21.0", False),
        ("onnxruntime", "1.17.3", True),
        ("onnxruntime", "1.24.1", True),
        ("onnxruntime-gpu", "1.22.0", False),  # built-for-other-vendor's
    ],
)
def test_the_rows_cover_the_builds_without_the_rocm_provider(dist: str, version: str, covered: bool) -> None:
    rows = [r for r in data.NO_ROCM_PROVIDER if r.covers(dist, Version(version))]
    assert bool(rows) is covered
    assert all(r.source.startswith("https://") for r in data.NO_ROCM_PROVIDER)


# ---- a ROCm stack's onnxruntime without the ROCm provider ---------------------------------------
@pytest.mark.parametrize(
    ("stack", "reason", "predicts"),
    [
        (
            (*ROCM, "lib.onnxruntime-migraphx=1.23.0"),
            "onnxruntime-migraphx 1.23.0 (onnxruntime's MIGraphX build: MIGraphXExecutionProvider, "
            "CPUExecutionProvider) has no ROCMExecutionProvider on this ROCm stack",
            ort.NO_ROCM_EP_PREDICTS,
        ),
        (
            ("torch=2.9.1+rocm6.4", "lib.onnxruntime-migraphx=1.27.1"),  # ROCm by torch's build alone
            "onnxruntime-migraphx 1.27.1 (onnxruntime's MIGraphX build",
            ort.NO_ROCM_EP_PREDICTS,
        ),
        (
            ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-rocm=1.22.1"),
            "onnxruntime-rocm 1.22.1 (PyPI's wheel is a MIGraphX build: MIGraphXExecutionProvider, "
            "CPUExecutionProvider) has no ROCMExecutionProvider",
            ort.NO_ROCM_EP_PREDICTS,
        ),
        (
            (*ROCM, "lib.onnxruntime=1.22.0"),
            "onnxruntime 1.22.0 (PyPI's wheel is the CPU build: AzureExecutionProvider, CPUExecutionProvider) has "
            "no ROCMExecutionProvider or MIGraphXExecutionProvider on this ROCm stack",
            ort.NO_AMD_EP_PREDICTS,
        ),
        (("arch=gfx90a", "lib.onnxruntime=1.17.3"), "onnxruntime 1.17.3 (PyPI's wheel is the CPU build", ort.NO_AMD_EP_PREDICTS),
    ],
)  # fmt: skip
def test_a_build_without_the_rocm_provider_is_a_risk(stack: tuple[str, ...], reason: str, predicts: str) -> None:
    (finding,) = _provider(*stack)
    assert finding.reason.startswith(reason)
    assert finding.reason.endswith("code asking for it gets a warning and runs on the CPU")
    assert finding.predicts == predicts and finding.signature_only
    assert finding.uncertain and finding.conditional and not finding.everything  # a pass stands
    assert finding.uses[0] == "onnxruntime" and finding.uses[-1] == stack[-1].split("=")[0][4:]
    assert "ROCm provider in 1.23" in finding.fix


def test_the_fix_says_which_build_to_install() -> None:
    (cpu,) = _provider(*ROCM, "lib.onnxruntime=1.22.0")
    assert cpu.fix.startswith("install onnxruntime-migraphx instead and ask for MIGraphXExecutionProvider")
    assert cpu.uses == ("onnxruntime",)
    assert cpu.link == "https://onnxruntime.ai/docs/get-started/with-python.html#install-onnx-runtime"
    (migraphx,) = _provider(*ROCM, "lib.onnxruntime-migraphx=1.24.4")
    assert migraphx.fix.startswith("ask for MIGraphXExecutionProvider")
    assert migraphx.link == "https://pypi.org/project/onnxruntime-migraphx/#files"


@pytest.mark.parametrize(
    "stack",
    [
        (*ROCM, "lib.onnxruntime-rocm=1.22.2.post3"),  # has the ROCm provider
        (*ROCM, "lib.onnxruntime-rocm=1.21.0"),  # AMD's build: not tabled
        (*ROCM, "lib.onnxruntime-rocm=1.23.0"),  # built-for-other-vendor's finding
        (*ROCM, "lib.onnxruntime-gpu=1.22.0"),  # built-for-other-vendor's finding
        (*ROCM, "lib.onnxruntime=1.22.0", "lib.onnxruntime-migraphx=1.23.0"),  # two: _two_builds
        ("platform=cuda", "arch=sm_90", "lib.onnxruntime=1.22.0"),  # not ROCm
        ("lib.onnxruntime=1.22.0",),  # no platform named
        ("platform=cuda", "lib.onnxruntime-migraphx=1.23.0"),  # built-for-other-vendor's
    ],
)
def test_no_provider_risk_where_the_build_has_it_or_another_finding_says_it(stack: tuple[str, ...]) -> None:
    assert _provider(*stack) == []


def test_two_distributions_keep_only_the_two_builds_finding() -> None:
    (finding,) = _findings(*ROCM, "lib.onnxruntime=1.22.0", "lib.onnxruntime-migraphx=1.23.0")
    assert finding.predicts == ort.TWO_BUILDS_PREDICTS


# ---- a PyPI MIGraphX wheel for another ROCm major -------------------------------------------------
def test_the_migraphx_rows_hold_the_hip_runtime_they_link() -> None:
    rows = data.MIGRAPHX_WHEELS
    assert rows[("onnxruntime-rocm", "1.22.1")].needs == "libamdhip64.so.6"
    migraphx = [w for (dist, _), w in rows.items() if dist == "onnxruntime-migraphx"]
    assert len(migraphx) == 7 and {w.major for w in migraphx} == {7}
    assert {w.needs for w in migraphx} == {"libamdhip64.so.7"} and not any(w.targets for w in rows.values())


@pytest.mark.parametrize(
    ("stack", "reason"),
    [
        (
            ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-migraphx=1.23.0"),
            "onnxruntime-migraphx 1.23.0 (if it is PyPI's wheel) is built against ROCm 7.0.1 (libamdhip64.so.7), but "
            "the stack's ROCm is 6.4.1: its MIGraphX execution provider cannot load",
        ),
        (
            ("torch=2.7.1+rocm6.3", "lib.onnxruntime-migraphx=1.27.1"),
            "onnxruntime-migraphx 1.27.1 (if it is PyPI's wheel) is built against ROCm 7.2.4",
        ),
        (
            ("torch=2.8.0+rocm7.0", "lib.onnxruntime-rocm=1.22.1"),
            "onnxruntime-rocm 1.22.1 (if it is PyPI's wheel) is built against ROCm 6.4.1 (libamdhip64.so.6), but "
            "the stack's ROCm is 7.0",
        ),
    ],
)
def test_a_migraphx_wheel_for_another_rocm_major_is_a_risk(stack: tuple[str, ...], reason: str) -> None:
    (finding,) = [f for f in _findings(*stack) if f.predicts == ort.MIGRAPHX_PREDICTS]
    assert finding.reason.startswith(reason)
    assert finding.uncertain and not finding.conditional and finding.signature_only
    assert finding.uses == ("onnxruntime", stack[-1].split("=")[0][4:])
    assert finding.link.startswith("https://pypi.org/project/onnxruntime-")


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "rocm=7.0.2", "lib.onnxruntime-migraphx=1.23.0"),  # the same major
        ("torch=2.9.1+rocm7.1", "lib.onnxruntime-migraphx=1.27.1"),
        ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-rocm=1.22.1"),
        ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-migraphx=1.23.2+rocm7.14.0"),  # AMD's labelled build
        ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-migraphx=1.22.0"),  # not a PyPI release
        ("platform=rocm", "lib.onnxruntime-migraphx=1.23.0"),  # no ROCm release named
        ("platform=cuda", "rocm=6.4.1", "lib.onnxruntime-migraphx=1.23.0"),  # built-for-other-vendor's
    ],
)
def test_no_migraphx_risk_on_its_own_major_or_an_untabled_build(stack: tuple[str, ...]) -> None:
    assert [f for f in _findings(*stack) if f.predicts == ort.MIGRAPHX_PREDICTS] == []


@pytest.mark.parametrize(("message", "source"), MIGRAPHX_MESSAGES)
def test_the_migraphx_signature_matches_onnxruntimes_text(message: str, source: str) -> None:
    assert source.endswith("/onnxruntime/core/session/provider_bridge_ort.cc")
    assert compile_signature(ort.MIGRAPHX_PREDICTS).search(message) is not None
    assert compile_signature(ort.PREDICTS).search(message) is not None
    for other in (ort.ROCM_PREDICTS, ort.NO_AMD_EP_PREDICTS, ort.TWO_BUILDS_PREDICTS):
        assert compile_signature(other).search(message) is None  # each finding claims its own


@pytest.mark.parametrize(
    "message",
    [
        *FOREIGN,
        # the ROCm provider (another finding's), MIGraphX's provider missing another library, and the library
        # missing outside onnxruntime
        "Failed to load library libonnxruntime_providers_rocm.so with error: libamdhip64.so.7: cannot open shared "
        "object file: No such file or directory",
        "Failed to load library libonnxruntime_providers_migraphx.so with error: libstdc++.so.6: version "
        "`GLIBCXX_3.4.32' not found",
        "OSError: libamdhip64.so.7: cannot open shared object file: No such file or directory",
    ],
)
def test_the_migraphx_signature_does_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(ort.MIGRAPHX_PREDICTS).search(message) is None


# ---- no onnxruntime-rocm release named, on a GPU outside every PyPI wheel -----------------------
@pytest.mark.parametrize(
    ("stack", "shown"),
    [
        (GFX1151, "gfx1151"),  # Strix Halo
        (("platform=rocm", "rocm=7.2.0", "arch=gfx950"), "gfx950"),  # MI355X
        (("torch=2.8.0+rocm6.4", "arch=gfx906"), "gfx906"),
        (("platform=rocm", "arch=gfx1100", "env.HSA_OVERRIDE_GFX_VERSION=11.0.2"), "gfx1100 (as gfx1102 by "),
    ],
)
def test_an_unnamed_build_on_a_gpu_no_wheel_serves_is_a_risk(stack: tuple[str, ...], shown: str) -> None:
    (finding,) = _unnamed_arch(*stack)
    assert finding.reason.startswith(
        "the stack names no onnxruntime-rocm release: none of its PyPI wheels (1.22.2.post1, 1.22.2.post2, "
        f"1.22.2.post3) has ROCm execution provider kernels for {shown}"
    )
    assert "(built for gfx908 gfx90a gfx940 gfx941 gfx942 gfx1030 gfx1100 gfx1101 gfx1200 gfx1201)" in finding.reason
    assert finding.uncertain and finding.conditional and finding.signature_only
    assert finding.predicts == ort.ARCH_PREDICTS and finding.uses == ("onnxruntime", "onnxruntime-rocm")
    assert finding.link == "https://pypi.org/project/onnxruntime-rocm/1.22.2.post3/#files"


def test_unlisted_counts_only_on_a_stated_stack() -> None:
    stated = derive(apply_overrides(BASE, list(GFX1151)))
    assert stated.source == "overridden" and len(ort.check(stated)) == 1
    for source in ("live", "replay"):  # a probed or recorded machine lists what it has
        assert ort.check(dataclasses.replace(stated, source=source)) == []


def test_onnxruntime_rocm_listed_without_a_version_is_unnamed() -> None:
    env = derive(apply_overrides(BASE, list(GFX1151)))
    (finding,) = ort.check(dataclasses.replace(env, libraries={"onnxruntime-rocm": ""}, source="replay"))
    assert finding.predicts == ort.ARCH_PREDICTS and finding.uncertain


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "rocm=7.2.0", "arch=gfx942"),  # every wheel serves it
        ("platform=rocm", "rocm=7.2.0", "arch=gfx940"),  # post1 serves it
        ("platform=rocm", "arch=gfx1031", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),  # runs gfx1030 code
        (*GFX1151, "lib.onnxruntime-migraphx=1.27.1"),  # a named build (MIGraphX)
        (*GFX1151, "lib.onnxruntime=1.22.0"),  # a named build (CPU): the provider risk instead
        (*GFX1151, "lib.onnxruntime-rocm=1.21.0"),  # a named release the table does not hold: not judged
        ("platform=rocm", "rocm=7.2.0"),  # no GPU named
        ("platform=cuda", "arch=sm_90"),
    ],
)
def test_no_unnamed_arch_risk_where_a_wheel_serves_or_a_build_is_named(stack: tuple[str, ...]) -> None:
    assert _unnamed_arch(*stack) == []


def test_a_named_wheel_keeps_its_certain_finding() -> None:
    (finding,) = _findings(*GFX1151, "lib.onnxruntime-rocm=1.22.2.post3")
    assert finding.reason.startswith("onnxruntime-rocm 1.22.2.post3 (its PyPI wheel) has no ROCm execution")
    assert not finding.uncertain and not finding.conditional


# ---- the signatures against the library's own texts ---------------------------------------------
@pytest.mark.parametrize(("message", "source"), ROCM_EP_MESSAGES)
def test_the_rocm_provider_signature_matches_onnxruntimes_text(message: str, source: str) -> None:
    assert source.startswith("https://github.com/microsoft/onnxruntime/blob/v1.")
    for predicts in (ort.NO_ROCM_EP_PREDICTS, ort.NO_AMD_EP_PREDICTS, ort.PREDICTS):
        assert compile_signature(predicts).search(message) is not None
    assert compile_signature(ort.ARCH_PREDICTS).search(message) is None


def test_the_migraphx_provider_is_claimed_only_where_the_build_lacks_it_too() -> None:
    source = _SOURCE.format("v1.22.0")
    assert source.endswith("onnxruntime_inference_collection.py")
    assert compile_signature(ort.NO_AMD_EP_PREDICTS).search(MIGRAPHX_EP_MISSING_CPU) is not None
    assert compile_signature(ort.NO_ROCM_EP_PREDICTS).search(MIGRAPHX_EP_MISSING_CPU) is None


@pytest.mark.parametrize(
    "message",
    [
        *FOREIGN,
        UNRELATED,
        # other providers missing: a CUDA build or CUDA code, not an AMD provider
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
        "providers: 'AzureExecutionProvider, CPUExecutionProvider'",
        "Specified provider 'TensorrtExecutionProvider' is not in available provider names",
        "Specified provider 'CPUExecutionProvider' is unavailable. Available providers: ''",
        # the ROCm provider present but failing to load (another finding's), and HIP's own errors
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so with error: "
        "libhipblas.so.3: cannot open shared object file: No such file or directory",
        "RuntimeError: HIP error: invalid device function",
    ],
)
def test_the_provider_signatures_do_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(ort.NO_AMD_EP_PREDICTS).search(message) is None
    assert compile_signature(ort.NO_ROCM_EP_PREDICTS).search(message) is None


def test_each_risk_compiles_to_an_at_risk_rule_claiming_only_its_own_messages() -> None:
    (provider,) = compile_rules(_findings(*ROCM, "lib.onnxruntime-migraphx=1.23.0"))
    assert provider.id == ort.ID and provider.at_risk and provider.applies_to.uses[0] == "onnxruntime"
    assert provider.signature_matches(ROCM_EP_MISSING_MIGRAPHX)
    assert not provider.signature_matches(NO_BINARY) and not provider.signature_matches(MIGRAPHX_EP_MISSING_CPU)
    (arch,) = compile_rules(_findings(*GFX1151))
    assert arch.id == ort.ID and arch.at_risk
    assert arch.signature_matches(NO_BINARY) and not arch.signature_matches(ROCM_EP_MISSING_CPU)


# ---- through pytest: the predicted failure known-bad, an unrelated one and a pass untouched --------
_PASSING = """
import pytest

@pytest.mark.uses("onnxruntime")
def test_on_the_cpu():
    assert True
"""


@pytest.mark.skipif(ort.ID not in registry.CHECKS, reason=f"{ort.ID} is not registered yet")
@pytest.mark.parametrize(
    ("stack", "predicted"),
    [
        (("platform=rocm", "arch=gfx942", "rocm=7.2.0", "lib.onnxruntime-migraphx=1.23.0"), ROCM_EP_MISSING_MIGRAPHX),
        (("platform=rocm", "arch=gfx942", "rocm=7.2.0", "lib.onnxruntime=1.22.0"), MIGRAPHX_EP_MISSING_CPU),
        (("platform=rocm", "arch=gfx1151", "rocm=7.2.0", "torch=2.10.0+rocm7.0"), NO_BINARY),
        (("platform=rocm", "arch=gfx942", "rocm=6.4.1", "lib.onnxruntime-migraphx=1.25.0"), MIGRAPHX_MESSAGES[0][0]),
    ],
)
def test_a_risk_through_pytest(pytester: pytest.Pytester, stack: tuple[str, ...], predicted: str) -> None:
    found, unrelated = predicted_and_unrelated(pytester, predicted, stack, uses="onnxruntime")
    assert found["rocm_outcome"] == "known-bad" and found["rocm_rule"] == ort.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert ort.ID not in unrelated.get("rocm_diagnosis", "")  # a risk is never a failure's likely cause


@pytest.mark.skipif(ort.ID not in registry.CHECKS, reason=f"{ort.ID} is not registered yet")
def test_a_pass_under_the_risk_stands(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx942", "rocm=7.2.0", "lib.onnxruntime=1.22.0")
    cases = run_source(pytester, _PASSING, stack)
    assert cases["test_on_the_cpu"].get("rocm_outcome", "pass") == "pass"

"""``onnxruntime-build-mismatch``: ONNX Runtime's own texts when its ROCm or MIGraphX provider cannot be used, and
the ROCm builds a stack names by their label (``onnxruntime-training`` / ``onnxruntime-rocm`` ``+rocm57``) or as
PyPI's CUDA training build.
"""

from __future__ import annotations

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
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
_ORT = "https://github.com/microsoft/onnxruntime/blob/{}/onnxruntime/{}"
_BRIDGE = "core/session/provider_bridge_ort.cc"
_PYBIND = "python/onnxruntime_pybind_state.cc"

# ---- ONNX Runtime's texts, each verbatim (read with strings in the wheels named) beside its source at a tag ------
# onnxruntime_pybind_state.cc, when the ROCm provider library did not load and ROCM_PATH is set (a ROCm build's
# text: in onnxruntime-rocm 1.22.2.post3's onnxruntime_pybind11_state.so)
ROCM_PATH_TEXT = (
    "RuntimeError: ROCM_PATH is set but ROCM wasn't able to be loaded. Please install the correct version of ROCM "
    "and MIOpen as mentioned in the GPU requirements page, make sure they're in the PATH, and that your GPU is "
    "supported."
)
# provider_bridge_ort.cc's GetProviderInfo_ROCM, the ROCm provider library not loaded (onnxruntime-rocm
# 1.22.2.post3's libonnxruntime.so.1.22.2 and onnxruntime_pybind11_state.so)
ROCM_INFO_TEXT = "ROCM Provider not available, can't get interface for it"
# provider_bridge_ort.cc's C API, the ROCm provider library not loaded (in every PyPI onnxruntime wheel from
# 1.13.1 to 1.22.0)
ROCM_APPEND_TEXT = "OrtSessionOptionsAppendExecutionProvider_Rocm: Failed to load shared library"
# provider_bridge_ort.cc's GetProviderInfo_MIGraphX (PyPI's onnxruntime 1.23.0, 1.24.1, 1.27.0, onnxruntime-migraphx
# 1.23.0) and its C API for MIGraphX (onnxruntime 1.13.1 to 1.27.0)
MIGRAPHX_INFO_TEXT = "MIGraphX Provider not available, can't get interface for it"
MIGRAPHX_APPEND_TEXT = "SessionOptionsAppendExecutionProvider_MIGraphX: Failed to load shared library"
# provider_bridge_ort.cc's "Failed to load library ... with error: " and the loader's dlerror, for ROCm libraries
# the provider links: libroctracer64.so.4 and librocm_smi64.so.1 are NEEDED by onnxruntime-rocm 1.22.2.post3's
# libonnxruntime_providers_rocm.so (readelf), librocm_smi64.so.7 by 1.22.2.post1's; librccl.so.1, librocfft.so.0
# and libroctx64.so.4 are in setup.py's rocm_dependencies (data.ROCM_LABEL_SOURCE). Printed inside the Python
# fallback of onnxruntime_inference_collection.py ("EP Error {e} when using {providers}").
_LOAD = (
    "EP Error [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so with error: "
    "{}: cannot open shared object file: No such file or directory when using ['ROCMExecutionProvider', "
    "'CPUExecutionProvider']"
)
ROCM_TEXTS = [
    (ROCM_PATH_TEXT, _ORT.format("v1.22.0", _PYBIND)),
    (ROCM_INFO_TEXT, _ORT.format("v1.22.0", _BRIDGE)),
    (ROCM_APPEND_TEXT, _ORT.format("v1.22.0", _BRIDGE)),
    *(
        (_LOAD.format(lib), _ORT.format("v1.22.0", _BRIDGE))
        for lib in ("libroctracer64.so.4", "librocm_smi64.so.1", "librocm_smi64.so.7", "librccl.so.1")
    ),
    (_LOAD.format("librocfft.so.0"), data.ROCM_LABEL_SOURCE),
    (_LOAD.format("libroctx64.so.4"), data.ROCM_LABEL_SOURCE),
]
MIGRAPHX_TEXTS = [
    (MIGRAPHX_INFO_TEXT, _ORT.format("v1.23.0", _BRIDGE)),
    (MIGRAPHX_APPEND_TEXT, _ORT.format("v1.23.0", _BRIDGE)),
]
# Unrelated: other providers' texts from the same files, ONNX Runtime's own libraries, ROCm failing outside it
NEGATIVE = [
    *FOREIGN,
    UNRELATED,
    "CUDA Provider not available, can't get interface for it",
    "TensorRT Provider not available, can't get interface for it",
    "OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library",
    "SessionOptionsAppendExecutionProvider_OpenVINO: Failed to load shared library",
    "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN as "
    "mentioned in the GPU requirements page",
    "Failed to load library libonnxruntime_providers_rocm.so with error: libonnxruntime_providers_shared.so: "
    "cannot open shared object file: No such file or directory",
    "OSError: libroctracer64.so.4: cannot open shared object file: No such file or directory",
    "HIP failure 100: no ROCm-capable device is detected ; GPU=0 ; hostname=node ; expr=hipGetDeviceCount(&n);",
    "RuntimeError: HIP error: invalid device function",
]

ROCM_5_TRAINING = ("platform=rocm", "rocm=6.1.3", "arch=gfx90a", "lib.onnxruntime-training=1.17.0+rocm57")


def _findings(*stack: str) -> list[Finding]:
    """The check's findings on ``stack`` (``--rocm-set`` values), with the facts it implies derived."""
    return ort.check(derive(apply_overrides(BASE, list(stack))))


# ---- the texts through the check's real signatures -----------------------------------------------
@pytest.mark.parametrize(("message", "source"), ROCM_TEXTS)
def test_the_rocm_provider_texts_are_the_rocm_findings(message: str, source: str) -> None:
    assert source.startswith("https://github.com/microsoft/onnxruntime/blob/")
    assert compile_signature(ort.ROCM_PREDICTS).search(message) is not None
    assert compile_signature(ort.PREDICTS).search(message) is not None
    for other in (ort.MIGRAPHX_PREDICTS, ort.NO_AMD_EP_PREDICTS, ort.ARCH_PREDICTS, ort.CUDA_PREDICTS):
        assert compile_signature(other).search(message) is None  # each finding claims its own


@pytest.mark.parametrize(("message", "source"), MIGRAPHX_TEXTS)
def test_the_migraphx_provider_texts_are_the_migraphx_finding(message: str, source: str) -> None:
    assert source.endswith(_BRIDGE)
    assert compile_signature(ort.MIGRAPHX_PREDICTS).search(message) is not None
    assert compile_signature(ort.ROCM_PREDICTS).search(message) is None


@pytest.mark.parametrize("message", NEGATIVE)
def test_the_new_texts_claim_no_other_failure(message: str) -> None:
    assert compile_signature(ort.ROCM_PREDICTS).search(message) is None
    assert compile_signature(ort.MIGRAPHX_PREDICTS).search(message) is None


def test_a_real_stack_claims_the_texts_through_its_rule() -> None:
    (rule,) = compile_rules(_findings("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-rocm=1.22.2.post3"))
    assert rule.id == ort.ID and not rule.at_risk
    assert all(rule.signature_matches(m) for m, _ in ROCM_TEXTS)
    assert not any(rule.signature_matches(m) for m in (*NEGATIVE, MIGRAPHX_INFO_TEXT))
    (risk,) = compile_rules(_findings("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-migraphx=1.23.0"))
    assert risk.at_risk and all(risk.signature_matches(m) for m, _ in MIGRAPHX_TEXTS)
    assert not risk.signature_matches(ROCM_INFO_TEXT)


# ---- the data ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("version", "covered"),
    [
        ("1.19.2", True),
        ("1.12.0", True),  # CUDA 10.2
        ("1.14.1", True),  # CUDA 11.6
        ("1.17.0+rocm57", False),  # ONNX Runtime's ROCm build, by its label
        ("1.19.2+cu118", False),
        ("1.11.0", False),  # not on PyPI
    ],
)
def test_only_pypis_unlabelled_training_build_is_the_cuda_row(version: str, covered: bool) -> None:
    rows = [r for r in data.NO_ROCM_PROVIDER if r.covers(data.TRAINING, Version(version))]
    assert bool(rows) is covered
    assert data.TRAINING in data.DISTRIBUTIONS  # the probe records it (tests/probe/test_library_prefixes.py)


# ---- a ROCm build labelled for another ROCm major ------------------------------------------------
@pytest.mark.parametrize(
    ("stack", "reason"),
    [
        (ROCM_5_TRAINING, "onnxruntime-training 1.17.0+rocm57 is built for ROCm 5 (its +rocm label), but the "
         "stack's ROCm is 6.1.3: its ROCm execution provider cannot load"),
        (("torch=2.3.1+rocm6.0", "lib.onnxruntime-training=1.16.0+rocm56"), "onnxruntime-training 1.16.0+rocm56 "
         "is built for ROCm 5 (its +rocm label), but the stack's ROCm is 6.0"),
        (("platform=rocm", "rocm=7.0.2", "lib.onnxruntime-rocm=1.19.0+rocm6.1"), "onnxruntime-rocm 1.19.0+rocm6.1 "
         "is built for ROCm 6 (its +rocm label), but the stack's ROCm is 7.0.2"),
    ],
)  # fmt: skip
def test_a_build_labelled_for_another_major_is_found(stack: tuple[str, ...], reason: str) -> None:
    (finding,) = _findings(*stack)
    assert finding.reason.startswith(reason)
    assert finding.predicts == ort.ROCM_PREDICTS and finding.signature_only
    assert not finding.uncertain and not finding.conditional and not finding.everything
    assert finding.uses == ("onnxruntime", stack[-1].split("=")[0][4:])
    assert finding.link == data.ROCM_LABEL_SOURCE


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "rocm=5.7.1", "arch=gfx90a", "lib.onnxruntime-training=1.17.0+rocm57"),  # its major
        ("platform=rocm", "rocm=7.2.0", "lib.onnxruntime-rocm=1.22.2+rocm7.0.2"),
        ("platform=rocm", "lib.onnxruntime-training=1.17.0+rocm57"),  # no ROCm release named
        ("platform=cuda", "rocm=6.1.3", "lib.onnxruntime-training=1.17.0+rocm57"),  # built-for-other-vendor's
        ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-training=1.19.2+cu118"),  # built-for-other-vendor's
        ("platform=rocm", "rocm=6.4.1", "lib.onnxruntime-rocm=1.23.0+rocm7.0"),  # no ROCm provider at all
    ],
)
def test_no_finding_on_the_labels_major_or_another_checks_stack(stack: tuple[str, ...]) -> None:
    assert _findings(*stack) == []


# ---- onnxruntime-rocm named by its release without the .postN --------------------------------------
@pytest.mark.parametrize(
    ("rocm", "reason"),
    [
        ("6.4.1", "onnxruntime-rocm 1.22.2 (if it is PyPI's 1.22.2.post2, 1.22.2.post3) is built against ROCm 7.2.4 "
         "(libamdhip64.so.7), but the stack's ROCm is 6.4.1"),
        ("7.2.0", "onnxruntime-rocm 1.22.2 (if it is PyPI's 1.22.2.post1) is built against ROCm 6.4.2 "
         "(libamdhip64.so.6), but the stack's ROCm is 7.2.0"),
        ("5.7.1", "onnxruntime-rocm 1.22.2 (if it is PyPI's 1.22.2.post1, 1.22.2.post2, 1.22.2.post3) is built "
         "against ROCm 6.4.2 (libamdhip64.so.6) / ROCm 7.2.4 (libamdhip64.so.7), but the stack's ROCm is 5.7.1"),
    ],
)  # fmt: skip
def test_a_release_without_its_post_part_is_a_major_risk(rocm: str, reason: str) -> None:
    (finding,) = _findings("platform=rocm", f"rocm={rocm}", "lib.onnxruntime-rocm=1.22.2")
    assert finding.reason.startswith(reason) and finding.predicts == ort.ROCM_PREDICTS
    assert finding.uncertain and not finding.conditional and finding.signature_only
    assert finding.link.startswith("https://pypi.org/project/onnxruntime-rocm/1.22.2.post")
    exact = _findings("platform=rocm", f"rocm={rocm}", "lib.onnxruntime-rocm=1.22.2.post3")
    assert [f.uncertain for f in exact] == ([] if rocm == "7.2.0" else [False])  # a tabled wheel: certain


@pytest.mark.parametrize(
    "version", ["1.22.2.post3", "1.22.2+rocm7.0.2", "1.22.1", "1.21.0"]
)  # its own major, labelled, another release
def test_no_major_risk_for_a_wheel_of_the_stacks_major_or_an_untabled_build(version: str) -> None:
    found = _findings("platform=rocm", "rocm=7.2.0", f"lib.onnxruntime-rocm={version}")
    assert [f for f in found if f.predicts == ort.ROCM_PREDICTS] == []


# ---- PyPI's training build (CUDA) on a ROCm stack, and beside another onnxruntime ---------------------
def test_pypis_training_build_on_rocm_is_a_provider_risk() -> None:
    (finding,) = _findings("platform=rocm", "rocm=6.4.1", "arch=gfx942", "lib.onnxruntime-training=1.19.2")
    assert finding.reason.startswith(
        "onnxruntime-training 1.19.2 (PyPI's wheel is a CUDA build, with no AMD provider) has no "
        "ROCMExecutionProvider or MIGraphXExecutionProvider on this ROCm stack"
    )
    assert finding.predicts == ort.NO_AMD_EP_PREDICTS and finding.uncertain and finding.conditional
    assert finding.uses == ("onnxruntime", "onnxruntime-training")


def test_training_beside_another_build_is_two_builds() -> None:
    (finding,) = _findings("platform=rocm", "rocm=6.4.1", "lib.onnxruntime=1.19.2", "lib.onnxruntime-training=1.19.2")
    assert finding.predicts == ort.TWO_BUILDS_PREDICTS
    assert finding.fix.endswith("and install onnxruntime-training alone")


# ---- through pytest: the predicted failure known-bad, an unrelated one a plain failure --------------
@pytest.mark.skipif(ort.ID not in registry.CHECKS, reason=f"{ort.ID} is not registered yet")
def test_a_labelled_build_for_another_major_through_pytest(pytester: pytest.Pytester) -> None:
    found, unrelated = predicted_and_unrelated(pytester, ROCM_PATH_TEXT, ROCM_5_TRAINING, uses="onnxruntime")
    assert found["rocm_outcome"] == "known-bad" and found["rocm_rule"] == ort.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated

"""``library-min-arch`` and vLLM on ROCm: more of vLLM's own arch texts, its build's arch list, every series.

Each text is vLLM's, read in its source at the tag beside it (f-strings rendered for the GPU or backend
named). The stacks state only ``platform=rocm``, ``arch`` and vLLM's release (as ``lib.vllm``, a ``+rocm``
local version, or PyPI's ``vllm-rocm``), the form the incidents gave.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

SIGNATURE = compile_signature(library_arch.PREDICTS)
BASE = Environment(platform="cpu", python="3.11.9", source="replay")
ROCM = Environment(platform="rocm", python="3.11.9", source="replay")
TAG = "https://github.com/vllm-project/vllm/blob"

# (message, source at a tag)
TEXTS: list[tuple[str, str]] = [
    (  # _capability_from_gcn_arch past gfx12, gcn_arch="gfx1300"
        "ValueError: Parsed unknown ROCm architecture from GCN arch 'gfx1300': major=13, minor=0. Major version > 12 "
        "is beyond currently known AMD generations. Please file a vLLM issue with your GPU model so support can be "
        "added.",
        f"{TAG}/v0.17.0/vllm/platforms/rocm.py#L214-L220",
    ),
    (  # get_attn_backend_cls with ROCM_AITER_FA off gfx9 (on_gfx9: gfx90a, gfx942, gfx950)
        "ValueError: The selected backend, ROCM_AITER_FA, is only supported on gfx9 architectures.",
        f"{TAG}/v0.12.0/vllm/platforms/rocm.py#L278-L281",
    ),
    (  # PTPCFp8Config below has_device_capability(94)
        "ValueError: ptpc_fp8 quantization is supported only on AMD Instinct MI300 GPUs and newer.",
        f"{TAG}/v0.7.3/vllm/model_executor/layers/quantization/ptpc_fp8.py#L40-L43",
    ),
    (  # MoriAll2AllManager off gfx942/gfx950
        "AssertionError: mori currently only support arch gfx942 and gfx950",
        f"{TAG}/v0.17.0/vllm/distributed/device_communicators/all2all.py#L551-L553",
    ),
    (  # AITER FP8 ViT attention off on_mi3xx()
        "ValueError: AITER FP8 ViT attention requires an MI300-series or MI350-series GPU (gfx942 or gfx950).",
        f"{TAG}/v0.30.0/vllm/model_executor/layers/attention/mm_encoder_attention.py#L401-L405",
    ),
    (  # the loader's capability check, AWQ (get_min_capability 75) on a compute capability 6.0 GPU
        "ValueError: The quantization method awq is not supported for the current GPU. Minimum capability: 75. "
        "Current capability: 60.",
        f"{TAG}/v0.5.5/vllm/model_executor/model_loader/loader.py#L101-L105",
    ),
    (  # the same check moved to config.py, with its line wrapped elsewhere
        "ValueError: The quantization method awq is not supported for the current GPU. Minimum capability: 75. "
        "Current capability: 60.",
        f"{TAG}/v0.7.3/vllm/config.py#L3228-L3232",
    ),
]

# vLLM's other ROCm texts at the same tags, naming no arch gap (a platform, a block size, a backend type,
# a malformed arch name, a model), and failures of any kind.
NOT_CLAIMED = (
    "ValueError: ptpc_fp8 quantization is supported only on ROCm.",  # v0.7.3 ptpc_fp8.py#L38
    "ValueError: ptpc_fp8 as of now only support dynamic quantization.",  # v0.7.3 ptpc_fp8.py#L46
    "ValueError:  The selected backend, TRITON_MLA,does not support block size 1.",  # v0.12.0 rocm.py#L245
    "ValueError:  The selected backend, ROCM_ATTN,is not MLA type while requested for MLA backend.",  # #L256
    "ValueError: AITER FP8 ViT attention requires ROCm.",  # v0.30.0 mm_encoder_attention.py#L397
    "RuntimeError: Attention backend FLASHINFER is not supported on ROCm. Note that V0 attention backends have "
    "been removed.",  # v0.14.0 rocm.py#L297-L300
    "ValueError: GCN arch 'gfx9' has too few digits (1) after 'gfx' to derive a (major, minor) capability. "
    "Please file a vLLM issue with your GPU model.",  # v0.17.0 rocm.py#L180-L184
    "ValueError: Model architecture 'MambaForCausalLM' is not supported by ROCm for now.",  # v0.12.0 rocm.py#L403
    "RuntimeError: Unsupported head size: 96",  # csrc/rocm/attention.cu
    "ValueError: The quantization method awq is not supported",  # cut before it names a capability
    "Segmentation fault (core dumped)",
)

# vLLM v0.7.3-v0.8.2 built for gfx1201 (cmake/utils.cmake override_gpu_arches, with HIP_SUPPORTED_ARCHS):
# https://github.com/vllm-project/vllm/blob/v0.7.3/cmake/utils.cmake#L365-L367
# https://github.com/vllm-project/vllm/blob/v0.7.3/CMakeLists.txt#L37
REFUSAL_0_8_2 = (
    "None of the detected ROCm architectures: gfx1201 is supported. Supported ROCm architectures are: "
    "gfx906;gfx908;gfx90a;gfx942;gfx1030;gfx1100;gfx1101."
)
# A release of each series from 0.4 on (the sdists read for this file)
SERIES = ("0.4.1", "0.5.5", "0.6.3", "0.7.2", "0.7.3", "0.8.2", "0.8.3", "0.9.2", "0.10.2", "0.11.0", "0.11.1")
SERIES += ("0.12.0", "0.14.0", "0.17.0", "0.19.0", "0.21.0", "0.25.0", "0.30.0", "0.33.0")


def vllm_findings(*assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *assignments])
    return [f for f in library_arch.check(env) if f.uses == ("vllm",)]


@pytest.mark.parametrize(("message", "source"), TEXTS, ids=[s.split("/blob/")[1] for _, s in TEXTS])
def test_the_signature_matches_vllms_text(message: str, source: str) -> None:
    assert source.startswith(f"{TAG}/v0.")
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_a_text_naming_no_arch_gap_is_not_claimed(message: str) -> None:
    assert SIGNATURE.search(message) is None


@pytest.mark.parametrize(("gpu", "version"), [("gfx1201", "0.8.2"), ("gfx1200", "0.8.0"), ("gfx950", "0.7.3")])
def test_a_gpu_outside_the_tags_build_list_is_found(gpu: str, version: str) -> None:
    """v0.7.3-v0.8.2 build for none of gfx950/gfx1200/gfx1201, though the v0.11.0 docs row names them."""
    (finding,) = vllm_findings(f"arch={gpu}", f"lib.vllm={version}")
    assert (
        finding.reason == f"vllm {version} has no kernels for {gpu} (it needs one of gfx90a, gfx942, gfx1100, gfx1101)"
    )
    assert finding.link == f"{TAG}/v0.7.3/CMakeLists.txt#L37"
    assert not finding.conditional and not finding.uncertain
    assert finding.fix.startswith(f"use a vllm release that serves {gpu}")


@pytest.mark.parametrize("version", ["0.8.3", "0.9.2", "0.14.0"])
def test_the_release_that_added_rdna4_has_no_finding(version: str) -> None:
    assert vllm_findings("arch=gfx1201", f"lib.vllm={version}") == []


def test_a_gpu_the_docs_already_leave_out_keeps_the_docs_source() -> None:
    (finding,) = vllm_findings("arch=gfx1030", "lib.vllm=0.8.2")
    assert (
        finding.link.startswith("https://docs.vllm.ai/")
        and "(it needs one of gfx90a, gfx942, gfx1100, gfx1101)" in finding.reason
    )


def test_a_local_build_of_those_releases_is_a_risk() -> None:
    """A +rocm build (AMD's images, a fork) may carry a wider list than the tag's CMakeLists.txt."""
    (finding,) = vllm_findings("arch=gfx1201", "lib.vllm=0.8.2+rocm634")
    assert finding.uncertain and not finding.conditional and "vllm 0.8.2+rocm634 has no kernels" in finding.reason


def test_the_build_rows_are_sourced_at_tags_and_name_known_archs() -> None:
    for build in library_arch.BUILDS:
        assert build.source.startswith(f"{TAG}/v0.") and "/CMakeLists.txt" in build.source
        assert all(arch_table.info(name) is not None for name in build.archs.split())


@pytest.mark.parametrize("version", SERIES)
def test_every_series_judges_an_arch_no_release_serves(version: str) -> None:
    (finding,) = vllm_findings("arch=gfx906", f"lib.vllm={version}")
    assert finding.reason.startswith(f"vllm {version} has no kernels for gfx906") and not finding.conditional


@pytest.mark.parametrize("version", SERIES)
def test_every_series_serves_mi300(version: str) -> None:
    assert vllm_findings("arch=gfx942", f"lib.vllm={version}") == []


def test_a_rocm_local_version_is_judged_by_its_release() -> None:
    (finding,) = vllm_findings("arch=gfx1030", "lib.vllm=0.6.3+rocm614")
    assert finding.reason.startswith(
        "vllm 0.6.3+rocm614 has no kernels for gfx1030 (it needs one of gfx90a, gfx942, gfx1100)"
    )
    assert not finding.conditional


@pytest.mark.parametrize("gpu", ["gfx1030", "gfx1201", "gfx908"])
def test_pypis_vllm_rocm_is_judged_as_vllm(gpu: str) -> None:
    """vllm-rocm 0.6.3 installs ``vllm``; its extensions hold gfx90a/gfx942/gfx1100 code objects only."""
    (finding,) = vllm_findings(f"arch={gpu}", "lib.vllm-rocm=0.6.3")
    assert finding.reason.startswith(f"vllm 0.6.3 has no kernels for {gpu}") and not finding.conditional


@pytest.mark.parametrize("gpu", ["gfx90a", "gfx942", "gfx1100"])
def test_pypis_vllm_rocm_on_its_archs_has_no_finding(gpu: str) -> None:
    assert vllm_findings(f"arch={gpu}", "lib.vllm-rocm=0.6.3") == []


def test_a_cuda_stack_with_vllm_rocm_gets_no_rocm_finding() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_90", "lib.vllm-rocm=0.6.3"])
    assert [f for f in library_arch.check(env) if f.uses == ("vllm",)] == []


@pytest.mark.parametrize(
    ("message", "gpu", "version"),
    [
        (REFUSAL_0_8_2, "gfx1201", "0.8.2"),  # the tag's build refusing RDNA4
        (TEXTS[1][0], "gfx1030", "0.14.0"),  # ROCM_AITER_FA on RDNA2
        (TEXTS[2][0], "gfx908", "0.8.5"),  # ptpc_fp8 on MI100
    ],
)
def test_through_pytest_vllms_text_is_known_bad(
    pytester: pytest.Pytester, message: str, gpu: str, version: str
) -> None:
    stack = ("platform=rocm", f"arch={gpu}", "torch=2.7.1+rocm6.3", f"lib.vllm={version}")
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, uses="vllm", env=ROCM)
    assert predicted["rocm_rule"] == library_arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_through_pytest_a_served_gpu_stays_a_plain_failure(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx1201", "torch=2.7.1+rocm6.3", "lib.vllm=0.8.3")
    predicted = run_cases(pytester, REFUSAL_0_8_2, stack, uses="vllm", env=ROCM)["test_predicted"]
    assert predicted.get("rocm_outcome") != "known-bad" and "rocm_rule" not in predicted

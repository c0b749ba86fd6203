"""``library-min-arch`` for xformers on ROCm (its wheels serve gfx90a/gfx942 only), and the failures
xformers and flash-attn give on an AMD GPU their build lacks, quoted verbatim from public reports."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
WHEELS = "https://github.com/facebookresearch/xformers/blob/v0.0.35/.github/workflows/wheels_build.yml#L34"

# (library as `uses` names it, the GPU, the message as the report quotes it, the report)
REPORTS: list[tuple[str, str, str, str]] = [
    (
        "xformers",
        "gfx1036",
        "/home/xformers/third_party/composable_kernel_tiled/include/ck/utility/amd_buffer_addressing.hpp:33:48: "
        "error: use of undeclared identifier 'CK_BUFFER_RESOURCE_3RD_DWORD'",
        "https://github.com/ROCm/xformers/issues/12",
    ),
    (
        "flash-attn",
        "gfx1100",
        "gfx1100  is invalid or not supported by Flash-Attention",
        "https://github.com/ROCm/flash-attention/issues/93",
    ),
    (
        "flash-attn",
        "gfx1100",
        "RuntimeError: FlashAttention only supports AMD MI200 GPUs or newer.",
        "https://github.com/vllm-project/vllm/issues/3040",
    ),
    (
        "flash-attn",
        "gfx1103",
        "Flash Attention failed, using default SDPA: FlashAttention currently only supports MI100 and RX7000 and above",
        "https://github.com/pccr10001/comfyui-gfx1151-fa/issues/3",
    ),
    (  # the ROCm fork's own check (csrc), quoted in the report on an MI100 (gfx908)
        "flash-attn",
        "gfx908",
        'TORCH_CHECK(is_gfx90x || is_gfx94x, "FlashAttention only supports AMD MI200 GPUs or newer.");',
        "https://github.com/ROCm/flash-attention/issues/24",
    ),
]

# Failures of these libraries on AMD GPUs that are not the arch's: they must stay unclaimed
UNRELATED: list[tuple[str, str]] = [
    # a torch header under -Werror on a gfx1100 build (a torch/HIP mismatch, not the arch)
    (
        "/home/ubuntu/.local/lib/python3.10/site-packages/torch/include/ATen/hip/HIPEvent.h:54:9: error: ignoring "
        "return value of function declared with 'nodiscard' attribute [-Werror,-Wunused-result]",
        "https://github.com/ROCm/xformers/issues/17",
    ),
    # xformers' dispatcher: also met on CUDA (head dim, dtype, a wheel without the op): not the arch's alone
    (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:",
        "https://github.com/Comfy-Org/ComfyUI/issues/11602",
    ),
    ("Segmentation fault (core dumped)", "https://github.com/facebookresearch/xformers/issues/1314"),
]


def found(library: str, *assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, list(assignments))
    return [f for f in library_arch.check(env) if f.uses == (library,)]


# ---- the xformers row ---------------------------------------------------------------------------
def test_the_xformers_row_is_sourced_at_a_tag() -> None:
    (row,) = [r for r in arch_table.LIB_MIN_ARCH if r.library == "xformers"]
    assert (row.vendor, row.versions, row.rule, row.source) == ("amd", "", "gfx90a gfx942", WHEELS)


@pytest.mark.parametrize("gpu", ["gfx1100", "gfx1030", "gfx1103", "gfx906", "gfx908", "gfx1201"])
def test_xformers_on_an_arch_its_wheels_lack_is_found(gpu: str) -> None:
    (finding,) = found("xformers", "platform=rocm", f"arch={gpu}", "lib.xformers=0.0.30")
    assert finding.reason == f"xformers 0.0.30 has no kernels for {gpu} (it needs one of gfx90a, gfx942)"
    assert finding.link == WHEELS and not finding.conditional and not finding.uncertain
    assert finding.fix.startswith("run xformers tests on a GPU it supports")  # no release serves it


def test_an_unlisted_xformers_is_conditional_and_uncertain() -> None:
    """Every official wheel lacks gfx1100, but an unnamed xformers may be a source or AMD build: a risk
    only tests that use xformers meet, confirmed by a failure the check predicts."""
    (finding,) = found("xformers", "platform=rocm", "arch=gfx1100")
    assert finding.conditional and finding.uncertain
    assert finding.reason == "xformers has no kernels for gfx1100 (it needs one of gfx90a, gfx942)"


# ---- must stay silent: real working combinations ------------------------------------------------
@pytest.mark.parametrize(
    "stack",
    [
        # MI250 (gfx90a) / MI300X (gfx942) with the official ROCm wheels: built for exactly these (WHEELS,
        # v0.0.28 uploaded to download.pytorch.org/whl/rocm6.1, v0.0.32.post2 to rocm6.4, v0.0.35 to rocm7.1:
        # .github/workflows/wheels.yml at each tag)
        ("platform=rocm", "arch=gfx90a", "lib.xformers=0.0.28.post1"),
        ("platform=rocm", "arch=gfx942", "lib.xformers=0.0.32.post2"),
        ("platform=rocm", "arch=gfx942", "lib.xformers=0.0.35"),
        ("platform=rocm", "arch=gfx942"),  # an unlisted xformers: every release serves MI300
        # xformers built from source on MI250/MI300 ("Targeting gfx90a or gfx942 instead should build fine",
        # AMD, https://github.com/ROCm/xformers/issues/71)
        ("platform=rocm", "arch=gfx90a", "lib.xformers=0.0.30+4a68301.d20250208"),
        # xformers' CUDA wheels on an H100: the AMD row never judges an NVIDIA GPU
        ("platform=cuda", "arch=sm_90", "lib.xformers=0.0.35"),
    ],
)
def test_xformers_working_combinations_are_silent(stack: tuple[str, ...]) -> None:
    assert found("xformers", *stack) == []


def test_flash_attn_on_mi300_stays_silent() -> None:
    # flash-attn 2.8.3's ROCm CK build lists gfx942 (setup.py allowed_archs at v2.8.3)
    assert found("flash-attn", "platform=rocm", "arch=gfx942", "lib.flash_attn=2.8.3") == []


# ---- the messages -------------------------------------------------------------------------------
@pytest.mark.parametrize(("library", "gpu", "message", "source"), REPORTS)
def test_each_reported_form_is_predicted(library: str, gpu: str, message: str, source: str) -> None:
    assert re.search(library_arch.PREDICTS, message), source
    assert found(library, "platform=rocm", f"arch={gpu}"), source  # and the check finds that stack


@pytest.mark.parametrize(("message", "source"), UNRELATED)
def test_other_failures_stay_unclaimed(message: str, source: str) -> None:
    assert not re.search(library_arch.PREDICTS, message), source


@pytest.mark.parametrize(("library", "gpu", "message", "source"), [REPORTS[0], REPORTS[1], REPORTS[3]])
def test_two_ways(pytester: pytest.Pytester, library: str, gpu: str, message: str, source: str) -> None:
    """Through pytest: the reported failure ends known-bad, an unrelated one fails with the diagnosis."""
    name = library.replace("-", "_")
    stack = ("platform=rocm", f"arch={gpu}", f"lib.{name}=2.7.4" if name == "flash_attn" else "lib.xformers=0.0.30")
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, uses=library, env=BASE)
    assert predicted["rocm_rule"] == library_arch.ID, source
    assert "rocm_rule" not in unrelated and unrelated["rocm_outcome"] == "fail"
    assert unrelated.get("rocm_diagnosis", "").startswith(f"{library_arch.ID}: ")


@pytest.mark.parametrize(
    ("stack", "uncertain"),
    [
        (("platform=rocm", "arch=gfx1100", "lib.xformers=0.0.30"), False),  # an official wheel: gfx90a/gfx942 only
        # a source build (setup.py's local suffix; HIP_ARCHITECTURES "native") or no release named: AMD and
        # source builds target other archs, so only a failure the check predicts confirms it
        (("platform=rocm", "arch=gfx1100", "lib.xformers=0.0.31+8fc8ec5a.d20250715"), True),
        (("platform=rocm", "arch=gfx950", "torch=2.7.1+rocm6.4"), True),
    ],
)
def test_xformers_builds_other_than_the_official_wheels_are_a_risk(stack: tuple[str, ...], uncertain: bool) -> None:
    env = apply_overrides(Environment(platform="cpu", python="3.11.7", os="Linux"), list(stack))
    (finding,) = [f for f in library_arch.check(env) if f.uses == ("xformers",)]
    assert finding.uncertain is uncertain

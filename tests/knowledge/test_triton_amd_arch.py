"""``library-min-arch`` for Triton's AMD backend, the compiler of torch.compile/Inductor on ROCm.

From Triton 3.0 its LLVM lowering refuses a gfx arch it maps to no ISA family (``error: unsupported
target: 'gfxN'``): gfx803 and the GCN5 archs gfx900-gfx90c (3.0-3.1 also gfx950 and gfx1152/1153, 3.3 on
gfx940/941); 3.8 adds gfx906, 3.9 refuses RDNA1/RDNA2 as well (arch_table's Triton rows and their sources). The release is the one the stack
lists, else the one an official ``+rocm`` torch pins (torch 2.9 pins 3.5, 2.8 pins 3.4).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

SIGNATURE = compile_signature(library_arch.PREDICTS)
BASE = Environment(platform="cpu", python="3.11.9", source="replay")
REFUSED_FROM_35 = ("gfx803", "gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c", "gfx940", "gfx941")
RDNA12 = ("gfx1010", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1035", "gfx1036")

# Verbatim reports of the refusal. vLLM's Triton attention on two Radeon VII (gfx906), Triton 3.x:
# https://github.com/Said-Akbar/triton-gcn5/issues/4
GFX906_VLLM = (
    'loc("/home/x670e/vllm/ogvllm/vllm/attention/ops/triton_flash_attention.py":309:0): error: unsupported '
    "target: 'gfx906'"
)
# ComfyUI-Zluda's Triton kernel test on a machine whose second AMD GPU is a gfx803 one (issue title):
# https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/659
GFX803_COMFY = "Q:\\code\\ComfyUI-Zluda\\comfy\\zluda.py:477:0: error: unsupported target: 'gfx803'"

# Failures that name no refused arch: the Python side of the same failure (it follows the arch line,
# which alone is predicted), MLIR's generic pass-failure lines, a refusal of a non-gfx target.
NOT_CLAIMED = (
    "RuntimeError: PassManager::run failed",
    "torch._inductor.exc.InductorError: RuntimeError: PassManager::run failed",
    "error: Failures have been detected while processing an MLIR pass pipeline",
    "error: unsupported target: 'sm_90'",
    "Segmentation fault (core dumped)",
    "RuntimeError: HIP error: invalid argument",
)


def triton_findings(*assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, list(assignments))
    return [f for f in library_arch.check(env) if f.uses and f.uses[0] == "triton"]


# ---- the rows ------------------------------------------------------------------------------------
def rule(version: str) -> str:
    return arch_table.lib_rule("triton", "amd", Version(version))[0]


@pytest.mark.parametrize("version", ["2.1.0", "2.2.0", "2.3.1"])
@pytest.mark.parametrize("gpu", ["gfx803", "gfx906", "gfx90c", "gfx1030", "gfx1100"])
def test_before_30_no_refusal_is_known(version: str, gpu: str) -> None:
    """3.0-3.4 refuse GCN5 too (measured with the PyPI wheels: test_compile_rocm_texts.py)."""
    assert gpu in rule(version).split()


@pytest.mark.parametrize("version", ["3.5.0", "3.5.1", "3.6.0", "3.7.1"])
def test_from_35_the_archs_without_an_isa_family_are_refused(version: str) -> None:
    served = rule(version).split()
    assert not set(REFUSED_FROM_35) & set(served)
    assert {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1036", "gfx1103", "gfx1151"} <= set(
        served
    )


def test_38_adds_gfx906_and_39_drops_rdna1_and_rdna2() -> None:
    assert "gfx906" in rule("3.8.0").split() and "gfx906" not in rule("3.7.1").split()
    assert set(RDNA12) <= set(rule("3.8.0").split())
    assert not set(RDNA12) & set(rule("3.9.0").split())
    assert {"gfx906", "gfx908", "gfx1100", "gfx1201"} <= set(rule("3.9.0").split())


# ---- the check: the release torch pins -----------------------------------------------------------
@pytest.mark.parametrize("gpu", ["gfx906", "gfx900", "gfx803", "gfx90c", "gfx906:sramecc+:xnack-"])
def test_torch_29_on_rocm_pins_a_triton_that_refuses_the_gpu(gpu: str) -> None:
    (finding,) = triton_findings("platform=rocm", f"arch={gpu}", "torch=2.9.1+rocm6.4")
    assert finding.reason.startswith(f"triton 3.5.1 has no kernels for {gpu.split(':', maxsplit=1)[0]}")
    assert set(finding.uses) == {"triton", "torch.compile", "inductor"}
    assert not finding.conditional and not finding.uncertain
    assert finding.link.startswith("https://github.com/triton-lang/triton/")


@pytest.mark.parametrize("torch", ["2.3.1+rocm6.0", "2.2.2+rocm5.7", "2.1.2+rocm5.6"])
def test_torch_up_to_23_pins_a_triton_with_no_known_refusal(torch: str) -> None:
    assert triton_findings("platform=rocm", "arch=gfx906", f"torch={torch}") == []


@pytest.mark.parametrize(("torch", "triton"), [("2.10.0+rocm7.0", "3.6.0"), ("2.12.0+rocm7.1", "3.7.0")])
def test_later_torch_pins_are_judged_the_same(torch: str, triton: str) -> None:
    (finding,) = triton_findings("platform=rocm", "arch=gfx90c", f"torch={torch}")
    assert finding.reason.startswith(f"triton {triton} has no kernels for gfx90c")


@pytest.mark.parametrize("gpu", ["gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1151", "gfx1201"])
def test_an_arch_with_an_isa_family_has_no_finding(gpu: str) -> None:
    assert triton_findings("platform=rocm", f"arch={gpu}", "torch=2.9.1+rocm6.4") == []


def test_an_nvidia_gpu_is_not_judged_by_the_amd_rows() -> None:
    assert triton_findings("platform=cuda", "arch=sm_60", "torch=2.9.1+cu126") == []


# ---- the check: a listed release wins over torch's pin -------------------------------------------
@pytest.mark.parametrize("listed", ["lib.triton=3.5.1", "lib.pytorch-triton-rocm=3.5.0", "lib.triton-rocm=3.6.0"])
def test_a_listed_release_under_any_distribution_name(listed: str) -> None:
    (finding,) = triton_findings("platform=rocm", "arch=gfx906", listed)
    assert finding.reason.startswith("triton 3.") and not finding.conditional and not finding.uncertain


def test_a_listed_38_serves_gfx906_whatever_torch_pins() -> None:
    assert triton_findings("platform=rocm", "arch=gfx906", "torch=2.9.1+rocm6.4", "lib.triton=3.8.0") == []
    assert triton_findings("platform=rocm", "arch=gfx906", "torch=2.8.0+rocm6.4", "lib.triton=3.5.1")


def test_a_listed_39_refuses_rdna2() -> None:
    (finding,) = triton_findings("platform=rocm", "arch=gfx1030", "lib.triton=3.9.0")
    assert finding.reason.startswith("triton 3.9.0 has no kernels for gfx1030") and not finding.uncertain
    assert triton_findings("platform=rocm", "arch=gfx1030", "lib.triton=3.8.0") == []


# ---- the check: no release known -----------------------------------------------------------------
def test_no_release_known_is_a_risk_on_an_arch_some_release_refuses() -> None:
    for stack in (("platform=rocm", "arch=gfx906"), ("platform=rocm", "arch=gfx906", "torch=2.9.1")):
        (finding,) = triton_findings(*stack)
        assert finding.uncertain and finding.conditional and "triton >=3.5,<3.8" in finding.reason


def test_no_release_known_on_rdna2_is_no_risk() -> None:
    """3.9 is judged only when listed: no torch release in the pin table pins it."""
    assert triton_findings("platform=rocm", "arch=gfx1030") == []


# ---- the messages --------------------------------------------------------------------------------
@pytest.mark.parametrize("message", [GFX906_VLLM, GFX803_COMFY])
def test_the_reported_refusals_are_predicted(message: str) -> None:
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_generic_failures_are_not_claimed(message: str) -> None:
    assert SIGNATURE.search(message) is None


def test_through_pytest_a_compile_test_on_gfx906_is_known_bad(pytester: pytest.Pytester) -> None:
    rocm = Environment(platform="rocm", python="3.11.9", source="replay")
    stack = ("platform=rocm", "arch=gfx906", "torch=2.9.1+rocm6.4")
    predicted, unrelated = predicted_and_unrelated(pytester, GFX906_VLLM, stack, uses="torch.compile", env=rocm)
    assert predicted["rocm_rule"] == library_arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_through_pytest_the_same_test_on_torch_23_is_a_plain_failure(pytester: pytest.Pytester) -> None:
    rocm = Environment(platform="rocm", python="3.11.9", source="replay")
    stack = ("platform=rocm", "arch=gfx906", "torch=2.3.1+rocm6.0")
    cases = run_cases(pytester, GFX906_VLLM, stack, uses="torch.compile", env=rocm)
    assert cases["test_predicted"].get("rocm_rule") != library_arch.ID


def test_a_triton_built_elsewhere_is_not_judged_by_the_release_rows() -> None:
    """A local label (a fork such as triton-gcn5, a ``+git`` build) has targets of its own: only a risk."""
    (finding,) = triton_findings("platform=rocm", "arch=gfx906", "torch=2.9.0+rocm6.4", "lib.triton=3.5.0+gitabc123")
    assert finding.uncertain and "does not say which triton release" in finding.reason
    (certain,) = triton_findings("platform=rocm", "arch=gfx906", "torch=2.9.0+rocm6.4", "lib.triton=3.5.0")
    assert not certain.uncertain

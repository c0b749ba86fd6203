"""``library-min-arch``: torch.compile on ROCm, Triton 3.0-3.4 (the Triton torch 2.4-2.8 pin) by arch.

Measured with the PyPI wheels 3.0.0, 3.1.0, 3.2.0, 3.3.0, 3.3.1, 3.4.0 (and 3.5.0 as the known bound): a
``tl.dot`` and an elementwise kernel compiled by ``triton.compile(..., target=GPUTarget("hip", arch,
warp_size))`` for each of arch_table's 34 gfx archs, no GPU needed (the HIP linker, which the PyPI wheels
do not ship, stubbed). Every refusal is the same text, ``error: unsupported target: 'gfxN'``, emitted when
the arch maps to no ISA family (TargetUtils.cpp ``deduceISAFamily``; its first version has no GCN5 case
and ranges RDNA3 over the LLVM kinds up to gfx1201, so an arch its LLVM does not know has no kind):

- 3.0.0, 3.1.0: gfx803, gfx900/902/904/906/909/90c, gfx950, gfx1152, gfx1153
- 3.2.0: gfx803, gfx900/902/904/906/909/90c
- 3.3.0, 3.3.1, 3.4.0: the 3.2 set and gfx940/941 (the set 3.5-3.7 refuse)

torch's ROCm wheels pin them: 2.4 pins 3.0.0, 2.5 3.1.0, 2.6 3.2.0, 2.7 3.3.x, 2.8 3.4.0 (torch_rocm_triton).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch, registry
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

SIGNATURE = compile_signature(library_arch.PREDICTS)
BASE = Environment(platform="cpu", python="3.11.9", source="replay")
ROCM = Environment(platform="rocm", python="3.11.9", source="replay")
GCN = ("gfx803", "gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c")
# What each release refuses (measured as the module docstring says)
REFUSED = {
    "3.0.0": (*GCN, "gfx950", "gfx1152", "gfx1153"),
    "3.1.0": (*GCN, "gfx950", "gfx1152", "gfx1153"),
    "3.2.0": GCN,
    "3.3.0": (*GCN, "gfx940", "gfx941"),
    "3.3.1": (*GCN, "gfx940", "gfx941"),
    "3.4.0": (*GCN, "gfx940", "gfx941"),
    "3.5.0": (*GCN, "gfx940", "gfx941"),
}
AMD = tuple(a.name for a in arch_table.ARCHS if a.vendor == "amd")

# Triton 3.0.0's own refusal, the text of mod.emitError("unsupported target: '") << arch << "'" in
# ConvertTritonAMDGPUToLLVM::runOnOperation as the PyPI wheel prints it for a kernel compiled for gfx906
# (the file and line are the kernel's):
# https://github.com/triton-lang/triton/blob/010fe452ad03fa28c779d8d113e93b34cb9b95a0/third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp
# measured on https://pypi.org/project/triton/3.0.0/
TRITON_30_GFX906 = "loc(\"/work/kernels/add.py\":8:0): error: unsupported target: 'gfx906'"
# ... and for gfx950, an arch Triton 3.0/3.1's LLVM does not know (the same wheel)
TRITON_30_GFX950 = "loc(\"/work/kernels/add.py\":15:0): error: unsupported target: 'gfx950'"

# A report of the same refusal from the Triton 3.0/3.1 era (2024-10-21, a year before Triton 3.5), unsloth's
# Triton RMSNorm on a gfx906 (issue title, verbatim): https://github.com/unslothai/unsloth/issues/1160
UNSLOTH_GFX906 = (
    "AMD unsloth/kernels/rms_layernorm.py\":22:0): error: unsupported target: 'gfx906' > RuntimeError: "
    "PassManager::run failed"
)

# Texts of the same compiles that name no refused arch (the Python side that follows the arch line,
# Triton's linker lookup when ld.lld is missing, a wrong num_ctas), and failures of other kinds.
NOT_CLAIMED = (
    "RuntimeError: PassManager::run failed",
    "Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found",  # 3.0.0 compiler.py path_to_rocm_lld
    "ValueError: num_ctas > 1 not supported for AMD GPUs",  # 3.5.0 compiler.py parse_options
    "error: unsupported target: 'sm_90'",
    "RuntimeError: HIP error: out of memory",
)


def triton_findings(*assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *assignments])
    return [f for f in library_arch.check(env) if f.uses and f.uses[0] == "triton"]


def served(version: str) -> set[str]:
    return set(arch_table.lib_rule("triton", "amd", Version(version))[0].split())


# ---- the rows ------------------------------------------------------------------------------------
@pytest.mark.parametrize("version", sorted(REFUSED))
def test_each_release_serves_exactly_the_archs_it_compiled_for(version: str) -> None:
    assert served(version) == set(AMD) - set(REFUSED[version])


@pytest.mark.parametrize("version", ["3.0.0", "3.3.1", "3.4.0"])
def test_from_30_gcn5_is_refused(version: str) -> None:
    assert not set(GCN) & served(version)


def test_gfx950_and_krackan_from_32_and_cdna3_previews_until_32() -> None:
    assert {"gfx950", "gfx1152", "gfx1153"} <= served("3.2.0") - served("3.1.0")
    assert {"gfx940", "gfx941"} <= served("3.2.0") - served("3.3.0")


def test_the_new_rows_are_sourced_by_their_wheels() -> None:
    sources = {r.versions: r.source for r in arch_table.lib_rows("triton", "amd")}
    assert sources[">=3.0,<3.2"] == "https://pypi.org/project/triton/3.0.0/"
    assert sources[">=3.2,<3.3"] == "https://pypi.org/project/triton/3.2.0/"
    assert sources[">=3.3,<3.5"] == "https://pypi.org/project/triton/3.4.0/"


def test_before_30_no_refusal_is_known() -> None:
    assert served("2.3.1") == set(AMD)


# ---- the check: the release torch pins -----------------------------------------------------------
@pytest.mark.parametrize(
    ("torch", "triton"),
    [("2.4.1+rocm6.1", "3.0.0"), ("2.5.1+rocm6.2", "3.1.0"), ("2.6.0+rocm6.2.4", "3.2.0"), ("2.8.0+rocm6.4", "3.4.0")],
)
@pytest.mark.parametrize("gpu", ["gfx906", "gfx900", "gfx90c"])
def test_torch_24_to_28_pins_a_triton_that_refuses_gcn5(torch: str, triton: str, gpu: str) -> None:
    (finding,) = triton_findings(f"arch={gpu}", f"torch={torch}")
    assert finding.reason.startswith(f"triton {triton} has no kernels for {gpu}")
    assert set(finding.uses) == {"triton", "torch.compile", "inductor"}
    assert not finding.conditional and not finding.uncertain
    assert finding.link.startswith("https://pypi.org/project/triton/3.")


@pytest.mark.parametrize(("torch", "triton"), [("2.4.1+rocm6.1", "3.0.0"), ("2.5.1+rocm6.2", "3.1.0")])
@pytest.mark.parametrize("gpu", ["gfx950", "gfx1152"])
def test_torch_24_and_25_pin_a_triton_whose_llvm_lacks_the_gpu(torch: str, triton: str, gpu: str) -> None:
    (finding,) = triton_findings(f"arch={gpu}", f"torch={torch}")
    assert finding.reason.startswith(f"triton {triton} has no kernels for {gpu}")
    assert finding.link == "https://pypi.org/project/triton/3.0.0/"
    assert triton_findings(f"arch={gpu}", "torch=2.6.0+rocm6.2.4") == []


def test_torch_27_refuses_the_mi300_previews_and_26_does_not() -> None:
    (finding,) = triton_findings("arch=gfx940", "torch=2.7.1+rocm6.3")
    assert finding.reason.startswith("triton 3.3.1 has no kernels for gfx940")
    assert triton_findings("arch=gfx940", "torch=2.6.0+rocm6.2.4") == []


@pytest.mark.parametrize("torch", ["2.4.1+rocm6.1", "2.6.0+rocm6.2.4", "2.8.0+rocm6.4"])
@pytest.mark.parametrize("gpu", ["gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1151"])
def test_an_arch_every_pinned_triton_serves_has_no_finding(torch: str, gpu: str) -> None:
    assert triton_findings(f"arch={gpu}", f"torch={torch}") == []


def test_an_nvidia_stack_of_the_same_torch_has_no_finding() -> None:
    assert triton_findings("platform=cuda", "arch=sm_70", "torch=2.4.1+cu121") == []


def test_a_listed_32_serves_gfx950_whatever_torch_pins() -> None:
    assert triton_findings("arch=gfx950", "torch=2.5.1+rocm6.2", "lib.pytorch-triton-rocm=3.2.0") == []


# ---- the messages --------------------------------------------------------------------------------
@pytest.mark.parametrize("message", [TRITON_30_GFX906, TRITON_30_GFX950, UNSLOTH_GFX906])
def test_triton_30s_refusal_is_predicted(message: str) -> None:
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_the_other_texts_of_the_compile_are_not_claimed(message: str) -> None:
    assert SIGNATURE.search(message) is None


def test_only_library_min_arch_claims_the_refusal() -> None:
    """Only library-min-arch among the checks names Triton's unsupported-target text."""
    claimed = [k for k, v in registry.PREDICTS.items() if compile_signature(v).search(TRITON_30_GFX906)]
    assert claimed == [library_arch.ID]


def test_through_pytest_a_compile_test_on_gfx906_with_torch_24_is_known_bad(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx906", "torch=2.4.1+rocm6.1")
    predicted, unrelated = predicted_and_unrelated(pytester, TRITON_30_GFX906, stack, uses="torch.compile", env=ROCM)
    assert predicted["rocm_rule"] == library_arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_through_pytest_the_same_test_on_mi300_stays_a_plain_failure(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx942", "torch=2.4.1+rocm6.1")
    cases = run_cases(pytester, TRITON_30_GFX906, stack, uses="torch.compile", env=ROCM)
    assert cases["test_predicted"].get("rocm_rule") != library_arch.ID


def test_through_pytest_the_reported_refusal_on_torch_25_is_known_bad(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx906", "torch=2.5.1+rocm6.2")
    predicted, _ = predicted_and_unrelated(pytester, UNSLOTH_GFX906, stack, uses="triton", env=ROCM)
    assert predicted["rocm_rule"] == library_arch.ID

"""A failure stating what the stack leaves out is judged with it (session.facts_from_failure), through pytest."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.stack.environment import GPU, Environment
from tests.knowledge.two_ways import run_source

# a ROCm host whose GPU's arch is not stated (a replayed report), and one whose arch is
UNSTATED = Environment(platform="rocm", gpus=(GPU(0, "AMD GPU", "", None, "amd"),), python="3.11.7", os="Linux")
STATED = Environment(platform="rocm", gpus=(GPU(0, "AMD GPU", "gfx1100", None, "amd"),), python="3.11.7", os="Linux")
TENSILE = (
    "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
    "for GPU arch : {arch}"
)
SOURCE = """
import pytest

@pytest.mark.gpus(1)
def test_gemm():
    raise RuntimeError({text!r})

@pytest.mark.gpus(1)
def test_other():
    raise ValueError("a genuinely different regression: the gfx1031 row of the test's own table has 3 entries, not 4")
"""


def _run(pytester: pytest.Pytester, text: str, stack: tuple[str, ...], env: Environment) -> dict[str, dict[str, str]]:
    return run_source(pytester, SOURCE.format(text=text), stack, env=env)


def test_the_named_processor_brings_the_release_s_finding(pytester: pytest.Pytester) -> None:
    # ROCm 5.2's rocBLAS has no Tensile kernels for gfx1031 (nor has any official torch): the failure says the
    # GPU is one
    cases = _run(pytester, TENSILE.format(arch="gfx1031"), ("rocm=5.2.3",), UNSTATED)
    gemm = cases["test_gemm"]
    assert gemm.get("rocm_outcome") == "known-bad", gemm
    assert gemm.get("rocm_rule") in ("arch-not-in-build", "rocblas-arch-not-in-release"), gemm
    assert "arch=gfx1031 read from the failure text" in gemm.get("rocm_note", "")
    # a different failure that merely names the processor does not match the finding's signature (one refusing it by
    # name, "Unknown GPU architecture: gfx1031", would: knowledge/gpu_refusals.py)
    assert cases["test_other"].get("rocm_outcome") != "known-bad"


def test_a_processor_the_release_serves_claims_nothing(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, TENSILE.format(arch="gfx1030"), ("rocm=5.2.3",), UNSTATED)
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]


def test_a_stated_arch_is_not_replaced_by_the_text(pytester: pytest.Pytester) -> None:
    # the probe's (or the user's) arch stands: gfx1100 is served by torch 2.1's ROCm 5.6 build, whatever the text says
    cases = _run(pytester, TENSILE.format(arch="gfx1031"), ("torch=2.1.2+rocm5.6", "rocm=5.6.1"), STATED)
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]


def test_the_stack_s_override_still_applies(pytester: pytest.Pytester) -> None:
    # HSA_OVERRIDE_GFX_VERSION=10.3.0 loads gfx1030's kernels, which 5.2 has
    cases = _run(
        pytester, TENSILE.format(arch="gfx1031"), ("rocm=5.2.3", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"), UNSTATED
    )
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]


def test_a_processor_of_the_other_vendor_is_ignored(pytester: pytest.Pytester) -> None:
    cuda = Environment(platform="cuda", gpus=(GPU(0, "NVIDIA GPU", "", None, "nvidia"),), python="3.11.7", os="Linux")
    cases = _run(pytester, TENSILE.format(arch="gfx1031"), ("rocm=5.2.3",), cuda)
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]


def test_torch_s_capability_warning_names_an_nvidia_gpu(pytester: pytest.Pytester) -> None:
    # torch 2.6's cu124 wheels carry no sm_120 code: the warning names the RTX 5090's capability
    cuda = Environment(platform="cuda", gpus=(GPU(0, "NVIDIA GPU", "", None, "nvidia"),), python="3.11.7", os="Linux")
    text = (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation."
        "\nRuntimeError: CUDA error: no kernel image is available for execution on the device"
    )
    cases = _run(pytester, text, ("torch=2.6.0+cu124",), cuda)
    gemm = cases["test_gemm"]
    assert gemm.get("rocm_outcome") == "known-bad" and gemm.get("rocm_rule") == "arch-not-in-build", gemm
    assert "arch=sm_120 read from the failure text" in gemm.get("rocm_note", "")


def test_the_release_and_the_arch_both_from_the_text(pytester: pytest.Pytester) -> None:
    # the stack names neither: the path says ROCm 5.3.3 and rocBLAS the GPU, gfx1100, which 5.3's rocBLAS lacks
    text = (
        "rocBLAS error: Cannot read /opt/rocm-5.3.3/lib/rocblas/library/TensileLibrary.dat: No such file or "
        "directory for GPU arch : gfx1100"
    )
    cases = _run(pytester, text, (), UNSTATED)
    gemm = cases["test_gemm"]
    assert gemm.get("rocm_outcome") == "known-bad" and gemm.get("rocm_rule") == "rocblas-arch-not-in-release", gemm
    assert "arch=gfx1100, rocm=5.3.3 read from the failure text" in gemm.get("rocm_note", "")


def test_a_stated_release_is_not_replaced_by_the_path(pytester: pytest.Pytester) -> None:
    # the stack says 5.4 (whose rocBLAS has gfx1100); a leftover /opt/rocm-5.3.3 path in the text changes nothing
    text = "Cannot read /opt/rocm-5.3.3/lib/rocblas/library/TensileLibrary.dat: No such file for GPU arch : gfx1100"
    cases = _run(pytester, text, ("rocm=5.4.3", "torch=2.1.2+rocm5.6"), STATED)
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]


ROCK_636 = (
    "ROCk module version 6.3.6 is loaded\n"
    "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."
)


def test_the_driver_the_failure_names(pytester: pytest.Pytester) -> None:
    # ROCm 6.0's amdgpu (6.3.6) supports the 5.6-6.2 user spaces, not 6.4's: rocminfo's own line says which is loaded
    cases = _run(pytester, ROCK_636, ("rocm=6.4.0",), STATED)
    gemm = cases["test_gemm"]
    assert gemm.get("rocm_outcome") == "known-bad" and gemm.get("rocm_rule") == "rocm-driver-unsupported", gemm
    assert "driver=6.3.6 read from the failure text" in gemm.get("rocm_note", "")


def test_a_driver_that_supports_the_release_claims_nothing(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, ROCK_636.replace("6.3.6", "6.8.5"), ("rocm=6.2.0",), STATED)
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]


def test_a_stated_driver_is_not_replaced_by_the_text(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, ROCK_636, ("rocm=6.4.0", "driver=6.12.12"), STATED)
    assert cases["test_gemm"].get("rocm_outcome") != "known-bad", cases["test_gemm"]

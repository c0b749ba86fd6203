"""``rocm-driver-unsupported`` for a distribution kernel: an in-kernel amdkfd without the GPU, and WSL."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_driver, rocm_kernel
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == rocm_driver.ID]


@pytest.mark.parametrize(
    ("stack", "shown", "link"),
    [
        # Ubuntu 22.04's GA kernel series: Linux 5.15's amdkfd has no GFX11/GC 9.4.x/GFX11.5/GFX12 entry
        (
            ("arch=gfx1100", "driver=5.15.0-91-generic"),
            "Linux 5.15.0-91-generic has no compute (KFD) support for gfx1100 (none up to Linux 5.18)",
            rocm_kernel.GFX11_TAG_SOURCE,
        ),
        (("arch=gfx1103", "driver=5.18.19-100.fc35.x86_64"), "support for gfx1103", rocm_kernel.GFX11_TAG_SOURCE),
        (("arch=gfx942", "driver=5.15.0-91-generic"), "support for gfx942", rocm_kernel.GC943_SOURCE),  # MI300
        (("arch=gfx942", "driver=6.2.0-39-generic"), "(none up to Linux 6.3)", rocm_kernel.GC943_SOURCE),
        (("arch=gfx1151", "driver=6.6.87-1-lts"), "support for gfx1151", rocm_kernel.GC11_5_1_SOURCE),  # Strix Halo
        (("arch=gfx1150", "driver=6.5.0-45-generic"), "(none up to Linux 6.5)", rocm_kernel.GC11_5_0_SOURCE),
        (("arch=gfx1152", "driver=6.9.12-200.fc40.x86_64"), "support for gfx1152", rocm_kernel.GC11_5_2_SOURCE),
        (("arch=gfx1201", "driver=5.13.0-27-generic"), "support for gfx1201", rocm_kernel.KFD_SOURCE),  # RDNA4
        (("arch=gfx1036", "driver=5.17.0-1-amd64"), "support for gfx1036", rocm_kernel.GC10_3_6_SOURCE),  # Raphael
    ],
)
def test_a_recorded_in_kernel_driver_without_kfd_for_the_gpu_is_found(
    stack: tuple[str, ...], shown: str, link: str
) -> None:
    (finding,) = _found(*stack)
    assert shown in finding.reason
    assert finding.everything and not finding.uncertain and finding.link == link
    assert "newer kernel" in finding.fix and "amdgpu-install" in finding.fix


def test_several_gpus_name_each_and_the_newest_bound() -> None:
    (finding,) = _found("arch=gfx1100,gfx942", "driver=5.15.0-91-generic")
    assert "gfx1100, gfx942 (none up to Linux 6.3)" in finding.reason and finding.link == rocm_kernel.GC943_SOURCE


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1100", "driver=5.19.0-23-generic"),  # GFX11's KFD came with 5.19
        ("arch=gfx1100", "driver=6.8.0-45-generic"),
        ("arch=gfx942", "driver=6.5.0-14-generic"),  # GC 9.4.3 patches landed after 6.3
        ("arch=gfx1036", "driver=5.18.19-100.fc35.x86_64"),  # GC 10.3.6's entries went to 5.18.x stable
        ("arch=gfx1201", "driver=6.8.0-45-generic"),  # RDNA4 after 5.15: its first KFD release unverified
        ("arch=gfx1151", "driver=6.8.0-45-generic"),  # GC 11.5.1 after 6.7: its first KFD release unverified
        ("arch=gfx1150", "driver=6.8.0-45-generic"),
        ("arch=gfx90a", "driver=5.15.0-91-generic"),  # Aldebaran: in 5.15's table
        ("arch=gfx1030", "driver=5.15.0-91-generic"),
        ("arch=gfx1035", "driver=5.15.0-91-generic"),  # Yellow Carp: in 5.15's table
        ("arch=gfx1100", "driver=6.8.5", "os=Linux 5.15.0-91-generic"),  # AMD's DKMS driver on 5.15: its own amdkfd
        ("arch=gfx1030",),  # no kernel stated, a GPU every judged kernel serves (a risk for gfx1100:
        # test_rocm_kernel_unstated.py)
    ],
)
def test_a_kernel_with_kfd_or_an_unjudged_one_says_nothing(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1100", "driver=5.14.0-427.13.1.el9_4.x86_64"),  # RHEL backports newer amdgpu code
        ("arch=gfx1100", "driver=5.14.21-150500.55.19-default"),  # SUSE likewise
    ],
)
def test_an_unprobed_or_backporting_kernel_is_uncertain(stack: tuple[str, ...]) -> None:
    (finding,) = _found(*stack)
    assert finding.uncertain and "gfx1100" in finding.reason


def test_only_the_os_kernel_or_an_enumerated_gpu_says_nothing() -> None:
    """``os`` alone may be AMD's DKMS driver; a GPU the probe enumerated was found through amdkfd."""
    assert _found("arch=gfx1100", "os=Linux 5.15.0-91-generic") == []
    live = Environment(platform="rocm", python="3.12.3", os="Linux 5.15.0-91-generic", driver="5.15.0-91-generic",
                       gpus=(GPU(0, "AMD Radeon RX 7900 XTX", "gfx1100"),), torch="2.5.1+rocm6.2")  # fmt: skip
    assert [f for f in evaluate(live) if f.check == rocm_driver.ID] == []


def test_one_gpu_without_kfd_beside_one_with_reaches_gpu_tests_only() -> None:
    (finding,) = _found("arch=gfx942,gfx1036", "driver=5.18.0-1-generic")
    assert not finding.everything and finding.markers == ("gpus",)
    assert "does not see these GPUs" in finding.reason and "gfx942" in finding.reason


def test_amdgpu_ids_warning_is_not_a_driver_failure() -> None:
    """libdrm's container warning names amdgpu but no driver fault (it is in many captured logs)."""
    text = "AssertionError: Tensor-likes are not close!\n/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory"
    assert not re.search(rocm_driver.PREDICTS, text)


def test_cuda_stack_is_not_judged() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_90", "os=Linux 5.15.0-91-generic"])
    assert [f for f in evaluate(env) if f.check == rocm_driver.ID] == []


def test_series() -> None:
    assert rocm_kernel.series("5.15.0") == (5, 15)
    assert rocm_kernel.series("6.10") == (6, 10)
    assert (5, 9) < rocm_kernel.series("5.15.0") < (6, 0)


# ---- WSL ------------------------------------------------------------------------------------------
WSL = "os=Linux 6.6.87.1-microsoft-standard-WSL2"


def test_a_rocm_torch_under_wsl_is_an_uncertain_finding() -> None:
    # RX 7900 XT (gfx1100), ROCm 6.4.1, a torch 2.8 nightly +rocm6.4 under WSL2
    (finding,) = _found("arch=gfx1100", "rocm=6.4.1", "torch=2.8.0.dev20250529+rocm6.4", WSL)
    assert finding.uncertain and finding.everything and finding.link == rocm_kernel.WSL_SOURCE
    assert "under WSL" in finding.reason and "libhsa-runtime64" in finding.fix


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1100", "rocm=6.4.1", WSL),  # no torch: nothing bundles a runtime
        ("arch=gfx1100", "torch=2.5.1+rocm6.2", "os=Linux 6.6.87.1-generic"),  # not WSL
    ],
)
def test_wsl_without_a_rocm_torch_or_without_wsl_says_nothing(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_a_wsl_kernel_is_never_judged_by_its_amdkfd() -> None:
    # WSL's 5.15 kernel has no amdgpu at all: its version says nothing about the GPU's KFD support
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1100", "os=Linux 5.15.153.1-microsoft-standard-WSL2"])
    assert rocm_kernel.is_wsl(env)
    assert [f for f in evaluate(env) if f.check == rocm_driver.ID] == []


# ---- the failures users see ----------------------------------------------------------------------
# (message as the report quotes it, source): ROCm failing for its kernel driver (missing, unbuilt for
# the running kernel, no KFD for the GPU, WSL without the WSL runtime). Quoted verbatim.
REPORTED: list[tuple[str, str]] = [
    (
        "RuntimeError: No HIP GPUs are available",
        "https://github.com/pytorch/pytorch/issues/70036",
    ),
    (
        "RuntimeError: HIP error: hipErrorNoDevice",
        "https://github.com/pytorch/pytorch/issues/70036",
    ),
    (
        "“RuntimeError: No HIP GPUs are available” for ComfuUI",
        "https://github.com/ROCm/legacy-rocm-build/issues/4866",
    ),
    (
        "Upon installing ROCm and PyTorch, the system reports that 'No HIP GPUs are available'.",
        "https://github.com/ROCm/legacy-rocm-build/issues/5866",
    ),
    (  # torch 2.8.0.dev20250529+rocm6.4 under WSL2 (Linux-6.6.87.1-microsoft-standard-WSL2), RX 7900 XT
        "“RuntimeError: No HIP GPUs are available” for ComfuUI。",
        "https://github.com/ROCm/legacy-rocm-build/issues/4864",
    ),
    (  # pytorch.org's +rocm wheel under WSL (AMD's WSL steps not followed)
        "hipErrorNoDevice error when printing `torch.cuda.is_available()`",
        "https://github.com/ROCm/hip/issues/3710",
    ),
    (
        "Ubuntu 22.10 ROCk module is NOT loaded, possibly no GPU devices",
        "https://github.com/ROCm/legacy-rocm-build/issues/1850",
    ),
    (
        "hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-1.9/rocminfo/"
        "rocminfo.cc. Call returned 4104",
        "https://github.com/ROCm/legacy-rocm-build/issues/624",
    ),
    # amdgpu-dkms not building for the running kernel (dkms' own lines, then its log's path)
    (
        "Error! Bad return status for module build on kernel: 6.14.0-24-generic (x86_64)\n"
        "Consult /var/lib/dkms/amdgpu/6.12.12-2164967.24.04/build/make.log for more information.",
        "https://github.com/ROCm/amdgpu/issues/192",
    ),
    (
        "installed amdgpu-dkms package post-installation script subprocess returned error exit status 10",
        "https://github.com/ROCm/amdgpu/issues/192",
    ),
    (
        "Error! Bad return status for module build on kernel: 4.17.0-041700-generic (x86_64)\n"
        "Consult /var/lib/dkms/amdgpu/1.9-211/build/make.log for more information.",
        "https://github.com/ROCm/legacy-rocm-build/issues/546",
    ),
    (
        "Error! Bad return status for module build on kernel: 5.8.0-43-generic (x86_64)\n"
        "Consult /var/lib/dkms/amdgpu/4.0-23/build/make.log for more information.",
        "https://github.com/ROCm/legacy-rocm-build/issues/1375",
    ),
    (
        "Error! Bad return status for module build on kernel: 4.15.0-24-generic (x86_64)\n"
        "Consult /var/lib/dkms/amdgpu/1.8-151/build/make.log for more information.",
        "https://github.com/ROCm/legacy-rocm-build/issues/449",
    ),
    (
        "Error! Bad return status for module build on kernel: 4.19.0-kali1-amd64 (amd64)\n"
        "Consult /var/lib/dkms/amdgpu/2.0-89/build/make.log for more information.",
        "https://github.com/ROCm/legacy-rocm-build/issues/696",
    ),
    (  # the DKMS log's first line names the module
        "DKMS make.log for amdgpu-3.8-30 for kernel 5.9.2-arch1-1 (x86_64)",
        "https://github.com/rocm-arch/rocm-arch/issues/462",
    ),
    (
        "WARNING: amdgpu dkms failed for running kernel",
        "https://github.com/ROCm/legacy-rocm-build/issues/2155",
    ),
    # an amdkfd without an entry for the GPU (GC 10.3.7 before its entries were added)
    (
        "kfd kfd: amdgpu: GC IP 0a0307 not supported in kfd",
        "https://git.zx2c4.com/linux-dev/commit/?id=7c4f4f197e0c5c93a70329627f17fcc5883f3593",
    ),
    # Linux 5.15's amdkfd on a GPU it has no entry for (kgd2kfd_probe's dev_err, at v5.15)
    (
        'dev_err(kfd_device, "%s %s not supported in kfd\\n",',
        "https://git.zx2c4.com/linux-dev/diff/?id=aa5e899de1dd8d91f4881d0bf533e2302f925973",
    ),
]


@pytest.mark.parametrize(("message", "source"), REPORTED, ids=[f"report-{i}" for i in range(len(REPORTED))])
def test_the_signature_predicts_the_reported_driver_failures(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert re.search(rocm_driver.PREDICTS, message) is not None


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: HIP error: invalid device function",  # code for another arch
        "rocBLAS error: Could not initialize Tensile library",
        "Segmentation fault (core dumped)",
        "RuntimeError: HIP error: out of memory",
        "ValueError: a genuinely different regression",
    ],
)
def test_the_signature_leaves_other_failures_alone(message: str) -> None:
    assert re.search(rocm_driver.PREDICTS, message) is None


def test_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx1100", "torch=2.5.1+rocm6.2", "driver=5.15.0-91-generic")
    predicted, unrelated = predicted_and_unrelated(pytester, "RuntimeError: No HIP GPUs are available", stack)
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == rocm_driver.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(
        f"{rocm_driver.ID}: the in-kernel amdgpu of Linux 5.15.0-91-generic has no compute (KFD) support for gfx1100"
    )


def test_under_wsl_the_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(
    pytester: pytest.Pytester,
) -> None:
    stack = ("platform=rocm", "arch=gfx1100", "rocm=6.4.1", "torch=2.8.0.dev20250529+rocm6.4", WSL)
    predicted, unrelated = predicted_and_unrelated(pytester, "RuntimeError: No HIP GPUs are available", stack)
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == rocm_driver.ID
    # an uncertain finding: only its predicted failure confirms it; any other failure stays a plain fail
    assert "rocm_rule" not in unrelated and unrelated.get("rocm_outcome", "fail") == "fail"

"""``rocm-driver-unsupported``'s risk: a stated GPU that needs a recent kernel, on a stack naming no kernel driver."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_driver, rocm_kernel, rocm_kernel_distros
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.checks.rocm_kernel_distros import UBUNTU_SOURCE
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

# The neutral machine a stated stack is replayed on: no GPU, no driver, a Linux without its release
NEUTRAL = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str, base: Environment = NEUTRAL) -> list[Finding]:
    env = apply_overrides(base, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == rocm_driver.ID]


@pytest.mark.parametrize(
    ("arch", "bound"),
    [
        ("gfx1103", "none up to Linux 5.18 for gfx1103"),  # Phoenix APU: GFX11
        ("gfx1151", "none up to Linux 6.7 for gfx1151"),  # Strix Halo
        ("gfx1150", "none up to Linux 6.5 for gfx1150"),
        ("gfx1201", "none up to Linux 5.15 for gfx1201"),  # RDNA4 (a dGPU: in NO_KFD_THROUGH)
        ("gfx942", "none up to Linux 6.3 for gfx942"),  # MI300
        ("gfx1036", "none up to Linux 5.17 for gfx1036"),
    ],
)
def test_a_stated_gpu_that_needs_a_recent_kernel_without_a_driver_is_a_risk(arch: str, bound: str) -> None:
    (finding,) = _found(f"arch={arch}")
    assert finding.uncertain and finding.signature_only and finding.everything
    assert finding.predicts == rocm_kernel.UNSTATED_PREDICTS
    assert bound in finding.reason and "does not say which kernel driver" in finding.reason
    assert finding.link == rocm_kernel.NO_KFD_THROUGH[arch][1]
    assert "driver=" in finding.fix and "amdgpu-install" in finding.fix


@pytest.mark.parametrize("arch", ["gfx90c", "gfx1035"])  # APUs (LLVM's processor table) in 5.15's amdkfd
def test_an_apu_without_a_known_bound_is_a_risk_without_one(arch: str) -> None:
    (finding,) = _found(f"arch={arch}")
    assert finding.uncertain and "none up to" not in finding.reason and arch in finding.reason
    assert finding.link == rocm_kernel.KFD_SOURCE


def test_an_apu_names_amds_ryzen_kernel_requirement_and_a_dgpu_does_not() -> None:
    (apu,) = _found("arch=gfx1151")
    (dgpu,) = _found("arch=gfx1201")
    assert "6.14 OEM kernel (linux-oem-24.04c)" in apu.fix and "OEM kernel (" not in dgpu.fix
    assert rocm_kernel.RYZEN_KERNEL_SOURCE.startswith("https://rocm.docs.amd.com/projects/radeon-ryzen/")


def test_beside_a_gpu_that_needs_no_recent_kernel_only_gpu_tests_are_reached() -> None:
    (finding,) = _found("arch=gfx1103,gfx1030")
    assert not finding.everything and finding.markers == ("gpus",) and "gfx1030" not in finding.reason


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1103", "driver=6.8.0-45-generic"),  # a kernel with GFX11's KFD
        ("arch=gfx1103", "driver=6.8.5"),  # AMD's DKMS driver (ROCm 6.2)
        ("arch=gfx1151", "driver=6.12.12-2133686.22.04"),  # dkms status's form
        ("arch=gfx1103", "os=Linux 6.8.0-45-generic"),  # os names the kernel: the existing rule's business
        ("arch=gfx1103", "os=Windows"),  # HIP SDK on Windows: no amdkfd
        ("arch=gfx1030",),  # RDNA2 dGPU: in every kernel since 5.15 here, not an APU
        ("arch=gfx90a",),
    ],
)
def test_a_stated_driver_or_kernel_or_a_gpu_without_the_dependency_is_no_risk(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_a_stack_that_names_no_os_is_at_risk_too() -> None:
    """Most ROCm stacks run on Linux; one naming no OS states no driver either (an explicit Windows is not judged)."""
    (finding,) = _found("arch=gfx1151", base=Environment(platform="cpu", python="3.11.7"))
    assert finding.uncertain and finding.signature_only and "(nor which OS)" in finding.reason


def test_a_kernel_that_lacks_kfd_stays_the_certain_finding() -> None:
    (finding,) = _found("arch=gfx1103", "driver=5.15.0-91-generic")
    assert not finding.uncertain and not finding.signature_only


def test_a_probed_or_recorded_machine_never_gets_the_risk() -> None:
    """Its GPUs were enumerated through amdkfd, which therefore serves them."""
    gpus = (GPU(0, "AMD Radeon 780M", "gfx1103"),)
    live = Environment(platform="rocm", python="3.12.3", os="Linux", gpus=gpus, torch="2.5.1+rocm6.2")
    recorded = Environment(platform="rocm", python="3.12.3", os="Linux", gpus=gpus, source="replay", origin="m.json")
    for env in (live, recorded):
        assert [f for f in evaluate(env) if f.check == rocm_driver.ID] == []
    # the same machine with its GPU stated is judged
    stated = apply_overrides(recorded, ["arch=gfx1103"])
    assert [f.uncertain for f in evaluate(stated) if f.check == rocm_driver.ID] == [True]


def test_the_rule_claims_only_its_own_signature_at_risk() -> None:
    (rule,) = [r for r in compile_rules(_found("arch=gfx1103")) if r.id == rocm_driver.ID]
    assert rule.at_risk and rule.signature is not None
    assert rule.signature.pattern == rocm_kernel.UNSTATED_PREDICTS


HIP_ERROR = "https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp"
# a Blender render on a W7900 (ROCm 6.0.0): a fault in running code, as users quote it
FAULT = (
    "Memory access fault by GPU node-1 (Agent handle: 0x7c1aea898400) on address 0x5fd000. "
    "Reason: Page not present or supervisor privilege."
)

# ---- the failures users see ----------------------------------------------------------------------
# (message as the report quotes it, source): ROCm failing at the kernel-driver level. Quoted verbatim
# (a report's lines joined by "\n").
REPORTED: list[tuple[str, str]] = [
    (  # gfx1152 APU (Radeon 840M) on kernels 6.17-7.0
        "rocminfo fails with HSA_STATUS_ERROR: A generic error has occurred on gfx1152",
        "https://github.com/ROCm/TheRock/issues/7952",
    ),
    (
        "ROCk module version 6.10.5 is loaded\n"
        "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1282",
        "https://github.com/ROCm/legacy-rocm-build/issues/4382",
    ),
    (
        "hsa api call failure at: /build/rocminfo/src/rocminfo-rocm-5.3.0/rocminfo.cc:1148",
        "https://github.com/rocm-arch/rocm-arch/issues/901",
    ),
    (  # Debian 10, kernel 4.19.0-8-amd64 (its in-kernel amdgpu), RX 550
        "hsa api call failure at: /data/jenkins-workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\n"
        "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
        "This error may also occur when the core runtime library needs to spawn threads or create internal "
        "OS-specific events.",
        "https://github.com/ROCm/legacy-rocm-build/issues/1104",
    ),
    (  # WSL without ROCm's WSL runtime
        "hsa api call failure at: /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_"
        "profiles/src/rocminfo/rocminfo.cc:1306",
        "https://github.com/ROCm/legacy-rocm-build/issues/5106",
    ),
    (
        'openat(AT_FDCWD, "/dev/kfd", O_RDWR|O_CLOEXEC) = -1 ENOMEM (Cannot allocate memory)',
        "https://github.com/ROCm/legacy-rocm-build/issues/1088",
    ),
    (
        "Unable to open /dev/kfd read-write: Cannot allocate memory",
        "https://github.com/ROCm/rocminfo/issues/41",
    ),
    (  # a Raven Ridge APU (gfx902) beside an RX 550, kernel 5.7.13
        "Unable to open /dev/kfd read-write: Operation not permitted",
        "https://github.com/ROCm/rocminfo/issues/37",
    ),
    (
        "ROCk module version 6.7.0 is loaded\nUnable to open /dev/kfd read-write: Invalid argument",
        "https://github.com/ROCm/legacy-rocm-build/issues/4043",
    ),
    (
        "Ubuntu 22.10 ROCk module is NOT loaded, possibly no GPU devices",
        "https://github.com/ROCm/legacy-rocm-build/issues/1850",
    ),
    ("RuntimeError: No HIP GPUs are available", "https://github.com/pytorch/pytorch/issues/70036"),
    ("RuntimeError: HIP error: hipErrorNoDevice", "https://github.com/pytorch/pytorch/issues/70036"),
    # hipGetErrorName/hipGetErrorString of the two driver codes (rocm_driver's hip_error.cpp)
    ("no ROCm-capable device is detected", HIP_ERROR),
    (
        "driver version is insufficient for runtime version",
        HIP_ERROR,
    ),
    (
        "hipErrorInsufficientDriver",
        HIP_ERROR,
    ),
]


@pytest.mark.parametrize(("message", "source"), REPORTED, ids=[f"report-{i}" for i in range(len(REPORTED))])
def test_the_risk_predicts_the_reported_driver_level_failures(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, message) is not None


@pytest.mark.parametrize(
    ("message", "source"),
    [
        # faults and hangs in running code, and code for another arch: not a missing driver
        (FAULT, "https://github.com/ROCm/ROCm/issues/2930"),
        (
            "[Issue]: ROCm 7.11 with Strix Point (gfx1151) results in HSA_STATUS_ERROR_INVALID_CODE_OBJECT "
            "(Invalid Kernel Image) on Llama.cpp",
            "https://github.com/ROCm/legacy-rocm-build/issues/6042",
        ),
        ("HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "hsa.h"),
        ("HSA_STATUS_ERROR_EXCEPTION", "hsa.h"),
        # a kernel asking for more VGPRs than the GPU has: the code, on a loaded driver (an RX 7600, Ubuntu 22.04)
        (
            "HSA_STATUS_ERROR_OUT_OF_REGISTERS: Kernel has requested more VGPRs than are available on this agent",
            "https://github.com/cubiq/ComfyUI_InstantID/issues/71",
        ),
        ("RuntimeError: HIP error: invalid device function", "library-min-arch"),
        ("Segmentation fault (core dumped)", "any crash"),
        ("amdgpu: GPU Hang", "a hang"),
        ("CUDA driver version is insufficient for CUDA runtime version", "cuda"),
    ],
)
def test_the_risk_leaves_faults_hangs_and_code_errors_alone(message: str, source: str) -> None:
    assert source
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, message) is None


# ---- both ways through pytest --------------------------------------------------------------------
STACK = ("platform=rocm", "arch=gfx1103")


def test_a_driver_level_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    message = "rocminfo fails with HSA_STATUS_ERROR: A generic error has occurred on gfx1152"  # TheRock#7952
    predicted, unrelated = predicted_and_unrelated(pytester, message, STACK, env=NEUTRAL)
    assert predicted["rocm_rule"] == rocm_driver.ID
    assert "rocm_rule" not in unrelated and unrelated.get("rocm_outcome", "fail") == "fail"


def test_a_memory_fault_is_not_claimed_by_the_risk(pytester: pytest.Pytester) -> None:
    cases = run_cases(pytester, FAULT, STACK, env=NEUTRAL)
    assert cases["test_predicted"].get("rocm_outcome", "fail") == "fail"
    assert cases["test_predicted"].get("rocm_rule") != rocm_driver.ID


def test_a_stated_kernel_driver_leaves_the_driver_level_failure_a_failure(pytester: pytest.Pytester) -> None:
    cases = run_cases(pytester, "RuntimeError: No HIP GPUs are available", (*STACK, "driver=6.8.0-45-generic"),
                      env=NEUTRAL)  # fmt: skip
    assert cases["test_predicted"].get("rocm_rule") != rocm_driver.ID


# ---- an os naming a distribution release ---------------------------------------------------------
def _on(os_text: str, *stack: str) -> list[Finding]:
    return _found(*stack, base=Environment(platform="cpu", python="3.11.7", os=os_text))


@pytest.mark.parametrize(
    ("os_text", "arch", "shown"),
    [
        ("Ubuntu 20.04", "gfx1100", "Linux 5.15 (the newest kernel series of Ubuntu 20.04)"),  # 5.15 HWE
        ("Ubuntu 20.04.6 LTS", "gfx942", "support for gfx942 (none up to Linux 6.3)"),
        ("Ubuntu 18.04", "gfx1036", "Linux 5.4 (the newest kernel series of Ubuntu 18.04)"),
        ("Ubuntu 22.04.3 LTS", "gfx1152", "Linux 6.8 (the newest kernel series of Ubuntu 22.04)"),  # 6.8 HWE
    ],
)
def test_a_release_whose_newest_kernel_lacks_kfd_is_uncertain(os_text: str, arch: str, shown: str) -> None:
    (finding,) = _on(os_text, f"arch={arch}")
    assert finding.uncertain and finding.signature_only and shown in finding.reason
    assert finding.link == rocm_kernel.NO_KFD_THROUGH[arch][1] and "amdgpu-install" in finding.fix


@pytest.mark.parametrize(
    ("os_text", "arch"),
    [
        ("Ubuntu 24.04", "gfx1100"),  # GA 6.8 already has GFX11's KFD
        ("Ubuntu 24.04.1 LTS", "gfx942"),  # 6.8 > 6.3
        ("Debian 12", "gfx1100"),  # not tabled, and not recorded as Linux: nothing
        ("Ubuntu 20.04", "gfx1030"),
    ],
)
def test_a_release_with_a_kernel_serving_the_gpu_or_an_untabled_one_says_nothing(os_text: str, arch: str) -> None:
    assert _on(os_text, f"arch={arch}") == []


@pytest.mark.parametrize(
    ("os_text", "arch"),
    [
        ("Ubuntu 22.04", "gfx1100"),  # 6.8 HWE has GFX11's KFD, the GA 5.15 not: which one runs is not said
        ("Ubuntu 22.04.5 LTS (Jammy Jellyfish)", "gfx1151"),  # 6.8 > 6.7, GA 5.15 not (and an APU)
        ("Ubuntu 24.04", "gfx1152"),  # HWE up to 7.0, GA 6.8 <= 6.9
    ],
)
def test_a_release_whose_kernels_differ_for_the_gpu_is_the_no_driver_risk(os_text: str, arch: str) -> None:
    (finding,) = _on(os_text, f"arch={arch}")
    assert finding.uncertain and finding.signature_only and "does not say which kernel driver" in finding.reason


def test_a_distribution_through_rocm_set_is_judged_as_stated() -> None:
    """``--rocm-set os=Ubuntu 20.04`` records ``Linux ubuntu-20.04``: the release table still applies."""
    (finding,) = _found("os=Ubuntu 20.04", "arch=gfx1100")
    assert finding.uncertain and finding.signature_only and "Ubuntu 20.04" in finding.reason
    assert _found("os=Ubuntu 24.04", "arch=gfx1100") == []


def test_a_stated_driver_beats_the_release() -> None:
    assert _on("Ubuntu 20.04", "arch=gfx1100", "driver=6.8.5") == []  # AMD's DKMS driver (ROCm 6.2)


def test_the_release_table() -> None:
    assert rocm_kernel_distros.release_of("Ubuntu 22.04.3 LTS") == ("ubuntu", "22.04")
    assert rocm_kernel_distros.release_of("Linux 5.15.0-91-generic") is None
    assert rocm_kernel_distros.release_of("Linux ubuntu-22.04.3") == ("ubuntu", "22.04")  # --rocm-set's record
    assert rocm_kernel_distros.kernels("Ubuntu 22.04") == ("Ubuntu 22.04", (5, 15), (6, 8), UBUNTU_SOURCE)
    assert rocm_kernel_distros.kernels("Ubuntu 26.04") is None  # not tabled


def test_on_a_release_the_driver_failure_is_known_bad_and_an_unrelated_one_stays_fail(
    pytester: pytest.Pytester,
) -> None:
    base = Environment(platform="cpu", python="3.11.7", os="Ubuntu 20.04")
    predicted, unrelated = predicted_and_unrelated(
        pytester, "RuntimeError: No HIP GPUs are available", ("platform=rocm", "arch=gfx1100"), env=base
    )
    assert predicted["rocm_rule"] == rocm_driver.ID
    assert "rocm_rule" not in unrelated and unrelated.get("rocm_outcome", "fail") == "fail"


def test_on_a_release_only_driver_level_failures_are_claimed() -> None:
    """The release-bounded finding is as uncertain as the risk (AMD's DKMS driver may serve the GPU): a fault
    or a hang in a test is not evidence of the missing in-kernel driver."""
    (finding,) = _on("Ubuntu 20.04", "arch=gfx1100")
    assert finding.signature_only and finding.predicts == rocm_kernel.UNSTATED_PREDICTS
    assert re.search(finding.predicts, FAULT) is None

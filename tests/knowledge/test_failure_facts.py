"""knowledge.failure_facts: the GPU processor a failure's text names, from the libraries' own messages."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.failure_facts import (
    amdgpu_driver_named,
    gpu_arch_named,
    rocm_release_named,
)


@pytest.mark.parametrize(
    ("text", "arch"),
    [
        # rocBLAS' Tensile loader (tensile_host.cpp) and its no-code-object warning
        (
            "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: "
            "No such file or directory for GPU arch : gfx1031",
            "gfx1031",
        ),
        (
            "rocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx1032*co. Make sure that "
            "ROCBLAS_TENSILE_LIBPATH is set correctly.",
            "gfx1032",
        ),
        # the HIP runtime: hip_fatbin.cpp, and hipErrorNoBinaryForGpu's device list (hip_code_object.cpp)
        (
            ":1:hip_fatbin.cpp           :536 : 95859869688 us:  No compatible code objects found for: gfx1030, "
            "value of HIP_FORCE_SPIRV_CODEOBJECT: 0",
            "gfx1030",
        ),
        (
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n  Devices:\n"
            "    amdgcn-amd-amdhsa--gfx1010:xnack- - [Not Found]\n  Bundled Code Objects:\n"
            "    host-x86_64-unknown-linux - [Unsupported]\n    hipv4-amdgcn-amd-amdhsa--gfx900 - [code object v4 is amdgcn-amd-amdhsa--gfx900]",
            "gfx1010",
        ),
        # the same device list at AMD_LOG_LEVEL=3, ROCm 5.2 with HSA_OVERRIDE_GFX_VERSION=10.3.0 naming the
        # overridden processor (https://github.com/ROCm/ROCm/issues/1180)
        (
            ":1:hip_code_object.cpp      :464 : 59032132347 us: 215311: [tid:0x7fcf63de6880]     "
            "amdgcn-amd-amdhsa--gfx1030 - [Not Found]",
            "gfx1030",
        ),
        # rocBLAS 3.5-5.1's warning on a gfx1031 (https://github.com/JuliaGPU/AMDGPU.jl/issues/314)
        (
            "rocBLAS warning: No paths matched /home/leios/.julia/artifacts/1fd1782850f6482c5bdbeec69cb3d1e43d949a3c/"
            "lib/rocblas/library/*gfx1031*co. Make sure that ROCBLAS_TENSILE_LIBPATH is set correctly.",
            "gfx1031",
        ),
        # TensorFlow dropping a GPU of a processor its build lacks (https://github.com/xuhuisheng/rocm-gfx803/issues/33)
        (
            "2023-07-24 11:06:52.592658: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2011] Ignoring visible "
            "gpu device (device: 0, name: Radeon RX 590 Series, pci bus id: 0000:07:00.0) with AMDGPU version : "
            "gfx803. The supported AMDGPU versions are gfx1030, gfx900, gfx906, gfx908, gfx90a.",
            "gfx803",
        ),
        ("ValueError: Unknown GPU architecture: gfx1151. Supported architectures: gfx942, gfx950", "gfx1151"),
        ("RCCL: unsupported architecture (gfx1103) for collective AllReduce", "gfx1103"),
        (
            "None of the detected ROCm architectures: gfx1031 is supported. Supported ROCm architectures are: gfx906",
            "gfx1031",
        ),
        # torch's capability warnings
        (
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation.",
            "sm_120",
        ),
        ("Found GPU0 Tesla K80 which is of cuda capability 3.7.", "sm_37"),
        ("Found GPU0 NVIDIA GeForce RTX 5080 which is of compute capability (CC) 12.0.", "sm_120"),
    ],
)
def test_the_processor_the_failure_names(text: str, arch: str) -> None:
    assert gpu_arch_named(text) == arch


@pytest.mark.parametrize(
    "text",
    [
        "HIP error: invalid device function",  # names none
        "Supported ROCm architectures are: gfx906;gfx908;gfx90a",  # a build's list, not the GPU
        "None of the detected ROCm architectures: gfx1030;gfx1031 is supported",  # two detected: no single GPU
        # two processors named (a multi-GPU host): no fact
        "for GPU arch : gfx1030\nfor GPU arch : gfx1100",
        "The minimum cuda capability supported by this library is 3.7",
        "compiled for gfx1100 and gfx1101",
    ],
)
def test_no_single_processor_no_fact(text: str) -> None:
    assert gpu_arch_named(text) is None


def test_the_same_processor_named_twice_is_one_fact() -> None:
    text = "No compatible code objects found for: gfx1031\nrocBLAS ... for GPU arch : gfx1031"
    assert gpu_arch_named(text) == "gfx1031"


@pytest.mark.parametrize(
    ("text", "release"),
    [
        ("rocBLAS error: Cannot read /opt/rocm-5.7.1/lib/rocblas/library/TensileLibrary.dat: No such file", "5.7.1"),
        ("ROCM_PATH=/opt/rocm-6.0.2 hipcc: error", "6.0.2"),
        ("'C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\clang.exe' failed", "6.2"),
        ("/opt/rocm-6.2.0/lib/libamdhip64.so and /opt/rocm-6.2.0/lib/librocblas.so", "6.2.0"),  # one release, twice
    ],
)
def test_the_release_the_failure_s_paths_name(text: str, release: str) -> None:
    assert rocm_release_named(text) == release


@pytest.mark.parametrize(
    "text",
    [
        "/opt/rocm/lib/librocblas.so",  # the unversioned link
        "/opt/rocm-6.2.0/lib and /opt/rocm-6.1.0/lib",  # two installs named
        "/opt/rocm-6.2.0-56789/lib",  # not the release directory's form
    ],
)
def test_no_single_release_no_fact(text: str) -> None:
    assert rocm_release_named(text) is None


@pytest.mark.parametrize(
    ("text", "driver"),
    [
        ("ROCk module version 6.8.5 is loaded", "6.8.5"),  # rocminfo
        ("[    3.211] [drm] amdgpu version: 6.16.6", "6.16.6"),  # the kernel log of ROCm 7.1.1's driver
        ("amdgpu/6.8.5-2009582.22.04, 6.5.0-14-generic, x86_64: installed", "6.8.5"),  # dkms status
        ("[    0.000000] Linux version 6.5.0-14-generic (buildd@lcy02-amd64-110)", "6.5.0-14-generic"),
        (
            "Linux gpu-box 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024",
            "6.8.0-45-generic",
        ),
        # the driver's own line wins over the kernel it runs on
        ("Linux version 6.5.0-14-generic\nROCk module version 6.3.6 is loaded", "6.3.6"),
    ],
)
def test_the_driver_the_failure_names(text: str, driver: str) -> None:
    assert amdgpu_driver_named(text) == driver


@pytest.mark.parametrize(
    "text",
    [
        "ROCk module is loaded",  # no version
        "ROCk module version 6.8.5 is loaded\nROCk module version 6.3.6 is loaded",  # two
        "/lib/modules/6.5.0-14-generic/updates/dkms/amdgpu.ko",  # a path
    ],
)
def test_no_single_driver_no_fact(text: str) -> None:
    assert amdgpu_driver_named(text) is None

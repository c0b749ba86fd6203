"""A check never hides a different failure (issue 25, item 6).

Each built-in check predicts the failures of the class it finds (``PREDICTS``, a signature like a
known-bad rule's). Its predicted failure ends ``known-bad``; any other failure of a test it reaches
stays ``fail``, with the check's stack problem attached as the likely cause (JUnit
``rocm_diagnosis``, or the note when the failure text names its own diagnosis). Every signature
is matched against messages quoted verbatim from the public reports named beside them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_rocmcompat.knowledge.checks import registry
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate, likely_cause
from pytest_rocmcompat.knowledge.gpu_refusals import refusing
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA

H100 = Environment.load(str(DATA / "env_h100_archs.json"))  # torch 2.11.0+cu130, Python 3.12.3, CUDA 13.0 driver
UNRELATED = 'raise ValueError("a genuinely different regression")'

# (check id, message as the source quotes it, source). Where a source wraps the message over
# lines, it is quoted as one line; nothing else is changed.
VERBATIM: list[tuple[str, str, str]] = [
    # arch-not-in-build, twenty-sixth round: the HIP runtime's, rocBLAS', hipBLASLt's and the assembler's texts
    (
        "arch-not-in-build",
        ":1:hip_fatbin.cpp           :536 : 95859869688 us:  No compatible code objects found for: gfx1030, value of "
        "HIP_FORCE_SPIRV_CODEOBJECT: 0",
        "https://github.com/ROCm/MIVisionX/issues/1437",
    ),
    (
        "arch-not-in-build",
        "rocblaslt error: Could not initialize Tensile host:",
        "https://github.com/ROCm/hipBLASLt/issues/831",
    ),
    (
        "arch-not-in-build",
        "rocBLAS error: Could not initialize Tensile host:",
        "https://github.com/CS1o/Stable-Diffusion-Info/issues/6",
    ),
    ("arch-not-in-build", "Illegal seek for GPU arch : gfx1103", "https://github.com/ROCm/ROCm/issues/2719"),
    (
        "arch-not-in-build",
        "hipModuleLoad failed: Kernels.so-000-gfx906.hsaco",
        "https://github.com/ROCm/TheRock/issues/6175",
    ),
    (
        "arch-not-in-build",
        "<instantiation>:4:3: error: instruction not supported on this GPU",
        "https://github.com/ROCm/MIOpen/issues/117",
    ),
    # wheel-needs-newer-glibc: a build for glibc 2.28 on Ubuntu 18.04 (2.27); more in test_wheel_glibc.py
    (
        "wheel-needs-newer-glibc",
        "./libtorch_cpu.so: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.28' not found (required by "
        "./libtorch_cpu.so)",
        "https://github.com/pytorch/pytorch/issues/129555",
    ),
    # nccl-lacks-symbol: torch 2.2's wheel (NCCL 2.19's registration API) loading an older libnccl.so.2
    (
        "nccl-lacks-symbol",
        "ImportError: /root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: "
        "undefined symbol: ncclCommRegister",
        "https://github.com/THU-MIG/yolov10/issues/306",
    ),
    # pypi-namesake: PyPI's apex (a Pyramid toolkit) imported for NVIDIA's apex.amp; more in test_pypi_namesake.py
    (
        "apex-rocm-build",
        "ModuleNotFoundError: No module named 'fused_layer_norm_cuda'",
        "https://github.com/NVIDIA/apex/issues/499",
    ),
    (
        "apex-rocm-build",
        'raise RuntimeError("--cuda_ext was requested, but nvcc was not found.  Are you sure your environment has nvcc '
        "available?  If you're installing within a container from https://hub.docker.com/r/pytorch/pytorch, only images "
        "whose names contain 'devel' will provide nvcc.\")",
        "https://github.com/NVIDIA/apex/blob/fedfe0d7159711198a77ca1a6ba8cc20d665ddce/setup.py#L40",
    ),
    (
        "pypi-namesake",
        "TypeError: Class advice impossible in Python3.  Use the @implementer class decorator instead.",
        "https://github.com/hukkelas/DeepPrivacy/issues/7",
    ),
    # deepspeed-rocm-ops: DeepSpeed 0.9.3 in a ROCm 5.5 container whose torch names no ROCm; more in test_deepspeed_rocm.py
    (
        "deepspeed-rocm-ops",
        "AssertionError: Could not detect ROCm version",
        "https://github.com/deepspeedai/DeepSpeed/issues/3715",
    ),
    # triton-rocm-linker-missing: PyPI's Triton 3.3 on a TheRock (wheel-only ROCm) toolbox; more in test_triton_rocm_linker.py
    (
        "triton-rocm-linker-missing",
        "Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found. Set 'TRITON_HIP_LLD_PATH' to its path.",
        "https://github.com/kyuz0/amd-strix-halo-voice-toolbox/issues/1",
    ),
    # nccl-nvls-init: NCCL 2.26.2 on 8x H100, NVLS multicast set-up failing in init; more in test_nccl_nvls.py
    (
        "nccl-nvls-init",
        "[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 "
        "'the operation cannot be performed in the present state'",
        "https://github.com/NVIDIA/nccl/issues/1788",
    ),
    # onnxruntime-build-mismatch: two onnxruntime distributions sharing the package; a CUDA 11 build on CUDA 12
    (
        "onnxruntime-build-mismatch",
        "Specified provider ‘CUDAExecutionProvider’ is not in available provider names. Available providers: "
        "‘AzureExecutionProvider, CPUExecutionProvider’",
        "https://github.com/microsoft/onnxruntime/issues/26996",
    ),
    (
        "onnxruntime-build-mismatch",
        "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open "
        "shared object file: No such file or directory",
        "https://github.com/microsoft/onnxruntime/issues/21684",
    ),
    # nccl-not-on-this-os: torch on Windows asked for the nccl backend; more in test_nccl_os.py
    (
        "nccl-not-on-this-os",
        "RuntimeError: Distributed package doesn't have NCCL built in",
        "https://github.com/kennymckormick/pyskl/issues/79",
    ),
    # rocm-wheel-not-for-os: pip on Windows given download.pytorch.org's rocm5.4.2 index; more in test_rocm_wheel_os.py
    (
        "rocm-wheel-not-for-os",
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
        "ERROR: No matching distribution found for torch",
        "https://github.com/RVC-Project/Retrieval-based-Voice-Conversion-WebUI/issues/1658",
    ),
    # amdsmi-binding-mismatch: a 6.4.1+ wrapper on ROCm 6.4.0's library; more in test_amdsmi_binding.py
    (
        "amdsmi-binding-mismatch",
        "AttributeError: /opt/rocm-6.4.0/lib/libamd_smi.so: undefined symbol: amdsmi_get_gpu_busy_percent. Did you "
        "mean: 'amdsmi_get_gpu_fan_speed'?",
        "https://github.com/ROCm/amdsmi/issues/98",
    ),
    # flashinfer-parts-mismatch: a cubin of another release; more in test_flashinfer_parts.py
    (
        "flashinfer-parts-mismatch",
        "RuntimeError: flashinfer-cubin version (0.6.8.post1) does not match flashinfer version (0.6.10). Please "
        "install the same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check.",
        "https://github.com/NVIDIA-NeMo/Export-Deploy/pull/679",
    ),
    # integration-extra-pin: an API of the integrated package its release lacks; more in test_integration_extras.py
    (
        "integration-extra-pin",
        "ImportError: cannot import name 'GuidedDecodingParams' from 'vllm.sampling_params'",
        "https://github.com/davanstrien/uv-scripts-for-ai/issues/14",
    ),
    # torch-cpu-build: a CPU build asked for CUDA; more in test_torch_cpu_build.py (texts a real CPU build prints)
    (
        "torch-cpu-build",
        'raise AssertionError("Torch not compiled with CUDA enabled") AssertionError: Torch not compiled with CUDA '
        "enabled",
        "https://github.com/facebookresearch/detectron2/issues/460",
    ),
    # nvidia-driver-gpu-unsupported: a GeForce GT 710 (Kepler) ignored by 535.129.03; a GPU a release does not list
    # (520.56.06); more in test_nvidia_driver_gpu.py
    (
        "nvidia-driver-gpu-unsupported",
        "NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please",
        "https://github.com/siderolabs/talos/issues/8764",
    ),
    (
        "nvidia-driver-gpu-unsupported",
        "[  +0.000005] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:25a0)\n"
        "              NVRM: installed in this system is not supported by the\n"
        "              NVRM: NVIDIA 520.56.06 driver release.",
        "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/393",
    ),
    # rccl-arch-not-in-release: RCCL 2.7.6 on an RX 5700 XT (gfx1010, in no RCCL list); more in test_rccl_arch.py
    (
        "rccl-arch-not-in-release",
        '/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:92: guarantee(false && "hipErrorNoBinaryForGpu: '
        "Coudn't find binary for current devices!\")",
        "https://github.com/ROCm/rccl/issues/289",
    ),
    # rocm-sdk-family-lacks-arch: TheRock's gfx110X-dgpu packages ("rocm-sdk targets": gfx1100;gfx1101;gfx1102) on a gfx1103
    (
        "rocm-sdk-family-lacks-arch",
        "RuntimeError: HIP error: invalid device function",
        "https://github.com/ROCm/TheRock/issues/1184",
    ),
    # arch-not-in-build
    (
        "arch-not-in-build",
        "CUDA error: no kernel image is available for execution on the device",
        "https://github.com/Comfy-Org/ComfyUI/issues/9650",
    ),
    (
        "arch-not-in-build",
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
        "https://github.com/xorbitsai/inference/issues/3603",
    ),
    (
        "arch-not-in-build",
        "NVIDIA RTX A6000 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.",
        "https://github.com/jiangyzy/GOAE/issues/16",
    ),
    (
        "arch-not-in-build",
        "Found GPU0 NVIDIA GTX TITAN Black which is of cuda capability 3.5. PyTorch no longer supports this GPU "
        "because it is too old. The minimum cuda capability supported by this library is 3.7.",
        "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/3003",
    ),
    (
        "arch-not-in-build",
        "RuntimeError: HIP error: invalid device function\n"
        "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "https://github.com/ROCm/legacy-rocm-build/issues/5668",
    ),
    (
        "arch-not-in-build",
        "HIP error: Invalid device function",
        "https://github.com/ROCm/legacy-rocm-build/issues/5264",
    ),
    (
        "arch-not-in-build",
        "hipLaunchKernel: Returned hipErrorInvalidDeviceFunction : ",
        "https://github.com/ROCm/legacy-rocm-build/issues/2527",
    ),
    (
        "arch-not-in-build",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "https://github.com/ROCm/legacy-rocm-build/issues/1623",
    ),
    (
        "arch-not-in-build",
        "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat: "
        "No such file or directory for GPU arch : gfx1103",
        "https://github.com/brknsoul/ROCmLibs/issues/4",
    ),
    # python-unsupported-by-torch
    (
        "python-unsupported-by-torch",
        "ERROR: could not find a version that satisfies the requirement torch==1.9.1+cu111(from versions 0.1.2, "
        "0.1.2post1, 0.1.2post2\nERROR: No matching distribution found for torch==1.9.1+cu111",
        "https://github.com/pytorch/pytorch/issues/66399",
    ),
    (
        "python-unsupported-by-torch",
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)",
        "https://github.com/pytorch/pytorch/issues/112478",
    ),
    (
        "python-unsupported-by-torch",
        "RuntimeError: Dynamo is not supported on Python 3.12+",
        "https://github.com/jianchang512/ChatTTS-ui/issues/36",
    ),
    # dynamo-python-gate
    (
        "dynamo-python-gate",
        "RuntimeError: Dynamo is not supported on Python 3.12+",
        "https://github.com/jianchang512/ChatTTS-ui/issues/36",
    ),
    (
        "dynamo-python-gate",
        'raise RuntimeError("Python 3.12+ not yet supported for torch.compile")',
        "https://github.com/pytorch/pytorch/blob/v2.1.0/torch/_dynamo/eval_frame.py",
    ),
    (  # torch 2.0/2.1's check_if_dynamo_supported on Windows
        "dynamo-python-gate",
        "RuntimeError: Windows not yet supported for torch.compile",
        "https://github.com/pytorch/pytorch/blob/v2.1.2/torch/_dynamo/eval_frame.py",
    ),
    (  # torch 2.2-2.4's Inductor backend on Windows
        "dynamo-python-gate",
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Windows not yet supported for inductor",
        "https://github.com/pytorch/pytorch/blob/v2.4.1/torch/_dynamo/backends/inductor.py",
    ),
    # requirement-not-met
    (
        "requirement-not-met",
        "vllm 0.7.3 requires torch==2.5.1, but you have torch 2.4.0+cu124 which is incompatible.",
        "https://github.com/hiyouga/EasyR1/issues/27",
    ),
    (
        "requirement-not-met",
        "xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.3.0+cu121)\n    Python  3.10.13 (you have 3.10.12)",
        "https://github.com/deforum/deforum-stable-diffusion/issues/377",
    ),
    (
        "requirement-not-met",
        "RuntimeError: operator torchvision::nms does not exist",
        "https://github.com/vladmandic/sdnext/issues/3531",
    ),
    (
        "requirement-not-met",
        "RuntimeError: Couldn't load custom C++ ops. \nThis can happen if your PyTorch and torchvision versions are "
        "incompatible, or if you had errors while compiling torchvision from source.",
        "https://github.com/Engineer-of-Stuff/stable-diffusion-paperspace/issues/111",
    ),
    (
        "requirement-not-met",
        "AttributeError: module 'torch.library' has no attribute 'custom_op'",
        "https://github.com/huggingface/diffusers/issues/12195",
    ),
    (
        "requirement-not-met",
        "ImportError: cannot import name 'DeviceMesh' from 'torch.distributed'",
        "https://github.com/verl-project/verl/issues/661",
    ),
    (
        "requirement-not-met",
        "Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1",
        "https://github.com/jingyaogong/minimind/issues/588",
    ),
    (
        "requirement-not-met",
        "AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'",
        "https://github.com/vllm-project/vllm/issues/5804",
    ),
    # cuda-newer-than-driver
    (
        "cuda-newer-than-driver",
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11000). "
        "Please update your GPU driver by downloading and installing a new version from the URL: "
        "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch "
        "version that has been compiled with your version of the CUDA driver.",
        "https://github.com/IEIT-Yuan/Yuan-2.0/issues/65",
    ),
    (
        "cuda-newer-than-driver",
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11060). Please update your GPU "
        "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",
        "https://github.com/lllyasviel/Omost/issues/120",
    ),
    (
        "cuda-newer-than-driver",
        "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
        "https://github.com/nagadomi/nunif/issues/702",
    ),
    (
        "cuda-newer-than-driver",
        "RuntimeError: CUDA runtime API error cudaErrorInsufficientDriver (35):\n"
        "CUDA driver version is insufficient for CUDA runtime version",
        "https://github.com/NVIDIA/DeepLearningExamples/issues/251",
    ),
    # extension-built-for-other-torch
    (
        "extension-built-for-other-torch",
        "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
        "https://github.com/Dao-AILab/flash-attention/issues/931",
    ),
    (
        "extension-built-for-other-torch",
        "OSError: /home/dave/miniconda3/envs/ENV/lib/python3.10/site-packages/torch_scatter/_version_cuda.so: "
        "undefined symbol: _ZN3c1017RegisterOperatorsD1Ev",
        "https://github.com/rusty1s/pytorch_scatter/issues/476",
    ),
    (
        "extension-built-for-other-torch",
        "Skipping import of cpp extensions due to incompatible torch version 2.7.1+cu128 for torchao version 0.15.0"
        "             Please see https://github.com/pytorch/ao/issues/2919 for more info",
        "https://github.com/pytorch/ao/issues/3817",
    ),
    (
        "extension-built-for-other-torch",
        "Fatal Python error: Aborted",
        "https://github.com/pytorch/ao/issues/2901",
    ),
    (
        "extension-built-for-other-torch",
        "UserWarning: An issue occurred while importing 'torch-scatter'. Disabling its usage. Stacktrace: "
        "/home/anshal/anaconda3/envs/pointcept/lib/python3.10/site-packages/torch_scatter/_scatter_cuda.so: "
        "undefined symbol: _ZNK3c107SymBool10guard_boolEPKcl",
        "https://github.com/rusty1s/pytorch_scatter/issues/248",
    ),
    (
        "extension-built-for-other-torch",
        "RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions.",
        "https://github.com/pyg-team/pytorch_geometric/issues/4073",
    ),
    (
        "extension-built-for-other-torch",
        "module 'torch' has no attribute 'int1'",
        "https://github.com/benjiyaya/HeartMuLa_ComfyUI/issues/40",
    ),
    (
        "extension-built-for-other-torch",
        "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'",
        "https://github.com/pytorch/ao/issues/1095",
    ),
    (
        "extension-built-for-other-torch",
        "NotImplementedError: Could not run 'torchao::dequantize_tensor_core_tiled_layout' with arguments from the "
        "'CUDA' backend.",
        "https://github.com/pytorch/ao/issues/1981",
    ),
    (
        "extension-built-for-other-torch",
        "RuntimeError: operator torchvision::nms does not exist",
        "https://github.com/vladmandic/sdnext/issues/3531",
    ),
    (
        "extension-built-for-other-torch",
        "AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'",
        "https://github.com/vllm-project/vllm/issues/5804",
    ),
    # bf16-unsupported-arch
    (
        "bf16-unsupported-arch",
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
        "Your Tesla P100-PCIE-16GB GPU has compute capability 6.0.",
        "https://github.com/vllm-project/vllm/issues/1284",
    ),
    (
        "bf16-unsupported-arch",
        "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
        "https://github.com/lm-sys/FastChat/issues/399",
    ),
    (
        "bf16-unsupported-arch",
        "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
        "https://github.com/karpathy/nanoGPT/pull/277",
    ),
    # fp8-format-arch
    (
        "fp8-format-arch",
        "ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')",
        "https://github.com/flagos-ai/FlagTree/issues/1005",
    ),
    (
        "fp8-format-arch",
        "fp8e4nv data type is not supported on CUDA arch < 89",
        "https://github.com/triton-lang/triton/issues/4319",
    ),
    (
        "fp8-format-arch",
        "RuntimeError: torch._scaled_mm is only supported on devices with compute capability >= 9.0)",
        "https://github.com/pytorch/pytorch/issues/118703",
    ),
    (
        "fp8-format-arch",
        # IREE's validateDataTypes, as MLIR's emitOpError prints it ("'<op>' op <message>")
        "error: 'arith.truncf' op F8E5M2FNUZ and F8E4M3FNUZ types are not supported on non-gfx942 "
        "(MI-300) chipsets; try F8E5M2 or F8E4M3FN instead.",
        "https://github.com/iree-org/iree/blob/main/compiler/src/iree/compiler/Codegen/LLVMGPU/ConvertToROCDL.cpp",
    ),
    # fp8-format-arch: torch._scaled_mm's arch gate and FNUZ/OCP operand checks on ROCm, AITER's and
    # flash-attn's fp8 refusals
    (
        "fp8-format-arch",
        "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, "
        "or ROCm MI300+",
        "https://github.com/kijai/ComfyUI-CogVideoXWrapper/issues/40",
    ),
    (
        "fp8-format-arch",
        '"Expected b.dtype() == at::kFloat8_e4m3fnuz, got: ", b.dtype());',
        "https://github.com/pytorch/pytorch/blob/0174dfabc023f11a8f78c79c301b49c8d7e02c8b/aten/src/ATen/native/cuda/ScaledBlas.cpp",
    ),
    (
        "fp8-format-arch",
        '"expected mat_b.dtype() to be at::kFloat8_e4m3fn, but got ", mat_b.dtype());',
        "https://github.com/pytorch/pytorch/blob/0174dfabc023f11a8f78c79c301b49c8d7e02c8b/aten/src/ATen/native/cuda/ScaledBlas.cpp",
    ),
    (
        "fp8-format-arch",
        '"Block-wise scaling for Float8_e8m0fnu is only supported on ",',
        "https://github.com/pytorch/pytorch/blob/0174dfabc023f11a8f78c79c301b49c8d7e02c8b/aten/src/ATen/native/cuda/ScaledBlas.cpp",
    ),
    (
        "fp8-format-arch",
        "RuntimeError: gfx1200 does not support FP8",
        "https://github.com/ROCm/aiter/pull/2621",
    ),
    (
        "fp8-format-arch",
        'raise RuntimeError("This device does not support fp8")',
        "https://github.com/ROCm/aiter/blob/e4048607a535ace3a2b51ded31b1c8c2d45c0879/aiter/ops/triton/utils/types.py#L84",
    ),
    (
        "fp8-format-arch",
        'assert arch // 10 == 10, "FP8 is only supported on SM100 (compute capability 10.x) for FA4 CuTe."',
        "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn/cute/interface.py#L765",
    ),
    # hsa-override-invalid
    (
        "hsa-override-invalid",
        "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f",
        "https://github.com/ROCm/legacy-rocm-build/issues/3054",
    ),
    (
        "hsa-override-invalid",
        "Memory access fault by GPU node-1 on address (nil). Reason: Page not present or supervisor privilege.",
        "https://github.com/bigattichouse/worldmodel/blob/2ca5b27b04ee4e5c3e5cb3f5aa513448eeda747f/docs/rocm_troubleshooting.md",
    ),
    (
        "hsa-override-invalid",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "https://github.com/ROCm/legacy-rocm-build/issues/2061",
    ),
    # library-min-arch
    (
        "library-min-arch",
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
        "https://github.com/microsoft/MInference/issues/51",
    ),
    (
        "library-min-arch",
        "gfx1100 is invalid or not supported by Flash-Attention",
        "https://github.com/ROCm/flash-attention/issues/93",
    ),
    (
        "library-min-arch",
        "RuntimeError: GPUs with compute capability below 7.0 are not supported.",
        "https://github.com/vllm-project/vllm/issues/1284",
    ),
    # requirement-not-met: pip's resolver report (quoted in the pull request that extended it)
    (
        "requirement-not-met",
        "The conflict is caused by:\n    nucliadb 6.4.0.post4192 depends on lru-dict>=1.1.7",
        "https://github.com/pypa/pip/pull/13588",
    ),
    # bitsandbytes-rocm-build: bitsandbytes' own messages (its source at the tag) and a report
    (
        "bitsandbytes-rocm-build",
        "The installed version of bitsandbytes was compiled without GPU support. "
        "8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.43.3/bitsandbytes/cextension.py",
    ),
    (
        "bitsandbytes-rocm-build",
        "CUDA Setup failed despite GPU being available. Please run the following command to get more information:",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.41.0/bitsandbytes/cextension.py",
    ),
    (
        "bitsandbytes-rocm-build",
        "bitsandbytes library load error: Configured ROCm binary not found at "
        "/home/fed/invokeaiapp/.venv/lib/python3.12/site-packages/bitsandbytes/libbits",
        "https://github.com/invoke-ai/InvokeAI/issues/8655",
    ),
    # rocm-driver-unsupported: the issue title (no usable kernel driver for the ROCm user space)
    (
        "rocm-driver-unsupported",
        "ROCk module is NOT loaded, possibly no GPU devices",
        "https://github.com/ROCm/ROCm/issues/1626",
    ),
    (
        "rocm-driver-unsupported",
        "hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-1.8/rocminfo/"
        "rocminfo.cc. Call returned 4104",
        "https://github.com/ROCm/legacy-rocm-build/issues/415",
    ),
    (
        "rocm-driver-unsupported",
        "amdgpu 0000:23:00.0: kfd not supported on this ASIC",
        "https://github.com/M-Bab/linux-kernel-amdgpu-binaries/issues/30",
    ),
    (
        "rocm-driver-unsupported",
        'return "hipErrorInsufficientDriver";',
        "https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp",
    ),
    # requirement-not-met: transformers' run-time version check (utils/versions.py require_version)
    (
        "requirement-not-met",
        "ImportError: deepspeed>=0.9.3 is required for a normal functioning of this module, but found deepspeed==0.8.3.",
        "https://github.com/databrickslabs/dolly/issues/209",
    ),
    # requirement-not-met: a line of pip's conflict report (pip's resolvelib/factory.py builds it)
    (
        "requirement-not-met",
        "vllm 0.5.4 depends on torch==2.4.0",
        "https://github.com/NineAbyss/S2R/issues/2",
    ),
    # rocblas-arch-not-in-release: rocBLAS' own messages (tensile_host.cpp), as users quote them
    (
        "rocblas-arch-not-in-release",
        "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat: "
        "No such file or directory for GPU arch : gfx1103",
        "https://github.com/brknsoul/ROCmLibs/issues/4",
    ),
    (
        "rocblas-arch-not-in-release",
        "rocBLAS error: Could not load C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary_lazy_gfx1103.dat",
        "https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12",
    ),
    (
        "rocblas-arch-not-in-release",
        "Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\/rocblas/library/TensileLibrary.dat: "
        "No such file or directory for GPU arch : gfx1201",
        "https://github.com/githubcto/FramePack-ZLUDA/issues/4",
    ),
    (
        "rocblas-arch-not-in-release",
        "rocBLAS error: Could not initialize Tensile library",
        "https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12",
    ),
    # rocm-gpu-unsupported
    (
        "rocm-gpu-unsupported",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "https://github.com/ROCm/legacy-rocm-build/issues/1623",
    ),
    (
        "rocm-gpu-unsupported",
        "RuntimeError: HIP error: invalid device function\n"
        "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "https://github.com/ROCm/legacy-rocm-build/issues/5668",
    ),
    (
        "rocm-gpu-unsupported",
        "Memory access fault by GPU node-1 on address (nil). Reason: Page not present or supervisor privilege.",
        "https://github.com/bigattichouse/worldmodel/blob/2ca5b27b04ee4e5c3e5cb3f5aa513448eeda747f/docs/rocm_troubleshooting.md",
    ),
    # rocm-visible-devices
    (
        "rocm-visible-devices",
        '"HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES"',
        "https://github.com/pytorch/pytorch/blob/17e3b6a97af175f377f42b52cf20d4c758a432a9/torch/cuda/__init__.py",
    ),
    # ---- seventh round: the libraries' and runtimes' own message texts (issue 25 item 7) ----
    # arch-not-in-build: torch's capability warnings since pytorch/pytorch#166185 and before it
    (
        "arch-not-in-build",
        "UserWarning: Found GPU0 Tesla V100-PCIE-32GB which is of compute capability (CC) 7.0.",
        "https://github.com/pytorch/pytorch/issues/182250",
    ),
    (
        "arch-not-in-build",
        "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability "
        "supported by this version of PyTorch is (8.0) - (12.0)",
        "https://github.com/eugr/spark-vllm-docker/issues/15",
    ),
    # arch-not-in-build, rocblas-arch-not-in-release, rocm-gpu-unsupported: rocBLAS/hipBLASLt finding no
    # kernels for the processor (tensile_host.cpp: ROCm/rocBLAS rocm-6.2.0, ROCm/hipBLASLt)
    (
        "arch-not-in-build",
        "rocBLAS error: Could not load C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary_lazy_gfx1103.dat",
        "https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12",
    ),
    (
        "arch-not-in-build",
        "rocBLAS error: Could not initialize Tensile library",
        "https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12",
    ),
    (
        "arch-not-in-build",
        "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that ROCBLAS_TENSILE_LIBPATH "
        "is set correctly.",
        "https://github.com/justxi/rocm/issues/182",
    ),
    (
        "rocblas-arch-not-in-release",
        "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that ROCBLAS_TENSILE_LIBPATH "
        "is set correctly.",
        "https://github.com/justxi/rocm/issues/182",
    ),
    (
        "rocblas-arch-not-in-release",
        '"\\nrocblaslt error: Could not initialize Tensile library"',
        "https://github.com/ROCm/hipBLASLt/blob/7d9fb683db25941d38c5f89749a2c26acc493992/library/src/amd_detail/rocblaslt/src/tensile_host.cpp#L1437",
    ),
    (
        "rocblas-arch-not-in-release",
        '"\\nrocblaslt warning: No paths matched " << dir << ". Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly."',
        "https://github.com/ROCm/hipBLASLt/blob/7d9fb683db25941d38c5f89749a2c26acc493992/library/src/amd_detail/rocblaslt/src/tensile_host.cpp#L1353-L1354",
    ),
    (
        "rocm-gpu-unsupported",
        "rocBLAS error: Could not initialize Tensile library",
        "https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12",
    ),
    (
        "rocm-gpu-unsupported",
        "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that ROCBLAS_TENSILE_LIBPATH "
        "is set correctly.",
        "https://github.com/justxi/rocm/issues/182",
    ),
    # HIP's text for hipErrorNoBinaryForGpu (hipGetErrorString), what torch prints after "HIP error: "
    (
        "rocblas-arch-not-in-release",
        'return "no kernel image is available for execution on the device";',
        "https://github.com/ROCm/clr/blob/f9f995c6d0aecec28debd3db0f41df0c15ec003d/hipamd/src/hip_error.cpp#L261-L262",
    ),
    (
        "hsa-override-invalid",
        'return "no kernel image is available for execution on the device";',
        "https://github.com/ROCm/clr/blob/f9f995c6d0aecec28debd3db0f41df0c15ec003d/hipamd/src/hip_error.cpp#L261-L262",
    ),
    (
        "bitsandbytes-rocm-build",
        'return "no kernel image is available for execution on the device";',
        "https://github.com/ROCm/clr/blob/f9f995c6d0aecec28debd3db0f41df0c15ec003d/hipamd/src/hip_error.cpp#L261-L262",
    ),
    # hsa-override-invalid: the thunk rejecting the value (printed when HSAKMT_DEBUG_LEVEL >= 3)
    (
        "hsa-override-invalid",
        'pr_err("HSA_OVERRIDE_GFX_VERSION %s is invalid\\n",',
        "https://github.com/ROCm/ROCR-Runtime/blob/c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9/libhsakmt/src/topology.c#L1224",
    ),
    # bitsandbytes-rocm-build: cextension.py's missing-dependency report (same template for ROCm and CUDA)
    (
        "bitsandbytes-rocm-build",
        "RuntimeError: CUDA SETUP ERROR: Missing dependency: libnvJitLink.so.13",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1905",
    ),
    # library-min-arch: flash-attn's CuTe interface, torch Inductor's Triton minimum
    (
        "library-min-arch",
        'assert arch // 10 in [8, 9, 10, 11, 12], "Unsupported compute capability. Supported: 8.x, 9.x, 10.x, 11.x, 12.x"',
        "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn/cute/interface.py#L681",
    ),
    (
        "library-min-arch",
        'f"Found {device_props.name} which is too old to be supported by the triton GPU compiler, "',
        "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/exc.py",
    ),
    # library-min-arch: what the libraries' kernels print when built or compiled for an arch they do not
    # serve: Composable Kernel (flash-attn/xformers ROCm backend), Triton's AMD backend, LLVM, flash-attn's
    # ROCm arch list, and Transformer Engine's arch refusal
    (
        "library-min-arch",
        "Compilation error for navi10 (use of undeclared identifier 'CK_BUFFER_RESOURCE_3RD_DWORD')",
        "https://github.com/ROCm/composable_kernel/issues/775",
    ),
    (
        "library-min-arch",
        "/tmp/pip-req-build-e29df3z_/csrc/flash_attn_rocm/composable_kernel/include/ck/utility/"
        "amd_buffer_addressing.hpp:32:48: error: use of undeclared identifier 'CK_BUFFER_RESOURCE_3RD_DWORD'",
        "https://github.com/Comfy-Org/ComfyUI/pull/7223",
    ),
    (
        "library-min-arch",
        "Issue: GFX1151 fails to build. Undeclared identifier 'CK_TILE_BUFFER_RESOURCE_3RD_DWORD'",
        "https://github.com/ROCm/flash-attention/issues/111",
    ),
    (
        "library-min-arch",
        "warp_gemm_attribute_mfma_impl_hip.hpp:116:17: error: '__builtin_amdgcn_mfma_f32_32x32x8bf16_1k' needs "
        "target feature mai-insts",
        "https://github.com/facebookresearch/xformers/issues/1026",
    ),
    (
        "library-min-arch",
        "error: triton_flash_attention.py:211:0: stack frame size (164332) exceeds limit (131056) in function "
        "'attn_fwd_0d1d2d3de45de6d7de8de9de10c11de12de13de14c15de16d",
        "https://github.com/vllm-project/vllm/issues/9319",
    ),
    (
        "library-min-arch",
        "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.wmma.f16.16x16x16.f16",
        "https://github.com/iree-org/iree/issues/17807",
    ),
    (
        "library-min-arch",
        "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.wmma.f32.16x16x16.f16",
        "https://github.com/modular/modular/issues/6722",
    ),
    (
        "library-min-arch",
        'f"Invalid archs: {archs}. Allowed: {allowed_archs}"',
        "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/setup.py#L220-L222",
    ),
    (
        "library-min-arch",
        '"" if available else "BF16 support requires a GPU with compute capability 8.0 or higher."',
        "https://github.com/NVIDIA/TransformerEngine/blob/d0067d0da6cb01811b8072a7d304f0e00344ce2b/transformer_engine/pytorch/utils.py#L652",
    ),
    # bf16-unsupported-arch: Accelerate's mixed-precision check
    (
        "bf16-unsupported-arch",
        'raise ValueError("bf16 mixed precision requires PyTorch >= 1.10 and a supported device.")',
        "https://github.com/huggingface/accelerate/blob/v1.15.0/src/accelerate/accelerator.py",
    ),
    # fp8-format-arch: Transformer Engine's fp8 gate (NVIDIA's and ROCm's fork)
    (
        "fp8-format-arch",
        'return False, "Device compute capability 8.9 or higher required for FP8 execution."',
        "https://github.com/NVIDIA/TransformerEngine/blob/d0067d0da6cb01811b8072a7d304f0e00344ce2b/transformer_engine/pytorch/quantization.py#L154",
    ),
    (
        "fp8-format-arch",
        'return False, "Device arch gfx94x or gfx95x required for FP8 execution."',
        "https://github.com/ROCm/TransformerEngine/blob/04a84095310fee0a3d911928bf9cb0889c1fefac/transformer_engine/pytorch/fp8.py",
    ),
    # cuda-newer-than-driver: the driver's PTX JIT refusing a newer toolkit's PTX
    (
        "cuda-newer-than-driver",
        "[cudaErrorUnsupportedPtxVersion] the provided PTX was compiled with an unsupported toolchain. in expression "
        "cudaGetLastError()",
        "https://github.com/NVIDIA/nvbandwidth/issues/61",
    ),
    (
        "cuda-newer-than-driver",
        "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was "
        "compiled with an unsupported toolchain.",
        "https://github.com/d-li14/involution/issues/52",
    ),
    # built-for-other-vendor (more in tests/knowledge/test_gpu_vendor_builds.py)
    (
        "built-for-other-vendor",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx",
        "https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/411",
    ),
    # hipblaslt-arch-unsupported: torch's addmm arch check (Blas.cpp TORCH_CHECK; more in test_hipblaslt_arch.py)
    (
        "hipblaslt-arch-unsupported",
        "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
        "https://github.com/pytorch/pytorch/blob/v2.5.0/aten/src/ATen/native/cuda/Blas.cpp",
    ),
    # no-wheel-for-python: pip building a release from its sdist on a Python it has no wheel for
    (
        "no-wheel-for-python",
        "ERROR: Failed building wheel for xformers",
        "https://github.com/facebookresearch/xformers/issues/1245",
    ),
    (
        "no-wheel-for-python",
        "Failed to build xformers\nERROR: Could not build wheels for xformers, which is required to install "
        "pyproject.toml-based projects",
        "https://github.com/ali-vilab/VGen/issues/100",
    ),
    # numpy2-abi: a NumPy 1.x build beside NumPy 2 (NumPy's shim, the 1.x headers, Cython, numba's gate)
    (
        "numpy2-abi",
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash. To support both 1.x and 2.x\n"
        "versions of NumPy, modules must be compiled with NumPy 2.0.",
        "https://github.com/opencv/opencv/issues/25772",
    ),
    ("numpy2-abi", "AttributeError: _ARRAY_API not found", "https://github.com/opencv/opencv/issues/25772"),
    (
        "numpy2-abi",
        "ImportError: numpy.core.multiarray failed to import",
        "https://github.com/aaronwmorris/indi-allsky/issues/1329",
    ),
    (
        "numpy2-abi",
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject",
        "https://github.com/rubenIng93/mmwave-decoder/issues/4",
    ),
    (
        "numpy2-abi",
        "_UFUNC_API not found",
        "https://github.com/numpy/numpy/blob/v1.26.4/numpy/core/code_generators/generate_ufunc_api.py",
    ),
    ("numpy2-abi", "Numba needs NumPy 1.26 or less", "https://github.com/numba/numba/blob/0.59.1/numba/__init__.py"),
    (  # bitsandbytes-cuda-build: the loader's warning (0.43.1-0.45) for a library the wheel lacks
        "bitsandbytes-cuda-build",
        "Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/notebooks/bitsandbytes/bitsandbytes/libbitsandbytes_cuda124.so')",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1559",
    ),
    # extension-build-toolkit-mismatch: DeepSpeed's op builder and torch's cpp_extension refusing another
    # nvcc release than torch's; more in test_build_toolkit.py
    (
        "extension-build-toolkit-mismatch",
        "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version "
        "12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions without "
        "a matching cuda version.",
        "https://github.com/JIA-Lab-research/MGM/issues/91",
    ),
    (
        "extension-build-toolkit-mismatch",
        "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch "
        "(12.4). Please make sure to use the same CUDA versions.",
        "https://github.com/icip-cas/AutoAlign/issues/25",
    ),
    # pair-failed-when-run: transformers' Trainer beside an accelerate it was not measured working with; more,
    # and the texts the measuring runs printed, in test_measured_pair.py
    (
        "pair-failed-when-run",
        "TypeError: Accelerator.unwrap_model() got an unexpected keyword argument 'keep_torch_compile'",
        "https://github.com/hiyouga/LlamaFactory/issues/8527",
    ),
    (
        "pair-failed-when-run",
        "AttributeError: 'AdamW' object has no attribute 'train'",
        "https://github.com/huggingface/transformers/issues/33620",
    ),
    # cusparse-nvjitlink-older (twenty-ninth session): the loader naming an nvJitLink function an older nvJitLink lacks
    (
        "cusparse-nvjitlink-older",
        "On Kaggle : libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
        "https://github.com/pytorch/pytorch/issues/134929",
    ),
]

# Failures no check predicts: a real regression, a test's own assertion, a GPU out of memory.
FOREIGN = (
    "ValueError: a genuinely different regression",
    "AssertionError: assert 3 == 4",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error",
    "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'QuantizedCUDA' backend.",
    # seventh round: messages near the new signatures that name no stack problem
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "rocBLAS warning: No Tensile solution found for XF32, fall back to FP32",
    "FP8 execution requires the product of all dimensions except the last to be divisible by 8",
    "ValueError: fp16 mixed precision requires a GPU (not 'cpu').",
    # Transformer Engine's build-time version checks, not its arch refusal (build_tools/pytorch.py, utils.py)
    "RuntimeError: Transformer Engine requires CUDA 12.0 or newer",
    "RuntimeError: Transformer Engine requires Python 3.10.0 or newer, but found Python 3.9.18.",
    # a compile error of a different identifier, and a stack frame limit outside a GPU kernel
    "error: use of undeclared identifier 'CK_TILE_HOST_DEVICE_EXTERN'",
    "display_mode_vba_30.c:3540:6: error: stack frame size (2104) exceeds limit (2048) in 'dml30_ModeSupportAndSystemConfigurationFull'",
    # fp8 failures that name no arch: a ROCm release gate, a dtype pairing rule
    "RuntimeError: Float8_e4m3fn is only supported for ROCm 6.5 and above",
    "RuntimeError: Multiplication of two Float8_e5m2 matrices is not supported",
    # a crash or a HIP error that names no driver: no check may xfail it as a driver problem
    "Segmentation fault (core dumped)",
    "RuntimeError: HIP error: out of memory",
    "hipErrorOutOfMemory",
)


# ---- the signatures ---------------------------------------------------------------------------
def test_every_check_predicts_its_failures() -> None:
    assert set(PREDICTS) == set(registry.CHECKS)
    for check_id, pattern in PREDICTS.items():
        compile_signature(pattern)  # valid, and no nested quantifier (the checker's rule for matrices)
        assert any(c == check_id for c, _, _ in VERBATIM), f"{check_id} has no verbatim message"


@pytest.mark.parametrize(
    ("check_id", "message", "source"), VERBATIM, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(VERBATIM)]
)
def test_signature_matches_the_message_users_see(check_id: str, message: str, source: str) -> None:
    assert source.startswith("https://")
    assert compile_signature(PREDICTS[check_id]).search(message) is not None


@pytest.mark.parametrize("message", FOREIGN)
def test_no_check_claims_a_foreign_failure(message: str) -> None:
    assert [c for c, p in PREDICTS.items() if compile_signature(p).search(message)] == []


def test_compiled_rules_carry_the_signature_and_skip_stays_skip() -> None:
    env = apply_overrides(H100, ["torch=2.7.0+cu124", "arch=sm_120"])
    (rule,) = compile_rules(evaluate(env))
    assert rule.id == "arch-not-in-build" and rule.action == "xfail"
    assert rule.signature is not None and rule.signature.pattern.startswith(PREDICTS["arch-not-in-build"] + "|")
    assert rule.signature.pattern.endswith(refusing(["sm_120"]))  # and a refusal naming the GPU (gpu_refusals)
    assert not rule.signature_matches("ValueError: a genuinely different regression")
    (skip,) = compile_rules(evaluate(env), {"arch-not-in-build": "skip"})
    assert skip.action == "skip"
    cause = likely_cause([rule])
    assert cause is not None and cause.startswith("arch-not-in-build: torch 2.7.0+cu124 has no kernels for sm_120")
    assert "; fix: " in cause and cause.endswith(rule.links[0])


# ---- both ways through pytest, for every check ------------------------------------------------
# check id -> (the stack, the test's marker, a predicted failure quoted from a source above)
CASES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "arch-not-in-build": (
        ("torch=2.7.0+cu124", "arch=sm_120"),
        "@pytest.mark.gpus(1)",
        "CUDA error: no kernel image is available for execution on the device",
    ),
    "python-unsupported-by-torch": (
        ("torch=2.1.2+cu121", "python=3.12.3"),
        "",
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)",
    ),
    "dynamo-python-gate": (
        ("torch=2.3.1+cu121", "python=3.12.4"),
        '@pytest.mark.uses("torch.compile")',
        "torch.compile is not supported on Python 3.12+",
    ),
    "requirement-not-met": (
        ("torch=2.4.0+cu124", "lib.vllm=0.7.3"),
        '@pytest.mark.uses("vllm")',
        "vllm 0.7.3 requires torch==2.5.1, but you have torch 2.4.0+cu124 which is incompatible.",
    ),
    "cuda-newer-than-driver": (
        ("torch=2.9.0+cu130", "driver_cuda=12.4"),
        "",
        "CUDA initialization: The NVIDIA driver on your system is too old (found version 12040).",
    ),
    "extension-built-for-other-torch": (
        ("torch=2.4.1+cu121", "lib.torchao=0.15.0"),
        '@pytest.mark.uses("torchao")',
        "Skipping import of cpp extensions due to incompatible torch version 2.4.1+cu121 for torchao version 0.15.0",
    ),
    "bf16-unsupported-arch": (
        ("arch=sm_75",),
        '@pytest.mark.uses("bf16")',
        "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute "
        "capability 7.5.",
    ),
    "fp8-format-arch": (
        ("arch=sm_86",),
        '@pytest.mark.uses("fp8")',
        "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')",
    ),
    "hsa-override-invalid": (
        ("platform=rocm", "arch=gfx1032", "torch=2.5.1+rocm6.2", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0"),
        "@pytest.mark.gpus(1)",
        "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f",
    ),
    "library-min-arch": (
        ("arch=sm_75",),
        '@pytest.mark.uses("flash_attn")',
        "FlashAttention only supports Ampere GPUs or newer.",
    ),
    "bitsandbytes-rocm-build": (
        ("platform=rocm", "arch=gfx90a", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.45.0"),
        '@pytest.mark.uses("bitsandbytes")',
        "The installed version of bitsandbytes was compiled without GPU support. "
        "8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
    ),
    "rocm-driver-unsupported": (
        ("platform=rocm", "arch=gfx90a", "driver=5.18.13", "torch=2.5.1+rocm6.2"),
        "@pytest.mark.gpus(1)",
        "ROCk module is NOT loaded, possibly no GPU devices",
    ),
    "rocblas-arch-not-in-release": (  # torch's targets name the GPU; its bundled ROCm 6.1 rocBLAS does not
        ("platform=rocm", "arch=gfx1103", "torch=2.5.1+rocm6.1", "torch_archs=gfx1103"),
        "@pytest.mark.gpus(1)",
        "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat: "
        "No such file or directory for GPU arch : gfx1103",
    ),
    "rocm-sdk-family-lacks-arch": (  # TheRock's RDNA3-dGPU packages on Strix Halo
        (
            "platform=rocm",
            "arch=gfx1151",
            "torch=2.7.1+rocm7.9.0rc20251008",
            "lib.rocm-sdk-libraries-gfx110X-dgpu=7.9.0rc20251008",
        ),
        "@pytest.mark.gpus(1)",
        "RuntimeError: HIP error: invalid device function",
    ),
    "rocm-gpu-unsupported": (  # AMD's ROCm 6.0 table marks MI25/Vega 10 unsupported; torch and rocBLAS carry it
        ("platform=rocm", "arch=gfx900", "torch=2.3.0+rocm6.0", "torch_archs=gfx900"),
        "@pytest.mark.gpus(1)",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    ),
    "rocm-visible-devices": (  # HIP counts within the one GPU ROCR exposes (a ROCm torch: the H100 file's is CUDA)
        (
            "platform=rocm",
            "arch=gfx90a",
            "torch=2.5.1+rocm6.2",
            "env.ROCR_VISIBLE_DEVICES=0",
            "env.HIP_VISIBLE_DEVICES=0,1",
        ),
        "@pytest.mark.gpus(1)",
        "HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES",
    ),
    "built-for-other-vendor": (  # a CUDA torch on an AMD GPU
        ("platform=rocm", "arch=gfx1030", "torch=2.5.1+cu124"),
        "@pytest.mark.gpus(1)",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx",
    ),
    "torch-cpu-build": (  # download.pytorch.org's CPU build on an AMD GPU
        ("platform=rocm", "arch=gfx942", "torch=2.5.1+cpu"),
        "@pytest.mark.gpus(1)",
        "AssertionError: Torch not compiled with CUDA enabled",
    ),
    "hipblaslt-arch-unsupported": (  # torch 2.3's addmm hipBLASLt path asked for on RDNA2 (in no hipBLASLt)
        ("platform=rocm", "arch=gfx1030", "torch=2.3.1+rocm6.0", "env.DISABLE_ADDMM_HIP_LT=0"),
        "@pytest.mark.gpus(1)",
        "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
    ),
    "numpy2-abi": (  # opencv 4.8 is built against NumPy 1.x; the H100 file's numpy is 2.5.2
        ("lib.opencv-python=4.8.0.76",),
        '@pytest.mark.uses("opencv-python")',
        "AttributeError: _ARRAY_API not found",
    ),
    "nvidia-driver-gpu-unsupported": (  # an RTX 5090 (sm_120, first served by R570) on a 535 driver
        ("arch=sm_120", "driver=535.104.05"),
        "@pytest.mark.gpus(1)",
        "NVRM: installed in this system is not supported by the",
    ),
    "bitsandbytes-cuda-build": (  # 0.45.5's wheel stops at CUDA 12.8; the H100 file's torch is +cu130
        ("lib.bitsandbytes=0.45.5",),
        '@pytest.mark.uses("bitsandbytes")',
        "Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/notebooks/bitsandbytes/bitsandbytes/libbitsandbytes_cuda124.so')",
    ),
}


def test_the_recorded_h100_driver_drives_its_gpu() -> None:
    """The H100 file CASES replays (driver 580.159.04, sm_90) is no stack of nvidia-driver-gpu-unsupported."""
    assert H100.driver == "580.159.04"
    assert [f for f in evaluate(H100) if f.check == "nvidia-driver-gpu-unsupported"] == []


def _run(pytester: pytest.Pytester, stack: tuple[str, ...], body: str, *extra: str) -> pytest.RunResult:
    (pytester.path / "env.json").write_text(H100.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=body)
    sets = [arg for value in stack for arg in ("--rocm-set", value)]
    return pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml",
        "--rocm-report", "R.md", "-rA", *sets, *extra,
    )  # fmt: skip


def _junit(pytester: pytest.Pytester) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"):
        out[case.get("name") or ""] = {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}
    return out


def _tests(marker: str, predicted: str) -> str:
    return f"""
import pytest

{marker}
def test_predicted():
    raise RuntimeError({predicted!r})

{marker}
def test_unrelated():
    {UNRELATED}
"""


@pytest.mark.parametrize("check_id", sorted(CASES))
def test_predicted_is_known_bad_and_unrelated_fails_with_the_stack_problem_as_cause(
    pytester: pytest.Pytester, check_id: str
) -> None:
    stack, marker, predicted = CASES[check_id]
    result = _run(pytester, stack, _tests(marker, predicted))
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            f"KNOWN-BAD test_stack.py::test_predicted - rocmcompat [[]{check_id}]*",
            f"FAILED [[]diagnosis: {check_id}[]] test_stack.py::test_unrelated*",
        ]
    )
    cases = _junit(pytester)
    predicted_props, unrelated = cases["test_predicted"], cases["test_unrelated"]
    assert predicted_props["rocm_outcome"] == "known-bad" and predicted_props["rocm_rule"] == check_id
    assert predicted_props["rocm_signature"].startswith(PREDICTS[check_id])  # and what the finding adds
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{check_id}: ")  # the stack problem, as the likely cause
    assert "; fix: " in unrelated["rocm_diagnosis"]
    assert unrelated["rocm_note"] == f"rule {check_id} applies but its signature did not match"
    report = (pytester.path / "R.md").read_text()
    assert f"[diagnosis: {check_id}: " in report and "a genuinely different regression" in report


def test_issue_example_torchao_unrelated_failure_is_not_hidden(pytester: pytest.Pytester) -> None:
    """The issue's case: torchao 0.15.0 with torch 2.4.1, a test that uses it raising a different error."""
    body = f"""
import pytest

@pytest.mark.uses("torchao")
def test_quantize():
    {UNRELATED}
"""
    result = _run(pytester, ("torch=2.4.1", "lib.torchao=0.15.0"), body)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*likely cause, a stack problem found by a built-in check: extension-built-for-other-torch: torchao 0.15.0*"]
    )
    props = _junit(pytester)["test_quantize"]
    assert props["rocm_outcome"] == "fail"
    assert props["rocm_diagnosis"].startswith("extension-built-for-other-torch: torchao 0.15.0 is built for")


def test_a_failure_with_its_own_diagnosis_keeps_it_and_the_note_names_the_stack_problem(
    pytester: pytest.Pytester,
) -> None:
    stack, marker, _ = CASES["extension-built-for-other-torch"]
    body = f"""
import pytest

{marker}
def test_oom():
    raise RuntimeError("CUDA out of memory. Tried to allocate 20.00 MiB")
"""
    result = _run(pytester, stack, body)
    result.assert_outcomes(failed=1)
    props = _junit(pytester)["test_oom"]
    assert props["rocm_diagnosis"].startswith("gpu-out-of-memory: ")  # what the failure text says first
    assert props["rocm_note"].startswith(
        "rule extension-built-for-other-torch applies but its signature did not match; "
        "likely cause: extension-built-for-other-torch: torchao 0.15.0"
    )


def test_check_set_to_skip_keeps_skipping(pytester: pytest.Pytester) -> None:
    stack, marker, predicted = CASES["extension-built-for-other-torch"]
    pytester.makefile(".yaml", matrix="name: m\nchecks:\n  extension-built-for-other-torch: skip\n")
    result = _run(pytester, stack, _tests(marker, predicted), "--rocm-matrix", "matrix.yaml")
    result.assert_outcomes(skipped=2)
    cases = _junit(pytester)
    assert {name: props.get("rocm_rule") for name, props in cases.items()} == {
        "test_predicted": "extension-built-for-other-torch",
        "test_unrelated": "extension-built-for-other-torch",
    }
    assert all("rocm_diagnosis" not in props for props in cases.values())

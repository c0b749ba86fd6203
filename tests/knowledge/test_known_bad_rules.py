"""Every rule of the shared database ``matrices/known_bad.yaml``, replayed.

For each rule: one environment that triggers it and one just outside its
conditions. A rule added to the database without a case here fails
``test_every_rule_has_a_case``. Where a rule has a signature, it must match the
real error text quoted in its public source (quotes kept below with the URL).
See docs/known-bad-sources.md for what each source says.
"""

from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet

from pytest_rocmcompat.knowledge.rules.engine import ActiveRules
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from pytest_rocmcompat.stack.versions import specifier_contains
from tests.conftest import REPO
from tests.knowledge.test_nccl_rccl_rules import CASES as NCCL_RCCL_CASES
from tests.knowledge.test_nccl_rccl_rules import QUOTES as NCCL_RCCL_QUOTES
from tests.knowledge.test_rocm_release_notes_rules import CASES as RELEASE_NOTES_CASES

KNOWN_BAD = REPO / "matrices" / "known_bad.yaml"
BASE = Environment(platform="cpu", python="3.11.7")

ROCM, CUDA = "platform=rocm", "platform=cuda"
EXPANDABLE = "expandable_segments:True"

# rule id -> (overrides that trigger it, overrides just outside its conditions)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "torch-2.5.1-rocm6.2-gfx906-memory-fault": (
        [ROCM, "arch=gfx906", "torch=2.5.1+rocm6.2"],
        [ROCM, "arch=gfx906", "torch=2.4.1+rocm6.0"],
    ),
    "gfx906-torch-rocm6.4-plus-no-gfx906-kernels": (
        [ROCM, "arch=gfx906", "torch=2.7.1+rocm6.4"],
        [ROCM, "arch=gfx906", "torch=2.6.0+rocm6.3"],
    ),
    "gfx906-hsa-override-gfx-version-foreign-arch": (
        [ROCM, "arch=gfx906", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"],
        [ROCM, "arch=gfx906", "env.HSA_OVERRIDE_GFX_VERSION=9.0.6"],
    ),
    "gfx900-torch-rocm6.0-gpu-hang": (
        [ROCM, "arch=gfx900", "torch=2.3.1+rocm6.0"],
        [ROCM, "arch=gfx900", "torch=2.3.1+rocm6.1"],
    ),
    "gfx900-torch-rocm7.2-no-tensile-library": (
        [ROCM, "arch=gfx900", "torch=2.12.0.dev20260408+rocm7.2"],
        [ROCM, "arch=gfx900", "torch=2.11.0+rocm7.1"],
    ),
    "gfx1100-torch-2.8.0-rocm6.3-native-crashes": (
        [ROCM, "arch=gfx1100", "torch=2.8.0+rocm6.3"],
        [ROCM, "arch=gfx1100", "torch=2.8.0+rocm6.4"],
    ),
    "gfx1151-rocm-before-7.2-cwsr-vgpr-crashes": (
        [ROCM, "arch=gfx1151", "torch=2.9.1+rocm7.1"],
        [ROCM, "arch=gfx1151", "torch=2.10.0+rocm7.2"],
    ),
    "gfx12-rocm-7.0-7.1-hipblaslt-expert-scheduling-faults": (
        [ROCM, "arch=gfx1201", "torch=2.8.0+rocm7.0.2"],
        [ROCM, "arch=gfx1201", "torch=2.7.1+rocm6.4.4"],
    ),
    "rocm-7.0-7.1-nccl-watchdog-breaks-graph-capture": (
        [ROCM, "arch=gfx942", "torch=2.9.1+rocm7.1"],
        [ROCM, "arch=gfx942", "torch=2.10.0+rocm7.2"],
    ),
    "rocm-7.0.0-hip-launch-host-func-capture-refused": (
        [ROCM, "arch=gfx942", "rocm=7.0.1"],
        [ROCM, "arch=gfx942", "rocm=7.0.2"],
    ),
    "gfx103x-torch-rocm7-unsloth-import-segfault": (
        [ROCM, "arch=gfx1030", "torch=2.9.1+rocm7.0", "lib.unsloth=2026.1.1"],
        [ROCM, "arch=gfx1030", "torch=2.7.1+rocm6.4", "lib.unsloth=2026.1.1"],
    ),
    "torchao-needs-torch-int1": (
        ["torch=2.4.1+rocm6.0", "lib.torchao=0.15.0"],
        ["torch=2.6.0+rocm6.2.4", "lib.torchao=0.15.0"],
    ),
    "torchao-needs-torch-float8-dtypes": (
        ["torch=2.0.0", "lib.torchao=0.1"],
        ["torch=2.1.0", "lib.torchao=0.1"],
    ),
    "torchao-0.8-inductor-config-import": (
        ["torch=2.5.1", "lib.torchao=0.8.0"],
        ["torch=2.5.1", "lib.torchao=0.7.0"],
    ),
    "torchao-0.13-cpp-abi-torch-2.9": (
        ["torch=2.9.0", "lib.torchao=0.13.0"],
        ["torch=2.8.0", "lib.torchao=0.13.0"],
    ),
    "torchao-float8-training-needs-torch-2.5": (
        ["torch=2.4.1", "lib.torchao=0.7.0"],
        ["torch=2.5.1", "lib.torchao=0.7.0"],
    ),
    "rocm-python313-needs-torch-2.6": (
        [ROCM, "python=3.13.1", "torch=2.5.1+rocm6.2"],
        [ROCM, "python=3.12.3", "torch=2.5.1+rocm6.2"],
    ),
    "numpy2-torch-built-against-numpy1": (
        ["torch=2.2.2", "lib.numpy=2.0.0"],
        ["torch=2.2.2", "lib.numpy=1.26.4"],
    ),
    "bitsandbytes-rocm-4bit-before-0.50": (
        [ROCM, "arch=gfx90a", "lib.bitsandbytes=0.49.2"],
        [ROCM, "arch=gfx90a", "lib.bitsandbytes=0.50.0"],
    ),
    "bitsandbytes-nf4-gfx1100-rocm6.4-wheel": (
        [ROCM, "arch=gfx1100", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.3.dev0"],
        [ROCM, "arch=gfx942", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.3.dev0"],
    ),
    "bitsandbytes-0.48-no-maxwell": (
        [CUDA, "arch=sm_52", "lib.bitsandbytes=0.48.1"],
        [CUDA, "arch=sm_52", "lib.bitsandbytes=0.47.0"],
    ),
    "ray-2.45-rocm-cuda-visible-devices-assert": (
        [ROCM, "lib.ray=2.47.1", "env.CUDA_VISIBLE_DEVICES=1"],  # 2.47.x ships 2.45's amd_gpu.py
        [ROCM, "lib.ray=2.45.0", "env.CUDA_VISIBLE_DEVICES=1", "env.HIP_VISIBLE_DEVICES=1"],
    ),
    "ray-2.45-rocm-rocr-visible-devices-rejected": (
        [ROCM, "lib.ray=2.45.0", "env.ROCR_VISIBLE_DEVICES=0"],
        [ROCM, "lib.ray=2.44.1", "env.ROCR_VISIBLE_DEVICES=0"],
    ),
    "verl-ray-2.45-needs-noset-hip": (
        [ROCM, "lib.ray=2.46.0", "lib.verl=0.4.1"],
        [ROCM, "lib.ray=2.46.0", "lib.verl=0.4.1", "env.RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1"],
    ),
    "verl-ray-pre-2.45-needs-noset-rocr": (
        [ROCM, "lib.ray=2.40.0", "lib.verl=0.3.0"],
        [ROCM, "lib.ray=2.40.0", "lib.verl=0.3.0", "env.RAY_EXPERIMENTAL_NOSET_ROCR_VISIBLE_DEVICES=1"],
    ),
    "ray-rocm-num-gpus-rocr-visible-devices": (
        [ROCM, "lib.ray=2.32.0", "env.ROCR_VISIBLE_DEVICES=0,1"],
        [ROCM, "lib.ray=2.32.0"],
    ),
    "ray-cli-click-8.3-sentinel": (
        ["lib.ray=2.48.0", "lib.click=8.3.0"],
        ["lib.ray=2.48.0", "lib.click=8.2.1"],
    ),
    "vllm-sleep-mode-expandable-segments": (
        [CUDA, "lib.vllm=0.10.0", f"env.PYTORCH_CUDA_ALLOC_CONF={EXPANDABLE}"],
        [CUDA, "lib.vllm=0.20.1", f"env.PYTORCH_CUDA_ALLOC_CONF={EXPANDABLE}"],
    ),
    "vllm-custom-allreduce-expandable-segments": (
        [CUDA, "lib.vllm=0.11.0", f"env.PYTORCH_CUDA_ALLOC_CONF={EXPANDABLE}"],
        [CUDA, "lib.vllm=0.11.0", "env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False"],
    ),
    "vllm-custom-allreduce-expandable-segments-hip": (
        [ROCM, "lib.vllm=0.11.0", f"env.PYTORCH_HIP_ALLOC_CONF={EXPANDABLE}"],
        [CUDA, "lib.vllm=0.11.0", f"env.PYTORCH_HIP_ALLOC_CONF={EXPANDABLE}"],
    ),
    "vllm-requires-sm70": (
        [CUDA, "arch=sm_60", "lib.vllm=0.2.0"],
        [CUDA, "arch=sm_70", "lib.vllm=0.2.0"],
    ),
    "bf16-requires-ampere": (
        [CUDA, "arch=sm_70"],
        [CUDA, "arch=sm_80"],
    ),
    "tf32-requires-ampere": (
        [CUDA, "arch=sm_75", "lib.transformers=4.28.0"],
        [CUDA, "arch=sm_86", "lib.transformers=4.28.0"],
    ),
    "fp8-scaled-mm-cuda-pre-sm89": (
        [CUDA, "arch=sm_80", "torch=2.4.1+cu121"],
        [CUDA, "arch=sm_89", "torch=2.4.1+cu121"],
    ),
    "fp8-scaled-mm-rocm-pre-mi300": (
        [ROCM, "arch=gfx90a", "torch=2.5.1+rocm6.2"],
        [ROCM, "arch=gfx942", "torch=2.5.1+rocm6.2"],
    ),
    "torch-cu130-needs-driver-580": (
        [CUDA, "arch=sm_90", "torch=2.9.0+cu130", "driver=570.172.08"],
        [CUDA, "arch=sm_90", "torch=2.9.0+cu130", "driver=580.65.06"],
    ),
    "torch-cu12-needs-driver-525": (
        [CUDA, "arch=sm_86", "torch=2.1.0+cu121", "driver=470.86"],
        [CUDA, "arch=sm_86", "torch=2.1.0+cu118", "driver=470.86"],
    ),
    "torch-cu130-no-volta-pascal-maxwell": (
        [CUDA, "arch=sm_70", "torch=2.11.0+cu130"],
        [CUDA, "arch=sm_70", "torch=2.11.0+cu128"],
    ),
    "vllm-rocm-unsupported-arch": (
        [ROCM, "arch=gfx906", "lib.vllm=0.10.1"],
        [ROCM, "arch=gfx90a", "lib.vllm=0.10.1"],
    ),
    "nccl-2.29-nvls-multicast-bind-hopper": (
        [CUDA, "arch=sm_90", "nccl=2.29.3"],
        [CUDA, "arch=sm_90", "nccl=2.28.9"],
    ),
    "nccl-2.26-nvls-multicast-bind-hopper": (
        [CUDA, "arch=sm_90", "nccl=2.26.2"],
        [CUDA, "arch=sm_90", "nccl=2.26.2", "env.NCCL_NVLS_ENABLE=0"],
    ),
    "flash-attn-before-2.5.8-no-torch-2.3-wheels": (
        ["torch=2.3.0+cu121", "lib.flash_attn=2.5.7"],
        ["torch=2.3.0+cu121", "lib.flash_attn=2.5.8"],
    ),
    "flash-attn-2.5.8-wheels-on-torch-2.2-before-2.2.2": (
        ["torch=2.2.0+cu121", "lib.flash_attn=2.5.8"],
        ["torch=2.2.2+cu121", "lib.flash_attn=2.5.8"],
    ),
    "flash-attn-2.6-wheels-on-torch-2.6": (
        ["torch=2.6.0+cu126", "lib.flash_attn=2.6.3"],
        ["torch=2.5.1+cu124", "lib.flash_attn=2.6.3"],
    ),
    "flash-attn-2-needs-ampere": (
        [CUDA, "arch=sm_75"],
        [CUDA, "arch=sm_80"],
    ),
    "flash-attn-ck-not-on-rdna": (  # RDNA 3 is in flash-attn's CK build since 5301a359: library-min-arch's
        [ROCM, "arch=gfx1030"],
        [ROCM, "arch=gfx1100"],
    ),
    "triton-fp8e4nv-pre-sm89": (
        [CUDA, "arch=sm_80"],
        [CUDA, "arch=sm_89"],
    ),
    "diffusers-torchao-int1-before-torch-2.6": (
        ["torch=2.5.1+cu124", "lib.diffusers=0.34.0"],
        ["torch=2.6.0+cu124", "lib.diffusers=0.34.0"],
    ),
    "vllm-sleep-mode-not-on-rocm": (
        [ROCM, "lib.vllm=0.7.3"],
        [CUDA, "lib.vllm=0.7.3"],
    ),
    "bitsandbytes-int8-before-0.37-needs-turing": (
        [CUDA, "arch=sm_61", "lib.bitsandbytes=0.36.0.post2"],
        [CUDA, "arch=sm_61", "lib.bitsandbytes=0.37.0"],
    ),
    "ray-2.45-rocm-rocr-and-hip-both-set": (
        [ROCM, "lib.ray=2.47.1", "env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=0"],
        [ROCM, "lib.ray=2.46.0", "env.HIP_VISIBLE_DEVICES=0"],
    ),
    "torch-cu128-2.8-no-pascal-maxwell": (
        [CUDA, "arch=sm_61", "torch=2.8.0+cu128"],
        [CUDA, "arch=sm_61", "torch=2.8.0+cu126"],
    ),
    "gfx906-system-rocm6.4-rocblas-no-gfx906": (
        [ROCM, "arch=gfx906", "rocm=6.4.0"],
        [ROCM, "arch=gfx906", "rocm=6.3.0"],
    ),
    "rdna2-gfx103x-variants-need-hsa-override": (
        [ROCM, "arch=gfx1032"],
        [ROCM, "arch=gfx1032", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"],
    ),
    "transformers-torch-load-needs-torch-2.6": (
        ["torch=2.5.1+cu124", "lib.transformers=4.52.3"],
        ["torch=2.6.0+cu124", "lib.transformers=4.52.3"],
    ),
    "deepspeed-0.14.0-elastic-agent-import-torch-2.4": (
        ["torch=2.4.0", "lib.deepspeed=0.14.0"],
        ["torch=2.3.1", "lib.deepspeed=0.14.0"],
    ),
    "peft-0.14-needs-transformers-encoder-decoder-cache": (
        ["lib.peft=0.14.0", "lib.transformers=4.39.3"],
        ["lib.peft=0.14.0", "lib.transformers=4.46.3"],
    ),
    "diffusers-0.33-needs-accelerate-0.32": (
        ["lib.diffusers=0.33.1", "lib.accelerate=0.31.0"],
        ["lib.diffusers=0.33.1", "lib.accelerate=0.32.0"],
    ),
    "torchvision-0.19-needs-torch-2.4-register-fake": (
        ["torch=2.2.1+cpu", "lib.torchvision=0.19.0"],
        ["torch=2.4.0", "lib.torchvision=0.19.0"],
    ),
    "torch-2.5.0-cudnn-sdpa-hopper-nan": (
        [CUDA, "arch=sm_90", "torch=2.5.0+cu124"],
        [CUDA, "arch=sm_90", "torch=2.5.1+cu124"],
    ),
    "vllm-0.7.3-binary-needs-torch-2.5.1": (
        ["torch=2.4.0+cu124", "lib.vllm=0.7.3"],
        ["torch=2.5.1+cu124", "lib.vllm=0.7.3"],  # the pinned build
    ),
    "vllm-0.3.2-binary-needs-torch-2.1": (
        ["torch=2.2.1", "lib.vllm=0.3.2"],
        ["torch=2.1.2", "lib.vllm=0.3.2"],
    ),
    "vllm-0.2.2-binary-needs-torch-2.1": (
        ["torch=2.0.1+cu118", "lib.vllm=0.2.2"],
        ["torch=2.1.0+cu118", "lib.vllm=0.2.2"],
    ),
    "nccl-2.19-cumem-alltoall-init-hang": (
        [CUDA, "arch=sm_90", "nccl=2.19.3"],
        [CUDA, "arch=sm_90", "nccl=2.19.3", "env.NCCL_CUMEM_ENABLE=0"],
    ),
    "trl-before-0.8-top-k-top-p-filtering-transformers-4.39": (
        ["lib.trl=0.7.11", "lib.transformers=4.40.1"],
        ["lib.trl=0.7.11", "lib.transformers=4.38.2"],
    ),
    "transformers-trainer-needs-accelerate-0.20.1": (
        ["lib.transformers=4.30.1", "lib.accelerate=0.19.0"],
        ["lib.transformers=4.30.1", "lib.accelerate=0.21.0"],
    ),
    "torch-compile-triton-needs-sm70": (
        [CUDA, "arch=sm_61"],
        [CUDA, "arch=sm_70"],
    ),
    "triton-before-3.3-no-blackwell-consumer-sm120": (
        [CUDA, "arch=sm_120", "lib.triton=3.2.0"],
        [CUDA, "arch=sm_120", "lib.triton=3.3.0"],
    ),
    "bitsandbytes-before-0.47-no-cuda129-binary": (
        [CUDA, "torch=2.8.0+cu129", "lib.bitsandbytes=0.46.0"],
        [CUDA, "torch=2.8.0+cu129", "lib.bitsandbytes=0.47.0"],
    ),
    "xformers-0.0.23.post1-needs-torch-2.1.2": (
        ["torch=2.2.0+cu121", "lib.xformers=0.0.23.post1"],
        ["torch=2.1.1+cu121", "lib.xformers=0.0.23.post1"],
    ),
    "xformers-0.0.23-needs-torch-2.1.1": (
        ["torch=2.2.0+cu121", "lib.xformers=0.0.23"],
        ["torch=2.1.0+cu121", "lib.xformers=0.0.23"],
    ),
    "diffusers-0.35-needs-torch-2.4-custom-op": (
        ["torch=2.3.1+cu121", "lib.diffusers=0.35.1"],
        ["torch=2.4.0+cu121", "lib.diffusers=0.35.1"],
    ),
    "flash-attn-ck-gfx906-mi50-unsupported": (
        [ROCM, "arch=gfx906"],
        [ROCM, "arch=gfx90a"],
    ),
    "verl-vllm-0.6.3.post1-not-in-supported-list": (
        ["lib.verl=0.2.0", "lib.vllm=0.6.3.post1"],
        ["lib.verl=0.2.0", "lib.vllm=0.6.3"],
    ),
    "deepspeed-before-0.16-checkpoint-resume-torch-2.6-weights-only": (
        ["torch=2.6.0+cu124", "lib.deepspeed=0.15.4"],
        ["torch=2.5.1+cu124", "lib.deepspeed=0.15.4"],
    ),
    "rocm-tunableop-memory-access-fault": (
        [ROCM, "arch=gfx942", "torch=2.5.1+rocm6.2", "env.PYTORCH_TUNABLEOP_ENABLED=1"],
        [ROCM, "arch=gfx942", "torch=2.5.1+rocm6.2", "env.PYTORCH_TUNABLEOP_ENABLED=0"],
    ),
    "transformers-5.0-needs-torch-2.2": (
        ["torch=2.1.2", "lib.transformers=5.0.0"],
        ["torch=2.2.0", "lib.transformers=5.0.0"],
    ),
    "nccl-2.20-2.21-cuda-graph-allreduce-deadlock": (
        [CUDA, "arch=sm_90", "nccl=2.21.5"],
        [CUDA, "arch=sm_90", "nccl=2.22.3"],
    ),
    "nccl-2.29.2-hang-regression": (
        [CUDA, "arch=sm_90", "nccl=2.29.2"],
        [CUDA, "arch=sm_90", "nccl=2.29.3"],
    ),
    "accelerate-1.10-needs-torch-2.2-device-mesh": (
        ["torch=2.1.2", "lib.accelerate=1.10.0"],
        ["torch=2.2.0", "lib.accelerate=1.10.0"],
    ),
    "triton-before-3.6-no-ptxas-for-sm121": (
        [CUDA, "arch=sm_121", "lib.triton=3.5.0"],
        [CUDA, "arch=sm_121", "lib.triton=3.5.0", "env.TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas"],
    ),
    "triton-3.7-blackwell-cubins-need-cuda-13.1-driver": (
        [CUDA, "arch=sm_100", "driver_cuda=12.9", "lib.triton=3.7.1"],
        [CUDA, "arch=sm_100", "driver_cuda=13.1", "lib.triton=3.7.1"],
    ),
    "verl-needs-torch-2.4-device-mesh-export": (
        ["torch=2.2.0", "lib.verl=0.2.0"],
        ["torch=2.4.0", "lib.verl=0.2.0"],
    ),
    "bitsandbytes-0.43-no-cuda126-binary": (
        [CUDA, "torch=2.6.0+cu126", "lib.bitsandbytes=0.43.3"],
        [CUDA, "torch=2.6.0+cu124", "lib.bitsandbytes=0.43.3"],
    ),
}
# the rules restating AMD's ROCm release notes keep their cases beside their own tests
CASES.update(RELEASE_NOTES_CASES)
# the NCCL/RCCL release rules keep their cases and verbatim quotes beside their own tests
CASES.update(NCCL_RCCL_CASES)

# The issue's coverage list (docs/known-bad.md): each item, a rule that covers it and a replayed
# environment of exactly that situation.
COVERAGE: dict[str, tuple[str, list[str]]] = {
    "torchao needs torch.int1 (torchtune, torchao on older ROCm torch builds)": (
        "torchao-needs-torch-int1",
        [ROCM, "arch=gfx906", "torch=2.4.1+rocm6.0", "lib.torchao=0.13.0"],
    ),
    "PyTorch 2.5.1+rocm6.2 memory access faults on gfx906": (
        "torch-2.5.1-rocm6.2-gfx906-memory-fault",
        [ROCM, "arch=gfx906", "torch=2.5.1+rocm6.2"],
    ),
    "gfx906 with ROCm 7.x / PyTorch 2.9+rocm7.1": (
        "gfx906-torch-rocm6.4-plus-no-gfx906-kernels",
        [ROCM, "arch=gfx906", "torch=2.9.1+rocm7.1"],
    ),
    "HSA_OVERRIDE_GFX_VERSION set to another arch's version": (
        "gfx906-hsa-override-gfx-version-foreign-arch",
        [ROCM, "arch=gfx906", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0"],
    ),
    "Python 3.13 with ROCm wheels": ("rocm-python313-needs-torch-2.6", [ROCM, "python=3.13.0", "torch=2.5.1+rocm6.2"]),
    "bitsandbytes 4/8-bit on ROCm": (
        "bitsandbytes-rocm-4bit-before-0.50",
        [ROCM, "arch=gfx906", "lib.bitsandbytes=0.45.0"],
    ),
    "Ray >= 2.45 needing RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES": (
        "verl-ray-2.45-needs-noset-hip",
        [ROCM, "lib.ray=2.48.0", "lib.verl=0.5.0"],
    ),
    "vLLM with expandable segments": (
        "vllm-custom-allreduce-expandable-segments",
        [ROCM, "lib.vllm=0.11.0", f"env.PYTORCH_CUDA_ALLOC_CONF={EXPANDABLE}"],
    ),
    "bf16 before Ampere (V100)": ("bf16-requires-ampere", [CUDA, "arch=sm_70"]),
    "fp8 only on sm_89+": ("fp8-scaled-mm-cuda-pre-sm89", [CUDA, "arch=sm_86", "torch=2.7.1+cu126"]),
    "fp8 only on gfx942/gfx950": ("fp8-scaled-mm-rocm-pre-mi300", [ROCM, "arch=gfx1100", "torch=2.7.1+rocm6.3"]),
    "numpy 2 with torch built against numpy 1": (
        "numpy2-torch-built-against-numpy1",
        ["torch=2.2.2", "lib.numpy=2.1.0"],
    ),
}

# rule id -> real error text quoted in the rule's public source: (URL, quote)
QUOTES: dict[str, list[tuple[str, str]]] = {
    "gfx1151-rocm-before-7.2-cwsr-vgpr-crashes": [
        (  # ROCm 6.3.1 (Fedora's) on a Radeon 8060S: the first .cuda() tensor
            "https://github.com/ROCm/legacy-rocm-build/issues/5824",
            "Memory access fault by GPU node-1 (Agent handle: 0x1b376c50) on address 0x7f762a667000. Reason: Page "
            "not present or supervisor privilege.",
        ),
        (  # ROCm 6.4/7.0 (TheRock) on a Ryzen AI Max+ 395 PRO, llama.cpp
            "https://github.com/ROCm/legacy-rocm-build/issues/5151",
            "amdgpu 0000:c3:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
        ),
    ],
    "gfx12-rocm-7.0-7.1-hipblaslt-expert-scheduling-faults": [
        (  # RX 9070 XT, rocm/pytorch rocm7.0-7.1 images (6.4.4 works)
            "https://github.com/ROCm/ROCm/issues/5581",
            "Memory access fault by GPU node-1 (Agent handle: 0x3158d740) on address 0x731276071000. Reason: Page not "
            "present or supervisor privilege.",
        ),
    ],
    "rocm-7.0-7.1-nccl-watchdog-breaks-graph-capture": [
        (  # vLLM's AMD CI, distributed test groups on ROCm 7.0 and 7.1
            "https://github.com/vllm-project/vllm/pull/31259",
            "Process group watchdog thread terminated with exception: HIP error: operation not permitted when stream "
            "is capturing",
        ),
    ],
    "rocm-7.0.0-hip-launch-host-func-capture-refused": [
        (  # AMD's known-issue entry for ROCm 7.0.0 (the HIP error it returns)
            "https://github.com/ROCm/ROCm/issues/5337",
            "Applications using ``hipLaunchHostFunc`` with stream capture APIs might fail to capture graphs during "
            "stream capture, and return `hipErrorStreamCaptureUnsupported`.",
        ),
    ],
    "torch-2.5.1-rocm6.2-gfx906-memory-fault": [
        (
            "https://github.com/bigattichouse/worldmodel/blob/2ca5b27b04ee4e5c3e5cb3f5aa513448eeda747f/"
            "docs/rocm_troubleshooting.md",
            "Memory access fault by GPU node-1 on address (nil). Reason: Page not present or supervisor privilege.",
        )
    ],
    "gfx906-torch-rocm6.4-plus-no-gfx906-kernels": [
        (
            "https://github.com/ROCm/legacy-rocm-build/issues/4625",
            "rocBLAS error: Cannot read /opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary.dat: "
            "No such file or directory for GPU arch : gfx906",
        )
    ],
    "gfx906-hsa-override-gfx-version-foreign-arch": [
        (
            "https://github.com/bigattichouse/worldmodel/blob/2ca5b27b04ee4e5c3e5cb3f5aa513448eeda747f/"
            "docs/rocm_troubleshooting.md",
            "Memory access fault by GPU node-1 on address (nil). Reason: Page not present or supervisor privilege.",
        )
    ],
    "gfx900-torch-rocm7.2-no-tensile-library": [
        (
            "https://github.com/pytorch/pytorch/issues/179865",
            "rocBLAS error: Cannot read /media/HDD/programs/AI/ComfyUI/venv-linux/lib/python3.12/site-packages/"
            "torch/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch : gfx900",
        )
    ],
    "torchao-needs-torch-int1": [
        (
            "https://github.com/bigattichouse/worldmodel/blob/405f7ed8f7f73488253ab091a03ecbed1b44484b/"
            "ROCm_Training_Success_Guide.md",
            "AttributeError: module 'torch' has no attribute 'int1'",
        ),
    ],
    "torchao-needs-torch-float8-dtypes": [
        (
            "https://github.com/pytorch/ao/issues/1095",
            "Cannot import torchao because AttributeError: module 'torch' has no attribute 'float8_e4m3fn'",
        ),
    ],
    "torchao-0.8-inductor-config-import": [
        (
            "https://github.com/pytorch/ao/issues/1613",
            "AttributeError: module 'torch._inductor' has no attribute 'config'",
        ),
    ],
    "torchao-0.13-cpp-abi-torch-2.9": [
        (
            "https://github.com/pytorch/ao/issues/2901",
            'python -X faulthandler -c "import torchao"\nFatal Python error: Aborted',
        ),
    ],
    "numpy2-torch-built-against-numpy1": [
        (
            "https://github.com/pytorch/pytorch/issues/132179",
            "Numpy Compatibility Issue with PyTorch DataLoaders (RuntimeError: Numpy is not available)",
        ),
        (
            "https://github.com/xai4space/meteors/issues/20",
            "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash.",
        ),
    ],
    "ray-2.45-rocm-cuda-visible-devices-assert": [
        (
            "https://github.com/ray-project/ray/issues/52701",
            "AssertionError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        ),
    ],
    "ray-2.45-rocm-rocr-visible-devices-rejected": [
        # amd_gpu.py raises f"Please use {HIP_VISIBLE_DEVICES_ENV_VAR} instead of ROCR_VISIBLE_DEVICES"
        # with HIP_VISIBLE_DEVICES_ENV_VAR = "HIP_VISIBLE_DEVICES"; this is the rendered message.
        (
            "https://github.com/ray-project/ray/blob/008e15e9d62fe09bcd0a2f31990a1b73f1b2bd69/"
            "python/ray/_private/accelerators/amd_gpu.py",
            "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
        ),
    ],
    "ray-cli-click-8.3-sentinel": [
        (
            "https://github.com/alibaba/ROLL/pull/477",
            "ValueError: <object object at 0x7fa70eca36e0> is not a valid Sentinel",
        ),
    ],
    "vllm-sleep-mode-expandable-segments": [
        (
            "https://github.com/vllm-project/vllm-ascend/pull/9242 (quoting vLLM's CuMemAllocator)",
            'assert "expandable_segments:True" not in conf, (\n    "Expandable segments are not compatible '
            'with memory pool. "',
        ),
        (
            "https://github.com/OpenPipe/ART/issues/405",
            "RuntimeError: torch.cuda.MemPool doesn't currently support expandable_segments.",
        ),
    ],
    "vllm-custom-allreduce-expandable-segments": [
        (
            "https://github.com/vllm-project/vllm/issues/42609",
            "Failed: Cuda error custom_all_reduce.cuh:455 'invalid argument'",
        ),
        (
            "https://github.com/vllm-project/vllm/pull/56193",
            "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'",
        ),
    ],
    "vllm-requires-sm70": [
        (
            "https://github.com/vllm-project/vllm/issues/1284",
            "RuntimeError: GPUs with compute capability below 7.0 are not supported.",
        ),
    ],
    "bf16-requires-ampere": [
        (
            "https://github.com/vllm-project/vllm/issues/946",
            "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
            "Your Tesla V100-SXM2-32GB GPU has compute capability 7.0.",
        ),
        (
            "https://github.com/lm-sys/FastChat/issues/399",
            "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
        ),
        (
            "https://github.com/karpathy/nanoGPT/pull/277",
            "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
        ),
    ],
    "tf32-requires-ampere": [
        (
            "https://github.com/lm-sys/FastChat/issues/1191",
            "ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7",
        ),
    ],
    "fp8-scaled-mm-cuda-pre-sm89": [
        (
            "https://github.com/pytorch/pytorch/pull/164251",
            "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 "
            "or 8.9, or ROCm MI300+",
        ),
        (
            "https://github.com/pytorch/pytorch/issues/118703",
            "RuntimeError: torch._scaled_mm is only supported on devices with compute capability >= 9.0)",
        ),
    ],
    "fp8-scaled-mm-rocm-pre-mi300": [
        (
            "https://github.com/pytorch/pytorch/pull/164251",
            "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 "
            "or 8.9, or ROCm MI300+",
        ),
    ],
    "torch-cu130-needs-driver-580": [
        (
            "https://github.com/pytorch/pytorch/pull/162531",
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12080). "
            "Please update your GPU driver by downloading and installing a new version from the URL: "
            "http://www.nvidia.com/Download/index.aspx",
        ),
        (
            "https://github.com/sgl-project/sglang/issues/11395",
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12040).",
        ),
    ],
    "torch-cu12-needs-driver-525": [
        (
            "https://github.com/lllyasviel/Fooocus/issues/1313",
            "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
            "GPU driver by downloading and installing a new version from the URL: "
            "http://www.nvidia.com/Download/index.aspx",
        ),
        (
            "https://github.com/IEIT-Yuan/Yuan-2.0/issues/65",
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11000).",
        ),
    ],
    "torch-cu130-no-volta-pascal-maxwell": [
        (
            "https://github.com/unslothai/unsloth/pull/5876",
            "The first kernel launch then fails with `no kernel image is available for execution on the device`.",
        ),
    ],
    "nccl-2.29-nvls-multicast-bind-hopper": [
        (
            "https://github.com/pytorch/pytorch/pull/177472",
            "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 "
            "'the operation cannot be performed in the present state'.",
        ),
    ],
    "nccl-2.26-nvls-multicast-bind-hopper": [
        (
            "https://github.com/NVIDIA/nccl/issues/1788",
            "transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation cannot be performed in the present state'",
        ),
    ],
    "flash-attn-before-2.5.8-no-torch-2.3-wheels": [
        (
            "https://github.com/Dao-AILab/flash-attention/issues/931",
            "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
        ),
    ],
    "flash-attn-2.5.8-wheels-on-torch-2.2-before-2.2.2": [
        (
            "https://github.com/Dao-AILab/flash-attention/issues/931",
            "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
        ),
    ],
    "flash-attn-2.6-wheels-on-torch-2.6": [
        (
            "https://github.com/Dao-AILab/flash-attention/issues/1832",
            "ImportError: /opt/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
        ),
    ],
    "flash-attn-2-needs-ampere": [
        (
            "https://github.com/microsoft/MInference/issues/51",
            "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
        ),
    ],
    "flash-attn-ck-not-on-rdna": [
        ("https://github.com/ROCm/flash-attention/issues/93", "gfx1100 is invalid or not supported by Flash-Attention"),
        (
            "https://github.com/pccr10001/comfyui-gfx1151-fa/issues/3",
            "Flash Attention failed, using default SDPA: FlashAttention currently only supports MI100 and RX7000 and above",
        ),
        # Composable Kernel built for an RDNA arch it has no buffer-resource setting or MFMA for
        (
            "https://github.com/Comfy-Org/ComfyUI/pull/7223",
            "/tmp/pip-req-build-e29df3z_/csrc/flash_attn_rocm/composable_kernel/include/ck/utility/"
            "amd_buffer_addressing.hpp:32:48: error: use of undeclared identifier 'CK_BUFFER_RESOURCE_3RD_DWORD'",
        ),
        (
            "https://github.com/ROCm/flash-attention/issues/111",
            "Issue: GFX1151 fails to build. Undeclared identifier 'CK_TILE_BUFFER_RESOURCE_3RD_DWORD'",
        ),
        (
            "https://github.com/facebookresearch/xformers/issues/1026",
            "warp_gemm_attribute_mfma_impl_hip.hpp:116:17: error: '__builtin_amdgcn_mfma_f32_32x32x8bf16_1k' needs "
            "target feature mai-insts",
        ),
        # flash-attn's setup.py refusing a GPU_ARCHS outside its list (it names no gfx10 arch)
        (
            "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/setup.py#L220-L222",
            'f"Invalid archs: {archs}. Allowed: {allowed_archs}"',
        ),
    ],
    "triton-fp8e4nv-pre-sm89": [
        (
            "https://github.com/flagos-ai/FlagTree/issues/1005",
            "ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are "
            "('fp8e4b15', 'fp8e5')",
        ),
        ("https://github.com/triton-lang/triton/issues/4319", "fp8e4nv data type is not supported on CUDA arch < 89"),
    ],
    "diffusers-torchao-int1-before-torch-2.6": [
        (
            "https://github.com/Tencent-Hunyuan/Hunyuan-GameCraft-1.0/issues/24",
            "RuntimeError: Failed to import diffusers.loaders.lora_pipeline because of the following error "
            "(look up to see its traceback):\nmodule 'torch' has no attribute 'int1'",
        ),
    ],
    "vllm-sleep-mode-not-on-rocm": [
        (
            "https://github.com/vllm-project/vllm/issues/16561",
            'raise ValueError("Sleep mode is only supported on CUDA devices.")',
        ),
    ],
    "bitsandbytes-int8-before-0.37-needs-turing": [
        (
            "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/100",
            "ERROR: Your GPU does not support Int8 Matmul!",
        ),
    ],
    "ray-2.45-rocm-rocr-and-hip-both-set": [
        # the same raise as the rule above, rendered; it runs before HIP_VISIBLE_DEVICES is looked at
        (
            "https://github.com/ray-project/ray/blob/008e15e9d62fe09bcd0a2f31990a1b73f1b2bd69/"
            "python/ray/_private/accelerators/amd_gpu.py",
            "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
        ),
    ],
    "torch-cu128-2.8-no-pascal-maxwell": [
        (
            "https://github.com/bnsreenu/digitalsreeni-image-annotator/issues/57",
            "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
        ),
    ],
    "gfx906-system-rocm6.4-rocblas-no-gfx906": [
        (
            "https://github.com/ROCm/legacy-rocm-build/issues/4625",
            "rocBLAS error: Cannot read /opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary.dat: "
            "No such file or directory for GPU arch : gfx906",
        ),
    ],
    "rdna2-gfx103x-variants-need-hsa-override": [
        (
            "https://github.com/ROCm/legacy-rocm-build/issues/2061",
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        ),
    ],
    "transformers-torch-load-needs-torch-2.6": [
        (
            "https://github.com/autogluon/autogluon/pull/5270",
            "ValueError: Due to a serious vulnerability issue in `torch.load`, even with `weights_only=True`, we now "
            "require users to upgrade torch to at least v2.6 in order to use the function.",
        ),
    ],
    "deepspeed-0.14.0-elastic-agent-import-torch-2.4": [
        (
            "https://github.com/deepspeedai/DeepSpeed/issues/5337",
            "ImportError: cannot import name 'log' from 'torch.distributed.elastic.agent.server.api'",
        ),
        (
            "https://github.com/deepspeedai/DeepSpeed/issues/5603",
            "cannot import name '_get_socket_with_port' from 'torch.distributed.elastic.agent.server.api'",
        ),
    ],
    "peft-0.14-needs-transformers-encoder-decoder-cache": [
        (
            "https://github.com/HandsOnLLM/Hands-On-Large-Language-Models/issues/117",
            "ImportError: cannot import name 'EncoderDecoderCache' from 'transformers' "
            "(/usr/local/lib/python3.12/dist-packages/transformers/__init__.py)",
        ),
    ],
    "diffusers-0.33-needs-accelerate-0.32": [
        (
            "https://github.com/nullquant/ComfyUI-BrushNet/issues/197",
            "cannot import name 'clear_device_cache' from 'accelerate.utils.memory' "
            "(G:\\ComfyUI\\python\\Lib\\site-packages\\accelerate\\utils\\memory.py)",
        ),
    ],
    "torchvision-0.19-needs-torch-2.4-register-fake": [
        ("https://github.com/lllyasviel/IC-Light/issues/77", "module 'torch.library' has no attribute 'register_fake'"),
        (
            "https://github.com/mrhan1993/Fooocus-API/issues/402",
            "AttributeError: module 'torch.library' has no attribute 'register_fake'",
        ),
    ],
    "vllm-0.7.3-binary-needs-torch-2.5.1": [
        (
            "https://github.com/vllm-project/vllm/issues/5501",
            "Failed to import from vllm._C with ImportError('/usr/local/lib/python3.8/dist-packages/vllm/_C.abi3.so: "
            "undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj')",
        ),
    ],
    "vllm-0.3.2-binary-needs-torch-2.1": [
        (
            "https://github.com/vllm-project/vllm/issues/3147",
            "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined "
            "symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6Layout"
            "EEENS6_INS5_6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE",
        ),
    ],
    "vllm-0.2.2-binary-needs-torch-2.1": [
        (
            "https://github.com/vllm-project/vllm/issues/1807",
            "/usr/local/lib/python3.9/site-packages/vllm/quantization_ops.cpython-39-x86_64-linux-gnu.so: undefined "
            "symbol: _ZN3c104cuda9SetDeviceEi",
        ),
    ],
    "trl-before-0.8-top-k-top-p-filtering-transformers-4.39": [
        (
            "https://github.com/huggingface/trl/issues/1409",
            "ImportError: cannot import name 'top_k_top_p_filtering' from 'transformers' "
            "(/usr/local/lib/python3.10/dist-packages/transformers/__init__.py)",
        ),
    ],
    "transformers-trainer-needs-accelerate-0.20.1": [
        (
            "https://github.com/huggingface/blog/issues/1445",
            "ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: Please run "
            "`pip install transformers[torch]` or `pip install accelerate -U`",
        ),
    ],
    "torch-compile-triton-needs-sm70": [
        (
            "https://github.com/apple/ml-cross-entropy/issues/41",
            "RuntimeError: Found NVIDIA GeForce GTX 1070 which is too old to be supported by the triton GPU compiler, "
            "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device "
            "is of CUDA capability 6.1",
        ),
    ],
    "triton-before-3.3-no-blackwell-consumer-sm120": [
        (
            "https://github.com/triton-lang/triton/issues/5950",
            "'sm_120' is not a recognized processor for this target (ignoring processor)",
        ),
    ],
    "bitsandbytes-before-0.47-no-cuda129-binary": [
        (
            "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1688",
            "RuntimeError: Configured CUDA binary not found at "
            "/usr/local/lib/python3.12/dist-packages/bitsandbytes/libbitsandbytes_cuda129.so",
        ),
    ],
    "xformers-0.0.23.post1-needs-torch-2.1.2": [
        (
            "https://github.com/facebookresearch/xformers/issues/982",
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.2.0+cpu)",
        )
    ],
    "xformers-0.0.23-needs-torch-2.1.1": [
        (
            "https://github.com/facebookresearch/xformers/issues/982",
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.2.0+cpu)",
        )
    ],
    "diffusers-0.35-needs-torch-2.4-custom-op": [
        (
            "https://github.com/zheng95z/rgbx/issues/16",
            "RuntimeError: Failed to import diffusers.models.autoencoders.autoencoder_kl because of the following "
            "error (look up to see its traceback):\nmodule 'torch.library' has no attribute 'custom_op'",
        ),
    ],
    "flash-attn-ck-gfx906-mi50-unsupported": [
        (
            "https://github.com/ROCm/flash-attention/issues/29",
            "RuntimeError: DeviceGroupedMultiheadAttentionForward_Xdl_CShuffle_V2<256, 128, 128, 32, 8, 8, 128, 128, "
            "32, 2, Default, ASpecDefault, B0SpecDefault, B1SpecDefault, CSpecDefault, MaskUpperTriangleFromTopLeft> "
            "does not support this problem",
        ),
    ],
    "verl-vllm-0.6.3.post1-not-in-supported-list": [
        (
            "https://github.com/verl-project/verl/issues/245",
            "ValueError: vllm version 0.6.3.post1 not supported. Currently supported versions are 0.3.1, 0.4.2, "
            "0.5.4, 0.6.3 and 0.7.0+",
        ),
    ],
    "deepspeed-before-0.16-checkpoint-resume-torch-2.6-weights-only": [
        (
            "https://github.com/modelscope/ms-swift/issues/5808",
            "WeightsUnpickler error: Unsupported global: GLOBAL deepspeed.runtime.fp16.loss_scaler.LossScaler was not "
            "an allowed global by default.",
        ),
    ],
    "rocm-tunableop-memory-access-fault": [
        (
            "https://github.com/pytorch/pytorch/issues/139116",
            "Memory access fault by GPU node-2 (Agent handle: 0x562ee1524aa0) on address 0x7f2cf1201000. Reason: Unknown.",
        ),
    ],
    "transformers-5.0-needs-torch-2.2": [
        (
            "https://github.com/jingyaogong/minimind/issues/588",
            "Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1",
        ),
    ],
    "accelerate-1.10-needs-torch-2.2-device-mesh": [
        (
            "https://github.com/allenai/OLMo/issues/559",
            "ModuleNotFoundError: No module named 'torch.distributed.device_mesh'",
        ),
    ],
    "triton-before-3.6-no-ptxas-for-sm121": [
        (
            "https://github.com/triton-lang/triton/issues/8539",
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        ),
    ],
    "triton-3.7-blackwell-cubins-need-cuda-13.1-driver": [
        (
            "https://github.com/Dao-AILab/quack/issues/182",
            "every test that exercises `torch.compile` fails when the Inductor-compiled Triton kernel is loaded. "
            "(returns `CUDA_ERROR_INVALID_IMAGE (200)`)",
        ),
    ],
    "verl-needs-torch-2.4-device-mesh-export": [
        (
            "https://github.com/verl-project/verl/issues/661",
            "ImportError: cannot import name 'DeviceMesh' from 'torch.distributed'",
        ),
    ],
    "bitsandbytes-0.43-no-cuda126-binary": [
        (
            "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1315",
            "WARNING  bitsandbytes.cextension:cextension.py:94 Could not find the bitsandbytes CUDA binary at "
            "PosixPath('/usr/local/lib/python3.10/dist-packages/bitsandbytes/libbitsandbytes_cuda126.so')",
        ),
    ],
}
QUOTES.update(NCCL_RCCL_QUOTES)


@pytest.fixture(scope="module")
def rules():
    return load_matrix(str(KNOWN_BAD)).rules


def _active_ids(rules, overrides: list[str]) -> set[str]:
    env = apply_overrides(BASE, overrides)
    return {r.id for r in ActiveRules(rules, env).active}


def test_every_rule_has_a_case(rules) -> None:
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    missing = sorted(set(ids) - set(CASES))
    assert not missing, f"rules without a trigger/outside case in CASES: {missing}"
    stale = sorted(set(CASES) - set(ids))
    assert not stale, f"CASES for rules that are not in known_bad.yaml: {stale}"


def test_database_is_not_trivially_small(rules) -> None:
    assert len(rules) >= 80  # issue 14: at least 80 sourced rules


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_triggers(rules, rule_id: str) -> None:
    trigger, _ = CASES[rule_id]
    assert rule_id in _active_ids(rules, trigger), f"{rule_id} did not trigger for {trigger}"


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_does_not_trigger_just_outside(rules, rule_id: str) -> None:
    _, outside = CASES[rule_id]
    assert rule_id not in _active_ids(rules, outside), f"{rule_id} triggered for {outside}"


def test_rules_do_not_fire_on_the_base_environment(rules) -> None:
    assert ActiveRules(rules, BASE).active == ()


def test_every_rule_has_a_public_link(rules) -> None:
    for rule in rules:
        assert rule.links, f"{rule.id} has no link"
        for link in rule.links:
            assert link.startswith("https://"), f"{rule.id}: {link}"


def test_xfail_rules_have_a_signature(rules) -> None:
    for rule in rules:
        if rule.action == "xfail":
            assert rule.signature is not None, f"xfail rule {rule.id} has no signature"


def test_every_signature_has_a_quoted_source(rules) -> None:
    with_signature = {r.id for r in rules if r.signature is not None}
    missing = sorted(with_signature - set(QUOTES))
    assert not missing, f"signatures without a quoted error text from the source: {missing}"


@pytest.mark.parametrize("rule_id", sorted(QUOTES))
def test_signature_matches_the_quoted_error(rules, rule_id: str) -> None:
    rule = {r.id: r for r in rules}[rule_id]
    assert rule.signature is not None, f"{rule_id} has quotes but no signature"
    for url, quote in QUOTES[rule_id]:
        assert rule.signature.search(quote), f"{rule_id}: signature does not match the text quoted in {url}"


def test_signatures_do_not_match_unrelated_failures(rules) -> None:
    unrelated = "AssertionError: assert 1 == 2\nRuntimeError: CUDA out of memory."
    for rule in rules:
        if rule.signature is not None:
            assert not rule.signature.search(unrelated), rule.id


def test_fixed_in_lies_outside_the_rule(rules) -> None:
    """A ``fixed_in`` version must not satisfy the rule's own condition on that axis or library."""
    for rule in rules:
        specs: dict[str, SpecifierSet] = dict(rule.when.versions)
        specs.update((name, spec) for name, spec in rule.when.libraries if isinstance(spec, SpecifierSet))
        for name, version in rule.fixed_in:
            if name in specs:
                assert not specifier_contains(specs[name], version), f"{rule.id}: fixed_in {name} {version}"


def test_memory_fault_rule_is_kept_as_specified(rules) -> None:
    rule = {r.id: r for r in rules}["torch-2.5.1-rocm6.2-gfx906-memory-fault"]
    assert rule.when.archs == ("gfx906",)
    assert dict(rule.when.versions) == {
        "torch": SpecifierSet("==2.5.1"),
        "torch_rocm": SpecifierSet("==6.2.*"),
    }
    assert "https://github.com/ROCm/ROCm/issues/4166" not in rule.links
    # contested: one report of the fault, one of the same build working -> isolate with signature, never skip
    assert rule.contested and rule.action == "isolate" and rule.signature is not None
    assert "https://github.com/pytorch/pytorch/issues/147626" in rule.links


@pytest.mark.parametrize("item", sorted(COVERAGE))
def test_issue_coverage_item_is_covered(rules, item: str) -> None:
    rule_id, overrides = COVERAGE[item]
    assert rule_id in {r.id for r in rules}, f"{item}: rule {rule_id} is not in known_bad.yaml"
    assert rule_id in _active_ids(rules, overrides), f"{item}: {rule_id} did not trigger for {overrides}"


def test_coverage_table_in_docs_matches() -> None:
    """docs/known-bad.md maps every coverage item to the same rule id as COVERAGE."""
    text = (KNOWN_BAD.parents[1] / "docs" / "known-bad.md").read_text(encoding="utf-8")
    for item, (rule_id, _) in COVERAGE.items():
        rows = [line for line in text.splitlines() if line.startswith("|") and item in line]
        assert rows, f"docs/known-bad.md has no coverage row for {item!r}"
        assert f"`{rule_id}`" in rows[0], f"docs/known-bad.md row for {item!r} does not name {rule_id}"


def test_every_rule_is_documented_in_the_sources_table(rules) -> None:
    text = (KNOWN_BAD.parents[1] / "docs" / "known-bad-sources.md").read_text(encoding="utf-8")
    missing = [r.id for r in rules if f"| `{r.id}` |" not in text]
    assert not missing, f"rules without a row in docs/known-bad-sources.md: {missing}"

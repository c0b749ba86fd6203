"""``bf16-unsupported-arch`` and ``fp8-format-arch``: a numeric format the GPU does not have.

Both read :mod:`pytest_rocmcompat.knowledge.arch_table`. bf16: CUDA GPUs below compute
capability 8.0 (Pascal, Volta, Turing) have no bf16 arithmetic; vLLM, transformers and torch's
autocast refuse it there. fp8: Ampere and older, CDNA1-2 and RDNA1-3 have no fp8; MI300-class
(gfx940/941/942) has only the FNUZ variants, so the OCP ``float8_e4m3fn``/``float8_e5m2`` (Triton
``fp8e4nv``/``fp8e5``) fail there; gfx950 and RDNA4 (gfx12) have only OCP, so FNUZ fails there.

A format matters only to code that uses it, so each finding reaches the tests that say so: by
name (``*bf16*``, ``*fp8*`` ...) or ``uses("bf16")`` / ``uses("fp8")``, and for bf16 the libraries
whose usual configurations pick bf16 (a bf16 checkpoint in vLLM, ``bf16=True`` in transformers,
accelerate, TRL, DeepSpeed). The signature keeps every other failure of those tests ``fail``.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

BF16_ID = "bf16-unsupported-arch"
FP8_ID = "fp8-format-arch"
BF16_NODEIDS = ("*bf16*", "*bfloat16*", "*BF16*")
BF16_USES = ("bf16", "bfloat16", "vllm", "transformers", "accelerate", "trl", "deepspeed")
FP8_NODEIDS = ("*fp8*", "*float8*", "*FP8*", "*fnuz*")
FP8_USES = ("fp8", "float8")
# AMD's statement of both variants: "The hipblaslt_f8_fnuz and hipblaslt_bf8_fnuz data types are only supported
# on the gfx942 platform. The hipblaslt_f8 and hipblaslt_bf8 data types are only supported on the gfx950 and
# gfx12 platforms." (arch_table.S_HIP_FP8, HIP 6.2's page, names FNUZ only, so it misleads on gfx950/gfx12.)
S_HIPBLASLT_FP8 = "https://rocm.docs.amd.com/projects/hipBLASLt/en/latest/reference/data-type-support.html"
# vLLM's dtype check, transformers' TrainingArguments(bf16=True), torch autocast's check, and
# (seventh round) Accelerate's mixed-precision check (src/accelerate/accelerator.py).
BF16_PREDICTS = (
    # (case-blind: users paste it lower-cased, https://github.com/OpenBuddy/OpenBuddy/issues/45)
    r"(?i:Bfloat16 is only supported on GPUs with compute capability of at least 8\.0)"
    r"|Your setup doesn't support bf16/gpu|Current CUDA Device does not support bfloat16"
    r"|bf16 mixed precision requires PyTorch >= 1\.10 and a supported device"
    # ptxas refusing bf16 PTX (Triton or xformers kernels) below sm_80: facebookresearch/chameleon#39
    # (maintainer: "bf16 support is required, so V100 TensorCores won't support inference"),
    # https://github.com/facebookresearch/chameleon/issues/39, https://github.com/ModelTC/LightLLM/issues/1029
    r"|Feature '[^'\n]{0,40}bf16[^'\n]{0,40}' requires \.target sm_80 or higher"
    # thirtieth round: Triton lowering a bf16 conversion on a GPU below sm_80, which has no instruction for it
    # (ElementwiseOpToLLVM.cpp's "Unsupported conversion from bf16 to f16", then UNREACHABLE; on a GTX 1080:
    # https://github.com/Tractables/pyjuice/issues/20)
    r"|Unsupported conversion from '?bf16'? to"
)
# Triton's per-arch fp8 types (its AMD backend lists them per gfx arch: third_party/amd/backend/compiler.py),
# torch._scaled_mm's arch gate, and compilers rejecting FNUZ off gfx942.
FP8_PREDICTS = (
    r"type fp8\w* not supported in this architecture|fp8e4nv data type is not supported on CUDA arch"
    r"|torch\._scaled_mm is only supported on"
    r"|F8E5M2FNUZ and F8E4M3FNUZ types are not supported on non-gfx942"
    # seventh round: Transformer Engine's fp8 gate, NVIDIA's (transformer_engine/pytorch/quantization.py
    # "Device compute capability 8.9 or higher required for FP8 execution.") and ROCm's fork
    # (transformer_engine/pytorch/fp8.py "Device arch gfx94x or gfx95x required for FP8 execution.")
    r"|Device (?:compute capability|arch) [\w.]{1,12}(?: or [\w.]{1,12})? required for FP8 execution"
    # torch._scaled_mm on ROCm: the FNUZ (gfx942) / OCP (other archs) operand check and the MX block
    # scaling arch gate (aten/src/ATen/native/cuda/ScaledBlas.cpp):
    # https://github.com/pytorch/pytorch/blob/0174dfabc023f11a8f78c79c301b49c8d7e02c8b/aten/src/ATen/native/cuda/ScaledBlas.cpp
    r"|Expected b\.dtype\(\) == at::kFloat8_e4m3fn(?:uz)?, got: "
    r"|expected mat_b\.dtype\(\) to be at::kFloat8_e4m3fn(?:uz)?, but got "
    r"|Block-wise scaling for Float8_e8m0fnu is only supported on "
    # AITER's Triton attention and dtype helpers on an arch without fp8 (vLLM ROCm, flash-attn's AMD
    # Triton backend): aiter/ops/triton/_triton_kernels/flash_attn_triton_amd/fwd_prefill.py and
    # aiter/ops/triton/utils/types.py at ROCm/aiter@e4048607a535ace3a2b51ded31b1c8c2d45c0879
    r"|\bgfx\w+ does not support FP8|This device does not support fp8"
    # flash-attn's CuTe interface (FA4) refusing fp8 below SM100 (flash_attn/cute/interface.py):
    # https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn/cute/interface.py#L765
    r"|FP8 is only supported on SM\d+"
    # the NVIDIA backend's "Conversion from/to f8e4m3nv is only supported on compute capability >= 90":
    # https://github.com/triton-lang/triton/issues/4232, https://github.com/kvcache-ai/ktransformers/issues/836
    r"|f8e4m3nv is only supported on compute capability >= \d+"
    # vLLM's quantization capability gate for an fp8 method: https://github.com/vllm-project/vllm/issues/4327
    r"|The quantization method \w{0,20}fp8\w{0,20} is not supported for the current GPU"
    # ComfyUI-QwenVL's fp8 gate (maintainer confirms the 8.9 minimum): https://github.com/1038lab/ComfyUI-QwenVL/issues/28
    r"|FP8 models require a GPU with Compute Capability 8\.9 or higher"
    # torchtitan's float8 gate (torchtitan/components/quantization/float8.py): https://github.com/pytorch/torchtitan/pull/3760
    r"|float8 is only supported on SM89 or later"
)


# Messages that name no arch, predicted only where they name the variant the GPU lacks (Finding.predicts):
# Triton lowering an fp8 conversion the arch has no path for (ElementwiseOpToLLVM "Unsupported conversion
# from "; https://github.com/ROCm/aiter/issues/544, https://github.com/pytorch/pytorch/issues/126734);
# on an FNUZ-only GPU, Triton's AMD backend finding no MFMA for OCP fp8 (maintainer: "the native fp8 variants
# supported on mi30x/mi325 are fp8e4b8 and fp8e5b16", https://github.com/triton-lang/triton/issues/6542).
# hipBLASLt's bare HIPBLAS_STATUS_NOT_SUPPORTED names no dtype and is any heuristic miss: not predicted.
_OCP_CONVERSION = r"Unsupported conversion from '?f8E(?:4M3FN|5M2)'? to"
# torch's dtype dispatch of a scaled GEMM built without the OCP variants, as an FNUZ-only GPU's build meets it
# (torch._scaled_mm on an MI300X through TunableOp: '"_tunable_scaled_gemm" not implemented for
# 'Float8_e4m3fn'', https://github.com/stas00/ml-engineering/issues/91); only the scaled family: a plain
# matmul of fp8 tensors ("addmm_cuda" ...) is refused on every GPU
_OCP_DISPATCH = r"\"\w{0,40}scaled\w{0,40}\" not implemented for 'Float8_e(?:4m3fn|5m2)'"
# Triton lowering a FNUZ conversion, and HIP's FNUZ fp8 types in device code for a GPU without them (amd_hip_fp8.h
# defines them host-only where HIP_FP8_TYPE_FNUZ is 0, e.g. gfx950: "no matching constructor for initialization of
# '__hip_fp8x4_e4m3_fnuz'", ROCm/rocm-systems#7509)
_FNUZ_CONVERSION = (
    r"Unsupported conversion from '?f8E(?:4M3|5M2)FNUZ'? to"
    r"|no matching constructor for initialization of '__hip_fp8\w{0,12}_fnuz'"
)
_ANY_CONVERSION = r"Unsupported conversion from '?f8E\w{1,16}'? to"
# eighth round: libraries' gates asking for fp8 hardware at all, predicted only on a GPU without fp8, since
# their detection also refuses fp8 GPUs (torchao's on gfx950/gfx12: https://github.com/pytorch/ao/pull/4108;
# transformers' fbgemm 9.0 gate on sm_89). torchao's quant_api assert (first form https://github.com/pytorch/ao/pull/1314,
# the current one quoted in https://github.com/vllm-project/vllm/pull/36854), vLLM's own check for it (that
# PR), transformers' FP8 quantizers (quantizer_finegrained_fp8.py 8.9, quantizer_fbgemm_fp8.py 9.0:
# https://github.com/black-forest-labs/flux2/issues/54, https://github.com/huggingface/huggingface-llama-recipes/issues/21)
_FP8_GATES = (
    r"Float8 (?:dynamic|static) activation quantization is only supported on CUDA ?(?:>=)?8\.9"
    r"|torchao FP8 activation quantization config '\w{1,80}' requires GPU compute capability >= 8\.9"
    r"|FP8 quantized models is only supported on GPUs with compute capability >= (?:8\.9|9\.0)"
    # twenty-second round (each quoted in tests/knowledge/test_fp8_messages_gates.py): torchao's float8 inference
    # check (torchao/float8/inference.py at v0.18.0, "... requires CUDA compute capability ≥8.9 or MI300+ or XPU."),
    # TensorRT's builder on a GPU without fp8 (NVIDIA/TensorRT-LLM#1428 on A100, NVIDIA/Model-Optimizer#70 on an
    # RTX A6000), FBGEMM's Triton fp8 GEMM on a ROCm GPU below gfx94x (fbgemm_gpu/experimental/gemm/triton_gemm/
    # fp8_gemm.py), TensorRT-LLM's FP8 FMHA gate (NVIDIA/TensorRT-LLM#2855), FlashInfer's FA2 backend, the one a GPU
    # without fp8 tensor cores gets (flashinfer-ai/flashinfer#1992), and the GEMM libraries' own refusal of an fp8
    # matmul on such a GPU (torch._scaled_mm on an A100 before torch had a capability check: pytorch/pytorch#108411)
    r"|Float8 [\w ]{1,80}requires CUDA compute capability (?:≥|>=) ?8\.9"
    r"|Networks with FP8 [\w/ ]{1,30}require hardware with FP8 support"
    r"|Unsupported GPU arch: \S+ for FP8|FP8 FMHA cannot be enabled except on"
    r"|fp8 tensor core is not supported in fa2 backend|(?:CUBLAS|HIPBLAS)_STATUS_NOT_SUPPORTED"
    # thirtieth round: vLLM before its ROCm fp8 support refusing the method on ROCm (config.py's
    # rocm_supported_quantization, f"{self.quantization} quantization is currently not supported in ROCm."): on every
    # ROCm GPU of those releases, so predicted only where the GPU has no fp8 anyway (an MI250:
    # https://github.com/vllm-project/vllm/issues/7471)
    r"|fp8 quantization is currently not supported in ROCm"
)
# ninth round: compilers rejecting fp8 instructions for a GPU without them: clang's builtin target-feature check
# (clang/test/CodeGenOpenCL/builtins-amdgcn-gfx9-4-generic-err.cl at
# llvm/llvm-project@2214e9c2599bce6585fc6bb022d8bd9f31bfff07; AITER's JIT modules on gfx1100/gfx115x, where
# "that feature is absent": https://github.com/ROCm/aiter/pull/3860) and ptxas' PTX feature check below
# sm_89 (https://github.com/zhihu/ZhiLight/issues/12; on sm_89, which has fp8, the same text is a PTX ISA
# limit, https://github.com/ggml-org/llama.cpp/issues/22069, so not predicted there). Both name the fp8
# builtin or PTX type.
_FP8_ISA = (
    r"'__builtin_amdgcn_\w{0,40}(?:fp8|bf8)\w{0,40}' needs target feature fp8(?:-conversion)?-insts"
    r"|Feature '[^'\n]{0,40}\.e[45]m[23]x2[^'\n]{0,40}' requires \.target sm_\d+"
    # LLVM's AMDGPU instruction selection on a GPU without the fp8 conversions (its own test,
    # llvm/test/CodeGen/AMDGPU/llvm.amdgcn.cvt.f32.fp8.err.ll: gfx908/gfx90a "Cannot select: intrinsic
    # %llvm.amdgcn.cvt.f32.fp8")
    r"|[Cc]annot select: [^\n]{0,80}?intrinsic[ (]%?@?llvm\.amdgcn\.[\w.]{0,40}(?:fp8|bf8)"
)
# twenty-sixth round: a torch built for ROCm before 6.5 refusing OCP fp8 in _scaled_mm (ScaledBlas.cpp, ROCM_SCALED_SOURCE:
# TORCH_CHECK(ROCM_VERSION >= 60500, "Float8_e4m3fn is only supported for ROCm 6.5 and above"; Comfy-Org/ComfyUI#10388
# on gfx1201 with torch 2.9.0+rocm6.4), and an older ROCm torch's dtype mapping given OCP fp8 on MI300 ("Cannot convert
# ScalarType Float8_e4m3fn to hipDataType", HIPDataType.h: sgl-project/sglang#5147)
_OCP_BUILD = (
    r"Float8_e(?:4m3fn|5m2) is only supported for ROCm [\d.]+ and above"
    r"|Cannot convert ScalarType Float8_e(?:4m3fn|5m2) to (?:hip|cuda)DataType"
)
ROCM_SCALED_SOURCE = "https://github.com/pytorch/pytorch/blob/0174dfabc023f11a8f78c79c301b49c8d7e02c8b/aten/src/ATen/native/cuda/ScaledBlas.cpp"
ROCM_OCP = Version("6.5")  # the first ROCm a torch build's _scaled_mm takes OCP fp8 with
LACKS_PREDICTS = {
    "ocp": f"{_OCP_CONVERSION}|{_OCP_DISPATCH}|No match found in MFMA database|{_OCP_BUILD}",
    "fnuz": _FNUZ_CONVERSION,
    "all": f"{_ANY_CONVERSION}|{_FP8_GATES}|{_FP8_ISA}",
}


def check_bf16(env: Environment) -> list[Finding]:
    lacking = [r for r in _rows(env) if r.vendor == "nvidia" and not r.bf16]
    if not lacking:
        return []
    names = ", ".join(f"{r.name} ({r.family})" for r in lacking)
    return [
        Finding(
            check=BF16_ID,
            reason=f"{names} has no bfloat16 arithmetic (compute capability 8.0+ needed)",
            fix="use float16 (dtype='half', fp16=True) on this GPU, or run bf16 work on Ampere or newer",
            link=arch_table.S_NV_TE,
            uses=BF16_USES,
            nodeids=BF16_NODEIDS,
            conditional=True,
        )
    ]


def check_fp8(env: Environment) -> list[Finding]:
    problems: list[str] = []
    lacks: set[str] = set()  # the fp8 variants some GPU lacks (LACKS_PREDICTS)
    link = arch_table.S_NV_TE
    for r in _rows(env):
        if r.fp8 == "":
            problems.append(f"{r.name} ({r.family}) has no fp8")
            lacks.add("all")
        elif r.fp8 == "fnuz":
            problems.append(f"{r.name} ({r.family}) has only FNUZ fp8 (float8_e4m3fnuz/e5m2fnuz), not OCP e4m3fn/e5m2")
            lacks.add("ocp")
        elif r.vendor == "amd":
            problems.append(f"{r.name} ({r.family}) has only OCP fp8 (float8_e4m3fn/e5m2), not FNUZ")
            lacks.add("fnuz")
            built = env.torch_rocm
            if built is not None and built < ROCM_OCP:  # its only fp8 is one this torch build's _scaled_mm refuses
                problems.append(
                    f"torch {env.torch} is built for ROCm {built}, whose _scaled_mm takes OCP fp8 from ROCm 6.5"
                )
                lacks.add("ocp")
        else:
            continue
        link = S_HIPBLASLT_FP8 if r.vendor == "amd" else arch_table.S_NV_TE
    if not problems:
        return []
    return [
        Finding(
            check=FP8_ID,
            reason="; ".join(problems),
            fix="use the fp8 variant of this arch (FNUZ on gfx940-942, OCP on gfx950/gfx12 and sm_89+), "
            "or bf16/fp16 where it has no fp8",
            link=link,
            uses=FP8_USES,
            nodeids=FP8_NODEIDS,
            conditional=True,
            predicts="|".join(LACKS_PREDICTS[v] for v in sorted(lacks)),
        )
    ]


def _rows(env: Environment) -> list[arch_table.Arch]:
    return [r for r in (arch_table.info(a) for a in env.archs) if r is not None]

"""``library-min-arch``: a library the tests use has no kernels for this GPU (its own minimum arch).

From :data:`pytest_rocmcompat.knowledge.arch_table.LIB_MIN_ARCH`, versioned per range of the
library's releases (flash-attn: Turing+ in 1.x, Ampere+ from 2.0 on CUDA; on ROCm MI200/MI300, then
MI350, then RDNA 3/4; FlashAttention-3 Hopper; vLLM Volta+, later Turing+, on CUDA and its growing
gfx list on ROCm; Transformer Engine Ampere+; xformers' ROCm wheels gfx90a/gfx942; Triton's AMD
backend, torch.compile's compiler on ROCm, from 3.5 refusing the gfx archs it has no ISA family for;
AITER's asm kernels MI300/MI350, with RDNA 3/3.5/4 experimental from 0.1.19; SGLang's ROCm kernels,
sgl-kernel, MI300/MI350 from 0.4.3, a risk: built from source), each row sourced.
Triton's release is the one listed, else the one an official ``+rocm`` torch pins, and its findings
also reach the tests that use torch.compile or Inductor. A stack listing the library's version is
judged by the row of that release; otherwise by every arch some release serves (the finding then
conditional: only tests that use it meet it). Reaches the tests that ``uses`` it. AITER's findings
also reach the tests of vLLM and SGLang when the stack's variable switches AITER on there and that
release lets AITER run on the GPU (:data:`AITER_ENABLERS`). A listed release is also held to what its
source build accepts (:data:`BUILDS`: vLLM's CMake arch list), and vLLM is also read under its ROCm
distribution ``vllm-rocm``.
"""

from __future__ import annotations

from typing import NamedTuple

from packaging.version import Version

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks.dynamo_gate import COMPILE_USES
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.rocm_targets import TRITON_HIP_NO_BINARY
from pytest_rocmcompat.knowledge.torch_rocm_triton import rocm_triton_pin
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.versions import optional_version, parse_specifier, specifier_contains

ID = "library-min-arch"
# Triton, as torch.compile's compiler: listed under any of its distributions, else the version an
# official +rocm torch pins; its findings also reach the tests that use torch.compile or Inductor.
TRITON_DISTRIBUTIONS = ("triton", "pytorch-triton-rocm", "triton-rocm")
# AITER (ROCm/aiter): the distribution is amd-aiter (setup.py PACKAGE_NAME since ROCm/aiter#1620,
# 2025-12-12), "aiter" in source builds before; a test names it by its import name, ``uses("aiter")``.
AITER_DISTRIBUTIONS = ("amd-aiter", "aiter")
AITER_USES = ("aiter", "amd-aiter")
# PyPI's "aiter" is another project (asynchronous iterators, 0.13.20191203): a listed "aiter" at 0.13 or
# later is that one, not AMD's (whose releases are 0.1.x).
_OTHER_AITER = Version("0.13")
_TRUE = ("1", "true")
# vLLM: also PyPI's vllm-rocm (0.6.3, "... LLMs with AMD GPU support"), a ROCm wheel of vLLM that installs the
# ``vllm`` package (its _version.py: 0.6.3.dev193+gfd47e57f.d20241014); its _C, _moe_C and _rocm_C hold code
# objects for gfx90a, gfx942 and gfx1100 only, the <0.7.3 row's list: https://pypi.org/project/vllm-rocm/0.6.3/
VLLM_DISTRIBUTIONS = ("vllm", "vllm-rocm")
# SGLang's findings (its ROCm kernels) also reach the tests that use those kernels by their own names
SGLANG_USES = ("sglang", "sgl-kernel", "sglang-kernel")


class Experimental(NamedTuple):
    """Archs a library's releases name as experimental: served in part, so a risk, not a certainty."""

    versions: str  # PEP 440 specifier of the releases
    archs: str
    source: str


# AITER's README from v0.1.19 (ROCm/aiter#4303): gfx1100, gfx1151, gfx1201 "Experimental": "On RDNA, Triton
# and most FlyDSL kernels run, as do most HIP kernels (norm, RoPE, quant, activation, plus some
# GEMM/attention). Most CK and ASM kernels are CDNA-only."
# ">=0.1.19.dev0": the releases arch_table's latest aiter row judges (its "<0.1.19" row leaves 0.1.19's dev builds out).
# gfx90a (CDNA2) in every release: AITER's docs name it from v0.1.12, its CK and HIP kernels build for it, but
# its asm kernels (hsa/) are gfx942/gfx950 code objects only.
AITER_EXPERIMENTAL = (
    Experimental("<0.1.19.dev0", "gfx90a", "https://github.com/ROCm/aiter/blob/v0.1.12/docs/installation.rst"),
    Experimental(
        ">=0.1.19.dev0",
        "gfx90a gfx1100 gfx1151 gfx1201",
        "https://github.com/ROCm/aiter/blob/v0.1.19/README.md#supported-hardware",
    ),
)


class Enabler(NamedTuple):
    """A framework that runs AITER's kernels when a variable switches them on, for a range of its releases."""

    framework: str  # distribution, as ``uses`` names it
    variable: str
    versions: str  # PEP 440 specifier of the framework's releases
    archs: str  # the GPUs the release lets AITER run on; "" for any
    source: str


_VLLM = "https://github.com/vllm-project/vllm/blob"
# Each off by default (read at the tags, the files in the PyPI wheels). vLLM: VLLM_ROCM_USE_AITER from 0.8.2
# (absent in 0.8.1), os.getenv(..., "False") in ("true", "1") through 0.33.0. Up to 0.11.0 its MoE,
# RMSNorm and linear paths test only the variable (fused_moe/rocm_aiter_fused_moe.py
# is_rocm_aiter_moe_enabled); from 0.11.1 its AITER ops go through _aiter_ops.py's if_aiter_supported, on
# on_gfx9() (gfx90a, gfx942, gfx950; left out: Quark's MXFP4 asm GEMM behind its own off-by-default
# VLLM_ROCM_USE_AITER_FP4_ASM_GEMM); 0.19.0 on on_mi3xx() (gfx942, gfx950); 0.27.0 on get_cdna_version() > 2
# (gfx942, gfx950, gfx1250); 0.30.0 adds is_aiter_found_and_supported_on_rdna4 for AITER's Triton kernels
# only ("gfx12 has no aiter CK build"), the kernels AITER's README says run on RDNA: not counted.
# SGLang: SGLANG_USE_AITER from 0.4.7 (0.4.6 read CK_MOE), get_bool_env_var(name, default="false") and
# _is_hip, no arch gate (0.5.23: only gfx1250 keeps its fp8 GEMMs off AITER).
AITER_ENABLERS = (
    Enabler("vllm", "VLLM_ROCM_USE_AITER", ">=0.8.2,<0.11.1", "", f"{_VLLM}/v0.8.2/vllm/envs.py"),
    Enabler(
        "vllm", "VLLM_ROCM_USE_AITER", ">=0.11.1,<0.19", "gfx90a gfx942 gfx950", f"{_VLLM}/v0.11.1/vllm/_aiter_ops.py"
    ),
    Enabler("vllm", "VLLM_ROCM_USE_AITER", ">=0.19", "gfx942 gfx950", f"{_VLLM}/v0.19.0/vllm/_aiter_ops.py"),
    Enabler(
        "sglang",
        "SGLANG_USE_AITER",
        ">=0.4.7",
        "",
        "https://github.com/sgl-project/sglang/blob/v0.4.7/python/sglang/srt/layers/quantization/fp8.py",
    ),
)


class Build(NamedTuple):
    """The archs a range of a library's releases accepts in its source build (its CMake list)."""

    library: str
    vendor: str
    versions: str  # PEP 440 specifier of the releases
    archs: str
    source: str


# vLLM's HIP_SUPPORTED_ARCHS (CMakeLists.txt; the build stops with "None of the detected ROCm architectures: ...
# is supported" for a GPU outside it), read in the sdists of 27 tags from v0.4.1 to v0.33.0: v0.4.1-v0.6.3 gfx906
# gfx908 gfx90a gfx940 gfx941 gfx942 gfx1030 gfx1100; v0.6.6-v0.7.2 also gfx1101; v0.7.3-v0.8.2 (each read) less
# gfx940/941; v0.8.3 adds gfx950, gfx1200 and gfx1201, as its installation docs add "Radeon RX 9000 series
# (gfx1200/1201)"; gfx1150/1151 by v0.11.1, gfx1152/1153 by v0.19.0, gfx1102/1103 by v0.21.0, gfx1250 by v0.30.0.
# Each holds every arch the LIB_MIN_ARCH row of its release serves except v0.7.3-v0.8.2's: that row (read at
# v0.11.0) serves gfx950/gfx1200/gfx1201, which neither the build nor the docs at those tags ("MI200s (gfx90a),
# MI300 (gfx942), Radeon RX 7900 series (gfx1100)") name. Only that range is a row here.
BUILDS = (
    Build(
        "vllm",
        "amd",
        ">=0.7.3,<0.8.3",
        "gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101",
        "https://github.com/vllm-project/vllm/blob/v0.7.3/CMakeLists.txt#L37",
    ),
)
# The libraries' own refusals (flash-attn CUDA and ROCm, vLLM, Transformer Engine), the generic
# missing-kernel errors a build without the arch gives, and the compile failures of their kernels
# (Composable Kernel, Triton, LLVM) for an arch without the features they need.
PREDICTS = (
    r"FlashAttention only supports (?:Ampere GPUs or newer|AMD MI200 GPUs or newer)"
    r"|is invalid or not supported by Flash-Attention|FlashAttention currently only supports MI\d+"
    r"|FlashAttention-3 only supports|GPUs with compute capability below 7\.0 are not supported"
    r"|no kernel image is available for execution on the device"
    # Transformer Engine's arch refusal (transformer_engine/pytorch/utils.py is_bf16_available, the
    # reason below its compute capability 8.0 minimum); its "Transformer Engine requires ..." texts are
    # build-time CUDA/Python version checks (build_tools/pytorch.py, build_tools/utils.py), not the arch:
    # https://github.com/NVIDIA/TransformerEngine/blob/d0067d0da6cb01811b8072a7d304f0e00344ce2b/transformer_engine/pytorch/utils.py#L652
    r"|BF16 support requires a GPU with compute capability 8\.0 or higher"
    # vLLM on ROCm refuses a gfx8 (or older) arch when it reads the capability from the gcnArchName
    # (vllm/platforms/rocm.py, _capability_from_gcn_arch):
    # https://github.com/vllm-project/vllm/blob/001eda31e3d032e9dc864e97f3630358b2ff8b5a/vllm/platforms/rocm.py
    r"|Major version < 9 is not expected for any supported AMD GPU"
    r"|(?i:invalid device function)|hipErrorNoBinaryForGpu"
    # seventh round: flash-attn's CuTe interface (FA4) refusing the arch
    # (flash_attn/cute/interface.py "Unsupported compute capability. Supported: 8.x, 9.x, ..."), and
    # torch Inductor refusing a GPU below Triton's minimum (torch/_inductor/exc.py GPUTooOldForTriton),
    # which a library's compiled path meets on a GPU below its minimum (vLLM on sm_6x)
    r"|Unsupported compute capability\. Supported: \d+\.x|too old to be supported by the triton GPU compiler"
    # flash-attn's ROCm build refusing GPU_ARCHS outside its list (setup.py validate_and_update_archs):
    # https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/setup.py#L220-L222
    r"|Invalid archs: [^\n]{1,300}?\. Allowed: "
    # Composable Kernel (flash-attn's and xformers' ROCm backend) compiled for an arch it has no
    # buffer-resource setting for (ck/ck.hpp, ck_tile/core/config.hpp define it per gfx family only):
    # https://github.com/ROCm/composable_kernel/issues/775, https://github.com/ROCm/flash-attention/issues/111
    r"|(?i:u)ndeclared identifier 'CK(?:_TILE)?_BUFFER_RESOURCE_3RD_DWORD'"
    # ... and its MFMA builtins compiled for an arch without matrix cores (clang's target-feature check):
    # https://github.com/facebookresearch/xformers/issues/1026
    r"|'__builtin_amdgcn_mfma\w*' needs target feature"
    # Triton's AMD backend compiling a kernel the arch cannot hold (vLLM's Triton attention on gfx906),
    # and LLVM failing to select a matrix-core intrinsic the arch lacks ("Cannot select: " "intrinsic %"
    # in SelectionDAGISel::CannotYetSelect, llvm/lib/CodeGen/SelectionDAG/SelectionDAGISel.cpp at
    # llvm/llvm-project@00d09051ccd8f02394b57264eb645d76edc03352; reports: vllm-project/vllm#9319,
    # iree-org/iree#17807, modular/modular#6722)
    r"|stack frame size \(\d+\) exceeds limit \(\d+\) in function"
    # (thirty-first round: any amdgcn intrinsic, not only the matrix cores': a GPU the library leaves out lacks others
    # too, e.g. RDNA2's bf16 dot, "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16" on a gfx1032,
    # https://github.com/unslothai/unsloth/issues/5337)
    r"|Cannot select: intrinsic %llvm\.amdgcn\.[\w.]{1,60}"
    # Triton's AMD backend given a gfx arch it has no ISA family for (Triton 3.5+, torch.compile on ROCm from
    # torch 2.9; arch_table's Triton rows) (mod.emitError("unsupported target: '"),
    # third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp at
    # triton-lang/triton@010fe452ad03fa28c779d8d113e93b34cb9b95a0; vLLM's Triton attention on gfx906:
    # https://github.com/Said-Akbar/triton-gcn5/issues/4)
    r"|unsupported target: 'gfx\w{1,8}'"
    # eighth round: AITER (vLLM's and SGLang's ROCm kernels) refusing an arch outside its lists, at JIT
    # build (aiter/jit/core.py validate_and_update_archs, the same assert as flash-attn's setup.py less
    # its " by Flash-Attention") and when it maps the GPU (aiter/jit/utils/chip_info.py):
    # https://github.com/ROCm/aiter/blob/d54ffc58d192a8f09752ec7bec49bca66e70b105/aiter/jit/core.py
    # https://github.com/ROCm/aiter/blob/03474676fc51e434ab7ddd17f4155d6d83cf8071/aiter/jit/utils/chip_info.py
    r"|One of GPU archs of \[[^\]\n]{1,200}\] is invalid or not supported"
    r"|Unknown GPU architecture: gfx\w{1,8}\. Supported architec"
    # twenty-third round: the same chip map before it named the problem, a bare lookup failing on the arch
    # (chip_info.py ``gfx_mapping[...]``: "KeyError: 'gfx1151'", https://github.com/ROCm/aiter/issues/1415)
    r"|KeyError: 'gfx\w{3,6}'"
    # ... and AITER loading an asm kernel's code object from hsa/<gfx>/, which holds none for an arch it does
    # not serve: up to v0.1.12 through HIP_CALL(hipModuleLoad(...)), "[AITER] %s:%d fail to call %s --->
    # [HIP error](%s)" (the call's own text as %s), from v0.1.13 AITER_CHECK(file.is_open(), "failed to
    # open ", full_path) with full_path AITER_ASM_DIR + "/" + arch + "/" + the kernel's file:
    # https://github.com/ROCm/aiter/blob/2d714384fa281924274dc88b51107ca7d48523ea/csrc/include/aiter_hip_common.h#L70
    # https://github.com/ROCm/aiter/blob/31350226161346314b3d8882c8085bd31dce6a34/csrc/include/aiter_hip_common.h#L394
    r"|\[AITER\] [^\n]{1,300}?:\d+ fail to call hipModuleLoad\("
    r"|\[AITER\] [^\n]{1,300}?:\d+ failed to open [^\n]{0,300}?/hsa/+gfx\w{1,8}/"
    # Triton launching a kernel tuned for a larger LDS/shared memory than the GPU has (its
    # OutOfResources text; on an RDNA GPU: https://github.com/vllm-project/vllm/pull/56040)
    r"|out of resource: shared memory, Required: \d+, Hardware limit: \d+"
    # ninth round: vLLM's ROCm build refusing a GPU outside its HIP_SUPPORTED_ARCHS (cmake/utils.cmake
    # override_gpu_arches, the FATAL_ERROR when no detected or PYTORCH_ROCM_ARCH arch is in the list):
    # https://github.com/vllm-project/vllm/blob/00c1d959bc9dabe8d60a4e976f327f0f02490c4e/cmake/utils.cmake
    # That list is what a build accepts, wider than what vLLM serves: at 000a1ee93b2ddc3cb06c62a71fe769c789cbf7b1 it
    # also names gfx906, gfx908, gfx1030 and gfx1102/1103/1152/1153, none in the installation requirements the
    # rows follow (AMD on gfx1030: "vLLM itself only supports gfx1100+",
    # https://github.com/ROCm/legacy-rocm-build/issues/4447), so only archs outside both meet this text.
    r"|None of the detected ROCm architectures: [^\n]{1,200}? is supported\. Supported ROCm architectures are: "
    # tenth round: vLLM's own arch gates, read at the tags (test_vllm_rocm_texts_more.py quotes each): its GCN
    # arch parse past gfx12 (vllm/platforms/rocm.py, v0.17.0 on), ROCM_AITER_FA off gfx9 (rocm.py, v0.12.0 to
    # v0.17.0), ptpc_fp8 below MI300 (ptpc_fp8.py, v0.7.3 on), mori's all2all (all2all.py, v0.17.0 on), AITER's
    # FP8 ViT attention (mm_encoder_attention.py, v0.30.0 on), and a quantization method above the GPU's
    # compute capability (model_loader/loader.py from v0.5.5, then config.py; AWQ needs 75: a Pascal GPU, below
    # vLLM's own sm_70 minimum, meets it)
    r"|Major version > 12 is beyond currently known AMD generations"
    r"|The selected backend, \w+, is only supported on gfx9 architectures"
    r"|ptpc_fp8 quantization is supported only on AMD Instinct MI300 GPUs"
    r"|mori currently only support arch gfx942 and gfx950"
    r"|requires an MI300-series or MI350-series GPU \(gfx942 or gfx950\)"
    r"|The quantization method \S{1,60} is not supported for the current GPU\. Minimum capability: \d+"
    # thirtieth round: LLVM (Triton's bundled one, or a language's) older than the GPU, warning before it emits code
    # for no processor ("'gfx1100' is not a recognized processor for this target (ignoring processor)":
    # https://github.com/JuliaGPU/AMDGPU.jl/issues/522; MCSubtargetInfo.cpp), and Triton's HIP launcher given
    # code the GPU cannot load (rocm_targets.TRITON_HIP_NO_BINARY)
    r"|'gfx\w{1,8}' is not a recognized processor for this target"
    r"|"
    + TRITON_HIP_NO_BINARY
    # thirty-first round: sgl-kernel's ROCm build detecting a GPU outside its list (setup_rocm.py, arch_table's
    # sglang row: "Warning: Unsupported GPU architecture detected 'gfx1100'. Expected 'gfx942' or 'gfx950'.")
    + r"|Unsupported GPU architecture detected '?gfx\w{1,8}'?\.? Expected 'gfx"
)


# Composable Kernel's headers failing a static assertion in a build for an arch the library has no path for (ck_tile's
# generic_memory_space_atomic_hip.hpp building flash-attn 2.6.3 for gfx1100, "1 error generated when compiling for
# gfx1100": https://github.com/Dao-AILab/flash-attention/issues/1215). Predicted only where the stack names the
# release: a source build of another (a later CK gained RDNA4 paths) may compile, and then the text is its own bug
# (measured: a working near-miss on gfx1200 that names no release was marked broken).
CK_BUILD_PREDICTS = r"composable_kernel/include/ck(?:_tile)?/[^\n]{0,300}?: error: static assertion failed"


def check(env: Environment) -> list[Finding]:
    rows = [r for r in (arch_table.info(a) for a in env.archs) if r is not None]
    found: list[Finding] = []
    for library, vendor in dict.fromkeys((r.library, r.vendor) for r in arch_table.LIB_MIN_ARCH):
        version, listed = _version(env, library)
        rule, source = arch_table.lib_rule(library, vendor, version)
        rule, source, excluded = _built(library, vendor, version, rule, source, rows)
        unserved = [r.name for r in rows if r.vendor == vendor and not arch_table.lib_serves(rule, r)]
        if not unserved:
            if version is None:
                found += _at_risk(library, vendor, rows, listed)
            continue
        which = f"{library} {version}" if version is not None else library
        fix = _fix(library)
        if version is not None and _some_release_serves(library, vendor, rows, unserved):
            fix = f"use a {library} release that serves {', '.join(unserved)}, or " + fix
        found.append(
            Finding(
                check=ID,
                reason=f"{which} has no kernels for {', '.join(unserved)} (it needs {_needs(rule)})",
                fix=fix,
                link=source,
                uses=_uses(library),
                conditional=not listed,
                uncertain=_other_builds(library, vendor, version) or (excluded and _unreleased(version)),
                predicts=CK_BUILD_PREDICTS if version is not None and vendor == "amd" else "",
            )
        )
    aiter = _version(env, "aiter")
    return found + _aiter_experimental(aiter, rows) + _aiter_reach(env, aiter, rows)


def _version(env: Environment, library: str) -> tuple[Version | None, bool]:
    """(the release of ``library`` the stack runs, whether the stack has it): as listed; for Triton also
    under its ROCm distributions, else the one an official ``+rocm`` torch pins (torch_rocm_triton).
    """
    names = _distributions(env, library)
    for name in names:
        version = env.field_version("lib." + name)
        if version is not None and library == "triton" and version.local:
            return None, True  # a Triton built elsewhere (a fork, +git): its targets are its own, not judged
        if version is not None:
            return version, True
    listed = any(normalize_library(n) in env.libraries for n in names)
    if library != "triton" or env.torch is None:
        return None, listed
    pin = rocm_triton_pin(env.torch)
    if pin is None:
        return None, listed
    return optional_version(pin[0].split("==", 1)[1].split(";", 1)[0]), True


def _built(
    library: str, vendor: str, version: Version | None, rule: str, source: str, rows: list[arch_table.Arch]
) -> tuple[str, str, bool]:
    """(rule, source, excluded): the rule of ``version`` less the archs its source build does not accept
    (:data:`BUILDS`), sourced by the build file when that leaves out a GPU of ``rows`` (``excluded``).
    """
    build = next(
        (
            b
            for b in BUILDS
            if (b.library, b.vendor) == (library, vendor)
            and version is not None
            and specifier_contains(parse_specifier(b.versions), version)
        ),
        None,
    )
    if build is None or rule.startswith("sm>="):
        return rule, source, False
    narrowed = " ".join(n for n in rule.split() if n in build.archs.split())
    excluded = any(arch_table.lib_serves(rule, r) and not arch_table.lib_serves(narrowed, r) for r in rows)
    return narrowed, build.source if excluded else source, excluded


def _unreleased(version: Version | None) -> bool:
    """A local or dev build (a fork's, AMD's images'): its arch list may differ from its tag's build file."""
    return version is None or bool(version.local) or version.is_devrelease


def _uses(library: str) -> tuple[str, ...]:
    """What a test declares to meet the library's finding: Triton's also torch.compile and Inductor."""
    if library == "aiter":
        return AITER_USES
    if library == "sglang":
        return SGLANG_USES
    name = normalize_library(library)
    return (name, *COMPILE_USES) if library == "triton" else (name,)


def _distributions(env: Environment, library: str) -> tuple[str, ...]:
    """The distributions ``library`` is listed under: Triton's ROCm ones, vLLM's ROCm wheel, AITER's two names
    (less PyPI's unrelated "aiter" when the stack's version is that project's).
    """
    if library == "triton":
        return TRITON_DISTRIBUTIONS
    if library == "vllm":
        return VLLM_DISTRIBUTIONS
    if library == "aiter":
        other = env.field_version("lib.aiter")
        return AITER_DISTRIBUTIONS if other is None or other < _OTHER_AITER else AITER_DISTRIBUTIONS[:1]
    return (library,)


def _fix(library: str) -> str:
    if library == "aiter":
        return (
            "run aiter tests on an MI300/MI350 GPU (gfx942, gfx950: its asm kernels' archs); vLLM and SGLang run "
            "without it (VLLM_ROCM_USE_AITER and SGLANG_USE_AITER unset)"
        )
    if library == "sglang":
        return (
            "run SGLang on an MI300/MI350 GPU (gfx942, gfx950: the GPUs sgl-kernel's ROCm build accepts), or serve "
            "the model with vLLM, which builds for Radeon GPUs too"
        )
    if library == "triton":
        return (
            "run torch.compile/Triton tests on a GPU Triton's AMD backend serves, or compile without Triton "
            '(torch.compile(backend="aot_eager")); torch needs the Triton its wheel pins'
        )
    return f"run {library} tests on a GPU it supports, or use another backend (e.g. PyTorch SDPA)"


def _other_builds(library: str, vendor: str, version: Version | None) -> bool:
    """Whether the installed build may be one the rows do not describe (``LibArch.official_wheels``:
    xformers' ROCm wheels, beside source builds for the local GPU and AMD's own): an unnamed release
    or a local/dev build; any build of a library built only from source (``LibArch.source_builds``: sgl-kernel).
    """
    rows = arch_table.lib_rows(library, vendor)
    if any(r.source_builds for r in rows):
        return True
    if not any(r.official_wheels for r in rows):
        return False
    return version is None or bool(version.local) or version.is_devrelease


def _at_risk(library: str, vendor: str, rows: list[arch_table.Arch], listed: bool) -> list[Finding]:
    """The uncertain finding: the stack names no release of ``library`` (``listed``: it has the library),
    and some releases it may be running have no kernels for the GPU (vLLM before 0.7.3 on gfx1201) while
    later ones do.
    """
    name = AITER_DISTRIBUTIONS[0] if library == "aiter" else normalize_library(library)
    lacking = [
        row
        for row in arch_table.lib_rows(library, vendor)
        if row.unlisted and any(r.vendor == vendor and not arch_table.lib_serves(row.rule, r) for r in rows)
    ]
    if not lacking:
        return []
    archs = [r.name for r in rows if r.vendor == vendor and any(not arch_table.lib_serves(x.rule, r) for x in lacking)]
    releases = " and ".join(f"{library} {row.versions}" if row.versions else f"the latest {library}" for row in lacking)
    return [
        Finding(
            check=ID,
            reason=f"the stack does not say which {library} release: {releases} has no kernels for {', '.join(archs)}",
            fix=f"name the {library} release (lib.{name}=VERSION) to settle it; use one that serves {', '.join(archs)}",
            link=lacking[-1].source,
            uses=_uses(library),
            conditional=not listed,
            uncertain=True,
        )
    ]


def _needs(rule: str) -> str:
    if rule.startswith("sm>="):
        n = rule[4:]
        return f"compute capability {n[:-1]}.{n[-1]} or newer"
    return "one of " + ", ".join(rule.split())


def _some_release_serves(library: str, vendor: str, rows: list[arch_table.Arch], names: list[str]) -> bool:
    rules = [r.rule for r in arch_table.lib_rows(library, vendor)]
    return all(any(arch_table.lib_serves(rule, r) for rule in rules) for r in rows if r.name in names)


def _aiter_experimental(aiter: tuple[Version | None, bool], rows: list[arch_table.Arch]) -> list[Finding]:
    """The uncertain finding for an AITER release (``aiter``: :func:`_version`'s) that serves the GPU only in
    part (gfx90a; RDNA from 0.1.19: its Triton and most HIP kernels run, most CK and asm kernels do not).
    """
    version, listed = aiter
    archs = _experimental_archs(version, rows)
    if not archs:
        return []
    row = next(
        (e for e in AITER_EXPERIMENTAL if version and specifier_contains(parse_specifier(e.versions), version)),
        AITER_EXPERIMENTAL[-1],
    )
    which = f"aiter {version}" if version is not None else "aiter (its release not named)"
    return [
        Finding(
            check=ID,
            reason=(
                f"{which} serves {', '.join(archs)} only in part: its asm kernels are built for MI300/MI350 "
                "(gfx942, gfx950) only, and on RDNA most of its Composable Kernel kernels too"
            ),
            fix=_fix("aiter"),
            link=row.source,
            uses=AITER_USES,
            conditional=not listed,
            uncertain=True,
        )
    ]


def _experimental_archs(version: Version | None, rows: list[arch_table.Arch]) -> list[str]:
    """The GPUs of ``rows`` that AITER ``version`` serves only in part; for an unnamed release, those every
    release serves only in part (the others: _at_risk names the releases without them).
    """
    if version is None:
        names = set.intersection(*(set(e.archs.split()) for e in AITER_EXPERIMENTAL))
    else:
        names = {
            n
            for e in AITER_EXPERIMENTAL
            if specifier_contains(parse_specifier(e.versions), version)
            for n in e.archs.split()
        }
    return [r.name for r in rows if r.name in names]


def _aiter_gaps(version: Version | None, rows: list[arch_table.Arch]) -> dict[str, bool]:
    """The GPUs AITER ``version`` (``None``: not named) may fail on, each with whether that is only a risk: not
    served by the listed release (certain), by some release an unnamed one may be (a risk), or served in part.
    """
    rule, _ = arch_table.lib_rule("aiter", "amd", version)
    amd = [r for r in rows if r.vendor == "amd"]
    gaps = {r.name: False for r in amd if not arch_table.lib_serves(rule, r)}
    if version is None:
        for row in arch_table.lib_rows("aiter", "amd"):
            if row.unlisted:
                gaps.update(
                    (r.name, True) for r in amd if r.name not in gaps and not arch_table.lib_serves(row.rule, r)
                )
    gaps.update((name, True) for name in _experimental_archs(version, rows) if name not in gaps)
    return gaps


def _aiter_reach(env: Environment, aiter: tuple[Version | None, bool], rows: list[arch_table.Arch]) -> list[Finding]:
    """AITER's gap, for the tests of each framework whose variable switches AITER on (:data:`AITER_ENABLERS`)."""
    version, aiter_listed = aiter
    gaps = _aiter_gaps(version, rows)
    if not gaps:
        return []
    reached = (
        _framework_reach(env, name, gaps, aiter_listed) for name in dict.fromkeys(e.framework for e in AITER_ENABLERS)
    )
    return [f for f in reached if f is not None]


def _framework_reach(env: Environment, framework: str, gaps: dict[str, bool], aiter_listed: bool) -> Finding | None:
    """The finding for ``framework``'s tests when its variable is on and its release lets AITER run on a GPU of
    ``gaps``; for an unnamed release, a risk unless every release does.
    """
    enablers = [e for e in AITER_ENABLERS if e.framework == framework]
    variable = enablers[0].variable
    value = env.env.get(variable, "")
    if value.strip().lower() not in _TRUE:
        return None
    version = env.field_version("lib." + framework)
    if version is not None:
        enablers = [e for e in enablers if specifier_contains(parse_specifier(e.versions), version)]
    archs = [a for a in gaps if any(not e.archs or a in e.archs.split() for e in enablers)]
    if not archs:
        return None
    every = all(not e.archs or a in e.archs.split() for e in enablers for a in archs)
    which = f"{framework} {version}" if version is not None else framework
    risk = any(gaps[a] for a in archs)
    return Finding(
        check=ID,
        reason=(
            f"{which} runs AITER's kernels ({variable}={value}), and aiter "
            f"{'may lack kernels' if risk else 'has no kernels'} for {', '.join(archs)}"
        ),
        fix=f"unset {variable} ({framework} then uses its own kernels), or run {framework} on an MI300/MI350 GPU (gfx942, gfx950)",
        link=enablers[-1].source,
        uses=(normalize_library(framework),),
        conditional=not (aiter_listed and normalize_library(framework) in env.libraries),
        uncertain=risk or not every,
    )

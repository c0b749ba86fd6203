"""Every GPU architecture a user meets, as data: family, numeric formats, toolkits, override groups.

One row per arch (CUDA ``sm_50`` ... ``sm_121``, AMD ``gfx803`` ... ``gfx1201`` with the APUs),
each naming its source. The built-in checks read it (``bf16-unsupported-arch``,
``fp8-format-arch``, ``hsa-override-invalid``, ``library-min-arch``, and ``arch-not-in-build``
for the official builds that serve an arch); docs/knowledge.md lists it. Pure data and lookups.

- ``bf16``: native bfloat16 arithmetic (tensor cores / MFMA or WMMA). CUDA: compute capability
  8.0+ (below it torch may emulate some ops; vLLM, Triton, flash-attn and transformers refuse).
  AMD: CDNA (gfx908+) and RDNA3+ (WMMA); gfx90x/RDNA1-2 have no bf16 matrix instructions.
- ``tf32``: TensorFloat-32 tensor cores: CUDA 8.0+; no AMD arch before gfx942 (``xf32`` there,
  not exposed by torch), so ``False`` for every gfx.
- ``fp8``: ``"ocp"`` (``float8_e4m3fn``/``float8_e5m2``, Triton ``fp8e4nv``/``fp8e5``), ``"fnuz"``
  (``float8_e4m3fnuz``/``float8_e5m2fnuz``: gfx940/941/942 only) or ``""`` (no fp8 matrix
  instructions: sm_86/Ampere and older, CDNA1-2, RDNA1-3).
- ``group``: the LLVM generic-processor family (``gfx10-3``, ``gfx11`` ...): code objects and
  ``HSA_OVERRIDE_GFX_VERSION`` carry over within a group only. For CUDA the major capability.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from packaging.version import Version

from pytest_rocmcompat.stack.versions import parse_specifier, specifier_contains

# Sources (public vendor documentation).
S_NV_CC = "https://developer.nvidia.com/cuda-gpus"
S_NV_TE = "https://nvidia.github.io/TransformerEngine/support_matrix.html"  # BF16 needs 8.0+, FP8 8.9+
S_NV_RN = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"  # toolkit arch ranges
S_LLVM = "https://llvm.org/docs/AMDGPUUsage.html#processors"
S_LLVM_GENERIC = "https://llvm.org/docs/AMDGPUUsage.html#amdgpu-generic-processor-table"
S_HIP_FP8 = "https://rocm.docs.amd.com/projects/HIP/en/docs-6.2.0/reference/fp8_numbers.html"  # FNUZ gfx940-942, no OCP
S_ROCM_PRECISION = "https://rocm.docs.amd.com/en/latest/reference/precision-support.html"
S_LLVM_OCP = "https://github.com/llvm/llvm-project/pull/106160"  # gfx12 and later gfx9 (gfx950): OCP fp8
# LLVM's own codegen tests: the instructions ordinary code compiles to on gfx906 and on gfx1150.
S_LLVM_FMAC = (
    "https://github.com/llvm/llvm-project/blob/1edd2bc4ddd809a99ee6bc7c8b1641a59b200f93/llvm/test/CodeGen/AMDGPU/fma.ll"
)
S_LLVM_SALU_FLOAT = (
    "https://github.com/llvm/llvm-project/blob/07d7cb3d5b5dfab49824c17162aad5b92d6cc313"
    "/llvm/test/CodeGen/AMDGPU/scalar-float-sop2.ll"
)
S_ROCM_SYSREQ = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"


@dataclass(frozen=True)
class Arch:
    """One GPU architecture and what it can do."""

    name: str
    family: str  # marketing generation: Pascal, Ampere, CDNA3, RDNA2 ...
    products: str
    group: str  # override/code-object group: "gfx10-3", "gfx11"; CUDA: "sm_8"
    bf16: bool
    tf32: bool
    fp8: str  # "ocp" | "fnuz" | ""
    apu: bool = False
    cuda_first: str | None = None  # first CUDA toolkit that compiles for it
    cuda_last: str | None = None  # last CUDA major line that still does (None: current)
    source: str = ""

    @property
    def vendor(self) -> str:
        return "nvidia" if self.name.startswith("sm_") else "amd"


def _nv(
    sm: str, family: str, products: str, first: str, last: str | None, fp8: str = "", source: str = S_NV_CC
) -> Arch:
    major = int(sm[:-1])
    bf16 = major >= 8
    return Arch(f"sm_{sm}", family, products, f"sm_{major}", bf16, bf16, fp8, False, first, last, source)


def _amd(
    gfx: str,
    family: str,
    products: str,
    group: str,
    *,
    bf16: bool = False,
    fp8: str = "",
    apu: bool = False,
    source: str = S_LLVM,
) -> Arch:
    return Arch(gfx, family, products, group, bf16, False, fp8, apu, None, None, source)


# CUDA: CUDA 13.0 drops Maxwell, Pascal and Volta (sm_50-sm_72); the toolkit of each first is
# the one whose release notes add the arch (S_NV_RN). fp8 per S_NV_TE (8.9+).
ARCHS: tuple[Arch, ...] = (
    _nv("50", "Maxwell", "GTX 750, Quadro M", "6.5", "12"),
    _nv("52", "Maxwell", "GTX 970/980, Titan X, Tesla M40", "6.5", "12"),
    _nv("53", "Maxwell", "Jetson TX1", "6.5", "12"),
    _nv("60", "Pascal", "Tesla P100", "8.0", "12"),
    _nv("61", "Pascal", "GTX 10xx, Tesla P4/P40", "8.0", "12"),
    _nv("62", "Pascal", "Jetson TX2", "8.0", "12"),
    _nv("70", "Volta", "Tesla V100, Titan V", "9.0", "12"),
    _nv("72", "Volta", "Jetson AGX Xavier", "10.0", "12"),
    _nv("75", "Turing", "Tesla T4, RTX 20xx, GTX 16xx, Quadro RTX", "10.0", None),
    _nv("80", "Ampere", "A100, A30", "11.0", None),
    _nv("86", "Ampere", "RTX 30xx, A40, A10, RTX A6000", "11.1", None),
    _nv("87", "Ampere", "Jetson Orin", "11.4", None),
    _nv("89", "Ada Lovelace", "RTX 40xx, L4, L40S", "11.8", None, fp8="ocp", source=S_NV_TE),
    _nv("90", "Hopper", "H100, H200, GH200", "11.8", None, fp8="ocp", source=S_NV_TE),
    _nv("100", "Blackwell", "B200, GB200", "12.8", None, fp8="ocp", source=S_NV_TE),
    _nv("103", "Blackwell", "B300, GB300", "12.9", None, fp8="ocp", source=S_NV_TE),
    _nv("110", "Blackwell", "Jetson Thor", "13.0", None, fp8="ocp"),
    _nv("120", "Blackwell", "RTX 50xx, RTX PRO 6000 Blackwell", "12.8", None, fp8="ocp", source=S_NV_TE),
    _nv("121", "Blackwell", "GB10 (DGX Spark)", "12.9", None, fp8="ocp"),
    # AMD: LLVM processor table (S_LLVM) for family, products and APUs; formats per S_ROCM_PRECISION,
    # fp8 per S_HIP_FP8 (FNUZ on gfx940/941/942, no OCP) and S_LLVM_OCP (OCP on gfx950 and gfx12).
    _amd("gfx803", "GCN4 (Polaris/Fiji)", "RX 470/480/570/580, R9 Fury, MI6/MI8", "gfx8"),
    _amd("gfx900", "GCN5 (Vega)", "RX Vega 56/64, MI25", "gfx9"),
    _amd("gfx902", "GCN5 (Vega APU)", "Ryzen 2000/3000 APUs (Raven Ridge, Picasso)", "gfx9", apu=True),
    _amd("gfx904", "GCN5 (Vega)", "Vega 12", "gfx9"),
    _amd("gfx906", "GCN5.1 (Vega 20)", "Radeon VII, MI50, MI60", "gfx9"),
    _amd("gfx908", "CDNA1", "MI100", "gfx908", bf16=True, source=S_ROCM_PRECISION),
    _amd("gfx909", "GCN5 (Vega APU)", "Raven Ridge 2", "gfx9", apu=True),
    _amd("gfx90a", "CDNA2", "MI210, MI250, MI250X", "gfx90a", bf16=True, source=S_ROCM_PRECISION),
    _amd("gfx90c", "GCN5 (Vega APU)", "Ryzen 4000/5000 APUs (Renoir, Cezanne)", "gfx9", apu=True),
    _amd("gfx940", "CDNA3", "MI300 (early)", "gfx9-4", bf16=True, fp8="fnuz", source=S_HIP_FP8),
    _amd("gfx941", "CDNA3", "MI300 (early)", "gfx9-4", bf16=True, fp8="fnuz", source=S_HIP_FP8),
    _amd("gfx942", "CDNA3", "MI300X, MI300A, MI325X", "gfx9-4", bf16=True, fp8="fnuz", source=S_HIP_FP8),
    _amd("gfx950", "CDNA4", "MI350X, MI355X", "gfx9-4", bf16=True, fp8="ocp", source=S_LLVM_OCP),
    _amd("gfx1010", "RDNA1", "RX 5700/5700 XT", "gfx10-1"),
    _amd("gfx1011", "RDNA1", "Radeon Pro V520", "gfx10-1"),
    _amd("gfx1012", "RDNA1", "RX 5500/5500 XT", "gfx10-1"),
    _amd("gfx1013", "RDNA1", "PS5-derived APU (BC-250)", "gfx10-1", apu=True),
    _amd("gfx1030", "RDNA2", "RX 6800/6900, Radeon PRO W6800/V620", "gfx10-3"),
    _amd("gfx1031", "RDNA2", "RX 6700/6750 XT", "gfx10-3"),
    _amd("gfx1032", "RDNA2", "RX 6600/6650 XT", "gfx10-3"),
    _amd("gfx1033", "RDNA2 (APU)", "Van Gogh (Steam Deck)", "gfx10-3", apu=True),
    _amd("gfx1034", "RDNA2", "RX 6500/6400", "gfx10-3"),
    _amd("gfx1035", "RDNA2 (APU)", "Ryzen 6000 APUs (Radeon 660M/680M)", "gfx10-3", apu=True),
    _amd("gfx1036", "RDNA2 (APU)", "Ryzen 7000 desktop iGPU (Raphael)", "gfx10-3", apu=True),
    _amd("gfx1100", "RDNA3", "RX 7900 XTX/XT, Radeon PRO W7900", "gfx11", bf16=True, source=S_ROCM_PRECISION),
    _amd("gfx1101", "RDNA3", "RX 7800/7700 XT, Radeon PRO W7800", "gfx11", bf16=True, source=S_ROCM_PRECISION),
    _amd("gfx1102", "RDNA3", "RX 7600", "gfx11", bf16=True, source=S_ROCM_PRECISION),
    _amd("gfx1103", "RDNA3 (APU)", "Ryzen 7040/8040 APUs (Radeon 780M/760M)", "gfx11", bf16=True, apu=True),
    _amd("gfx1150", "RDNA3.5 (APU)", "Ryzen AI 300 (Strix Point, 890M)", "gfx11", bf16=True, apu=True),
    _amd("gfx1151", "RDNA3.5 (APU)", "Ryzen AI Max (Strix Halo, 8060S)", "gfx11", bf16=True, apu=True),
    _amd("gfx1152", "RDNA3.5 (APU)", "Ryzen AI (Krackan Point)", "gfx11", bf16=True, apu=True),
    _amd("gfx1153", "RDNA3.5 (APU)", "Ryzen AI (Gorgon Point)", "gfx11", bf16=True, apu=True),
    _amd("gfx1200", "RDNA4", "RX 9060 XT", "gfx12", bf16=True, fp8="ocp", source=S_LLVM_OCP),
    _amd("gfx1201", "RDNA4", "RX 9070/9070 XT, Radeon AI PRO R9700", "gfx12", bf16=True, fp8="ocp", source=S_LLVM_OCP),
)
BY_NAME: dict[str, Arch] = {a.name: a for a in ARCHS}
_OVERRIDE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def info(arch: str) -> Arch | None:
    """The row of ``arch`` (``"gfx90a:sramecc+:xnack-"`` and ``"SM_86"`` normalised), else ``None``."""
    name = arch.strip().lower().split(":", 1)[0]
    return BY_NAME.get(name)


def override_target(value: str | None) -> tuple[str | None, str]:
    """``HSA_OVERRIDE_GFX_VERSION`` -> (the gfx arch it names, "") or (None, why it is no valid target).

    The runtime reads ``major.minor.stepping`` in decimal (``9.0.10`` is gfx90a; stepping in hex
    in the name). A value of another shape, or naming no processor in :data:`ARCHS`, is invalid.
    """
    if value is None:
        return None, "not set"
    m = _OVERRIDE.match(value.strip())
    if m is None:
        return None, f"{value!r} is not major.minor.stepping (e.g. 10.3.0)"
    major, minor, stepping = (int(g) for g in m.groups())
    if stepping > 15:
        return None, f"{value!r}: stepping {stepping} names no gfx target"
    name = f"gfx{major}{minor}{stepping:x}"
    if name not in BY_NAME:
        return None, f"{value!r} names {name}, which is no AMD GPU target ({S_LLVM})"
    return name, ""


def same_group(a: str, b: str) -> bool | None:
    """Whether code for ``b`` can run on ``a`` by override (``None``: either arch unknown)."""
    ra, rb = info(a), info(b)
    if ra is None or rb is None:
        return None
    return ra.group == rb.group


class IsaGap(NamedTuple):
    """Instructions some processors of one generic family have and its other members lack.

    Code compiled for a processor in ``having`` may use them; run by override on a member outside
    ``having`` it executes instructions the GPU does not have. ``pervasive``: the compiler emits
    them in ordinary code (every kernel is at risk), else only specialised kernels use them.
    """

    group: str
    having: frozenset[str]
    what: str
    pervasive: bool
    source: str


# LLVM's generic processor table lists, per family, the instructions its members do not share
# ("The following instructions are not available on ``gfx906``: v_fmac_f32, v_xnor_b32, v_dot4_i32_i8
# ...": gfx906 has them, the rest of gfx9-generic not). Not tabled: gfx10-3 and gfx12 ("No
# restrictions"); gfx9's v_mad_mix (gfx900/902/909/90c) and v_fma_mix (gfx904) rows (not pinned:
# how each member runs the other's form is not verified); gfx1013's BVH (ray tracing only); gfx11's
# "Not all VGPRs can be used on gfx1100, gfx1101, gfx1151" (RDNA3/3.5 parts run gfx1100 code by
# override in the reports; no failure report pinned).
ISA_GAPS: tuple[IsaGap, ...] = (
    IsaGap(
        "gfx9",
        frozenset({"gfx906"}),
        "v_fmac_f32, v_xnor_b32 and the v_dot* instructions",
        True,  # LLVM selects v_fmac_f32_e32 for a plain f32 fma on gfx906 (S_LLVM_FMAC)
        S_LLVM_GENERIC,
    ),
    IsaGap(
        "gfx10-1",
        frozenset({"gfx1011", "gfx1012"}),
        "the v_dot* instructions (v_dot4_i32_i8, v_dot2_f32_f16 ...)",
        False,
        S_LLVM_GENERIC,
    ),
    # "FP8 and BF8 instructions, FP8 and BF8 conversion instructions, as well as instructions with
    # XF32 format support are not available" in gfx9-4-generic: gfx940-942's fp8 is FNUZ (S_HIP_FP8),
    # gfx950's OCP (S_LLVM_OCP).
    IsaGap("gfx9-4", frozenset({"gfx940", "gfx941", "gfx942"}), "the FNUZ FP8/BF8 instructions", False, S_LLVM_GENERIC),
    IsaGap("gfx9-4", frozenset({"gfx950"}), "the OCP FP8/BF8 instructions", False, S_LLVM_GENERIC),
    IsaGap(
        "gfx11",
        frozenset({"gfx1150", "gfx1151", "gfx1152", "gfx1153"}),
        "SALU floating point instructions and SGPR src1 of DPP instructions",
        True,  # LLVM selects s_add_f32, s_mul_f32, s_fmac_f32 for uniform float math on gfx1150 (S_LLVM_SALU_FLOAT)
        S_LLVM_GENERIC,
    ),
)


def override_gaps(gpu: str, target: str) -> tuple[IsaGap, ...]:
    """The instructions code for ``target`` may use that ``gpu`` (of the same group) does not have."""
    rg, rt = info(gpu), info(target)
    if rg is None or rt is None or rg.group != rt.group:
        return ()
    return tuple(g for g in ISA_GAPS if g.group == rg.group and rt.name in g.having and rg.name not in g.having)


# Libraries' own arch requirements, per range of the library's releases. Read by
# knowledge/checks/library_arch.py through :func:`lib_rule`.
S_FA = "https://github.com/Dao-AILab/flash-attention/blob"
S_VLLM = "https://docs.vllm.ai/en"


# Triton's AMD backend compiles for a gfx arch only if it maps it to an ISA family; from Triton 3.0 its
# LLVM lowering refuses any other with ``error: unsupported target: 'gfxN'`` (then
# ``RuntimeError: PassManager::run failed``): ConvertTritonAMDGPUToLLVM emits it when
# ``getISAFamily() == ISAFamily::Unknown`` (third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp at
# triton-lang/triton@010fe452ad03fa28c779d8d113e93b34cb9b95a0). The families, TargetUtils.cpp
# ``deduceISAFamily`` (S_TRITON_35): gfx908 (CDNA1), gfx90a, gfx942, gfx950, gfx1010-1013 (RDNA1),
# gfx1030-1036 (RDNA2), gfx1100-1153 (RDNA3/3.5), gfx1200/1201; so gfx803, gfx900/902/904/906/909/90c and
# gfx940/941 (gone from LLVM: llvm/llvm-project#125836) are refused. Triton 3.8 adds gfx906 ("[AMD] Add
# GCN5.1 / gfx906 target", triton-lang/triton#9628); 3.9 refuses RDNA1/RDNA2 too. Each bound checked by
# compiling an elementwise, a reduction and a tl.dot kernel for every gfx arch with the PyPI wheels
# (triton.compile(..., target=GPUTarget("hip", arch, warp_size)), no GPU needed; the HIP linker ld.lld, which
# the PyPI wheels do not ship, stubbed): 3.5.0-3.7.1 refuse the ones above, 3.8.0 accepts gfx906, 3.9.0
# refuses gfx1010-1036. Earlier (a tl.dot and an elementwise kernel, each of the 34 gfx archs, the same way):
# 3.0.0 and 3.1.0 refuse gfx803, gfx900-90c, gfx950 and gfx1152/1153 (their deduceISAFamily has no GCN5 case,
# and their LLVM knows neither gfx950 nor gfx1152/1153: parseArchAMDGCN gives no kind), 3.2.0 only gfx803 and
# gfx900-90c, 3.3.0 and 3.4.0 also gfx940/941 (the set 3.5-3.7 refuse). So torch.compile's Triton refuses
# GCN5 (Vega, MI25/MI50/MI60, Radeon VII) from torch 2.4 (pins 3.0.0) on.
# torch's ROCm wheels pin ``pytorch-triton-rocm``/``triton-rocm`` at the same version
# (torch_rocm_triton), built from Triton's ``release/X.Y.x`` branch like the PyPI wheel (S_TRITON_BUILD).
# Triton before 3.0 (pytorch-triton-rocm 2.1-2.3, torch 2.1-2.3): not measured, no refusal known.
# torch itself gates no AMD arch: has_triton() asks only for a device capability of at least 7.0
# (``get_device_capability() >= (7, 0)`` in torch/utils/_triton.py at
# https://github.com/pytorch/pytorch/blob/f44ba642165a5ae5efb14e69f5ae0cbb88816cf3/torch/utils/_triton.py),
# and on ROCm the capability is read off the gfx name (hipDeviceProp_t major/minor: gfx906 is 9.0, gfx803 8.0;
# vllm-project/vllm#35069 parses it "matching how HIP derives hipDeviceProp_t.major/.minor").
S_TRITON_30 = "https://pypi.org/project/triton/3.0.0/"
S_TRITON_32 = "https://pypi.org/project/triton/3.2.0/"
S_TRITON_34 = "https://pypi.org/project/triton/3.4.0/"
S_TRITON_35 = (
    "https://github.com/triton-lang/triton/blob/12d909bff965bccb355e41133615bf8331cf9475"
    "/third_party/amd/lib/TritonAMDGPUToLLVM/TargetUtils.cpp"
)
S_TRITON_38 = "https://github.com/triton-lang/triton/pull/9628"
S_TRITON_39 = "https://pypi.org/project/triton/3.9.0/"
S_SGL_KERNEL_ROCM = (
    "https://github.com/sgl-project/sglang/blob/01b582cb0e3bc89eef018e9a7c305fd3c694c04a/sgl-kernel/setup_rocm.py"
)
S_TRITON_BUILD = "https://github.com/pytorch/pytorch/blob/950fabb0eb624b7d81579100f380acc993efb861/.github/scripts/build_triton_wheel.py"
_TRITON_39 = (
    "gfx908 gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx1200 gfx1201"
)
_TRITON_35 = f"{_TRITON_39} gfx1010 gfx1011 gfx1012 gfx1013 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036"
# 3.2: the 3.5 set and gfx940/941 (CDNA3 in its deduceISAFamily; 3.3's LLVM drops them)
_TRITON_32 = f"{_TRITON_35} gfx940 gfx941"
# 3.0/3.1: the 3.2 set less the archs their LLVM does not know (gfx950, gfx1152, gfx1153)
_TRITON_30 = " ".join(n for n in _TRITON_32.split() if n not in ("gfx950", "gfx1152", "gfx1153"))


class LibArch(NamedTuple):
    """The archs one library serves on one vendor's GPUs, for a range of its releases.

    ``versions``: a PEP 440 specifier of the releases the row covers; ``""`` for every release no
    other row of the library covers (the latest). ``rule``: ``"sm>=80"`` or a list of gfx names.
    ``unlisted``: whether a stack that lists no version of the library may be running it, so its
    archs count for such a stack (:func:`lib_rule`); ``False`` for an earlier API generation
    (flash-attn 1.x: tests written for 2.x do not run on it) and for builds of no tagged release yet.
    ``official_wheels``: the rule lists what the official wheels target while other builds target other
    archs (a source build, the vendor's own): an unnamed release or a local/dev build is then a risk.
    ``source_builds``: the library has no wheels for the vendor, only source builds for the GPU the build
    detects, and its releases' build files have differed in what they accept: every finding is a risk.
    """

    library: str  # as `uses` names it
    vendor: str
    versions: str
    rule: str
    source: str
    unlisted: bool = True
    official_wheels: bool = False
    source_builds: bool = False


LIB_MIN_ARCH: tuple[LibArch, ...] = (
    # FlashAttention 1.x: "Turing, Ampere, Ada, or Hopper GPUs (e.g., H100, A100, RTX 3090, T4, RTX 2080)";
    # 2.x: "Ampere, Ada, or Hopper GPUs ... please use FlashAttention 1.x for Turing" (README at the tags)
    LibArch("flash_attn", "nvidia", "<2", "sm>=75", f"{S_FA}/v1.0.9/README.md", unlisted=False),
    LibArch("flash_attn", "nvidia", "", "sm>=80", f"{S_FA}/v2.8.3/README.md"),
    # flash-attn on ROCm, its default Composable Kernel build: setup.py's allowed GPU_ARCHS (anything else:
    # "One of GPU archs of [...] is invalid or not supported by Flash-Attention"). 2.6.2-2.7.4: MI200/MI300
    # (README "MI200 or MI300 GPUs"; before 2.6.2 ROCm's fork, same list); 2.8.0-2.8.3.post1: gfx940/941
    # dropped, gfx950 added; RDNA 3/4 (gfx1100-1102, gfx1150/1151, gfx1200/1201) since 5301a359
    # (2026-03-26, "[AMD ROCm] Update CK and add RDNA 3/4 support", #2400), in no tag up to v2.8.3.post1
    # (a branch off v2.8.3): main has reported 2.8.4 since 2026-03-11, so a listed 2.8.4+ is judged by
    # the RDNA list, an unlisted flash-attn by the released ones. The opt-in Triton backend
    # (FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE, 2.7.1+, not probed) also runs on RDNA.
    LibArch("flash_attn", "amd", "<2.8", "gfx90a gfx940 gfx941 gfx942", f"{S_FA}/v2.7.4/setup.py#L135"),
    LibArch("flash_attn", "amd", ">=2.8,<2.8.4", "gfx90a gfx942 gfx950", f"{S_FA}/v2.8.3/setup.py#L135"),
    LibArch(
        "flash_attn",
        "amd",
        "",
        "gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1102 gfx1150 gfx1151 gfx1200 gfx1201",
        f"{S_FA}/5301a359f59ef8fa10f211618d9f7a69716a8898/setup.py#L202",
        unlisted=False,
    ),
    # FlashAttention-3: Hopper only (README "FlashAttention-3 beta release": H100/H800)
    LibArch(
        "flash_attn_3",
        "nvidia",
        "",
        "sm>=90",
        "https://github.com/Dao-AILab/flash-attention#flashattention-3-beta-release",
    ),
    # vLLM: "GPU: compute capability 7.0 or higher (e.g., V100, T4, ...)" from v0.3.3 to v0.14.0; "7.5 or
    # higher (e.g., T4, ...)" at v0.21.0 and later (installation requirements). v0.15-v0.20 are not yet
    # pinned: judged by the older, wider rule.
    LibArch("vllm", "nvidia", "<0.21", "sm>=70", f"{S_VLLM}/v0.14.0/getting_started/installation/gpu/"),
    LibArch(
        "vllm",
        "nvidia",
        "",
        "sm>=75",
        "https://github.com/vllm-project/vllm/blob/v0.21.0/docs/getting_started/installation/gpu.cuda.inc.md",
    ),
    # vLLM on ROCm, its installation requirements: "MI200s (gfx90a), MI300 (gfx942), Radeon RX 7900 series
    # (gfx1100)" from v0.4.0.post1 ("vLLM 0.2.4 onwards supports ... AMD GPUs") to v0.7.2; v0.11.0 adds
    # MI350 (gfx950), gfx1101 and Radeon RX 9000 (gfx1200/1201); v0.14.0 and main add Ryzen AI MAX / AI 300
    # (gfx1151/1150). Releases between two pinned docs are judged by the later, wider list.
    LibArch("vllm", "amd", "<0.7.3", "gfx90a gfx942 gfx1100", f"{S_VLLM}/v0.7.2/getting_started/installation/gpu/"),
    LibArch(
        "vllm",
        "amd",
        ">=0.7.3,<0.11.1",
        "gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1200 gfx1201",
        f"{S_VLLM}/v0.11.0/getting_started/installation/gpu.html",
    ),
    LibArch(
        "vllm",
        "amd",
        "",
        "gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1150 gfx1151 gfx1200 gfx1201",
        f"{S_VLLM}/v0.14.0/getting_started/installation/gpu/",
    ),
    # xformers' ROCm build: its Composable Kernel attention (hip_fmha) uses MFMA, so the official ROCm wheels
    # (from v0.0.28, download.pytorch.org/whl/rocm6.1 on) are built with HIP_ARCHITECTURES "gfx90a gfx942"
    # (.github/workflows/wheels_build.yml, the same line at v0.0.28 through v0.0.35):
    # https://github.com/facebookresearch/xformers/blob/v0.0.35/.github/workflows/wheels_build.yml#L34
    # Earlier releases had no ROCm wheel; a source build targets the local GPU (setup.py HIP_ARCHITECTURES,
    # default "native"), and fails to compile for RDNA: gfx1030 ('__builtin_amdgcn_mfma_...' needs target
    # feature mai-insts: facebookresearch/xformers#1026), gfx1036 (ROCm/xformers#12) and gfx1100 (AMD: "points
    # to `gfx1100` not being supported for xformers at the moment", https://github.com/ROCm/xformers/issues/71). Builds AMD ships for other archs (gfx950) are not
    # pinned: a listed xformers on gfx950 is judged by the wheels' list. ROCm apex has no arch list of its own
    # (setup.py cross-compiles "for the same gfx targets used by default in ROCm PyTorch"): no row.
    LibArch(
        "xformers",
        "amd",
        "",
        "gfx90a gfx942",
        "https://github.com/facebookresearch/xformers/blob/v0.0.35/.github/workflows/wheels_build.yml#L34",
        official_wheels=True,
    ),
    # Transformer Engine: compute capability 8.0+ (support matrix: BF16 row)
    LibArch("transformer_engine", "nvidia", "", "sm>=80", S_NV_TE),
    # Triton's AMD backend, the compiler of torch.compile/Inductor's kernels on ROCm (the note above LibArch):
    # before 3.0 no refusal known; 3.0-3.1 refuse gfx803, gfx900-gfx90c, gfx950 and gfx1152/1153; 3.2 gfx803 and
    # gfx900-gfx90c; 3.3-3.7 also gfx940/941; 3.8 takes gfx906.
    LibArch("triton", "amd", "<3.0", " ".join(a.name for a in ARCHS if a.vendor == "amd"), S_TRITON_BUILD),
    LibArch("triton", "amd", ">=3.0,<3.2", _TRITON_30, S_TRITON_30),
    LibArch("triton", "amd", ">=3.2,<3.3", _TRITON_32, S_TRITON_32),
    LibArch("triton", "amd", ">=3.3,<3.5", _TRITON_35, S_TRITON_34),
    LibArch("triton", "amd", ">=3.5,<3.8", _TRITON_35, S_TRITON_35),
    LibArch("triton", "amd", ">=3.8,<3.9", f"gfx906 {_TRITON_35}", S_TRITON_38),
    # 3.9: a listed release only (unlisted=False): no torch in torch_rocm_triton pins it (2.13 pins 3.7.1)
    LibArch("triton", "amd", "", f"gfx906 {_TRITON_39}", S_TRITON_39, unlisted=False),
    # AITER (ROCm/aiter, PyPI amd-aiter; vLLM's and SGLang's ROCm kernels): its hand-written asm kernels
    # are code objects per arch under hsa/, loaded from hsa/<gfx>/ (aiter/jit/core.py AITER_ASM_DIR).
    # v0.1.1: hsa/*.co, every one of the 388 built for gfx942 (ELF e_flags machine 0x4c); v0.1.2 on:
    # hsa/gfx942 and hsa/gfx950 only (hsa/gfx1250 from v0.1.16: no arch of this table). README "Supported
    # Hardware" (from v0.1.13): MI300X/MI325X gfx942, MI350/MI355X gfx950; from v0.1.19 ("Add RDNA support
    # in README", ROCm/aiter#4303, 0241979625) also gfx1100, gfx1151 and gfx1201 as "Experimental": "On RDNA,
    # Triton and most FlyDSL kernels run, as do most HIP kernels (...). Most CK and ASM kernels are
    # CDNA-only." Served here, but library_arch.AITER_EXPERIMENTAL makes them a risk (an uncertain
    # finding), not a certain one, as gfx90a: AITER's docs name it from v0.1.12 ("AMD GPU with gfx90a, gfx942,
    # or gfx950 architecture", docs/installation.rst; docs/index.rst "CDNA 2 gfx90a"), its JIT builds CK and
    # HIP kernels for it, but no release ships asm code objects for it. gfx908 and the other RDNA archs are in
    # GFX_MAP (aiter/jit/utils/chip_info.py) and in the JIT's allowed GPU_ARCHS, so the build accepts them,
    # but no release ships asm code objects for them nor names them in its supported hardware.
    LibArch("aiter", "amd", "<0.1.2", "gfx90a gfx942", "https://github.com/ROCm/aiter/tree/v0.1.1/hsa"),
    LibArch(
        "aiter",
        "amd",
        ">=0.1.2,<0.1.19",
        "gfx90a gfx942 gfx950",
        "https://github.com/ROCm/aiter/blob/v0.1.13/README.md#supported-hardware",
    ),
    LibArch(
        "aiter",
        "amd",
        "",
        "gfx90a gfx942 gfx950 gfx1100 gfx1151 gfx1201",
        "https://github.com/ROCm/aiter/blob/v0.1.19/README.md#supported-hardware",
    ),
    # SGLang on ROCm runs its own kernels, sgl-kernel, which have no ROCm wheels: each is built from source
    # (sgl-kernel/setup_rocm.py), in AMD's and SGLang's images for MI300 and MI350 only. Its build file has
    # changed what it accepts: in 2025's first releases it compiled for gfx942 only ("--amdgpu-target=gfx942",
    # at 8d295839d9088396cfebb056b8750784478e2156); later for the GPU it detects, and by August 2025 it refused
    # anything but gfx942 and gfx950 ("Warning: Unsupported GPU architecture detected '...'. Expected 'gfx942' or
    # 'gfx950'." and exit 1; a gfx1100 user: "The previous version could be compiled and run successfully on
    # gfx1100, but the new version failed", https://github.com/sgl-project/sglang/issues/9417); from 2026 an
    # explicit AMDGPU_TARGET builds "at your own risk", untested upstream. Which build a stack runs is not in the
    # release number, so every finding is a risk (``source_builds``), confirmed by what the failure says.
    # SGLang's HIP extra requires sgl-kernel from 0.4.3 (its wheel's METADATA: "sgl-kernel>=0.0.3.post1; extra ==
    # \"srt-hip\""); 0.4.2 and earlier ran vLLM's ROCm kernels (vllm==0.6.3.post2.dev1 in the same extra): no
    # refusal known, an earlier generation an unnamed release is not taken to be.
    LibArch(
        "sglang",
        "amd",
        "<0.4.3",
        " ".join(a.name for a in ARCHS if a.vendor == "amd"),
        "https://pypi.org/project/sglang/0.4.2/",
        unlisted=False,
    ),
    LibArch("sglang", "amd", "", "gfx942 gfx950", S_SGL_KERNEL_ROCM, source_builds=True),
)


def lib_serves(rule: str, arch: Arch) -> bool:
    """Whether ``arch`` meets a :data:`LIB_MIN_ARCH` rule (``"sm>=80"`` or a list of gfx names)."""
    if rule.startswith("sm>="):
        return arch.vendor == "nvidia" and int(arch.name[3:]) >= int(rule[4:])
    return arch.name in rule.split()


def lib_rows(library: str, vendor: str) -> tuple[LibArch, ...]:
    """The rows of one library on one vendor, oldest releases first."""
    return tuple(r for r in LIB_MIN_ARCH if (r.library, r.vendor) == (library, vendor))


def lib_rule(library: str, vendor: str, version: Version | None) -> tuple[str, str]:
    """(rule, source) that judges ``library`` at ``version`` on ``vendor``'s GPUs.

    A version some row's range holds: that row; another known version: the latest row; an
    unknown version: every arch some row it may be running serves (``unlisted``: the lowest ``sm>=``
    or all gfx names), sourced to the latest such row. ``("", "")`` when the library has no row for the vendor.
    """
    rows = lib_rows(library, vendor)
    if not rows:
        return "", ""
    latest = next(r for r in rows if not r.versions)
    if version is not None:
        row = next((r for r in rows if r.versions and specifier_contains(parse_specifier(r.versions), version)), latest)
        return row.rule, row.source
    rows = tuple(r for r in rows if r.unlisted)
    source = next((r.source for r in rows if not r.versions), rows[-1].source)
    if all(r.rule.startswith("sm>=") for r in rows):
        return f"sm>={min(int(r.rule[4:]) for r in rows)}", source
    names = dict.fromkeys(n for r in rows for n in r.rule.split())
    return " ".join(names), source

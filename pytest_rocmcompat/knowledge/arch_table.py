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

# Sources (public vendor documentation).
S_NV_CC = "https://developer.nvidia.com/cuda-gpus"
S_NV_TE = "https://nvidia.github.io/TransformerEngine/support_matrix.html"  # BF16 needs 8.0+, FP8 8.9+
S_NV_RN = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"  # toolkit arch ranges
S_LLVM = "https://llvm.org/docs/AMDGPUUsage.html#processors"
S_LLVM_GENERIC = "https://llvm.org/docs/AMDGPUUsage.html#amdgpu-generic-processor-table"
S_HIP_FP8 = "https://rocm.docs.amd.com/projects/HIP/en/docs-6.2.0/reference/fp8_numbers.html"  # FNUZ gfx940-942, no OCP
S_ROCM_PRECISION = "https://rocm.docs.amd.com/en/latest/reference/precision-support.html"
S_LLVM_OCP = "https://github.com/llvm/llvm-project/pull/106160"  # gfx12 and later gfx9 (gfx950): OCP fp8
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


# Libraries' own arch requirements: (library as `uses` names it, vendor, the archs it serves
# (a predicate over the row), what it says, source). Read by knowledge/checks/library_arch.py.
LIB_MIN_ARCH: tuple[tuple[str, str, str, str], ...] = (
    # flash-attn 2 CUDA kernels: "Ampere, Ada, or Hopper GPUs" (README, Installation and features)
    ("flash_attn", "nvidia", "sm>=80", "https://github.com/Dao-AILab/flash-attention#installation-and-features"),
    # flash-attn on ROCm (Composable Kernel backend): "MI200 or MI300 GPUs" (README, AMD ROCm support)
    ("flash_attn", "amd", "gfx90a gfx942 gfx950", "https://github.com/Dao-AILab/flash-attention#amd-rocm-support"),
    # FlashAttention-3: Hopper only (README "FlashAttention-3 beta release": H100/H800)
    ("flash_attn_3", "nvidia", "sm>=90", "https://github.com/Dao-AILab/flash-attention#flashattention-3-beta-release"),
    # vLLM: "GPU: compute capability 7.0 or higher" (installation requirements)
    ("vllm", "nvidia", "sm>=70", "https://docs.vllm.ai/en/latest/getting_started/installation/gpu.html"),
    # vLLM on ROCm: "GPU: MI200s (gfx90a), MI300 (gfx942), MI350 (gfx950), Radeon RX 7900 series
    # (gfx1100/1101), Radeon RX 9000 series (gfx1200/1201), Ryzen AI MAX / AI 300 Series (gfx1151/1150)"
    # (installation requirements, v0.14.0 and main: docs/getting_started/installation/gpu.rocm.inc.md).
    # The list only grew: v0.4.0.post1 to v0.6.0 named "MI200s (gfx90a), MI300 (gfx942), Radeon RX 7900
    # series (gfx1100)" (https://docs.vllm.ai/en/v0.6.0/_sources/getting_started/amd-installation.rst),
    # so the latest list never flags an arch an older vLLM served (it may miss one an older vLLM lacked).
    (
        "vllm",
        "amd",
        "gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1150 gfx1151 gfx1200 gfx1201",
        "https://docs.vllm.ai/en/v0.14.0/getting_started/installation/gpu/",
    ),
    # Transformer Engine: compute capability 8.0+ (support matrix: BF16 row)
    ("transformer_engine", "nvidia", "sm>=80", S_NV_TE),
)


def lib_serves(rule: str, arch: Arch) -> bool:
    """Whether ``arch`` meets a :data:`LIB_MIN_ARCH` rule (``"sm>=80"`` or a list of gfx names)."""
    if rule.startswith("sm>="):
        return arch.vendor == "nvidia" and int(arch.name[3:]) >= int(rule[4:])
    return arch.name in rule.split()

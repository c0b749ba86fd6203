"""``library-min-arch``: a library the tests use has no kernels for this GPU (its own minimum arch).

From :data:`pytest_rocmcompat.knowledge.arch_table.LIB_MIN_ARCH` (flash-attn Ampere+ on CUDA and
MI200/MI300/MI350 on ROCm, FlashAttention-3 Hopper, vLLM Volta+ on CUDA and gfx90a/gfx942/gfx950/gfx110x/gfx115x/gfx120x on
ROCm, Transformer Engine Ampere+),
each row sourced; reaches the tests that ``uses`` the library. A problem of the stack when the
stack lists the library; otherwise conditional (only tests that use it meet it).
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment, normalize_library

ID = "library-min-arch"
# The libraries' own refusals (flash-attn CUDA and ROCm, vLLM, Transformer Engine) and the
# generic missing-kernel errors a build without the arch gives.
PREDICTS = (
    r"FlashAttention only supports (?:Ampere GPUs or newer|AMD MI200 GPUs or newer)"
    r"|is invalid or not supported by Flash-Attention|FlashAttention currently only supports MI\d+"
    r"|FlashAttention-3 only supports|GPUs with compute capability below 7\.0 are not supported"
    r"|Transformer Engine requires|no kernel image is available for execution on the device"
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
)


def check(env: Environment) -> list[Finding]:
    rows = [r for r in (arch_table.info(a) for a in env.archs) if r is not None]
    found: list[Finding] = []
    for library, vendor, rule, source in arch_table.LIB_MIN_ARCH:
        unserved = [r.name for r in rows if r.vendor == vendor and not arch_table.lib_serves(rule, r)]
        if not unserved:
            continue
        found.append(
            Finding(
                check=ID,
                reason=f"{library} has no kernels for {', '.join(unserved)} (it needs {_needs(rule)})",
                fix=f"run {library} tests on a GPU it supports, or use another backend (e.g. PyTorch SDPA)",
                link=source,
                uses=(normalize_library(library),),
                conditional=normalize_library(library) not in env.libraries,
            )
        )
    return found


def _needs(rule: str) -> str:
    if rule.startswith("sm>="):
        n = rule[4:]
        return f"compute capability {n[:-1]}.{n[-1]} or newer"
    return "one of " + ", ".join(rule.split())

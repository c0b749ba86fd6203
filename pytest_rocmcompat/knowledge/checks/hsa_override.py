"""``hsa-override-invalid``: ``HSA_OVERRIDE_GFX_VERSION`` names no GPU target, one of another
family, or a member of the GPU's family with instructions the GPU lacks.

The ROCm runtime reports (and loads code for) the ``major.minor.stepping`` the variable names.
That works only within one code-object family (LLVM's generic processors: gfx9, gfx9-4, gfx10-1,
gfx10-3, gfx11, gfx12), e.g. an RX 6600 (gfx1032) as gfx1030 (``10.3.0``); code for another
family runs instructions the GPU does not have (invalid ISA, memory faults, hangs), and a value
that names no target at all leaves the runtime without a usable GPU. Within a family, LLVM lists
the instructions members do not share (``arch_table.ISA_GAPS``): code for gfx906 on a Vega 56/64
(gfx900), code for gfx1150/1151 on an RX 7000 (gfx1100-1103). Where ordinary code uses them the
finding is certain; where only specialised kernels do (dot, fp8), a risk (``uncertain``).

The runtime reads ``HSA_OVERRIDE_GFX_VERSION_<n>`` for KFD node ``n`` before the global variable
(libhsakmt ``topology.c``, :data:`PER_NODE_SOURCE`; "merged back in ROCm 6.2", AMD in
https://github.com/ROCm/legacy-rocm-build/issues/5069): node 0 is the CPU, so GPU ``i`` is node
``i + 1`` on a host with one CPU node (https://github.com/ROCm/ROCT-Thunk-Interface/pull/104's
example: device 0 is ``_1``, device 1 ``_2``). Read from the probed (or recorded, or
``--rocm-set env.HSA_OVERRIDE_GFX_VERSION=...``) environment and the arch table.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

ID = "hsa-override-invalid"
VARIABLE = rocm_targets.OVERRIDE_VARIABLE
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
# ROCm maintainers on overrides across major ISA versions ("major screw ups").
SOURCE = "https://github.com/ROCm/rocm-systems/pull/3461"
# The per-node variable: libhsakmt reads HSA_OVERRIDE_GFX_VERSION_<node_id>, else the global one.
PER_NODE_SOURCE = (
    "https://github.com/ROCm/rocm-systems/blob/1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992"
    "/projects/rocr-runtime/libhsakmt/src/topology.c#L1237"
)
# What code for a foreign ISA gives: the runtime's ISA check, missing code objects, memory faults.
# Seventh round: HIP's text for hipErrorNoBinaryForGpu (ROCm/clr hip_error.cpp), and the thunk's
# refusal of a malformed value (ROCR-Runtime libhsakmt/src/topology.c "HSA_OVERRIDE_GFX_VERSION %s is
# invalid", printed when HSAKMT_DEBUG_LEVEL >= 3). Not ROCr's "HW Exception ... GPU Hang": any hang.
# Eighth round: ROCr's status for a shader executing an instruction the GPU lacks (what an ISA gap
# gives), as HIP prints it: "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an
# illegal shader instruction." (https://github.com/ROCm/hip/issues/2344).
PREDICTS = (
    r"HSA_STATUS_ERROR_INVALID_ISA|HSA_ERROR_INVALID_ISA|Memory access fault by GPU node-\d+"
    r"|hipErrorNoBinaryForGpu|(?i:invalid device function)|hipErrorInvalidDeviceFunction"
    r"|HSA_STATUS_ERROR_OUT_OF_RESOURCES|No HIP GPUs are available"
    r"|no kernel image is available for execution on the device"
    r"|HSA_OVERRIDE_GFX_VERSION \S+ is invalid"
    # thirtieth round: the runtime's own refusal of a value of another shape (an empty one, as containers set it),
    # after which it reports gfx000 (https://github.com/ROCm/ROCR-Runtime/issues/354, fixed by
    # https://github.com/ROCm/rocm-systems/pull/5686)
    r"|Invalid HSA_OVERRIDE_GFX_VERSION format"
    r"|HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION|attempted to execute an illegal shader instruction"
    r"|" + rocm_targets.TRITON_HIP_NO_BINARY
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm" and not any(a.startswith("gfx") for a in env.archs):
        return []
    certain: dict[tuple[str, str], None] = {}
    risks: dict[tuple[str, str], None] = {}
    for arch, name, value in overrides(env):
        for problem, link, sure in _problems(arch, name, value):
            (certain if sure else risks).setdefault((problem, link))
    if certain:
        return [_finding(problem, link, uncertain=False) for problem, link in certain]
    return [_finding(problem, link, uncertain=True) for problem, link in risks]


def overrides(env: Environment) -> list[tuple[str, str, str]]:
    """(GPU arch, variable, value) for each AMD GPU an override reaches: its own
    ``HSA_OVERRIDE_GFX_VERSION_<index + 1>``, else the global variable. With no gfx GPU listed,
    ("", variable, value) for a set global variable (its value alone can be judged).
    """
    found: dict[tuple[str, str, str], None] = {}
    for gpu in env.gpus:
        setting = rocm_targets.override_setting(env, gpu)
        if setting is not None:
            found.setdefault((gpu.arch, *setting))
    if not found and VARIABLE in env.env and not any(a.startswith("gfx") for a in env.archs):
        found.setdefault(("", VARIABLE, env.env[VARIABLE]))
    return list(found)


def _problems(arch: str, name: str, value: str) -> list[tuple[str, str, bool]]:
    """(problem, source, certain) of one GPU's override."""
    target, why = arch_table.override_target(value)
    if target is None:
        return [(f"{name}={value} is no valid target: {why}", SOURCE, True)]
    if not arch:
        return []
    if arch_table.same_group(arch, target) is False:
        problem = f"{name}={value} makes {arch} ({_family(arch)}) run code for {target} ({_family(target)}), another ISA family"
        return [(problem, SOURCE, True)]
    return [
        (
            f"{name}={value} makes {arch} run code for {target}, which may use {gap.what}: "
            f"{target} has them, {arch} does not (LLVM generic processor {gap.group}-generic)",
            gap.source,
            gap.pervasive,
        )
        for gap in arch_table.override_gaps(arch, target)
    ]


def _finding(problem: str, link: str, *, uncertain: bool) -> Finding:
    return Finding(
        check=ID,
        reason=problem,
        fix=f"unset {VARIABLE}, or set it (or {VARIABLE}_<n> for GPU n-1 alone) to a target of the GPU's "
        "own family that has every instruction it uses and that the build carries "
        "(e.g. 10.3.0 for RDNA2, 11.0.0 for RDNA3/3.5, 9.0.0 for Vega)",
        link=link,
        markers=("gpus",),
        nodeids=GPU_SUITE,
        uncertain=uncertain,
    )


def _family(arch: str) -> str:
    row = arch_table.info(arch)
    return row.family if row is not None else "unknown"

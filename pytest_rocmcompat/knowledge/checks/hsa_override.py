"""``hsa-override-invalid``: ``HSA_OVERRIDE_GFX_VERSION`` names no GPU target, or one of another family.

The ROCm runtime reports (and loads code for) the ``major.minor.stepping`` the variable names.
That works only within one code-object family (LLVM's generic processors: gfx9, gfx9-4, gfx10-1,
gfx10-3, gfx11, gfx12), e.g. an RX 6600 (gfx1032) as gfx1030 (``10.3.0``); code for another
family runs instructions the GPU does not have (invalid ISA, memory faults, hangs), and a value
that names no target at all leaves the runtime without a usable GPU. Read from the probed (or
recorded, or ``--rocm-set env.HSA_OVERRIDE_GFX_VERSION=...``) environment and the arch table.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

ID = "hsa-override-invalid"
VARIABLE = "HSA_OVERRIDE_GFX_VERSION"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
# ROCm maintainers on overrides across major ISA versions ("major screw ups").
SOURCE = "https://github.com/ROCm/rocm-systems/pull/3461"
# What code for a foreign ISA gives: the runtime's ISA check, missing code objects, memory faults.
# Seventh round: HIP's text for hipErrorNoBinaryForGpu (ROCm/clr hip_error.cpp), and the thunk's
# refusal of a malformed value (ROCR-Runtime libhsakmt/src/topology.c "HSA_OVERRIDE_GFX_VERSION %s is
# invalid", printed when HSAKMT_DEBUG_LEVEL >= 3). Not ROCr's "HW Exception ... GPU Hang": any hang.
PREDICTS = (
    r"HSA_STATUS_ERROR_INVALID_ISA|HSA_ERROR_INVALID_ISA|Memory access fault by GPU node-\d+"
    r"|hipErrorNoBinaryForGpu|(?i:invalid device function)|hipErrorInvalidDeviceFunction"
    r"|HSA_STATUS_ERROR_OUT_OF_RESOURCES|No HIP GPUs are available"
    r"|no kernel image is available for execution on the device"
    r"|HSA_OVERRIDE_GFX_VERSION \S+ is invalid"
)


def check(env: Environment) -> list[Finding]:
    value = env.env.get(VARIABLE)
    gfx = [a for a in env.archs if a.startswith("gfx")]
    if value is None or (env.platform != "rocm" and not gfx):
        return []
    target, why = arch_table.override_target(value)
    if target is None:
        problem = f"{VARIABLE}={value} is no valid target: {why}"
    else:
        foreign = [a for a in gfx if arch_table.same_group(a, target) is False]
        if not foreign:
            return []
        shown = ", ".join(f"{a} ({_family(a)})" for a in foreign)
        problem = f"{VARIABLE}={value} makes {shown} run code for {target} ({_family(target)}), another ISA family"
    return [
        Finding(
            check=ID,
            reason=problem,
            fix=f"unset {VARIABLE}, or set it to a target of the GPU's own family that the build carries "
            "(e.g. 10.3.0 for RDNA2, 11.0.0 for RDNA3/3.5, 9.0.0 for Vega)",
            link=SOURCE,
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    ]


def _family(arch: str) -> str:
    row = arch_table.info(arch)
    return row.family if row is not None else "unknown"

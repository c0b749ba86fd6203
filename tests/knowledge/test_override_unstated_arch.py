"""An override on a ROCm stack that does not state its GPU's arch: the processor the override names is judged.

The runtime loads code for the processor ``HSA_OVERRIDE_GFX_VERSION`` names, whatever the GPU is
(libhsakmt reports that ``major.minor.stepping`` for the node), so a stack that states the override
but not the GPU (a bug report: "RX 6700, HSA_OVERRIDE_GFX_VERSION=10.3.1") is judged as that
processor: ``10.3.1`` (gfx1031) is in no official torch ROCm build, ``10.3.0`` (gfx1030) is.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks import arch, rocm_targets
from pytest_rocmcompat.knowledge.checks.rocm_targets import EffectiveArch
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", os="Linux", source="replay")
VAR = "env.HSA_OVERRIDE_GFX_VERSION"
TORCH = "torch=2.3.1+rocm6.0"  # targets gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100 gfx942


def stated(*assignments: str, gpus: tuple[GPU, ...] = ()) -> Environment:
    env = apply_overrides(BASE, ["platform=rocm", TORCH, *assignments])
    return env if not gpus else Environment(**{**env.__dict__, "gpus": gpus})


def arch_reasons(env: Environment) -> list[str]:
    return [f.reason for f in arch.check(env)]


def test_no_gpu_listed_the_global_override_names_the_processor() -> None:
    env = stated(f"{VAR}=10.3.1")
    assert rocm_targets.effective_archs(env) == [EffectiveArch("", "gfx1031", "HSA_OVERRIDE_GFX_VERSION")]
    (reason,) = arch_reasons(env)
    assert "a GPU of unstated arch (as gfx1031 by HSA_OVERRIDE_GFX_VERSION)" in reason
    assert "torch 2.3.1+rocm6.0 has no kernels" in reason


def test_an_amd_gpu_of_unknown_arch_takes_the_override() -> None:
    env = stated(f"{VAR}=10.3.1", gpus=(GPU(0, "AMD Radeon", "", vendor="amd"),))
    assert rocm_targets.effective_archs(env) == [EffectiveArch("", "gfx1031", "HSA_OVERRIDE_GFX_VERSION")]
    assert arch_reasons(env)
    assert rocm_targets.amd_gpus(env) == rocm_targets.effective_archs(env)


def test_an_override_the_build_serves_is_no_finding() -> None:
    assert arch_reasons(stated(f"{VAR}=10.3.0")) == []
    assert arch_reasons(stated(f"{VAR}=10.3.0", gpus=(GPU(0, "AMD Radeon", "", vendor="amd"),))) == []


def test_without_an_override_an_unstated_arch_is_not_judged() -> None:
    assert rocm_targets.effective_archs(stated()) == []
    assert rocm_targets.effective_archs(stated(gpus=(GPU(0, "AMD Radeon", "", vendor="amd"),))) == []
    assert arch_reasons(stated()) == []


def test_an_nvidia_gpu_or_a_cuda_stack_takes_no_amd_override() -> None:
    nvidia = stated(f"{VAR}=10.3.1", gpus=(GPU(0, "NVIDIA H100", "", vendor="nvidia"),))
    assert rocm_targets.effective_archs(nvidia) == []
    cuda = apply_overrides(BASE, ["platform=cuda", "torch=2.3.1+cu121", f"{VAR}=10.3.1"])
    assert rocm_targets.effective_archs(cuda) == []


def test_a_malformed_override_names_no_processor() -> None:
    assert rocm_targets.effective_archs(stated(f"{VAR}=gfx1031")) == []


def test_a_stated_arch_keeps_its_own_name() -> None:
    env = stated("arch=gfx1032", f"{VAR}=10.3.1")
    assert rocm_targets.effective_archs(env) == [EffectiveArch("gfx1032", "gfx1031", "HSA_OVERRIDE_GFX_VERSION")]
    assert "gfx1032 (as gfx1031 by HSA_OVERRIDE_GFX_VERSION)" in arch_reasons(env)[0]

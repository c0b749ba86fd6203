"""``rocm-driver-unsupported`` for a GFX8 GPU: ROCm needs PCIe atomics from the host, which the stack cannot say.

amdkfd brings a discrete GFX8 GPU (Tonga gfx802, Fiji and Polaris gfx803, gfx805) up for compute only
where the PCIe path from the GPU to the CPU root port completes atomic operations: the
pre-GFX9 branch of ``kfd_device_info_init`` sets ``needs_pci_atomics`` for every such GPU but Hawaii
(and a virtual function), and ``kgd2kfd_device_init`` then logs ``skipped device %x:%x, PCI rejects
atomics %d<%d`` and leaves it out (KFD_SOURCE). GFX8 has no firmware that lifts the requirement, and
GFX9 never needed it (ATOMICS_OPTIONAL_SOURCE: "Report failure to enable atomics only on GPUs that
require them", 2018; AMD's maintainer in ROCm/ROCm#653, 2019: "we currently require PCIe atomics with
any "gfx8" based GPU. Your Vega 64 is a "gfx9" based GPU and does not require PCIe atomics"). GFX10-12
need them too, unless their MEC firmware reaches a version the same function names: which firmware a
host loads no stack field says either, and current firmware lifts it, so they are not judged. A
host without atomics is common among the machines such cards end up in: a PCIe 2.0 slot, a slot
behind the chipset, a riser or Thunderbolt enclosure, a CPU older than Haswell, a virtual machine
(ROCR's maintainers: "it is not possible to run with out PCIe Atomics support, we need this for
Signaling and some other functions with GFX8 and GFX9 GPU's", ROCR_SOURCE; AMD's *How ROCm uses PCIe
atomics*, DOC_SOURCE).

No stack field records the host's PCIe path, so a stated GFX8 GPU on Linux is a risk (*uncertain*): only
the failures of a GPU amdkfd did not bring up confirm it (:data:`rocm_kernel.UNSTATED_PREDICTS`: no HIP
device, ``/dev/kfd``, the HSA runtime's status errors other than faults, the kernel driver's own texts
among them amdkfd's "PCI rejects atomics"), never a crash, a fault, a hang or "invalid device function".
Only a GPU the stack *states* is judged: one a probe enumerated was found through amdkfd, which
therefore brought it up. Not under WSL (no KFD: :mod:`rocm_kernel` judges it) or on Windows (AMD's
Windows driver).
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks import rocm_kernel
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

KFD_SOURCE = "https://github.com/torvalds/linux/blob/v6.8/drivers/gpu/drm/amd/amdkfd/kfd_device.c"
ATOMICS_OPTIONAL_SOURCE = "https://git.zx2c4.com/linux-dev/commit/?id=6106dce9559ec5a4b1a97302f2fcc508e40d2747"
ROCR_SOURCE = "https://github.com/RadeonOpenCompute/ROCR-Runtime/issues/23"
GFX8_ONLY_SOURCE = "https://github.com/ROCm/ROCm/issues/653"
DOC_SOURCE = "https://rocm.docs.amd.com/en/docs-6.2.2/conceptual/More-about-how-ROCm-uses-PCIe-Atomics.html"
# Discrete GFX8 processors (LLVM's table: gfx801 Carrizo and gfx810 Stoney are APUs, whose atomics do
# not cross PCIe; gfx701 Hawaii is the one GFX7 dGPU amdkfd ever drove, and it is exempt).
NEEDS_ATOMICS = frozenset({"gfx802", "gfx803", "gfx805"})


def findings(env: Environment, check_id: str) -> list[Finding]:
    """The risk of stated GFX8 GPUs on a Linux stack, whose host may not complete PCIe atomics."""
    if env.platform != "rocm" or not rocm_kernel.archs_stated(env) or rocm_kernel.is_wsl(env):
        return []
    if env.system.lower() in ("windows", "darwin"):
        return []  # Windows' HIP SDK runs on AMD's Windows driver
    gfx = [a for a in env.archs if a.startswith("gfx")]
    at_risk = sorted({a for a in gfx if a in NEEDS_ATOMICS})
    if not at_risk:
        return []
    every = len(at_risk) == len(set(gfx))
    return [
        Finding(
            check=check_id,
            reason=f"ROCm drives {', '.join(at_risk)} (GFX8) only where the host completes PCIe atomics "
            '(amdkfd skips the GPU otherwise: "PCI rejects atomics"); the stack cannot say whether its host does',
            fix="seat the GPU in a PCIe 3.0 slot wired to the CPU (not behind the chipset, a riser or Thunderbolt) "
            "on a CPU with PCIe atomics (Intel Haswell or later, AMD Zen); check 'dmesg | grep kfd' for "
            "'PCI rejects atomics'; or use a GFX9 or later GPU, which does not need them",
            link=KFD_SOURCE,
            everything=every,
            markers=() if every else ("gpus",),
            nodeids=() if every else rocm_kernel.GPU_SUITE,
            uncertain=True,  # most hosts since Haswell/Zen do complete them
            predicts=rocm_kernel.UNSTATED_PREDICTS,
            signature_only=True,  # a GPU not brought up: never a fault, a hang or a code-object error
        )
    ]

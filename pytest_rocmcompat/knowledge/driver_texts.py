"""What the amdgpu kernel driver and its tools print when the driver did not bring the GPU up.

Shared by ``rocm-driver-unsupported``'s recent-kernel risk (:mod:`checks.rocm_kernel`) and the
``amdgpu-driver-init`` diagnosis (:mod:`diagnoses`), each text formatted from its source's string
and quoted verbatim in tests/knowledge/test_rocm_kernel_texts.py. A module of its own so that the
diagnosis table, which failures and report readers import, does not import a check.
"""

from __future__ import annotations

# The kernel driver's own texts:
# amdkfd skipping a GPU on a PCIe path without atomics (KFD_ATOMICS_SOURCE), amdgpu failing to bring
# the GPU up (AMDGPU_INIT_SOURCE: "Fatal error during GPU init"; the driver core's "amdgpu: probe of ...
# failed with error", DRIVER_CORE_SOURCE, "probe with driver amdgpu failed with error" from Linux 6.18,
# DRIVER_CORE_618_SOURCE) or to load its firmware (FIRMWARE_SOURCE, for an amdgpu/ file), the module
# refused by Secure Boot (kmod's "could not insert 'amdgpu'", KMOD_SOURCE) or its DKMS build failing
# (dpkg's "error processing package amdgpu-dkms", dkms' "Consult /var/lib/dkms/amdgpu/.../make.log"),
# and ROCm's SMI tools finding no amdgpu module (ROCM_SMI_SOURCE, AMDSMI_SOURCE): the driver serving no
# GPU at all. Not the driver's hangs in running work (the MES scheduler not answering, MES_SOURCE; a ring
# timeout): like faults, those are rocm_driver's certain finding's, never a risk's.
DRIVER_TEXTS = (
    r"skipped device [0-9a-f]+:[0-9a-f]+, PCI rejects atomics|Fatal error during GPU init"
    r"|amdgpu: probe of \S+ failed with error|probe with driver amdgpu failed with error"
    r"|Direct firmware load for amdgpu/\S+ failed with error"
    r"|could not insert 'amdgpu'|error processing package amdgpu-dkms"
    r"|Consult /var/lib/dkms/amdgpu/\S+/make\.log|[Dd]river not initialized \(amdgpu not found in modules\)"
)
# A GPU closed to the user, not one the driver failed to bring up: rocminfo's CheckInitialState ("Unable to
# open /dev/kfd read-write: %s" with EACCES's strerror; its group check's "%s is not member of \"%s\" group,
# the default DRM access group", ROCMINFO_ACCESS_SOURCE; as users quote it, ROCm/ROCm-docker#116), amd-smi's
# group and device-node checks from ROCm 7 ("User is missing the following required groups", "Permission
# needed to access required GPU device node(s)", "/dev/dri/card0: Permission denied; owner=...",
# AMDSMI_ACCESS_SOURCE) and Python's PermissionError opening a device file. A failure showing one is
# explained by access (the render/video group, a container started without --group-add), whatever else it
# prints after it (rocminfo's HSA failure, torch's "No HIP GPUs are available"): the ROCm device checks'
# ``explained_by``, and the ``gpu-device-access-denied`` diagnosis.
_NODE = r"/dev/(?:kfd|dri/(?:card|renderD)\d+)"
ACCESS_DENIED = (
    rf"{_NODE}(?: read-write)?: Permission denied|Permission denied: '{_NODE}'"
    r"|is not member of \"\w+\" group, the default DRM access group|User is missing the following required groups"
    r"|Permission needed to access required GPU device node"
)
ROCMINFO_ACCESS_SOURCE = "https://github.com/ROCm/rocminfo/blob/026828a8a1e968c6121d81394fc4310d2f4757f8/rocminfo.cc"
AMDSMI_ACCESS_SOURCE = "https://github.com/ROCm/amdsmi/issues/184"
KFD_ATOMICS_SOURCE = "https://github.com/torvalds/linux/blob/v6.8/drivers/gpu/drm/amd/amdkfd/kfd_device.c"
AMDGPU_INIT_SOURCE = "https://github.com/torvalds/linux/blob/v6.8/drivers/gpu/drm/amd/amdgpu/amdgpu_kms.c"
DRIVER_CORE_SOURCE = "https://github.com/torvalds/linux/blob/v6.8/drivers/base/dd.c"
DRIVER_CORE_618_SOURCE = "https://github.com/torvalds/linux/blob/v6.18/drivers/base/dd.c"
FIRMWARE_SOURCE = "https://github.com/torvalds/linux/blob/v6.8/drivers/base/firmware_loader/main.c"
KMOD_SOURCE = "https://github.com/kmod-project/kmod/blob/v31/tools/modprobe.c"
ROCM_SMI_SOURCE = "https://github.com/ROCm/rocm_smi_lib/blob/rocm-6.2.0/python_smi_tools/rocm_smi.py"
AMDSMI_SOURCE = "https://github.com/ROCm/amdsmi/blob/rocm-6.2.0/amdsmi_cli/amdsmi_helpers.py"
MES_SOURCE = (
    "https://github.com/torvalds/linux/blob/0016e870542dc0a529e5ed97b628b6b727531e9b/"
    "drivers/gpu/drm/amd/amdgpu/mes_v11_0.c"
)

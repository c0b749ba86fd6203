"""Facts a failure's own text states about the machine it ran on: the GPU's processor, the ROCm release.

A stack replayed from a report, or a stack file, often leaves the GPU out, while the failure names it: the
libraries print the processor they looked for. Only messages that name the GPU the process runs on are
read, never a list of targets a build supports (vLLM's "Supported ROCm architectures are: ..."):

- rocBLAS' Tensile loader, ``... No such file or directory for GPU arch : gfx1031`` and its warning
  ``No paths matched /opt/rocm/lib/rocblas/library/*gfx1031*co`` (``library/src/tensile_host.cpp``,
  ROCBLAS_SOURCE);
- the HIP runtime: ``No compatible code objects found for: gfx1030`` (``hip_fatbin.cpp``) and the device
  list of ``hipErrorNoBinaryForGpu``, ``amdgcn-amd-amdhsa--gfx1031 - [Not Found]`` (HIP_SOURCE);
- AITER's chip map, ``Unknown GPU architecture: gfx1151`` (AITER_SOURCE); RCCL's ``unsupported
  architecture (gfx1151) for collective`` (RCCL_SOURCE); vLLM's build, ``None of the detected ROCm
  architectures: gfx1031 is supported`` (one detected processor only); TensorFlow's ``Ignoring visible gpu
  device (...) with AMDGPU version : gfx803`` (``gpu_device.cc``, TF_SOURCE);
- torch's capability warnings, ``NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible
  with the current PyTorch installation`` and ``Found GPU0 Tesla K80 which is of cuda capability 3.7``
  / ``which is of compute capability (CC) 12.0`` (``torch/cuda/__init__.py``, TORCH_SOURCE).

Under ``HSA_OVERRIDE_GFX_VERSION`` the runtime reports the processor it was told; the checks apply the
stack's override to the arch either way. Two different processors named: no fact (a multi-GPU host).

The ROCm release: a path under the versioned install directory, ``/opt/rocm-5.7.1/lib/rocblas/...``
(each release installs into ``/opt/rocm-X.Y.Z``, several side by side in a multi-version install:
ROCM_PATH_SOURCE), or the HIP SDK's ``AMD\\ROCm\\6.2\\`` directory on Windows. Two releases named: no fact.

The amdgpu kernel driver: rocminfo's ``ROCk module version 6.8.5 is loaded``, the kernel log's ``[drm] amdgpu
version: 6.16.6``, ``dkms status``' ``amdgpu/6.8.5-2009582.22.04, 6.5.0-14-generic, x86_64: installed`` (the
lines :mod:`stack.amd_driver` reads in a stated ``driver``); else the running kernel, whose in-kernel amdgpu it is,
from the kernel log's ``Linux version 6.5.0-14-generic`` or ``uname -a``'s ``Linux host 6.5.0-14-generic #14~22.04.1``.
Two versions named: no fact.
"""

from __future__ import annotations

import re

ROCBLAS_SOURCE = "https://github.com/ROCm/rocBLAS/blob/rocm-6.2.0/library/src/tensile_host.cpp"
HIP_SOURCE = "https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/src/hip_code_object.cpp"
AITER_SOURCE = (
    "https://github.com/ROCm/aiter/blob/03474676fc51e434ab7ddd17f4155d6d83cf8071/aiter/jit/utils/chip_info.py"
)
RCCL_SOURCE = "https://github.com/ROCm/rocm-systems/issues/7184"
TF_SOURCE = "https://github.com/xuhuisheng/rocm-gfx803/issues/33"
TORCH_SOURCE = "https://github.com/pytorch/pytorch/blob/v2.7.0/torch/cuda/__init__.py"

ROCM_PATH_SOURCE = "https://rocm.docs.amd.com/projects/install-on-linux/en/docs-6.2.0/install/native-install/multi-version-install.html"

_GFX = r"(gfx[0-9a-f]{3,4})\b"
# each names the processor of the GPU the process runs on ({gfx}: its capture group)
_AMD_TEXTS = (
    r"for GPU arch : {gfx}",
    r"No paths matched [^\n]{{0,400}}?\*{gfx}\*co",
    r"No compatible code objects found for: {gfx}",
    r"amdgcn-amd-amdhsa--{gfx}[^\s]* - \[Not Found\]",
    r"Unknown GPU architecture: {gfx}",
    r"unsupported architecture \({gfx}\) for collective",
    r"None of the detected ROCm architectures: {gfx} is supported",
    r"with AMDGPU version : {gfx}",
)
_AMD = re.compile("|".join(text.format(gfx=_GFX) for text in _AMD_TEXTS))
_SM = re.compile(r"with CUDA capability (sm_\d{2,3}) is not compatible with the current PyTorch installation")
_CC = re.compile(r"which is of (?:cuda|compute) capability (?:\(CC\) )?(\d{1,2})\.(\d)\b")


def gpu_arch_named(text: str) -> str | None:
    """The one GPU processor the failure names (``"gfx1031"``, ``"sm_120"``), or ``None`` (none, or several)."""
    named = {group for m in _AMD.finditer(text) for group in m.groups() if group}
    named.update(m.group(1) for m in _SM.finditer(text))
    named.update(f"sm_{major}{minor}" for major, minor in _CC.findall(text))
    return named.pop() if len(named) == 1 else None


_ROCM_DIR = re.compile(r"/opt/rocm-(\d+\.\d+(?:\.\d+)?)(?=/|\s|$|['\":])|AMD\\ROCm\\(\d+\.\d+)\\")


def rocm_release_named(text: str) -> str | None:
    """The one ROCm release whose install directory the failure's paths name (``"5.7.1"``), or ``None``."""
    named = {a or b for a, b in _ROCM_DIR.findall(text)}
    return named.pop() if len(named) == 1 else None


# the amdgpu driver's own version lines (stack.amd_driver's), then the running kernel's release
_AMDGPU = re.compile(
    r"ROCk module version (\d+(?:\.\d+){1,3}) is loaded|\[drm\] amdgpu version: *(\d+(?:\.\d+){1,3})"
    r"|\bamdgpu/(\d+\.\d+\.\d+(?:\.\d+)?)-\d+[.\w]*, [\w.-]+, \w+: installed"
)
_KERNEL = re.compile(r"\bLinux version (\d+\.\d+\.\d+-[\w.+~-]+)|\bLinux [\w.-]+ (\d+\.\d+\.\d+-[\w.+~-]+) #\d")


def amdgpu_driver_named(text: str) -> str | None:
    """The one amdgpu driver version (``"6.8.5"``) or, where none, the one kernel release (``"6.5.0-14-generic"``)
    the failure names; ``None`` for none or several.
    """
    for pattern in (_AMDGPU, _KERNEL):
        named = {next(g for g in m.groups() if g) for m in pattern.finditer(text)}
        if named:
            return named.pop() if len(named) == 1 else None
    return None

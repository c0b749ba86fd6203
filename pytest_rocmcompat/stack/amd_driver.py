"""The amdgpu kernel driver's version in the forms users paste it: the line a tool prints it on, reduced to the version.

A stack states ``driver`` as the probe records it (rocminfo's ROCk version, ``/sys/module/amdgpu/version``, a
kernel release for the distribution's in-kernel amdgpu), but a bug report or a ``--set`` copies the line
that showed it. :func:`driver_version` reads the version out of each such line, so that the driver checks
(``knowledge.checks.rocm_driver``) and ``--rocm-set``/``--set`` (:mod:`stack.overrides`) take them alike.
"""

from __future__ import annotations

import re

__all__ = ["DKMS_PACKAGE", "driver_version"]

# The amdgpu version as users paste the line that shows it, each reduced to the version (:func:`driver_version`):
# rocminfo's "ROCk module version 6.8.5 is loaded" (ROCMINFO_ROCK_SOURCE), the kernel log's "[drm] amdgpu
# version: 6.16.6" and amd-smi's "AMDGPU version", ``modinfo amdgpu``'s
# "version:        6.8.5", ``dkms status``' "amdgpu/6.8.5-2009582.22.04, 6.5.0-14-generic, x86_64: installed"
# (the module's version, not the kernel after it), rpm's "amdgpu-dkms-6.8.5.60200-2009582.el9.noarch", and
# dpkg's or apt's "amdgpu-dkms/jammy,now 1:6.8.5.60200-2009582.22.04 all" (a Debian epoch ``1:`` before it)
_QUOTED_DRIVER = (
    re.compile(r"ROCk module version (\S+) is loaded"),
    re.compile(r"\bamdgpu version: *(\d\S*)", re.IGNORECASE),
    re.compile(r"^\s*version:\s*(\S+)", re.MULTILINE),
    re.compile(r"\bamdgpu/(\d[^,:\s]*)"),
    re.compile(r"\bamdgpu-dkms-(?:\d+:)?(\d+(?:\.\d+)+)-"),
    re.compile(r"\bamdgpu-dkms\S*\s+(?:\d+:)?(\d\S*)"),
)
ROCMINFO_ROCK_SOURCE = "https://github.com/ROCm/rocminfo/blob/rocm-6.2.0/rocminfo.cc"
_EPOCH = re.compile(r"^\d+:(?=\d)")


def driver_version(driver: str | None) -> str:
    """The amdgpu version in what a stack states as ``driver``: the value itself, or the version in the line
    a tool prints it on (:data:`_QUOTED_DRIVER`), without a Debian epoch (``1:6.8.5.60200-...``).
    """
    text = str(driver or "").strip()
    for quoted in _QUOTED_DRIVER:
        match = quoted.search(text)
        if match:
            text = match.group(1)
            break
    return _EPOCH.sub("", text)


# AMD's DKMS package version without its epoch, as dpkg, apt and rpm show it: the kernel base, the ROCm or
# AMD GPU Driver build (6.8.5.60200, 6.14.14.30100000), then the package build and distribution
# (-2009582.22.04, -2009582.el9): not PEP 440, so --rocm-set takes it as it is
DKMS_PACKAGE = re.compile(r"^\d+\.\d+\.\d+(?:\.\d+){0,3}-\d+(?:\.[A-Za-z0-9_]+){0,4}$")

"""Runs in a child process: asks torch, amdsmi and NVML about the devices, prints JSON.

The pytest controller never imports torch or initialises a GPU runtime itself
(a forked or spawned test must not inherit a GPU context); this child does it
and exits. Every source is optional: a failure becomes a note, never a crash.
Output: one JSON object on stdout with keys ``torch``, ``amdsmi``, ``nvml``, ``notes``.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _torch() -> dict[str, Any]:
    import torch

    info: dict[str, Any] = {
        "version": str(torch.__version__),
        "hip": getattr(torch.version, "hip", None),
        "cuda": getattr(torch.version, "cuda", None),
        "devices": [],
    }
    abi = getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", None)
    if isinstance(abi, bool):
        info["cxx11_abi"] = abi
    try:  # the build's code targets; needs no device
        info["arch_list"] = [str(a) for a in torch.cuda.get_arch_list()]
    except Exception:
        pass
    if torch.cuda.is_available():
        try:
            nccl = torch.cuda.nccl.version()
            info["nccl"] = ".".join(str(p) for p in nccl) if isinstance(nccl, tuple) else str(nccl)
        except Exception:  # no NCCL/RCCL in this build
            pass
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            info["devices"].append(
                {
                    "index": i,
                    "name": p.name,
                    "memory_bytes": int(p.total_memory),
                    "major": int(p.major),
                    "minor": int(p.minor),
                    "gcn_arch": getattr(p, "gcnArchName", "") or "",
                }
            )
    return info


def _amdsmi() -> dict[str, Any]:
    import amdsmi

    amdsmi.amdsmi_init()
    try:
        info: dict[str, Any] = {"devices": []}
        handles = amdsmi.amdsmi_get_processor_handles()
        for i, handle in enumerate(handles):
            asic = amdsmi.amdsmi_get_gpu_asic_info(handle)
            try:
                vram_mb = int(amdsmi.amdsmi_get_gpu_vram_info(handle).get("vram_size", 0))
            except Exception:
                vram_mb = 0
            info["devices"].append(
                {
                    "index": i,
                    "name": asic.get("market_name") or "",
                    "arch": asic.get("target_graphics_version") or "",
                    "memory_bytes": vram_mb * 1024 * 1024 or None,
                }
            )
        if handles:
            info["driver"] = amdsmi.amdsmi_get_gpu_driver_info(handles[0]).get("driver_version")
        if hasattr(amdsmi, "amdsmi_get_rocm_version"):
            ok, version = amdsmi.amdsmi_get_rocm_version()
            if ok:
                info["rocm"] = version
        return info
    finally:
        amdsmi.amdsmi_shut_down()


def _nvml() -> dict[str, Any]:
    import pynvml

    def text(value: Any) -> str:
        return value.decode() if isinstance(value, bytes) else str(value)

    pynvml.nvmlInit()
    try:
        cuda = pynvml.nvmlSystemGetCudaDriverVersion()
        info: dict[str, Any] = {
            "driver": text(pynvml.nvmlSystemGetDriverVersion()),
            "cuda": f"{cuda // 1000}.{(cuda % 1000) // 10}",
            "devices": [],
        }
        for i in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(i)
            major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
            info["devices"].append(
                {
                    "index": i,
                    "name": text(pynvml.nvmlDeviceGetName(handle)),
                    "memory_bytes": int(pynvml.nvmlDeviceGetMemoryInfo(handle).total),
                    "major": int(major),
                    "minor": int(minor),
                }
            )
        return info
    finally:
        pynvml.nvmlShutdown()


MARKER = "@@rocmcompat-probe@@"
SOURCES = {"torch": _torch, "amdsmi": _amdsmi, "nvml": _nvml}


def main(argv: list[str]) -> int:
    out: dict[str, Any] = {"notes": []}
    for name in argv or list(SOURCES):
        try:
            out[name] = SOURCES[name]()
        except ImportError as exc:
            out["notes"].append(f"{name}: not importable ({exc})")
        except Exception as exc:  # any runtime failure is a note, never a crash
            out["notes"].append(f"{name}: {type(exc).__name__}: {exc}")
    sys.stdout.write("\n" + MARKER + json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

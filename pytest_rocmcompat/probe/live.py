"""Probe the running machine into an :class:`Environment`.

Sources run concurrently and each is optional: the native child (torch,
amdsmi, NVML), ``rocminfo``, ``amd-smi static --json``, ``nvidia-smi``, the
ROCm version files, :mod:`importlib.metadata` and the environment variables.
A failing source adds a note; the probe itself never raises.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform as _platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from pytest_rocmcompat.probe.device_report import DeviceReport
from pytest_rocmcompat.probe.envvars import capture_env
from pytest_rocmcompat.probe.libraries import installed_stack
from pytest_rocmcompat.probe.native_child import MARKER
from pytest_rocmcompat.stack.arch import nvidia_arch
from pytest_rocmcompat.stack.environment import GPU, Environment

TOOL_TIMEOUT_S = 30.0
NATIVE_TIMEOUT_S = 120.0
ROCM_ROOTS = ("/opt/rocm",)


def probe(extra_libraries: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> Environment:
    """Snapshot this machine. ``extra_libraries``: names a matrix mentions beyond the built-in list."""
    environ = dict(os.environ if environ is None else environ)
    notes: list[str] = []
    jobs: dict[str, Callable[[], Any]] = {"native": lambda: _run_native(environ)}
    try:
        for tool, args, parse in _tool_commands(environ):
            jobs[tool] = partial(_tool_report, parse, args, environ)
    except Exception as exc:  # the probe never raises: a broken source is a note
        notes.append(f"vendor tools: {type(exc).__name__}: {exc}")
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {name: pool.submit(fn) for name, fn in jobs.items()}
        libraries, requires = installed_stack(extra_libraries)
        try:
            rocm_file, rocm_note = _rocm_version(environ)
        except Exception as exc:
            rocm_file, rocm_note = None, f"ROCm version files: {type(exc).__name__}: {exc}"
        results: dict[str, Any] = {}
        for name, future in futures.items():
            try:
                results[name] = future.result()
            except Exception as exc:  # a tool that fails is a note
                notes.append(f"{name}: {exc}")
    if rocm_note:
        notes.append(rocm_note)
    native = results.pop("native", {}) or {}
    notes.extend(native.get("notes", []))
    reports = _native_reports(native) + [r for r in results.values() if isinstance(r, DeviceReport)]
    return assemble(native.get("torch"), reports, rocm_file, libraries, environ, notes, requires)


def assemble(
    torch: dict[str, Any] | None,
    reports: list[DeviceReport],
    rocm_file: str | None,
    libraries: dict[str, str],
    environ: Mapping[str, str],
    notes: list[str],
    requires: dict[str, tuple[str, ...]] | None = None,
) -> Environment:
    """Combine the sources by priority (vendor libraries, then tools, then torch). Pure."""
    amd = _first(reports, ("amdsmi", "amd-smi", "rocminfo", "torch"), "amd")
    nvidia = _first(reports, ("nvml", "nvidia-smi", "torch"), "nvidia")
    gpus = _enrich(amd, reports, "amd") + _enrich(nvidia, reports, "nvidia")
    gpus = [GPU(i, g.name, g.arch, g.memory_bytes, g.vendor) for i, g in enumerate(gpus)] if amd and nvidia else gpus
    torch = torch or {}
    hip, cuda = torch.get("hip"), torch.get("cuda")
    if hip:
        platform = "rocm"
    elif cuda and nvidia:
        platform = "cuda"
    elif amd:
        platform = "rocm"
    elif nvidia:
        platform = "cuda"
    else:
        platform = "cpu"
    rocm = rocm_file or _field(reports, "rocm")
    if not cuda:
        cuda = _field(reports, "cuda")
    return Environment(
        platform=platform,
        gpus=tuple(gpus),
        rocm=rocm,
        hip=hip,
        cuda=cuda,
        driver=_field(reports, "driver"),
        torch=torch.get("version"),
        python=_platform.python_version(),
        os=f"{_platform.system()} {_platform.release()}".strip(),
        libraries=libraries,
        env=capture_env(dict(environ)),
        source="live",
        notes=tuple(notes),
        torch_archs=tuple(torch["arch_list"]) if torch.get("arch_list") else None,
        nccl=torch.get("nccl"),
        driver_cuda=_field(reports, "cuda"),
        requires=dict(requires or {}),
        torch_cxx11_abi=torch["cxx11_abi"] if isinstance(torch.get("cxx11_abi"), bool) else None,
    )


def _first(reports: list[DeviceReport], order: tuple[str, ...], vendor: str) -> list[GPU]:
    for source in order:
        for report in reports:
            gpus = [g for g in report.gpus if g.vendor == vendor]
            if report.source == source and gpus:
                return gpus
    return []


def _enrich(primary: list[GPU], reports: list[DeviceReport], vendor: str) -> list[GPU]:
    """Fill a missing arch or memory size from another source's device with the same index."""
    out = []
    for gpu in primary:
        arch, memory = gpu.arch, gpu.memory_bytes
        for report in reports:
            for other in report.gpus:
                if other.vendor == vendor and other.index == gpu.index:
                    arch = arch or other.arch
                    memory = memory or other.memory_bytes
        out.append(GPU(gpu.index, gpu.name, arch, memory, vendor))
    return out


def _field(reports: list[DeviceReport], name: str) -> str | None:
    return next((getattr(r, name) for r in reports if getattr(r, name)), None)


def _native_reports(native: dict[str, Any]) -> list[DeviceReport]:
    reports = []
    if "amdsmi" in native:
        a = native["amdsmi"]
        reports.append(
            DeviceReport(
                "amdsmi",
                tuple(GPU(d["index"], d["name"], d["arch"], d["memory_bytes"], "amd") for d in a.get("devices", [])),
                driver=a.get("driver"),
                rocm=a.get("rocm"),
            )
        )
    if "nvml" in native:
        n = native["nvml"]
        reports.append(
            DeviceReport(
                "nvml",
                tuple(
                    GPU(d["index"], d["name"], nvidia_arch(d["major"], d["minor"]), d["memory_bytes"], "nvidia")
                    for d in n.get("devices", [])
                ),
                driver=n.get("driver"),
                cuda=n.get("cuda"),
            )
        )
    if "torch" in native:
        t = native["torch"]
        hip = bool(t.get("hip"))
        reports.append(
            DeviceReport(
                "torch",
                tuple(
                    GPU(
                        d["index"],
                        d["name"],
                        d["gcn_arch"] if hip else nvidia_arch(d["major"], d["minor"]),
                        d["memory_bytes"],
                        "amd" if hip else "nvidia",
                    )
                    for d in t.get("devices", [])
                ),
            )
        )
    return reports


NATIVE_VAR = "ROCMCOMPAT_PROBE_NATIVE"  # "0": read the vendor tools only (torch, amdsmi, NVML not imported)


def _run_native(environ: dict[str, str]) -> dict[str, Any]:
    if environ.get(NATIVE_VAR, "").strip() == "0":
        return {"notes": [f"torch, amdsmi, nvidia-ml-py: not probed ({NATIVE_VAR}=0)"]}
    wanted = [
        name
        for name, module in (("torch", "torch"), ("amdsmi", "amdsmi"), ("nvml", "pynvml"))
        if importlib.util.find_spec(module) is not None
    ]
    if not wanted:
        return {"notes": ["torch, amdsmi, nvidia-ml-py: none installed"]}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat.probe.native_child", *wanted],
        capture_output=True,
        text=True,
        timeout=NATIVE_TIMEOUT_S,
        env=environ,
        check=False,  # the exit code is read below, with the child's own words
        stdin=subprocess.DEVNULL,
    )
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith(MARKER)), None)
    if line is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"native probe exited with {proc.returncode}: {' | '.join(tail)}")
    return json.loads(line[len(MARKER) :])


def _tool_commands(environ: dict[str, str]) -> Iterator[tuple[str, list[str], Callable[[str], DeviceReport]]]:
    """(name, argv, parser) for each vendor tool found on PATH or under ROCm's bin."""
    from pytest_rocmcompat.probe.amdsmi_text import parse_amdsmi_static_json
    from pytest_rocmcompat.probe.nvidia_smi import parse_nvidia_smi_csv, parse_nvidia_smi_header
    from pytest_rocmcompat.probe.rocminfo import parse_rocminfo

    path = os.pathsep.join([environ.get("PATH", ""), *(os.path.join(r, "bin") for r in _rocm_roots(environ))])
    table = (
        ("rocminfo", ["rocminfo"], parse_rocminfo),
        ("amd-smi", ["amd-smi", "static", "--json"], parse_amdsmi_static_json),
        (
            "nvidia-smi",
            [
                "nvidia-smi",
                "--query-gpu=index,name,memory.total,compute_cap,driver_version",
                "--format=csv,noheader,nounits",
            ],
            parse_nvidia_smi_csv,
        ),
        # the plain table's header: the highest CUDA the driver supports (when NVML is absent)
        ("nvidia-smi header", ["nvidia-smi"], parse_nvidia_smi_header),
    )
    for name, argv, parse in table:
        exe = shutil.which(argv[0], path=path)
        if exe:
            yield name, [exe, *argv[1:]], parse


def _tool_report(parse: Callable[[str], DeviceReport], argv: list[str], environ: dict[str, str]) -> DeviceReport:
    return parse(_run_tool(argv, environ))


def _run_tool(argv: list[str], environ: dict[str, str]) -> str:
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=TOOL_TIMEOUT_S,
        env=environ,
        check=False,  # a failing tool is a probe note, not an exception
        stdin=subprocess.DEVNULL,
        errors="replace",
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"exited with {proc.returncode}: {tail[0]}")
    return proc.stdout


def _rocm_roots(environ: Mapping[str, str]) -> list[str]:
    roots = [environ[k] for k in ("ROCM_PATH", "ROCM_HOME") if environ.get(k)]
    return list(dict.fromkeys([*roots, *ROCM_ROOTS]))


def _rocm_version(environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    from pytest_rocmcompat.probe.rocm_version import read_rocm_version

    roots = [r for r in _rocm_roots(environ) if os.path.isdir(r)]
    if not roots:
        return None, None
    version, note = read_rocm_version(roots)
    return version, (note or None)

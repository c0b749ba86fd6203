"""PyTorch's environment report (``python -m torch.utils.collect_env``, vLLM's ``vllm collect-env``) as a stack.

Every PyTorch, vLLM, verl or ROCm bug report carries one. It states the build (``PyTorch version:
2.5.1+rocm6.2``, ``ROCM used to build PyTorch: 6.2.41133-dd7f95766``, ``CUDA used to build PyTorch:
12.4``), the GPUs (``AMD Instinct MI300X (gfx942:sramecc+:xnack-)``, ``GPU 0: NVIDIA A100-SXM4-80GB``:
the arch from the name, stack/nvidia_names.py), the NVIDIA driver, Python, the OS and kernel, and the
"relevant libraries" (``[pip3] numpy==1.26.4``, ``[conda] pytorch 2.3.1 py3.10_cuda12.1_cudnn8.9.2_0
pytorch``: conda's build strings as conda_files.py reads them). vLLM's report adds its own version, the
system ROCm (``ROCM Version: 6.2.41133-...``) and GPU-stack environment variables.

The report lists only the libraries its filters keep (torch, numpy, triton, nvidia-*, ...), so the stack
is partial: a package it does not list may still be installed. Reports are pasted into issues: a line
the report prints but this reader does not use is ignored, a value it cannot read (``N/A``, ``Could not
collect``, a version that is not PEP 440) is skipped with a note naming the line, and a report whose
line breaks were lost (one long line, padded with spaces) is split again at the report's own labels.
Nothing here looks at the machine it runs on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.safe_io.redact import redact_variable
from pytest_rocmcompat.stack.arch import arch_vendor, is_valid_arch, normalize_arch
from pytest_rocmcompat.stack.conda_files import CONDA_LIST_HOW, CondaEntry, CondaStack, add_entry, finish
from pytest_rocmcompat.stack.environment import GPU, Environment, normalize_library
from pytest_rocmcompat.stack.nvidia_names import nvidia_arch_of_name
from pytest_rocmcompat.stack.os_names import recorded_os
from pytest_rocmcompat.stack.stack_model import StackFile, StackFileError
from pytest_rocmcompat.stack.versions import build_tag_version

# the labels whose values are read (and where a flattened report is split again)
LABELS = (
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "ROCM used to build PyTorch",
    "OS",
    "GCC version",
    "Clang version",
    "CMake version",
    "Libc version",
    "Python version",
    "Python platform",
    "Is CUDA available",
    "CUDA runtime version",
    "CUDA_MODULE_LOADING set to",
    "GPU models and configuration",
    "Nvidia driver version",
    "cuDNN version",
    "Is XPU available",
    "HIP runtime version",
    "MIOpen runtime version",
    "Is XNNPACK available",
    "Caching allocator config",
    "Versions of relevant libraries",
    "ROCM Version",
    "Neuron SDK Version",
    "vLLM Version",
    "vLLM Build Flags",
    "GPU Topology",
    "Environment Variables",
)
_LABELS_RE = "|".join(re.escape(label) for label in sorted(LABELS, key=len, reverse=True))
# where a label starts: a line's start, or after the padding a flattened report keeps (linear: no nested runs)
_LABEL_AT = re.compile(rf"(?m)(?:^[ \t]*|(?<=[ \t]{{3}}))({_LABELS_RE})[ \t]*:")
_NOT_KNOWN = re.compile(r"^(?:N/?A|None|Could not collect|No CUDA|Not Set|)$", re.IGNORECASE)
# matched on stripped lines, the value stripped after: no pattern backtracks over a run of blanks
_FIELD = re.compile(r"^(?P<label>[A-Za-z][A-Za-z0-9 _().+/-]{1,60}?)[ \t]*:(?P<value>.*)$")
_PIP = re.compile(r"^\[pip3?\](?P<item>.*)$")
_CONDA = re.compile(r"^\[conda\](?P<item>.*)$")
_GPU_LINE = re.compile(r"^GPU[ \t]+\d+[ \t]*:(?P<name>.*)$")
_UUID = re.compile(r"\(UUID:[^)]*\)$")
MAX_GPUS = 64  # more GPUs than one host has: the report is not one host's
_LINE_CHARS = 4096  # a report's line is short; a longer one (hostile, or flattened past repair) is read that far
_GFX = re.compile(r"\((gfx[0-9a-f]{3,4})(?::[^)]*)?\)")
_ENV_LINE = re.compile(r"^([A-Z][A-Z0-9_]{1,80})=(.{0,500})")
_HIP = re.compile(r"^(\d{1,3}\.\d{1,3}\.\d{1,9})(?:-[0-9a-f]{6,40})?$")
_PYTHON = re.compile(r"^(\d\.\d{1,2}(?:\.\d{1,3})?)")
_DRIVER = re.compile(r"^\d{2,4}\.\d{1,3}(?:\.\d{1,3})?$")


def looks_like_collect_env(text: str) -> bool:
    """A ``collect_env`` report, also a piece of one: two of its labels (``OS`` aside), or its ``[pip3]``/``[conda]``
    rows, which no other format has.
    """
    head = text[:200_000]
    if re.search(r"(?m)(?:^|\s)\[(?:pip3?|conda)\]\s+\S", head):
        return True
    return len({m.group(1) for m in _LABEL_AT.finditer(head)} - {"OS"}) >= 2


@dataclass
class _Report:
    path: str
    fields: dict[str, tuple[int, str]] = field(default_factory=dict)  # label -> (line, value), first wins
    gpus: list[tuple[int, str]] = field(default_factory=list)
    pip: list[tuple[int, str]] = field(default_factory=list)
    conda: list[tuple[int, str]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def parse_collect_env(path: str, text: str) -> StackFile:
    """The stack a ``collect_env`` report states, as a replayed :class:`Environment` (partial: see the module)."""
    report = _read(path, _unflatten(text))
    skipped = report.skipped
    pins = _pip_pins(report)
    conda = _conda_packages(report)
    packages = {**conda, **pins}
    # torch.__version__ (with the wheel's build label, 2.11.0+cu130) over pip's row (2.11.0), which names the same torch
    torch = _version_of(report, "PyTorch version", skipped) or packages.get("torch")
    packages.pop("torch", None)
    if torch is not None:
        packages["torch"] = torch
    vllm = _version_of(report, "vLLM Version", skipped, r"\(git sha: \w+\)$")
    if vllm is not None and "vllm" not in packages:
        packages["vllm"] = vllm
    hip = _hip(report, "ROCM used to build PyTorch", skipped)
    cuda = _version_of(report, "CUDA used to build PyTorch", skipped)
    system_rocm = _hip(report, "ROCM Version", skipped)
    gpus = _gpus(report)
    local = Version(torch).local if torch else None  # a report cut before its build lines: torch's own label
    platform = "rocm" if hip or system_rocm or build_tag_version(local, "rocm") else "cpu"
    if platform == "cpu" and (cuda or build_tag_version(local, "cuda")):
        platform = "cuda"
    cpu_build = torch is not None and not local and bool(gpus) and _cpu_build(report)
    if (
        cpu_build
    ):  # torch.version.cuda is None and no HIP: the build has no GPU code, whatever the GPUs (torch-cpu-build)
        torch = f"{torch}+cpu"
    if (torch is None or cpu_build) and gpus:  # the GPUs still say which vendor's machine this is
        vendors = {g.vendor for g in gpus}
        platform = "rocm" if vendors == {"amd"} else "cuda" if vendors == {"nvidia"} else platform
    python = _python(report)
    env = Environment(
        platform=platform,
        gpus=tuple(gpus),
        rocm=".".join(system_rocm.split(".")[:2]) if system_rocm else None,
        hip=hip,
        cuda=cuda,
        driver=_driver(report, skipped),
        torch=torch,
        python=python or "",
        os=_os(report),
        libraries={normalize_library(k): v for k, v in sorted(packages.items()) if k != "torch"},
        env=report.env,
        source="replay",
        origin=path,
    )
    return StackFile(path, "collect-env", packages, python, (), tuple(skipped), environment=env)


# ---------------------------------------------------------------------------- reading the lines
def _unflatten(text: str) -> str:
    """A report pasted without its line breaks (each line padded with spaces to the terminal's width) split again
    before each label that follows padding, each ``[pip3]``/``[conda]`` row and each ``GPU N:`` line (each run of
    blanks is tried once, from its start: linear in the text).
    """
    text = re.sub(rf"(?<![ \t])[ \t]{{3,}}(?=(?:{_LABELS_RE})[ \t]*:)", "\n", text)
    text = re.sub(r"(?<![ \t])[ \t]+(?=\[(?:pip3?|conda)\][ \t])", "\n", text)
    return re.sub(r"(?<![ \t])[ \t]{3,}(?=GPU \d+:)", "\n", text)


def _read(path: str, text: str) -> _Report:
    report = _Report(path)
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw[:_LINE_CHARS].strip()
        if not line:
            if section == "gpus":
                section = ""
            continue
        pip = _PIP.match(line)
        row = pip or _CONDA.match(line)
        if row:
            (report.pip if pip else report.conda).append((number, row.group("item").strip()))
            continue
        gpu = _GPU_LINE.match(line)
        if gpu and section == "gpus" and len(report.gpus) >= MAX_GPUS:
            report.skipped.append(f"{path}:{number}: GPU lines past the first {MAX_GPUS}")
            section = ""
            continue
        if gpu and section == "gpus":
            report.gpus.append((number, _UUID.sub("", gpu.group("name").strip()).strip()))
            continue
        if section == "env" and (assignment := _ENV_LINE.match(line)):
            report.env[assignment.group(1)] = redact_variable(assignment.group(1), assignment.group(2).strip())
            continue
        match = _FIELD.match(line)
        label = match.group("label").strip() if match else ""
        if match is None or label not in LABELS:
            continue
        value = match.group("value").strip()
        if label in report.fields:
            section = ""  # a label a report prints once, again: the first one stands, its section too
            continue
        report.fields[label] = (number, value)
        section = {"GPU models and configuration": "gpus", "Environment Variables": "env"}.get(label, "")
        if section == "gpus" and value and not _NOT_KNOWN.match(value):
            inline = _GPU_LINE.match(value)
            report.gpus.append((number, _UUID.sub("", inline.group("name").strip() if inline else value).strip()))
    return report


# ---------------------------------------------------------------------------- the facts
def _value(report: _Report, label: str) -> tuple[int, str] | None:
    found = report.fields.get(label)
    if found is None or _NOT_KNOWN.match(found[1].strip()):
        return None
    return found


def _version_of(report: _Report, label: str, skipped: list[str], suffix: str = "") -> str | None:
    found = _value(report, label)
    if found is None:
        return None
    number, value = found
    value = re.sub(suffix, "", value).rstrip() if suffix else value
    try:
        Version(value)
    except InvalidVersion:
        skipped.append(f"{report.path}:{number}: {label} {value[:80]!r} (not a PEP 440 version)")
        return None
    return value


def _matching(report: _Report, label: str, pattern: re.Pattern[str], what: str, skipped: list[str]) -> str | None:
    """The value of ``label`` where it has ``pattern``'s shape; else ``None``, and a note naming the line."""
    found = _value(report, label)
    if found is None:
        return None
    number, value = found
    if pattern.match(value):
        return value
    skipped.append(f"{report.path}:{number}: {label} {value[:80]!r} (not {what})")
    return None


def _hip(report: _Report, label: str, skipped: list[str]) -> str | None:
    """HIP's version as torch records it (``6.2.41133-dd7f95766``), without the hash where the report has none."""
    return _matching(report, label, _HIP, "a HIP version", skipped)


def _cpu_build(report: _Report) -> bool:
    """The report says torch has neither CUDA nor HIP: ``CUDA used to build PyTorch: None`` (``torch.version.cuda``
    printed as it is; ``N/A``/``Could not collect`` mean it was not read) and no ROCm build.
    """
    cuda = report.fields.get("CUDA used to build PyTorch")
    return cuda is not None and cuda[1].strip() == "None" and _value(report, "ROCM used to build PyTorch") is None


def _driver(report: _Report, skipped: list[str]) -> str | None:
    return _matching(report, "Nvidia driver version", _DRIVER, "a driver version", skipped)


def _python(report: _Report) -> str | None:
    found = _value(report, "Python version")
    match = _PYTHON.match(found[1]) if found else None
    return match.group(1) if match else None


def _os(report: _Report) -> str:
    """The distribution (``Linux ubuntu-22.04.4``: its glibc), else the kernel; the kernel under WSL (its own facts)."""
    platform = _value(report, "Python platform")
    kernel = recorded_os(platform[1]) if platform else None
    if kernel and re.search(r"microsoft|wsl", kernel, re.IGNORECASE):
        return kernel
    named = _value(report, "OS")
    if named:  # "Microsoft Windows 11 Pro", "macOS 13.7.4 (arm64)", "Mac OSX 11.0 (x86_64)" (torch <= 1.8)
        system = re.sub(r"\((?:x86_64|arm64|aarch64|AMD64|i386|ppc64le|s390x)\)$", "", named[1]).rstrip()
        system = re.sub(r"^Mac OSX\b", "macOS", re.sub(r"^Microsoft\s+", "", system))
    distribution = recorded_os(system) if named else None
    return distribution or kernel or ""


def _gpus(report: _Report) -> list[GPU]:
    gpus: list[GPU] = []
    for _, name in report.gpus:
        gfx = _GFX.search(name)
        arch = normalize_arch(gfx.group(1)) if gfx else nvidia_arch_of_name(name)
        if arch and not is_valid_arch(arch):
            arch = ""
        vendor = arch_vendor(arch) if arch else "amd" if re.search(r"\bAMD\b|Radeon|Instinct", name) else "unknown"
        if vendor == "unknown" and re.search(r"NVIDIA|Tesla|GeForce|Quadro", name):
            vendor = "nvidia"
        gpus.append(GPU(len(gpus), re.sub(r"\(gfx[^)]*\)", "", name).strip()[:120], arch, None, vendor))
    return gpus


def _pip_pins(report: _Report) -> dict[str, str]:
    pins: dict[str, str] = {}
    for number, item in report.pip:
        name, sep, version = item.partition("==")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", name):
            report.skipped.append(f"{report.path}:{number}: [pip3] {item[:80]!r} (no name==version)")
            continue
        try:
            Version(version.strip())
        except InvalidVersion:
            report.skipped.append(f"{report.path}:{number}: [pip3] {item[:80]!r} (not a PEP 440 version)")
            continue
        pins[normalize_library(name)] = version.strip()
    return pins


def _conda_packages(report: _Report) -> dict[str, str]:
    """The ``[conda]`` rows, as ``conda list`` rows (conda_files.py), conda's torch labelled by its build string."""
    stack = CondaStack(CONDA_LIST_HOW)
    for number, item in report.conda:
        columns = item.split()
        where = f"{report.path}:{number}"
        if _NOT_KNOWN.match(item.strip()):
            continue
        if len(columns) not in (3, 4):
            report.skipped.append(f"{where}: [conda] {item[:80]!r} (not NAME VERSION BUILD CHANNEL)")
            continue
        name, version, build, *channel = columns
        try:
            add_entry(stack, CondaEntry(item, name, version, build, channel[0] if channel else "", where))
        except StackFileError as exc:
            report.skipped.append(str(exc).split(";", 1)[0])
    report.skipped.extend(stack.skipped)
    return finish(stack)

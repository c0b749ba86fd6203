"""Parse ``nvidia-smi`` output: the ``--query-gpu`` CSV and the plain table's header.

Both parsers are forgiving: garbage, truncated output and unknown columns never
raise; rows that do not fit are skipped.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.probe.device_report import DeviceReport
from pytest_rocmcompat.stack.arch import nvidia_arch
from pytest_rocmcompat.stack.environment import GPU

# The query probe/live.py runs, in this order, with --format=csv,noheader,nounits.
DEFAULT_FIELDS = ("index", "name", "memory.total", "compute_cap", "driver_version")
_KNOWN_FIELDS = {"index", "name", "memory.total", "compute_cap", "driver_version", "pci.bus_id", "timestamp"}
_MIB = re.compile(r"^(\d+(?:\.\d+)?)(?:\s*MiB)?$", re.IGNORECASE)
_CAP = re.compile(r"^(\d+)\.(\d+)$")
_NA = {"", "N/A", "[N/A]", "[NOT SUPPORTED]", "[UNKNOWN ERROR]"}
_DRIVER = re.compile(r"Driver Version:\s*(\d+(?:\.\d+)+)")
_CUDA = re.compile(r"CUDA Version:\s*(\d+(?:\.\d+)+)")


def parse_nvidia_smi_csv(text: str) -> DeviceReport:
    """Devices from ``nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]``.

    With a header row the columns are taken from it (``memory.total [MiB]`` and
    friends); without one they are :data:`DEFAULT_FIELDS`. Memory is in MiB,
    ``arch`` comes from ``compute_cap`` (``"9.0"`` -> ``sm_90``).
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return DeviceReport(source="nvidia-smi")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    columns = list(DEFAULT_FIELDS)
    if lines and _is_header(lines[0]):
        columns = [_column(cell) for cell in lines[0].split(",")]
        lines = lines[1:]
    gpus: list[GPU] = []
    driver = None
    for line in lines:
        row = _row(columns, line)
        if row is None:
            continue
        index, name, memory, arch, row_driver = row
        gpus.append(
            GPU(index=len(gpus) if index is None else index, name=name, arch=arch, memory_bytes=memory, vendor="nvidia")
        )
        driver = driver or row_driver
    return DeviceReport(source="nvidia-smi", gpus=tuple(gpus), driver=driver)


def parse_nvidia_smi_header(text: str) -> DeviceReport:
    """Driver and CUDA versions from the plain ``nvidia-smi`` table header.

    ``| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |``
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return DeviceReport(source="nvidia-smi")
    driver = _DRIVER.search(text)
    cuda = _CUDA.search(text)
    return DeviceReport(
        source="nvidia-smi",
        driver=driver.group(1) if driver else None,
        cuda=cuda.group(1) if cuda else None,
    )


def _column(cell: str) -> str:
    """``" memory.total [MiB]"`` -> ``"memory.total"``."""
    return cell.split("[", 1)[0].strip().lower()


def _is_header(line: str) -> bool:
    return bool(_KNOWN_FIELDS & {_column(cell) for cell in line.split(",")})


def _row(columns: list[str], line: str) -> tuple[int | None, str, int | None, str, str | None] | None:
    """(index, name, memory_bytes, arch, driver) of one CSV row, or ``None`` if it does not fit."""
    cells = [cell.strip() for cell in line.split(",")]
    if len(cells) != len(columns):
        return None
    values = {col: (None if cell.upper() in _NA else cell) for col, cell in zip(columns, cells, strict=False)}
    raw_index = values.get("index")
    index: int | None = None
    if "index" in values:
        if raw_index is None or not raw_index.isdigit():
            return None
        index = int(raw_index)
    name = values.get("name") or ""
    if "name" in values and not name:
        return None
    memory: int | None = None
    memory_total = values.get("memory.total")
    if memory_total is not None:
        mib = _MIB.match(memory_total)
        if not mib:
            return None
        memory = int(float(mib.group(1)) * (1 << 20)) or None
    arch = ""
    compute_cap = values.get("compute_cap")
    if compute_cap is not None:
        cap = _CAP.match(compute_cap)
        if not cap:
            return None
        arch = nvidia_arch(int(cap.group(1)), int(cap.group(2)))
    return index, name, memory, arch, values.get("driver_version")

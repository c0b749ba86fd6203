"""Parse the ``amd-smi`` command line tool's output (``static --json``, ``version``).

``amd-smi static --json`` changed shape across releases: older ones print a
list of per-GPU objects, newer ones ``{"gpu_data": [...]}``; sizes come as
``{"value": 65520, "unit": "MB"}`` or as a string ``"65520 MB"``. Both are read.
Text that is not such output raises :class:`ValueError` with a one-line reason.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_rocmcompat.probe.device_report import DeviceReport
from pytest_rocmcompat.stack.environment import GPU

# amd-smi's "MB" is MiB: an MI210's 64 GiB of HBM reads 65520 MB (64 GiB less a 16 MiB reserve).
_UNITS = {"B": 1, "KB": 1 << 10, "KIB": 1 << 10, "MB": 1 << 20, "MIB": 1 << 20, "GB": 1 << 30, "GIB": 1 << 30}
_SIZE_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]i?B|B)?\s*$", re.IGNORECASE)
_UNKNOWN = {"", "N/A", "NA", "NONE", "UNKNOWN"}
# With the distribution's in-kernel amdgpu, amd-smi reports the kernel banner as the
# driver version, spaces removed: "Linuxversion6.14.0-24-generic(buildd@...)...".
_KERNEL_BANNER = re.compile(r"^Linux\s*version\s*(\d+\.\d+[\w.+~-]*)", re.IGNORECASE)


def parse_amdsmi_static_json(text: str) -> DeviceReport:
    """Devices and driver version from ``amd-smi static --json``.

    ``driver`` is the amdgpu version; for an in-kernel driver, where amd-smi
    prints the kernel banner, it is the kernel release. Warning lines printed
    before the JSON (missing group membership, Python warnings) are skipped.
    Raises ``ValueError`` when the text holds no JSON, or JSON of another shape.
    """
    records = _records(_load_json(text, "amd-smi static --json"))
    gpus: list[GPU] = []
    driver = None
    for position, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(f"amd-smi static --json: GPU record {position} is not an object")
        gpus.append(_gpu(position, record))
        if driver is None:
            info = record.get("driver")
            if isinstance(info, dict):
                driver = _driver(info.get("version", info.get("driver_version")))
    return DeviceReport(source="amd-smi", gpus=tuple(gpus), driver=driver)


def parse_amdsmi_version(text: str) -> DeviceReport:
    """ROCm and amdgpu versions from ``amd-smi version``.

    The line reads ``AMDSMI Tool: 24.7.1+8dc45db | AMDSMI Library version: 25.1.0.0 |
    ROCm version: 6.3.3`` and, in newer releases, ``| amdgpu version: 6.12.12 | ...``.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    fields: dict[str, str] = {}
    for line in str(text).splitlines():
        if "AMDSMI Tool" not in line and "ROCm version" not in line:
            continue
        for part in line.split("|"):
            key, sep, value = part.partition(":")
            if sep:
                fields.setdefault(key.strip().lower(), value.strip())
    if "rocm version" not in fields and "amdsmi tool" not in fields:
        raise ValueError("amd-smi version: no 'AMDSMI Tool: ... | ROCm version: ...' line found")
    return DeviceReport(
        source="amd-smi",
        rocm=_known(fields.get("rocm version")),
        driver=_known(fields.get("amdgpu version")),
    )


def _load_json(text: Any, what: str) -> Any:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{what}: empty output")
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip()[:1] in ("{", "[")), None)
    if start is None:
        first = text.strip().splitlines()[0][:80]
        raise ValueError(f"{what}: not JSON (first line: {first!r})")
    try:
        return json.loads("\n".join(lines[start:]))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what}: not valid JSON ({exc.msg} at line {exc.lineno + start})") from None


def _records(data: Any) -> list[Any]:
    if isinstance(data, dict) and isinstance(data.get("gpu_data"), list):
        return data["gpu_data"]
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("asic"), dict):
        return [data]
    if isinstance(data, dict):
        kind = "an object with keys " + ", ".join(map(repr, list(data)[:5]))
    else:
        kind = type(data).__name__
    raise ValueError(f'amd-smi static --json: expected a list of GPU records or {{"gpu_data": [...]}}, got {kind}')


def _gpu(position: int, record: dict[str, Any]) -> GPU:
    asic, board, vram = (_object(record, key) for key in ("asic", "board", "vram"))
    index = record.get("gpu")
    if not isinstance(index, int) or isinstance(index, bool):
        index = position
    name = _known(asic.get("market_name")) or _known(board.get("product_name")) or ""
    arch = _known(asic.get("target_graphics_version")) or ""
    if "size" in vram:
        memory = _bytes(vram["size"], "MB")
    else:
        memory = _bytes(vram.get("vram_size", vram.get("vram_size_mb")), "MB")
    return GPU(index=index, name=name, arch=arch, memory_bytes=memory, vendor="amd")


def _object(record: dict[str, Any], key: str) -> dict[str, Any]:
    """``record[key]`` when it is a JSON object, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def _bytes(size: Any, default_unit: str) -> int | None:
    """``{"value": 65520, "unit": "MB"}`` / ``"65520 MB"`` / ``65520`` -> bytes."""
    unit = default_unit
    if isinstance(size, dict):
        unit = str(size.get("unit") or default_unit)
        size = size.get("value")
    if isinstance(size, bool) or size is None:
        return None
    if isinstance(size, (int, float)):
        value = float(size)
    else:
        match = _SIZE_TEXT.match(str(size))
        if not match:
            return None
        value = float(match.group(1))
        unit = match.group(2) or unit
    factor = _UNITS.get(unit.strip().upper())
    if factor is None or value <= 0:
        return None
    return int(value * factor)


def _driver(value: Any) -> str | None:
    text = _known(value)
    banner = _KERNEL_BANNER.match(text) if text else None
    return banner.group(1) if banner else text


def _known(value: Any) -> str | None:
    """A field's text, or ``None`` where amd-smi says it could not read it."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    if text.upper() in _UNKNOWN or text.startswith("AMDSMI_STATUS"):
        return None
    return text

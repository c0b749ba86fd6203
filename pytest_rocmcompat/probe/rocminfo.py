"""Parse ``rocminfo`` text output into a :class:`DeviceReport`.

rocminfo prints one block per HSA agent (``Agent N`` between ``*******`` rules);
only agents with ``Device Type: GPU`` are devices here. Parsing is line-based and
forgiving: ANSI colours, CRLF, rocminfo's fixed-width padding, a cut-off last
agent and arbitrary garbage never raise, they only yield fewer facts.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.probe.device_report import DeviceReport
from pytest_rocmcompat.stack.environment import GPU

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_AGENT = re.compile(r"^\W*Agent\s+(\d+)\W*$")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$", re.IGNORECASE)
_ISA_GFX = re.compile(r"amdgcn-amd-amdhsa--(gfx[0-9a-f]{3,4})(?![0-9a-z-])", re.IGNORECASE)
# "33538048(0x1ffc000) KB": the unit is required, so a line cut short never counts.
_SIZE_KB = re.compile(r"^(\d+)(?:\(0x[0-9a-f]+\))?\s*KB$", re.IGNORECASE)
_POOL = re.compile(r"pool\s+\d+")
_ROCK = re.compile(r"ROCk module version\s+(\d+(?:\.\d+)+)\s+is loaded")


def parse_rocminfo(text: str) -> DeviceReport:
    """GPU agents of a ``rocminfo`` run, in order; ``driver`` is the ROCk (amdgpu) version.

    ``name`` is the Marketing Name (else the agent Name), ``arch`` the gfx target
    (from ``Name``, else the first ``amdgcn-amd-amdhsa--gfxNNN`` ISA), and
    ``memory_bytes`` the size of the agent's GLOBAL coarse-grained pool.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return DeviceReport(source="rocminfo")
    text = _ANSI.sub("", text)
    driver = None
    agents: list[dict] = []
    agent: dict | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if driver is None and agent is None:
            rock = _ROCK.search(line)
            if rock:
                driver = rock.group(1)
                continue
        header = _AGENT.match(line)
        if header:
            agent = {"section": "agent", "pools": []}
            agents.append(agent)
            continue
        if agent is not None:
            _take_line(agent, line)
    gpus: list[GPU] = []
    for agent in agents:
        if agent.get("device type", "").upper() != "GPU":
            continue
        gpus.append(_gpu(len(gpus), agent))
    return DeviceReport(source="rocminfo", gpus=tuple(gpus), driver=driver)


def _take_line(agent: dict, line: str) -> None:
    """Record one stripped line of an agent block in ``agent``."""
    key, sep, value = line.partition(":")
    key, value = key.strip().lower(), value.strip()
    if key == "pool info" and sep:
        agent["section"] = "pool"
        return
    if key == "isa info" and sep:
        agent["section"] = "isa"
        return
    section = agent["section"]
    if section == "agent":
        if sep and key in ("name", "marketing name", "device type"):
            agent.setdefault(key, value)
    elif section == "pool":
        if _POOL.fullmatch(key):
            agent["pools"].append({})
        elif sep and key in ("segment", "size") and agent["pools"]:
            agent["pools"][-1].setdefault(key, value)
    elif section == "isa":
        isa = _ISA_GFX.search(line)
        if isa and "isa" not in agent:
            agent["isa"] = isa.group(1)


def _gpu(index: int, agent: dict) -> GPU:
    name_field = agent.get("name", "")
    arch = name_field if _GFX.match(name_field) else agent.get("isa", "")
    name = agent.get("marketing name") or name_field or arch
    return GPU(index=index, name=name, arch=arch, memory_bytes=_global_pool_bytes(agent), vendor="amd")


def _global_pool_bytes(agent: dict) -> int | None:
    for pool in agent["pools"]:
        segment = pool.get("segment", "").upper()
        if segment.startswith("GLOBAL") and "COARSE GRAINED" in segment:
            size = _SIZE_KB.match(pool.get("size", ""))
            if size and int(size.group(1)) > 0:
                return int(size.group(1)) * 1024
            return None
    return None

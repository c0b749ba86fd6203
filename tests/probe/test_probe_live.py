"""The live probe: recorded real tool outputs replayed through the real subprocess and parsers."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.probe.amdsmi_text import parse_amdsmi_static_json
from pytest_rocmcompat.probe.live import assemble, probe
from pytest_rocmcompat.probe.nvidia_smi import parse_nvidia_smi_csv
from pytest_rocmcompat.probe.rocminfo import parse_rocminfo
from tests.conftest import DATA

ROCM_TORCH = {"version": "2.5.1+rocm6.2", "hip": "6.2.41133-dd7f95766", "cuda": None, "devices": []}
CUDA_TORCH = {
    "version": "2.11.0+cu130",
    "hip": None,
    "cuda": "13.0",
    "devices": [
        {
            "index": 0,
            "name": "NVIDIA H100 80GB HBM3",
            "memory_bytes": 85045149696,
            "major": 9,
            "minor": 0,
            "gcn_arch": "",
        }
    ],
}


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_assemble_rocm_from_rocminfo() -> None:
    env = assemble(ROCM_TORCH, [parse_rocminfo(read("rocminfo_mi300x_gfx942.txt"))], "6.2.3", {}, {}, [])
    assert env.platform == "rocm" and env.archs == ("gfx942",) and len(env.gpus) == 8
    assert env.rocm == "6.2.3" and env.hip.startswith("6.2") and str(env.torch_rocm) == "6.2"


def test_assemble_prefers_amdsmi_and_fills_gaps() -> None:
    amd = parse_amdsmi_static_json(read("amdsmi_static_mi210_gfx90a.json"))
    info = parse_rocminfo(read("rocminfo_mi210_mi60_mi100.txt"))
    env = assemble(None, [info, amd], None, {}, {}, [])
    assert env.gpus[0].arch == "gfx90a" and env.gpus[0].name == amd.gpus[0].name
    assert env.platform == "rocm" and env.driver == (info.driver or amd.driver)


def test_assemble_cuda_from_nvidia_smi_and_torch() -> None:
    smi = parse_nvidia_smi_csv(read("nvidia_smi_query_h100.csv"))
    env = assemble(CUDA_TORCH, [smi], None, {"torch": "2.11.0+cu130"}, {}, [])
    assert env.platform == "cuda" and env.archs == ("sm_90",) and env.cuda == "13.0"
    assert env.driver == smi.driver and env.gpus[0].memory_bytes == smi.gpus[0].memory_bytes


def test_assemble_nothing_is_cpu() -> None:
    env = assemble(None, [], None, {}, {"HF_TOKEN": "hf_x", "NCCL_DEBUG": "INFO"}, ["torch: not importable"])
    assert env.platform == "cpu" and env.gpus == () and env.env == {"NCCL_DEBUG": "INFO"}
    assert env.notes == ("torch: not importable",)


def _fake_tool(bindir: Path, name: str, data: Path | None, code: int = 0) -> None:
    """An executable that prints a recorded output (replay of a tool we have no hardware for)."""
    script = bindir / name
    body = f"/bin/cat '{data}'\n" if data else "echo 'rocminfo: HSA_STATUS_ERROR_OUT_OF_RESOURCES' >&2\n"
    script.write_text(f"#!/bin/sh\n{body}exit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def replay_machine(tmp_path: Path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    rocm = tmp_path / "rocm" / ".info"
    rocm.mkdir(parents=True)
    (rocm / "version").write_text("6.2.3-112\n")
    environ = {
        # only the replayed tools: a GPU host's own nvidia-smi or rocminfo must not join the replay
        "PATH": str(bindir),
        "ROCM_PATH": str(tmp_path / "rocm"),
        "HIP_VISIBLE_DEVICES": "0,1",
        "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz",
        # The replayed machine has only the tools above: the host's own torch or NVML (an NVIDIA
        # GPU host runs this suite too) would add its real GPUs to the replay.
        "ROCMCOMPAT_PROBE_NATIVE": "0",
    }
    return bindir, environ


def test_live_probe_replays_recorded_rocminfo(replay_machine) -> None:
    bindir, environ = replay_machine
    _fake_tool(bindir, "rocminfo", DATA / "rocminfo_mi300x_gfx942.txt")
    env = probe(environ=environ)
    assert env.source == "live" and env.platform == "rocm"
    assert env.archs == ("gfx942",) and len(env.gpus) == 8 and env.rocm == "6.2.3"
    assert env.env["HIP_VISIBLE_DEVICES"] == "0,1" and "HF_TOKEN" not in env.env
    assert env.python == ".".join(map(str, sys.version_info[:3]))


def test_live_probe_amd_smi_first(replay_machine) -> None:
    bindir, environ = replay_machine
    _fake_tool(bindir, "rocminfo", DATA / "rocminfo_rx7900xtx_gfx1100.txt")
    _fake_tool(bindir, "amd-smi", DATA / "amdsmi_static_mi210_gfx90a.json")
    env = probe(environ=environ)
    assert env.archs[0] == "gfx90a"


def test_live_probe_failing_tool_is_a_note(replay_machine) -> None:
    bindir, environ = replay_machine
    _fake_tool(bindir, "rocminfo", None, code=1)
    _fake_tool(bindir, "nvidia-smi", DATA / "nvidia_smi_query_h100.csv")
    env = probe(environ=environ)
    assert any(n.startswith("rocminfo: exited with 1") for n in env.notes), env.notes
    assert env.archs == ("sm_90",) and env.gpus[0].vendor == "nvidia"


def test_live_probe_garbage_tool_output_never_raises(replay_machine, tmp_path: Path) -> None:
    bindir, environ = replay_machine
    junk = tmp_path / "junk.txt"
    junk.write_bytes(os.urandom(4096))
    for tool in ("rocminfo", "amd-smi", "nvidia-smi"):
        _fake_tool(bindir, tool, junk)
    env = probe(environ=environ)
    assert env.gpus == () and any(n.startswith("amd-smi:") for n in env.notes)


def test_recorded_h100_environment_replays(tmp_path: Path) -> None:
    """A probe recorded on a real H100 (device machine) loads as a replay and locates correctly."""
    from pytest_rocmcompat.stack.environment import Environment

    env = Environment.load(str(DATA / "env_h100_live.json"))
    assert env.source == "replay" and env.platform == "cuda" and env.archs == ("sm_90",)
    assert env.torch == "2.11.0+cu130" and str(env.torch_cuda) == "13.0" and env.driver == "580.159.04"
    assert env.gpus[0].memory_bytes == 85520809984  # nvidia-smi's 81559 MiB

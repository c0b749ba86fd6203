"""The bundled matrices: they lint, include the known-bad database, set floors only for known
metrics (each with its datasheet fraction), plan the shipped cells and exclude the rest, and
place real recorded machines where they belong.

The shipped pairs below are the single statement of what PyTorch published, with sources; the
matrices' ``exclude`` lists must reproduce them exactly.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.metrics import METRICS
from pytest_rocmcompat.matrix.expand import count_cells, expand, is_excluded
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.matrix.locate import locate
from pytest_rocmcompat.probe.amdsmi_text import parse_amdsmi_static_json
from pytest_rocmcompat.probe.rocminfo import parse_rocminfo
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA, MI50_ENV, MI300_ENV, REPO

MATRICES = REPO / "matrices"
BUNDLED = sorted(p.name for p in MATRICES.glob("*.yaml") if p.name != "known_bad.yaml")
GPU_MATRICES = [n for n in BUNDLED if n != "cpu.yaml"]
GIB = 2**30

# torch series -> ROCm releases PyTorch built wheels for (download.pytorch.org/whl/rocmX.Y):
# https://pytorch.org/get-started/previous-versions/ ,
# https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix ,
# https://huggingface.co/docs/kernels/builder/build-variants
ROCM_WHEELS: dict[str, tuple[str, ...]] = {
    "2.3": ("5.7", "6.0"),
    "2.4": ("6.0", "6.1"),
    "2.5": ("6.1", "6.2"),
    "2.6": ("6.1", "6.2"),
    "2.7": ("6.2", "6.3"),
    "2.8": ("6.3", "6.4"),
    "2.9": ("6.3", "6.4"),
    "2.10": ("7.0", "7.1"),
    "2.11": ("7.1", "7.2"),
}
# torch series -> CUDA builds on download.pytorch.org/whl/cuXYZ (same sources)
CUDA_WHEELS: dict[str, tuple[str, ...]] = {
    "2.6": ("11.8", "12.4", "12.6"),
    "2.7": ("11.8", "12.6", "12.8"),
    "2.8": ("12.6", "12.8", "12.9"),
    "2.9": ("12.6", "12.8", "13.0"),
    "2.10": ("12.6", "12.8", "13.0"),
    "2.11": ("12.6", "12.8", "13.0"),
}
# First torch series with wheels for a Python (ROCm cp313 from 2.6: pytorch#142294; cp314 from 2.9).
PYTHON_FROM: dict[str, str] = {"3.13": "2.6", "3.14": "2.9"}


def _series_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


@pytest.fixture(scope="module")
def matrices():
    return {name: load_matrix(str(MATRICES / name)) for name in BUNDLED}


def test_the_issue_matrices_are_bundled() -> None:
    assert {"mi300.yaml", "mi250.yaml", "mi50.yaml", "rdna3.yaml", "h100.yaml", "h200.yaml", "cpu.yaml"} <= set(BUNDLED)


def test_rocmcompat_lint_passes_on_every_bundled_file() -> None:
    files = [str(MATRICES / n) for n in [*BUNDLED, "known_bad.yaml"]]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "lint", *files],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": ok:") == len(files), proc.stdout


@pytest.mark.parametrize("name", BUNDLED)
def test_matrix_includes_the_known_bad_database(matrices, name: str) -> None:
    m = matrices[name]
    assert any(Path(f).name == "known_bad.yaml" for f in m.files), m.files
    shared = load_matrix(str(MATRICES / "known_bad.yaml")).rules
    assert {r.id for r in shared} <= {r.id for r in m.rules}


@pytest.mark.parametrize("name", BUNDLED)
def test_floors_name_known_metrics(matrices, name: str) -> None:
    unknown = set(matrices[name].floors) - set(METRICS)
    assert not unknown, f"{name}: floors for unknown metrics {sorted(unknown)}"
    assert all(v > 0 for v in matrices[name].floors.values())


@pytest.mark.parametrize("name", GPU_MATRICES)
def test_gpu_matrix_sets_floors_with_a_stated_fraction(matrices, name: str) -> None:
    floors = matrices[name].floors
    assert {"gemm_bf16_tflops", "copy_d2d_gbps", "copy_h2d_gbps", "copy_d2h_gbps"} <= set(floors)
    text = (MATRICES / name).read_text(encoding="utf-8")
    for metric in floors:
        line = next(row for row in text.splitlines() if re.match(rf"\s+{metric}:", row))
        comment = line.partition("#")[2]
        assert re.search(r"\d+%", comment) and " of " in comment, (
            f"{name}: floor {metric} has no 'NN% of <peak>' comment: {line.strip()}"
        )


@pytest.mark.parametrize("name", GPU_MATRICES)
def test_gpu_matrix_names_its_sources_first(name: str) -> None:
    head = (MATRICES / name).read_text(encoding="utf-8").split("\nname:", 1)[0]
    assert head.startswith("#") and "Sources:" in head and "https://" in head


@pytest.mark.parametrize("name", BUNDLED)
def test_planned_cells_exist_and_every_exclude_removes_cells(matrices, name: str) -> None:
    m = matrices[name]
    planned, excluded = count_cells(m)
    assert planned > 0
    if name != "cpu.yaml":
        assert excluded > 0
    all_cells = [c.as_dict() for c in expand(m, include_excluded=True)]
    for entry in m.excludes:
        assert any(all(c.get(axis) in allowed for axis, allowed in entry) for c in all_cells), (
            f"{name}: exclude {entry} matches no cell"
        )


@pytest.mark.parametrize("name", [n for n in GPU_MATRICES if n not in ("h100.yaml", "h200.yaml")])
def test_rocm_cells_are_exactly_the_shipped_wheels(matrices, name: str) -> None:
    m = matrices[name]
    for cell in expand(m, include_excluded=True):
        v = cell.as_dict()
        shipped = v["rocm"] in ROCM_WHEELS[v["torch"]] and _series_key(v["torch"]) >= _series_key(
            PYTHON_FROM.get(v["python"], "0")
        )
        assert shipped == (not is_excluded(m, v)), f"{name}: {cell.key} planned={not is_excluded(m, v)}"


@pytest.mark.parametrize("name", ["h100.yaml", "h200.yaml"])
def test_cuda_cells_are_exactly_the_shipped_wheels(matrices, name: str) -> None:
    m = matrices[name]
    for cell in expand(m, include_excluded=True):
        v = cell.as_dict()
        shipped = v["cuda"] in CUDA_WHEELS[v["torch"]] and _series_key(v["torch"]) >= _series_key(
            PYTHON_FROM.get(v["python"], "0")
        )
        assert shipped == (not is_excluded(m, v)), f"{name}: {cell.key} planned={not is_excluded(m, v)}"


@pytest.mark.parametrize("name", ["h100.yaml", "h200.yaml"])
def test_recorded_h100_machine_is_located(matrices, name: str) -> None:
    env = Environment.load(str(DATA / "env_h100_live.json"))
    loc = locate(matrices[name], env)
    assert loc.inside, loc.describe()
    assert loc.cell.as_dict() == {"arch": "sm_90", "cuda": "13.0", "torch": "2.11", "python": "3.12"}
    # A stack PyTorch never shipped (torch 2.8 built for CUDA 13.0) is located but excluded.
    odd = locate(matrices[name], apply_overrides(env, ["torch=2.8.0+cu130"]))
    assert odd.excluded and not odd.inside, odd.describe()


def test_recorded_h100_meets_the_h100_expectations(matrices) -> None:
    env = Environment.load(str(DATA / "env_h100_live.json"))
    expect = matrices["h100.yaml"].expect
    assert len(env.gpus) >= expect["min_gpus"]
    assert all(g.memory_bytes / GIB >= expect["min_gpu_memory_gib"] for g in env.gpus)


@pytest.mark.parametrize(
    ("env", "name", "cell"),
    [
        (MI300_ENV, "mi300.yaml", {"arch": "gfx942", "rocm": "6.2", "torch": "2.5", "python": "3.12"}),
        (MI50_ENV, "mi50.yaml", {"arch": "gfx906", "rocm": "6.2", "torch": "2.5", "python": "3.12"}),
    ],
    ids=["mi300x", "mi50"],
)
def test_replayed_amd_environments_are_located(matrices, env: Environment, name: str, cell: dict) -> None:
    loc = locate(matrices[name], env)
    assert loc.inside, loc.describe()
    assert loc.cell.as_dict() == cell
    expect = matrices[name].expect
    assert all(g.memory_bytes / GIB >= expect["min_gpu_memory_gib"] for g in env.gpus)


def test_replayed_environments_stay_out_of_other_hardware(matrices) -> None:
    assert "arch" in " ".join(locate(matrices["mi50.yaml"], MI300_ENV).reasons)
    assert "arch" in " ".join(locate(matrices["mi300.yaml"], MI50_ENV).reasons)
    h100 = Environment.load(str(DATA / "env_h100_live.json"))
    assert "platform is cuda" in " ".join(locate(matrices["mi300.yaml"], h100).reasons)
    assert "platform is rocm" in " ".join(locate(matrices["h100.yaml"], MI300_ENV).reasons)


def _from_devices(gpus, **versions: str) -> Environment:
    return Environment(platform="rocm", gpus=tuple(gpus), **versions)


@pytest.mark.parametrize(
    ("recorded", "name", "versions", "cell"),
    [
        (
            "rocminfo_mi300x_gfx942.txt",
            "mi300.yaml",
            {"rocm": "6.2.3", "torch": "2.5.1+rocm6.2", "python": "3.12.3"},
            {"arch": "gfx942", "rocm": "6.2", "torch": "2.5", "python": "3.12"},
        ),
        (
            "rocminfo_rx7900xtx_gfx1100.txt",
            "rdna3.yaml",
            {"rocm": "6.2.2", "torch": "2.6.0+rocm6.2.4", "python": "3.11.9"},
            {"arch": "gfx1100", "rocm": "6.2", "torch": "2.6", "python": "3.11"},
        ),
        (
            "amdsmi_static_mi210_gfx90a.json",
            "mi250.yaml",
            {"rocm": "7.2.0", "torch": "2.11.0+rocm7.2", "python": "3.12.3"},
            {"arch": "gfx90a", "rocm": "7.2", "torch": "2.11", "python": "3.12"},
        ),
    ],
    ids=["mi300x-rocminfo", "rx7900xtx-rocminfo", "mi210-amdsmi"],
)
def test_recorded_amd_devices_are_located_and_meet_expect(
    matrices, recorded: str, name: str, versions: dict, cell: dict
) -> None:
    """Real recorded device listings (tests/data/SOURCES.md), parsed by the probe's own parsers."""
    text = (DATA / recorded).read_text(encoding="utf-8")
    report = parse_amdsmi_static_json(text) if recorded.endswith(".json") else parse_rocminfo(text)
    env = _from_devices(report.gpus, **versions)
    loc = locate(matrices[name], env)
    assert loc.inside, loc.describe()
    assert loc.cell.as_dict() == cell
    assert all(g.memory_bytes / GIB >= matrices[name].expect["min_gpu_memory_gib"] for g in env.gpus)


def test_recorded_mi50_meets_the_mi50_expectations(matrices) -> None:
    report = parse_rocminfo((DATA / "rocminfo_mi210_mi60_mi100.txt").read_text(encoding="utf-8"))
    mi50 = [g for g in report.gpus if g.arch.startswith("gfx906")]
    assert mi50 and all(g.memory_bytes / GIB >= matrices["mi50.yaml"].expect["min_gpu_memory_gib"] for g in mi50)


def test_cpu_matrix_axes_are_unchanged(matrices) -> None:
    """cpu.yaml is what CI runs; its suites and axes change only with the lead's agreement."""
    m = matrices["cpu.yaml"]
    assert m.platform == "cpu" and m.suites == ("preflight", "gpu", "collectives", "ppo", "libs")
    assert dict(m.axes) == {"torch": ("2.11", "2.12", "2.13", "2.14"), "python": ("3.10", "3.11", "3.12", "3.13")}


# matrix -> a device name of that hardware, looked up in the peaks table (suites/peaks.py)
PEAK_DEVICE = {
    "h100.yaml": "NVIDIA H100 80GB HBM3",
    "h200.yaml": "NVIDIA H200",
    "mi300.yaml": "AMD Instinct MI300X",
    "mi250.yaml": "AMD Instinct MI210",
    "mi50.yaml": "AMD Instinct MI50",
    "rdna3.yaml": "Radeon RX 7900 XTX",
}


@pytest.mark.parametrize("name", sorted(PEAK_DEVICE))
def test_floors_are_a_fraction_of_the_peaks_table(matrices, name: str) -> None:
    """Floors stay under the datasheet peaks (at most 90%: floors from measured runs sit near 85% of
    what a healthy card gave, which is itself 75-90% of the datasheet)."""
    from peaks import peak_for

    peak = peak_for(PEAK_DEVICE[name])
    assert peak is not None, PEAK_DEVICE[name]
    limits = {
        "gemm_bf16_tflops": peak.get("bf16") or peak.get("fp32"),
        "gemm_fp16_tflops": peak.get("fp16"),
        "copy_d2d_gbps": peak.memory_gbps,
        "copy_h2d_gbps": peak.host_gbps,
        "copy_d2h_gbps": peak.host_gbps,
    }
    for metric, floor in matrices[name].floors.items():
        if limits.get(metric):
            assert floor <= 0.9 * limits[metric], f"{name}: {metric} floor {floor} vs peak {limits[metric]}"


def test_no_known_bad_rule_fires_on_the_recorded_h100(matrices) -> None:
    """Our own healthy machine (torch 2.11.0+cu130, driver 580) must not be flagged by any rule."""
    from pytest_rocmcompat.knowledge.rules.engine import ActiveRules

    env = Environment.load(str(DATA / "env_h100_live.json"))
    assert [r.id for r in ActiveRules(matrices["h100.yaml"].rules, env).active] == []
    older = apply_overrides(env, ["driver=570.86.10"])
    assert "torch-cu130-needs-driver-580" in {r.id for r in ActiveRules(matrices["h100.yaml"].rules, older).active}

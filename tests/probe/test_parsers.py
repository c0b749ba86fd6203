"""The GPU tool parsers, run on real recorded outputs (see tests/data/SOURCES.md).

Expected values are read off the recordings themselves. Where a test reshapes a
recording (CRLF, colours, cuts, the other amd-smi JSON shape) it says so; no
output here is invented.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rocmcompat.probe.amdsmi_text import parse_amdsmi_static_json, parse_amdsmi_version
from pytest_rocmcompat.probe.device_report import DeviceReport
from pytest_rocmcompat.probe.nvidia_smi import parse_nvidia_smi_csv, parse_nvidia_smi_header
from pytest_rocmcompat.probe.rocm_version import parse_rocm_version_file, read_rocm_version
from pytest_rocmcompat.probe.rocminfo import parse_rocminfo
from pytest_rocmcompat.stack.environment import GPU
from tests.conftest import DATA

KiB, MiB = 1024, 1024 * 1024

ROCMINFO_FILES = ("rocminfo_mi300x_gfx942.txt", "rocminfo_mi210_mi60_mi100.txt", "rocminfo_rx7900xtx_gfx1100.txt")
NVIDIA_CSV_FILES = ("nvidia_smi_query_h100.csv", "nvidia_smi_query_h100_header.csv", "nvidia_smi_query_vc_h100.csv")

# amd-smi version lines quoted from public issues (SOURCES.md).
AMDSMI_VERSION_ROCM_633 = "AMDSMI Tool: 24.7.1+8dc45db | AMDSMI Library version: 25.1.0.0 | ROCm version: 6.3.3"
AMDSMI_VERSION_ROCM_641 = (
    "AMDSMI Tool: 25.4.2+aca1101 | AMDSMI Library version: 25.4.0 | ROCm version: 6.4.1 "
    "| amdgpu version: 6.12.12 | amd_hsmp version: N/A"
)
# Printed before the JSON by amd-smi under Python 3.14 (nathaninline/ajean#39).
AMDSMI_PY314_WARNINGS = (
    "/usr/lib/python3.14/site-packages/amdsmi/amdsmi_interface.py:3569: SyntaxWarning: 'return' in a 'finally' block\n"
    "  return return_dictionary\n"
    "/usr/lib/python3.14/site-packages/amdsmi/amdsmi_interface.py:3603: SyntaxWarning: 'return' in a 'finally' block\n"
    "  return return_dictionary\n"
)
# What nvidia-smi prints on a machine without a usable GPU
# (NVIDIA/open-gpu-kernel-modules#862, GoogleCloudPlatform/compute-gpu-installation#33).
NVIDIA_SMI_FAILURES = (
    "No devices were found",
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.",
)
# What rocminfo prints without a usable GPU (ROCm/ROCm#1794, ROCm/ROCm#3677).
ROCMINFO_FAILURES = (
    "ROCk module is NOT loaded, possibly no GPU devices\n",
    "WSL environment detected.\n"
    "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
    "This error may also occur when the core runtime library needs to spawn threads or create internal "
    "OS-specific events.\n",
)


def read(name: str) -> str:
    with open(DATA / name, encoding="utf-8", newline="") as fh:
        return fh.read()


def amd(index: int, name: str, arch: str, kib: int) -> GPU:
    return GPU(index=index, name=name, arch=arch, memory_bytes=kib * KiB, vendor="amd")


MI300X = amd(0, "AMD Instinct MI300X", "gfx942", 201310208)
EXPECTED_ROCMINFO = {
    "rocminfo_mi300x_gfx942.txt": DeviceReport(
        source="rocminfo", driver="6.8.5", gpus=tuple(replace(MI300X, index=i) for i in range(8))
    ),
    "rocminfo_mi210_mi60_mi100.txt": DeviceReport(
        source="rocminfo",
        driver="6.16.13",
        gpus=(
            amd(0, "AMD Instinct MI210", "gfx90a", 67092480),
            amd(1, "AMD Instinct MI60 / MI50", "gfx906", 33538048),
            amd(2, "AMD Instinct MI100", "gfx908", 33538048),
        ),
    ),
    "rocminfo_rx7900xtx_gfx1100.txt": DeviceReport(
        source="rocminfo", driver="6.8.5", gpus=(amd(0, "Radeon RX 7900 XTX", "gfx1100", 25149440),)
    ),
}
H100 = GPU(index=0, name="NVIDIA H100 80GB HBM3", arch="sm_90", memory_bytes=81559 * MiB, vendor="nvidia")


# ---- rocminfo -----------------------------------------------------------------


@pytest.mark.parametrize("name", ROCMINFO_FILES)
def test_rocminfo_real_outputs(name):
    assert parse_rocminfo(read(name)) == EXPECTED_ROCMINFO[name]


def test_rocminfo_mi300x_memory_matches_rocm_smi():
    # rocm-smi on an MI300X reports "VRAM Total Memory (B): 206141652992" (ROCm/ROCm#4750).
    assert parse_rocminfo(read("rocminfo_mi300x_gfx942.txt")).gpus[0].memory_bytes == 206141652992


def test_rocminfo_skips_cpu_agents_and_keeps_gpu_order():
    report = parse_rocminfo(read("rocminfo_mi210_mi60_mi100.txt"))
    assert [g.index for g in report.gpus] == [0, 1, 2]
    assert all(g.vendor == "amd" for g in report.gpus)
    assert not any("EPYC" in g.name for g in report.gpus)


@pytest.mark.parametrize("name", ROCMINFO_FILES)
def test_rocminfo_crlf(name):
    # Two of these pastes were CRLF on GitHub (issue bodies); here they are turned back to CRLF.
    assert parse_rocminfo(read(name).replace("\n", "\r\n")) == EXPECTED_ROCMINFO[name]


@pytest.mark.parametrize("name", ROCMINFO_FILES)
def test_rocminfo_ansi_colours(name):
    coloured = "\n".join(f"\x1b[1;32m{line}\x1b[0m" for line in read(name).split("\n"))
    assert parse_rocminfo(coloured) == EXPECTED_ROCMINFO[name]


def test_rocminfo_bytes_input():
    name = "rocminfo_rx7900xtx_gfx1100.txt"
    assert parse_rocminfo(read(name).encode()) == EXPECTED_ROCMINFO[name]


def test_rocminfo_arch_from_isa_when_name_is_missing():
    text = read("rocminfo_mi210_mi60_mi100.txt").replace("  Name:                    gfx906\n", "")
    gpu = parse_rocminfo(text).gpus[1]
    assert (gpu.arch, gpu.name) == ("gfx906", "AMD Instinct MI60 / MI50")


def test_rocminfo_name_falls_back_when_marketing_name_is_blank():
    # Older rocminfo printed an empty Marketing Name for MI100/MI200 (ROCm/ROCm#1778).
    text = read("rocminfo_mi210_mi60_mi100.txt")
    text = text.replace("Marketing Name:          AMD Instinct MI100", "Marketing Name:")
    assert parse_rocminfo(text).gpus[2].name == "gfx908"


def _assert_prefix(part: DeviceReport, full: DeviceReport) -> None:
    """``part`` (from a cut output) holds a prefix of ``full``'s devices; the last may lack memory."""
    assert len(part.gpus) <= len(full.gpus)
    for got, want in zip(part.gpus[:-1], full.gpus):
        assert got == want
    if part.gpus:
        want = full.gpus[len(part.gpus) - 1]
        assert part.gpus[-1] in (want, replace(want, memory_bytes=None))
    assert part.driver in (None, full.driver)


def _cuts(text: str, keys: tuple[str, ...]) -> list[int]:
    """Every line boundary, every 41st character, and every character of the key lines."""
    cuts = {0, len(text)} | set(range(0, len(text), 41))
    pos = 0
    for line in text.splitlines(keepends=True):
        cuts.add(pos)
        if line.strip().startswith(keys):
            cuts.update(range(pos, pos + len(line)))
        pos += len(line)
    return sorted(cuts)


@pytest.mark.parametrize("name", ROCMINFO_FILES)
def test_rocminfo_truncated_gives_a_prefix(name):
    text = read(name)
    full = parse_rocminfo(text)
    keys = ("ROCk", "Agent", "Name:", "Marketing Name:", "Device Type:", "Segment:", "Size:")
    counts = set()
    for cut in _cuts(text, keys):
        part = parse_rocminfo(text[:cut])
        _assert_prefix(part, full)
        counts.add(len(part.gpus))
    assert counts == set(range(len(full.gpus) + 1))


def test_rocminfo_truncated_inside_the_last_agent_keeps_it_without_memory():
    text = read("rocminfo_rx7900xtx_gfx1100.txt")
    cut = text.index("Pool Info", text.index("GPU-dd12161dec38e7a2"))
    (xtx,) = EXPECTED_ROCMINFO["rocminfo_rx7900xtx_gfx1100.txt"].gpus
    assert parse_rocminfo(text[:cut]).gpus == (replace(xtx, memory_bytes=None),)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        *ROCMINFO_FAILURES,
        "\x00\xff garbage \x1b[ \x1b]\n: : :\nAgent x\n*******\nDevice Type: GPU\n",
        "Device Type:             GPU\nName:                    gfx942\n",
    ],
)
def test_rocminfo_garbage_gives_empty_report(text):
    assert parse_rocminfo(text) == DeviceReport(source="rocminfo")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_rocminfo_never_raises_on_text(text):
    assert isinstance(parse_rocminfo(text), DeviceReport)


ROCMINFO_LINES = sorted({line for name in ROCMINFO_FILES for line in read(name).splitlines()})


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ROCMINFO_LINES), max_size=200))
def test_rocminfo_never_raises_on_shuffled_real_lines(lines):
    report = parse_rocminfo("\n".join(lines))
    assert [g.index for g in report.gpus] == list(range(len(report.gpus)))
    assert all(g.vendor == "amd" for g in report.gpus)


# ---- amd-smi static --json ----------------------------------------------------------

MI210 = amd(0, "AMD Instinct MI210", "gfx90a", 65520 * 1024)
# The record's driver.version is a kernel banner, "Linuxversion6.14.0-24-generic(buildd@...)...":
# the in-kernel amdgpu driver.
MI210_DRIVER = "6.14.0-24-generic"


def test_amdsmi_static_gpu_data_shape():
    report = parse_amdsmi_static_json(read("amdsmi_static_mi210_gfx90a.json"))
    assert report == DeviceReport(source="amd-smi", gpus=(MI210,), driver=MI210_DRIVER)


def test_amdsmi_static_list_shape():
    # Older amd-smi printed the records as a top-level list (AMD blog, 2024: `jq '.[0]["vram"]'`);
    # the real MI210 record is re-wrapped that way here.
    records = json.loads(read("amdsmi_static_mi210_gfx90a.json"))["gpu_data"]
    assert parse_amdsmi_static_json(json.dumps(records, indent=4)).gpus == (MI210,)


@pytest.mark.parametrize("size", ["65520 MB", "65520MB", {"value": 65520, "unit": "MB"}, 65520])
def test_amdsmi_static_size_shapes(size):
    data = json.loads(read("amdsmi_static_mi210_gfx90a.json"))
    data["gpu_data"][0]["vram"]["size"] = size
    assert parse_amdsmi_static_json(json.dumps(data)).gpus[0].memory_bytes == 65520 * MiB


def test_amdsmi_static_plain_driver_version_is_kept():
    data = json.loads(read("amdsmi_static_mi210_gfx90a.json"))
    data["gpu_data"][0]["driver"]["version"] = "6.12.12"
    assert parse_amdsmi_static_json(json.dumps(data)).driver == "6.12.12"


def test_amdsmi_static_unknown_fields_are_left_empty():
    data = json.loads(read("amdsmi_static_mi210_gfx90a.json"))
    record = data["gpu_data"][0]
    record["asic"]["market_name"] = "N/A"
    record["asic"]["target_graphics_version"] = "N/A"
    record["vram"]["size"] = {"value": "N/A", "unit": "MB"}
    record["driver"]["version"] = "N/A"
    report = parse_amdsmi_static_json(json.dumps(data))
    assert report.gpus == (GPU(index=0, name="", arch="", memory_bytes=None, vendor="amd"),)
    assert report.driver is None


def test_amdsmi_static_skips_warning_lines_before_the_json():
    text = AMDSMI_PY314_WARNINGS + read("amdsmi_static_mi210_gfx90a.json")
    assert parse_amdsmi_static_json(text).gpus == (MI210,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty output"),
        ("   \n", "empty output"),
        ("Error: no AMD GPUs found", "not JSON"),
        ("{", "not valid JSON"),
        ("null", "not JSON"),
        ('"gpu_data"', "not JSON"),
        ("[1, 2]", "GPU record 0 is not an object"),
        ('{"error": "AMDSMI_STATUS_NO_PERM"}', "expected a list of GPU records"),
        ('{"gpu_data": {"gpu": 0}}', "expected a list of GPU records"),
    ],
)
def test_amdsmi_static_rejects_other_text(text, message):
    with pytest.raises(ValueError, match=message):
        parse_amdsmi_static_json(text)


def test_amdsmi_static_truncated_raises_value_error():
    text = read("amdsmi_static_mi210_gfx90a.json")
    for cut in range(1, text.rindex("}"), 97):
        with pytest.raises(ValueError, match="amd-smi static --json"):
            parse_amdsmi_static_json(text[:cut])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "gpu",
                    "gpu_data",
                    "asic",
                    "vram",
                    "size",
                    "value",
                    "unit",
                    "driver",
                    "version",
                    "market_name",
                    "target_graphics_version",
                    "board",
                    "product_name",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), JSON_VALUES.map(json.dumps)))
def test_amdsmi_static_only_raises_value_error(text):
    try:
        report = parse_amdsmi_static_json(text)
    except ValueError:
        return
    assert all(isinstance(g, GPU) for g in report.gpus)


# ---- amd-smi version -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rocm", "driver"),
    [(AMDSMI_VERSION_ROCM_633, "6.3.3", None), (AMDSMI_VERSION_ROCM_641, "6.4.1", "6.12.12")],
)
def test_amdsmi_version(text, rocm, driver):
    assert parse_amdsmi_version(text + "\n") == DeviceReport(source="amd-smi", rocm=rocm, driver=driver)


def test_amdsmi_version_with_unknown_rocm():
    assert parse_amdsmi_version(AMDSMI_VERSION_ROCM_633.replace("6.3.3", "N/A")).rocm is None


@pytest.mark.parametrize("text", ["", "amd-smi: command not found", "{}"])
def test_amdsmi_version_rejects_other_text(text):
    with pytest.raises(ValueError, match="amd-smi version"):
        parse_amdsmi_version(text)


# ---- nvidia-smi --query-gpu CSV ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "gpu", "driver"),
    [
        ("nvidia_smi_query_h100.csv", H100, "580.159.04"),
        ("nvidia_smi_query_h100_header.csv", H100, "580.159.04"),
        ("nvidia_smi_query_vc_h100.csv", replace(H100, arch=""), "535.161.07"),  # no compute_cap column
    ],
)
def test_nvidia_smi_csv_real_outputs(name, gpu, driver):
    assert parse_nvidia_smi_csv(read(name)) == DeviceReport(source="nvidia-smi", gpus=(gpu,), driver=driver)


def test_nvidia_smi_csv_crlf_and_bytes():
    text = read("nvidia_smi_query_h100.csv")
    assert parse_nvidia_smi_csv(text.replace("\n", "\r\n").encode()).gpus == (H100,)


def test_nvidia_smi_csv_unavailable_compute_cap():
    # The recorded row with its compute_cap replaced by what nvidia-smi prints when it has none.
    text = read("nvidia_smi_query_h100.csv").replace(", 9.0,", ", [N/A],")
    assert parse_nvidia_smi_csv(text).gpus == (replace(H100, arch=""),)


@pytest.mark.parametrize("name", NVIDIA_CSV_FILES)
def test_nvidia_smi_csv_truncated_gives_a_prefix(name):
    text = read(name)
    full = parse_nvidia_smi_csv(text)
    for cut in range(len(text) + 1):
        part = parse_nvidia_smi_csv(text[:cut])
        assert part.gpus == full.gpus[: len(part.gpus)]


@pytest.mark.parametrize(
    "text",
    [
        "",
        *NVIDIA_SMI_FAILURES,
        "index, name, memory.total [MiB], compute_cap, driver_version\n",
        "x, NVIDIA H100 80GB HBM3, 81559, 9.0, 580.159.04",
        "0, NVIDIA H100 80GB HBM3, lots, 9.0, 580.159.04",
        "0, NVIDIA H100 80GB HBM3, 81559, nine, 580.159.04",
        "0, , 81559, 9.0, 580.159.04",
        "a,b,c,d,e\n1,2\n,,,,",
    ],
)
def test_nvidia_smi_csv_garbage_gives_no_devices(text):
    assert parse_nvidia_smi_csv(text).gpus == ()


def test_nvidia_smi_csv_skips_rows_that_do_not_fit():
    text = NVIDIA_SMI_FAILURES[0] + "\n" + read("nvidia_smi_query_h100.csv") + "0, half a row\n"
    assert parse_nvidia_smi_csv(text).gpus == (H100,)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_nvidia_smi_parsers_never_raise(text):
    assert isinstance(parse_nvidia_smi_csv(text), DeviceReport)
    assert isinstance(parse_nvidia_smi_header(text), DeviceReport)


CSV_CELLS = st.sampled_from(
    [
        "0",
        "1",
        "NVIDIA H100 80GB HBM3",
        "81559",
        "81559 MiB",
        "9.0",
        "12.0",
        "[N/A]",
        "580.159.04",
        "index",
        "name",
        "memory.total [MiB]",
        "compute_cap",
        "",
        " ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(CSV_CELLS, max_size=6).map(", ".join), max_size=6))
def test_nvidia_smi_csv_never_raises_on_csv_like_rows(rows):
    report = parse_nvidia_smi_csv("\n".join(rows))
    assert all(g.vendor == "nvidia" for g in report.gpus)


# ---- nvidia-smi table header -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "driver", "cuda"),
    [("nvidia_smi_h100_580.txt", "580.159.04", "13.0"), ("nvidia_smi_2xh100_550.txt", "550.54.15", "12.4")],
)
def test_nvidia_smi_header_real_outputs(name, driver, cuda):
    assert parse_nvidia_smi_header(read(name)) == DeviceReport(source="nvidia-smi", driver=driver, cuda=cuda)


@pytest.mark.parametrize("text", ["", *NVIDIA_SMI_FAILURES, "Driver Version: N/A   CUDA Version: N/A"])
def test_nvidia_smi_header_garbage(text):
    assert parse_nvidia_smi_header(text) == DeviceReport(source="nvidia-smi")


# ---- /opt/rocm/.info/version ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("6.2.0-66\n", "6.2.0"),  # ROCm 6.2.0 (amd/node-scraper test model)
        ("7.0.1\n", "7.0.1"),  # ROCm 7.0.1 (ROCm/ROCm#5316)
        ("7.0.1", "7.0.1"),
        ("6.2\n", "6.2"),
        ("", None),
        ("\n", None),
        ("unknown\n", None),
        ("6\n", None),
        ("6.2.0.1.2\n", None),
    ],
)
def test_parse_rocm_version_file(text, version):
    assert parse_rocm_version_file(text) == version


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_rocm_version_file_never_raises(text):
    result = parse_rocm_version_file(text)
    assert result is None or result[0].isdigit()


def _root(tmp_path: Path, name: str, files: dict[str, str]) -> str:
    info = tmp_path / name / ".info"
    info.mkdir(parents=True)
    for file, text in files.items():
        (info / file).write_text(text, encoding="utf-8")
    return str(tmp_path / name)


def test_read_rocm_version_prefers_version_then_version_dev(tmp_path):
    both = _root(tmp_path, "both", {"version": "6.2.0-66\n", "version-dev": "6.1.2-119\n"})
    dev_only = _root(tmp_path, "dev", {"version-dev": "7.0.1\n"})
    assert read_rocm_version([both]) == ("6.2.0", "")
    assert read_rocm_version([dev_only]) == ("7.0.1", "")


def test_read_rocm_version_walks_the_roots_in_order(tmp_path):
    empty = str(tmp_path / "no-rocm")
    second = _root(tmp_path, "rocm", {"version": "7.0.1\n"})
    assert read_rocm_version([empty, second]) == ("7.0.1", "")


def test_read_rocm_version_notes_missing_files(tmp_path):
    version, note = read_rocm_version([str(tmp_path)])
    assert version is None
    assert str(tmp_path / ".info" / "version") in note and "version-dev" in note


def test_read_rocm_version_notes_unparseable_contents(tmp_path):
    root = _root(tmp_path, "odd", {"version": "not a version\n"})
    version, note = read_rocm_version([root])
    assert version is None
    assert "no version in 'not a version'" in note


def test_read_rocm_version_without_roots():
    assert read_rocm_version([]) == (None, "no ROCm root to look for .info/version in")


# ---- provenance guard ----------------------------------------------------------------


def test_every_data_file_has_a_recorded_source():
    sources = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    missing = [p.name for p in DATA.iterdir() if p.name != "SOURCES.md" and f"`{p.name}`" not in sources]
    assert not missing, f"add these to tests/data/SOURCES.md: {missing}"

"""PyTorch's ``collect_env`` report as a stack: real reports from public issues (tests/data/collect_env, SOURCES.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.stack.collect_env import looks_like_collect_env, parse_collect_env
from pytest_rocmcompat.stack.nvidia_names import nvidia_arch_of_name
from pytest_rocmcompat.stack.stack_files import detect_format
from pytest_rocmcompat.stack.stack_replay import stack_file_environment

DATA = Path(__file__).parent.parent / "data" / "collect_env"
REPORTS = sorted(p for p in DATA.glob("*.txt"))


def test_the_corpus_is_there() -> None:
    assert len(REPORTS) >= 30
    amd = [p for p in REPORTS if p.name.startswith("amd_")]
    nvidia = [p for p in REPORTS if p.name.startswith("nvidia_")]
    assert len(amd) >= 10 and len(nvidia) >= 10
    listed = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    assert all(p.name in listed for p in REPORTS)  # every report names its source


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.name)
def test_every_real_report_is_read_as_one(path: Path) -> None:
    """Whole or cut, flattened or not, with or without torch: detected and read, never refused."""
    text = path.read_text(encoding="utf-8")
    assert looks_like_collect_env(text)
    assert detect_format(str(path), text) == "collect-env"
    stack = parse_collect_env(str(path), text)
    env = stack.environment
    assert env is not None and env.source == "replay"
    assert env.platform in ("rocm", "cuda", "cpu")
    stated = "PyTorch version" in text and "PyTorch version: N/A" not in text and "PyTorch version:" in text
    if stated and "torch==" not in text:
        assert env.torch, path.name  # the version line was read


# (file, platform, archs, gpus, torch, hip/cuda, driver, python, os)
FACTS = [
    (
        "amd_mi300x_torch2.9.1_rocm7.13_pt180500.txt",
        "rocm",
        ("gfx942",),
        1,
        "2.9.1+rocm7.13.0a20260401",
        "7.13.60800-96e30b429c",
        None,
        "3.12.3",
        "Linux ubuntu-24.04.4",
    ),
    (
        "amd_gfx906_torch2.5.1_vllm9713.txt",
        "rocm",
        ("gfx906",),
        1,
        "2.5.1+rocm6.2",
        "6.2.41133-dd7f95766",
        None,
        "3.10.12",
        None,
    ),
    (
        "nvidia_4xa100_rhel8_torch2.4_vllm9738.txt",
        "cuda",
        ("sm_80",),
        4,
        "2.4.0+cu121",
        "12.1",
        "530.30.02",
        "3.12.7",
        "Linux rhel",
    ),
    (
        "nvidia_h200_torch2.11_recorded_device.txt",  # recorded on the H200 device machine (session 30)
        "cuda",
        ("sm_90",),
        1,
        "2.11.0+cu130",  # torch.__version__, over pip's "torch==2.11.0"
        "13.0",
        "580.159.04",
        "3.12.3",
        "Linux ubuntu-24.04.3",
    ),
    ("nvidia_v100s_torch2.5.1_vllm10147.txt", "cuda", ("sm_70",), 3, "2.5.1+cu118", "11.8", None, "3.10.15", None),
    ("nvidia_t4_colab_torch1.7_pt46973.txt", "cuda", ("sm_75",), 1, "1.7.0+cu101", "10.1", "418.67", "3.6", None),
    (
        "windows_gtx1050ti_torch2.0.1_pt51858.txt",
        "cuda",
        ("sm_61",),
        1,
        "2.0.1+cu117",
        "11.7",
        "535.98",
        "3.9.16",
        "Windows 11",  # "OS: Microsoft Windows 11 Pro" (Python's platform says Windows-10-10.0.22621)
    ),
]


@pytest.mark.parametrize(("name", "platform", "archs", "gpus", "torch", "build", "driver", "python", "os"), FACTS)
def test_the_facts_a_report_states(
    name: str,
    platform: str,
    archs: tuple[str, ...],
    gpus: int,
    torch: str,
    build: str,
    driver: str | None,
    python: str,
    os: str | None,
) -> None:
    _, env = stack_file_environment(str(DATA / name))
    assert (env.platform, env.archs, len(env.gpus), env.torch, env.python) == (platform, archs, gpus, torch, python)
    assert (env.hip if platform == "rocm" else env.cuda) == build
    assert env.driver == driver
    if os is not None:
        assert env.os == os


def test_a_flattened_report_is_split_again_at_its_labels() -> None:
    """Line breaks lost, each line padded to the terminal's width (270 columns): the same facts."""
    path = DATA / "amd_torch2.5.0rocm6.2_vision8695.flat.txt"
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 2
    _, env = stack_file_environment(str(path))
    assert (env.platform, env.torch, env.hip) == ("rocm", "2.5.0+rocm6.2", "6.2.41133-dd7f95766")


def test_wsl_keeps_the_kernel_and_libraries_come_from_pip3_and_conda_rows() -> None:
    _, env = stack_file_environment(str(DATA / "nvidia_rtx4070laptop_wsl2_torch2.4_vllm9293.txt"))
    assert "microsoft-standard-WSL2" in env.os and env.archs == ("sm_89",)
    stack, env = stack_file_environment(str(DATA / "macos_x86_torch1.8dev_pt48145.txt"))
    assert env.libraries["torchvision"] == "0.9.0.dev20201117" and env.libraries["numpy"] == "1.18.5"
    assert env.os.startswith("Darwin")
    assert stack.format == "collect-env"


def test_vllms_report_states_vllm_and_the_system_rocm() -> None:
    _, env = stack_file_environment(str(DATA / "amd_rocm7.2_torch2.10_vllminfo_vllm45751.txt"))
    assert env.platform == "rocm" and env.rocm == "7.2" and env.torch == "2.10.0+git8514f05"
    assert env.libraries["vllm"] == "0.1.dev0" and env.libraries["transformers"] == "5.12.1"
    _, env = stack_file_environment(str(DATA / "nvidia_8xgpu_nv18_vllminfo_vllm22372.txt"))
    assert env.libraries["vllm"] == "0.1.dev1+gb4b9813"  # "(git sha: b4b9813)" is not part of the version


def rocmcompat(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_check_finds_what_the_report_shows() -> None:
    """4x A10 on driver 470 (CUDA 11.4) with torch 2.4.0+cu121: the driver is too old for the build."""
    proc = rocmcompat("check", str(DATA / "nvidia_4xa10_torch2.4_vllm7943.txt"), "--json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["format"] == "collect-env"
    assert any(p["check"] == "cuda-newer-than-driver" for p in result["problems"])
    # the same report with a driver that serves CUDA 12: nothing against it
    proc = rocmcompat("check", str(DATA / "nvidia_4xa10_torch2.4_vllm7943.txt"), "--set", "driver=550.54.15")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_working_mi300x_report_is_not_known_bad() -> None:
    proc = rocmcompat("check", str(DATA / "amd_mi300x_torch2.7a0_vllm16474.txt"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "arch=gfx942" in proc.stdout and "(collect-env, " in proc.stdout


def test_hostile_report_secrets_redacted_and_escapes_shown_escaped(tmp_path: Path) -> None:
    report = (
        "PyTorch version: 2.5.1+cu124\n"
        "CUDA used to build PyTorch: 12.4\n"
        "GPU models and configuration: \n"
        "GPU 0: NVIDIA H100 80GB HBM3\x1b[2J\n\n"
        "Nvidia driver version: 550.54.15; rm -rf /\n"
        "Environment Variables:\n"
        "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789\n"
        "NCCL_CUMEM_ENABLE=0\n"
        "[pip3] numpy==1.26.4\n"
        "[pip3] evil==\x1b]8;;http://x\x07\n"
        "[pip3] " + "a" * 5000 + "==1.0\n"
    )
    path = tmp_path / "env.txt"
    path.write_text(report, encoding="utf-8")
    stack, env = stack_file_environment(str(path))
    assert "hf_abcdefghijklmnop" not in json.dumps(env.env) and env.env["NCCL_CUMEM_ENABLE"] == "0"
    assert env.driver is None and any("Nvidia driver version" in s for s in stack.skipped)
    assert env.archs == ("sm_90",) and env.libraries == {"numpy": "1.26.4"}
    proc = rocmcompat("check", str(path))
    assert proc.returncode in (0, 1), proc.stderr
    assert "\x1b" not in proc.stdout and "hf_abcdefghijklmnop" not in proc.stdout


def test_a_report_cut_before_its_build_lines_takes_the_build_from_torchs_label(tmp_path: Path) -> None:
    for label, platform in (("cu121", "cuda"), ("rocm6.2", "rocm"), ("cpu", "cpu")):
        path = tmp_path / f"{label}.txt"
        path.write_text(f"PyTorch version: 2.4.0+{label}\r\nIs debug build: False\r\n", encoding="utf-8")
        assert stack_file_environment(str(path))[1].platform == platform


def test_a_cpu_torch_on_a_gpu_host_is_a_cpu_build(tmp_path: Path) -> None:
    """``CUDA used to build PyTorch: None`` (torch.version.cuda) beside an A100: torch-cpu-build, exit 1."""
    path = tmp_path / "env.txt"
    path.write_text(
        "PyTorch version: 2.5.1\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "ROCM used to build PyTorch: N/A\n\nGPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\n"
        "Nvidia driver version: 550.54.15\n",
        encoding="utf-8",
    )
    _, env = stack_file_environment(str(path))
    assert (env.torch, env.platform) == ("2.5.1+cpu", "cuda")
    proc = rocmcompat("check", str(path), "--json")
    assert proc.returncode == 1 and any(p["check"] == "torch-cpu-build" for p in json.loads(proc.stdout)["problems"])
    path.write_text(path.read_text().replace("CUDA used to build PyTorch: None", "CUDA used to build PyTorch: 12.4"))
    assert stack_file_environment(str(path))[1].torch == "2.5.1"


def test_pathological_reports_are_read_in_linear_time(tmp_path: Path) -> None:
    """Found by bench/fuzz_stack_files.py: a 200,000-blank run inside a line (the patterns backtracked over it:
    over a minute), and a GPU label line repeated 2,789 times (2,789 GPUs, then a check quadratic in GPUs). The
    subprocess limit only tells a hang; the facts are what is asserted.
    """
    path = tmp_path / "env.txt"
    label = "GPU models and configuration: AMD Instinct MI250X/MI250 (gfx90a:sramecc+:xnack-)\n"
    path.write_text(
        "PyTorch version: 2.5.1+rocm6.2\nIs debug build: False\nOS:" + " " * 200_000 + "x\n"
        "[pip3] " + " " * 200_000 + "y\n" + label * 2_789,
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    env = json.loads(proc.stdout)["environment"]
    assert [g["arch"] for g in env["gpus"]] == ["gfx90a"] and env["torch"] == "2.5.1+rocm6.2"


def test_not_a_report() -> None:
    assert not looks_like_collect_env("torch==2.5.1\nnumpy==1.26.4\n")
    assert not looks_like_collect_env("OS: Linux\n")  # one generic label is no report
    assert looks_like_collect_env("[pip3] torch==2.5.1\n")


@pytest.mark.parametrize(
    ("name", "arch"),
    [
        ("NVIDIA A100-SXM4-80GB", "sm_80"),
        ("A100-SXM4-40GB", "sm_80"),
        ("NVIDIA A10", "sm_86"),
        ("NVIDIA A10G", "sm_86"),
        ("NVIDIA H100 80GB HBM3", "sm_90"),
        ("NVIDIA H200", "sm_90"),
        ("NVIDIA GeForce RTX 4090", "sm_89"),
        ("NVIDIA GeForce RTX 4070 Laptop GPU", "sm_89"),
        ("NVIDIA GeForce RTX 5090", "sm_120"),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "sm_120"),
        ("NVIDIA RTX 6000 Ada Generation", "sm_89"),
        ("Quadro RTX 6000", "sm_75"),
        ("NVIDIA RTX A6000", "sm_86"),
        ("Tesla V100S-PCIE-32GB", "sm_70"),
        ("Tesla T4", "sm_75"),
        ("Tesla P100-PCIE-16GB", "sm_60"),
        ("Tesla P40", "sm_61"),
        ("NVIDIA GeForce GTX 1050 Ti", "sm_61"),
        ("NVIDIA GeForce GTX 1660 SUPER", "sm_75"),
        ("NVIDIA GeForce RTX 3090", "sm_86"),
        ("NVIDIA L40S", "sm_89"),
        ("NVIDIA L4", "sm_89"),
        ("NVIDIA B200", "sm_100"),
        ("Tesla K80", "sm_37"),
        ("NVIDIA GeForce GTX 980", "sm_52"),
        ("Some Future GPU", ""),
    ],
)
def test_nvidia_names(name: str, arch: str) -> None:
    assert nvidia_arch_of_name(name) == arch

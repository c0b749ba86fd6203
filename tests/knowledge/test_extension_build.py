"""``extension-built-for-other-torch``: compiled extensions judged against the installed torch.

Both ways on the recorded real H100 (CUDA) and MI300X (ROCm) stacks, the probe's reading of
build labels from real ``*.dist-info`` directories, the C++ ABI fact, and end to end
through real pytest runs and ``rocmcompat probe``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from pytest_rocmcompat.errors import OverrideError
from pytest_rocmcompat.knowledge.checks import extension_torch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.extension_builds import built_for, official_cxx11_abi
from pytest_rocmcompat.probe.libraries import _with_build_label
from pytest_rocmcompat.probe.rocminfo import parse_rocminfo
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import CPU_ENV, DATA

from .test_checks import _junit_rules

H100 = Environment.load(str(DATA / "env_h100_archs.json"))  # torch 2.11.0+cu130, real probe
MI300X = Environment(
    platform="rocm",
    gpus=parse_rocminfo((DATA / "rocminfo_mi300x_gfx942.txt").read_text()).gpus,
    torch="2.6.0+rocm6.2.4",
    python="3.12.3",
    os="Linux 6.8",
)


def problems(env: Environment, *assignments: str) -> list[str]:
    env = apply_overrides(env, list(assignments))
    return [f.reason for f in evaluate(env) if f.check == extension_torch.ID]


# ---- torchao's own table -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("torchao", "torch", "ok"),
    [
        ("0.16.0", "2.10.0+cu128", True),
        ("0.16.0", "2.9.1+cu128", False),  # the pairing torchao 0.16's own table refuses
        ("0.16.0+cu128", "2.11.0.dev20260110+cu128", True),  # the next nightlies are in its table
        ("0.15.0", "2.9.1+cu126", True),
        ("0.15.0", "2.9.0+cu126", False),  # a patch apart: torchao compares the patch
        ("0.14.1", "2.9.0+cu128", True),
        ("0.14.1", "2.8.0+cu128", False),
        ("0.13.0", "2.8.0+cu128", True),
        ("0.13.0", "2.10.0+cu128", False),
        ("0.17.0", "2.11.0+cu130", True),  # from 0.17: a minimum torch
        ("0.17.0", "2.10.0+cu128", False),
        ("0.18.0", "2.12.0+cu130", True),
    ],
)
def test_torchao_table_both_ways_on_the_recorded_h100(torchao: str, torch: str, ok: bool) -> None:
    found = problems(H100, f"torch={torch}", f"lib.torchao={torchao}")
    assert (found == []) is ok, found
    if not ok:
        assert f"torchao {torchao} is built for torch" in found[0] and f"installed torch {torch}" in found[0]


def test_torchao_releases_outside_the_table_and_local_builds_say_nothing() -> None:
    for torchao in ("0.12.0", "0.15.1", "0.16.0+git1a2b3c4", "0.10.0"):
        assert problems(H100, "torch=2.9.1+cu128", f"lib.torchao={torchao}") == [], torchao


def test_torchao_on_the_recorded_mi300x_both_ways() -> None:
    assert problems(MI300X, "torch=2.10.0+rocm7.0", "lib.torchao=0.16.0+rocm7.0") == []
    found = problems(MI300X, "torch=2.9.0+rocm6.4", "lib.torchao=0.16.0+rocm6.4")
    assert len(found) == 1 and "skips its C++ extensions" in found[0]


def test_torchao_0_13_says_the_import_can_abort() -> None:
    found = problems(H100, "torch=2.10.0+cu128", "lib.torchao=0.13.0")
    assert "importing it can abort the process" in found[0]


# ---- build labels: flash-attn style and PyG style -------------------------------------------------
@pytest.mark.parametrize(
    ("version", "torch", "ok"),
    [
        ("2.8.3+cu12torch2.8cxx11abiTRUE", "2.8.0+cu128", True),
        ("2.8.3+cu12torch2.7cxx11abiTRUE", "2.8.0+cu128", False),  # another torch series
        ("2.8.3+cu12torch2.8cxx11abiFALSE", "2.8.0+cu128", False),  # pre-C++11 ABI on an ABI=1 torch
        ("2.7.4.post1+cu12torch2.6cxx11abiFALSE", "2.6.0+cu124", True),
        ("2.7.4.post1+cu12torch2.6cxx11abiFALSE", "2.6.0+cu126", False),  # cu126 switched ABI (pytorch#152790)
        ("2.5.9.post1+cu122torch2.3cxx11abiFALSE", "2.3.1+cu121", True),
        ("2.8.3", "2.8.0+cu128", True),  # no label: nothing recorded
    ],
)
def test_flash_attn_labels_both_ways(version: str, torch: str, ok: bool) -> None:
    found = problems(H100, f"torch={torch}", f"lib.flash-attn={version}")
    assert (found == []) is ok, found


def test_abi_label_with_unknown_torch_abi_is_not_judged() -> None:
    # torch 2.5.1+rocm6.2: no known wheel ABI; only the series is compared
    assert problems(MI300X, "torch=2.5.1+rocm6.2", "lib.flash-attn=2.6.3+rocm62torch2.5cxx11abiTRUE") == []
    found = problems(MI300X, "torch=2.5.1+rocm6.2", "lib.flash-attn=2.6.3+rocm62torch2.4cxx11abiTRUE")
    assert len(found) == 1 and "built for torch 2.4" in found[0]


def test_probed_abi_wins_over_the_wheel_rule() -> None:
    labelled = "lib.flash-attn=2.8.3+cu12torch2.8cxx11abiFALSE"
    assert problems(H100, "torch=2.8.0+cu128", labelled)  # official 2.8 wheels: C++11 ABI
    assert problems(H100, "torch=2.8.0+cu128", "torch_cxx11_abi=0", labelled) == []  # e.g. a source build
    env = apply_overrides(H100, ["torch_cxx11_abi=false"])
    assert env.torch_cxx11_abi is False and Environment.from_json(env.to_json()) == env
    assert apply_overrides(env, ["torch=2.9.0+cu128"]).torch_cxx11_abi is None  # another torch: derived again


@pytest.mark.parametrize(
    ("version", "torch", "ok"),
    [
        ("2.1.2+pt23cu121", "2.3.1+cu121", True),
        ("2.1.2+pt23cu121", "2.4.0+cu121", False),
        ("0.6.18+pt113cu117", "1.13.1+cu117", True),
        ("0.6.18+pt113cu117", "2.0.1+cu117", False),
    ],
)
def test_pyg_labels_both_ways(version: str, torch: str, ok: bool) -> None:
    found = problems(H100, f"torch={torch}", f"lib.torch-scatter={version}")
    assert (found == []) is ok, found


# ---- the GPU runtime a label names: another CUDA/ROCm major than torch's --------------------------
@pytest.mark.parametrize(
    ("env", "torch", "lib", "expected"),
    [
        ("H100", "2.1.0+cu121", "torchvision=0.16.0+cu118", "built for CUDA 11"),  # libcudart.so.11 missing
        ("H100", "2.1.0+cu118", "torchvision=0.16.0+cu121", "built for CUDA 12"),
        ("H100", "2.3.1+cu118", "torch-scatter=2.1.2+pt23cu121", "built for CUDA 12"),  # PyG: series right, CUDA not
        ("H100", "2.8.0+cu128", "flash-attn=2.8.3+cu12torch2.8cxx11abiTRUE", None),  # CUDA 12 both
        ("H100", "2.1.0+cu121", "torchvision=0.16.0+cu121", None),
        ("H100", "2.1.0+cu121", "torchvision=0.16.0+cpu", "built for the CPU only"),  # no CUDA kernels (a risk)
        ("H100", "2.1.0", "torchvision=0.16.0+cu118", "built for CUDA 11"),  # untagged: the cu121 PyPI wheel
        ("H100", "2.1.0a0+git32f93b1", "torchvision=0.16.0+cu118", None),  # a source/NGC torch: not judged
        ("MI300X", "2.1.0+rocm6.0", "torchvision=0.16.0+rocm5.6", "built for ROCm 5"),  # libamdhip64.so.5
        ("MI300X", "2.5.1+rocm6.2", "flash-attn=2.6.3+rocm62torch2.5cxx11abiTRUE", None),
        ("MI300X", "2.5.1+rocm6.2", "torchvision=0.20.1+rocm6.1", None),  # same major
        # torchvision before 0.16 refuses another CUDA minor too (pytorch/vision#7726): the 2023 Colab class
        ("H100", "2.0.1+cu117", "torchvision=0.15.2+cu118", "built for CUDA 11.8"),
        ("H100", "2.2.0+cu121", "torchvision=0.17.0+cu118", "built for CUDA 11"),  # 0.16+: the major only
        ("H100", "2.2.0+cu118", "torchvision=0.17.0+cu117", None),
        ("H100", "2.0.1+cu117", "torchaudio=2.0.2+cu118", "built for CUDA 11.8"),  # before pytorch/audio#4226
        ("H100", "2.0.1+cu117", "xformers=0.0.20+cu118", None),  # others: the major only
    ],
)
def test_another_gpu_runtime_major_both_ways(env: str, torch: str, lib: str, expected: str | None) -> None:
    found = problems(H100 if env == "H100" else MI300X, f"torch={torch}", f"lib.{lib}")
    if expected is None:
        assert found == [], found
    else:
        (reason,) = found
        assert expected in reason and (
            "does not bring" in reason
            or "refuses a torch built with another CUDA" in reason
            or "have no CUDA kernels" in reason  # a CPU build (test_extension_cpu_build.py)
        )


def test_the_missing_runtime_library_is_the_predicted_failure() -> None:
    from pytest_rocmcompat.knowledge.rules.signature import compile_signature

    signature = compile_signature(extension_torch.PREDICTS)
    # ROCm/legacy-rocm-build#1753, ROCm/TheRock#1119 (verbatim)
    assert signature.search("ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory")
    assert signature.search("ImportError: libamdhip64.so.7: cannot open shared object file: No such file or directory")
    # torchvision's extension.py _check_cuda_version (v0.16.0), verbatim
    assert signature.search(
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions."
    )
    assert not signature.search("OSError: libgomp.so.1: cannot open shared object file: No such file or directory")


def test_official_cxx11_abi() -> None:
    assert official_cxx11_abi("2.7.0+cu128") and official_cxx11_abi("2.11.0+cu130")
    assert official_cxx11_abi("2.9.0+rocm6.4") is True
    assert official_cxx11_abi("2.6.0+cu126") is True and official_cxx11_abi("2.6.0+cu124") is False
    assert official_cxx11_abi("2.3.1+cu121") is False
    for unknown in ("2.4.0", "2.5.1+rocm6.2", "2.7.0.dev20250101+cu126", "2.6.0a0+ecf3bae40a.nv25.01"):
        assert official_cxx11_abi(unknown) is None, unknown


def test_built_for_ignores_unparseable_versions() -> None:
    assert built_for("flash-attn", "not a version", "2.8.0", True) == []
    assert built_for("torchao", "0.16.0", None, None) == []


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_bad_abi_override_is_a_clear_error(value: str) -> None:
    with pytest.raises(OverrideError, match=r"torch_cxx11_abi.*expected 1/true or 0/false"):
        apply_overrides(H100, [f"torch_cxx11_abi={value}"])


def test_recorded_real_environments_have_no_extension_problem() -> None:
    for env in (H100, Environment.load(str(DATA / "env_h100_live.json")), CPU_ENV):
        assert [f for f in evaluate(env) if f.check == extension_torch.ID] == []


# ---- the probe reads the label from a real dist-info ---------------------------------------------
def _dist_info(root: Path, name: str, version: str, wheel: str | None) -> Path:
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if wheel is not None:
        url = f"https://github.com/Dao-AILab/flash-attention/releases/download/v{version}/{wheel}"
        (info / "direct_url.json").write_text(json.dumps({"url": url, "archive_info": {}}))
    return info


@pytest.mark.parametrize(
    ("wheel", "expected"),
    [
        (
            "flash_attn-2.8.3%2Bcu12torch2.8cxx11abiFALSE-cp311-cp311-linux_x86_64.whl",
            "2.8.3+cu12torch2.8cxx11abifalse",
        ),
        ("flash_attn-2.8.3+cu12torch2.7cxx11abiTRUE-cp311-cp311-linux_x86_64.whl", "2.8.3+cu12torch2.7cxx11abitrue"),
        (
            "flash_attn-2.8.2+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl",
            "2.8.3",
        ),  # another version: not ours
        ("flash_attn-2.8.3.tar.gz", "2.8.3"),  # an sdist: no label
        ("not a wheel name", "2.8.3"),
        (None, "2.8.3"),  # installed from the index: no direct_url.json
    ],
)
def test_label_from_direct_url(tmp_path: Path, wheel: str | None, expected: str) -> None:
    info = _dist_info(tmp_path, "flash-attn", "2.8.3", wheel)
    assert _with_build_label(metadata.PathDistribution(info), "2.8.3") == expected


def test_corrupt_direct_url_keeps_the_metadata_version(tmp_path: Path) -> None:
    info = _dist_info(tmp_path, "flash-attn", "2.8.3", None)
    for text in ("{not json", "[1, 2]", '{"url": 5}', "\udcff"):
        (info / "direct_url.json").write_text(text, errors="surrogateescape")
        assert _with_build_label(metadata.PathDistribution(info), "2.8.3") == "2.8.3"


def test_probe_reports_the_problem_of_an_installed_labelled_wheel(tmp_path: Path) -> None:
    """A real ``rocmcompat probe`` in a subprocess whose sys.path holds a flash-attn wheel's dist-info."""
    site = tmp_path / "site"
    import torch

    series = ".".join(torch.__version__.split(".")[:2])
    other = f"2.{int(series.split('.')[1]) - 1}"
    _dist_info(
        site, "flash-attn", "2.8.3", f"flash_attn-2.8.3+cu12torch{other}cxx11abiTRUE-cp311-cp311-linux_x86_64.whl"
    )
    env = dict(os.environ, PYTHONPATH=str(site), ROCMCOMPAT_CACHE_DIR="off")
    out = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "probe", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    recorded = Environment.from_json(out.stdout)
    assert recorded.libraries["flash-attn"] == f"2.8.3+cu12torch{other}cxx11abitrue"
    assert recorded.torch_cxx11_abi is torch._C._GLIBCXX_USE_CXX11_ABI  # probed, not derived
    text = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "probe"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "[extension-built-for-other-torch] flash-attn 2.8.3+cu12torch" in text and f"built for torch {other}" in text


# ---- end to end through pytest ------------------------------------------------------------------
TESTS = """
import pytest

@pytest.mark.uses("torchao")
def test_int4_recipe():
    # the kernels of a torchao built for another torch are missing (what the check predicts)
    raise AttributeError("'_OpNamespace' 'torchao' object has no attribute 'unpack_tensor_core_tiled_layout'")

@pytest.mark.uses("torchao")
def test_torchao_python_only():
    pass

def test_unrelated():
    raise AssertionError("a real bug")
"""


@pytest.mark.parametrize(
    ("torch", "outcomes", "rules"),
    [
        (
            "2.9.1+cu128",
            {"xfailed": 1, "xpassed": 1, "failed": 1},
            {
                "test_int4_recipe": "extension-built-for-other-torch",
                "test_torchao_python_only": "extension-built-for-other-torch",
            },
        ),
        ("2.10.0+cu128", {"passed": 1, "failed": 2}, {}),
    ],
)
def test_end_to_end_both_ways(pytester: pytest.Pytester, torch: str, outcomes: dict, rules: dict) -> None:
    (pytester.path / "env.json").write_text(H100.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=TESTS)
    result = pytester.runpytest(
        "--rocm-env",
        "env.json",
        "--rocm-set",
        f"torch={torch}",
        "--rocm-set",
        "lib.torchao=0.16.0",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        "junit.xml",
    )
    result.assert_outcomes(**outcomes)
    assert _junit_rules(pytester) == rules
    if rules:
        result.stdout.fnmatch_lines(["rocmcompat:   [[]extension-built-for-other-torch] torchao 0.16.0 is built for*"])

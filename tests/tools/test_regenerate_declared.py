"""tools/regenerate_declared.py on recorded PyPI responses (tests/tools/fixtures): no network."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tools import regenerate_declared as rd

FIXTURE = Path(__file__).parent / "fixtures" / "pypi"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The script run for real (a subprocess, offline), as a maintainer runs it."""
    out = tmp_path_factory.mktemp("data") / "declared.json"
    proc = subprocess.run(
        [
            sys.executable,
            "tools/regenerate_declared.py",
            "--offline",
            str(FIXTURE),
            "--packages",
            "torch,vllm,flash-attn,bitsandbytes",
            "--date",
            "2026-11-26",
            "--since",
            "2023-01-01",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "6 releases of 4 packages" in proc.stdout
    return json.loads(out.read_text(encoding="utf-8"))


def test_stamped_with_date_and_sources(generated: dict) -> None:
    assert generated["generated"] == "2026-11-26" and generated["since"] == "2023-01-01"
    assert generated["index"] == "https://pypi.org/pypi/{name}/json"
    assert "PEP 658" in generated["metadata"]


def test_releases_before_the_start_are_left_out(generated: dict) -> None:
    assert list(generated["packages"]["torch"]) == ["2.5.1"]  # 1.13.1 was uploaded in December 2022


def test_torch_pins_from_pep658_metadata(generated: dict) -> None:
    torch = generated["packages"]["torch"]["2.5.1"]
    assert torch["from"] == "torch-2.5.1-cp310-cp310-manylinux1_x86_64.whl.metadata"
    assert 'nvidia-nccl-cu12==2.21.5; platform_system == "Linux" and platform_machine == "x86_64"' in torch["requires"]
    assert any(r.startswith("triton==3.1.0;") and 'python_version < "3.13"' in r for r in torch["requires"])
    assert not any(r.startswith(("sympy", "filelock", "jinja2")) for r in torch["requires"])  # only kept names
    assert torch["platforms"] == ["macosx_11_0_arm64", "manylinux1_x86_64", "manylinux2014_aarch64", "win_amd64"]
    assert torch["python"] == ["cp310"] and "local" not in torch


def test_wheel_read_by_byte_ranges_where_no_metadata_file(generated: dict) -> None:
    vllm = generated["packages"]["vllm"]["0.4.2"]
    assert vllm["from"].endswith("METADATA (zip directory by byte ranges)")
    assert "torch==2.3.0" in vllm["requires"] and "xformers==0.0.26.post1" in vllm["requires"]
    assert vllm["python"] == ["cp38", "cp39", "cp310", "cp311"]


def test_vllm_exact_pin_with_marker(generated: dict) -> None:
    vllm = generated["packages"]["vllm"]["0.6.3.post1"]
    assert "torch==2.4.0" in vllm["requires"] and "numpy<2.0.0" in vllm["requires"]
    assert 'xformers==0.0.27.post2; platform_system == "Linux" and platform_machine == "x86_64"' in vllm["requires"]
    assert vllm["python"] == ["cp38-abi3"]


def test_sdists(generated: dict) -> None:
    old = generated["packages"]["vllm"]["0.1.0"]
    assert old["requires"] is None and "requirements not published" in old["from"]
    flash = generated["packages"]["flash-attn"]["2.8.3"]
    assert flash["requires"] == ["torch"]  # declared, without a version: no torch pin
    assert flash["from"] == "flash_attn-2.8.3.tar.gz PKG-INFO" and flash["platforms"] == []
    assert flash["sdist"] is True and "sdist" not in generated["packages"]["torch"]["2.5.1"]


def test_native_libraries_of_a_wheel_read_from_its_zip_directory(generated: dict) -> None:
    bnb = generated["packages"]["bitsandbytes"]["0.42.0"]
    assert bnb["from"] == "bitsandbytes-0.42.0-py3-none-any.whl METADATA (zip directory by byte ranges)"
    assert bnb["native"][0] == "libbitsandbytes_cpu.so" and len(bnb["native"]) == 21
    assert {"libbitsandbytes_cuda118.so", "libbitsandbytes_cuda123_nocublaslt.so"} <= set(bnb["native"])
    assert "libbitsandbytes_cuda124.so" not in bnb["native"] and "libbitsandbytes_cuda113.so" not in bnb["native"]
    assert all("native" not in e for name in ("torch", "vllm") for e in generated["packages"][name].values())


def test_committed_data_was_made_by_the_same_code(generated: dict) -> None:
    committed = json.loads(rd.OUT.read_text(encoding="utf-8"))
    for name, releases in generated["packages"].items():
        for version, entry in releases.items():
            kept = committed["packages"][name][version]  # the fixture's torch files are a subset: tags differ
            assert (kept["requires"], kept["from"], kept["date"]) == (entry["requires"], entry["from"], entry["date"])
            assert kept.get("native") == entry.get("native")


def test_wheel_facts_read_local_labels_and_abi_tags() -> None:
    facts = rd.wheel_facts(
        [
            "torch-2.5.1+rocm6.2-cp310-cp310-linux_x86_64.whl",
            "torch-2.5.1+cu121-cp312-cp312-win_amd64.whl",
            "xformers-0.0.23-cp39-abi3-manylinux2014_x86_64.whl",
            "not-a-wheel.tar.gz",
        ]
    )
    assert facts == {
        "python": ["cp39-abi3", "cp310", "cp312"],
        "platforms": ["linux_x86_64", "manylinux2014_x86_64", "win_amd64"],
        "local": ["cu121", "rocm6.2"],
        "sdist": True,
    }
    assert "sdist" not in rd.wheel_facts(["torch-2.5.1-cp310-cp310-manylinux1_x86_64.whl"])


def test_kept_requirements_normalise_and_filter() -> None:
    kept = rd.kept_requirements(["Torch (>=2.0)", "nvidia_nccl_cu12==2.21.5", "einops", "not a requirement ;;"])
    assert kept == ["Torch>=2.0", "nvidia_nccl_cu12==2.21.5"]


def test_an_integration_extra_is_kept_and_other_extras_are_not() -> None:
    """``trl[vllm]`` pins the vLLM its integration works with; ``unsloth[cu121-torch240]`` is a build choice."""
    kept = rd.kept_requirements(
        [
            'vllm<0.12.0,>=0.10.2; extra == "vllm"',
            "sglang[openai,srt]==0.5.8; extra == 'sglang'",
            'xformers==0.0.27; extra == "cu121-torch240"',  # named after no package
            'vllm>=0.8; extra == "all"',
            'deepspeed; extra == "deepspeed"',  # no version: nothing to judge
            'vllm>=0.8; extra == "vllm" and python_version >= "3.10"',  # another condition beside the extra
            'einops>=0.8; extra == "einops"',  # a package the data does not keep
        ]
    )
    assert kept == ['vllm<0.12.0,>=0.10.2; extra == "vllm"', 'sglang[openai,srt]==0.5.8; extra == "sglang"']


def test_a_missing_project_is_an_error_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "declared.json"
    code = rd.main(["--offline", str(FIXTURE), "--packages", "no-such-package", "--out", str(out)])
    assert code == 2 and not out.exists()


def test_a_page_that_is_not_json_names_its_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = rd.saved_path(tmp_path, rd.INDEX.format(name="broken"), None)
    page.parent.mkdir(parents=True)
    page.write_text("<html>rate limited</html>", encoding="utf-8")
    assert rd.main(["--offline", str(tmp_path), "--packages", "broken", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "https://pypi.org/pypi/broken/json: not JSON" in err and "Traceback" not in err

"""The report tests' shared project: a small suite run for real as three matrix cells."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import CPU_ENV, MI50_ENV, MI300_ENV, REPO

MATRIX = """
name: ReportMatrix
platform: rocm
arch: [gfx906, gfx942]
axes:
  torch: ["2.4", "2.5"]
  python: ["3.12"]
known_bad:
  - id: gfx906-fault
    when: {arch: gfx906, torch: "==2.5.1", torch_rocm: "==6.2.*"}
    applies_to: {markers: [gpus]}
    action: skip
    reason: memory access fault on any GPU op
    links: [https://example.invalid/fault]
  - id: int1
    when: {libraries: {torchao: ">=0.7"}}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "module 'torch' has no attribute 'int1'"
    reason: torchao needs torch.int1
    links: [https://example.invalid/int1]
"""

FILES = {
    "pytest.ini": "[pytest]\n",
    "suites/gpu/test_gpu.py": """
        import pytest

        @pytest.mark.gpus(1)
        def test_gpu_op():
            pass

        def test_gemm(rocm_env, rocm_measure):
            value = 650.0 if rocm_env.platform == "rocm" and len(rocm_env.gpus) == 8 else 120.0
            rocm_measure("gemm_bf16_tflops", value, floor=300.0, peak=1307.0, detail="4096^3")
        """,
    "suites/collectives/test_coll.py": """
        def test_allreduce_sizes(rocm_env, rocm_measure):
            scale = 2.0 if len(rocm_env.gpus) == 8 else 1.0
            for size, bw in (("1 MiB", 20.0), ("64 MiB", 150.0)):
                rocm_measure("allreduce_busbw_gbps", bw * scale, detail=size)
                rocm_measure(f"allgather_busbw_gbps@{size.replace(' ', '')}", bw * scale / 2, "GB/s",
                             detail=f"{size} bf16")
        """,
    "suites/libs/test_torchao.py": """
        import pytest

        @pytest.mark.uses("torchao")
        def test_int1_error():
            raise AttributeError("module 'torch' has no attribute 'int1'")

        @pytest.mark.uses("torchao")
        def test_other_error():
            raise RuntimeError("something else | <entirely> & more")

        @pytest.mark.uses("torchao")
        def test_passes_now():
            pass

        def test_own_xfail():
            pytest.xfail("the test's own xfail")
        """,
    "tests/test_misc.py": """
        import os
        import pytest

        def test_plain():
            pass

        class TestGroup:
            def test_in_class(self):
                pass

        @pytest.mark.isolated(timeout=60)
        def test_crash(rocm_env):
            if len(rocm_env.gpus) == 8:
                os.abort()
        """,
}

CELLS = {"mi50": MI50_ENV, "mi300": MI300_ENV, "cpu": CPU_ENV}
SECRET = "hf_" + "A1b2C3d4E5f6G7h8I9j0K1l2"


def make_project(root: Path) -> None:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    (root / "matrix.yaml").write_text(MATRIX, encoding="utf-8")
    for name, env in CELLS.items():
        cell_env = replace(env, env={"HIP_VISIBLE_DEVICES": "0", "MY_TOKEN": SECRET})
        (root / f"{name}.json").write_text(cell_env.to_json(), encoding="utf-8")


def run_cell(
    root: Path, cell: str, *extra: str, junit: str | None = None, environ: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """A real pytest run of the plugin over the project, writing ``<cell>.xml``."""
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--rocm-matrix",
        "matrix.yaml",
        "--rocm-env",
        f"{cell}.json",
        f"--junitxml={junit or cell + '.xml'}",
        *extra,
    ]
    env = dict(environ if environ is not None else os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("GITHUB_STEP_SUMMARY", None) if environ is None else None
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def cell_runs(tmp_path_factory) -> Path:
    """Three cells (MI50 and MI300 replays, CPU replay) run for real; their JUnit files."""
    root = tmp_path_factory.mktemp("cells")
    make_project(root)
    for cell in CELLS:  # the GPU cells with torchao set by hand (an override), the CPU cell a plain replay
        result = run_cell(root, cell, *(() if cell == "cpu" else ("--rocm-set", "lib.torchao=0.7.0")))
        assert (root / f"{cell}.xml").is_file(), result.stdout + result.stderr
    return root

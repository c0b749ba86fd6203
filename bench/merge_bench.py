"""Time ``rocmcompat report`` merging 1,000 JUnit files of 200 tests each (target: at most 10 s).

The files come from one real plugin run: a 200-test project (passes, failures, rule
skips, known-bad xfails, stale rules, ``uses`` markers, ``rocm_measure`` figures at
several sizes, three suites) run with ``--junitxml`` under a replayed MI300X
environment. That file is copied 1,000 times with the environment's torch, Python
and library versions varied (so the merge sees ~1,000 distinct cells, its worst
case), then merged as a real subprocess writing Markdown, HTML and JSON, ``--reps``
times; the median wall time is reported. With ``--profile`` it also profiles one
in-process merge with cProfile and prints the top functions.

    python bench/merge_bench.py [--files 1000] [--reps 3] [--profile] [--out .bench/merge.json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, machine

sys.path.insert(0, str(REPO))

from pytest_rocmcompat.stack.environment import GPU, Environment

ENV = Environment(
    platform="rocm",
    python="3.12.3",
    torch="2.5.1+rocm6.2",
    hip="6.2.41133-dd7f95766",
    rocm="6.2.4",
    gpus=tuple(GPU(i, "AMD Instinct MI300X", "gfx942", 206141652992, "amd") for i in range(8)),
    libraries={"torch": "2.5.1+rocm6.2", "torchao": "0.7.0", "peft": "0.13.2"},
)
MATRIX = """
name: Bench
platform: rocm
arch: [gfx942]
axes:
  torch: ["2.5"]
known_bad:
  - id: int1
    when: {libraries: {torchao: ">=0.7"}}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "no attribute 'int1'"
    reason: torchao needs torch.int1
    links: [https://example.invalid/int1]
  - id: gpu-skip
    when: {platform: rocm}
    applies_to: {nodeids: ["*test_skipme*"]}
    action: skip
    reason: skipped by rule
"""
SUITE = """
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_pass(i):
    pass

@pytest.mark.parametrize("i", range(5))
def test_fail(i):
    assert i < 0, "a failure with | and <angle> & ampersand"

@pytest.mark.parametrize("i", range(5))
def test_skipme(i):
    pass

@pytest.mark.uses("torchao")
@pytest.mark.parametrize("i", range(5))
def test_int1(i):
    raise AttributeError("module 'torch' has no attribute 'int1'")

@pytest.mark.uses("torchao")
def test_stale():
    pass

@pytest.mark.parametrize("size", ["1 MiB", "16 MiB", "256 MiB"])
def test_measured(size, rocm_measure):
    rocm_measure("allreduce_busbw_gbps", 100.0, detail=size)
"""


def make_source(root: Path) -> Path:
    """One real JUnit file of 200 tests (3 suites) from a plugin run."""
    per_suite = [66, 66, 68]
    counts = {"gpu": per_suite[0], "collectives": per_suite[1], "libs": per_suite[2]}
    for suite, total in counts.items():
        path = root / "suites" / suite / f"test_{suite}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SUITE.replace("{n}", str(total - 19)), encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "m.yaml").write_text(MATRIX, encoding="utf-8")
    (root / "env.json").write_text(ENV.to_json(), encoding="utf-8")
    out = root / "source.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rocm-matrix",
            "m.yaml",
            "--rocm-env",
            "env.json",
            f"--junitxml={out}",
            "suites",
        ],
        cwd=root,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
    )
    n = (out.read_text(encoding="utf-8")).count("<testcase ")
    assert n == 200, f"expected 200 testcases, got {n}"
    return out


def make_files(source: Path, target: Path, n: int) -> list[Path]:
    """``n`` copies, each a different cell (torch / python / peft versions varied)."""
    text = source.read_text(encoding="utf-8")
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        varied = re.sub(r'(name="rocm_env.torch" value=")[^"]*', rf"\g<1>2.{5 + i % 10}.{i // 10 % 10}+rocm6.2", text)
        varied = re.sub(r'(name="rocm_env.python" value=")[^"]*', rf"\g<1>3.{10 + i % 4}.{i % 7}", varied)
        varied = re.sub(r'(name="rocm_lib.peft" value=")[^"]*', rf"\g<1>0.{i // 100}.{i % 100}", varied)
        path = target / f"cell-{i:04d}.xml"
        path.write_text(varied, encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out", default=str(REPO / ".bench" / "merge.json"))
    parser.add_argument("--keep", help="keep the generated files in this directory")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="merge-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        source = make_source(work / "project")
        files = make_files(source, work / "junit", args.files)
        size = sum(p.stat().st_size for p in files)
        cmd = [
            sys.executable,
            "-m",
            "pytest_rocmcompat",
            "report",
            str(work / "junit"),
            "-o",
            str(work / "C.md"),
            "--html",
            str(work / "C.html"),
            "--json",
            str(work / "C.json"),
        ]
        times = []
        for _ in range(args.reps):
            start = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
            times.append(time.perf_counter() - start)
            assert done.returncode == 0, done.stderr
        cells = len(json.loads((work / "C.json").read_text(encoding="utf-8"))["cells"])
        times.sort()
        result = {
            "machine": machine(),
            "files": len(files),
            "tests_per_file": 200,
            "bytes": size,
            "cells": cells,
            "wall_s": times,
            "median_s": times[len(times) // 2],
            "target_s": 10.0,
        }
        print(
            f"{len(files)} files x 200 tests ({size / 2**20:.1f} MiB), {cells} cells: "
            f"median {result['median_s']:.2f} s over {args.reps} runs (target 10 s); all {times}"
        )
        if args.profile:
            from pytest_rocmcompat.cli.main import main as cli_main

            prof = cProfile.Profile()
            prof.enable()
            cli_main(
                [
                    "report",
                    str(work / "junit"),
                    "-o",
                    str(work / "P.md"),
                    "--json",
                    str(work / "P.json"),
                    "--html",
                    str(work / "P.html"),
                ]
            )
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(18)
            pstats.Stats(prof).sort_stats("tottime").print_stats(12)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

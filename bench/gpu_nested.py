"""Nested pytest sessions on a real GPU host (issue 23): an outer ``pytest -n 4`` whose tests start
``pytest -n 2`` and a serial ``pytest`` on an inner suite that uses the GPU, from a ``gpus(1)``
test (which holds the GPU while its children run on it) and from an unmarked one.

Passes when every outer test passes well inside the time limit (a nested session that waited on
a lock its ancestor holds would only end by that limit). Prints one JSON line with wall times.

    python bench/gpu_nested.py [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INNER = """
import pytest, torch

@pytest.mark.gpus(1)
@pytest.mark.parametrize("i", range(4))
def test_gpu_matmul(i):
    x = torch.ones(1024, 1024, device="cuda")
    assert float((x @ x).sum()) == 1024.0 ** 3

@pytest.mark.parametrize("i", range(4))
def test_cpu(i):
    assert sum(range(10)) == 45
"""

OUTER = """
import os, subprocess, sys, time, pytest

INNER = os.path.join(os.path.dirname(__file__), "..", "inner")

def _pytest(*args):
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", INNER, "-q", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "8 passed" in proc.stdout, proc.stdout[-2000:]
    return time.monotonic() - start

@pytest.mark.gpus(1)
def test_gpu_test_starts_pytest_n2():
    import torch
    x = torch.ones(8, device="cuda")  # this test uses the GPU itself, then its children do
    assert float(x.sum()) == 8.0
    _pytest("-n", "2")

@pytest.mark.gpus(1)
def test_gpu_test_starts_serial_pytest():
    _pytest()

def test_unmarked_test_starts_pytest_n2():
    _pytest("-n", "2")

def test_unmarked_test_starts_serial_pytest():
    _pytest()

@pytest.mark.parametrize("i", range(8))
def test_cpu(i):
    time.sleep(0.5)
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "inner").mkdir()
        (root / "outer").mkdir()
        (root / "inner" / "test_inner.py").write_text(INNER)
        (root / "outer" / "test_outer.py").write_text(OUTER)
        (root / "pytest.ini").write_text("[pytest]\n")
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "outer", "-n", "4", "-q", "-p", "no:cacheprovider", "-rfE"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=500,
        )
        wall = time.monotonic() - start
    result = {"exit": proc.returncode, "wall_s": round(wall, 1), "tail": proc.stdout[-1500:]}
    print(json.dumps(result))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

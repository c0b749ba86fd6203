"""tools/distro_glibc.py on a small pep600_compliance-like tree: each fixed release's glibc, under our names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from pytest_rocmcompat.knowledge import distro_glibc
from tools import distro_glibc as tool


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "pep600"
    cache = repo / "cache" / "x86_64"
    cache.mkdir(parents=True)
    for name, glibc in {
        "ubuntu-20.04": "2.31",
        "rhubi-8": "2.28",
        "rockylinux-9": "2.34",
        "centos-stream9": "2.34",
        "debian-testing": "2.42",  # rolling: no fixed glibc
        "manylinux-2014": "2.17",  # a build image, not a distribution
    }.items():
        (cache / f"{name}.json").write_text(json.dumps({"glibc_version": glibc, "symbols": {}}), encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return repo


def test_fixed_releases_under_our_names(tmp_path: Path) -> None:
    assert tool.table(_repo(tmp_path)) == {
        ("centos", "8"): "2.28",  # RHEL's UBI stands for RHEL and CentOS
        ("centos-stream", "9"): "2.34",
        ("rhel", "8"): "2.28",
        ("rocky", "9"): "2.34",
        ("ubuntu", "20.04"): "2.31",
    }


def test_the_committed_table_reads_as_generated_rows() -> None:
    assert distro_glibc.GLIBC[("ubuntu", "20.04")] == "2.31" and distro_glibc.GLIBC[("centos", "7")] == "2.17"
    assert all(g.startswith("2.") for g in distro_glibc.GLIBC.values())

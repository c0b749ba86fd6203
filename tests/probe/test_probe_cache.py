"""The live probe's result is kept between runs as JSON, keyed by what can change it (issue 18.9)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.probe.cache import cached_probe, probe_key


def _environ(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "ROCMCOMPAT_CACHE_DIR": str(tmp_path / "cache"), **extra}


def test_key_follows_what_the_probe_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "rocm"
    (root / ".info").mkdir(parents=True)
    (root / ".info" / "version").write_text("6.2.4-120\n")
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    environ = _environ(tmp_path, ROCM_PATH=str(root))
    first = probe_key((), environ)
    assert probe_key((), dict(environ)) == first  # stable
    assert probe_key((), {**environ, "HIP_VISIBLE_DEVICES": "1"}) != first  # a GPU-stack variable
    assert probe_key((), {**environ, "UNRELATED_VAR": "x"}) == first  # not one the probe reads
    assert probe_key(("vllm",), environ) != first  # the matrix asks about another library
    (root / ".info" / "version").write_text("6.3.0-1\n")  # a ROCm upgrade
    second = probe_key((), environ)
    assert second != first
    (site / "torch-2.14.0.dist-info").mkdir()  # a package installed into a sys.path folder
    os.utime(site, ns=(1, 1))  # (mtime resolution of the test's file system aside)
    assert probe_key((), environ) != second


def test_second_probe_is_read_back_fresh_replaces_off_disables(tmp_path: Path) -> None:
    environ = _environ(tmp_path)
    env, cached = cached_probe((), environ=environ)
    assert not cached
    stored = list((tmp_path / "cache" / "probe").glob("*.json"))
    assert len(stored) == 1 and json.loads(stored[0].read_text())["platform"] == env.platform
    assert oct((tmp_path / "cache" / "probe").stat().st_mode & 0o777) == oct(0o700)
    again, cached = cached_probe((), environ=environ)
    assert cached and again == env
    stored[0].write_text(stored[0].read_text().replace(f'"python": "{env.python}"', '"python": "9.9.9"'))
    assert cached_probe((), environ=environ)[0].python == "9.9.9"  # really read from the file
    fresh, cached = cached_probe((), fresh=True, environ=environ)
    assert not cached and fresh.python == env.python
    assert cached_probe((), environ=environ)[0].python == env.python  # fresh replaced the entry
    stored[0].write_text("{not json")
    assert cached_probe((), environ=environ) == (env, False)  # a broken entry: probed live again
    off = _environ(tmp_path, ROCMCOMPAT_CACHE_DIR="off")
    assert cached_probe((), environ=off)[1] is False


def test_entry_in_a_folder_others_can_write_is_not_trusted(tmp_path: Path) -> None:
    environ = _environ(tmp_path)
    cached_probe((), environ=environ)
    folder = tmp_path / "cache" / "probe"
    folder.chmod(0o777)
    assert cached_probe((), environ=environ)[1] is False


def test_header_says_cached_and_fresh_probes_again(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROCMCOMPAT_CACHE_DIR", str(tmp_path / "cache"))
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    first = pytester.runpytest_subprocess("--rocm-no-bundled")
    second = pytester.runpytest_subprocess("--rocm-no-bundled")
    fresh = pytester.runpytest_subprocess("--rocm-no-bundled", "--rocm-probe=fresh")
    assert first.ret == second.ret == fresh.ret == 0
    assert "probe cached" not in first.stdout.str()
    second.stdout.fnmatch_lines(["rocmcompat: platform=* (probe cached: --rocm-probe=fresh probes again)"])
    assert "probe cached" not in fresh.stdout.str()

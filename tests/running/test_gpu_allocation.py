"""GPU allocation under pytest-xdist: pinned slices, lock files, borrowing for gpus(n) > slice.

Real xdist workers and real lock files; the GPUs are a replayed 4-GPU ROCm node (no GPU
here), so what is checked is what each test was given to see and when it ran.
"""

from __future__ import annotations

import json
import threading
import time
from itertools import combinations

import pytest

from pytest_rocmcompat.running.gpu_locks import borrowed_set, holding
from pytest_rocmcompat.stack.environment import GPU, Environment

FOUR_GPUS = Environment(
    platform="rocm",
    python="3.12.3",
    torch="2.6.0+rocm6.3",
    rocm="6.3.1",
    gpus=tuple(GPU(i, "AMD Instinct MI300X", "gfx942", 206141652992, "amd") for i in range(4)),
)


def test_borrowed_set_takes_own_devices_first_in_global_order() -> None:
    assert borrowed_set(["2"], ["0", "1", "2", "3"], 2) == ["0", "2"]
    assert borrowed_set(["2", "3"], ["0", "1", "2", "3"], 3) == ["0", "2", "3"]
    assert borrowed_set(["1"], ["0", "1"], 1) == ["1"]


def test_locks_exclude_each_other_and_release(tmp_path) -> None:
    order = ["0", "1", "2"]
    events: list[str] = []
    with holding(str(tmp_path), ["1"], order):
        t = threading.Thread(target=lambda: _take(tmp_path, order, events))
        t.start()
        time.sleep(0.3)
        events.append("first releases")
    t.join(10)
    assert events == ["first releases", "second holds 0,1"]


def _take(tmp_path, order, events) -> None:
    with holding(str(tmp_path), ["1", "0"], order):  # reversed on purpose: taken in global order
        events.append("second holds 0,1")


def test_gpus_tests_never_share_a_gpu_under_xdist(pytester: pytest.Pytester) -> None:
    """-n 4 on a replayed 4-GPU node: gpus(2) tests borrow a second GPU; no GPU is used twice at once."""
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    log = pytester.path / "log.jsonl"
    pytester.makepyfile(f"""
        import json, os, time, pytest
        def record(name, seconds):
            start = time.time()
            time.sleep(seconds)
            line = json.dumps({{"test": name, "devices": os.environ["HIP_VISIBLE_DEVICES"],
                               "start": start, "end": time.time()}})
            with open({str(log)!r}, "a") as fh:
                fh.write(line + "\\n")
        @pytest.mark.gpus(1)
        @pytest.mark.parametrize("i", range(8))
        def test_one(i):
            record(f"one{{i}}", 0.3)
        @pytest.mark.gpus(2)
        def test_two_a():
            record("two_a", 0.6)
        @pytest.mark.gpus(2)
        def test_two_b():
            record("two_b", 0.6)
        @pytest.mark.gpus(9)
        def test_nine():
            pass
    """)
    result = pytester.runpytest_subprocess(
        "-n", "4", "--rocm-env", "env.json", "--rocm-no-bundled", "-rs", "-p", "no:cacheprovider", timeout=240
    )
    assert result.parseoutcomes() == {"passed": 10, "skipped": 1}, result.stdout.str()
    result.stdout.fnmatch_lines(["*needs 9 GPU(s), this environment has 4*"])
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 10
    sizes = {r["test"]: len(r["devices"].split(",")) for r in runs}
    assert sizes["two_a"] == sizes["two_b"] == 2 and all(sizes[f"one{i}"] == 1 for i in range(8))
    for a, b in combinations(runs, 2):
        shared = set(a["devices"].split(",")) & set(b["devices"].split(","))
        if shared:
            assert a["end"] <= b["start"] or b["end"] <= a["start"], (a, b)


def test_lock_directory_removed_after_the_session(pytester: pytest.Pytester, tmp_path) -> None:
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    pytester.makepyfile("""
        import os
        def test_where():
            with open("lockdir.txt", "w") as fh:
                fh.write(os.environ["ROCMCOMPAT_GPU_LOCK_DIR"])
            assert os.path.isdir(os.environ["ROCMCOMPAT_GPU_LOCK_DIR"])
    """)
    result = pytester.runpytest_subprocess(
        "-n", "2", "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", timeout=120
    )
    assert result.parseoutcomes() == {"passed": 1}
    lock_dir = (pytester.path / "lockdir.txt").read_text()
    import os

    assert lock_dir and not os.path.exists(lock_dir)


def test_rocr_visible_devices_narrowed_with_the_slice(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ROCR_VISIBLE_DEVICES set (as Slurm does): each worker's ROCR list is its slice, HIP counts within it;
    a borrowing gpus(4) test sees the controller's whole ROCR list again."""
    pytest.importorskip("xdist")
    monkeypatch.setenv("ROCR_VISIBLE_DEVICES", "4,5,6,7")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    pytester.makepyfile("""
        import os, pytest
        def seen():
            return os.environ.get("ROCR_VISIBLE_DEVICES"), os.environ.get("HIP_VISIBLE_DEVICES")
        @pytest.mark.gpus(1)
        @pytest.mark.parametrize("i", range(4))
        def test_slice(i):
            with open(os.environ["PYTEST_XDIST_WORKER"] + ".txt", "w") as fh:
                fh.write("|".join(seen()))
        @pytest.mark.gpus(4)
        def test_all():
            assert seen() == ("4,5,6,7", "0,1,2,3")
    """)
    result = pytester.runpytest_subprocess(
        "-n", "2", "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", timeout=180
    )
    assert result.parseoutcomes() == {"passed": 5}, result.stdout.str()
    seen = {p.stem: p.read_text() for p in pytester.path.glob("gw*.txt")}
    assert seen == {"gw0": "4,5|0,1", "gw1": "6,7|0,1"}, seen

"""Collectives: bandwidth math, plans, worlds, and real gloo process groups that pass, hang,
time out, crash and return wrong data (one process per rank, real kills)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from pytest_rocmcompat.collectives import bandwidth, plan
from pytest_rocmcompat.collectives.launcher import Launch, launch
from pytest_rocmcompat.collectives.worker import EXACT_LIMIT, levels
from pytest_rocmcompat.collectives.world import WorldError, env_world, local_worlds, worlds
from tests.conftest import CPU_ENV, REPO, process_running

GLOO2 = local_worlds(0)[0]


# ---- bandwidth ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "n", "factor"),
    [
        ("all_reduce", 2, 1.0),
        ("all_reduce", 8, 1.75),
        ("all_gather", 8, 0.875),
        ("reduce_scatter", 4, 0.75),
        ("broadcast", 8, 1.0),
        ("all_to_all", 2, 0.5),
        ("sendrecv", 8, 1.0),
    ],
)
def test_bus_factors_follow_nccl_tests(op, n, factor):
    assert bandwidth.bus_factor(op, n) == pytest.approx(factor)


def test_bandwidth_figures_and_table():
    # 256 MiB all_reduce in 1 ms on 8 ranks: algbw 268.4 GB/s, busbw x 1.75
    assert bandwidth.algbw_gbps(256 << 20, 1e-3) == pytest.approx(268.435456)
    assert bandwidth.busbw_gbps("all_reduce", 8, 256 << 20, 1e-3) == pytest.approx(268.435456 * 1.75)
    rows = bandwidth.table_rows(
        "all_gather", 4, [{"bytes": 1 << 20, "seconds": 1e-4}, {"bytes": 4096, "seconds": 1e-5}]
    )
    assert rows == [["4 KiB", 4096, 10.0, 0.41, 0.307], ["1 MiB", 1 << 20, 100.0, 10.486, 7.864]]
    text = bandwidth.render(rows, "all_gather")
    assert text.splitlines()[0] == "all_gather" and "busbw_gbps" in text and "1 MiB" in text
    assert [bandwidth.human_size(n) for n in (4, 1536, 256 << 20, 3 << 29)] == ["4 B", "1.5 KiB", "256 MiB", "1.5 GiB"]


def test_bandwidth_rejects_unknown_operation_and_world():
    with pytest.raises(ValueError, match="no bus factor for operation 'gather'"):
        bandwidth.bus_factor("gather", 2)
    with pytest.raises(ValueError, match="world size must be >= 1"):
        bandwidth.bus_factor("all_reduce", 0)


def test_every_timed_operation_has_a_known_metric():
    from pytest_rocmcompat.knowledge.metrics import METRICS

    assert {bandwidth.METRIC[op] for op, _ in plan.TIMED} <= set(METRICS)


# ---- plans and exact inputs ----------------------------------------------------------------


def test_element_counts_split_evenly():
    assert plan.elements("all_reduce", 4, 4, 3) == 1
    assert plan.elements("all_gather", 4, 4, 3) == 3  # at least one per rank
    assert plan.elements("all_to_all", 4099 * 4, 4, 3) == 4098  # rounded down to a multiple of 3
    assert plan.elements("reduce_scatter", 256 << 20, 2, 8) == 128 << 20


def test_gpu_plan_spans_one_element_to_256_mib_and_every_dtype():
    cases = plan.build(gpu=True)
    checked = {(c.name, c.dtype) for c in cases if not c.timed}
    assert checked >= {(name, dtype) for name, op, _ in plan.CHECKS if op != "barrier" for dtype in plan.DTYPES}
    assert min(c.nbytes for c in cases if c.dtype == "bfloat16") == 2  # one element
    timed = [c for c in cases if c.timed]
    assert {c.op for c in timed} == {op for op, _ in plan.TIMED}
    assert max(c.nbytes for c in timed if c.op == "all_reduce") == 256 << 20
    cpu = plan.build(gpu=False)
    assert max(c.nbytes for c in cpu) == 1 << 20
    assert max(c.nbytes for c in plan.build(gpu=True, max_bytes=64 << 10)) <= 64 << 10


@pytest.mark.parametrize("dtype", plan.DTYPES)
@pytest.mark.parametrize("world", [2, 3, 8, 64, 255])
def test_input_levels_keep_every_sum_exact(dtype, world):
    q = levels(dtype, world)
    assert q >= 2 and world * (q - 1) < EXACT_LIMIT[dtype]


def test_sums_beyond_the_exact_range_get_a_rounding_tolerance():
    torch = pytest.importorskip("torch")
    from pytest_rocmcompat.collectives.worker import sum_tolerance

    assert sum_tolerance(torch, "bfloat16", 255) == 0.0 and sum_tolerance(torch, "float32", 4096) == 0.0
    assert sum_tolerance(torch, "bfloat16", 512) == pytest.approx(512 * 2**-7 * 512)
    assert sum_tolerance(torch, "float16", 4096) > 0


def test_patterns_tell_ranks_and_positions_apart():
    """A missing, duplicated or shifted contribution changes the expected sum somewhere."""
    torch = pytest.importorskip("torch")
    from pytest_rocmcompat.collectives.worker import Runner

    runner = Runner(torch, None, 0, 8, torch.device("cpu"), {})
    q = levels("bfloat16", 8)
    parts = [runner.pattern(r, 4099, q) for r in range(8)]
    total = sum(parts)
    for r in range(8):
        assert not torch.equal(total - parts[r] + parts[(r + 1) % 8], total)  # rank r replaced by its neighbour
    assert not torch.equal(runner.pattern(0, 4096, q, start=1), parts[0][:4096])  # shifted by one element
    # check() counts every wrong element and names the first
    out = total.to(torch.bfloat16)
    out[7] += 1
    found = runner.check(out, total, 0.0, "bfloat16")
    assert found["mismatches"] == 1 and found["first_bad"]["index"] == 7 and found["checked"] == 4099


# ---- worlds --------------------------------------------------------------------------------


def test_local_worlds():
    assert [w.id for w in local_worlds(0)] == ["gloo-2", "gloo-3"]
    assert [w.id for w in local_worlds(1)] == ["gloo-2", "gloo-3"]
    assert [w.id for w in local_worlds(2)] == ["gloo-2", "gloo-3", "nccl-2"]
    assert [w.id for w in local_worlds(8)][2:] == ["nccl-2", "nccl-4", "nccl-8"]
    assert local_worlds(8)[-1].local_ranks == tuple(range(8))
    assert [w.full for w in local_worlds(8)] == [False, False, False, False, True]
    assert local_worlds(8)[-1].metric("allreduce_busbw_gbps") == "allreduce_busbw_gbps"
    assert local_worlds(8)[0].metric("allreduce_busbw_gbps") == "allreduce_busbw_gbps[gloo-2]"


def test_torchrun_and_slurm_worlds():
    w = env_world(
        {"MASTER_ADDR": "node0", "MASTER_PORT": "29400", "WORLD_SIZE": "16", "RANK": "9", "LOCAL_RANK": "1"}, gpus=8
    )
    assert (w.id, w.ranks, w.local_ranks, w.master, w.full) == ("env-nccl-16", (9,), (1,), ("node0", 29401), True)
    assert w.init_method(None) == "tcp://node0:29401"
    slurm = env_world(
        {
            "MASTER_ADDR": "fe80::1",
            "SLURM_NTASKS": "4",
            "SLURM_PROCID": "2",
            "SLURM_LOCALID": "0",
            "ROCMCOMPAT_COLLECTIVES_PORT": "31000",
        },
        gpus=0,
    )
    assert (slurm.id, slurm.ranks, slurm.init_method(None)) == ("env-gloo-4", (2,), "tcp://[fe80::1]:31000")
    assert env_world({"WORLD_SIZE": "2", "RANK": "0"}, gpus=2) is None  # no MASTER_ADDR: not a launcher's world
    assert [w.id for w in worlds({}, 0)] == ["gloo-2", "gloo-3"]


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MASTER_ADDR": "a", "WORLD_SIZE": "two", "RANK": "0"}, "WORLD_SIZE='two' is not a whole number"),
        ({"MASTER_ADDR": "a", "WORLD_SIZE": "2", "RANK": "2"}, "RANK=2 is outside WORLD_SIZE=2"),
        ({"MASTER_ADDR": "a", "WORLD_SIZE": "2", "RANK": "0", "MASTER_PORT": "65535"}, "port 65536 is not a TCP port"),
    ],
)
def test_bad_launcher_variables_are_named(environ, message):
    with pytest.raises(WorldError, match=message):
        env_world(environ, 0)


# ---- real launches (gloo, CPU) -----------------------------------------------------------

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
SMALL = [
    c
    for c in plan.build(gpu=False, max_bytes=256)
    if c.name in ("all_reduce_sum", "all_gather_list") and c.dtype == "float32"
]


def _assert_nothing_left(result: Launch, expect_child: bool = False) -> None:
    children = [e["pid"] for r in result.ranks for e in r.events if e.get("event") == "child"]
    assert not expect_child or children, "the stuck rank did not record its child"
    assert {r.pid for r in result.ranks} | set(children) <= set(result.pids)
    assert result.survivors == []
    left = [pid for pid in result.pids if process_running(pid)]
    assert left == [], f"processes left behind: {left}"


@needs_torch
def test_stuck_rank_is_a_hang_within_the_limit_and_leaves_nothing_behind():
    fault = {"rank": 1, "at": "all_gather_list", "kind": "stall", "spawn_child": True}
    start = time.monotonic()
    result = launch(GLOO2, SMALL, timeout=40, op_timeout=600, fault=fault)  # 40 s: torch imports on a busy CI box
    assert time.monotonic() - start < 40 + 10
    assert result.outcome == "hang", result.message
    assert "killed after the 40 s wall-clock limit" in result.message
    assert "rank 1 (pid" in result.message and "in all_gather_list float32" in result.message
    assert result.ranks[1].returncode is None and result.ranks[0].returncode is None  # both killed
    before = [c for c in SMALL if c.name == "all_reduce_sum"]
    assert before and len(result.results("all_reduce_sum")) == 2 * len(before)  # done before the stall
    _assert_nothing_left(result, expect_child=True)


@needs_torch
def test_collective_timeout_is_a_hang_before_the_wall_clock_limit():
    fault = {"rank": 1, "at": "all_gather_list", "kind": "stall"}
    result = launch(GLOO2, SMALL, timeout=120, op_timeout=3, grace=2, fault=fault)
    assert result.outcome == "hang", result.message
    assert result.message.startswith("rank 0 timed out in all_gather_list float32")
    assert result.seconds < 100  # ended by rank 0's 3 s collective timeout, not by the 120 s limit
    assert "wall-clock" not in result.message
    assert result.ranks[1].returncode is None  # the stuck rank was killed after the grace period
    _assert_nothing_left(result)


@needs_torch
def test_crashed_rank_reports_its_own_output_and_signature():
    fault = {
        "rank": 1,
        "at": "all_gather_list",
        "kind": "abort",
        "message": "NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error (injected)",
    }
    result = launch(GLOO2, SMALL, timeout=120, op_timeout=60, grace=2, fault=fault)
    assert result.outcome == "crashed", result.message
    assert result.signature == "nccl-error"
    assert result.message.startswith("rank 1 died from SIGABRT in all_gather_list float32")
    assert "--- last output of rank 1 ---" in result.message and "(injected)" in result.message
    _assert_nothing_left(result)


@needs_torch
def test_exception_in_a_rank_is_a_failure_with_its_traceback():
    fault = {"rank": 0, "at": "all_gather_list", "kind": "raise", "message": "boom from rank 0"}
    result = launch(GLOO2, SMALL, timeout=120, op_timeout=60, grace=2, fault=fault)
    assert result.outcome == "fail", result.message
    assert result.message.startswith("rank 0 raised an exception in all_gather_list")
    assert "RuntimeError: boom from rank 0" in result.message
    _assert_nothing_left(result)


# ---- the suite, end to end --------------------------------------------------------------


def _suite(tmp_path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, dict[str, dict[str, str]]]:
    env_file, xml, matrix = tmp_path / "env.json", tmp_path / "out.xml", tmp_path / "m.yaml"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    # A GPU interconnect floor must not fail the gloo worlds: their figures carry the world's id.
    matrix.write_text(
        "platform: cpu\nsuites: [collectives]\nfloors: {allreduce_busbw_gbps: 100000}\n", encoding="utf-8"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "suites/collectives",
            "-v",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--rocm-matrix",
            str(matrix),
            "--rocm-env",
            str(env_file),
            f"--junitxml={xml}",
            *args,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=400,
        env={**os.environ, "ROCMCOMPAT_COLLECTIVES_MAX_BYTES": "65536", **env},
    )
    props = {}
    if xml.exists():
        for case in ET.parse(xml).iter("testcase"):
            props[case.get("name")] = {p.get("name"): p.get("value") for p in case.iter("property")}
    return proc, props


@needs_torch
def test_suite_passes_on_2_and_3_gloo_ranks_with_tables_and_metrics(tmp_path):
    proc, props = _suite(tmp_path, NCCL_DEBUG="WARN", RCCL_MSCCL_ENABLE="0", NCCL_PLANTED_TOKEN="s3cr3t-value")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "34 passed" in proc.stdout and "s3cr3t-value" not in (tmp_path / "out.xml").read_text()
    for n in (2, 3):
        launch_props = props[f"test_launch[gloo-{n}]"]
        assert json.loads(launch_props["collectives_versions"])["backend"] == "gloo"
        recorded = json.loads(launch_props["collectives_settings"])
        assert recorded["NCCL_DEBUG"] == "WARN" and recorded["RCCL_MSCCL_ENABLE"] == "0"
        assert recorded["NCCL_PLANTED_TOKEN"] == "[redacted]"
        bw = props[f"test_bandwidth[gloo-{n}-all_reduce]"]
        headline = json.loads(bw[f"rocm_metric.allreduce_busbw_gbps[gloo-{n}]"])  # no GPU floor for gloo
        assert headline["unit"] == "GB/s" and headline["value"] > 0 and "32 KiB" in headline["detail"]
        assert f"rocm_metric.allreduce_busbw_gbps[gloo-{n}]@4KiB" in bw
        table = json.loads(bw["rocm_table.all_reduce_bandwidth"])
        assert table["columns"] == list(bandwidth.TABLE_COLUMNS)
        assert [row[1] for row in table["rows"]] == [4096, 32768]
        assert "elements in" in props[f"test_correct[gloo-{n}-all_reduce_avg]"]["collectives_checked"]
    assert (
        "int32: ReduceOp.AVG is defined for floating-point tensors only"
        in props["test_correct[gloo-2-all_reduce_avg]"]["collectives_not_run"]
    )


@needs_torch
def test_suite_reports_hang_and_wrong_results_with_the_plugins_outcomes(tmp_path):
    faults = [
        {"rank": 0, "at": "all_reduce_max", "kind": "corrupt"},
        {"rank": 1, "at": "broadcast", "kind": "stall", "spawn_child": True},
    ]
    proc, props = _suite(
        tmp_path,
        "-k",
        "gloo-2",
        ROCMCOMPAT_COLLECTIVES_FAULT=json.dumps(faults),
        ROCMCOMPAT_COLLECTIVES_TIMEOUT="40",
        ROCMCOMPAT_COLLECTIVES_OP_TIMEOUT="600",
    )
    out = proc.stdout
    assert proc.returncode == 1, out[-4000:] + proc.stderr[-2000:]
    assert "test_launch[gloo-2] HANG" in out
    assert "test_correct[gloo-2-all_reduce_sum] PASSED" in out
    assert "test_correct[gloo-2-all_reduce_max] FAILED" in out
    assert "rank 0 float32 4 B: 1 of 1 elements wrong" in out
    assert "test_correct[gloo-2-broadcast] HANG" in out and "test_bandwidth[gloo-2-sendrecv] HANG" in out
    assert props["test_launch[gloo-2]"]["rocm_outcome"] == "hang"
    assert props["test_correct[gloo-2-broadcast]"]["rocm_outcome"] == "hang"
    assert "rocm_outcome" not in props["test_correct[gloo-2-all_reduce_max]"]  # a plain failure
    assert "killed after the 40 s wall-clock limit" in out and "in broadcast float32" in out


@needs_torch
def test_torchrun_sessions_form_one_world(tmp_path):
    """Two pytest sessions started by torchrun: each spawns its own rank, and they meet over TCP."""
    import socket

    with socket.socket() as s:  # a port for this test's rendezvous (the suite itself needs none locally)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env_file = tmp_path / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            "--log-dir",
            str(tmp_path / "logs"),
            "--redirects",
            "3",
            "-m",
            "pytest",
            "suites/collectives",
            "-v",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--rocm-matrix",
            "matrices/cpu.yaml",
            "--rocm-env",
            str(env_file),
            "-k",
            "test_launch or all_reduce_sum or all_to_all",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "ROCMCOMPAT_COLLECTIVES_MAX_BYTES": "4096",
            "ROCMCOMPAT_COLLECTIVES_PORT": str(port),
            "ROCMCOMPAT_COLLECTIVES_TIMEOUT": "120",
        },
    )
    logs = sorted((tmp_path / "logs").rglob("stdout.log"))
    outs = [log.read_text(encoding="utf-8", errors="replace") for log in logs]
    assert proc.returncode == 0, "\n".join(o[-3000:] for o in outs) + proc.stderr[-3000:]
    assert len(outs) == 2  # one pytest session per rank
    for out in outs:
        assert "test_launch[env-gloo-2] PASSED" in out
        assert "test_correct[env-gloo-2-all_to_all_single] PASSED" in out
        assert "test_bandwidth[env-gloo-2-all_to_all] PASSED" in out


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"MASTER_ADDR": "node0", "WORLD_SIZE": "two", "RANK": "0"},
            "rocmcompat collectives: environment variable WORLD_SIZE='two' is not a whole number",
        ),
        (
            {"ROCMCOMPAT_COLLECTIVES_TIMEOUT": "soon"},
            "rocmcompat collectives: ROCMCOMPAT_COLLECTIVES_TIMEOUT='soon' is not a number",
        ),
        (
            {"ROCMCOMPAT_COLLECTIVES_FAULT": "{rank: 1"},
            "rocmcompat collectives: ROCMCOMPAT_COLLECTIVES_FAULT is not JSON",
        ),
    ],
)
def test_bad_settings_fail_one_test_with_a_clear_message(tmp_path, env, message):
    env_file = tmp_path / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "suites/collectives",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--rocm-env",
            str(env_file),
            "-k",
            "test_launch",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert message in proc.stdout and "Traceback" not in proc.stdout

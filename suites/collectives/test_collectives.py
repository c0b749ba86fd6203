"""Collectives on real torch.distributed groups: nccl (NCCL on CUDA, RCCL on ROCm) on GPUs, gloo
on CPU, one process per rank. Every element of every output is checked against its
closed-form value; bandwidth follows the nccl-tests conventions; a hang or a dead rank
becomes a ``hang`` or ``crashed`` outcome with the rank's own output.
"""

from __future__ import annotations

import json

import pytest

from pytest_rocmcompat.collectives import bandwidth, plan
from pytest_rocmcompat.collectives.launcher import Launch

CHECK_NAMES = [name for name, _, _ in plan.CHECKS]
TIMED_NAMES = {op: name for name, op, variant in plan.CHECKS if (op, variant) in plan.TIMED}


def _launch_failed(launch: Launch, rocm_property, what: str) -> None:
    """Fail the test with the launch's outcome (hang / crashed keep their own names)."""
    if launch.outcome in ("hang", "crashed"):
        rocm_property("rocm_outcome", launch.outcome)
    if launch.signature:
        rocm_property("rocm_signature", launch.signature)
    pytest.fail(f"[{launch.outcome}] {launch.world.id}: {what}\n{launch.message}", pytrace=False)


def _results(launched, name: str, rocm_property, timed: bool | None = None) -> list[dict]:
    """Every rank's results for test ``name``; fails with the launch outcome when some are missing."""
    launch, cases = launched
    planned = [c for c in cases if c.name == name and (timed is None or c.timed == timed)]
    found = [r for r in launch.results(name) if timed is None or bool(r.get("timed")) == timed]
    if len(found) < len(planned) * len(launch.world.ranks):
        _launch_failed(
            launch, rocm_property, f"{name}: {len(found)} of {len(planned) * len(launch.world.ranks)} results came back"
        )
    return found


def test_launch(world, launched, rocm_property) -> None:
    """Every rank joins, runs every case, leaves the group and leaves no process behind."""
    launch, cases = launched
    info = launch.info()
    versions = info.get("versions", {})
    rocm_property("collectives_world", f"{world.id}: {world.size} ranks ({world.backend} on {world.device})")
    rocm_property("collectives_versions", json.dumps(versions, sort_keys=True))
    rocm_property("collectives_settings", json.dumps(info.get("settings", {}), sort_keys=True))
    rocm_property("collectives_seconds", f"{launch.seconds:.1f}")
    if versions.get("nccl"):
        rocm_property("collectives_nccl_version", f"{versions.get('nccl_library', 'NCCL')} {versions['nccl']}")
    print(
        f"{world.id}: {len(cases)} cases in {launch.seconds:.1f} s; versions {versions}; "
        f"settings {info.get('settings', {})}"
    )
    assert not launch.survivors, f"processes left behind after the launch: {launch.survivors}"
    if launch.outcome != "pass":
        _launch_failed(launch, rocm_property, "the launch did not finish")


@pytest.mark.parametrize("check", CHECK_NAMES)
def test_correct(world, launched, check, rocm_property) -> None:
    """Every element of every dtype and size equals its expected value on every rank."""
    results = _results(launched, check, rocm_property, timed=False)  # timed sizes: test_bandwidth
    skipped = sorted({f"{r['dtype']}: {r['skipped']}" for r in results if r.get("skipped")})
    ran = [r for r in results if not r.get("skipped")]
    if not ran:
        pytest.skip("; ".join(skipped))
    if skipped:
        rocm_property("collectives_not_run", "; ".join(skipped))
        print("not run:", "; ".join(skipped))
    bad = [r for r in ran if r.get("mismatches")]
    rocm_property(
        "collectives_checked",
        f"{sum(r.get('checked', 0) for r in ran)} elements in {len(ran)} "
        f"rank-results ({', '.join(sorted({r['dtype'] for r in ran}))})",
    )
    assert not bad, f"{check} on {world.id}: wrong results\n" + "\n".join(
        f"rank {r['rank']} {r['dtype']} {r['bytes']} B: {r['mismatches']} of {r['checked']} elements wrong, "
        f"first {r.get('first_bad')}"
        for r in bad
    )


@pytest.mark.parametrize("op", [op for op, _ in plan.TIMED])
def test_bandwidth(world, launched, op, rocm_property, rocm_measure) -> None:
    """algbw and busbw per size (nccl-tests conventions); the largest size's busbw meets the floor."""
    name = TIMED_NAMES[op]
    results = _results(launched, name, rocm_property, timed=True)
    lead = min(world.ranks)
    mine = [r for r in results if r["rank"] == lead]
    if not mine:
        pytest.skip(f"no timed sizes for {op} (ROCMCOMPAT_COLLECTIVES_MAX_BYTES is below the sweep)")
    if all(r.get("skipped") for r in mine):
        pytest.skip(mine[0]["skipped"])
    bad = [r for r in results if r.get("mismatches")]
    assert not bad, f"{op}: wrong results in the timed runs: {[(r['rank'], r['bytes']) for r in bad]}"
    rows = bandwidth.table_rows(op, world.size, [r for r in mine if "seconds" in r])
    metric = world.metric(bandwidth.METRIC[op])  # floors apply to the full GPU world only
    factor = bandwidth.bus_factor(op, world.size)
    title = f"{op} bandwidth, {world.id} ({plan.TIMED_DTYPE}; busbw = algbw x {factor:.3g})"
    rocm_property(
        f"rocm_table.{op}_bandwidth",
        json.dumps({"title": title, "columns": list(bandwidth.TABLE_COLUMNS), "rows": rows}),
    )
    print(bandwidth.render(rows, title))
    for size, nbytes, usec, algbw, busbw in rows:
        rocm_measure(
            f"{metric}@{size.replace(' ', '')}",
            busbw,
            "GB/s",
            detail=f"{world.id}, {nbytes} B {plan.TIMED_DTYPE}, {usec} us, algbw {algbw} GB/s",
        )
    size, nbytes, usec, algbw, busbw = rows[-1]
    rocm_measure(
        metric,
        busbw,
        "GB/s",
        detail=f"{world.id}, {size} {plan.TIMED_DTYPE}, algbw {algbw} GB/s, "
        f"busbw factor {factor:.3g}, mean of the slowest rank",
    )

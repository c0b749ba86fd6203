"""Bandwidth figures with the nccl-tests conventions (see nccl-tests doc/PERFORMANCE.md).

``size`` is the nccl-tests size: the bytes of the largest buffer one rank holds (the
all_reduce / broadcast / all_to_all buffer, the all_gather output, the reduce_scatter
input). ``algbw = size / time``; ``busbw = algbw * factor(n)`` so that figures of
different world sizes compare with the hardware's link bandwidth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from tabulate import tabulate

BUS_FACTOR: dict[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "all_to_all": lambda n: (n - 1) / n,
    "sendrecv": lambda n: 1.0,
}
# The metric (pytest_rocmcompat.knowledge.metrics) that carries each operation's largest-size busbw.
METRIC: dict[str, str] = {
    "all_reduce": "allreduce_busbw_gbps",
    "all_gather": "allgather_busbw_gbps",
    "reduce_scatter": "reducescatter_busbw_gbps",
    "broadcast": "broadcast_busbw_gbps",
    "all_to_all": "alltoall_busbw_gbps",
    "sendrecv": "sendrecv_busbw_gbps",
}
TABLE_COLUMNS = ("size", "bytes", "time_us", "algbw_gbps", "busbw_gbps")


def bus_factor(op: str, world: int) -> float:
    """nccl-tests' busbw / algbw ratio for ``op`` on ``world`` ranks."""
    if world < 1:
        raise ValueError(f"world size must be >= 1, got {world}")
    try:
        return BUS_FACTOR[op](world)
    except KeyError:
        raise ValueError(f"no bus factor for operation {op!r} (known: {', '.join(BUS_FACTOR)})") from None


def algbw_gbps(size_bytes: int, seconds: float) -> float:
    """Algorithm bandwidth in GB/s (10^9 bytes per second, as nccl-tests)."""
    return size_bytes / seconds / 1e9 if seconds > 0 else float("inf")


def busbw_gbps(op: str, world: int, size_bytes: int, seconds: float) -> float:
    return algbw_gbps(size_bytes, seconds) * bus_factor(op, world)


def human_size(nbytes: int) -> str:
    """``4 B``, ``64 KiB``, ``256 MiB``, ``1.5 GiB``."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:g} {unit}" if value != int(value) else f"{int(value)} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def table_rows(op: str, world: int, timings: Iterable[Mapping]) -> list[list]:
    """One row per size: ``[size, bytes, time_us, algbw, busbw]`` from ``{"bytes", "seconds"}``."""
    rows = []
    for t in sorted(timings, key=lambda t: t["bytes"]):
        seconds = float(t["seconds"])
        rows.append(
            [
                human_size(int(t["bytes"])),
                int(t["bytes"]),
                round(seconds * 1e6, 2),
                round(algbw_gbps(int(t["bytes"]), seconds), 3),
                round(busbw_gbps(op, world, int(t["bytes"]), seconds), 3),
            ]
        )
    return rows


def render(rows: list[list], title: str = "") -> str:
    """A plain-text table (tabulate) with an optional title line."""
    text = tabulate(rows, headers=list(TABLE_COLUMNS), tablefmt="github")
    return f"{title}\n{text}" if title else text

"""Group measurements taken at several sizes into per-size tables.

Two conventions are recognised: a metric named ``base@size`` (the collectives suite
records ``allreduce_busbw_gbps@1MiB``, ...), and one metric recorded several times
by a test with a different ``detail`` each time (the detail names the size).
"""

from __future__ import annotations

from ..measurements import Measurement

SIZE_SEP = "@"


def split_sized(figures: list[tuple[str, Measurement]]) -> tuple[
        list[tuple[str, Measurement]], list[tuple[str, str, list[tuple[str, Measurement]]]]]:
    """``(flat, sized)``: figures for one table, and ``(test, metric, [(size, figure)])`` groups."""
    groups: dict[tuple[str, str], list[tuple[str, Measurement]]] = {}
    for test, m in figures:
        base, sep, size = m.name.partition(SIZE_SEP)
        groups.setdefault((test, base if sep else m.name), []).append((size if sep else "", m))
    flat, sized = [], []
    for (test, name), found in groups.items():
        named = all(size for size, _ in found)
        by_detail = len(found) > 1 and all(not size for size, _ in found) and len({m.detail for _, m in found}) > 1
        if named and found:
            sized.append((test, name, found))
        elif by_detail:
            sized.append((test, name, [(m.detail, m) for _, m in found]))
        else:
            flat.extend((test, m) for _, m in found)
    return flat, sized

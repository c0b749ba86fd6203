"""Group measurements taken at several sizes into per-size tables.

Two conventions are recognised: a metric named ``base@size`` (the collectives suite
records ``allreduce_busbw_gbps@1MiB``, ...), and one metric recorded several times
by a test with a different ``detail`` each time (the detail names the size).
"""

from __future__ import annotations

from pytest_rocmcompat.session.measurements import Measurement

SIZE_SEP = "@"


def split_sized(
    figures: list[tuple[str, Measurement]],
) -> tuple[list[tuple[str, Measurement]], list[tuple[str, str, list[tuple[str, Measurement]]]]]:
    """``(flat, sized)``: figures for one table, and ``(test, metric, [(size, figure)])`` groups."""
    groups: dict[tuple[str, str], list[tuple[str, Measurement]]] = {}
    for test, m in figures:
        base, sep, size = m.name.partition(SIZE_SEP)
        groups.setdefault((test, base if sep else m.name), []).append((size if sep else "", m))
    flat: list[tuple[str, Measurement]] = []
    sized: list[tuple[str, str, list[tuple[str, Measurement]]]] = []
    for (test, name), found in groups.items():
        named = [(size, m) for size, m in found if size]
        plain = [m for size, m in found if not size]
        if named:  # base@size figures; a plain headline figure of the same metric stays in the flat table
            sized.append((test, name, named))
        if not named and len(plain) > 1 and len({m.detail for m in plain}) > 1:
            sized.append((test, name, [(m.detail, m) for m in plain]))
        else:
            flat.extend((test, m) for m in plain)
    return flat, sized

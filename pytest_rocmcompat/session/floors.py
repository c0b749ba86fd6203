"""Floor misses: figures a test recorded below the matrix's floors, and the failure they make.

``rocm_measure`` records a miss on the test item; the result hook turns the misses into the
test's failure text after it ran (a passing test that missed a floor fails).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.session.measurements import Measurement

FLOOR_MISSES_KEY = pytest.StashKey[list[Measurement]]()


def record_miss(item: pytest.Item, measurement: Measurement) -> None:
    """Remember that ``item`` recorded ``measurement`` below its floor."""
    item.stash.setdefault(FLOOR_MISSES_KEY, []).append(measurement)


def floor_failure(item: pytest.Item) -> str | None:
    """The failure text for measurements worse than their floors, if any were recorded."""
    misses = item.stash.get(FLOOR_MISSES_KEY, None)
    if not misses:
        return None
    return "performance below the matrix floor: " + "; ".join(m.describe() for m in misses)

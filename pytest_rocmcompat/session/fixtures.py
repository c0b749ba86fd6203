"""Fixtures the plugin offers every test suite (bundled or a user's own).

- ``rocm_env``: the session's :class:`~pytest_rocmcompat.stack.environment.Environment`
  (probed, replayed or overridden).
- ``rocm_matrix``: the loaded :class:`~pytest_rocmcompat.matrix.model.Matrix`, or ``None``.
- ``rocm_property``: record a testcase property (``record_property`` without the xunit2 warning).
- ``rocm_measure``: record a performance figure; it becomes the JUnit property
  ``rocm_metric.<name>``, is compared with the matrix's ``floors`` and, when worse
  than its floor, turns the passing test into a failure that names the figure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from pytest_rocmcompat.session.state import state_of

if TYPE_CHECKING:  # imported when a test measures: most sessions never do
    from pytest_rocmcompat.knowledge.metrics import DeclaredMetric
    from pytest_rocmcompat.matrix.model import Matrix
    from pytest_rocmcompat.session.measurements import Measurement
    from pytest_rocmcompat.session.state import CompatState
    from pytest_rocmcompat.stack.environment import Environment


def _state(config: pytest.Config) -> CompatState:
    state = state_of(config)
    if state is None:
        pytest.skip("rocmcompat is not active in this session")
    return state


@pytest.fixture(scope="session")
def rocm_env(pytestconfig: pytest.Config) -> Environment:
    """The environment this session runs against (see ``--rocm-env`` / ``--rocm-set``)."""
    return _state(pytestconfig).env


@pytest.fixture(scope="session")
def rocm_matrix(pytestconfig: pytest.Config) -> Matrix | None:
    """The loaded matrix (the bundled known-bad database when no ``--rocm-matrix`` was given;
    ``None`` under ``--rocm-no-bundled``).
    """
    return _state(pytestconfig).matrix


@pytest.fixture
def rocm_property(request: pytest.FixtureRequest) -> Callable[[str, object], None]:
    """``rocm_property(name, value)``: a testcase property, like ``record_property``.

    It writes the same JUnit ``<property>`` but without pytest's warning under the default
    ``junit_family=xunit2`` (the plugin's reports read testcase properties whatever the family).
    """

    def record(name: str, value: object) -> None:
        request.node.user_properties.append((name, value))

    return record


class MeasureRecorder:
    """Callable handed to tests as ``rocm_measure``."""

    def __init__(
        self, item: pytest.Item, floors: dict[str, float], metrics: dict[str, DeclaredMetric] | None = None
    ) -> None:
        self._item = item
        self._floors = floors
        self._metrics = metrics or {}  # the matrix's declared metrics: their unit and direction
        self.recorded: list[Measurement] = []

    def __call__(
        self,
        name: str,
        value: float,
        unit: str | None = None,
        *,
        floor: float | None = None,
        peak: float | None = None,
        detail: str = "",
        higher_is_better: bool | None = None,
    ) -> Measurement:
        """Record ``name = value unit``; the floor defaults to the matrix's ``floors[name]``, the
        unit and direction to a declared metric's (else higher is better).
        """
        from pytest_rocmcompat.session.floors import record_miss
        from pytest_rocmcompat.session.measurements import measure

        if floor is None:
            floor = self._floors.get(name)
        m = measure(
            name,
            value,
            unit,
            floor=floor,
            peak=peak,
            detail=detail,
            higher_is_better=higher_is_better,
            declared=self._metrics,
        )
        self._item.user_properties.append(m.to_property())
        self.recorded.append(m)
        if m.below_floor:
            record_miss(self._item, m)
        return m


@pytest.fixture
def rocm_measure(request: pytest.FixtureRequest) -> MeasureRecorder:
    """Record a measurement: ``rocm_measure("gemm_bf16_tflops", 712.4, peak=989.4)``."""
    state = state_of(request.config)
    matrix = state.matrix if state is not None else None
    return MeasureRecorder(request.node, dict(matrix.floors) if matrix else {}, dict(matrix.metrics) if matrix else {})

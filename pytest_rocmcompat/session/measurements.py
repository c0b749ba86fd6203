"""Measurements: one performance figure of a test, carried as a JUnit property.

A test records a figure through the ``rocm_measure`` fixture; it travels as the
test report's user property ``rocm_metric.<name>`` whose value is a small JSON
object, so it reaches the JUnit file, crosses pytest-xdist, and can be read
back by ``rocmcompat report`` from any JUnit file.

A metric the matrix declares (``metrics:``) is recorded in its declared unit and direction,
and its property says so (``higher_is_better``, ``headline``, ``label``): the report treats the
figure like a bundled one without the matrix.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_rocmcompat.knowledge.metrics import METRIC_PREFIX, METRICS, DeclaredMetric

PROP_PREFIX = METRIC_PREFIX


@dataclass(frozen=True)
class Measurement:
    """``value`` in ``unit``; ``floor`` is the matrix's minimum, ``peak`` the datasheet figure."""

    name: str
    value: float
    unit: str
    floor: float | None = None
    peak: float | None = None
    higher_is_better: bool = True
    detail: str = ""  # what was measured, e.g. "4096x4096x4096, median of 20"
    headline: bool = False  # a declared metric's: recorded in the site's history and plotted
    label: str = ""  # a declared metric's name for readers

    @property
    def below_floor(self) -> bool:
        """Worse than the floor (a floor on a lower-is-better figure is a ceiling)."""
        if self.floor is None or not math.isfinite(self.value):
            return self.floor is not None
        return self.value < self.floor if self.higher_is_better else self.value > self.floor

    @property
    def miss_text(self) -> str:
        """``below floor``, or ``above ceiling`` for a lower-is-better figure."""
        return "below floor" if self.higher_is_better else "above ceiling"

    @property
    def fraction_of_peak(self) -> float | None:
        return self.value / self.peak if self.peak else None

    def to_property(self) -> tuple[str, str]:
        data = {"value": self.value, "unit": self.unit}
        for key in ("floor", "peak", "detail"):
            if getattr(self, key) not in (None, ""):
                data[key] = getattr(self, key)
        if not self.higher_is_better:
            data["higher_is_better"] = False
        if self.headline:
            data["headline"] = True
        if self.label:
            data["label"] = self.label
        return PROP_PREFIX + self.name, json.dumps(data, sort_keys=True)

    @classmethod
    def from_property(cls, name: object, value: object) -> Measurement | None:
        """The measurement a property holds, or ``None`` if it holds none (never raises)."""
        if not isinstance(name, str) or not name.startswith(PROP_PREFIX):
            return None
        try:
            data = json.loads(str(value))
            return cls(
                name=name[len(PROP_PREFIX) :],
                value=float(data["value"]),
                unit=str(data.get("unit", "")),
                floor=_opt_float(data.get("floor")),
                peak=_opt_float(data.get("peak")),
                higher_is_better=bool(data.get("higher_is_better", True)),
                detail=str(data.get("detail", "")),
                headline=data.get("headline") is True,
                label=str(data.get("label", "")),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

    def describe(self) -> str:
        text = f"{self.name} = {self.value:.4g} {self.unit}"
        if self.floor is not None:
            text += f" ({'floor' if self.higher_is_better else 'ceiling'} {self.floor:g})"
        return text


def _opt_float(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float, str)):
        return float(value)
    raise TypeError(f"not a number: {value!r}")


def default_unit(name: str) -> str | None:
    """The unit the metric table gives ``name``, if it is a known metric."""
    known = METRICS.get(name)
    return known[0] if known else None


def base_name(name: str) -> str:
    """The metric a figure is of: ``tokens_per_joule@4096`` (a size) and ``x[nccl-8]`` (a backend) -> the name."""
    return name.partition("@")[0].partition("[")[0]


def measure(
    name: str,
    value: float,
    unit: str | None,
    *,
    floor: float | None,
    peak: float | None,
    detail: str,
    higher_is_better: bool | None,
    declared: Mapping[str, DeclaredMetric],
) -> Measurement:
    """The figure ``rocm_measure`` records: a declared metric's unit and direction are the
    defaults, and a test that contradicts them is a mistake (``ValueError``, named).
    """
    own = declared.get(base_name(name))
    if own is not None:
        if unit and unit != own.unit:
            raise ValueError(f"rocm_measure({name!r}): the matrix declares it in {own.unit!r}, not {unit!r}")
        if higher_is_better is not None and higher_is_better != own.higher_is_better:
            better = "higher" if own.higher_is_better else "lower"
            raise ValueError(f"rocm_measure({name!r}): the matrix declares it better: {better}")
    unit = unit or (own.unit if own is not None else default_unit(name))
    if unit is None:
        raise ValueError(
            f"rocm_measure({name!r}): give a unit (not a metric of pytest_rocmcompat.knowledge.metrics, "
            "nor declared under the matrix's metrics:)"
        )
    if higher_is_better is None:
        higher_is_better = own.higher_is_better if own is not None else True
    return Measurement(
        name,
        float(value),
        unit,
        None if floor is None else float(floor),
        None if peak is None else float(peak),
        higher_is_better,
        detail,
        headline=own is not None and own.headline,
        label="" if own is None else own.label,
    )


def measurements_of(user_properties: Iterable[tuple[object, object]]) -> list[Measurement]:
    """Every measurement among a report's (or JUnit testcase's) properties."""
    found = []
    for name, value in user_properties:
        m = Measurement.from_property(name, value)
        if m is not None:
            found.append(m)
    return found

"""The validated matrix: axes, exclusions, suites, declared metrics, floors and compiled rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_rocmcompat.knowledge.metrics import DeclaredMetric
from pytest_rocmcompat.knowledge.rules.model import Rule

SUITES: tuple[str, ...] = ("preflight", "gpu", "collectives", "ppo", "libs")
# Axis order used for cells, tables and the GitHub matrix.
BASE_AXES: tuple[str, ...] = ("arch", "rocm", "cuda", "torch", "python")


@dataclass
class FileContent:
    """What one checked file contributes before includes are merged (what the cache stores)."""

    name: str | None = None
    platform: str | None = None
    archs: tuple[str, ...] = ()
    axes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    excludes: list[tuple[tuple[str, tuple[str, ...]], ...]] = field(default_factory=list)
    includes: list[tuple[str, int | None]] = field(default_factory=list)  # (path text, line)
    suites: tuple[str, ...] = ()
    metrics: dict[str, DeclaredMetric] = field(default_factory=dict)  # the project's own, by name
    floors: dict[str, float] = field(default_factory=dict)
    expect: dict[str, float] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)
    checks: dict[str, str] = field(default_factory=dict)  # built-in check id -> off|skip|xfail|isolate


@dataclass(frozen=True)
class Cell:
    """One planned combination: axis name -> value (``lib.vllm`` for libraries)."""

    values: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, str]:
        return dict(self.values)

    @property
    def key(self) -> str:
        """``arch=gfx942 rocm=6.3 torch=2.6 python=3.12``."""
        return " ".join(f"{k}={v}" for k, v in self.values)


@dataclass(frozen=True)
class Matrix:
    """A loaded matrix file with its includes merged."""

    name: str
    file: str
    platform: str | None = None
    archs: tuple[str, ...] = ()
    axes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    excludes: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...] = ()
    suites: tuple[str, ...] = ()
    metrics: dict[str, DeclaredMetric] = field(default_factory=dict)  # the project's own, by name
    floors: dict[str, float] = field(default_factory=dict)
    expect: dict[str, float] = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()
    files: tuple[str, ...] = ()  # this file and every file it included
    checks: dict[str, str] = field(default_factory=dict)  # built-in check id -> off|skip|xfail|isolate

    @property
    def axis_names(self) -> tuple[str, ...]:
        names = ("arch",) if self.archs else ()
        return names + tuple(name for name, _ in self.axes)

    def axis_values(self, name: str) -> tuple[str, ...]:
        if name == "arch":
            return self.archs
        return dict(self.axes).get(name, ())

    @property
    def library_names(self) -> tuple[str, ...]:
        """Libraries the matrix names anywhere (axes and rule conditions), for the probe."""
        names = [n[4:] for n, _ in self.axes if n.startswith("lib.")]
        for rule in self.rules:
            names.extend(name for name, _ in rule.when.libraries)
            names.extend(rule.applies_to.uses)
        return tuple(dict.fromkeys(names))

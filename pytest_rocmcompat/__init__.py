"""pytest-rocmcompat: does this exact GPU software stack work, and what is known to be broken.

Public API (stable):

- here: :class:`Environment`, :class:`GPU`, :func:`load_matrix`, :func:`probe`, :class:`Outcome`,
  :class:`ConfigError`, ``__version__``;
- ``pytest_rocmcompat.plugin``: the pytest plugin (entry point ``rocmcompat``) and
  :func:`~pytest_rocmcompat.session.state.state_of` (the session's state, for a conftest);
- ``pytest_rocmcompat.markers``: markers and ini keys alone (entry point ``rocmcompat_markers``,
  or ``-p pytest_rocmcompat.markers``);
- ``pytest_rocmcompat.cli:main``: the ``rocmcompat`` command.

Fixtures (``rocm_env``, ``rocm_matrix``, ``rocm_measure``, ``rocm_property``) reach tests through
the plugin. Everything else is internal; the layers are in docs/architecture.md. Modules that
moved when the package was laid out by layer stay importable under their old names for now
(``pytest_rocmcompat.versions`` is ``pytest_rocmcompat.stack.versions``), with a
``DeprecationWarning`` naming the new place.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import warnings
from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING

from pytest_rocmcompat.errors import ConfigError
from pytest_rocmcompat.outcomes import Outcome
from pytest_rocmcompat.safe_io import no_assert_rewrite  # noqa: F401  # before the rest of the package loads
from pytest_rocmcompat.safe_io.package_files import VERSION
from pytest_rocmcompat.stack.environment import GPU, Environment

if TYPE_CHECKING:  # the matrix layer is imported on first use
    from pytest_rocmcompat.matrix.model import Matrix

__version__ = VERSION


def load_matrix(path: str | os.PathLike[str]) -> Matrix:
    """Load and validate a matrix file (see :func:`pytest_rocmcompat.matrix.loader.load_matrix`)."""
    from pytest_rocmcompat.matrix.loader import load_matrix as _load

    return _load(path)


def probe(extra_libraries: Iterable[str] = ()) -> Environment:
    """Snapshot this machine (see :func:`pytest_rocmcompat.probe.live.probe`)."""
    from pytest_rocmcompat.probe.live import probe as _probe

    return _probe(extra_libraries)


# Old module name -> where it lives now (``session`` and ``cli`` are packages of their own now).
MOVED_MODULES: dict[str, str] = {
    "redact": "safe_io.redact",
    "report.escape": "safe_io.escape",
    "report.atomic": "safe_io.atomic",
    "input_files": "safe_io.input_files",
    "cache_store": "safe_io.cache_store",
    "versions": "stack.versions",
    "arch": "stack.arch",
    "probe.environment": "stack.environment",
    "probe.overrides": "stack.overrides",
    "probe_cache": "probe.cache",
    "diagnoses": "knowledge.diagnoses",
    "metrics": "knowledge.metrics",
    "probe.wheel_targets": "knowledge.wheel_targets",
    "probe.declared_pins": "knowledge.declared_pins",
    "probe.extension_builds": "knowledge.extension_builds",
    "rules": "knowledge.rules",
    "checks": "knowledge.checks",
    "rules.schema": "matrix.rule_schema",
    "lint_against": "matrix.lint_against",
    "classify": "session.classify",
    "results": "session.results",
    "fixtures": "session.fixtures",
    "options": "session.options",
    "measurements": "session.measurements",
    "junit_file": "session.junit_file",
    "rootdir_guard": "session.rootdir_guard",
    "interrupt": "session.interrupt",
    "gpu_locks": "running.gpu_locks",
    "pinning": "running.pinning",
    "processes": "running.processes",
    "warm": "running.warm",
    "isolation": "running.isolation",
    "recommend": "report.recommend",
    "cli_run": "cli.run",
    "recommend_cli": "cli.recommend",
    "report.cli_report": "cli.report",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a moved module's old name as the module at its new place (one object, two names)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        old = fullname.removeprefix(__name__ + ".")
        parent, _, leaf = old.rpartition(".")
        new = MOVED_MODULES.get(old) or (f"{MOVED_MODULES[parent]}.{leaf}" if parent in MOVED_MODULES else None)
        if old == fullname or new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=f"{__name__}.{new}")

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = str(spec.origin)
        warnings.warn(f"{spec.name} moved to {new}; import it from there", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at its new place is already imported."""


if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedModuleFinder())

__all__ = ["GPU", "ConfigError", "Environment", "Outcome", "__version__", "load_matrix", "probe"]

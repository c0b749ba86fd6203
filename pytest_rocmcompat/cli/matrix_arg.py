"""A matrix named on a ``rocmcompat`` command line: a path, else a bundled matrix by name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_rocmcompat.errors import ConfigError

if TYPE_CHECKING:
    from pytest_rocmcompat.matrix.model import Matrix


def load_named_matrix(value: str) -> Matrix:
    """A matrix argument as every command takes it: a path, else a bundled matrix by name (``mi300``,
    as ``rocmcompat run --matrix`` and ``--rocm-matrix``); :class:`ConfigError` as ``load_matrix``.
    """
    from pytest_rocmcompat.matrix.loader import load_matrix, resolve_matrix_name

    return load_matrix(resolve_matrix_name(value))


def report_matrix_error(exc: ConfigError, value: str, prefix: str = "") -> None:
    """The loader's paragraph; for a name that is neither a file nor bundled, the bundled names too."""
    import os

    from pytest_rocmcompat.matrix.loader import bundled_matrix_names, resolve_matrix_name
    from pytest_rocmcompat.safe_io.escape import echo

    echo(f"{prefix}{exc}", err=True)
    if not os.path.exists(resolve_matrix_name(value)):
        echo(f"{prefix}bundled matrices, by name: {', '.join(bundled_matrix_names())}", err=True)

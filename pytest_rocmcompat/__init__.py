"""pytest-rocmcompat: does this exact GPU software stack work, and what is known to be broken?

Public API (stable): :class:`Environment`, :func:`load_matrix`, :func:`probe`,
:class:`Outcome`, :class:`ConfigError`.
"""

from __future__ import annotations

from .errors import ConfigError
from .outcomes import Outcome
from .probe.environment import GPU, Environment

__version__ = "0.1.0"


def load_matrix(path):  # noqa: ANN001 - lazy: keeps yaml out of the probe child's start-up
    """Load and validate a matrix file (see :func:`pytest_rocmcompat.matrix.loader.load_matrix`)."""
    from .matrix.loader import load_matrix as _load

    return _load(path)


def probe(extra_libraries=()) -> Environment:
    """Snapshot this machine (see :func:`pytest_rocmcompat.probe.live.probe`)."""
    from .probe.live import probe as _probe

    return _probe(extra_libraries)


__all__ = ["GPU", "ConfigError", "Environment", "Outcome", "load_matrix", "probe", "__version__"]

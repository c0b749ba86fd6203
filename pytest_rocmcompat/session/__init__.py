"""One pytest session: its state, options, markers' effects, fixtures, rules reaching tests,
classification, results, JUnit finishing, interrupts and the rootdir guard. Imports ``matrix`` and below.
"""

from __future__ import annotations

import importlib
import warnings

# The names of the old module ``pytest_rocmcompat.session`` (now ``session.state``), resolved on
# first use so that importing any module of this package does not load the session state.
_OLD_SESSION_NAMES = frozenset(
    {
        "WORKER_ENV_KEY",
        "PROBE_CACHED_KEY",
        "STATE_KEY",
        "TestResult",
        "suite_of",
        "CompatState",
        "build_state",
        "state_of",
    }
)


def __getattr__(name: str) -> object:
    if name in _OLD_SESSION_NAMES:
        warnings.warn(
            f"pytest_rocmcompat.session.{name} moved to pytest_rocmcompat.session.state.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("pytest_rocmcompat.session.state"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

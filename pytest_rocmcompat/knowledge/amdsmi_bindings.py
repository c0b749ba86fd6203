"""Which libamd_smi functions each PyPI ``amdsmi`` release binds at import, read from the generated
``data/amdsmi_bindings.json`` (``tools/amdsmi_bindings.py``: every release's wheel, read from PyPI).

PyPI's ``amdsmi`` is the Python wrapper of one ROCm release's ``libamd_smi.so``, its version that
release's: the wrapper generated from the release's header binds every function at module level, so
the functions a release's wrapper binds are the ones that release's library exports (as far as the
wrapper goes), and a wrapper of another release fails to import on it where it binds one the library lacks.
"""

from __future__ import annotations

from functools import cache

from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.knowledge import packaged_data

DATA = "data/amdsmi_bindings.json"


@cache
def _table() -> dict[Version, frozenset[str]]:
    releases: dict[str, list[str]] = packaged_data.load(DATA)["releases"]
    return {Version(v): frozenset(names) for v, names in releases.items()}


def bound_by(release: str) -> frozenset[str] | None:
    """The functions the wrapper of PyPI's ``amdsmi`` ``release`` binds, or ``None`` for a release not read."""
    try:
        wanted = Version(release)
    except InvalidVersion:
        return None
    return _table().get(wanted)


def exported_by_rocm(rocm: str) -> tuple[frozenset[str], ...]:
    """The function sets the ``libamd_smi.so`` of ROCm ``rocm`` may export, one per release it may be.

    ``6.4.0`` is that release; ``6.4`` any patch release of the series read. Empty when no wrapper of it was read.
    """
    try:
        stated = Version(rocm)
    except InvalidVersion:
        return ()
    table = _table()
    if len(stated.release) >= 3:
        exact = next((names for v, names in table.items() if v.release[:3] == stated.release[:3]), None)
        return (exact,) if exact is not None else ()
    series = stated.release[:2]
    return tuple(names for v, names in sorted(table.items()) if v.release[:2] == series)

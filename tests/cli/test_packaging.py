"""The wheel's package list keeps up with the source tree (a missing subpackage breaks the
installed plugin at import, which only a wheel install would show)."""

from __future__ import annotations

import sys

from tests.conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = None


def test_every_subpackage_is_listed_in_pyproject() -> None:
    import pytest

    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "pytest_rocmcompat").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert on_disk, "no package found on disk"
    assert on_disk <= listed, f"packages missing from pyproject's [tool.setuptools] packages: {on_disk - listed}"

"""Where this package's own files lie: its code, bundled matrices and suites, and its version.

The one owner of ``__file__`` arithmetic: the installed wheel and a checkout lay these out
differently (``bundled_matrices/`` beside the code, or ``matrices/`` beside the package), and a
module that moves must not silently change what a cache fingerprints.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

VERSION = "0.1.0"
PACKAGE_NAME = "pytest_rocmcompat"
PACKAGE_DIR = Path(__file__).resolve().parent.parent
KNOWN_BAD_NAME = "known_bad.yaml"


class MissingModuleError(LookupError):
    """A module a cache fingerprints does not exist (it moved, and the list did not follow)."""


def bundled_matrices_dir() -> Path:
    """The bundled matrices: ``matrices/`` of a checkout, else the installed ``bundled_matrices/``."""
    checkout = PACKAGE_DIR.parent / "matrices"
    if (checkout / KNOWN_BAD_NAME).is_file():
        return checkout
    return PACKAGE_DIR / "bundled_matrices"


def suites_dirs() -> tuple[Path, Path]:
    """Where the bundled suites may be: the installed package's copy, then the checkout's ``suites/``."""
    return PACKAGE_DIR / "suites", PACKAGE_DIR.parent / "suites"


def module_file(name: str) -> Path:
    """The source file of module ``name`` (dotted, below this package), without importing it."""
    relative = name.removeprefix(PACKAGE_NAME + ".").split(".")
    for candidate in (
        PACKAGE_DIR.joinpath(*relative).with_suffix(".py"),
        PACKAGE_DIR.joinpath(*relative, "__init__.py"),
    ):
        if candidate.is_file():
            return candidate
    raise MissingModuleError(f"{PACKAGE_NAME}.{'.'.join(relative)}: no such module in {PACKAGE_DIR}")


def package_modules(subpackage: str) -> list[Path]:
    """Every module file of one subpackage (``probe``, ``stack``), sorted."""
    folder = PACKAGE_DIR.joinpath(*subpackage.split("."))
    if not (folder / "__init__.py").is_file():
        raise MissingModuleError(f"{PACKAGE_NAME}.{subpackage}: no such package in {PACKAGE_DIR}")
    return sorted(folder.glob("*.py"))


def module_files(names: Iterable[str]) -> list[Path]:
    """:func:`module_file` of each name, in order."""
    return [module_file(name) for name in names]

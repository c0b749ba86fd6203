"""Nothing local in published output: input file names and quoted paths made relative.

A merged report or site is read far from the machine that wrote it, so it names no home or
working directory of that machine:

- an input file is named relative to the root of the argument that found it (the directory
  given, a glob's leading folders, the common folder of files given one by one);
- a path in a skip or failure message loses the run's rootdir where it can be recognised (an
  absolute path ending in the test's own relative file), then the publishing machine's working
  directory; a home directory becomes ``~``, an installed package's folder ``site-packages/``.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable
from functools import lru_cache

_HOME = re.compile(r"(?<![\w.~-])(?:/home/[^/\s'\"]+|/Users/[^/\s'\"]+|/root)(?=[/\s'\":),]|$)")
_WINDOWS_HOME = re.compile(r"(?i)(?<![\w.])[a-z]:\\Users\\[^\\\s'\"]+")
_PACKAGES = re.compile(r"(?<![\w.~-])/[^\s'\"():,]*?/(?:site|dist)-packages/")
_MAYBE_ABSOLUTE = re.compile(r"(?<![\w.~:/-])/[\w.~+-]")
_ABSOLUTE = re.compile(r"(?<![\w.~:/-])/(?:[\w.+-]+/)*[\w.+-]+")


class InputPath(str):
    """A path to read, carrying ``shown``: its name relative to the argument's root."""

    shown: str

    def __new__(cls, path: str, shown: str) -> InputPath:
        made = super().__new__(cls, path)
        made.shown = shown
        return made


def glob_root(pattern: str) -> str:
    """The leading folders of a glob before its first wildcard (``reports/**/*.xml`` -> ``reports``)."""
    parts = pattern.replace("\\", "/").split("/")
    fixed: list[str] = []
    for part in parts[:-1]:
        if glob.has_magic(part):
            break
        fixed.append(part)
    return "/".join(fixed) or ("/" if pattern.startswith("/") else ".")


def relative_to(path: str, root: str) -> str:
    """``path`` below ``root`` (both made absolute first); a path outside it keeps its last two parts."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if rel.startswith(".."):
        rel = os.path.join(*os.path.abspath(path).split(os.sep)[-2:])
    return rel.replace(os.sep, "/")


def common_root(paths: Iterable[str]) -> str:
    """The deepest folder holding every path (``.`` for none)."""
    folders = [os.path.dirname(os.path.abspath(p)) for p in paths]
    return os.path.commonpath(folders) if folders else "."


def shown_names(found: list[tuple[str, str]]) -> list[InputPath]:
    """``(path, root)`` pairs -> paths named relative to their root; names that would clash fall
    back to the common folder of every input, so two files never share a name.
    """
    names = [relative_to(path, root) for path, root in found]
    if len(set(names)) < len(names):
        base = common_root(p for p, _ in found)
        names = [relative_to(path, base) for path, _ in found]
    return [InputPath(path, name) for (path, _), name in zip(found, names, strict=True)]


def shown_name(path: str) -> str:
    """The name an input is published under (its own ``shown``, else its base name)."""
    return getattr(path, "shown", None) or os.path.basename(path) or path


def rootdir_in(text: str, test_file: str) -> str | None:
    """The run's rootdir as an absolute path in ``text`` ending in the test's relative file or
    its first folder (``/x/y/suites/libs/conftest.py:44`` for ``suites/libs/test_z.py`` -> ``/x/y``).
    """
    if "/" not in text or not test_file:
        return None
    first, sep, _ = test_file.partition("/")
    match = _rootdir_pattern(first, bool(sep)).search(text)
    return match.group(1) if match and match.group(1) else None


@lru_cache(maxsize=256)
def _rootdir_pattern(first: str, folder: bool) -> re.Pattern[str]:
    tail = re.escape(first + "/") if folder else re.escape(first) + r"(?![\w.])"
    return re.compile(r"(?<![\w.~:/-])(/[^\s'\"():,]*?)/" + tail)


@lru_cache(maxsize=256)
def _root_pattern(root: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.~-])" + re.escape(root) + r"(/|(?=[\s'\":),\]]|$))")


class Scrubber:
    """Makes quoted paths public: the run's rootdirs and the publisher's working directory
    dropped, home directories ``~``, installed packages ``site-packages/``.
    """

    def __init__(self, rootdirs: Iterable[str] = ()) -> None:
        here = os.getcwd()
        home = os.path.expanduser("~")
        roots = {r.rstrip("/") for r in rootdirs if r and r != "/"}
        if here not in ("/", ""):
            roots.add(here.rstrip("/"))
        self._roots = [(root, _root_pattern(root)) for root in sorted(roots, key=len, reverse=True)]
        home = home.rstrip("/") if home not in ("/", "", "~") else ""
        self._home = re.compile(r"(?<![\w.~-])" + re.escape(home) + r"(?=[/\s'\":),\]]|$)") if home else None

    def __call__(self, text: str) -> str:
        if "\\" not in text and not _MAYBE_ABSOLUTE.search(text):  # a URL or a relative path only
            return text
        for root, pattern in self._roots:
            if root in text:
                text = pattern.sub(lambda m: "" if m.group(1) else ".", text)
        text = _PACKAGES.sub("site-packages/", text)
        if self._home is not None:
            text = self._home.sub("~", text)
        text = _HOME.sub("~", text)
        return _WINDOWS_HOME.sub("~", text)


def public_origin(text: str) -> str:
    """A replay's recording as published: an absolute path keeps its file name only."""
    return _ABSOLUTE.sub(lambda m: os.path.basename(m.group()), text) if "/" in text else text


_BUNDLED = re.compile(r"/(?:site|dist)-packages/pytest_rocmcompat/bundled_matrices/[^/]+$")
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:/")
_RULES_SOURCE = re.compile(r"^(?P<head>.*\()(?P<path>[^()]+)(?P<tail>\))$")


def public_matrix_path(path: str, rootdir: str | None = None) -> str:
    """A rules file as published: relative to the rootdir where it lies below it, else
    ``bundled h100.yaml`` for a bundled matrix, else its file name; a text that is no path
    (``bundled known_bad.yaml``, a bundled name) stays as it is.
    """
    text = path.strip()
    norm = text.replace("\\", "/")
    if "/" not in norm:
        return text
    if not (os.path.isabs(text) or _WINDOWS_ABSOLUTE.match(norm)):
        return norm
    if rootdir:
        rel = os.path.relpath(os.path.abspath(text), os.path.abspath(rootdir))
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    from pytest_rocmcompat.safe_io.package_files import bundled_matrices_dir

    name = norm.rpartition("/")[2]
    if os.path.dirname(os.path.abspath(text)) == str(bundled_matrices_dir()) or _BUNDLED.search(norm):
        return f"bundled {name}"
    return name


def public_rules_property(value: str) -> str:
    """``rocm_rules`` as published: ``0 of 49 active (/venv/.../bundled_matrices/h100.yaml)`` ->
    ``0 of 49 active (bundled h100.yaml)``; files written before it was made relative included.
    """
    match = _RULES_SOURCE.match(value)
    if not match:
        return value
    return f"{match.group('head')}{public_matrix_path(match.group('path'))}{match.group('tail')}"

"""Collects validation problems with file, line and key path (shared by all schemas)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from typing import Any

from pytest_rocmcompat.errors import Problem, show
from pytest_rocmcompat.matrix.limits import version_length_problem
from pytest_rocmcompat.matrix.yaml_lines import line_of
from pytest_rocmcompat.stack.versions import InvalidSpecifier, InvalidVersion, parse_specifier, parse_version


def join_path(path: str, key: Any) -> str:
    """``join_path("known_bad", 3)`` -> ``known_bad[3]``; ``join_path("when", "torch")`` -> ``when.torch``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def got(value: Any) -> str:
    """``a number 2.5``, ``nothing (null)``, ``a list`` — what a message says it found."""
    if value is None or isinstance(value, (list, dict)):
        return type_name(value)
    return f"{type_name(value)} {show(value)}"


def type_name(value: Any) -> str:
    """A reader's name for a YAML value's type."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class Checker:
    """Validation context for one file: records problems instead of raising."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []

    def add(self, container: Any, key: Any, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, line_of(container, key), path, message))

    # ---- structural checks ---------------------------------------------
    def mapping(self, container: Any, key: Any, path: str, value: Any) -> dict | None:
        if isinstance(value, dict):
            return value
        self.add(container, key, path, f"expected a mapping, got {type_name(value)}")
        return None

    def keys(self, mapping: dict, allowed: Iterable[str], path: str) -> None:
        """Report unknown keys with a did-you-mean suggestion."""
        allowed = tuple(allowed)
        for key in mapping:
            if key in allowed:
                continue
            if not isinstance(key, str):
                self.add(mapping, key, path, f"keys must be strings, got {got(key)}")
                continue
            self.unknown(mapping, key, join_path(path, key), key, allowed, "key")

    def unknown(
        self, container: Any, key: Any, path: str, text: str, known: tuple[str, ...], what: str, *, hint: str = ""
    ) -> None:
        """Report an unknown name, suggesting the closest known one (then ``hint``, if given)."""
        close = difflib.get_close_matches(str(text), known, n=1, cutoff=0.6)
        plural = what[:-2] + "es" if what.endswith("is") else what + "s"
        suggestion = f"; did you mean {close[0]!r}?" if close else f"; known {plural}: {', '.join(known)}"
        self.add(container, key, path, f"unknown {what} {show(text)}{suggestion}" + (f" ({hint})" if hint else ""))

    def string(self, container: Any, key: Any, path: str, value: Any, *, nonempty: bool = True) -> str | None:
        if isinstance(value, str) and (value.strip() or not nonempty):
            return value
        if isinstance(value, str):
            self.add(container, key, path, "must not be empty")
        else:
            self.add(container, key, path, f"expected a string, got {got(value)}")
        return None

    def string_list(self, container: Any, key: Any, path: str, value: Any) -> list[tuple[Any, Any, str, str]]:
        """A string or a list of strings -> ``[(container, key, path, text)]`` for each valid item."""
        if isinstance(value, str):
            return [(container, key, path, value)] if self.string(container, key, path, value) else []
        if not isinstance(value, list):
            self.add(container, key, path, f"expected a string or a list of strings, got {type_name(value)}")
            return []
        if not value:
            self.add(container, key, path, "must not be an empty list")
        out = []
        for i, item in enumerate(value):
            if self.string(value, i, join_path(path, i), item):
                out.append((value, i, join_path(path, i), item))
        return out

    def version_text(self, container: Any, key: Any, path: str, value: Any) -> str | None:
        """A version written as a quoted string; numbers are refused (YAML reads 6.10 as 6.1)."""
        if isinstance(value, bool) or value is None:
            self.add(container, key, path, f"expected a version string, got {type_name(value)}")
            return None
        if isinstance(value, (int, float)):
            self.add(
                container,
                key,
                path,
                f"{show(value)} is a number, write the version as a quoted string: '{show(value, quotes=False)}' "
                "(YAML reads 6.10 as the number 6.1)",
            )
            return None
        if not isinstance(value, str):
            self.add(container, key, path, f"expected a version string, got {type_name(value)}")
            return None
        too_long = version_length_problem(value)
        if too_long:
            self.add(container, key, path, f"{show(value)} {too_long}")
            return None
        try:
            parse_version(value)
        except (InvalidVersion, ValueError):
            self.add(container, key, path, f"{show(value)} is not a valid version (PEP 440, e.g. '2.6' or '6.2.4')")
            return None
        return value

    def specifier_text(self, container: Any, key: Any, path: str, value: Any) -> str | None:
        """A PEP 440 specifier such as ``'>=2.5,<2.7'`` (a bare version means ``==``)."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self.add(
                container,
                key,
                path,
                f"{show(value)} is a number, write the specifier as a quoted string: '=={show(value, quotes=False)}.*' or '>={show(value, quotes=False)}'",
            )
            return None
        if not isinstance(value, str):
            self.add(container, key, path, f"expected a version specifier string, got {type_name(value)}")
            return None
        too_long = version_length_problem(value)
        if too_long:
            self.add(container, key, path, f"{show(value)} {too_long}")
            return None
        try:
            parse_specifier(value)
        except (InvalidSpecifier, ValueError):
            self.add(
                container,
                key,
                path,
                f"{show(value)} is not a valid version specifier (PEP 440, e.g. '>=2.5,<2.7' or '==2.5.*')",
            )
            return None
        return value

    def number(
        self, container: Any, key: Any, path: str, value: Any, *, positive: bool = True, whole: bool = False
    ) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.add(container, key, path, f"expected a number, got {got(value)}")
            return None
        if not math.isfinite(value):
            self.add(container, key, path, f"must be a finite number, got {show(value)}")
            return None
        if whole and value != int(value):
            self.add(container, key, path, f"must be a whole number, got {show(value)}")
            return None
        if positive and not value > 0:
            self.add(container, key, path, f"must be greater than 0, got {show(value)}")
            return None
        return float(value)

"""Load a matrix file and everything it includes into one validated :class:`Matrix`."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_rocmcompat.errors import ConfigError, Problem, show
from pytest_rocmcompat.matrix.cache import MatrixCache
from pytest_rocmcompat.matrix.model import FileContent, Matrix
from pytest_rocmcompat.safe_io.input_files import InputError, read_text_file
from pytest_rocmcompat.safe_io.package_files import KNOWN_BAD_NAME, bundled_matrices_dir


def resolve_matrix_name(value: str) -> str:
    """``--rocm-matrix`` value -> file: an existing path first, then a bundled matrix by bare name
    (``mi300``, ``cpu.yaml``); anything else unchanged (loading it then says the file is missing).
    """
    try:
        if os.path.exists(value) or os.sep in value or "/" in value:
            return value
        name = value if value.endswith((".yaml", ".yml")) else f"{value}.yaml"
        bundled = bundled_matrices_dir() / name
        return str(bundled) if bundled.is_file() else value
    except (OSError, ValueError):  # an unusable name: loading it reports the problem
        return value


def bundled_matrix_names() -> list[str]:
    """The bundled matrices' bare names (``cpu``, ``mi300``, ...), without the shared database."""
    return sorted(p.stem for p in bundled_matrices_dir().glob("*.yaml") if p.name != KNOWN_BAD_NAME)


def bundled_known_bad() -> Path:
    """The shared known-bad database that applies when no matrix is given."""
    return bundled_matrices_dir() / KNOWN_BAD_NAME


def load_matrix(path: str | os.PathLike[str], *, cache: MatrixCache | None = None) -> Matrix:
    """Read, validate and merge ``path`` with its includes; raise :class:`ConfigError`.

    With a ``cache``, a file whose text was checked clean before is not parsed again.
    """
    problems: list[Problem] = []
    contents: list[tuple[str, FileContent]] = []
    _load_tree(str(path), included=False, chain=(), problems=problems, out=contents, seen=set(), cache=cache)
    if problems:
        files = list(dict.fromkeys(p.file for p in problems))
        raise ConfigError(sorted(problems, key=lambda p: (files.index(p.file), p.line or 0)))
    return _merge(str(path), contents)


def _display(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def _read(path: str, problems: list[Problem], at: Problem | None) -> str | None:
    line = None
    try:
        return read_text_file(path)
    except InputError as exc:
        what, line = exc.args[0], exc.line
    except FileNotFoundError:
        what = "file not found"
    except IsADirectoryError:
        what = "is a directory, not a matrix file"
    except OSError as exc:
        what = f"cannot be read: {exc.strerror or exc}"
    except ValueError as exc:  # e.g. an embedded NUL in the name
        what = f"is not a usable file name ({exc})"
    if at is not None:
        problems.append(Problem(at.file, at.line, at.path, f"{at.message}: {what}"))
    else:
        problems.append(Problem(_display(path), line, "", what))
    return None


def _load_tree(
    path: str,
    *,
    included: bool,
    chain: tuple[str, ...],
    problems: list[Problem],
    out: list[tuple[str, FileContent]],
    seen: set[str],
    cache: MatrixCache | None,
    at: Problem | None = None,
) -> None:
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        real = path
    if real in chain:
        cycle = " -> ".join(_display(p) for p in (*chain[chain.index(real) :], real))
        assert at is not None
        problems.append(Problem(at.file, at.line, at.path, f"include cycle: {cycle}"))
        return
    if real in seen:  # included twice through different routes: merge once
        return
    seen.add(real)
    text = _read(path, problems, at)
    if text is None:
        return
    name = _display(path)
    if not text.strip():
        problems.append(Problem(name, 1, "", "the file is empty"))
        return
    key = cache.key(text, name, included) if cache is not None else ""
    content = cache.get(key, text) if cache is not None else None
    if content is None:
        content, own = _check(text, name, included)
        problems.extend(own)
        if content is None:
            return
        if cache is not None and not own:  # only clean files: every message comes from a real check
            cache.put(key, text, content)
    for i, (include, line) in enumerate(content.includes):
        target = _resolve_include(path, include)
        where = Problem(name, line, f"include[{i}]", f"cannot include {show(include)}")
        _load_tree(
            target, included=True, chain=(*chain, real), problems=problems, out=out, seen=seen, cache=cache, at=where
        )
    out.append((name, content))


def _check(text: str, name: str, included: bool) -> tuple[FileContent | None, list[Problem]]:
    """Parse and check one file's text: its content (``None`` if unreadable YAML) and problems.

    Imported here, not at the top: a cached file needs neither PyYAML nor the checks.
    """
    from pytest_rocmcompat.matrix.checker import Checker
    from pytest_rocmcompat.matrix.schema import check_file
    from pytest_rocmcompat.matrix.yaml_lines import load_yaml

    try:
        data = load_yaml(text, name)
    except ConfigError as exc:
        return None, list(exc.problems)
    ck = Checker(name)
    return check_file(data, ck, included=included), list(ck.problems)


def _resolve_include(including: str, include: str) -> str:
    """Relative to the including file; a bare name missing there falls back to the bundled copy."""
    candidate = os.path.join(os.path.dirname(os.path.abspath(including)), include)
    try:
        if os.path.exists(candidate):
            return candidate
        bundled = bundled_matrices_dir() / include
        if os.sep not in include and "/" not in include and bundled.is_file():
            return str(bundled)
    except (OSError, ValueError):  # unusable name: _read() reports it
        pass
    return candidate


def _merge(path: str, contents: list[tuple[str, FileContent]]) -> Matrix:
    """Included files come first (their rules before the including file's)."""
    main_name, main = contents[-1]
    rules = []
    first_seen: dict[str, str] = {}
    problems = []
    for _, content in contents:
        for rule in content.rules:
            if rule.id in first_seen:
                problems.append(
                    Problem(
                        rule.file,
                        rule.line,
                        "known_bad",
                        f"duplicate rule id {rule.id!r} (first defined at {first_seen[rule.id]})",
                    )
                )
                continue
            first_seen[rule.id] = rule.location
            rules.append(rule)
    if problems:
        raise ConfigError(problems)
    return Matrix(
        name=main.name or Path(path).stem,
        file=main_name,
        platform=main.platform,
        archs=main.archs,
        axes=tuple(main.axes.items()),
        excludes=tuple(main.excludes),
        suites=main.suites,
        metrics=dict(main.metrics),
        floors=dict(main.floors),
        expect=dict(main.expect),
        rules=tuple(rules),
        files=tuple(name for name, _ in contents),
        checks=dict(getattr(main, "checks", {})),
    )

"""A stack as users hold it, read into package versions: ``rocmcompat check FILE``.

Formats (detected from the name and the content): ``pip freeze`` output and requirements or
constraints files with ``==`` pins (comments, ``-r``/``-c`` includes relative to the file,
environment markers, extras, ``--hash`` continuation lines), a ``uv.lock`` (a universal lock is
resolved by its markers for the target Python and platform), conda's formats (conda_files.py:
``conda env export``'s ``environment.yml`` with its nested ``pip:`` list, format ``conda``; plain
``conda list``, ``conda list --export`` and ``--explicit``, format ``conda-list``, told apart by
their headers or by every line being ``name=version=build``), a recorded probe
(``rocmcompat probe --json``), and PyTorch's environment report (``python -m torch.utils.collect_env``,
vLLM's ``vllm collect-env``; collect_env.py), which states the GPUs, driver and build as well.

conda keeps what a wheel's version says in the build string: conda's torch
(``pytorch=2.3.1=py3.10_cuda12.1_cudnn8.9.2_0``) is read as ``torch 2.3.1+cu121``, never as PyPI's
default wheel. conda's CUDA and NCCL packages (``nccl``, ``cudatoolkit``, ``cuda-version``,
``cuda-cudart``) stay in the package list under their names, for the checks that read them.

A file may start with a byte-order mark (Windows PowerShell 5 writes ``pip freeze > FILE`` as
UTF-16): safe_io/input_files.py reads it by the mark, as pip does.

A range is not a stack: a requirement without one exact version (``>=``, ``==2.5.*``, no
version) raises :class:`StackFileError` naming the file, the line and how to pin it. A direct
reference to a wheel or an sdist (``NAME @ .../NAME-1.2.3.tar.gz``) names its version in the
file name; one that names none (``NAME @ file:///.../work``, as ``pip freeze`` writes every
package conda installed) is not a range but not checkable, as editable and VCS requirements
are. pip's own messages captured with the output (``WARNING: ...``) are named as such. Nothing
here looks at the machine it runs on: markers are evaluated for :class:`Target` alone.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from packaging.markers import InvalidMarker, Marker, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.safe_io.input_files import InputError, decode_text, read_text_file
from pytest_rocmcompat.stack import pytorch_index
from pytest_rocmcompat.stack.collect_env import looks_like_collect_env, parse_collect_env
from pytest_rocmcompat.stack.conda_files import finish, looks_like_conda_list, read_conda_export, read_conda_list
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.stack_model import LockSelection, StackFile, StackFileError, Target

STACK_FILE_BYTES = 4 * 2**20  # a uv.lock of a large project is a few hundred KB
MAX_INCLUDE_DEPTH = 16
FORMATS = ("requirements", "uv.lock", "pylock", "conda", "conda-list", "probe", "collect-env")
PIN_HOW = (
    "pin it to one version: write the stack with `pip freeze > FILE` from the environment, "
    "resolve ranges with `uv pip compile requirements.in -o requirements.txt` (or pip-compile), "
    "or check a lockfile (uv.lock)"
)
# Pythons a file without one is tried against: a choice that differs among them needs --set python.
CANDIDATE_PYTHONS = ("3.8.0", "3.9.0", "3.10.0", "3.11.0", "3.12.0", "3.13.0", "3.14.0")
_VCS = ("git+", "hg+", "svn+", "bzr+")
_IGNORED_OPTIONS = (
    "-i", "--index-url", "--extra-index-url", "--no-index", "-f", "--find-links", "--pre",
    "--trusted-host", "--no-binary", "--only-binary", "--prefer-binary", "--require-hashes",
    "--use-feature", "--config-settings", "--global-option", "--hash",
)  # fmt: skip


# ---------------------------------------------------------------------------- entry points
def detect_format(path: str, text: str) -> str:
    """``requirements`` | ``uv.lock`` | ``conda`` | ``conda-list`` | ``probe`` | ``collect-env``, from the name first,
    then the content.
    """
    name = os.path.basename(path).lower()
    stripped = text.lstrip()
    if re.fullmatch(r"pylock(?:\.[^.]+)?\.toml", name) or (
        re.search(r"(?m)^lock-version\s*=", text) and re.search(r"(?m)^\[\[packages\]\]\s*$", text)
    ):
        return "pylock"
    if name.endswith(".lock") or re.search(r"(?m)^\[\[package\]\]\s*$", text):
        return "uv.lock"
    if name.endswith(".json") or stripped.startswith("{"):
        return "probe"
    if looks_like_collect_env(text):
        return "collect-env"
    if not name.endswith((".yml", ".yaml")) and looks_like_conda_list(text):
        return "conda-list"
    if name.endswith((".yml", ".yaml")) or re.search(r"(?m)^dependencies:\s*$", text):
        return "conda"
    return "requirements"


def load_stack(path: str, target: Target, fmt: str | None = None, selection: LockSelection | None = None) -> StackFile:
    """Read ``path`` (bounded, regular files only; ``-``: standard input) and parse it for ``target``."""
    text = _read(path, path, None)
    path = "<stdin>" if path == STDIN else path  # as messages name it; its includes are relative to here
    _refuse_key_blocks(path, text)
    fmt = fmt or detect_format(path, text)
    if fmt == "uv.lock":
        return parse_uv_lock(path, text, target, selection or LockSelection())
    if fmt == "pylock":
        return parse_pylock(path, text, target)
    if fmt == "conda":
        return parse_conda(path, text, target)
    if fmt == "conda-list":
        return parse_conda_list(path, text)
    if fmt == "probe":
        return parse_probe(path, text)
    if fmt == "collect-env":
        return parse_collect_env(path, text)
    return parse_requirements(path, text, target)


_STDIN: list[str] = []  # ``-``: standard input, read once per process (a stack is loaded again for its Python)
STDIN = "-"


def _read(path: str, shown: str, where: str | None) -> str:
    if path == STDIN and where is None:
        if not _STDIN:
            _STDIN.append(_read_stdin())
        return _STDIN[0]
    try:
        return read_text_file(path, limit=STACK_FILE_BYTES, what="a stack file (pip freeze, requirements, uv.lock)")
    except InputError as exc:
        place = f"{shown}:{exc.line}" if exc.line else shown
        raise StackFileError(f"{place}: {exc}") from None
    except OSError as exc:
        prefix = f"{where}: " if where else ""
        raise StackFileError(f"{prefix}{shown}: cannot read the stack file: {exc.strerror or exc}") from None


_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")


def _refuse_key_blocks(shown: str, text: str) -> None:
    """A file holding a private key is no stack file, and the line-by-line errors would quote the key's body (only
    the whole block shows that it is one): refused before parsing, naming only the line where it begins.
    """
    found = _KEY_BLOCK.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        raise StackFileError(
            f"{shown}:{line}: holds a private key block (-----BEGIN ... PRIVATE KEY-----), so it is no stack file; "
            "nothing of it is shown"
        )


def _read_stdin() -> str:
    """``rocmcompat check -``: the stack piped in (``pip freeze | rocmcompat check -``), as bounded as a file."""
    data = sys.stdin.buffer.read(STACK_FILE_BYTES + 1)
    if len(data) > STACK_FILE_BYTES:
        raise StackFileError(f"<stdin>: more than {STACK_FILE_BYTES // 2**20} MiB; a stack file may be at most that")
    try:
        return decode_text(data)
    except InputError as exc:
        raise StackFileError(f"<stdin>:{exc.line}: {exc}" if exc.line else f"<stdin>: {exc}") from None


# ---------------------------------------------------------------------------- requirements / pip freeze
@dataclass
class _Pin:
    name: str
    version: str | None  # None: not pinned (allowed only when a constraint pins it)
    where: str  # FILE:LINE
    problem: str = ""  # why it is not pinned


@dataclass
class _Requirements:
    wanted: list[_Pin] = field(default_factory=list)
    constraints: dict[str, _Pin] = field(default_factory=dict)
    not_checkable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    pytorch_labels: set[str] = field(default_factory=set)  # the builds of PyTorch indexes named (pytorch_index)


def parse_requirements(path: str, text: str, target: Target) -> StackFile:
    """``pip freeze`` output or a requirements/constraints file: every requirement pinned to one version."""
    found = _Requirements()
    _read_requirements(path, text, target, found, constraint=False, seen=(os.path.abspath(path),))
    packages: dict[str, str] = {}
    origin: dict[str, str] = {}
    for pin in found.wanted:
        version = pin.version
        constraint = found.constraints.get(pin.name)
        if version is None:
            if constraint is None:
                raise StackFileError(f"{pin.where}: {pin.problem}: a range is not a stack; {PIN_HOW}")
            version = constraint.version
        elif constraint is not None and _differs(constraint.version, version):
            raise StackFileError(
                f"{pin.where}: {pin.name}=={version} disagrees with the constraint "
                f"{pin.name}=={constraint.version} at {constraint.where}"
            )
        assert version is not None
        if pin.name in packages and _differs(packages[pin.name], version):
            raise StackFileError(
                f"{pin.where}: {pin.name}=={version}, but {origin[pin.name]} pins {pin.name}=={packages[pin.name]}; "
                "one stack has one version of each package"
            )
        packages[pin.name] = version
        origin[pin.name] = pin.where
    packages = pytorch_index.labelled(packages, found.pytorch_labels)
    return StackFile(path, "requirements", packages, None, tuple(found.not_checkable), tuple(found.skipped))


def _differs(a: str | None, b: str | None) -> bool:
    try:
        return Version(a or "") != Version(b or "")
    except InvalidVersion:
        return a != b


def _logical_lines(text: str) -> Iterable[tuple[int, str]]:
    """(first line number, text) with ``\\`` continuations joined and comments removed (pip's rules)."""
    buffer: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s+)#.*$", "", raw)  # a comment starts at a '#' after whitespace
        if not buffer:
            start = number
        if line.endswith("\\"):
            buffer.append(line[:-1])
            continue
        buffer.append(line)
        joined = " ".join(part.strip() for part in buffer).strip()
        buffer = []
        if joined:
            yield start, joined
    if buffer:
        joined = " ".join(part.strip() for part in buffer).strip()
        if joined:
            yield start, joined


def _read_requirements(
    path: str, text: str, target: Target, found: _Requirements, *, constraint: bool, seen: tuple[str, ...]
) -> None:
    for number, line in _logical_lines(text):
        where = f"{path}:{number}"
        if line.startswith("-"):
            _option(path, where, line, target, found, constraint=constraint, seen=seen)
            continue
        _requirement(where, line, target, found, constraint=constraint)


_INCLUDE = re.compile(r"^(-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?<=-r)|(?<=-c))(\S.*)$")


def _option(
    path: str, where: str, line: str, target: Target, found: _Requirements, *, constraint: bool, seen: tuple[str, ...]
) -> None:
    include = _INCLUDE.match(line)
    if include:
        kind, name = include.group(1), include.group(2).strip()
        if re.match(r"^[a-z][a-z0-9+.-]*://", name):
            raise StackFileError(f"{where}: {kind} {name}: an included file must be a local path")
        resolved = name if os.path.isabs(name) else os.path.join(os.path.dirname(path) or ".", name)
        key = os.path.abspath(resolved)
        if key in seen:
            raise StackFileError(f"{where}: {kind} {name} includes a file already being read (an include cycle)")
        if len(seen) > MAX_INCLUDE_DEPTH:
            raise StackFileError(f"{where}: {kind} {name}: includes nested deeper than {MAX_INCLUDE_DEPTH}")
        text = _read(resolved, resolved, where)
        _refuse_key_blocks(resolved, text)
        as_constraint = constraint or kind in ("-c", "--constraint")
        _read_requirements(resolved, text, target, found, constraint=as_constraint, seen=(*seen, key))
        return
    if line.startswith(("-e", "--editable")):
        value = re.sub(r"^(-e|--editable)\s*=?\s*", "", line)
        found.not_checkable.append(f"{where}: editable {value} (an editable install has no released version)")
        return
    option, *rest = re.split(r"[\s=]+", line, maxsplit=1)
    if option in pytorch_index.INDEX_OPTIONS and rest:
        label = pytorch_index.index_label(rest[0])
        if label is not None:
            found.pytorch_labels.add(label)
    if option in _IGNORED_OPTIONS:
        return
    raise StackFileError(f"{where}: unknown option {option!r} (a requirements file takes -r, -c, -e and pip's options)")


def _requirement(where: str, line: str, target: Target, found: _Requirements, *, constraint: bool) -> None:
    text = re.sub(r"\s--hash[=\s]\S+", "", f" {line}").strip()  # hashes pin files, not versions
    text = re.sub(r"\s--(config-settings|global-option|install-option)[=\s]\S+", "", f" {text}").strip()
    if text.startswith(_VCS) or re.match(r"^[^;@]+@\s*(git|hg|svn|bzr)\+", text):
        found.not_checkable.append(f"{where}: {text} (a VCS checkout has no released version)")
        return
    if _PIP_MESSAGE.match(text):
        shown = text if len(text) <= 80 else f"{text[:77]}..."
        raise StackFileError(
            f"{where}: `{shown}` is pip's own message, not a requirement (captured with the output); "
            "write the file with `pip freeze > FILE` (stdout only, without 2>&1)"
        )
    text = _named_archive(text)
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        raise StackFileError(f"{where}: not a requirement ({exc})") from None
    if req.marker is not None and not _marker_holds(req.marker, target, where):
        found.skipped.append(f"{where}: {req.name} (its marker `{req.marker}` excludes the target)")
        return
    name = normalize_library(req.name)
    if req.url:
        version = _url_version(req.name, req.url, where)
        if version is None:
            # not a range: pip freeze writes this for a package built from a directory (conda's
            # packages: `accelerate @ file:///home/conda/feedstock_root/build_artifacts/...`)
            if not constraint:
                source = "a local directory" if req.url.startswith("file:") else "a URL"
                found.not_checkable.append(
                    f"{where}: {req.name} from {source} names no version "
                    "(`pip list --format=freeze` writes the installed version)"
                )
            return
        _add(found, _Pin(name, version, where), constraint)
        return
    exact = [s for s in req.specifier if s.operator in ("==", "===") and not s.version.endswith(".*")]
    if len(exact) != 1:
        what = f"{req.name}{req.specifier}" if str(req.specifier) else f"{req.name} (no version)"
        _unpinned(found, name, where, f"{what} is not pinned to one version", constraint)
        return
    version = exact[0].version
    try:
        Version(version)
    except InvalidVersion:
        raise StackFileError(f"{where}: {req.name}=={version}: not a valid version (PEP 440)") from None
    _add(found, _Pin(name, version, where), constraint)


_ARCHIVE_URL = re.compile(
    r"^(?P<url>(?:https?|file)://\S+?/(?P<file>[^/\s;]+\.(?:whl|tar\.gz|zip)))(?P<rest>\s*(?:;.*)?)$"
)


def _named_archive(text: str) -> str:
    """A line that is a wheel's or an sdist's URL alone (pip installs it as it is): ``NAME @ URL`` with the name
    its file name gives; anything else as it is.
    """
    m = _ARCHIVE_URL.match(text)
    if m is None:
        return text
    try:
        if m.group("file").endswith(".whl"):
            name = str(parse_wheel_filename(m.group("file"))[0])
        else:
            name = str(parse_sdist_filename(re.sub(r"\.zip$", ".tar.gz", m.group("file")))[0])
    except (InvalidWheelFilename, InvalidSdistFilename):
        return text
    rest = m.group("rest").strip()  # PEP 508 wants a blank between a URL and its marker; pip does not
    return f"{name} @ {m.group('url')}" + (f" {rest}" if rest else "")


def _add(found: _Requirements, pin: _Pin, constraint: bool) -> None:
    if constraint:
        found.constraints.setdefault(pin.name, pin)
    else:
        found.wanted.append(pin)


def _unpinned(found: _Requirements, name: str, where: str, problem: str, constraint: bool) -> None:
    if constraint:
        return  # a constraint that pins nothing adds nothing
    found.wanted.append(_Pin(name, None, where, problem))


def _url_version(requested: str, url: str, where: str) -> str | None:
    """The version a direct reference's file name states: a wheel's (PEP 427) or an sdist's
    (``NAME-VERSION.tar.gz``/``.zip``); None for any other URL (a directory, a VCS, an archive
    of a branch). A file of another project is an error.
    """
    from urllib.parse import unquote

    filename = unquote(url.split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1])
    try:
        if filename.endswith(".whl"):
            file_name, version, _, _ = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            file_name, version = parse_sdist_filename(filename)
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    if normalize_library(file_name) != normalize_library(requested):
        raise StackFileError(
            f"{where}: {requested} @ {url}: the file is {file_name} {version}, not {requested}; "
            f"name the project the file holds"
        )
    return str(version)


_PIP_MESSAGE = re.compile(r"^(WARNING|DEPRECATION|ERROR|NOTICE):\s|^\[notice\]\s", re.IGNORECASE)


def _marker_holds(marker: Marker, target: Target, where: str) -> bool:
    """The marker for the target; without a known Python, every candidate must agree."""
    try:
        if target.python:
            return bool(marker.evaluate(target.markers()))
        results = {bool(marker.evaluate(target.markers(p))) for p in CANDIDATE_PYTHONS}
    except (InvalidMarker, UndefinedEnvironmentName) as exc:
        raise StackFileError(f"{where}: marker `{marker}` cannot be evaluated ({exc})") from None
    if len(results) > 1:
        raise StackFileError(
            f"{where}: the marker `{marker}` depends on the Python version and the file does not say "
            "which; give it with --set python=3.X"
        )
    return results.pop()


# ---------------------------------------------------------------------------- pylock.toml (PEP 751)
def parse_pylock(path: str, text: str, target: Target) -> StackFile:
    """A ``pylock.toml`` (PEP 751: ``pip lock``, ``uv export --format pylock.toml``): each ``[[packages]]`` entry
    whose ``marker`` holds for ``target`` is installed at its ``version``; one without a version (a VCS checkout,
    a directory) is not checkable.
    """
    data = _load_toml(path, text)
    packages = data.get("packages")
    if not isinstance(packages, list) or not all(isinstance(p, dict) for p in packages):
        raise StackFileError(f"{path}: no [[packages]] tables; a pylock.toml is written by `pip lock` or `uv export`")
    _requires_python(path, data, target)
    found: dict[str, str] = {}
    not_checkable: list[str] = []
    skipped: list[str] = []
    for package in packages:
        name, version, marker = package.get("name"), package.get("version"), package.get("marker")
        if not isinstance(name, str):
            raise StackFileError(f"{path}: a [[packages]] entry without a name")
        line = _line_of(text, name, version if isinstance(version, str) else None)
        where = f"{path}:{line}" if line else path
        if isinstance(marker, str):
            try:
                parsed = Marker(marker)
            except InvalidMarker as exc:
                raise StackFileError(f"{where}: marker `{marker}` is not a marker ({exc})") from None
            if not _marker_holds(parsed, target, where):
                skipped.append(f"{where}: {name} (its marker `{marker}` excludes the target)")
                continue
        if not isinstance(version, str):
            not_checkable.append(f"{where}: {name} names no version (a VCS checkout, a directory or an archive)")
            continue
        try:
            Version(version)
        except InvalidVersion:
            raise StackFileError(f"{where}: {name} {version}: not a valid version (PEP 440)") from None
        key = normalize_library(name)
        if found.get(key, version) != version:
            raise StackFileError(f"{where}: {name} {version} and {found[key]} are both installed for the target")
        found[key] = version
    return StackFile(path, "pylock", dict(sorted(found.items())), None, tuple(not_checkable), tuple(skipped))


# ---------------------------------------------------------------------------- uv.lock
def parse_uv_lock(path: str, text: str, target: Target, selection: LockSelection | None = None) -> StackFile:
    """A ``uv.lock``: the packages the workspace installs for ``target`` (markers resolved) with ``selection``'s
    extras and dependency groups, as ``uv sync`` installs them.
    """
    selection = selection or LockSelection()
    data = _load_toml(path, text)
    packages = data.get("package")
    if not isinstance(packages, list) or not all(isinstance(p, dict) for p in packages):
        raise StackFileError(f"{path}: no [[package]] tables; a uv.lock is written by `uv lock`")
    entries = [_lock_entry(path, text, p) for p in packages]
    members = _workspace_members(entries, data)
    _check_selection(path, entries, members, selection)
    requires_python = _requires_python(path, data, target)
    if target.python:
        return _resolve_lock(path, text, entries, target, members, selection)
    # No Python given: the lock must resolve the same for every Python it allows.
    results = {}
    for candidate in CANDIDATE_PYTHONS:
        if requires_python is not None and not _python_allowed(requires_python, candidate):
            continue
        try:
            stack = _resolve_lock(
                path, text, entries, Target(candidate, target.sys_platform, target.machine), members, selection
            )
        except StackFileError:
            continue
        results[candidate] = stack
    if not results:
        return _resolve_lock(
            path, text, entries, Target("3.12.0", target.sys_platform, target.machine), members, selection
        )
    stacks = list(results.items())
    for python, stack in stacks[1:]:
        if stack.packages != stacks[0][1].packages:
            other = stacks[0][1].packages
            name = sorted(n for n in {*stack.packages, *other} if stack.packages.get(n) != other.get(n))[0]
            shown = {p: s.packages.get(name, "not installed") for p, s in (stacks[0], (python, stack))}
            raise StackFileError(
                f"{path}: this universal lock installs different packages for different Pythons ({name}: "
                + ", ".join(f"{v} on Python {'.'.join(p.split('.')[:2])}" for p, v in shown.items())
                + "); give the Python with --set python=3.X"
            )
    first = next(iter(results.values()))
    return StackFile(path, "uv.lock", first.packages, None, first.not_checkable, first.skipped)


def _load_toml(path: str, text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"\(at line (\d+), column \d+\)", str(exc))
            where = f"{path}:{m.group(1)}" if m else path
            raise StackFileError(f"{where}: not valid TOML ({exc}); a uv.lock is written by `uv lock`") from None
    raise StackFileError(
        f"{path}: reading uv.lock needs Python 3.11 or newer (tomllib); on this Python export it with "
        "`uv export --no-hashes > requirements.txt` and check that"
    )


@dataclass(frozen=True)
class _LockEntry:
    name: str
    version: str | None
    source: Mapping[str, Any]
    resolution_markers: tuple[str, ...]
    dependencies: tuple[Mapping[str, Any], ...]
    line: int
    extras: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)  # optional-dependencies
    groups: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)  # dev-dependencies


def _lock_entry(path: str, text: str, package: Mapping[str, Any]) -> _LockEntry:
    name = package.get("name")
    if not isinstance(name, str):
        raise StackFileError(f"{path}: a [[package]] without a name")
    version = package.get("version")
    line = _line_of(text, name, version if isinstance(version, str) else None)
    deps = tuple(d for d in package.get("dependencies") or () if isinstance(d, dict))
    tables: dict[str, dict[str, tuple[Mapping[str, Any], ...]]] = {}
    for table in ("optional-dependencies", "dev-dependencies"):
        named = package.get(table) or {}
        tables[table] = {
            normalize_library(str(k)): tuple(d for d in v or () if isinstance(d, dict))
            for k, v in (named.items() if isinstance(named, dict) else ())
            if isinstance(v, list)
        }
    markers = package.get("resolution-markers") or ()
    source = package.get("source") or {}
    return _LockEntry(
        normalize_library(name),
        version if isinstance(version, str) else None,
        source if isinstance(source, dict) else {},
        tuple(m for m in markers if isinstance(m, str)),
        deps,
        line,
        tables["optional-dependencies"],
        tables["dev-dependencies"],
    )


def _line_of(text: str, name: str, version: str | None) -> int:
    pattern = rf'(?m)^name = "{re.escape(name)}"\s*\n'
    if version is not None:
        pattern += rf'version = "{re.escape(version)}"'
    m = re.search(pattern, text)
    return text.count("\n", 0, m.start()) + 1 if m else 0


def _requires_python(path: str, data: Mapping[str, Any], target: Target) -> str | None:
    """A lock's ``requires-python``; a target Python outside it is refused."""
    requires_python = data.get("requires-python")
    if not isinstance(requires_python, str):
        return None
    if target.python and not _python_allowed(requires_python, target.python):
        raise StackFileError(
            f"{path}: the lock is for Python {requires_python} (its requires-python), not {target.python}; "
            "give a Python it allows with --set python=3.X"
        )
    return requires_python


def _python_allowed(requires_python: str, python: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return Version(python) in SpecifierSet(requires_python) or any(
            Version(f"{python.rsplit('.', 1)[0]}.{patch}") in SpecifierSet(requires_python) for patch in (5, 10, 20)
        )
    except InvalidSpecifier:
        return True


def _resolve_lock(
    path: str,
    text: str,
    entries: list[_LockEntry],
    target: Target,
    members: set[str],
    selection: LockSelection,
) -> StackFile:
    markers = target.markers()
    # uv encodes a member's chosen extras and groups for its conflict markers as `extra == 'extra-8-nanochat-gpu'`
    # (`group-13-open-instruct-cuda12`): the set of those chosen, each atom of a marker judged against it
    active = {
        f"{kind}-{len(member)}-{member}-{normalize_library(name)}"
        for member in members
        for kind, names in (("extra", selection.extras), ("group", selection.groups))
        for name in names
    }

    def holds(marker: str | None, where: str) -> bool:
        if not marker:
            return True
        try:
            return bool(Marker(_with_active(marker, active)).evaluate(markers))
        except (InvalidMarker, UndefinedEnvironmentName) as exc:
            raise StackFileError(f"{where}: marker `{marker}` cannot be evaluated ({exc})") from None

    def in_fork(entry: _LockEntry) -> bool:
        where = f"{path}:{entry.line}" if entry.line else path
        return not entry.resolution_markers or any(holds(m, where) for m in entry.resolution_markers)

    by_name: dict[str, list[_LockEntry]] = {}
    for entry in entries:
        by_name.setdefault(entry.name, []).append(entry)
    roots = [e for e in entries if e.name in members] or entries
    chosen: dict[str, _LockEntry] = {}
    taken: set[tuple[str, str]] = set()  # (package, extra) whose optional dependencies are in
    # (entry, the dependency lists it brings): a member's own, its chosen extras and groups; another package's
    # dependencies and the extras a dependency on it asks for
    queue: list[tuple[_LockEntry, tuple[tuple[Mapping[str, Any], ...], ...]]] = [
        (
            root,
            (
                root.dependencies,
                *(root.extras.get(normalize_library(e), ()) for e in selection.extras),
                *(root.groups.get(normalize_library(g), ()) for g in selection.groups),
            ),
        )
        for root in roots
    ]
    while queue:
        entry, lists = queue.pop()
        where = f"{path}:{entry.line}" if entry.line else path
        existing = chosen.get(entry.name)
        if existing is not None and existing is not entry and existing.version != entry.version:
            raise StackFileError(
                f"{where}: {entry.name} {entry.version} and {existing.version} are both installed for "
                f"Python {target.python} on {target.sys_platform} (conflicting extras or groups: choose them with "
                "--extra and --group, as `uv sync` takes them)"
            )
        first = existing is None
        chosen[entry.name] = entry
        for deps in lists if first else lists[1:]:  # once chosen, only the extras asked for anew
            for dep in deps:
                _follow(dep, where, holds, in_fork, by_name, taken, queue)
    packages: dict[str, str] = {}
    not_checkable: list[str] = []
    for name, entry in sorted(chosen.items()):
        where = f"{path}:{entry.line}" if entry.line else path
        if name in members or entry.source.get("editable") is not None or entry.source.get("virtual") is not None:
            continue  # the project itself
        if entry.source.get("git") is not None:
            not_checkable.append(f"{where}: {name} from git (a VCS checkout has no released version)")
            continue
        if entry.version is None or entry.source.get("directory") is not None:
            not_checkable.append(f"{where}: {name} from a local directory (its version is the checkout's)")
            continue
        packages[name] = entry.version
    return StackFile(path, "uv.lock", packages, None, tuple(not_checkable))


def _follow(
    dep: Mapping[str, Any],
    where: str,
    holds: Callable[[str | None, str], bool],
    in_fork: Callable[[_LockEntry], bool],
    by_name: Mapping[str, list[_LockEntry]],
    taken: set[tuple[str, str]],
    queue: list[tuple[_LockEntry, tuple[tuple[Mapping[str, Any], ...], ...]]],
) -> None:
    """Queue the locked package a dependency entry names (with the extras it asks for), if its marker holds."""
    dep_name = dep.get("name")
    if not isinstance(dep_name, str):
        return
    marker = dep.get("marker")
    if not holds(marker if isinstance(marker, str) else None, where):
        return
    candidates = by_name.get(normalize_library(dep_name), [])
    version = dep.get("version")
    if isinstance(version, str):
        candidates = [c for c in candidates if c.version == version]
    elif len(candidates) > 1:
        candidates = [c for c in candidates if in_fork(c)]
    if not candidates:
        return  # uv lists every dependency it locked; a missing one is nothing to check
    target = candidates[0]
    asked = [normalize_library(str(e)) for e in dep.get("extra") or () if isinstance(e, str)]
    new = [e for e in asked if (target.name, e) not in taken]
    taken.update((target.name, e) for e in new)
    queue.append((target, (target.dependencies, *(target.extras.get(e, ()) for e in new))))


_ACTIVE_ATOM = re.compile(r"""\bextra\s*(==|!=)\s*(['"])((?:extra|group)-\d+-[^'"]+)\2""")


def _with_active(marker: str, active: set[str]) -> str:
    """``marker`` with uv's conflict atoms (``extra == 'extra-8-nanochat-gpu'``) judged against the chosen set:
    each replaced by an always true or always false comparison, for packaging's one-value ``extra``.
    """

    def judged(m: re.Match[str]) -> str:
        member = m.group(3) in active
        return "python_version >= '0'" if member == (m.group(1) == "==") else "python_version < '0'"

    return _ACTIVE_ATOM.sub(judged, marker)


def _check_selection(path: str, entries: list[_LockEntry], members: set[str], selection: LockSelection) -> None:
    """An ``--extra`` or ``--group`` no workspace member declares is a usage error (``dev`` may be absent)."""
    roots = [e for e in entries if e.name in members]
    extras = {e for r in roots for e in r.extras}
    groups = {g for r in roots for g in r.groups}
    for kind, wanted, declared in (("extra", selection.extras, extras), ("group", selection.groups, groups)):
        for name in wanted:
            if normalize_library(name) not in declared and not (kind == "group" and name == "dev"):
                known = ", ".join(sorted(declared)) or "none"
                raise StackFileError(f"{path}: no workspace member declares the {kind} {name!r} (declared: {known})")


def _workspace_members(entries: list[_LockEntry], data: Mapping[str, Any]) -> set[str]:
    manifest = data.get("manifest")
    members: set[str] = set()
    if isinstance(manifest, dict) and isinstance(manifest.get("members"), list):
        members.update(normalize_library(m) for m in manifest["members"] if isinstance(m, str))
    for entry in entries:
        if entry.source.get("editable") == "." or entry.source.get("virtual") == ".":
            members.add(entry.name)
    return members


# ---------------------------------------------------------------------------- conda (conda_files.py)
def parse_conda(path: str, text: str, target: Target) -> StackFile:
    """A ``conda env export``: ``name=version=build`` entries, a nested ``pip:`` list of pins."""
    stack, pip_lines = read_conda_export(path, text)
    packages = finish(stack)
    not_checkable, skipped = list(stack.not_checkable), list(stack.skipped)
    if pip_lines:
        python = stack.python
        pip_target = Target(python, target.sys_platform, target.machine) if python else target
        found = _Requirements()
        for number, entry in pip_lines:
            where = f"{path}:{number}" if number else path
            if entry.startswith("-"):
                _option(path, where, entry, pip_target, found, constraint=False, seen=(os.path.abspath(path),))
            else:
                _requirement(where, entry, pip_target, found, constraint=False)
        for pin in found.wanted:
            if pin.version is None:
                raise StackFileError(f"{pin.where}: {pin.problem}: a range is not a stack; {PIN_HOW}")
            packages[pin.name] = pin.version  # pip installs over conda's package of the same name
        not_checkable.extend(found.not_checkable)
        skipped.extend(found.skipped)
    packages = dict(sorted(packages.items()))
    return StackFile(path, "conda", packages, stack.python, tuple(not_checkable), tuple(skipped))


def parse_conda_list(path: str, text: str) -> StackFile:
    """``conda list``, ``conda list --export`` or ``conda list --explicit`` output."""
    stack = read_conda_list(path, text)
    return StackFile(path, "conda-list", finish(stack), stack.python, tuple(stack.not_checkable), tuple(stack.skipped))


# ---------------------------------------------------------------------------- a recorded probe
def parse_probe(path: str, text: str) -> StackFile:
    """``rocmcompat probe --json``: the recorded environment, whole."""
    try:
        env = Environment.from_json(text)
    except json.JSONDecodeError as exc:
        raise StackFileError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); a recorded stack is written by `rocmcompat probe --json`"
        ) from None
    except (ValueError, TypeError) as exc:
        raise StackFileError(f"{path}: not a recorded environment (rocmcompat probe --json): {exc}") from None
    packages = dict(env.libraries)
    if env.torch:
        packages["torch"] = env.torch
    return StackFile(path, "probe", packages, env.python or None, environment=env)


def marker_target(assignments: Iterable[tuple[str, str]], default: Target | None = None) -> Target:
    """The target of ``--set python=...`` (the last one wins)."""
    target = default or Target()
    for key, value in assignments:
        if key == "python" and value:
            try:
                Version(value)
            except InvalidVersion:
                continue  # the override itself reports it
            full = value if value.count(".") >= 2 else f"{value}.0"
            target = Target(full, target.sys_platform, target.machine)
    return target

"""``rocmcompat run``: the bundled suites from any directory, results in one folder.

``rocmcompat run [--matrix NAME|PATH] [--results DIR] [SUITE ...] [pytest args]`` runs pytest
in a child process on the suites shipped with the package (``suites/`` of a checkout, else the
installed ``pytest_rocmcompat/suites``), under the package's own small ini file, so the
surrounding project's pytest configuration never applies. The results folder (default
``./rocmcompat-results``) receives ``junit.xml``, the run report ``COMPAT.md`` and the
probed environment ``probe.json``. Exit status: pytest's; 2 for a usage mistake.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rocmcompat.safe_io.package_files import PACKAGE_DIR, suites_dirs

RUN_INI = PACKAGE_DIR / "run_pytest.ini"
DEFAULT_RESULTS = "rocmcompat-results"
USAGE = "usage: rocmcompat run [--matrix NAME|PATH] [--results DIR] [SUITE ...] [pytest args]"


class RunUsageError(Exception):
    """A mistake on the ``rocmcompat run`` command line (exit 2)."""


def suites_dir() -> Path:
    """The installed package's suites, else the checkout's ``suites/`` beside the package."""
    installed, checkout = suites_dirs()
    for candidate in (installed, checkout):
        if (candidate / "conftest.py").is_file():
            return candidate
    raise RunUsageError(f"no bundled suites found (looked in {installed} and {checkout}); reinstall pytest-rocmcompat")


def suite_names(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


@dataclass
class RunArgs:
    matrix: str | None = None
    results: str = DEFAULT_RESULTS
    suites: list[str] = field(default_factory=list)
    pytest_args: list[str] = field(default_factory=list)


def parse_run_args(argv: Sequence[str], known_suites: Sequence[str]) -> RunArgs:
    """Leading suite names (``gpu`` or ``gpu/test_numerics.py``); from the first other token on,
    everything goes to pytest, except ``--matrix`` and ``--results`` wherever they stand.
    """
    args = RunArgs()
    tokens = list(argv)
    i = 0
    in_suites = True
    while i < len(tokens):
        token = tokens[i]
        for name in ("--matrix", "--results"):
            if token == name or token.startswith(name + "="):
                if token == name:
                    if i + 1 >= len(tokens):
                        raise RunUsageError(f"{name} needs a value\n{USAGE}")
                    value = tokens[i + 1]
                    i += 2
                else:
                    value = token.split("=", 1)[1]
                    i += 1
                setattr(args, name[2:], value)
                break
        else:
            if token == "--":
                in_suites = False
            elif in_suites and not token.startswith("-"):
                head = token.replace(os.sep, "/").split("/", 1)[0]
                if head not in known_suites:
                    raise RunUsageError(
                        f"unknown suite {token!r}: the bundled suites are {', '.join(known_suites)}\n{USAGE}"
                    )
                args.suites.append(token)
            else:
                in_suites = False
                args.pytest_args.append(token)
            i += 1
    return args


def _plugin_is_installed() -> bool:
    return any(ep.value == "pytest_rocmcompat.plugin" for ep in importlib.metadata.entry_points(group="pytest11"))


def build_command(args: RunArgs, root: Path, results: Path) -> tuple[list[str], dict[str, str]]:
    """The pytest child's command line and environment."""
    from pytest_rocmcompat.matrix.loader import bundled_matrix_names, resolve_matrix_name

    command = [sys.executable, "-m", "pytest"]
    env = dict(os.environ)
    if not _plugin_is_installed():  # a checkout used without installing: load the plugin by name
        command += ["-p", "pytest_rocmcompat.plugin"]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(PACKAGE_DIR.parent), env.get("PYTHONPATH"))))
    targets = [str(root / s) for s in args.suites] or [str(root)]
    command += [
        *targets,
        f"--rootdir={root.parent}",
        f"--config-file={RUN_INI}",
        "-p",
        "no:cacheprovider",
        f"--junitxml={results / 'junit.xml'}",
        f"--rocm-report={results / 'COMPAT.md'}",
    ]
    if args.matrix:
        matrix = resolve_matrix_name(args.matrix)
        if not os.path.isfile(matrix):
            raise RunUsageError(
                f"--matrix {args.matrix}: no such file, nor a bundled matrix of that name "
                f"(bundled: {', '.join(bundled_matrix_names())})"
            )
        command.append(f"--rocm-matrix={os.path.abspath(matrix)}")
    return command + args.pytest_args, env


def _write_probe(results: Path, matrix: str | None) -> None:
    """The probed environment as ``probe.json`` (replayable with ``--rocm-env``)."""
    from pytest_rocmcompat.matrix.loader import load_matrix, resolve_matrix_name
    from pytest_rocmcompat.probe.live import probe
    from pytest_rocmcompat.safe_io.atomic import write_atomic

    extra: tuple[str, ...] = ()
    if matrix:
        try:
            extra = load_matrix(resolve_matrix_name(matrix)).library_names
        except Exception:
            extra = ()
    from pytest_rocmcompat.safe_io.escape import safe_data

    # a published artefact: values redacted before serialisation, as `rocmcompat probe --json` does
    data = safe_data(json.loads(probe(extra).to_json()))
    write_atomic(str(results / "probe.json"), json.dumps(data, indent=2, sort_keys=True) + "\n")


def shown_command(command: Sequence[str]) -> str:
    """The pytest command as ``rocmcompat run`` prints it: ``NAME=VALUE`` arguments with a secret
    name redacted (``--rocm-set env.NCCL_SOCKET_PASSWORD=...``), then as any quoted terminal text.
    """
    from pytest_rocmcompat.safe_io.escape import terminal_line
    from pytest_rocmcompat.safe_io.redact import redact_args

    return " ".join(terminal_line(arg) for arg in redact_args(list(command)))


def run_main(argv: Sequence[str]) -> int:
    from pytest_rocmcompat.safe_io.escape import echo

    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE + "\n\n" + __doc__.split("\n\n", 1)[1].strip())
        return 0
    try:
        root = suites_dir()
        args = parse_run_args(argv, suite_names(root))
        results = Path(args.results).resolve()
        command, env = build_command(args, root, results)
        results.mkdir(parents=True, exist_ok=True)
    except RunUsageError as exc:  # it quotes the command line
        echo(f"rocmcompat run: {exc}", err=True)
        return 2
    except OSError as exc:
        echo(f"rocmcompat run: cannot create the results folder {args.results}: {exc.strerror or exc}", err=True)
        return 2
    _write_probe(results, args.matrix)
    print(f"rocmcompat run: {shown_command(command[1:])}", flush=True)
    status = subprocess.call(command, env=env)
    written = [name for name in ("junit.xml", "COMPAT.md", "probe.json") if (results / name).is_file()]
    echo(f"rocmcompat run: results in {results}: {', '.join(written) or 'nothing written'}")
    return status

"""``rocmcompat``: probe this machine, lint and expand matrices, run the suites, recommend, merge reports.

Exit status: 0 success, 1 a matrix or input has mistakes, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pytest_rocmcompat.cli.matrix_arg import load_named_matrix, report_matrix_error
from pytest_rocmcompat.errors import ConfigError

if TYPE_CHECKING:  # each command imports what it needs when it runs
    from pytest_rocmcompat.matrix.model import Matrix
    from pytest_rocmcompat.stack.environment import Environment


def _cmd_probe(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.probe.live import probe
    from pytest_rocmcompat.safe_io.escape import echo, safe_data

    extra: tuple[str, ...] = ()
    if args.matrix:
        try:
            extra = load_named_matrix(args.matrix).library_names
        except ConfigError as exc:
            report_matrix_error(exc, args.matrix)
            return 1
    try:
        env = _replayed(args) if args.env else probe(extra)
        if args.set:
            from pytest_rocmcompat.stack.overrides import apply_overrides

            env = apply_overrides(env, args.set)
    except (ValueError, OSError) as exc:  # EnvironmentFileError, OverrideError: they quote the input
        echo(f"rocmcompat: {exc}", err=True)
        return 2

    if args.json:  # values redacted before serialisation, not the serialised text
        print(json.dumps(safe_data(json.loads(env.to_json())), indent=2, sort_keys=True))
        return 0
    out = _line_printer()  # every line of the text form made safe, and one line
    out(env.summary())
    for gpu in env.gpus:
        memory = f"{gpu.memory_bytes / 2**30:.1f} GiB" if gpu.memory_bytes else "memory unknown"
        out(f"  gpu {gpu.index}: {gpu.name} ({gpu.arch}, {memory})")
    for name, version in env.libraries.items():
        out(f"  {name}=={version}")
    for name, value in env.env.items():
        out(f"  ${name}={value}")
    from pytest_rocmcompat.knowledge.wheel_targets import build_targets

    targets, origin = build_targets(env)
    if targets:
        out(f"  torch build targets: {' '.join(targets)} ({origin})")
    for label, found in (("nccl (loaded by torch)", env.nccl), ("driver supports CUDA", env.driver_cuda)):
        if found:
            out(f"  {label}: {found}")
    if env.torch_cxx11_abi is not None:
        out(f"  torch C++ ABI: {'C++11' if env.torch_cxx11_abi else 'pre-C++11'} (probed)")
    for note in env.notes:
        out(f"  note: {note}")
    _print_problems(env, out)
    return 0


def _replayed(args: argparse.Namespace) -> Environment:
    from pytest_rocmcompat.stack.environment import Environment

    return Environment.load(args.env)


def _print_problems(env: Environment, out: Callable[[str], None]) -> None:
    """The built-in checks' findings; the exit status does not change."""
    from pytest_rocmcompat.knowledge.checks.registry import evaluate

    problems = evaluate(env)
    out(f"problems: {len(problems) or 'none found'}")
    for problem in problems:
        out(f"  {problem.describe()}")


def _line_printer() -> Callable[[str], None]:
    """``print`` for lines that quote data: redacted, control characters dropped, and a newline or
    carriage return inside a value written as an escape (``report.escape.terminal_line``).
    """
    from pytest_rocmcompat.safe_io.escape import terminal_line

    def out(line: str = "") -> None:
        print(terminal_line(line))

    return out


def _cmd_lint(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.matrix.expand import count_cells
    from pytest_rocmcompat.safe_io.escape import terminal_line

    status = 0
    for path in args.matrices:
        try:
            matrix = load_named_matrix(path)
        except ConfigError as exc:
            report_matrix_error(exc, path)
            status = 1
            continue
        planned, excluded = count_cells(matrix)
        print(
            terminal_line(
                f"{path}: ok: {matrix.name!r}, {planned} cells ({excluded} excluded), "
                f"{len(matrix.rules)} rules from {len(matrix.files)} file(s)"
            )
        )
        if args.against:
            status = max(status, _lint_against(matrix, args.against))
    return status


def _lint_against(matrix: Matrix, paths: list[str]) -> int:
    from pytest_rocmcompat.matrix.lint_against import CollectError, collect_node_ids, unmatched_patterns
    from pytest_rocmcompat.safe_io.escape import echo, terminal_line

    try:
        ids = collect_node_ids(paths)
    except CollectError as exc:  # it quotes pytest's output: a conftest may print anything
        echo(f"error: {exc}", err=True)
        return 1
    for line in unmatched_patterns(matrix, ids):
        print(terminal_line(f"warning: {line}"))
    return 0


def _cmd_expand(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.matrix.expand import expand
    from pytest_rocmcompat.safe_io.escape import one_environment_scan, terminal_line

    try:
        matrix = load_named_matrix(args.matrix)
    except ConfigError as exc:
        report_matrix_error(exc, args.matrix)
        return 1
    cells = [cell.as_dict() for cell in expand(matrix)]
    if args.format == "github":  # what a workflow puts into job names, logs and commands
        for cell in cells:
            cell.update({"matrix": matrix.name, "platform": matrix.platform or ""})
    # Every axis name and value made one safe line before it is printed or serialised: secrets
    # redacted on the raw value, control characters dropped, a newline or carriage return escaped
    # (JSON would only encode them, and a workflow would get them back raw).
    with one_environment_scan():
        headers = [terminal_line(name) for name in matrix.axis_names]
        cells = [{terminal_line(k): terminal_line(v) for k, v in cell.items()} for cell in cells]
    if args.format == "github":
        print(json.dumps({"include": cells}))
    elif args.format == "json":
        print(json.dumps(cells, indent=2))
    else:
        from tabulate import tabulate

        # versions stay text: numparse would print '2.10' as 2.1
        print(tabulate([list(c.values()) for c in cells], headers=headers, disable_numparse=True))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.cli.report import run_report

    return run_report(args)


def build_parser() -> argparse.ArgumentParser:
    from pytest_rocmcompat.safe_io.package_files import VERSION

    parser = argparse.ArgumentParser(prog="rocmcompat", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"rocmcompat {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("probe", help="print this machine's GPU stack (JSON with --json)")
    p.add_argument("--json", action="store_true", help="write the environment as JSON (for --rocm-env)")
    p.add_argument("--matrix", metavar="NAME|PATH", help="also record the library versions this matrix names")
    p.add_argument("--env", metavar="FILE", help="describe a recorded environment instead of probing")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field, as pytest's --rocm-set (repeatable)",
    )
    p.set_defaults(func=_cmd_probe)
    p = sub.add_parser("lint", help="validate matrix files; exit 1 if any has mistakes")
    p.add_argument("matrices", nargs="+", metavar="MATRIX", help="matrix files or bundled matrix names")
    p.add_argument(
        "--against",
        nargs="+",
        metavar="PATH",
        help="collect these test paths (pytest --collect-only, here) and warn on node-id "
        "rules that match none of the collected tests",
    )
    p.set_defaults(func=_cmd_lint)
    p = sub.add_parser("expand", help="list the planned cells of a matrix")
    p.add_argument("matrix", metavar="MATRIX", help="a matrix file or a bundled matrix name")
    p.add_argument(
        "--format",
        choices=("table", "json", "github"),
        default="table",
        help="github: a GitHub Actions matrix object ({'include': [...]})",
    )
    p.set_defaults(func=_cmd_expand)
    sub.add_parser("run", help="run the bundled suites into a results folder (rocmcompat run --help)", add_help=False)
    p = sub.add_parser("recommend", help="the newest stacks with nothing known against them on a GPU arch")
    from pytest_rocmcompat.cli.recommend import add_recommend_arguments, run_recommend

    add_recommend_arguments(p)
    p.set_defaults(func=run_recommend)
    p = sub.add_parser(
        "check", help="judge a stack file (pip freeze, requirements, uv.lock, conda) before installing it"
    )
    from pytest_rocmcompat.cli.check import add_check_arguments, run_check

    add_check_arguments(p)
    p.set_defaults(func=run_check)
    p = sub.add_parser("report", help="merge JUnit files of many cells into one compatibility table")
    from pytest_rocmcompat.cli.report import add_report_arguments

    add_report_arguments(p)
    p.set_defaults(func=_cmd_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:  # its own parser: pytest's options pass through untouched
        from pytest_rocmcompat.cli.run import run_main

        return run_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""``rocmcompat check FILE [--set KEY=VALUE ...] [--matrix NAME|PATH] [--tests PATH ...] [--json]``.

Judge a stack before installing it: the stack is exactly what FILE says (``pip freeze``
output, a pinned requirements/constraints file, a ``uv.lock``, a conda export or ``conda list``
output, a recorded probe) plus ``--set`` for what the file cannot say (arch, platform, ROCm/CUDA, driver,
Python). Nothing comes from the machine it runs on. It prints the findings the plugin would
give for that stack: the built-in checks' problems and the known-bad rules that are active
(the bundled ``known_bad.yaml``, or ``--matrix``), and with ``--tests`` which collected tests
they reach (collected only, by a real ``pytest --collect-only`` with the stack replayed).

Exit status: 0 nothing is known against the stack, 1 something is, 2 the file or an argument
cannot be used (one paragraph naming the file and line).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

    from pytest_rocmcompat.knowledge.checks.finding import Finding
    from pytest_rocmcompat.knowledge.rules.model import Rule
    from pytest_rocmcompat.stack.environment import Environment
    from pytest_rocmcompat.stack.stack_files import StackFile
    from pytest_rocmcompat.stack.stack_model import LockSelection

APPLIED_FILE_VAR = "ROCMCOMPAT_CHECK_APPLIED"


def add_check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help="the stack: pip freeze output, a requirements/constraints file with == pins, uv.lock, pylock.toml (PEP 751), "
        "a conda environment.yml export (conda env export), conda list output (plain, --export or --explicit), "
        "rocmcompat probe --json output, or PyTorch's collect_env report (python -m torch.utils.collect_env); "
        "- reads standard input (pip freeze | rocmcompat check -)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="what the file cannot say, as pytest's --rocm-set: arch, platform, rocm, cuda, driver, python... (repeatable)",
    )
    p.add_argument("--matrix", metavar="NAME|PATH", help="take rules (and check settings) from this matrix")
    p.add_argument(
        "--tests",
        nargs="+",
        metavar="PATH",
        help="collect these tests (pytest --collect-only, here) and list the ones the findings reach",
    )
    p.add_argument(
        "--format",
        dest="stack_format",
        choices=("requirements", "uv.lock", "pylock", "conda", "conda-list", "probe", "collect-env"),
        help="the file's format (default: detected from its name and content): conda is conda env export's "
        "environment.yml, conda-list is conda list output (plain, --export or --explicit), collect-env is "
        "python -m torch.utils.collect_env (or vllm collect-env) output",
    )
    p.add_argument(
        "--extra",
        action="append",
        default=[],
        metavar="NAME",
        help="a uv.lock: install this extra of the workspace (repeatable), as uv sync --extra; none by default",
    )
    p.add_argument(
        "--group",
        action="append",
        default=[],
        metavar="NAME",
        help="a uv.lock: install this dependency group too (repeatable), as uv sync --group; dev is installed by "
        "default (uv's default-groups, which the lock does not record)",
    )
    p.add_argument("--no-dev", action="store_true", help="a uv.lock: leave the dev group out, as uv sync --no-dev")
    p.add_argument("--json", action="store_true", help="write the findings as JSON")


class CheckUsageError(Exception):
    """Exit 2 with this paragraph."""


def run_check(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.errors import ConfigError
    from pytest_rocmcompat.safe_io.escape import echo

    try:
        from pytest_rocmcompat.stack.stack_model import LockSelection as Selection

        groups = tuple(dict.fromkeys([*([] if args.no_dev else ["dev"]), *args.group]))
        selection = Selection(tuple(args.extra), groups)
        stack, env = stack_environment(args.file, args.set, args.stack_format, selection)
    except CheckUsageError as exc:
        echo(f"rocmcompat check: {exc}", err=True)
        return 2
    try:
        matrix, matrix_path = _matrix(args.matrix)
    except ConfigError as exc:
        from pytest_rocmcompat.matrix.loader import bundled_matrix_names, resolve_matrix_name

        echo(f"rocmcompat check: {exc}", err=True)  # the loader's paragraph, as every command shows it
        if args.matrix and not os.path.exists(resolve_matrix_name(args.matrix)):
            echo(f"rocmcompat check: bundled matrices, by name: {', '.join(bundled_matrix_names())}", err=True)
        return 2
    problems, rules = findings(env, matrix)
    reached: dict[str, list[str]] | None = None
    if args.tests:
        try:
            reached = reached_tests(env, matrix_path, args.tests)
        except CheckUsageError as exc:
            echo(f"rocmcompat check: {exc}", err=True)
            return 2
    standings = {rule.id: _standing(rule, env) for rule in rules}
    counted = any(not (p.conditional or p.uncertain) for p in problems) or any(not s for s in standings.values())
    status = 1 if counted else 0
    if args.json:
        _print_json(stack, env, problems, rules, standings, reached, status)
    else:
        _print_text(stack, env, problems, rules, standings, reached, status)
    return status


def _standing(rule: Rule, env: Environment) -> str:
    """``""`` for a rule counted against the stack, else why not (knowledge/rules/standing.py): only a risk (the
    predicate ``recommend`` files under "At risk"), a feature gap, or only tests of libraries the stack lacks.
    """
    from pytest_rocmcompat.knowledge.rules.standing import standing
    from pytest_rocmcompat.probe.libraries import STACK_LIBRARIES

    return standing(rule, env, STACK_LIBRARIES)


def stack_environment(
    path: str, assignments: list[str], fmt: str | None = None, selection: LockSelection | None = None
) -> tuple[StackFile, Environment]:
    """The stack FILE describes, with ``--set`` applied: :class:`CheckUsageError` for any mistake."""
    from pytest_rocmcompat.errors import OverrideError
    from pytest_rocmcompat.stack.stack_files import StackFileError
    from pytest_rocmcompat.stack.stack_replay import stack_file_environment

    try:
        return stack_file_environment(path, assignments, fmt, selection)
    except (OverrideError, StackFileError) as exc:
        raise CheckUsageError(str(exc)) from None


def _matrix(name: str | None) -> tuple[Any, str]:
    from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix, resolve_matrix_name

    path = resolve_matrix_name(name) if name else str(bundled_known_bad())
    return load_matrix(path), path


def findings(env: Environment, matrix: Any) -> tuple[list[Finding], list[Rule]]:
    """The built-in checks' problems and the matrix's rules active for ``env`` (as the plugin's session)."""
    from pytest_rocmcompat.knowledge.checks.registry import SOURCE_FILE, compile_rules, evaluate
    from pytest_rocmcompat.knowledge.rules.engine import ActiveRules

    settings = matrix.checks if matrix is not None else {}
    problems = evaluate(env, settings)
    active = ActiveRules((*matrix.rules, *compile_rules(problems, settings)), env).active
    return problems, [r for r in active if r.file != SOURCE_FILE]


def reached_tests(env: Environment, matrix_path: str, paths: Sequence[str]) -> dict[str, list[str]]:
    """Node id -> rule/check ids, from ``pytest --collect-only`` with the stack replayed (``--rocm-env``)."""
    with tempfile.TemporaryDirectory(prefix="rocmcompat-check-") as tmp:
        env_file = os.path.join(tmp, "stack.json")
        out = os.path.join(tmp, "applied.json")
        with open(env_file, "w", encoding="utf-8") as fh:
            fh.write(env.to_json())
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "pytest_rocmcompat.cli.check",
                f"--rocm-env={env_file}",
                f"--rocm-matrix={matrix_path}",
                *paths,
            ],
            env={**os.environ, APPLIED_FILE_VAR: out},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if proc.returncode not in (0, 5) or not os.path.exists(out):  # 5: nothing collected
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
            raise CheckUsageError(f"pytest --collect-only {' '.join(paths)} exited with {proc.returncode}:\n{tail}")
        with open(out, encoding="utf-8") as fh:
            data = json.load(fh)
    return {str(k): [str(i) for i in v] for k, v in data.items()}


def pytest_collection_finish(session: pytest.Session) -> None:
    """In the collecting child: write which rules reached which collected test."""
    path = os.environ.get(APPLIED_FILE_VAR)
    if not path:
        return
    from pytest_rocmcompat.session.state import state_of

    state = state_of(session.config)
    collected = {item.nodeid for item in session.items}
    applied = {} if state is None else {k: v for k, v in state.applied.items() if k in collected}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(applied, fh)


# ---------------------------------------------------------------------------- output
def _rule_data(rule: Rule, standing: str) -> dict[str, Any]:
    a = rule.applies_to
    return {
        "id": rule.id,
        "action": rule.action,
        "reason": rule.reason,
        "links": list(rule.links),
        "fixed_in": dict(rule.fixed_in),
        "defined_at": rule.location,
        "uncertain": rule.at_risk,
        "contested": rule.contested,
        "counted": not standing,  # against the stack (its exit status)
        "not_counted_because": standing or None,  # risk | feature gap | not listed
        "applies_to": "all tests"
        if a.everything
        else {"markers": list(a.markers), "uses": list(a.uses), "nodeids": list(a.nodeids)},
    }


def _print_json(
    stack: StackFile,
    env: Environment,
    problems: list[Finding],
    rules: list[Rule],
    standings: dict[str, str],
    reached: dict[str, list[str]] | None,
    status: int,
) -> None:
    from pytest_rocmcompat.safe_io.escape import safe_data

    data = {
        "file": stack.path,
        "format": stack.format,
        "known_bad": status == 1,
        "environment": json.loads(env.to_json()),
        "packages": stack.packages,
        "not_checkable": list(stack.not_checkable),
        "skipped": list(stack.skipped),
        "problems": [
            {
                "check": f.check,
                "reason": f.reason,
                "fix": f.fix,
                "link": f.link,
                "text": f.describe(),
                "conditional": f.conditional,
                "uncertain": f.uncertain,
            }
            for f in problems
        ],
        "rules": [_rule_data(r, standings[r.id]) for r in rules],
        "tests": reached,
    }
    print(json.dumps(safe_data(data), indent=2, sort_keys=True))


def _print_text(
    stack: StackFile,
    env: Environment,
    problems: list[Finding],
    rules: list[Rule],
    standings: dict[str, str],
    reached: dict[str, list[str]] | None,
    status: int,
) -> None:
    from pytest_rocmcompat.knowledge.rules.standing import FEATURE_GAP, NOT_LISTED
    from pytest_rocmcompat.safe_io.escape import terminal_line

    def out(line: str = "") -> None:
        print(terminal_line(line))

    out(f"stack: {stack.path} ({stack.format}, {len(stack.packages)} package(s))")
    out(f"  {env.summary()}")
    for note in stack.not_checkable:
        out(f"  not checkable: {note}")
    for note in stack.skipped:
        out(f"  skipped: {note}")
    out(f"problems (built-in checks): {len(problems) or 'none found'}")
    # the stack's own problems first, then its risks, then what only tests using something meet
    for problem in sorted(problems, key=lambda p: (p.conditional, p.uncertain)):
        only = " (only for tests that use it: not counted against the stack)" if problem.conditional else ""
        if problem.uncertain:
            only = " (at risk: the stack does not say enough to confirm it; not counted against the stack)"
        out(f"  {problem.describe()}{only}")
    out(f"known-bad rules active: {len(rules) or 'none'}")
    notes = {
        FEATURE_GAP: " (a feature this GPU or build lacks: only for tests that use it; not counted against the stack)",
        NOT_LISTED: " (only for tests that use a library this stack does not list: not counted against the stack)",
    }
    for rule in sorted(rules, key=lambda r: bool(standings[r.id])):
        fixed = ", ".join(f"{k} {v}" for k, v in rule.fixed_in)
        risk = notes.get(standings[rule.id], "")
        if rule.at_risk:
            risk = " (at risk: its source says the stack may fail; not counted against the stack)"
        elif rule.contested:
            risk = " (contested: its sources disagree; not counted against the stack)"
        elif rule.only_a_risk:
            risk = " (crash-prone: its tests run isolated; not counted against the stack)"
        out(f"  {rule.describe()} [{rule.action}]{f'; fixed in {fixed}' if fixed else ''}{risk}")
    if reached is not None:
        out(f"tests reached: {len(reached) or 'none'}")
        for nodeid, ids in sorted(reached.items()):
            out(f"  {nodeid}: {', '.join(ids)}")
    if status:
        counted = len([p for p in problems if not (p.conditional or p.uncertain)])
        counted += len([r for r in rules if not standings[r.id]])
        out(f"verdict: known-bad: {counted} finding(s) against this stack")
    else:
        out("verdict: nothing known against this stack")

"""Parent side of isolation: spawn, time-limit and read back one test.

The child is a fresh interpreter (``subprocess``, never ``fork``), so it shares
nothing with the parent but the environment variables, the rootdir, the ini file,
the conftest files and plugins it loads itself, and the probed environment (handed
over as a file: the child does not probe). Session fixtures run again in the child.
It runs in its own process group; a time limit kills the whole group.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..outcomes import PROP_OUTCOME, PROP_RULE, PROP_SIGNATURE, Outcome
from ..processes import kill_group, signal_name
from ..rules.model import Rule
from ..signatures import match_builtin

DEFAULT_TIMEOUT_S = 300.0
TAIL_CHARS = 6000


@dataclass(frozen=True)
class ChildEnd:
    """How the child process ended."""

    returncode: int | None  # None: killed by the time limit
    output: str
    seconds: float
    reports: tuple[dict, ...]

    @property
    def hung(self) -> bool:
        return self.returncode is None

    @property
    def signal_name(self) -> str | None:
        return signal_name(self.returncode)


def child_argv(item: pytest.Item, result: Path, env_file: Path, options: list[str]) -> list[str]:
    config = item.config
    target = str(config.rootpath / item.nodeid.split("::", 1)[0])
    if "::" in item.nodeid:
        target += "::" + item.nodeid.split("::", 1)[1]
    argv = [sys.executable, "-m", "pytest", target, "-p", "no:cacheprovider", "-p", "no:xdist",
            "-s", "-q", "-o", "addopts=", "--rootdir", str(config.rootpath),
            "--rocm-child-result", str(result), "--rocm-child-env", str(env_file), *options]
    if config.inipath is not None:
        argv += ["-c", str(config.inipath)]
    return argv


def run_child(argv: list[str], cwd: Path, timeout: float,
              environ: dict[str, str] | None = None) -> tuple[int | None, str, float]:
    """Run the child in a new session; on timeout kill its whole process group.

    Returns ``(returncode or None when killed by the time limit, output, seconds)``.
    """
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=environ)
    try:
        output, _ = proc.communicate(timeout=timeout)
        returncode: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        output, _ = proc.communicate()
        returncode = None
    except BaseException:  # Ctrl-C or SIGTERM in the parent: the child's group goes too
        kill_group(proc.pid)
        proc.wait()
        raise
    else:
        kill_group(proc.pid)  # grandchildren the test left behind go too
    return returncode, output.decode("utf-8", "replace"), time.monotonic() - start


def run_isolated(item: pytest.Item, timeout: float, env_json: str, options: list[str],
                 rules: list[Rule], environ: dict[str, str] | None = None) -> list[pytest.TestReport]:
    """Run ``item`` in a child process (with ``environ``, else this one's); return its reports."""
    config = item.config
    with tempfile.TemporaryDirectory(prefix="rocmcompat-isolated-") as tmp:
        result, env_file = Path(tmp, "result.json"), Path(tmp, "env.json")
        env_file.write_text(env_json, encoding="utf-8")
        returncode, output, seconds = run_child(child_argv(item, result, env_file, options),
                                                config.invocation_params.dir, timeout, environ)
        try:
            reports = tuple(json.loads(result.read_text(encoding="utf-8"))["reports"])
        except (OSError, ValueError, KeyError):
            reports = ()
    end = ChildEnd(returncode, output, seconds, reports)
    mine = [config.hook.pytest_report_from_serializable(config=config, data=_tuple_longrepr(d))
            for d in end.reports]
    mine = [r for r in mine if isinstance(r, pytest.TestReport) and r.nodeid == item.nodeid]
    if not end.hung and end.signal_name is None and {r.when for r in mine} >= {"setup", "teardown"}:
        return mine  # the child finished the test: its own reports say what happened
    death = _death_report(item, end, timeout, rules)
    setup = [r for r in mine if r.when == "setup" and r.passed] or [_report(item, "setup", "passed")]
    # pytest's JUnit writer takes properties from the teardown report.
    return [*setup, death, _report(item, "teardown", "passed", props=tuple(death.user_properties))]


def _tuple_longrepr(data: dict) -> dict:
    """A skip's ``(path, line, reason)`` comes back from JSON as a list; pytest's -rs wants a tuple."""
    if isinstance(data.get("longrepr"), list):
        data = dict(data, longrepr=tuple(data["longrepr"]))
    return data


def _report(item: pytest.Item, when: str, outcome: str, longrepr: str | None = None,
            sections: tuple = (), props: tuple = (), duration: float = 0.0) -> pytest.TestReport:
    properties = list(dict.fromkeys([*item.user_properties, *props]))
    return pytest.TestReport(item.nodeid, item.location, {k: 1 for k in item.keywords}, outcome,
                             longrepr, when, sections, duration, user_properties=properties)


def _death_report(item: pytest.Item, end: ChildEnd, timeout: float, rules: list[Rule]) -> pytest.TestReport:
    tail = end.output[-TAIL_CHARS:]
    if end.hung:
        outcome, what = Outcome.HANG, f"killed after the {timeout:g} s time limit (process group killed)"
    elif end.signal_name is not None:
        outcome, what = Outcome.CRASHED, f"the test process died from {end.signal_name}"
    elif end.returncode in (2, 3, 4, 5) and not end.reports:
        outcome, what = Outcome.FAIL, (f"the isolated pytest could not run the test (exit code "
                                       f"{end.returncode}); see its output")
    else:
        outcome, what = Outcome.CRASHED, f"the test process exited with code {end.returncode} in mid-test"
    props: list[tuple[str, str]] = []
    rule = next((r for r in rules if r.action in ("xfail", "isolate") and r.signature is not None
                 and r.signature_matches(tail)), None)
    builtin = match_builtin(tail)
    if rule is not None:
        props += [(PROP_OUTCOME, Outcome.KNOWN_BAD.value), (PROP_RULE, rule.id),
                  (PROP_SIGNATURE, rule.signature.pattern)]  # type: ignore[union-attr]
    else:
        props.append((PROP_OUTCOME, outcome.value))
        if builtin is not None:
            props.append((PROP_SIGNATURE, builtin.id))
    lines = [f"[{outcome.value}] {what} ({end.seconds:.1f} s)"]
    if builtin is not None:
        lines.append(f"failure signature {builtin.id}: {builtin.explanation}")
    if rule is not None:
        lines.append(f"known-bad: {rule.describe()}")
    lines += ["--- last output of the isolated process ---", tail.rstrip() or "(no output)"]
    report = _report(item, "call", "failed", "\n".join(lines),
                     sections=(("Captured output (isolated process)", tail),), props=tuple(props),
                     duration=end.seconds)
    if rule is not None:
        report.outcome = "skipped"
        report.wasxfail = "rocmcompat " + rule.describe()
    return report

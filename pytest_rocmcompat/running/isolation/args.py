"""The command line of a sandbox: the session's own options, minus selection and output files.

An isolated test must run under what it would run under in-process: the command
line's ``-p PLUGIN``, ``-W``, ``-o KEY=VALUE``, ``-c``/``--rootdir``, options a
conftest registers, and (read again by the child itself) the ini file's
``addopts`` and ``PYTEST_ADDOPTS``. Only what must differ goes: the test paths
and node ids, selection (``-k``, ``-m``, ``--lf`` ...), output files
(``--junitxml``, ``--rocm-report``), distribution (``-n``) and stopping early.
"""

from __future__ import annotations

import argparse
import sys

import pytest

# argparse ``dest`` names of the options a sandbox must not inherit from the command line.
DROPPED_DESTS = frozenset(
    {
        "keyword",
        "markexpr",
        "deselect",
        "ignore",
        "ignore_glob",
        "lf",
        "failedfirst",
        "newfirst",
        "last_failed_no_failures",
        "stepwise",
        "stepwise_skip",
        "stepwise_reset",
        "exitfirst",
        "maxfail",
        "collectonly",
        "xmlpath",
        "junitprefix",
        "rocm_report",
        "numprocesses",
        "maxprocesses",
        "dist",
        "tx",
        "rsyncdir",
        "looponfail",
        "basetemp",
        "usepdb",
        "usepdb_cls",
        "trace",
        "pastebin",
        "rocm_child_result",
        "rocm_child_env",
        "rocm_env",
        "file_or_dir",
        "help",
        "version",
    }
)
# Appended last (so they win over addopts): no JUnit or report of its own, no last-failed or
# stepwise filtering, output uncaptured (a crash's last words reach the parent), no distribution.
OVERRIDES = ["-s", "--rocm-report=", "-p", "no:lfplugin", "-p", "no:stepwiseplugin"]


def inherited_args(config: pytest.Config) -> list[str]:
    """``config.invocation_params.args`` without positional arguments and :data:`DROPPED_DESTS`."""
    actions = _actions(config)
    args = [str(a) for a in config.invocation_params.args]
    kept: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            break  # all that follows is positional
        if not arg.startswith("-") or arg == "-":
            continue  # a test path or node id
        name, has_value = (arg.split("=", 1)[0], True) if arg.startswith("--") and "=" in arg else (arg, False)
        action = actions.get(name)
        if action is None and not arg.startswith("--") and len(arg) > 2:  # -n2, -kexpr, -vv
            action, has_value = actions.get(arg[:2]), True
        takes_value = action is not None and action.nargs != 0
        if action is not None and action.nargs == 0 and has_value and not arg.startswith("--"):
            has_value = False  # -vv: a repeated flag, not a value
        value = [args[i]] if takes_value and not has_value and i < len(args) else []
        i += len(value)
        if action is not None and action.dest in DROPPED_DESTS:
            continue
        kept += [arg, *value]
    return kept


def sandbox_argv(config: pytest.Config) -> list[str]:
    """``python -m pytest`` with the session's options for a sandbox (its directory comes later)."""
    argv = [sys.executable, "-m", "pytest", *inherited_args(config), *OVERRIDES, "--rootdir", str(config.rootpath)]
    if config.inipath is not None:
        argv += ["-c", str(config.inipath)]
    if config.pluginmanager.has_plugin("junitxml"):  # (-p no:junitxml: the option does not exist)
        argv.append("--junitxml=")
    if config.pluginmanager.has_plugin("xdist"):
        argv += ["-n", "0"]  # the child runs its test itself (-n in addopts would otherwise spread it)
    return argv


def _actions(config: pytest.Config) -> dict[str, argparse.Action]:
    parser = getattr(config._parser, "optparser", None)
    if parser is None:  # pytest before 9 built its argparse parser on demand
        parser = config._parser._getparser()  # type: ignore[attr-defined]  # gone in pytest 9 (optparser)
    return dict(parser._option_string_actions)

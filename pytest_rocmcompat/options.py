"""Command-line options, ini settings and markers of the plugin."""

from __future__ import annotations

import argparse

import pytest

MARKERS: dict[str, str] = {
    "uses(*libraries)": "the test exercises these libraries (e.g. uses('torchao', 'vllm')); "
            "known-bad rules with applies_to.uses reach it",
    "gpus(n=1)": "the test needs n GPUs; skipped when the machine has fewer",
    "isolated(timeout=None, fresh=False)": "run the test in a sandbox process with a time limit in "
                "seconds (default: ini rocm_isolate_timeout, else 300); a crash or hang becomes an "
                "outcome; fresh=True: a sandbox that has run no other test",
    "known_issue(rule_id)": "this test is affected by the named known-bad rule "
                   "whenever the rule's conditions hold",
}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("rocmcompat", "GPU stack compatibility (pytest-rocmcompat)")
    group.addoption(
        "--rocm-matrix", metavar="PATH|NAME", default=None,
        help="Version matrix (YAML) to locate this machine in and take known-bad rules from: a path, "
             "else a bundled matrix by name (cpu, mi300, h100, ...). "
             "Without it, the bundled known-bad database applies alone. [ini: rocm_matrix]",
    )
    group.addoption(
        "--rocm-env", metavar="FILE", default=None,
        help="Replay an environment recorded with `rocmcompat probe --json` instead of probing "
             "this machine; every output is labelled as a replay.",
    )
    group.addoption(
        "--rocm-set", metavar="KEY=VALUE", action="append", default=[],
        help="Override a field of the probed or replayed environment (repeatable). Keys: platform, "
             "arch (comma-separated for several devices), rocm, hip, cuda, driver, torch, python, "
             "lib.NAME (empty value: not installed), env.NAME. Output is labelled 'overridden'.",
    )
    group.addoption(
        "--rocm-report", metavar="PATH", default=None,
        help="Write the run's Markdown compatibility report to PATH (atomically). [ini: rocm_report]",
    )
    group.addoption(
        "--rocm-strict", action="store_true", default=None,
        help="Fail a test whose known-bad rule no longer fires (outcome stale-rule). [ini: rocm_strict]",
    )
    group.addoption(
        "--rocm-no-bundled", action="store_true", default=False,
        help="Without --rocm-matrix, apply no rules at all instead of the bundled known-bad database.",
    )
    # Internal: how the isolation runner talks to the sandbox pytest it starts (its directory).
    group.addoption("--rocm-child-result", default=None, help=argparse.SUPPRESS)
    group.addoption("--rocm-child-env", default=None, help=argparse.SUPPRESS)
    parser.addini("rocm_matrix", "Default for --rocm-matrix (relative to the rootdir).", default="")
    parser.addini("rocm_report", "Default for --rocm-report (relative to the rootdir).", default="")
    parser.addini("rocm_strict", "Default for --rocm-strict.", type="bool", default=False)
    parser.addini("rocm_gc_freeze",
                  "After collection, move the collected objects out of the garbage collector's reach "
                  "(gc.freeze) until the session ends, so full collections do not walk them again and "
                  "again; false to leave the collector alone (default true).", type="bool", default=True)
    parser.addini("rocm_isolate_timeout",
                  "Seconds an isolated test may run before it is killed as a hang (default 300).",
                  default="300")


def register_markers(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")

"""What the built-in checks cost: once per session, and per test.

In-process, median of ``--reps`` rounds each: evaluating every check on the recorded H100
environment (no problem) and on an overridden stack with four problems; compiling findings
into rules; reading the GPU stack's ``Requires-Dist`` (the probe's new metadata read); and
matching 5,000 plain tests (no markers) against the compiled rules with and without an
active check (a check that reaches every test costs what a rule reaching every test costs).

    python bench/checks_cost.py [--reps 31] [--out .bench/checks_cost.json]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _common import REPO, default_out, machine, table, write_json

sys.path.insert(0, str(REPO))

from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts
from pytest_rocmcompat.probe.libraries import installed_stack, installed_versions
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

PROBLEMS = ["torch=2.3.1+cu124", "arch=sm_120", "python=3.12.4", "lib.vllm=0.6.3", "driver_cuda=11.8"]


def median_s(fn, reps: int) -> float:
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=31)
    parser.add_argument("--out", default=default_out("checks_cost"))
    args = parser.parse_args()
    h100 = Environment.load(str(REPO / "tests/data/env_h100_archs.json"))
    broken = apply_overrides(h100, PROBLEMS)
    findings = evaluate(broken)
    installed = installed_versions()
    tests = [ItemFacts(f"tests/test_{i // 100}.py::test_{i}", frozenset(), frozenset()) for i in range(5000)]
    none_active = ActiveRules(compile_rules(evaluate(h100)), h100)
    all_tests = ActiveRules(compile_rules(findings), broken)  # python/driver checks reach every test
    rows = [
        ("evaluate, H100 recorded (0 problems)", median_s(lambda: evaluate(h100), args.reps)),
        (f"evaluate, overridden stack ({len(findings)} problems)", median_s(lambda: evaluate(broken), args.reps)),
        ("compile_rules", median_s(lambda: compile_rules(findings), args.reps)),
        (
            f"installed_versions, the probe's scan before ({len(installed)} stack libs)",
            median_s(installed_versions, args.reps),
        ),
        ("installed_stack, the same scan with Requires-Dist", median_s(installed_stack, args.reps)),
        (
            "match 5,000 plain tests, no check active",
            median_s(lambda: [none_active.match(t) for t in tests], args.reps),
        ),
        (
            "match 5,000 plain tests, checks reaching all",
            median_s(lambda: [all_tests.match(t) for t in tests], args.reps),
        ),
    ]
    print(table([(name, f"{s * 1e3:.3f}") for name, s in rows], ("what", "median ms")))
    write_json(
        args.out,
        {"machine": machine(), "reps": args.reps, "findings": [f.check for f in findings], "median_s": dict(rows)},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

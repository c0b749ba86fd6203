"""Wall-time overhead of the rocmcompat plugin on a synthetic 5,000-test suite.

Generates, in a temporary directory, 50 test files x 100 tests (plain functions,
a 20-way parametrised test, ``uses(...)`` and ``gpus(n)`` markers, a class with a
class-level marker and a ``known_issue`` method, and a few failing tests), a
matrix with 100 known-bad rules and a replayed MI300X environment written from
:class:`Environment` (so no probing is timed). Then runs, as real subprocesses,
interleaved, ``--reps`` times each after one untimed warm-up of each:

  bare-run        pytest -q -p no:cacheprovider -p no:rocmcompat SUITE
  plugin-run      pytest -q -p no:cacheprovider --rocm-matrix M --rocm-env ENV SUITE
  bare-collect    the same as bare-run with --collect-only
  plugin-collect  the same as plugin-run with --collect-only
  plugin-run-0-active  plugin-run with the same 100 rules made inactive (attribution:
                  the plugin's fixed cost, without any rule reaching a test)
  plugin-run-no-cache  plugin-run with the checked-matrix cache off: the matrix is parsed and
                  checked in every run, as in the first run after an edit (attribution)
  null-hooks-run  bare-run plus a plugin with the same per-test hooks and empty bodies
                  (attribution: what dispatching that hook set costs by itself)

and reports median wall times and the overhead (target: plugin-run at most 5%
slower than bare-run), plus the same for CPU time (user + system of each child, from
``getrusage``), which other load on a shared machine disturbs less. In-process, it also times matrix loading, ``ActiveRules``
construction, building the per-test facts and matching all 5,000 collected items,
the per-report functions on the reports of an in-process run, the plugin's import, and the
garbage collector's passes and time (a ``gc.callbacks`` probe loaded with ``-p``) in bare and
plugin runs; unless ``--no-profile``, it profiles one plugin run and one bare run with cProfile
to show which functions the plugin's time goes to.

    python bench/plugin_overhead.py [--reps 7] [--out .bench/plugin_overhead.json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import yaml
from _common import default_out, interleave, machine, paired_ratio, summary, table, timed_run, write_json

from pytest_rocmcompat.safe_io.cache_store import CACHE_DIR_VAR
from pytest_rocmcompat.stack.environment import GPU, Environment

N_DIRS = ("models", "kernels", "distributed", "rl", "data")  # not "dist": pytest skips it
FILES_PER_DIR = 10
TARGET_OVERHEAD = 0.05

# The replayed machine: an 8 x MI300X node on ROCm 6.2 with torch 2.5.1+rocm6.2.
ENV = Environment(
    platform="rocm",
    gpus=tuple(GPU(i, "AMD Instinct MI300X", "gfx942:sramecc+:xnack-", 206141652992, "amd") for i in range(8)),
    rocm="6.2.4",
    hip="6.2.41133-dd7f95766",
    driver="6.8.5",
    torch="2.5.1+rocm6.2",
    python="3.12.3",
    os="Linux 6.8.0",
    libraries={
        "torch": "2.5.1+rocm6.2",
        "torchao": "0.7.0",
        "vllm": "0.6.3",
        "transformers": "4.46.3",
        "peft": "0.13.2",
        "flash-attn": "2.6.3",
        "ray": "2.38.0",
        "deepspeed": "0.15.4",
        "pytorch-triton-rocm": "3.1.0",
        "accelerate": "1.1.1",
    },
    env={
        "HIP_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
        "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True",
        "NCCL_DEBUG": "WARN",
        "TORCH_NCCL_HIGH_PRIORITY": "1",
    },
)

# Conditions that hold for ENV, and conditions that do not (each mixes several kinds).
ACTIVE_WHEN = [
    {"platform": "rocm"},
    {"platform": "rocm", "arch": ["gfx942"]},
    {"arch": ["gfx94*"], "torch": "<2.6"},
    {"torch_rocm": "==6.2.*"},
    {"rocm": ">=6.2,<6.3", "platform": ["rocm"]},
    {"libraries": {"torchao": ">=0.7"}},
    {"libraries": {"vllm": "<0.7", "ray": "*"}},
    {"env": {"PYTORCH_HIP_ALLOC_CONF": {"matches": "expandable_segments:True"}}},
    {"python": ">=3.12", "platform": ["rocm", "cuda"]},
    {"libraries": {"xformers": "absent"}, "arch": ["gfx942", "gfx90a"]},
    {"env": {"HSA_OVERRIDE_GFX_VERSION": "absent"}, "hip": ">=6.2"},
    {"driver": ">=6.8", "torch": "==2.5.1"},
]
INACTIVE_WHEN = [
    {"platform": "cuda"},
    {"arch": ["gfx906"]},
    {"arch": ["sm_90"], "torch_cuda": ">=12.4"},
    {"torch": ">=2.6"},
    {"rocm": ">=6.3"},
    {"libraries": {"torchao": "<0.6"}},
    {"libraries": {"vllm": "absent"}},
    {"env": {"HSA_OVERRIDE_GFX_VERSION": "present"}},
    {"python": "<3.11"},
    {"platform": "rocm", "arch": ["gfx11*"], "torch_rocm": "==6.1.*"},
    {"libraries": {"deepspeed": ">=0.16"}, "platform": "rocm"},
    {"env": {"NCCL_DEBUG": {"equals": "INFO"}}, "torch": "<2.6"},
]
# Scopes (applies_to) and the action a realistic rule of that scope takes: narrow scopes
# skip (crashes), broad ones xfail (a failure with a signature; these tests pass here, so
# they come out as stale-rule, which exercises classification on every report).
SCOPES = [
    ({"uses": ["torchao"]}, "skip"),
    ({"markers": ["gpus"]}, "xfail"),
    ({"nodeids": ["suite/kernels/test_k0{n}.py::TestBlock"]}, "skip"),
    ({"uses": ["vllm"]}, "xfail"),
    ({"nodeids": ["suite/distributed/*::TestBlock::test_m1*"]}, "xfail"),
    ({"uses": ["flash-attn"]}, "xfail"),
    ({"nodeids": ["suite/models/test_m0{n}.py::test_plain_1*", "suite/rl/test_r0{n}.py::test_gpu_*"]}, "skip"),
    ({"uses": ["peft", "transformers"]}, "xfail"),
    ({"nodeids": ["suite/rl/*::test_param*"]}, "xfail"),
    ({"nodeids": ["suite/data/test_a0{n}.py::TestBlock"]}, "skip"),
    ({"uses": ["ray"]}, "xfail"),
    ({"nodeids": ["suite/*/test_*{n}.py::test_uses_[0-3]"]}, "xfail"),
    ({"markers": ["slow"]}, "xfail"),
]
USES_LIBS = (
    "torchao",
    "vllm",
    "flash_attn",
    "peft",
    "transformers",
    "ray",
    "torchao",
    "vllm",
    "deepspeed",
    "Flash-Attn",
)
SIG_KNOWN = "module 'torch' has no attribute 'int1'"


def build_rules() -> list[dict]:
    """100 rules: 60 whose conditions hold for ENV (i % 5 in 0, 1, 2), 40 that do not."""
    rules = [
        {
            "id": "bench-torchao-int1",
            "when": {"torch": "<2.6", "libraries": {"torchao": ">=0.7"}},
            "applies_to": {"nodeids": ["suite/*/test_*0.py::test_fails_known"]},
            "action": "xfail",
            "signature": re.escape(SIG_KNOWN).replace("\\ ", " "),
            "reason": "torchao needs torch.int1, absent from torch < 2.6",
            "links": ["https://github.com/pytorch/ao/issues/1"],
            "fixed_in": {"torch": "2.6.0"},
        },
        {
            "id": "bench-memory-fault",
            "when": {"platform": "rocm", "torch_rocm": "==6.2.*"},
            "applies_to": {"nodeids": ["suite/*/test_*0.py::test_fails_other"]},
            "action": "xfail",
            "signature": r"Memory access fault by GPU node-\d+",
            "reason": "memory access fault on gfx942 with rocm 6.2 (the test fails otherwise: a real failure)",
            "links": ["https://github.com/ROCm/ROCm/issues/2"],
        },
    ]
    i = len(rules)
    while len(rules) < 100:
        active = i % 5 in (0, 1, 2)
        pool = ACTIVE_WHEN if active else INACTIVE_WHEN
        when = pool[(i // 5 * 3 + i % 5) % len(pool)]
        scope, action = SCOPES[i % len(SCOPES)]
        n = i % FILES_PER_DIR
        applies = {k: [v.format(n=n) for v in vs] for k, vs in scope.items()}
        if not active and i % 10 == 3:
            applies = "all"  # inactive catch-alls: must never reach a test here
        rule = {
            "id": f"bench-rule-{i:03d}-{'on' if active else 'off'}",
            "when": copy.deepcopy(when),
            "applies_to": applies,
            "action": action,
            "reason": f"synthetic known-bad rule {i} ({action})",
            "links": [f"https://github.com/example/stack/issues/{1000 + i}"],
        }
        if action == "xfail" and i % 3 == 0:
            rule["signature"] = f"(RuntimeError|HIP error): synthetic failure {i}"
        rules.append(rule)
        i += 1
    return rules


def write_matrix(path: Path, rules: list[dict]) -> None:
    matrix = {
        "name": "bench-mi300x",
        "description": "synthetic matrix for bench/plugin_overhead.py",
        "platform": "rocm",
        "arch": ["gfx942"],
        "axes": {
            "rocm": ["6.2", "6.3"],
            "torch": ["2.5", "2.6"],
            "python": ["3.11", "3.12"],
            "libraries": {"vllm": ["0.6", "0.7"]},
        },
        "exclude": [{"rocm": "6.2", "torch": "2.6"}],
        "known_bad": rules,
    }
    path.write_text(yaml.safe_dump(matrix, sort_keys=False, width=120), encoding="utf-8")


def test_file(d: str, j: int, known_issue_id: str) -> str:
    """100 tests: 40 plain (two fail in the first file of each folder), 20 parametrised,
    10 with uses(...), 10 with gpus(n), 20 methods of a class."""
    out = ["import pytest", ""]
    for k in range(40):
        if j == 0 and k == 38:
            out += ["def test_fails_known():", f"    raise AttributeError({SIG_KNOWN!r})", ""]
        elif j == 0 and k == 39:
            out += ["def test_fails_other():", "    raise RuntimeError('HIP error: invalid device function')", ""]
        else:
            out += [f"def test_plain_{k:02d}():", f"    assert sum(range({k})) == {k * (k - 1) // 2}", ""]
    out += ["@pytest.mark.parametrize('n', range(20))", "def test_param(n):", "    assert n * 2 >= n", ""]
    for k, lib in enumerate(USES_LIBS):
        out += [f"@pytest.mark.uses({lib!r})", f"def test_uses_{k}():", f"    assert {lib!r}", ""]
    for k in range(10):
        gpus = 2 if k >= 8 else 1
        out += [f"@pytest.mark.gpus({gpus})", f"def test_gpu_{k}():", "    assert True", ""]
    if j % 5 == 0:
        out.append("@pytest.mark.uses('ray')")
    elif j % 5 == 1:
        out.append("@pytest.mark.slow")
    out.append("class TestBlock:")
    for k in range(20):
        if k == 19:
            out.append(f"    @pytest.mark.known_issue({known_issue_id!r})")
        out += [f"    def test_m{k:02d}(self):", f"        assert {k} + 1 > {k}", ""]
    return "\n".join(out) + "\n"


# A plugin with the rocmcompat plugin's per-test hooks and empty bodies: what pluggy dispatch of
# that hook set costs by itself (the floor for any plugin of this shape).
NULL_HOOKS = '''"""Empty versions of the per-test hooks pytest-rocmcompat implements (bench only)."""
import pytest


def pytest_collection_modifyitems(config, items):
    pass


class _Results:
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        pass


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    session.config.pluginmanager.register(_Results(), "bench-null-results")
'''


# Loaded with -p in attribution runs: time spent in the cyclic garbage collector, per generation.
GC_STATS = '''"""Records garbage-collector passes and their time; writes JSON to $BENCH_GC_OUT at exit (bench only)."""
import atexit, gc, json, os, time

_start, _count, _secs = {}, [0, 0, 0], [0.0, 0.0, 0.0]


def _callback(phase, info):
    gen = info["generation"]
    if phase == "start":
        _start[gen] = time.perf_counter()
    else:
        _count[gen] += 1
        _secs[gen] += time.perf_counter() - _start.pop(gen, time.perf_counter())


def _write():
    with open(os.environ["BENCH_GC_OUT"], "w") as fh:
        json.dump({"collections": _count, "seconds": _secs, "objects_at_exit": len(gc.get_objects())}, fh)


gc.callbacks.append(_callback)
atexit.register(_write)
'''


def make_workspace(root: Path) -> dict[str, object]:
    rules = build_rules()
    active_ids = [r["id"] for r in rules if r["id"].endswith("-on")]
    for di, d in enumerate(N_DIRS):
        folder = root / "suite" / d
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(FILES_PER_DIR):
            name = f"test_{d[0] if d != 'data' else 'a'}{j:02d}.py"
            (folder / name).write_text(
                test_file(d, j, active_ids[(di * FILES_PER_DIR + j) % len(active_ids)]), encoding="utf-8"
            )
    # Markers registered for both runs, so bare pytest does not warn about unknown marks.
    (root / "pytest.ini").write_text(
        textwrap.dedent("""\
        [pytest]
        markers =
            uses(*libraries): libraries the test exercises
            gpus(n): GPUs the test needs
            known_issue(rule_id): known-bad rule that affects the test
            isolated: run in a fresh process
            slow: slow test
        """),
        encoding="utf-8",
    )
    write_matrix(root / "matrix.yaml", rules)
    # The same 100 rules made inactive (platform: cuda): the plugin's fixed cost, no rule effects.
    off = copy.deepcopy(rules)
    for rule in off:
        rule["when"]["platform"] = "cuda"
    write_matrix(root / "matrix_inactive.yaml", off)
    (root / "bench_nullhooks.py").write_text(NULL_HOOKS, encoding="utf-8")
    (root / "bench_gcstats.py").write_text(GC_STATS, encoding="utf-8")
    (root / "env.json").write_text(ENV.to_json(), encoding="utf-8")
    return {"rules": len(rules), "files": len(N_DIRS) * FILES_PER_DIR}


# ---------------------------------------------------------------- subprocess runs


def pytest_argv(
    *, plugin: bool, collect: bool, root: Path, matrix: str = "matrix.yaml", null_hooks: bool = False
) -> list[str]:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    argv += (
        ["--rocm-matrix", str(root / matrix), "--rocm-env", str(root / "env.json")]
        if plugin
        else ["-p", "no:rocmcompat"]
    )
    if null_hooks:  # imported from the workspace (the current directory is on sys.path with -m)
        argv += ["-p", "bench_nullhooks"]
    if collect:
        argv.append("--collect-only")
    return [*argv, "suite"]


def child_env(root: Path | None = None, *, matrix_cache: bool = True) -> dict[str, str]:
    """The children's environment: no pytest options from outside, and bytecode caching on.

    With PYTHONDONTWRITEBYTECODE set, every run would recompile the package and rewrite the
    asserts of all 50 test modules from source; a developer's or CI's second run does not.
    The untimed warm-up run writes the caches, the plugin's checked-matrix cache too: it lives
    in the workspace (``root``), or is off (``matrix_cache=False``: every run parses the matrix,
    as the first run after an edit does).
    """
    env = dict(os.environ)
    for key in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_XDIST_AUTO_NUM_WORKERS", "PYTHONDONTWRITEBYTECODE"):
        env.pop(key, None)
    if not matrix_cache:
        env[CACHE_DIR_VAR] = "off"
    elif root is not None:
        env[CACHE_DIR_VAR] = str(root / ".matrix-cache")
    return env


def last_lines(proc: subprocess.CompletedProcess[str], n: int = 8) -> list[str]:
    return (proc.stdout + proc.stderr).strip().splitlines()[-n:]


# ---------------------------------------------------------------- in-process timings


class _Micro:
    """Collects the real items (plugin disabled) and times the plugin's pieces on them."""

    def __init__(self, root: Path, reps: int) -> None:
        self.root, self.reps = root, reps
        self.result: dict[str, object] = {}

    @staticmethod
    def _best(fn, reps: int) -> tuple[float, object]:
        times, value = [], None
        for _ in range(reps):
            t = time.perf_counter()
            value = fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times), value

    def pytest_collection_modifyitems(self, session, config, items) -> None:
        from pytest_rocmcompat import plugin
        from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts, uses_of
        from pytest_rocmcompat.matrix.loader import load_matrix
        from pytest_rocmcompat.matrix.locate import locate
        from pytest_rocmcompat.session.collection import known_issue_ids
        from pytest_rocmcompat.session.state import CompatState

        r = self.reps
        t_load, matrix = self._best(lambda: load_matrix(self.root / "matrix.yaml"), r)
        t_env, env = self._best(lambda: Environment.load(str(self.root / "env.json")), r)
        t_active, rules = self._best(lambda: ActiveRules(matrix.rules, env), r)
        t_locate, _ = self._best(lambda: locate(matrix, env), r)
        state = CompatState(env, matrix, "matrix.yaml", None, rules, False, None)

        def facts_of():
            return [
                ItemFacts(
                    nodeid=item.nodeid,
                    markers=frozenset(m.name for m in item.iter_markers()),
                    uses=uses_of(a for m in item.iter_markers("uses") for a in m.args),
                    known_issues=known_issue_ids(item, state, list(item.iter_markers())),
                )
                for item in items
            ]

        t_facts, facts = self._best(facts_of, r)
        t_match, matched = self._best(lambda: [rules.match(f) for f in facts], r)
        t_gpus, _ = self._best(lambda: [item.get_closest_marker("gpus") for item in items], r)
        # The whole collection hook once (it adds markers to the items, so it is not repeated).
        config.stash[plugin.STATE_KEY] = state
        t = time.perf_counter()
        plugin.pytest_collection_modifyitems(config, items)
        t_hook = time.perf_counter() - t
        del config.stash[plugin.STATE_KEY]
        reached = [m for m in matched if m]
        skipped = sum(1 for m in reached if any(x.action == "skip" for x in m))
        self.result = {
            "items": len(items),
            "rules": len(rules.all_rules),
            "active_rules": len(rules.active),
            "items_reached": len(reached),
            "items_skipped_by_rules": skipped,
            "items_xfail_only": len(reached) - skipped,
            "rule_hits": sum(len(m) for m in reached),
            "seconds": {
                "load_matrix": t_load,
                "environment_load": t_env,
                "active_rules_init": t_active,
                "locate": t_locate,
                "item_facts_5000": t_facts,
                "match_5000": t_match,
                "gpus_marker_lookup_5000": t_gpus,
                "collection_hook_once": t_hook,
            },
            "us_per_item": {
                "facts": t_facts / len(items) * 1e6,
                "match": t_match / len(items) * 1e6,
                "collection_hook": t_hook / len(items) * 1e6,
            },
        }


def micro(root: Path, reps: int) -> dict[str, object]:
    import pytest

    probe = _Micro(root, reps)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = pytest.main(
                ["-q", "--collect-only", "-p", "no:cacheprovider", "-p", "no:rocmcompat", "suite"], plugins=[probe]
            )
    finally:
        os.chdir(cwd)
    if code != 0 or not probe.result:
        raise RuntimeError(f"in-process collection failed (exit {code})")
    return probe.result


class _Reports:
    """Runs the suite in-process with the plugin and times its per-report functions on the real reports."""

    def __init__(self, reps: int) -> None:
        self.reps, self.reports, self.result = reps, [], {}

    def pytest_runtest_logreport(self, report) -> None:
        self.reports.append(report)

    def pytest_sessionfinish(self, session) -> None:
        from pytest_rocmcompat import plugin
        from pytest_rocmcompat.session import classify
        from pytest_rocmcompat.session.results import ResultHook
        from pytest_rocmcompat.session.state import CompatState

        state = plugin.state_of(session.config)
        reports = self.reports

        def record_all():  # the per-report hook recording into a fresh state (reports classified already)
            fresh = CompatState(state.env, state.matrix, state.rules_source, None, state.rules, False, None)
            hook = ResultHook(fresh, session.config, records=True)
            hook._words = True  # registered already in the run
            for r in reports:
                hook.pytest_runtest_logreport(r)

        t_from, _ = _Micro._best(lambda: [classify.from_report(r) for r in reports], self.reps)
        t_status, _ = _Micro._best(lambda: [classify.teststatus(r) for r in reports], self.reps)
        t_record, _ = _Micro._best(record_all, self.reps)
        self.result = {
            "reports": len(reports),
            "seconds": {"from_report_all": t_from, "teststatus_all": t_status, "recorder_all": t_record},
        }


def report_micro(root: Path, reps: int) -> dict[str, object]:
    import pytest

    grab = _Reports(reps)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            pytest.main(
                ["-q", "-p", "no:cacheprovider", "--rocm-matrix", "matrix.yaml", "--rocm-env", "env.json", "suite"],
                plugins=[grab],
            )
    finally:
        os.chdir(cwd)
    if not grab.result:
        raise RuntimeError("in-process plugin run gave no reports")
    return grab.result


def gc_stats(root: Path, tmp: Path, reps: int = 3) -> dict[str, object]:
    """Garbage-collector passes and time in bare and plugin runs (median seconds over ``reps`` runs).

    The collector's full (generation 2) passes cost about 0.1 s each with this suite's ~180,000
    live objects; the plugin's extra allocations and longer-lived objects can trigger one more.
    """
    out: dict[str, object] = {}
    for name, argv in (
        ("bare-run", pytest_argv(plugin=False, collect=False, root=root)),
        ("plugin-run", pytest_argv(plugin=True, collect=False, root=root)),
        ("plugin-run-0-active", pytest_argv(plugin=True, collect=False, root=root, matrix="matrix_inactive.yaml")),
    ):
        runs = []
        for i in range(reps + 1):  # the first is a warm-up (bytecode caches), dropped below
            path = tmp / f"gc-{name}-{i}.json"
            env = {**child_env(root), "BENCH_GC_OUT": str(path)}
            timed_run([*argv[:-1], "-p", "bench_gcstats", argv[-1]], cwd=root, env=env, ok_codes=(0, 1))
            runs.append(json.loads(path.read_text(encoding="utf-8")))
        runs = runs[1:]
        out[name] = {
            "collections": runs[0]["collections"],
            "seconds": [statistics.median(r["seconds"][g] for r in runs) for g in range(3)],
            "total_s": statistics.median(sum(r["seconds"]) for r in runs),
            "objects_at_exit": runs[0]["objects_at_exit"],
        }
    return out


def import_cost(reps: int) -> float:
    """Median seconds to import the plugin module in a process that already imported pytest."""
    code = (
        "import pytest, time; t = time.perf_counter(); import pytest_rocmcompat.plugin; print(time.perf_counter() - t)"
    )
    samples = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=child_env()
            ).stdout
        )
        for _ in range(reps)
    ]
    return statistics.median(samples)


def _profile(root: Path, tmp: Path, plugin: bool) -> pstats.Stats:
    prof = tmp / ("plugin.prof" if plugin else "bare.prof")
    argv = pytest_argv(plugin=plugin, collect=False, root=root)
    argv = [argv[0], "-m", "cProfile", "-o", str(prof), *argv[1:]]
    timed_run(argv, cwd=root, env=child_env(root), ok_codes=(0, 1))
    return pstats.Stats(str(prof))


def _short(file: str) -> str:
    for marker in (
        os.sep + "pytest_rocmcompat" + os.sep,
        os.sep + "site-packages" + os.sep,
        os.sep + "lib" + os.sep + "python",
    ):
        if marker in file:
            return (
                file[file.index(marker) + 1 :] if "rocmcompat" in marker else file[file.index(marker) + len(marker) :]
            )
    return file


def profile_run(root: Path, tmp: Path, top: int = 15) -> dict[str, object]:
    """One plugin run and one bare run under cProfile.

    Reports the cumulative time of each plugin hook, the package functions with the most
    own time, and the functions (any module: pluggy, pytest, the package) whose own time
    grew most from the bare run to the plugin run: that is where the overhead goes,
    including hook dispatch and pytest work the plugin causes, which hook times miss.
    """
    stats = _profile(root, tmp, plugin=True)
    bare = _profile(root, tmp, plugin=False)
    total = stats.total_tt  # type: ignore[attr-defined]
    bare_total = bare.total_tt  # type: ignore[attr-defined]
    pkg = os.sep + "pytest_rocmcompat" + os.sep
    hooks, funcs = {}, []
    for (file, line, name), (_cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if pkg not in file:
            continue
        short = _short(file)
        funcs.append({"function": f"{short}:{line}({name})", "calls": nc, "tottime": tt, "cumtime": ct})
        if short.endswith(("plugin.py", "results.py")) and (name.startswith("pytest_") or name == "<module>"):
            hooks[f"{os.path.basename(short)}:{name}"] = {"calls": nc, "cumtime": ct}
    bare_tt = {k: v[2] for k, v in bare.stats.items()}  # type: ignore[attr-defined]
    bare_nc = {k: v[1] for k, v in bare.stats.items()}  # type: ignore[attr-defined]
    delta = []
    for key, (_cc, nc, tt, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        d = tt - bare_tt.get(key, 0.0)
        file, line, name = key
        delta.append(
            {
                "function": f"{_short(file)}:{line}({name})",
                "delta_tottime": d,
                "calls": nc,
                "bare_calls": bare_nc.get(key, 0),
            }
        )
    own = sum(f["tottime"] for f in funcs)
    hook_total = sum(h["cumtime"] for h in hooks.values())
    return {
        "profiled_total_s": total,
        "profiled_bare_total_s": bare_total,
        "profiled_delta_s": total - bare_total,
        "package_tottime_s": own,
        "hooks_cumtime_s": hook_total,
        "hooks_share": hook_total / total if total else 0.0,
        "hooks": dict(sorted(hooks.items(), key=lambda kv: -kv[1]["cumtime"])),
        "top_tottime": sorted(funcs, key=lambda f: -f["tottime"])[:top],
        "top_cumtime": sorted(funcs, key=lambda f: -f["cumtime"])[:top],
        "top_delta_vs_bare": sorted(delta, key=lambda f: -f["delta_tottime"])[:top],
    }


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=default_out("plugin_overhead"), help="JSON results (default %(default)s)")
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions of each variant (default 7, min 5)")
    ap.add_argument("--keep", metavar="DIR", help="generate the suite in DIR and keep it")
    ap.add_argument("--no-profile", action="store_true", help="skip the cProfile run")
    args = ap.parse_args(argv)
    if args.reps < 5:
        ap.error("--reps must be at least 5")

    info = machine()
    tmp = Path(tempfile.mkdtemp(prefix="rocmcompat-bench-"))
    root = Path(args.keep).resolve() if args.keep else tmp / "ws"
    root.mkdir(parents=True, exist_ok=True)
    try:
        made = make_workspace(root)
        env = child_env(root)
        cold_env = child_env(root, matrix_cache=False)
        runs: dict[str, list[str]] = {}
        cpu: dict[str, list[float]] = {}  # user + system CPU seconds of each run (warm-up first)

        def variant(
            name: str,
            plugin: bool,
            collect: bool,
            matrix: str = "matrix.yaml",
            null_hooks: bool = False,
            matrix_cache: bool = True,
        ):
            cmd = pytest_argv(plugin=plugin, collect=collect, root=root, matrix=matrix, null_hooks=null_hooks)

            def run() -> float:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                wall, proc = timed_run(
                    cmd, cwd=root, env=env if matrix_cache else cold_env, ok_codes=(0, 1) if not collect else (0,)
                )
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.setdefault(name, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                runs[name] = last_lines(proc)
                return wall

            return run

        print(
            f"suite: {made['files']} files in {root}; {made['rules']} rules; {args.reps} reps, interleaved",
            file=sys.stderr,
        )
        times = interleave(
            {
                "bare-run": variant("bare-run", False, False),
                "plugin-run": variant("plugin-run", True, False),
                "bare-collect": variant("bare-collect", False, True),
                "plugin-collect": variant("plugin-collect", True, True),
                # attribution only: the same matrix with no rule active (fixed cost of the plugin)
                "plugin-run-0-active": variant("plugin-run-0-active", True, False, "matrix_inactive.yaml"),
                # attribution only: the matrix parsed and checked in every run (matrix cache off)
                "plugin-run-no-cache": variant("plugin-run-no-cache", True, False, matrix_cache=False),
                # attribution only: bare pytest plus the same per-test hooks with empty bodies
                "null-hooks-run": variant("null-hooks-run", False, False, null_hooks=True),
            },
            args.reps,
        )
        stats = {name: summary(t) for name, t in times.items()}
        cpu = {name: samples[-args.reps :] for name, samples in cpu.items()}  # without the warm-up
        cpu_stats = {name: summary(t) for name, t in cpu.items()}
        cpu_run = cpu_stats["plugin-run"]["median"] / cpu_stats["bare-run"]["median"] - 1
        cpu_run_paired = paired_ratio(cpu["plugin-run"], cpu["bare-run"]) - 1
        run_ratio = stats["plugin-run"]["median"] / stats["bare-run"]["median"] - 1
        collect_ratio = stats["plugin-collect"]["median"] / stats["bare-collect"]["median"] - 1
        paired_run = paired_ratio(times["plugin-run"], times["bare-run"]) - 1
        paired_collect = paired_ratio(times["plugin-collect"], times["bare-collect"]) - 1
        fixed_ratio = stats["plugin-run-0-active"]["median"] / stats["bare-run"]["median"] - 1
        null_ratio = stats["null-hooks-run"]["median"] / stats["bare-run"]["median"] - 1

        print("in-process timings ...", file=sys.stderr)
        micro_result = micro(root, reps=5)
        micro_result["per_report"] = report_micro(root, reps=5)
        imp = import_cost(5)
        gcs = gc_stats(root, tmp)
        prof = None
        if not args.no_profile:
            print("profiling one plugin run ...", file=sys.stderr)
            prof = profile_run(root, tmp)

        result = {
            "benchmark": "plugin_overhead",
            "machine": info,
            "suite": {
                "files": made["files"],
                "tests": micro_result["items"],
                "rules": made["rules"],
                "active_rules": micro_result["active_rules"],
                "items_reached": micro_result["items_reached"],
                "items_skipped_by_rules": micro_result["items_skipped_by_rules"],
                "items_xfail_only": micro_result["items_xfail_only"],
            },
            "reps": args.reps,
            "wall_s": {name: {"samples": t, **stats[name]} for name, t in times.items()},
            "cpu_s": {name: {"samples": t, **cpu_stats[name]} for name, t in cpu.items()},
            "overhead": {
                "run": run_ratio,
                "run_paired": paired_run,
                "collect": collect_ratio,
                "collect_paired": paired_collect,
                "run_abs_s": stats["plugin-run"]["median"] - stats["bare-run"]["median"],
                "collect_abs_s": stats["plugin-collect"]["median"] - stats["bare-collect"]["median"],
                "run_0_active": fixed_ratio,
                "run_0_active_paired": paired_ratio(times["plugin-run-0-active"], times["bare-run"]) - 1,
                "run_0_active_abs_s": stats["plugin-run-0-active"]["median"] - stats["bare-run"]["median"],
                "run_cpu": cpu_run,
                "run_cpu_paired": cpu_run_paired,
                "no_cache": stats["plugin-run-no-cache"]["median"] / stats["bare-run"]["median"] - 1,
                "no_cache_paired": paired_ratio(times["plugin-run-no-cache"], times["bare-run"]) - 1,
                "null_hooks": null_ratio,
                "null_hooks_paired": paired_ratio(times["null-hooks-run"], times["bare-run"]) - 1,
                "null_hooks_abs_s": stats["null-hooks-run"]["median"] - stats["bare-run"]["median"],
            },
            "target": {"run_overhead_max": TARGET_OVERHEAD, "met": run_ratio <= TARGET_OVERHEAD},
            "last_lines": runs,
            "micro": micro_result,
            "plugin_import_s": imp,
            "gc": gcs,
            "profile": prof,
        }
        out = write_json(args.out, result)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    rows = [[name, s["median"], s["min"], s["max"], s["mad"], cpu_stats[name]["median"]] for name, s in stats.items()]
    print(table(rows, ["variant", "median s", "min s", "max s", "MAD s", "CPU median s"]))
    print()
    print(
        table(
            [
                [
                    "full run",
                    f"{run_ratio * 100:+.1f}%",
                    f"{paired_run * 100:+.1f}%",
                    f"{result['overhead']['run_abs_s']:+.3f}",
                    f"<= {TARGET_OVERHEAD * 100:.0f}%",
                    "met" if run_ratio <= TARGET_OVERHEAD else "NOT MET",
                ],
                [
                    "full run, CPU time (user + sys)",
                    f"{cpu_run * 100:+.1f}%",
                    f"{cpu_run_paired * 100:+.1f}%",
                    f"{cpu_stats['plugin-run']['median'] - cpu_stats['bare-run']['median']:+.3f}",
                    "-",
                    "-",
                ],
                [
                    "--collect-only",
                    f"{collect_ratio * 100:+.1f}%",
                    f"{paired_collect * 100:+.1f}%",
                    f"{result['overhead']['collect_abs_s']:+.3f}",
                    "-",
                    "-",
                ],
                [
                    "full run, 0 rules active",
                    f"{fixed_ratio * 100:+.1f}%",
                    f"{result['overhead']['run_0_active_paired'] * 100:+.1f}%",
                    f"{result['overhead']['run_0_active_abs_s']:+.3f}",
                    "-",
                    "-",
                ],
                [
                    "full run, matrix cache off",
                    f"{result['overhead']['no_cache'] * 100:+.1f}%",
                    f"{result['overhead']['no_cache_paired'] * 100:+.1f}%",
                    "-",
                    "-",
                    "-",
                ],
                [
                    "null hooks (floor)",
                    f"{null_ratio * 100:+.1f}%",
                    f"{result['overhead']['null_hooks_paired'] * 100:+.1f}%",
                    f"{result['overhead']['null_hooks_abs_s']:+.3f}",
                    "-",
                    "-",
                ],
            ],
            ["overhead", "of medians", "paired median", "abs s", "target", "status"],
        )
    )
    print()
    s = result["suite"]
    print(
        f"suite: {s['tests']} tests, {s['rules']} rules ({s['active_rules']} active); rules reach "
        f"{s['items_reached']} tests ({s['items_skipped_by_rules']} skipped, {s['items_xfail_only']} xfail)"
    )
    m = micro_result["seconds"]
    pr = micro_result["per_report"]
    print(
        table(
            [[k, v * 1000] for k, v in m.items()]
            + [[f"{k} ({pr['reports']} reports)", v * 1000] for k, v in pr["seconds"].items()]
            + [["import pytest_rocmcompat.plugin", imp * 1000]],
            ["in-process step", "ms"],
        )
    )
    print()
    print(
        table(
            [
                [name, "/".join(map(str, g["collections"])), g["seconds"][2], g["total_s"], g["objects_at_exit"]]
                for name, g in gcs.items()
            ],
            ["garbage collector", "passes gen0/1/2", "gen2 s", "all gens s", "objects at exit"],
        )
    )
    if prof:
        print()
        print(
            f"cProfile of one plugin run: {prof['profiled_total_s']:.2f} s profiled, plugin hooks "
            f"{prof['hooks_cumtime_s']:.2f} s ({prof['hooks_share'] * 100:.1f}%)"
        )
        print(table([[k, v["calls"], v["cumtime"]] for k, v in prof["hooks"].items()], ["hook", "calls", "cumtime s"]))
        print(
            table(
                [[f["function"], f["calls"], f["tottime"], f["cumtime"]] for f in prof["top_tottime"][:10]],
                ["package function (by tottime)", "calls", "tottime s", "cumtime s"],
            )
        )
        print(f"profiled plugin run - profiled bare run: {prof['profiled_delta_s']:+.2f} s; own time that grew most:")
        print(
            table(
                [
                    [f["function"], f["bare_calls"], f["calls"], f["delta_tottime"]]
                    for f in prof["top_delta_vs_bare"][:12]
                ],
                ["function", "calls bare", "calls plugin", "+tottime s"],
            )
        )
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

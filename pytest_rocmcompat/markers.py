"""The plugin's markers and ini keys, on their own: kept working when the plugin is disabled.

Loaded through a second, light ``pytest11`` entry point (``rocmcompat_markers``), so a run
with ``-p no:rocmcompat`` still knows the markers (``--strict-markers`` collects tests marked
``uses``, ``gpus``, ``isolated``, ``known_issue``) and the ``rocm_*`` ini keys (no "unknown
config option" warning per key, none turned into an error by ``-W error``). Without entry
points (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``) name it: ``-p pytest_rocmcompat.markers``.
Only pytest is imported here.
"""

from __future__ import annotations

from typing import Literal

import pytest

MARKERS: dict[str, str] = {
    "uses(*libraries)": "the test exercises these libraries (e.g. uses('torchao', 'vllm')); "
    "known-bad rules with applies_to.uses reach it",
    "gpus(n=1)": "the test needs n GPUs; skipped when the machine has fewer",
    "isolated(timeout=None, reuse=None, fresh=True)": "run the test in a fresh process (forked from a "
    "template that no test touched) with a time limit in seconds (default: ini rocm_isolate_timeout, "
    "else 300); a crash or hang becomes an outcome; reuse=True (or ini rocm_isolate_reuse): a sandbox "
    "that may have run earlier passing tests (faster to start, but their state may leak)",
    "known_issue(rule_id)": "this test is affected by the named known-bad rule whenever the rule's conditions hold",
}
_REGISTERED = pytest.StashKey[bool]()
DEFAULT_ISOLATE_TIMEOUT = 300.0
DEFAULT_GPU_WAIT_TIMEOUT = 1800.0  # ini rocm_gpu_wait_timeout: then a waiting test errors, naming the holder
GPU_POLICIES = ("marked", "all", "none")  # ini rocm_gpu_policy / --rocm-gpu-policy, the default first
ISOLATE_SCOPES = ("marked", "gpu", "all")  # ini rocm_isolate / --rocm-isolate, the default first
STANDBY_MODES = ("gpu", "always", "off")  # ini rocm_isolate_standby, the default first


def float_ini_type() -> bool:
    """Whether this pytest has the ``float`` ini type (native TOML numbers, strings in ini files)."""
    try:
        from _pytest.config.argparsing import get_ini_default_for_type
    except ImportError:
        return False
    return get_ini_default_for_type("float") == 0.0


def register_ini(parser: pytest.Parser) -> None:
    """The ``rocm_*`` ini keys with pytest's native types (registering twice is harmless)."""
    parser.addini("rocm_matrix", "Default for --rocm-matrix (relative to the rootdir).", default="")
    parser.addini("rocm_report", "Default for --rocm-report (relative to the rootdir).", default="")
    parser.addini("rocm_strict", "Default for --rocm-strict.", type="bool", default=False)
    parser.addini(
        "rocm_gc_freeze",
        "After collection, move the collected objects out of the garbage collector's reach "
        "(gc.freeze) until the session ends, so full collections do not walk them again and "
        "again. Off by default: frozen objects are never collected, so a host test that frees "
        "something created at import and checks it with gc.collect() would change meaning; "
        "true for suites known not to (this project's bundled suites).",
        type="bool",
        default=False,
    )
    numeric = float_ini_type()
    isolate_type: Literal["float", "string"] = "float" if numeric else "string"
    parser.addini(
        "rocm_isolate_timeout",
        "Seconds an isolated test may run before it is killed as a hang (default 300).",
        type=isolate_type,
        default=DEFAULT_ISOLATE_TIMEOUT if numeric else str(int(DEFAULT_ISOLATE_TIMEOUT)),
    )
    parser.addini(
        "rocm_isolate",
        "Which tests run isolated, each in a fresh process: 'marked' (default: tests marked isolated, "
        "reached by an isolate rule, or borrowing GPUs), 'gpu' (also every test that declares GPU use: "
        "gpus(n), a fixture of rocm_gpu_fixtures), 'all' (every test). Tests isolated only by this "
        "key get the ini rocm_isolate_timeout.",
        default="marked",
    )
    parser.addini(
        "rocm_isolate_reuse",
        "Run isolated tests one after another in a reusable sandbox instead of a fresh forked process "
        "each (default false). Faster where the fork is not (no torch preload), but what a passing test "
        "changes in its process (torch's default dtype, seeds, backend flags, GPU memory, imported "
        "modules' state) reaches the next one. isolated(reuse=...) overrides it per test.",
        type="bool",
        default=False,
    )
    parser.addini(
        "rocm_isolate_standby",
        "While an isolated test runs, fork the next one's process ahead of need: 'gpu' (default) when "
        "the next test declares GPU use on a CUDA machine, starting its CUDA driver and context ahead "
        "(torch's own state untouched; the driver has then read CUDA_VISIBLE_DEVICES and the other "
        "CUDA_* variables, so a test must not change them itself); 'always' for every next isolated "
        "test; 'off' never (each test's process is forked when it starts).",
        default="gpu",
    )
    parser.addini(
        "rocm_isolate_preload",
        "Modules the isolation template imports before forking a child per test, one per line "
        "(default: torch, when installed). Importing never initialises a GPU runtime; a module that "
        "does at import makes the template unsafe to fork, and isolated tests are spawned instead.",
        type="linelist",
        default=["torch"],
    )
    parser.addini(
        "rocm_gpu_policy",
        "Under pytest-xdist on a GPU host: 'marked' (default) gives GPUs, exclusively, only to tests "
        "that declare GPU use (gpus(n), a fixture of rocm_gpu_fixtures) and leaves every other test "
        "as plain xdist runs it; 'all' pins each worker to a slice and locks every test; 'none' "
        "does neither.",
        default="marked",
    )
    parser.addini(
        "rocm_gpu_fixtures",
        "Fixture names whose use declares that a test uses one GPU (as gpus(1)), one per line.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "rocm_gpu_wait_timeout",
        "Under pytest-xdist, seconds a test may wait for a GPU another test holds before it ends as "
        "an error naming the holder (default 1800; a wait past 5 s is said on stderr at once).",
        type=isolate_type,
        default=DEFAULT_GPU_WAIT_TIMEOUT if numeric else str(int(DEFAULT_GPU_WAIT_TIMEOUT)),
    )


def register_markers(config: pytest.Config) -> None:
    if config.stash.get(_REGISTERED, False):
        return
    config.stash[_REGISTERED] = True
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def pytest_addoption(parser: pytest.Parser) -> None:
    register_ini(parser)


def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)

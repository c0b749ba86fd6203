"""Command-line options of the plugin; its ini keys and markers live in ``markers`` (see there)."""

from __future__ import annotations

import argparse
import math

import pytest

from pytest_rocmcompat.markers import GPU_POLICIES, ISOLATE_SCOPES, STANDBY_MODES, register_ini
from pytest_rocmcompat.stack.stack_replay import rocm_stack_option


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("rocmcompat", "GPU stack compatibility (pytest-rocmcompat)")
    group.addoption(
        "--rocm-matrix",
        metavar="PATH|NAME",
        default=None,
        help="Version matrix (YAML) to locate this machine in and take known-bad rules from: a path, "
        "else a bundled matrix by name (cpu, mi300, h100, ...). "
        "Without it, the bundled known-bad database applies alone. [ini: rocm_matrix]",
    )
    group.addoption(
        "--rocm-env",
        metavar="FILE",
        default=None,
        help="Replay an environment recorded with `rocmcompat probe --json` instead of probing "
        "this machine; every output is labelled as a replay.",
    )
    group.addoption(
        "--rocm-stack",
        metavar="FILE",
        dest="rocm_env",
        type=rocm_stack_option,
        help="Replay exactly the stack FILE states (pip freeze, pinned requirements, uv.lock, conda "
        "export, recorded probe, a collect_env report; as `rocmcompat check`): nothing comes from this machine. "
        "--rocm-set applies on top.",
    )
    group.addoption(
        "--rocm-probe",
        choices=("cached", "fresh"),
        default="cached",
        help="cached (default): reuse the last live probe of this machine while nothing it reads "
        "has changed (installed packages, driver and ROCm/CUDA version files, GPU variables); "
        "fresh: probe again and replace the stored result. ROCMCOMPAT_CACHE_DIR=off never stores.",
    )
    group.addoption(
        "--rocm-set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="Override a field of the probed or replayed environment (repeatable). Keys: platform, "
        "arch (comma-separated for several devices), os (Linux, Windows, macOS), rocm, hip, cuda, "
        "driver (a version, or a kernel release), torch, python, nccl, driver_cuda, torch_archs, "
        "torch_cxx11_abi, lib.NAME (empty value: not installed), requires.NAME, env.NAME. "
        "Output is labelled 'overridden'.",
    )
    group.addoption(
        "--rocm-report",
        metavar="PATH",
        default=None,
        help="Write the run's Markdown compatibility report to PATH (atomically). [ini: rocm_report]",
    )
    group.addoption(
        "--rocm-strict",
        action="store_true",
        default=None,
        help="Fail a test whose known-bad rule no longer fires (outcome stale-rule). [ini: rocm_strict]",
    )
    group.addoption(
        "--rocm-no-bundled",
        action="store_true",
        default=False,
        help="Without --rocm-matrix, apply no rules at all instead of the bundled known-bad database.",
    )
    group.addoption(
        "--rocm-gpu-policy",
        choices=GPU_POLICIES,
        default=None,
        help="Under pytest-xdist on a GPU host: 'marked' (default) locks and confines only tests that "
        "declare GPU use; 'all' pins every worker and locks every test; 'none' does neither. "
        "[ini: rocm_gpu_policy]",
    )
    group.addoption(
        "--rocm-isolate",
        choices=ISOLATE_SCOPES,
        default=None,
        help="Which tests run isolated, each in a fresh process forked from a template: 'marked' "
        "(default) those marked isolated or reached by an isolate rule; 'gpu' also every test that "
        "declares GPU use; 'all' every test. [ini: rocm_isolate]",
    )
    # Internal: how the isolation runner talks to the sandbox pytest it starts (its directory).
    group.addoption("--rocm-child-result", default=None, help=argparse.SUPPRESS)
    group.addoption("--rocm-child-env", default=None, help=argparse.SUPPRESS)
    register_ini(parser)


def check_ini(config: pytest.Config) -> float:
    """Read every ``rocm_*`` ini key now, before collection, so a wrong value is a usage error
    (exit 4) naming the key and the value; returns the isolation time limit in seconds.
    """
    values = {}
    for name in (
        "rocm_matrix",
        "rocm_report",
        "rocm_strict",
        "rocm_gc_freeze",
        "rocm_gpu_wait_timeout",
        "rocm_gpu_policy",
        "rocm_isolate",
        "rocm_isolate_standby",
        "rocm_gpu_fixtures",
        "rocm_isolate_timeout",
    ):
        try:
            values[name] = config.getini(name)  # pytest checks the type (native TOML types included)
        except (pytest.UsageError, ValueError) as exc:
            raise pytest.UsageError(f"rocmcompat: {_where(config)}ini {name}: {exc}") from None
    _seconds(config, "rocm_gpu_wait_timeout", values["rocm_gpu_wait_timeout"])
    _one_of(config, "rocm_gpu_policy", values["rocm_gpu_policy"], GPU_POLICIES)
    _one_of(config, "rocm_isolate", values["rocm_isolate"], ISOLATE_SCOPES)
    _one_of(config, "rocm_isolate_standby", values["rocm_isolate_standby"], STANDBY_MODES)
    return _seconds(config, "rocm_isolate_timeout", values["rocm_isolate_timeout"])


def _where(config: pytest.Config) -> str:
    return f"{config.inipath}: " if config.inipath else ""


def _one_of(config: pytest.Config, name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise pytest.UsageError(f"rocmcompat: {_where(config)}ini {name} = {value!r}: one of {', '.join(choices)}")


def _seconds(config: pytest.Config, name: str, value: object) -> float:
    try:
        seconds = float(value) if isinstance(value, (str, int, float)) else -1.0
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or math.isnan(seconds) or math.isinf(seconds):
        raise pytest.UsageError(
            f"rocmcompat: {_where(config)}ini {name} = {value!r}: the time limit must be a number of seconds > 0"
        )
    return seconds

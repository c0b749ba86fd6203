"""Preflight: one test per deployment mistake, each failure a one-line problem and fix.

The checks live in :mod:`preflight_checks` (beside this file) as pure functions. They read
the session's environment (so ``--rocm-env`` / ``--rocm-set`` replays reach them) and this
machine's OS facts (device nodes, /dev/shm size, what importing torch with numpy prints).
A check that does not apply to the platform skips with the reason.
"""

from __future__ import annotations

import preflight_checks as pc
import pytest


@pytest.fixture(scope="module")
def host_facts() -> pc.HostFacts:
    """Device nodes and /dev/shm of this machine (no child process)."""
    return pc.gather_host_facts(run_numpy_probe=False)


def _run(check, env, facts) -> None:
    try:
        problem = check(env, facts)
    except pc.NotApplicable as exc:
        pytest.skip(str(exc))
    if problem:
        pytest.fail(problem, pytrace=False)


def test_device_nodes(rocm_env, host_facts):
    _run(pc.check_device_nodes, rocm_env, host_facts)


def test_shm_size(rocm_env, host_facts):
    _run(pc.check_shm_size, rocm_env, host_facts)


def test_hsa_override_gfx_version(rocm_env, host_facts):
    _run(pc.check_hsa_override, rocm_env, host_facts)


def test_build_arch_list(rocm_env, host_facts):
    _run(pc.check_build_arch_list, rocm_env, host_facts)


def test_ray_visibility_variable(rocm_env, host_facts):
    _run(pc.check_ray_visibility, rocm_env, host_facts)


def test_visible_devices_agree(rocm_env, host_facts):
    _run(pc.check_visible_devices, rocm_env, host_facts)


def test_vllm_without_expandable_segments(rocm_env, host_facts):
    _run(pc.check_vllm_expandable_segments, rocm_env, host_facts)


def test_numpy_abi(rocm_env, host_facts):
    """Live: import torch and numpy in a child and look for the numpy-1 ABI messages; replay: versions."""
    output = pc.numpy_child_output() if rocm_env.source == "live" else None
    facts = pc.HostFacts(host_facts.shm_bytes, host_facts.device_nodes, output)
    _run(pc.check_numpy_abi, rocm_env, facts)


def test_python_rocm_wheels(rocm_env, host_facts):
    _run(pc.check_python_rocm_wheels, rocm_env, host_facts)

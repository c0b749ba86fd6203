"""Preflight checks: each pure function on replayed environments, both sides; the suite end to end."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import preflight_checks as pc
import pytest

from pytest_rocmcompat.stack.environment import GPU, Environment
from tests.conftest import CPU_ENV, MI50_ENV, MI300_ENV, REPO

OK_NODES = pc.HostFacts(shm_bytes=16 << 30, device_nodes={"/dev/kfd": "ok", "/dev/dri": "ok"})
H100_ENV = Environment(
    platform="cuda",
    python="3.12.3",
    torch="2.11.0+cu130",
    cuda="13.0",
    gpus=(GPU(0, "NVIDIA H100 80GB HBM3", "sm_90", 85520809984, "nvidia"),),
)
RX6700_ENV = replace(MI300_ENV, gpus=(GPU(0, "AMD Radeon RX 6700 XT", "gfx1031", 12 << 30, "amd"),))
RX7900_ENV = replace(MI300_ENV, gpus=(GPU(0, "AMD Radeon RX 7900 XTX", "gfx1100", 24 << 30, "amd"),))


def with_env(env: Environment, **variables: str) -> Environment:
    return replace(env, env={**env.env, **variables})


def with_libs(env: Environment, **libs: str) -> Environment:
    return replace(env, libraries={**env.libraries, **libs})


def one_line(problem: str | None) -> str:
    assert problem and "\n" not in problem and ": " in problem, problem
    return problem


def test_device_nodes():
    assert pc.check_device_nodes(MI300_ENV, OK_NODES) is None
    replayed = replace(MI300_ENV, source="replay")
    with pytest.raises(pc.NotApplicable, match="recorded machine"):
        pc.check_device_nodes(replayed, pc.HostFacts(device_nodes={"/dev/kfd": "missing", "/dev/dri": "ok"}))
    missing = pc.HostFacts(device_nodes={"/dev/kfd": "missing", "/dev/dri": "ok"})
    assert "--device=/dev/kfd" in one_line(pc.check_device_nodes(MI300_ENV, missing))
    denied = pc.HostFacts(device_nodes={"/dev/kfd": "no-access", "/dev/dri": "ok"})
    assert "render" in one_line(pc.check_device_nodes(MI300_ENV, denied))
    with pytest.raises(pc.NotApplicable, match="only matters on ROCm"):
        pc.check_device_nodes(CPU_ENV, OK_NODES)


def test_device_node_state_of_real_paths(tmp_path):
    assert pc.device_node_state(str(tmp_path / "absent")) == "missing"
    assert pc.device_node_state(str(tmp_path)) == "missing"  # a directory without renderD* nodes
    node = tmp_path / "renderD128"
    node.write_text("")
    assert pc.device_node_state(str(tmp_path)) == "ok"
    assert pc.device_node_state(str(node)) == "ok"


def test_shm_size():
    assert pc.check_shm_size(CPU_ENV, pc.HostFacts(shm_bytes=16 << 30)) is None
    assert "--shm-size" in one_line(pc.check_shm_size(CPU_ENV, pc.HostFacts(shm_bytes=64 << 20)))
    assert "64 MiB" in pc.check_shm_size(CPU_ENV, pc.HostFacts(shm_bytes=64 << 20))
    assert "missing" in one_line(pc.check_shm_size(CPU_ENV, pc.HostFacts(shm_bytes=None)))
    assert pc.shm_size("/nonexistent-dir-for-shm") is None


def test_shm_size_of_this_machine_passes():
    facts = pc.gather_host_facts(run_numpy_probe=False)
    assert facts.shm_bytes and facts.shm_bytes > 0
    assert pc.check_shm_size(CPU_ENV, facts) is None


@pytest.mark.parametrize(
    ("value", "arch"),
    [
        ("9.4.2", "gfx942"),
        ("9.0.10", "gfx90a"),
        ("9.0.6", "gfx906"),
        ("11.0.0", "gfx1100"),
        ("10.3.0", "gfx1030"),
        ("9.4", None),
        ("x.y.z", None),
    ],
)
def test_gfx_from_override(value, arch):
    assert pc.gfx_from_override(value) == arch


def test_hsa_override():
    assert pc.check_hsa_override(MI300_ENV, OK_NODES) is None
    assert pc.check_hsa_override(with_env(MI300_ENV, HSA_OVERRIDE_GFX_VERSION="9.4.2"), OK_NODES) is None
    problem = one_line(pc.check_hsa_override(with_env(MI50_ENV, HSA_OVERRIDE_GFX_VERSION="9.4.2"), OK_NODES))
    assert "gfx942" in problem and "gfx906" in problem and "unset HSA_OVERRIDE_GFX_VERSION" in problem
    # the RDNA family workaround (gfx1031 card run as gfx1030) is legitimate; another family is not
    assert pc.check_hsa_override(with_env(RX6700_ENV, HSA_OVERRIDE_GFX_VERSION="10.3.0"), OK_NODES) is None
    assert pc.check_hsa_override(with_env(RX7900_ENV, HSA_OVERRIDE_GFX_VERSION="10.3.0"), OK_NODES)
    assert "MAJOR.MINOR" in pc.check_hsa_override(with_env(MI300_ENV, HSA_OVERRIDE_GFX_VERSION="9.4"), OK_NODES)
    with pytest.raises(pc.NotApplicable):
        pc.check_hsa_override(H100_ENV, OK_NODES)


def test_build_arch_list_rocm():
    assert pc.check_build_arch_list(MI300_ENV, OK_NODES) is None
    assert pc.check_build_arch_list(with_env(MI300_ENV, PYTORCH_ROCM_ARCH="gfx90a;gfx942"), OK_NODES) is None
    problem = one_line(pc.check_build_arch_list(with_env(MI300_ENV, PYTORCH_ROCM_ARCH="gfx90a"), OK_NODES))
    assert "gfx942" in problem and 'PYTORCH_ROCM_ARCH="gfx90a;gfx942"' in problem
    assert pc.check_build_arch_list(with_env(MI50_ENV, AMDGPU_TARGETS="gfx906:xnack-"), OK_NODES) is None
    assert "AMDGPU_TARGETS" in pc.check_build_arch_list(with_env(MI50_ENV, AMDGPU_TARGETS="gfx908"), OK_NODES)
    with pytest.raises(pc.NotApplicable):
        pc.check_build_arch_list(CPU_ENV, OK_NODES)


@pytest.mark.parametrize(
    ("value", "ok"),
    [("8.0", False), ("8.0;9.0", True), ("8.0 9.0a", True), ("8.0+PTX", True), ("10.0+PTX", False), ("9.0", True)],
)
def test_build_arch_list_cuda(value, ok):
    problem = pc.check_build_arch_list(with_env(H100_ENV, TORCH_CUDA_ARCH_LIST=value), OK_NODES)
    assert (problem is None) == ok, problem


def test_ray_visibility():
    new, old = with_libs(MI300_ENV, ray="2.46.0"), with_libs(MI300_ENV, ray="2.40.0")
    hip, rocr = {pc.NOSET_HIP: "1"}, {pc.NOSET_ROCR: "1"}
    assert pc.check_ray_visibility(new, OK_NODES) is None
    assert pc.check_ray_visibility(with_env(new, **hip), OK_NODES) is None
    assert pc.NOSET_HIP in one_line(pc.check_ray_visibility(with_env(new, **rocr), OK_NODES))
    assert pc.check_ray_visibility(with_env(old, **rocr), OK_NODES) is None
    assert pc.NOSET_ROCR in one_line(pc.check_ray_visibility(with_env(old, **hip), OK_NODES))
    assert pc.check_ray_visibility(with_env(with_libs(MI300_ENV, ray="2.45.0"), **rocr), OK_NODES)
    with pytest.raises(pc.NotApplicable, match="Ray is not installed"):
        pc.check_ray_visibility(MI300_ENV, OK_NODES)


def test_visible_devices():
    check = pc.check_visible_devices
    assert check(MI300_ENV, OK_NODES) is None
    assert check(with_env(MI300_ENV, HIP_VISIBLE_DEVICES="0,1", CUDA_VISIBLE_DEVICES="0, 1"), OK_NODES) is None
    assert "disagree" in one_line(
        check(with_env(MI300_ENV, HIP_VISIBLE_DEVICES="0", CUDA_VISIBLE_DEVICES="1"), OK_NODES)
    )
    assert "relative to ROCR" in one_line(
        check(with_env(MI300_ENV, ROCR_VISIBLE_DEVICES="4,5", HIP_VISIBLE_DEVICES="4"), OK_NODES)
    )
    assert check(with_env(MI300_ENV, ROCR_VISIBLE_DEVICES="4,5", HIP_VISIBLE_DEVICES="1"), OK_NODES) is None
    with pytest.raises(pc.NotApplicable):
        check(H100_ENV, OK_NODES)


def test_vllm_expandable_segments():
    vllm = with_libs(MI300_ENV, vllm="0.9.1")
    assert pc.check_vllm_expandable_segments(vllm, OK_NODES) is None
    on = with_env(vllm, PYTORCH_HIP_ALLOC_CONF="garbage_collection_threshold:0.6,expandable_segments:True")
    assert "expandable_segments:False" in one_line(pc.check_vllm_expandable_segments(on, OK_NODES))
    off = with_env(vllm, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:False")
    assert pc.check_vllm_expandable_segments(off, OK_NODES) is None
    with pytest.raises(pc.NotApplicable, match="vLLM"):
        pc.check_vllm_expandable_segments(
            with_env(MI300_ENV, PYTORCH_HIP_ALLOC_CONF="expandable_segments:True"), OK_NODES
        )


NUMPY1_OUTPUT = """
A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.0 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
<stdin>:1: UserWarning: Failed to initialize NumPy: _ARRAY_API not found
"""


def test_numpy_abi_from_child_output_and_versions():
    env = with_libs(replace(MI300_ENV, torch="2.2.2+rocm5.7"), numpy="2.0.0")
    problem = one_line(pc.check_numpy_abi(env, pc.HostFacts(numpy_child_output=NUMPY1_OUTPUT)))
    assert "numpy<2" in problem and "compiled using NumPy 1.x" in problem
    assert "before 2.3" in pc.check_numpy_abi(env, OK_NODES)  # replay without child output: versions decide
    assert pc.check_numpy_abi(with_libs(env, numpy="1.26.4"), OK_NODES) is None
    assert pc.check_numpy_abi(with_libs(MI300_ENV, numpy="2.1.0"), OK_NODES) is None  # torch 2.5 is numpy-2 built
    with pytest.raises(pc.NotApplicable, match="numpy"):
        pc.check_numpy_abi(MI300_ENV, OK_NODES)


def test_numpy_abi_for_real_on_this_machine():
    """The child really imports torch and numpy here; this healthy box passes."""
    pytest.importorskip("numpy")
    output = pc.numpy_child_output()
    assert output and "numpy " in output and "torch " in output, output
    from pytest_rocmcompat.probe.live import probe

    env = probe()
    assert pc.check_numpy_abi(env, pc.HostFacts(numpy_child_output=output)) is None


def test_python_rocm_wheels():
    py313 = replace(MI300_ENV, python="3.13.1")
    assert "Python 3.12" in one_line(pc.check_python_rocm_wheels(py313, OK_NODES))
    assert pc.check_python_rocm_wheels(replace(py313, torch="2.6.0+rocm6.2.4"), OK_NODES) is None
    assert pc.check_python_rocm_wheels(MI300_ENV, OK_NODES) is None
    with pytest.raises(pc.NotApplicable):
        pc.check_python_rocm_wheels(replace(CPU_ENV, python="3.13.1"), OK_NODES)


def test_every_check_has_a_suite_test():
    suite = (REPO / "suites" / "preflight" / "test_preflight.py").read_text(encoding="utf-8")
    for name, check in pc.CHECKS.items():
        assert f"pc.{check.__name__}" in suite, f"check {name} has no test in the preflight suite"


def _run_suite(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "suites/preflight",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            *args,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_suite_runs_for_real_on_this_cpu_box():
    proc = _run_suite("--rocm-matrix", "matrices/cpu.yaml")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "test_shm_size" not in proc.stdout.split("short test summary")[-1]  # ran, not skipped
    assert "only matters on ROCm" in proc.stdout


def test_suite_sees_replayed_environment(env_file):
    """A replayed MI50 with a contradicting override fails that check with its one-line fix."""
    path = env_file(with_env(MI50_ENV, HSA_OVERRIDE_GFX_VERSION="9.4.2"))
    proc = _run_suite("--rocm-env", str(path), "-k", "hsa_override")
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "claims gfx942 but the GPU is gfx906" in proc.stdout
    assert "Traceback" not in proc.stdout

"""Built-in compatibility checks, both ways, on recorded real outputs (CUDA and ROCm)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pytest_rocmcompat.checks import cuda_targets, rocm_targets
from pytest_rocmcompat.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.errors import OverrideError
from pytest_rocmcompat.probe.environment import Environment
from pytest_rocmcompat.probe.nvidia_smi import parse_nvidia_smi_header
from pytest_rocmcompat.probe.overrides import apply_overrides
from pytest_rocmcompat.probe.rocminfo import parse_rocminfo

DATA = Path(__file__).parent / "data"
H100 = Environment.load(str(DATA / "env_h100_archs.json"))  # torch 2.11.0+cu130, real get_arch_list


def ids(env: Environment, settings=None) -> list[str]:
    return [f.check for f in evaluate(env, settings)]


def rocm_env(rocminfo_file: str, torch: str, **changes) -> Environment:
    gpus = parse_rocminfo((DATA / rocminfo_file).read_text()).gpus
    return Environment(platform="rocm", gpus=gpus, torch=torch, python="3.12.3", os="Linux 6.8", **changes)


# ---- the recorded real machines show no false problem ---------------------------------
@pytest.mark.parametrize("path", ["env_h100_archs.json", "env_h100_live.json", "../../reports/cpu/env.json",
                                  "../../reports/h200x2-suites/env.json", "../../reports/h100-suites/env.json"])
def test_recorded_real_environments_have_no_problems(path: str) -> None:
    assert evaluate(Environment.load(str(DATA / path))) == []


def test_old_recorded_json_without_derived_facts_loads() -> None:
    env = Environment.load(str(DATA / "env_h100_live.json"))
    assert env.torch_archs is None and env.nccl is None and env.driver_cuda is None and env.requires == {}
    targets, origin = env.build_targets  # derived from the table for torch 2.11.0+cu130
    assert "sm_90" in targets and origin.startswith("table:")


def test_derived_facts_round_trip() -> None:
    env = apply_overrides(H100, ["nccl=2.21.5", "driver_cuda=12.4", "requires.vllm=torch==2.5.1|xformers"])
    again = Environment.from_json(env.to_json())
    assert again == env
    assert again.requires == {"vllm": ("torch==2.5.1", "xformers")}
    assert again.field_version("nccl").release == (2, 21, 5)


# ---- arch-not-in-build: CUDA -----------------------------------------------------------
@pytest.mark.parametrize("target, gpu, runs", [
    ("sm_80", (8, 6), True),      # binary compatibility within a major
    ("sm_86", (8, 0), False),     # never to an older minor
    ("sm_90", (10, 0), False),    # never across majors
    ("compute_90", (12, 0), True),  # PTX JIT to any newer GPU
    ("compute_90", (8, 6), False),
    ("sm_90a", (9, 0), True),     # arch-specific: exactly that arch
    ("compute_90a", (10, 0), False),
    ("sm_100f", (10, 3), True),   # family-specific: same major, newer minor
])
def test_cuda_compatibility_rules(target: str, gpu: tuple[int, int], runs: bool) -> None:
    assert cuda_targets.serves(target, gpu) is runs


def test_h100_build_both_ways() -> None:
    assert ids(apply_overrides(H100, ["arch=sm_89"])) == []  # sm_86 cubin runs on sm_89
    assert ids(apply_overrides(H100, ["arch=sm_61"])) == ["arch-not-in-build"]  # Pascal: not in cu130
    assert ids(apply_overrides(H100, ["arch=sm_61", "torch_archs=sm_75,compute_60"])) == []


def test_blackwell_on_cu124_from_override_alone() -> None:
    env = apply_overrides(H100, ["torch=2.7.0+cu124", "arch=sm_120"])
    assert env.torch_archs is None  # another torch: the probed targets were dropped
    found = evaluate(env)
    assert [f.check for f in found] == ["arch-not-in-build"]
    assert "sm_120" in found[0].reason and found[0].link.startswith("https://")
    assert ids(apply_overrides(H100, ["torch=2.7.0+cu128", "arch=sm_120"])) == []
    assert ids(apply_overrides(H100, ["torch=2.5.1+cu124", "arch=sm_120"])) == ["arch-not-in-build"]


# ---- arch-not-in-build: ROCm -----------------------------------------------------------
def test_rocm_recorded_gpus_both_ways() -> None:
    mi300 = rocm_env("rocminfo_mi300x_gfx942.txt", "2.5.1+rocm6.2")
    assert mi300.archs == ("gfx942",) and ids(mi300) == []
    mixed = rocm_env("rocminfo_mi210_mi60_mi100.txt", "2.5.1+rocm6.2", torch_archs=("gfx942", "gfx90a:xnack-"))
    found = evaluate(mixed)
    assert [f.check for f in found] == ["arch-not-in-build"]
    assert "gfx906" in found[0].reason and "gfx908" in found[0].reason and "gfx90a," not in found[0].reason
    generic = replace(mixed, torch_archs=("gfx9-generic", "gfx90a:sramecc+:xnack-", "gfx908"))
    assert ids(generic) == []


def test_rocm_rx7900_on_old_and_new_wheels() -> None:
    assert ids(rocm_env("rocminfo_rx7900xtx_gfx1100.txt", "2.4.1+rocm6.0")) == []
    assert ids(rocm_env("rocminfo_rx7900xtx_gfx1100.txt", "2.4.1+rocm6.0", torch_archs=("gfx90a",))) \
        == ["arch-not-in-build"]


def test_rocm_generic_targets_and_override() -> None:
    assert rocm_targets.served_by(("gfx11-generic",), "gfx1151") is True
    assert rocm_targets.served_by(("gfx11-generic",), "gfx1030") is False
    assert rocm_targets.overridden_arch("10.3.0") == "gfx1030"
    assert rocm_targets.overridden_arch("9.0.10") == "gfx90a"
    rdna2 = apply_overrides(Environment(platform="rocm", torch="2.5.1+rocm6.2", python="3.12.3"),
                            ["arch=gfx1031"])
    assert ids(rdna2) == ["arch-not-in-build"]
    assert ids(apply_overrides(rdna2, ["env.HSA_OVERRIDE_GFX_VERSION=10.3.0"])) == []


def test_rocm_tables_name_known_gaps() -> None:
    base = Environment(platform="rocm", python="3.12.3")
    assert ids(apply_overrides(base, ["torch=2.5.1+rocm6.2", "arch=gfx1010"])) == ["arch-not-in-build"]
    assert ids(apply_overrides(base, ["torch=2.9.0+rocm7.0", "arch=gfx1151"])) == ["arch-not-in-build"]
    assert ids(apply_overrides(base, ["torch=2.5.1+rocm6.2", "arch=gfx90a"])) == []


# ---- Python -----------------------------------------------------------------------------
def test_python_range_both_ways() -> None:
    assert ids(apply_overrides(H100, ["torch=2.5.1+cu124", "python=3.8.10"])) == ["python-unsupported-by-torch"]
    assert ids(apply_overrides(H100, ["torch=2.5.1+cu124", "python=3.12.3"])) == []
    assert ids(apply_overrides(H100, ["torch=2.13.0", "python=3.8.10"])) == []  # unknown release: no verdict


def test_dynamo_gate_both_ways() -> None:
    found = evaluate(apply_overrides(H100, ["torch=2.3.1+cu121", "python=3.12.4"]))
    assert [f.check for f in found] == ["dynamo-python-gate"]
    assert found[0].uses == ("torch.compile", "inductor")
    assert ids(apply_overrides(H100, ["torch=2.4.0+cu121", "python=3.12.4"])) == []
    assert ids(apply_overrides(H100, ["torch=2.5.1+cu124", "python=3.13.1"])) == ["dynamo-python-gate"]
    assert ids(apply_overrides(H100, ["torch=2.6.0+cu124", "python=3.13.1"])) == []


# ---- requirement-not-met -----------------------------------------------------------------
def test_vllm_pin_from_table_both_ways() -> None:
    found = evaluate(apply_overrides(H100, ["lib.vllm=0.6.3", "torch=2.5.1"]))
    assert [f.check for f in found] == ["requirement-not-met"]
    assert "vllm 0.6.3 requires torch==2.4.0, installed torch 2.5.1" in found[0].reason
    assert set(found[0].uses) == {"vllm", "torch"}
    assert ids(apply_overrides(H100, ["lib.vllm=0.6.3", "torch=2.4.0+cu121"])) == []


def test_recorded_requires_with_local_tags_and_markers() -> None:
    base = ["lib.vllm=0.6.5", "torch=2.5.1+rocm6.2"]
    ok = ["requires.vllm=torch==2.5.1|numpy<2; python_version<'3.9'|ray[adag]==2.40; extra == 'ray'"]
    assert ids(apply_overrides(H100, [*base, *ok])) == []  # +rocm6.2 meets ==2.5.1; markers not applied
    assert ids(apply_overrides(H100, [*base, "requires.vllm=torch==2.5.0"])) == ["requirement-not-met"]


def test_installed_metadata_pair_is_named() -> None:
    env = replace(H100, libraries={**H100.libraries, "xformers": "0.0.28.post3"},
                  requires={"xformers": ("torch==2.5.1", "numpy")})
    found = evaluate(env)
    assert [f.check for f in found] == ["requirement-not-met"]
    assert "xformers 0.0.28.post3 requires torch==2.5.1, installed torch 2.11.0+cu130" in found[0].reason


# ---- cuda-newer-than-driver -------------------------------------------------------------
def test_driver_cuda_from_recorded_nvidia_smi_both_ways() -> None:
    h100_580 = parse_nvidia_smi_header((DATA / "nvidia_smi_h100_580.txt").read_text()).cuda
    h100_550 = parse_nvidia_smi_header((DATA / "nvidia_smi_2xh100_550.txt").read_text()).cuda
    assert (h100_580, h100_550) == ("13.0", "12.4")
    assert ids(replace(H100, driver_cuda=h100_580)) == []
    assert ids(replace(H100, driver_cuda=h100_550)) == ["cuda-newer-than-driver"]
    # minor version compatibility: a 12.8 build on a 12.4 driver is not reported
    assert ids(apply_overrides(H100, ["torch=2.7.0+cu128", f"driver_cuda={h100_550}"])) == []


# ---- settings, rules, overrides -----------------------------------------------------------
def test_settings_switch_off_and_change_action() -> None:
    env = apply_overrides(H100, ["torch=2.7.0+cu124", "arch=sm_120"])
    assert ids(env, {"arch-not-in-build": "off"}) == []
    rules = compile_rules(evaluate(env), {"arch-not-in-build": "skip"})
    assert [(r.id, r.action) for r in rules] == [("arch-not-in-build", "skip")]
    assert rules[0].applies_to.markers == ("gpus",) and not rules[0].applies_to.everything
    assert rules[0].describe().startswith("[arch-not-in-build] torch 2.7.0+cu124 has no kernels for sm_120")


@pytest.mark.parametrize("assignment, message", [
    ("torch_archs=sm_90,cuda90", "cuda90 is not a GPU code target"),
    ("requires.vllm=torch=>2.5", "is not a PEP 508 requirement"),
    ("nccl=two", "is not a valid version"),
])
def test_bad_overrides_are_clear_errors(assignment: str, message: str) -> None:
    with pytest.raises(OverrideError, match=message):
        apply_overrides(H100, [assignment])


# ---- end to end through pytest --------------------------------------------------------------
GPU_TESTS = '''
import pytest

@pytest.mark.gpus(1)
def test_kernel():
    raise RuntimeError("CUDA error: no kernel image is available for execution on the device")

@pytest.mark.gpus(1)
def test_gpu_passes():
    pass

def test_cpu():
    pass
'''
BLACKWELL_ON_CU124 = ("--rocm-set", "torch=2.7.0+cu124", "--rocm-set", "arch=sm_120")


def _run(pytester: pytest.Pytester, *args: str, matrix: str | None = None) -> pytest.RunResult:
    (pytester.path / "env.json").write_text(H100.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=GPU_TESTS)
    options = ["--rocm-env", "env.json", "-p", "no:cacheprovider", "--junitxml", "junit.xml", *args]
    if matrix is not None:
        pytester.makefile(".yaml", matrix=matrix)
        options += ["--rocm-matrix", "matrix.yaml"]
    return pytester.runpytest(*options)


def _junit_rules(pytester: pytest.Pytester) -> dict[str, str]:
    import xml.etree.ElementTree as ET

    out = {}
    for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") == "rocm_rule":
                out[case.get("name")] = prop.get("value")
    return out


def test_arch_problem_end_to_end(pytester: pytest.Pytester) -> None:
    result = _run(pytester, *BLACKWELL_ON_CU124)
    result.stdout.fnmatch_lines([
        "rocmcompat: checks: 1 problem(s) with this stack:",
        "rocmcompat:   [[]arch-not-in-build] torch 2.7.0+cu124 has no kernels for sm_120*",
    ])
    result.assert_outcomes(passed=1, xfailed=1, xpassed=1)  # known-bad, pass, stale-rule
    assert _junit_rules(pytester) == {"test_kernel": "arch-not-in-build", "test_gpu_passes": "arch-not-in-build"}


def test_no_problem_no_header_and_plain_outcomes(pytester: pytest.Pytester) -> None:
    result = _run(pytester)  # the recorded H100 as it is
    assert "checks:" not in result.stdout.str()
    result.assert_outcomes(passed=2, failed=1)
    assert _junit_rules(pytester) == {}


def test_matrix_switches_check_to_skip_or_off(pytester: pytest.Pytester) -> None:
    result = _run(pytester, *BLACKWELL_ON_CU124, matrix="name: m\nchecks:\n  arch-not-in-build: skip\n")
    result.assert_outcomes(passed=1, skipped=2)
    result = _run(pytester, *BLACKWELL_ON_CU124, matrix="name: m\nchecks:\n  arch-not-in-build: off\n")
    result.assert_outcomes(passed=2, failed=1)


def test_collect_only_lists_check(pytester: pytest.Pytester) -> None:
    result = _run(pytester, *BLACKWELL_ON_CU124, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["test_stack.py::test_kernel: XFAIL [[]arch-not-in-build]*"])


@pytest.mark.parametrize("body, message", [
    ("checks:\n  arch-not-in-bild: off\n", "matrix.yaml:3: checks.arch-not-in-bild: unknown check*did you mean 'arch-not-in-build'*"),
    ("checks:\n  arch-not-in-build: maybe\n", "matrix.yaml:3: checks.arch-not-in-build: 'maybe' is not a setting; use one of off, skip, xfail, isolate"),
])
def test_matrix_checks_mistakes_name_file_and_line(pytester: pytest.Pytester, body: str, message: str) -> None:
    result = _run(pytester, matrix="name: m\n" + body)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*" + message])

"""Built-in compatibility checks, both ways, on recorded real outputs (CUDA and ROCm)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pytest_rocmcompat.errors import OverrideError
from pytest_rocmcompat.knowledge.checks import cuda_targets, rocm_targets
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.probe.nvidia_smi import parse_nvidia_smi_header
from pytest_rocmcompat.probe.rocminfo import parse_rocminfo
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA, REPO

H100 = Environment.load(str(DATA / "env_h100_archs.json"))  # torch 2.11.0+cu130, real get_arch_list


def ids(env: Environment, settings=None) -> list[str]:
    """The stack's problems: conditional findings (a format or library only some tests use) left out."""
    return [f.check for f in evaluate(env, settings) if not f.conditional]


def rocm_env(rocminfo_file: str, torch: str, **changes) -> Environment:
    gpus = parse_rocminfo((DATA / rocminfo_file).read_text()).gpus
    return Environment(platform="rocm", gpus=gpus, torch=torch, python="3.12.3", os="Linux 6.8", **changes)


# ---- the recorded real machines show no false problem ---------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "env_h100_archs.json",
        "env_h100_live.json",
        "../../reports/cpu/env.json",
        "../../reports/h200x2-suites/env.json",
        "../../reports/h100-suites/env.json",
    ],
)
def test_recorded_real_environments_have_no_problems(path: str) -> None:
    assert evaluate(Environment.load(str(DATA / path))) == []


def test_old_recorded_json_without_derived_facts_loads() -> None:
    env = Environment.load(str(DATA / "env_h100_live.json"))
    assert env.torch_archs is None and env.nccl is None and env.driver_cuda is None and env.requires == {}
    from pytest_rocmcompat.knowledge.wheel_targets import build_targets

    targets, origin = build_targets(env)  # derived from the table for torch 2.11.0+cu130
    assert "sm_90" in targets and origin.startswith("table:")


def test_derived_facts_round_trip() -> None:
    env = apply_overrides(H100, ["nccl=2.21.5", "driver_cuda=12.4", "requires.vllm=torch==2.5.1|xformers"])
    again = Environment.from_json(env.to_json())
    assert again == env
    assert again.requires == {"vllm": ("torch==2.5.1", "xformers")}
    assert again.field_version("nccl").release == (2, 21, 5)


# ---- arch-not-in-build: CUDA -----------------------------------------------------------
@pytest.mark.parametrize(
    ("target", "gpu", "runs"),
    [
        ("sm_80", (8, 6), True),  # binary compatibility within a major
        ("sm_86", (8, 0), False),  # never to an older minor
        ("sm_90", (10, 0), False),  # never across majors
        ("compute_90", (12, 0), True),  # PTX JIT to any newer GPU
        ("compute_90", (8, 6), False),
        ("sm_90a", (9, 0), True),  # arch-specific: exactly that arch
        ("compute_90a", (10, 0), False),
        ("sm_100f", (10, 3), True),  # family-specific: same major, newer minor
    ],
)
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
    found = [f for f in evaluate(mixed) if not f.conditional]
    # and torch 2.5.1's Triton (3.1) refuses the MI60's gfx906 (tests/knowledge/test_compile_rocm_texts.py)
    assert [f.check for f in found] == ["arch-not-in-build", "library-min-arch"]
    assert "gfx906" in found[0].reason and "gfx908" in found[0].reason and "gfx90a," not in found[0].reason
    assert found[1].reason.startswith("triton 3.1.0 has no kernels for gfx906") and found[1].uses
    generic = replace(mixed, torch_archs=("gfx9-generic", "gfx90a:sramecc+:xnack-", "gfx908"))
    assert ids(generic) == ["library-min-arch"]  # torch's generic code serves gfx906; its Triton still refuses it


def test_rocm_rx7900_on_old_and_new_wheels() -> None:
    assert ids(rocm_env("rocminfo_rx7900xtx_gfx1100.txt", "2.4.1+rocm6.0")) == []
    assert ids(rocm_env("rocminfo_rx7900xtx_gfx1100.txt", "2.4.1+rocm6.0", torch_archs=("gfx90a",))) == [
        "arch-not-in-build"
    ]


def test_rocm_generic_targets_and_override() -> None:
    assert rocm_targets.served_by(("gfx11-generic",), "gfx1151") is True
    assert rocm_targets.served_by(("gfx11-generic",), "gfx1030") is False
    assert rocm_targets.overridden_arch("10.3.0") == "gfx1030"
    assert rocm_targets.overridden_arch("9.0.10") == "gfx90a"
    rdna2 = apply_overrides(Environment(platform="rocm", torch="2.5.1+rocm6.2", python="3.12.3"), ["arch=gfx1031"])
    # gfx1031 is in neither the wheel's targets nor ROCm 6.2's rocBLAS (Tensile) list
    assert ids(rdna2) == ["arch-not-in-build", "rocblas-arch-not-in-release"]
    assert ids(apply_overrides(rdna2, ["env.HSA_OVERRIDE_GFX_VERSION=10.3.0"])) == []


def test_rocm_tables_name_known_gaps() -> None:
    base = Environment(platform="rocm", python="3.12.3")
    assert ids(apply_overrides(base, ["torch=2.5.1+rocm6.2", "arch=gfx1010"])) == ["arch-not-in-build"]
    # gfx1151's compute also needs a recent kernel, which a stack naming no driver does not state: a risk
    assert ids(apply_overrides(base, ["torch=2.9.0+rocm7.0", "arch=gfx1151"])) == [
        "arch-not-in-build",
        "rocm-driver-unsupported",
    ]
    assert ids(apply_overrides(base, ["torch=2.5.1+rocm6.2", "arch=gfx90a"])) == []


# ---- Python -----------------------------------------------------------------------------
def test_python_range_both_ways() -> None:
    # (the H100's recorded libraries, e.g. its torchvision, have no Python 3.8 wheel either: no-wheel-for-python)
    found = ids(apply_overrides(H100, ["torch=2.5.1+cu124", "python=3.8.10"]))
    assert [i for i in found if i != "no-wheel-for-python"] == ["python-unsupported-by-torch"]
    assert ids(apply_overrides(H100, ["torch=2.5.1+cu124", "python=3.12.3"])) == []
    found = ids(apply_overrides(H100, ["torch=2.99.0", "python=3.8.10"]))
    assert "python-unsupported-by-torch" not in found  # unknown release: no verdict


@pytest.mark.parametrize(
    ("torch", "python", "found"),
    [
        ("1.8.1+cu111", "3.10.4", True),  # its wheels: cp36-cp39
        ("1.8.1+cu111", "3.9.7", False),
        ("1.12.1", "3.11.2", True),  # cp37-cp310
        ("2.11.0+cu130", "3.9.18", True),  # cp310-cp314 (RELEASE.md's table ends at 2.9)
        ("2.11.0+cu130", "3.14.0", False),
        ("2.13.0", "3.10.12", False),
    ],
)
def test_python_range_of_a_release_outside_the_table_comes_from_its_wheels(
    torch: str, python: str, found: bool
) -> None:
    """Generated data (PyPI wheel tags), sourced to the release's page."""
    hits = [
        f
        for f in evaluate(apply_overrides(H100, [f"torch={torch}", f"python={python}"]))
        if f.check == "python-unsupported-by-torch"
    ]
    assert bool(hits) is found
    if found:
        assert hits[0].link == f"https://pypi.org/project/torch/{torch.split('+', maxsplit=1)[0]}/"
        assert f"this is Python {python}" in hits[0].reason


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
    # +rocm6.2 meets ==2.5.1; markers not applied (a ROCm torch on the H100's NVIDIA GPUs is built-for-other-vendor)
    assert ids(apply_overrides(H100, [*base, *ok])) == ["built-for-other-vendor"]
    assert ids(apply_overrides(H100, [*base, "requires.vllm=torch==2.5.0"])) == [
        "requirement-not-met",
        "built-for-other-vendor",
    ]


def test_installed_metadata_pair_is_named() -> None:
    env = replace(
        H100, libraries={**H100.libraries, "xformers": "0.0.28.post3"}, requires={"xformers": ("torch==2.5.1", "numpy")}
    )
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
    # minor version compatibility: a 12.8 build on a 12.4 driver is no problem, only the risk of PTX the driver refuses
    minor = evaluate(apply_overrides(H100, ["torch=2.7.0+cu128", f"driver_cuda={h100_550}"]))
    assert [(f.check, f.uncertain) for f in minor] == [("cuda-newer-than-driver:minor", True)]


# ---- settings, rules, overrides -----------------------------------------------------------
def test_settings_switch_off_and_change_action() -> None:
    env = apply_overrides(H100, ["torch=2.7.0+cu124", "arch=sm_120"])
    assert ids(env, {"arch-not-in-build": "off"}) == []
    rules = compile_rules(evaluate(env), {"arch-not-in-build": "skip"})
    assert [(r.id, r.action) for r in rules] == [("arch-not-in-build", "skip")]
    assert rules[0].applies_to.markers == ("gpus",) and not rules[0].applies_to.everything
    assert rules[0].describe().startswith("[arch-not-in-build] torch 2.7.0+cu124 has no kernels for sm_120")


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("torch_archs=sm_90,cuda90", "cuda90 is not a GPU code target"),
        ("requires.vllm=torch=>2.5", "is not a PEP 508 requirement"),
        ("nccl=two", "is not a valid version"),
    ],
)
def test_bad_overrides_are_clear_errors(assignment: str, message: str) -> None:
    with pytest.raises(OverrideError, match=message):
        apply_overrides(H100, [assignment])


# ---- end to end through pytest --------------------------------------------------------------
GPU_TESTS = """
import pytest

@pytest.mark.gpus(1)
def test_kernel():
    raise RuntimeError("CUDA error: no kernel image is available for execution on the device")

@pytest.mark.gpus(1)
def test_gpu_passes():
    pass

def test_cpu():
    pass
"""
BLACKWELL_ON_CU124 = ("--rocm-set", "torch=2.7.0+cu124", "--rocm-set", "arch=sm_120")


def _run(pytester: pytest.Pytester, *args: str, matrix: str | None = None) -> pytest.RunResult:
    (pytester.path / "env.json").write_text(H100.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=GPU_TESTS)
    options = [
        "--rocm-env",
        "env.json",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        "junit.xml",
        "--rocm-report",
        "R.md",
        *args,
    ]
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
    result.stdout.fnmatch_lines(
        [
            "rocmcompat: checks: 1 problem(s) with this stack:",
            "rocmcompat:   [[]arch-not-in-build] torch 2.7.0+cu124 has no kernels for sm_120*",
        ]
    )
    result.assert_outcomes(passed=1, xfailed=1, xpassed=1)  # known-bad, pass, stale-rule
    assert _junit_rules(pytester) == {"test_kernel": "arch-not-in-build", "test_gpu_passes": "arch-not-in-build"}
    junit = (pytester.path / "junit.xml").read_text()
    assert '<property name="rocm_problems" value="arch-not-in-build"' in junit
    report = (pytester.path / "R.md").read_text()
    assert "## Stack problems" in report and "has no kernels for sm_120" in report


def test_no_problem_no_header_and_plain_outcomes(pytester: pytest.Pytester) -> None:
    result = _run(pytester)  # the recorded H100 as it is
    assert "checks:" not in result.stdout.str()
    result.assert_outcomes(passed=2, failed=1)
    assert _junit_rules(pytester) == {}
    assert "rocm_problems" not in (pytester.path / "junit.xml").read_text()
    report = (pytester.path / "R.md").read_text()
    assert "Stack problems" not in report
    assert "| torch targets" in report and "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120" in report


def test_matrix_switches_check_to_skip_or_off(pytester: pytest.Pytester) -> None:
    result = _run(pytester, *BLACKWELL_ON_CU124, matrix="name: m\nchecks:\n  arch-not-in-build: skip\n")
    result.assert_outcomes(passed=1, skipped=2)
    result = _run(pytester, *BLACKWELL_ON_CU124, matrix="name: m\nchecks:\n  arch-not-in-build: off\n")
    result.assert_outcomes(passed=2, failed=1)


def test_collect_only_lists_check(pytester: pytest.Pytester) -> None:
    result = _run(pytester, *BLACKWELL_ON_CU124, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["test_stack.py::test_kernel: XFAIL [[]arch-not-in-build]*"])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "checks:\n  arch-not-in-bild: off\n",
            "matrix.yaml:3: checks.arch-not-in-bild: unknown check*did you mean 'arch-not-in-build'*",
        ),
        (
            "checks:\n  arch-not-in-build: maybe\n",
            "matrix.yaml:3: checks.arch-not-in-build: 'maybe' is not a setting; use one of off, skip, xfail, isolate",
        ),
    ],
)
def test_matrix_checks_mistakes_name_file_and_line(pytester: pytest.Pytester, body: str, message: str) -> None:
    result = _run(pytester, matrix="name: m\n" + body)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*" + message])


# ---- probe: derived facts from the native child's output, the CLI's problems section ----------
def test_assemble_takes_arch_list_nccl_driver_cuda_and_requires() -> None:
    from pytest_rocmcompat.probe.device_report import DeviceReport
    from pytest_rocmcompat.probe.live import assemble

    torch = {
        "version": "2.11.0+cu130",
        "cuda": "13.0",
        "hip": None,
        "devices": [],
        "arch_list": list(H100.torch_archs),
        "nccl": "2.28.9",
    }
    nvml = DeviceReport("nvml", H100.gpus, driver="580.159.04", cuda="13.0")
    env = assemble(torch, [nvml], None, {"torch": "2.11.0"}, {}, [], {"torch": ("triton==3.6.0",)})
    assert env.torch_archs == H100.torch_archs and env.nccl == "2.28.9" and env.driver_cuda == "13.0"
    assert env.requires == {"torch": ("triton==3.6.0",)} and evaluate(env) == []


def test_declared_requirements_read_metadata_without_extras() -> None:
    from pytest_rocmcompat.probe.libraries import declared_requirements, installed_stack, installed_versions

    versions, requires = installed_stack()
    assert versions == installed_versions() and requires == declared_requirements(versions)
    assert "torch" in requires  # this machine's torch, read from its METADATA
    assert all("extra" not in r for reqs in requires.values() for r in reqs)


def test_cli_probe_shows_problems_of_a_replayed_stack(capsys) -> None:
    from pytest_rocmcompat.cli.main import main

    args = ["probe", "--env", str(DATA / "env_h100_archs.json")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "torch build targets: sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 (recorded)" in out
    assert "problems: none found" in out
    assert main([*args, "--set", "lib.vllm=0.6.3", "--set", "torch=2.5.1"]) == 0  # exit status unchanged
    out = capsys.readouterr().out
    assert "problems: 1" in out and "[requirement-not-met] vllm 0.6.3 requires torch==2.4.0" in out


# ---- the sourced tables -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dist", "version", "expected"),
    [
        ("vllm", "0.6.3.post1", "torch==2.4.0"),  # pip: "vllm 0.6.3.post1 requires torch==2.4.0"
        ("vllm", "0.7.3", "torch==2.5.1"),  # hiyouga/EasyR1#27
        ("vllm", "0.8.5.post1", "torch==2.6.0"),  # LMCache/LMCache#583
        ("vllm", "0.10.1.1", "torch==2.7.1"),  # NovaSky-AI/SkyRL#218
        ("vllm", "0.11.0", "torch==2.8.0"),  # verl-project/verl#5123
        ("torchvision", "0.20.1", "torch>=2.5,<2.6"),
        ("torchaudio", "2.11.0", "torch>=2.11,<2.12"),
        ("xformers", "0.0.28.post3", "torch>=2.5,<2.6"),
    ],
)
def test_declared_pins_table(dist: str, version: str, expected: str) -> None:
    from pytest_rocmcompat.knowledge.declared_pins import declared_requires

    requires, source = declared_requires(dist, version)
    assert requires == (expected,) and source.startswith("https://")


def test_declared_pins_unknown_releases_say_nothing() -> None:
    from pytest_rocmcompat.knowledge.declared_pins import declared_requires

    # 0.1.0 published no requirements; 99.0 is not in the generated data
    assert declared_requires("vllm", "0.1.0") is None and declared_requires("vllm", "99.0") is None
    assert declared_requires("flash-attn", "2.7.4") is None and declared_requires("vllm", None) is None


@pytest.mark.parametrize(
    ("torch", "has", "lacks"),
    [
        ("2.5.1+cu124", "sm_90", "sm_100"),
        ("2.8.0+cu128", "sm_70", "sm_60"),  # Maxwell/Pascal dropped from cu128 builds
        ("2.6.0+rocm6.2.4", "gfx942", "gfx1010"),  # a patch-level ROCm tag matches its minor's row
        ("2.9.0+rocm6.4", "gfx950", "gfx1151"),
    ],
)
def test_official_wheel_targets(torch: str, has: str, lacks: str) -> None:
    from pytest_rocmcompat.knowledge.wheel_targets import official_targets

    targets, source = official_targets(torch)
    assert has in targets and lacks not in targets and source.startswith("table: ")


def test_official_wheel_targets_unknown() -> None:
    from pytest_rocmcompat.knowledge.wheel_targets import official_targets

    assert official_targets("2.5.1") is None  # no build tag: which build is unknown
    assert official_targets("2.13.0+cu130") is None and official_targets("2.5.1+cpu") is None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("torch_archs", "sm_90", "torch_archs: expected a list of strings or null"),
        ("requires", {"vllm": "torch==2.5.1"}, "requires: expected an object of string lists"),
        ("nccl", 2.21, "nccl: expected a string or null"),
    ],
)
def test_bad_derived_fields_in_recorded_json_name_the_field(tmp_path: Path, field: str, value, message: str) -> None:
    import json

    from pytest_rocmcompat.stack.environment import EnvironmentFileError

    path = tmp_path / "env.json"
    path.write_text(json.dumps({**H100.to_dict(), field: value}))
    with pytest.raises(EnvironmentFileError, match=message):
        Environment.load(str(path))


def test_live_probe_reads_driver_cuda_from_nvidia_smi_header(tmp_path: Path) -> None:
    """A replay of nvidia-smi (no NVIDIA GPU here): the query answers CSV, the plain call the table."""
    import os
    import stat

    from pytest_rocmcompat.probe.live import probe

    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool = bindir / "nvidia-smi"
    tool.write_text(
        '#!/bin/sh\ncase "$1" in\n'
        f"  --query-gpu*) cat '{DATA / 'nvidia_smi_query_h100.csv'}' ;;\n"
        f"  *) cat '{DATA / 'nvidia_smi_h100_580.txt'}' ;;\nesac\n"
    )
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    env = probe(environ={"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert env.archs == ("sm_90",) and env.driver_cuda == "13.0" and env.driver == "580.159.04"


def test_cpu_or_untagged_torch_on_a_gpu_is_not_judged_by_the_toolkit() -> None:
    # (a CPU build on a GPU is a problem of its own: tests/knowledge/test_torch_cpu_build.py)
    assert ids(apply_overrides(H100, ["torch=2.5.1+cpu", "arch=sm_120", "cuda=12.4"])) == ["torch-cpu-build"]
    # an untagged *release* is the default PyPI build (tests/knowledge/test_derived_facts.py);
    # a source/NGC snapshot stays unknown
    assert ids(apply_overrides(H100, ["torch=2.5.0a0+git1234abc", "arch=sm_120", "cuda=12.4"])) == []


def test_requirement_forms_pip_accepts_and_ones_it_ignores() -> None:
    def found(*reqs: str) -> list[str]:
        env = replace(H100, libraries={**H100.libraries, "vllm": "0.6.3"}, requires={"vllm": reqs})
        return ids(env)

    assert found("torch (==2.4.0)") == ["requirement-not-met"]  # the old parenthesised form
    assert found("Torch[opt-einsum]==2.4.0") == ["requirement-not-met"]  # names normalised, extras dropped
    assert found("torch==2.4.0; sys_platform == 'win32'") == []  # marker false on this Linux stack
    assert found("torch==2.4.0; python_version >= '3.12'") == ["requirement-not-met"]  # recorded Python 3.12.3
    assert found("torch @ https://example.invalid/torch.whl", "???", "torch==two") == []  # not judged, never raises


def test_dynamo_gate_and_pin_reach_tests_by_uses(pytester: pytest.Pytester) -> None:
    (pytester.path / "env.json").write_text(H100.to_json(), encoding="utf-8")
    pytester.makepyfile(
        test_uses="""
import pytest

@pytest.mark.uses("torch.compile")
def test_compiled():
    raise RuntimeError("torch.compile is not supported on Python 3.12+")

@pytest.mark.uses("vllm")
def test_vllm_import():
    raise ImportError("undefined symbol: _ZN3c104cuda9SetDeviceEi")

@pytest.mark.uses("peft")
def test_unrelated():
    raise AssertionError("a real failure")
"""
    )
    result = pytester.runpytest(
        "--rocm-env",
        "env.json",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--rocm-set",
        "torch=2.3.1+cu121",
        "--rocm-set",
        "python=3.12.4",
        "--rocm-set",
        "lib.vllm=0.6.3",
    )
    result.assert_outcomes(xfailed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "KNOWN-BAD test_uses.py::test_compiled - rocmcompat [[]dynamo-python-gate]*",
            "KNOWN-BAD test_uses.py::test_vllm_import - rocmcompat [[]requirement-not-met] vllm 0.6.3 requires torch==2.4.0*",
        ]
    )


def test_rules_can_condition_on_nccl_and_driver_cuda(tmp_path: Path) -> None:
    from pytest_rocmcompat.knowledge.rules.engine import ActiveRules
    from pytest_rocmcompat.matrix.loader import load_matrix

    path = tmp_path / "m.yaml"
    path.write_text(
        "name: m\nknown_bad:\n"
        "  - id: nvls-bind\n    when: {nccl: '>=2.29', driver_cuda: '>=12.0'}\n"
        "    applies_to: {markers: [gpus]}\n    reason: NVLS multicast bind fails\n"
    )
    rules = load_matrix(path).rules
    assert [r.id for r in ActiveRules(rules, apply_overrides(H100, ["nccl=2.29.2"])).active] == ["nvls-bind"]
    assert ActiveRules(rules, apply_overrides(H100, ["nccl=2.28.9"])).active == ()
    assert ActiveRules(rules, H100).active == ()  # NCCL version unknown: the condition does not hold


def test_vllm_cuda_pin_does_not_apply_to_a_rocm_build() -> None:
    rocm = Environment(
        platform="rocm", torch="2.5.1+rocm6.2", python="3.12.3", os="Linux 6.8", libraries={"vllm": "0.6.3"}
    )
    assert ids(rocm) == []  # vLLM on ROCm is built from source against the installed torch
    assert ids(replace(rocm, requires={"vllm": ("torch==2.4.0",)})) == ["requirement-not-met"]  # metadata wins
    assert ids(apply_overrides(H100, ["lib.vllm=0.6.3", "torch=2.5.1+cu124"])) == ["requirement-not-met"]


def test_bench_environment_has_no_problem() -> None:
    """The plugin benchmarks' replayed MI300X node: its results (and overhead) must not change."""
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    try:
        from plugin_overhead import ENV
    finally:
        sys.path.pop(0)
    assert [f for f in evaluate(ENV) if not f.conditional] == []

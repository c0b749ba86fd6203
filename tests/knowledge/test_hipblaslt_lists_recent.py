"""``hipblaslt-arch-unsupported`` past ROCm 6.3: hipBLASLt's own target lists and 7.x's messages."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import hipblaslt_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ASK = "env.TORCH_BLAS_PREFER_HIPBLASLT=1"
RECENT = ("rocm=6.4.1", "rocm=6.4.3", "rocm=7.0.2", "rocm=7.1.1", "rocm=7.2.0")


def _lt(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == hipblaslt_arch.ID]


# --- the lists themselves ---


def test_each_line_is_read_at_a_commit() -> None:
    for targets, source in hipblaslt_arch.LINES.values():
        assert re.search(r"/blob/[0-9a-f]{40}/", source), source
        assert targets and all(t.startswith("gfx") for t in targets)


def test_no_line_builds_vega_or_rdna1_or_rdna2() -> None:
    """rocm-libraries' note: gfx10XX are "NOT included in the default 'all' build in hipBLASLt"."""
    built = {t for targets, _ in hipblaslt_arch.LINES.values() for t in targets}
    assert not {t for t in built if t.startswith(("gfx10", "gfx90", "gfx80"))} - {"gfx908", "gfx90a"}
    assert built <= hipblaslt_arch.EVER


def test_the_lines_follow_hipblaslt_s_changes() -> None:
    """gfx950 and the APUs after 0.11; gfx940/gfx941 only before 0.14; gfx1102 in no default list."""
    lines = {name: set(targets) for name, (targets, _) in hipblaslt_arch.LINES.items()}
    assert {"gfx940", "gfx941"} <= lines["0.11"] and not {"gfx940", "gfx941"} & lines["0.14"]
    assert {"gfx950", "gfx1103", "gfx1150", "gfx1151"} <= lines["0.14"] <= lines["rocm-libraries"]
    assert not any(hipblaslt_arch.NAVI33 in targets for targets in lines.values())


# --- ROCm 6.4.x / 7.x stacks on GPUs in no hipBLASLt list ---


@pytest.mark.parametrize("rocm", RECENT)
@pytest.mark.parametrize("arch", ["gfx1030", "gfx1010", "gfx906", "gfx900"])
def test_a_gpu_in_no_list_is_refused_on_recent_releases(rocm: str, arch: str) -> None:
    (finding,) = _lt(f"arch={arch}", rocm, "torch=2.9.1", ASK)
    assert not finding.uncertain and finding.markers == ("gpus",)
    assert f"hipBLASLt does not serve {arch} on any ROCm release" in finding.reason
    assert finding.link == hipblaslt_arch.SOURCE_NEVER


def test_an_override_to_rdna2_on_rocm_7_is_refused() -> None:
    (finding,) = _lt("arch=gfx1100", "rocm=7.1.1", "torch=2.10.0", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0", ASK)
    assert "gfx1100 (as gfx1030 by HSA_OVERRIDE_GFX_VERSION) on any ROCm release" in finding.reason


def test_a_wheel_s_bundled_7_x_release_is_judged_alike() -> None:
    (finding,) = _lt("arch=gfx1031", "torch=2.9.1+rocm7.0", ASK)
    assert "gfx1031 on any ROCm release" in finding.reason and finding.link == hipblaslt_arch.SOURCE_NEVER


# --- ROCm 6.4.x / 7.x stacks on GPUs every line builds ---


@pytest.mark.parametrize("rocm", RECENT)
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx908", "gfx1100", "gfx1201"])
def test_a_gpu_every_line_builds_is_served(rocm: str, arch: str) -> None:
    assert _lt(f"arch={arch}", rocm, "torch=2.9.1", ASK) == []


@pytest.mark.parametrize("rocm", ["rocm=7.0.2", "rocm=7.1.1", "rocm=7.2.0"])
def test_gfx950_on_rocm_7_is_served_and_on_6_4_is_not(rocm: str) -> None:
    assert _lt("arch=gfx950", rocm, "torch=2.9.1", ASK) == []
    (finding,) = _lt("arch=gfx950", "rocm=6.4.3", "torch=2.9.1", ASK)
    assert "gfx950 on ROCm 6.4" in finding.reason


# --- gfx1102: torch lists it from 2.10, hipBLASLt's default builds never ---


@pytest.mark.parametrize("rocm", ["rocm=6.4.3", "rocm=7.1.1"])
def test_navi33_with_torch_2_9_is_refused_on_any_release(rocm: str) -> None:
    (finding,) = _lt("arch=gfx1102", rocm, "torch=2.9.1", ASK)
    assert not finding.uncertain and "gfx1102 on any ROCm release" in finding.reason
    assert finding.link == hipblaslt_arch.SOURCE_LATE


@pytest.mark.parametrize("stack", [("rocm=7.1.1", "torch=2.10.0"), ("torch=2.10.0+rocm7.0",), ("rocm=7.2.0",)])
def test_navi33_with_a_newer_or_unnamed_torch_is_a_risk(stack: tuple[str, ...]) -> None:
    (finding,) = _lt("arch=gfx1102", *stack, ASK)
    assert finding.uncertain and finding.markers == ("gpus",)
    assert "hipBLASLt's default targets never name gfx1102" in finding.reason
    assert finding.link == hipblaslt_arch.SOURCE_NEVER


def test_navi33_on_rocm_6_3_stays_refused_by_its_table() -> None:
    (finding,) = _lt("arch=gfx1102", "torch=2.7.1+rocm6.3", ASK)
    assert not finding.uncertain and "gfx1102 on ROCm 6.3" in finding.reason


def test_navi33_with_nothing_asking_reaches_only_hipblaslt_users() -> None:
    (finding,) = _lt("arch=gfx1102", "rocm=7.1.1", "torch=2.10.0")
    assert finding.conditional and finding.uncertain and finding.markers == ()


# --- 7.x's loader prints the library path as a std::filesystem::path, quoted ---

SIGNATURE = compile_signature(hipblaslt_arch.PREDICTS)


@pytest.mark.parametrize(
    "message",
    [
        # rocm-libraries tensile_host.cpp: std::cerr << "\nrocblaslt error: Cannot read " << tensileLibPath
        # << ": " << strerror(errno), tensileLibPath a std::filesystem::path (operator<< quotes it); and
        # "\nrocblaslt error: Could not load " << tensileLibPath; "...Could not initialize Tensile library mapping":
        # https://github.com/ROCm/rocm-libraries/blob/003add5959dea8ca841f898cf55381abb9bb4687/projects/hipblaslt/library/src/amd_detail/rocblaslt/src/tensile_host.cpp
        'rocblaslt error: Cannot read "/opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1030.dat": '
        "No such file or directory",
        'rocblaslt error: Could not load "/opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1102.dat"',
        "rocblaslt error: Could not initialize Tensile library mapping",
        # the same file: "\nrocblaslt warning: No paths matched " << path << ". Make sure that
        # HIPBLASLT_TENSILE_LIBPATH is set correctly."
        'rocblaslt warning: No paths matched "/opt/rocm/lib/hipblaslt/library". Make sure that '
        "HIPBLASLT_TENSILE_LIBPATH is set correctly.",
    ],
)
def test_the_signature_claims_7_x_loader_messages(message: str) -> None:
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        # the same file's GetDeviceCount(): no GPU at all, not a missing library
        "rocblaslt error: Could not initialize Tensile host: No devices found",
        # TensileCreateLibrary.py's other printExit (rocm-6.2.0 L1330): a bad path, not the processor
        "Tensile::FATAL: LogicPath /src/library/src/amd_detail/rocblaslt/src/Tensile/Logic doesn't exist",
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat: No such file",
    ],
)
def test_the_signature_leaves_other_hipblaslt_failures(message: str) -> None:
    assert SIGNATURE.search(message) is None

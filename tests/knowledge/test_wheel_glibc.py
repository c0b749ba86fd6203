"""``wheel-needs-newer-glibc``: a release's Linux wheels need a newer glibc than the stated distribution ships."""

from __future__ import annotations

import re

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import distro_glibc
from pytest_rocmcompat.knowledge.checks import wheel_glibc
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

NEUTRAL = Environment(platform="cpu", python="3.11.7", os="Linux")
# Real texts (verbatim), each on a system whose glibc is older than the build's
LIBTORCH_1804 = (  # pytorch/pytorch#129555: Ubuntu 18.04 (glibc 2.27), libtorch 2.3.1's cxx11-abi build
    "./libtorch_cpu.so: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.28' not found (required by ./libtorch_cpu.so)"
)
PYG_2004 = (  # pyg-team/pyg-lib#548: Ubuntu 20.04 (glibc 2.31)
    "OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.33' not found (required by "
    "/home/ee615/anaconda3/envs/qcnet/lib/python3.10/site-packages/libpyg.so)"
)
CURAND_CENTOS7 = (  # pytorch/pytorch#150724: CentOS 7.9 (glibc 2.17), torch 2.5.1 from conda
    "ImportError: /lib64/libm.so.6: version `GLIBC_2.27' not found (required by "
    "/home/wanglei/anaconda3/envs/trl/lib/python3.11/site-packages/torch/lib/../../../../libcurand.so.10)"
)
STRAIGHT_QUOTE = (  # pytorch/pytorch#14274: CentOS 6.8 (glibc 2.12), the title's straight quotes
    "ImportError: /lib64/libc.so.6: version 'GLIBC_2.14' not found (required by "
    "/home/qwe123/data/conda_packages/lib/python3.6/site-packages/torch/lib/libshm.so)"
)
PIP_TAG = (  # Farama-Foundation/Arcade-Learning-Environment#478: CentOS 7
    "ERROR: ale_py-0.8.0-cp310-cp310-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl is not a supported wheel on "
    "this platform."
)


def _found(*stack: str) -> list[Finding]:
    return [f for f in evaluate(apply_overrides(NEUTRAL, list(stack))) if f.check == wheel_glibc.ID]


def _claims(finding: Finding, text: str) -> bool:
    return re.search(finding.predicts, text) is not None


@pytest.mark.parametrize(
    ("os_name", "glibc"),
    [
        ("CentOS 7", "2.17"),
        ("Ubuntu 18.04", "2.27"),
        ("Ubuntu 20.04.6 LTS", "2.31"),
        ("RHEL 8.10", "2.28"),
        ("Rocky Linux 9", "2.34"),
        ("Debian 11", "2.31"),
        ("Amazon Linux 2", "2.26"),
        ("Oracle Linux 7", "2.17"),
        ("CentOS Stream 9", "2.34"),
        ("openSUSE Leap 15.5", "2.31"),
        ("WSL2 Ubuntu 22.04", "2.35"),
    ],
)
def test_a_named_distribution_release_has_its_glibc(os_name: str, glibc: str) -> None:
    env = apply_overrides(NEUTRAL, [f"os={os_name}"])
    assert distro_glibc.glibc(env.os) == Version(glibc)


@pytest.mark.parametrize("os_text", ["Linux", "Linux 6.5.0-14-generic", "Linux ubuntu-16.04", "Windows", "Darwin", ""])
def test_no_glibc_without_a_tabled_distribution_release(os_text: str) -> None:
    assert distro_glibc.glibc(os_text) is None


@pytest.mark.parametrize(
    ("tag", "glibc"),
    [
        ("manylinux1_x86_64", "2.5"),
        ("manylinux2010_x86_64", "2.12"),
        ("manylinux2014_x86_64", "2.17"),
        ("manylinux_2_28_x86_64", "2.28"),
        ("manylinux_2_35_x86_64", "2.35"),
        ("manylinux_2_28_aarch64", None),  # another machine
        ("musllinux_1_2_x86_64", None),
        ("win_amd64", None),
    ],
)
def test_manylinux_tags_name_their_glibc(tag: str, glibc: str | None) -> None:
    assert distro_glibc.tag_glibc(tag) == (Version(glibc) if glibc else None)


@pytest.mark.parametrize(
    ("stack", "needed", "uncertain"),
    [
        (("os=CentOS 7", "torch=2.7.0"), "2.28", False),  # manylinux_2_28 only, no sdist
        (("os=CentOS 7", "torch=2.6.0+cu126"), "2.28", False),  # tagged manylinux1, built on 2.28 (PyTorch 2.6)
        (("os=Ubuntu 18.04", "torch=2.7.0+cu128"), "2.28", False),
        (("os=RHEL 8", "lib.sglang=0.5.11"), "2.34", False),
        (("os=Ubuntu 20.04", "lib.vllm=0.20.0"), "2.35", True),  # an sdist: pip may build it
    ],
)
def test_a_release_whose_wheels_need_a_newer_glibc_is_found(
    stack: tuple[str, ...], needed: str, uncertain: bool
) -> None:
    (finding,) = _found(*stack)
    assert f"need glibc {needed} or newer" in finding.reason and finding.uncertain is uncertain
    assert finding.signature_only and finding.predicts


@pytest.mark.parametrize(
    "stack",
    [
        ("os=CentOS 7", "torch=2.5.1"),  # manylinux1-tagged, built on CentOS 7
        ("os=CentOS 7", "torch=2.6.0+cu124"),  # 2.6's CUDA 12.4 build stayed on manylinux2014
        ("os=Ubuntu 22.04", "lib.vllm=0.20.0"),  # glibc 2.35 is enough
        ("os=Ubuntu 18.04", "lib.triton=3.3.0"),  # one of its tags (2.27) fits
        ("torch=2.7.0",),  # no distribution named
        ("os=Linux 6.5.0-14-generic", "torch=2.7.0"),  # a kernel, not a distribution (a probed machine)
        ("os=Ubuntu 16.04", "torch=2.7.0"),  # not tabled
    ],
)
def test_nothing_is_said_where_a_wheel_fits_or_nothing_is_known(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_the_real_texts_are_claimed_for_a_glibc_that_lacks_the_version() -> None:
    (centos7,) = _found("os=CentOS 7", "torch=2.7.0")
    assert _claims(centos7, CURAND_CENTOS7) and _claims(centos7, PIP_TAG)
    assert not _claims(centos7, STRAIGHT_QUOTE)  # glibc 2.17 has GLIBC_2.14: something else is wrong there
    (el6,) = _found("os=Oracle Linux 6", "torch=2.7.0")  # glibc 2.12, as CentOS 6
    assert _claims(el6, STRAIGHT_QUOTE)
    (bionic,) = _found("os=Ubuntu 18.04", "torch=2.7.0")
    assert _claims(bionic, LIBTORCH_1804) and not _claims(bionic, CURAND_CENTOS7)  # 2.27 is in 18.04's glibc
    (focal,) = _found("os=Ubuntu 20.04", "lib.vllm=0.20.0")
    assert _claims(focal, PYG_2004) and not _claims(focal, LIBTORCH_1804)
    assert not _claims(focal, "version `GLIBCXX_3.4.30' not found")  # libstdc++'s, not glibc's
    assert _claims(centos7, "ERROR: No matching distribution found for torch==2.7.0")
    assert not _claims(centos7, "ERROR: No matching distribution found for some-other-package")
    (sglang,) = _found("os=RHEL 8", "lib.sglang=0.5.11")
    assert _claims(sglang, "ERROR: Could not find a version that satisfies the requirement SGLang==0.5.11")


def test_torch_reaches_every_test_a_library_only_its_own(pytester: pytest.Pytester) -> None:
    cases = run_cases(pytester, LIBTORCH_1804, ("os=Ubuntu 18.04", "torch=2.7.0+cu128"))
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"] == wheel_glibc.ID
    assert cases["test_elsewhere"]["rocm_outcome"] == "known-bad"  # every test imports torch
    unrelated = cases["test_unrelated"]
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{wheel_glibc.ID}: torch 2.7.0+cu128's Linux wheels need glibc 2.28")

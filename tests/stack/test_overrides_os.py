"""``--rocm-set os=``: which PyPI wheels and environment markers apply to a replayed stack."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import OverrideError, apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# torch 2.5.1 with an older NCCL wheel than its Linux wheel pins (nvidia-nccl-cu12==2.21.5)
STACK = ["platform=cuda", "torch=2.5.1", "lib.nvidia-nccl-cu12=2.20.5"]


@pytest.mark.parametrize(
    ("given", "recorded"),
    [
        ("Windows", "Windows"),
        ("windows", "Windows"),
        ("macOS", "Darwin"),
        ("Darwin", "Darwin"),
        ("Linux 6.8.0-45-generic", "Linux 6.8.0-45-generic"),
        ("linux", "Linux"),
        ("Ubuntu 22.04", "Linux ubuntu-22.04"),
        ("Ubuntu 22.04.3 LTS (Jammy Jellyfish)", "Linux ubuntu-22.04.3"),
        ("debian 12", "Linux debian-12"),
        ("Fedora", "Linux fedora"),
        ("Ubuntu 22.04 WSL2", "Linux ubuntu-22.04-wsl"),  # WSL's kernel has no amdkfd: kept
        ("Debian GNU/Linux 12 (bookworm)", "Linux debian-12"),  # /etc/os-release's PRETTY_NAME
        ("Linux Mint 21.3", "Linux linuxmint-21.3"),
        ("Pop!_OS 22.04 LTS", "Linux pop_os-22.04"),
        ("pop_os 22.04", "Linux pop_os-22.04"),
        ("Ubuntu 24.04 on Windows", "Linux ubuntu-24.04-wsl"),
        ("CentOS Stream 9", "Linux centos-stream-9"),
        # WSL named first, or alone (how bug reports put it)
        ("WSL2 Ubuntu 22.04", "Linux ubuntu-22.04-wsl"),
        ("WSL: Ubuntu 24.04", "Linux ubuntu-24.04-wsl"),
        ("Windows Subsystem for Linux Ubuntu 22.04", "Linux ubuntu-22.04-wsl"),
        ("WSL2", "Linux wsl"),
        ("wsl", "Linux wsl"),
        # as reports paste it (session 24: twelve of a blind batch's stacks were refused before)
        ("Linux-6.8.0-45-generic-x86_64-with-glibc2.35", "Linux 6.8.0-45-generic"),  # platform.platform()
        ("Windows-10-10.0.19045-SP0", "Windows 10"),
        ("macOS-14.5-arm64-arm-64bit", "Darwin 14.5"),
        ("Ubuntu 24.04.1 LTS (GNU/Linux 6.8.0-45-generic x86_64)", "Linux ubuntu-24.04.1"),  # the login banner
        ("Windows 10 Pro", "Windows 10"),
        ("Windows 11 Home", "Windows 11"),
        # a system and its release joined as users type them
        ("windows-11", "Windows 11"),
        ("Windows_10", "Windows 10"),
        ("win11", "Windows 11"),
        ("Win 10", "Windows 10"),
        ("macos-14", "Darwin 14"),
        ("OSX 10.15", "Darwin 10.15"),
        ("linux-6.8.0-45-generic", "Linux 6.8.0-45-generic"),
        ("Docker (Ubuntu 22.04)", "Linux ubuntu-22.04"),
        ("Linux (Ubuntu 22.04)", "Linux ubuntu-22.04"),
        ("Kubuntu 24.04", "Linux ubuntu-24.04"),  # an Ubuntu flavour: Ubuntu's release and libraries
        ("Ubuntu Server 22.04", "Linux ubuntu-22.04"),
        ("Windows 11 WSL2 Ubuntu 22.04", "Linux ubuntu-22.04-wsl"),
        ("Windows (WSL2)", "Linux wsl"),
        # distributions no table names: a Linux all the same
        ("NixOS", "Linux nixos"),
        ("Gentoo", "Linux gentoo"),
        ("EndeavourOS", "Linux endeavouros"),
        ("Void Linux", "Linux void-linux"),
        ("openEuler 22.03", "Linux openeuler-22.03"),
        ("suse", "Linux suse"),  # a distribution named bare, as a blind report gave it
        ("openSUSE Leap 15.5", "Linux opensuse-15.5"),
        ("Red Hat", "Linux rhel"),
        ("redhat 9.4", "Linux rhel-9.4"),
        ("SUSE Linux 15", "Linux suse-15"),  # the release kept
        ("Red Hat Linux 9", "Linux rhel-9"),
        ("RedHat Enterprise Linux 8.10", "Linux rhel-8.10"),
        ("Alpine 3.19", "Linux alpine-3.19"),
        ("Rocky Linux 9.3 (Blue Onyx)", "Linux rocky-9.3"),
        # in the quotes of the shell line it was copied from
        ('"Ubuntu 22.04"', "Linux ubuntu-22.04"),
        ("'Arch Linux'", "Linux arch"),
    ],
)
def test_the_system_is_recorded_as_the_probe_writes_it(given: str, recorded: str) -> None:
    assert apply_overrides(BASE, [f"os={given}"]).os == recorded


def test_an_untagged_torch_is_the_cuda_wheel_on_linux_only() -> None:
    linux = apply_overrides(BASE, [*STACK, "os=Linux"])
    assert derive(linux).torch == "2.5.1+cu124"
    assert "requirement-not-met" in [f.check for f in evaluate(linux)]  # the Linux wheel's NCCL pin
    windows = apply_overrides(BASE, [*STACK, "os=Windows"])
    assert derive(windows).torch == "2.5.1"  # PyPI's Windows wheel is a CPU build: no CUDA facts
    assert "requirement-not-met" not in [f.check for f in evaluate(windows)]


@pytest.mark.parametrize(
    "value",
    [
        "",
        "FreeBSD",
        "Linux 6.8 generic",
        "Windows;rm -rf /",
        "Linux/" + "x" * 200,
        "WSL2 FreeBSD",
        "WSL;rm -rf /",
        "Linx",
        "linuxfoo",  # a system name run into a word is no release
        "window-11",
        "winter",
        "garbage!!",
        "Docker (FreeBSD)",
        "Ubuntu 22.04; rm -rf /",
        "Ubuntu " + "x" * 300,
        '"Ubuntu 22.04',  # an unmatched quote
        "\"'",
    ],
)
def test_anything_else_is_refused_naming_the_assignment(value: str) -> None:
    with pytest.raises(OverrideError, match=r"--rocm-set 'os=.*expected Linux, Windows or macOS"):
        apply_overrides(BASE, [f"os={value}"])


def test_a_distribution_is_linux_for_wheels_and_markers() -> None:
    ubuntu = apply_overrides(BASE, [*STACK, "os=Ubuntu 22.04"])
    assert derive(ubuntu).torch == "2.5.1+cu124"  # PyPI's Linux wheel, as for os=Linux
    assert "requirement-not-met" in [f.check for f in evaluate(ubuntu)]


def test_a_wsl_distribution_stays_wsl() -> None:
    from pytest_rocmcompat.knowledge.checks.rocm_kernel import is_wsl

    assert is_wsl(apply_overrides(BASE, ["os=Ubuntu 22.04 WSL2"]))
    assert is_wsl(apply_overrides(BASE, ["os=WSL2 Ubuntu 22.04"])) and is_wsl(apply_overrides(BASE, ["os=WSL"]))
    assert not is_wsl(apply_overrides(BASE, ["os=Ubuntu 22.04"]))

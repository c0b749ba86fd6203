"""The ``os`` of a stack as users write it: a system, a kernel release, a Linux distribution and its version.

Recorded as the probe records ``platform.system()`` and its release (``Windows``, ``Darwin 14.5``,
``Linux 6.8.0-45-generic``), a distribution as ``Linux <name>-<version>`` (``Ubuntu 22.04.3 LTS`` ->
``Linux ubuntu-22.04.3``), and under WSL with ``-wsl`` (its kernel has no amdkfd). Read from every form
a report pastes: ``/etc/os-release``'s ``PRETTY_NAME`` (``Debian GNU/Linux 12 (bookworm)``), the login
banner (``Ubuntu 24.04.1 LTS (GNU/Linux 6.8.0-45-generic x86_64)``), ``platform.platform()``
(``Linux-6.8.0-45-generic-x86_64-with-glibc2.35``, ``Windows-10-10.0.19045-SP0``,
``macOS-14.5-arm64-arm-64bit``), an edition (``Windows 11 Pro``), a container or VM around it
(``Docker (Ubuntu 22.04)``), an Ubuntu flavour (``Kubuntu 24.04``: Ubuntu's release and libraries), and
distributions the checks have no table for (``NixOS``, ``Void Linux``: a Linux all the same).
"""

from __future__ import annotations

import re

_SYSTEMS = {
    "linux": "Linux",
    "windows": "Windows",
    "win": "Windows",
    "darwin": "Darwin",
    "macos": "Darwin",
    "mac os x": "Darwin",
    "osx": "Darwin",
}
# "Windows 11", "windows-11", "Windows_10", "win11", "macos-14", "OSX 10.15": a system and its release, however joined
# ("win" and "osx" only before a release number)
_SYSTEM = re.compile(
    r"^(?P<system>linux|windows|darwin|macos|mac os x|(?:win|osx)(?=[ /_-]?\d))"
    r"(?:(?:[ /_-]|(?=\d))(?P<release>[A-Za-z0-9][A-Za-z0-9._+~-]{0,80}))?"
    r"(?:\s+(?:pro|home|enterprise|education|server|workstation|ltsc|iot)\b.*)?$",
    re.IGNORECASE,
)
# platform.platform(): "Linux-6.8.0-45-generic-x86_64-with-glibc2.35", "Windows-10-10.0.19045-SP0", "macOS-14.5-arm64-..."
_PLATFORM = re.compile(
    r"^(?P<system>Linux|Windows|macOS|Darwin)-(?P<release>[0-9][A-Za-z0-9._+~]*(?:-[0-9A-Za-z][A-Za-z0-9._+~]*)*?)"
    r"(?:-(?:x86_64|aarch64|arm64|AMD64|i686|ppc64le|s390x)\b.*|-SP\d+|-[0-9.]+-SP\d+)?$"
)
_WINDOWS_BUILD = re.compile(r"^(\d+)-[\d.]+(?:-SP\d+)?$")
# A Linux distribution as users name it: the ones the tables know, their flavours, and others (a Linux all the same)
_NAMES = (
    r"ubuntu(?: (?:mate|studio|budgie|server|desktop))?|kubuntu|xubuntu|lubuntu|debian(?: gnu/linux)?"
    r"|fedora(?: linux)?|rhel|red hat enterprise linux(?: server| workstation)?|centos(?: linux| stream)?"
    r"|rocky(?: linux)?|almalinux(?: os)?|opensuse(?: leap| tumbleweed)?|sles|suse linux enterprise server|suse(?: linux)?"
    r"|red ?hat(?: enterprise)?(?: linux)?"
    r"|arch(?: linux)?|manjaro(?: linux)?|linux ?mint|pop!?_os|amazon(?: linux)?|oracle(?: linux)?"
    r"|nixos|gentoo|endeavouros|cachyos|garuda(?: linux)?|nobara(?: linux)?|bazzite|zorin(?: os)?"
    r"|elementary(?: os)?|kali(?: linux)?|void(?: linux)?|alpine(?: linux)?|clear linux(?: os)?|openeuler"
    r"|kylin|uos|deepin|anolis(?: os)?|alibaba cloud linux|azure linux|cbl-mariner|tencentos(?: server)?"
    r"|slackware|solus|mageia|steamos|flatcar(?: container linux)?|bottlerocket|[a-z][a-z0-9]{1,20} linux"
)
_DISTRIBUTION = re.compile(
    rf"^(?P<name>{_NAMES})(?:[ -]?(?P<version>\d{{1,4}}(?:\.\d{{1,4}}){{0,2}}))?"
    r"(?P<rest>\s+[A-Za-z0-9 ()._/+:,-]{0,80})?$",
    re.IGNORECASE,
)
# what the rest of a distribution's name may say that changes the kernel: WSL's (no amdkfd)
_WSL_WORDS = re.compile(r"\bwsl2?\b|microsoft|\bwindows\b", re.IGNORECASE)
# a distribution named after the WSL it runs under ("WSL2 Ubuntu 22.04", "Windows 11 WSL2 Ubuntu 22.04")
_WSL_LEAD = re.compile(
    r"^(?:windows(?: \d+)?\s+)?(?:wsl2?|windows subsystem for linux)\b\s*[:/-]?\s*(?=[A-Za-z])", re.IGNORECASE
)
_WSL_ONLY = re.compile(r"(?:windows\s*)?\(?\s*(?:wsl2?|windows subsystem for linux)\s*\)?", re.IGNORECASE)
# a distribution inside what runs it: "Docker (Ubuntu 22.04)", "Linux (Ubuntu 22.04)", "VM: Debian 12"
_WRAPPED = re.compile(
    r"^(?:linux|docker|container|podman|vm|kubernetes|k8s)\s*(?:\((?P<inner>[^()]+)\)|:\s*(?P<after>.+))$", re.I
)
# one short name per distribution, however /etc/os-release or a user spells it
_ALIASES = {
    "debian-gnu-linux": "debian",
    "fedora-linux": "fedora",
    "red-hat-enterprise-linux": "rhel",
    "red-hat-enterprise-linux-server": "rhel",
    "red-hat-enterprise-linux-workstation": "rhel",
    "centos-linux": "centos",
    "rocky-linux": "rocky",
    "almalinux-os": "almalinux",
    "arch-linux": "arch",
    "manjaro-linux": "manjaro",
    "linux-mint": "linuxmint",
    "linuxmint": "linuxmint",
    "pop-os": "pop_os",
    "opensuse-leap": "opensuse",
    "opensuse-tumbleweed": "opensuse",
    "suse-linux-enterprise-server": "sles",
    **dict.fromkeys(("suse-linux",), "suse"),
    **dict.fromkeys(
        (
            "redhat",
            "red-hat",
            "redhat-linux",
            "red-hat-linux",
            "redhat-enterprise",
            "red-hat-enterprise",
            "redhat-enterprise-linux",
            "red-hat-enterprise-linux",
        ),
        "rhel",
    ),
    "amazon": "amazonlinux",
    "amazon-linux": "amazonlinux",
    "oracle": "oraclelinux",
    "oracle-linux": "oraclelinux",
    # Ubuntu's flavours and editions: Ubuntu's release, kernel and libraries
    **dict.fromkeys(("kubuntu", "xubuntu", "lubuntu", "ubuntu-mate", "ubuntu-studio", "ubuntu-budgie"), "ubuntu"),
    **dict.fromkeys(("ubuntu-server", "ubuntu-desktop"), "ubuntu"),
}


def recorded_os(value: str) -> str | None:
    """``value`` as the ``os`` field records it (module docstring); ``None`` when it names no system or distribution."""
    text = " ".join(value.split())
    if not text or len(text) > 200:
        return None
    if _WSL_ONLY.fullmatch(text):
        return "Linux wsl"  # WSL with no distribution named: its kernel is WSL's all the same
    wrapped = _WRAPPED.match(text)
    if wrapped is not None:
        return recorded_os(wrapped.group("inner") or wrapped.group("after"))
    lead = _WSL_LEAD.match(text)  # "WSL2 Ubuntu 22.04", "WSL: Ubuntu 24.04": the distribution, under WSL
    distribution = _DISTRIBUTION.match(text[lead.end() :] + " (WSL)" if lead else text)
    if distribution is not None:
        name = re.sub(r"[^a-z0-9]+", "-", distribution.group("name").lower()).strip("-")
        name = _ALIASES.get(name, name)
        version, rest = distribution.group("version"), distribution.group("rest") or ""
        if version is None and name == "ubuntu":  # "Ubuntu Server 22.04": the edition before the release
            version = next(iter(re.findall(r"\b(\d{2}\.\d{2}(?:\.\d{1,2})?)\b", rest)), None)
        wsl = "-wsl" if _WSL_WORDS.search(rest) else ""  # kept: the WSL kernel has no amdkfd (rocm_kernel.is_wsl)
        return f"Linux {name}-{version}{wsl}" if version else f"Linux {name}{wsl}"
    platform = _PLATFORM.match(text)
    if platform is not None:
        system = _SYSTEMS[platform.group("system").lower()]
        release = platform.group("release")
        windows = _WINDOWS_BUILD.match(release) if system == "Windows" else None
        return f"{system} {windows.group(1) if windows else release}"
    m = _SYSTEM.match(text)
    if m is None:
        return None
    system = _SYSTEMS[m.group("system").lower()]
    return f"{system} {m.group('release')}" if m.group("release") else system

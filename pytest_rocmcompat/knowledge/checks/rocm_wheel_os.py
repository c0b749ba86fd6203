"""``rocm-wheel-not-for-os``: a ``+rocmX.Y`` build of torch (or torchvision, torchaudio) on Windows or macOS.

What the build label says: a version labelled ``+rocmX.Y[.Z]`` is a wheel of download.pytorch.org's ROCm
indexes (``torch-2.0.0+rocm5.4.2-cp38-cp38-linux_x86_64.whl``), or of AMD's Linux builds on repo.radeon.com
(``+rocm6.4.1.git1ded221d``), and those are published for Linux x86-64 only: uv says so of
``torch==2.9.1+rocm6.3`` ("Wheels are available for `torch` (v2.9.1+rocm6.3) on the following platform:
`manylinux_2_28_x86_64`", UV_SOURCE), and ROCm builds of torch for Windows were still a feature request in
2023 (WINDOWS_REQUEST_SOURCE). On Windows or macOS pip finds no such wheel ("Could not find a version that
satisfies the requirement torch (from versions: none)"), so a stack that pins one cannot be installed there:
a finding of the stack, reaching every test. AMD's own Windows builds (repo.radeon.com's ``rocm/windows``,
TheRock's per-family indexes) carry other labels (``+rocm7.10.0a20251120``, ``+rocmsdk...``) and are not
judged; neither is WSL 2, which is Linux.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.pytorch_index import DOMAIN_LIBRARIES
from pytest_rocmcompat.stack.versions import coerce_version

ID = "rocm-wheel-not-for-os"
UV_SOURCE = "https://github.com/Nerogar/OneTrainer/issues/1381"
WINDOWS_REQUEST_SOURCE = "https://github.com/pytorch/pytorch/issues/109204"
# pip's refusal (its two lines, for the distribution or its pin) and uv's, which wraps its lines at any space
PREDICTS = (
    r"No matching distribution found for (?:torch|torchvision|torchaudio)\b"
    r"|Could not find a version that satisfies the requirement (?:torch|torchvision|torchaudio)\b"
    r"|(?:torch|torchvision|torchaudio)==\S+\s+has\s+no\s+wheels\s+with\s+a\s+matching\s+platform\s+tag"
)
# The label of download.pytorch.org's ROCm wheels and AMD's Linux builds: ``rocm6.2``, ``rocm6.2.4``,
# ``rocm6.4.1.git1ded221d``; not TheRock's prerelease-numbered ``rocm7.10.0a20251120`` nor ``rocmsdk...``.
_LINUX_LABEL = re.compile(r"rocm\d+(?:\.\d+)*(?:\.git[0-9a-f]+)?")
_SYSTEMS = {"Windows": "Windows", "Darwin": "macOS"}


def check(env: Environment) -> list[Finding]:
    system = _SYSTEMS.get(env.system)
    if system is None or env.source == "live":  # a live host runs what it has installed
        return []
    labelled = [f"{name} {version}" for name, version in _pins(env) if linux_only(version)]
    if not labelled:
        return []
    return [
        Finding(
            check=ID,
            reason=f"{', '.join(labelled)} on {system}: +rocm builds are published for Linux x86-64 only "
            "(manylinux wheels), so pip finds no wheel of it there",
            fix="run the stack under Linux (WSL 2 on Windows, with AMD's ROCm-on-WSL steps), or use AMD's "
            "Windows PyTorch build for the GPU (repo.radeon.com rocm/windows, TheRock's per-family index)",
            link=UV_SOURCE,
            everything=True,  # nothing of the stack installs
        )
    ]


def _pins(env: Environment) -> list[tuple[str, str]]:
    """(distribution, version) of torch and the torch companions the stack names."""
    found = [("torch", env.torch)] if env.torch else []
    return found + [(name, env.libraries[name]) for name in DOMAIN_LIBRARIES if env.libraries.get(name)]


def linux_only(version: str | None) -> bool:
    """Whether ``version`` carries the label of a build published for Linux x86-64 only (``+rocm6.2``)."""
    parsed = coerce_version(version)
    local = (parsed.local or "") if parsed is not None else ""
    return _LINUX_LABEL.fullmatch(local) is not None

"""The torch a torchvision or torchaudio nightly was built against, where PyPI's data has no nightlies.

The nightly wheels are versioned ``<version.txt>.dev<build day>`` (pytorch/test-infra's
``pytorch_pkg_helpers/version.py``, ``get_nightly_version``); the build first installs the newest torch
nightly (``pip install torch --pre``, ``pytorch_pkg_helpers/wheel.py``), and torchvision's and
torchaudio's ``setup.py`` pin ``torch==$PYTORCH_VERSION`` when that is set. The wheels carry such an
exact pin on a torch nightly of the build day or earlier: pip reported ``torchvision 0.5.0.dev20191110
has requirement torch==1.4.0.dev20191109`` (pytorch/pytorch#29530), and uv resolved torchvision
0.20.0.dev20241205 with torch 2.6.0.dev20241204 (astral-sh/uv#9651). A torch nightly of a later day,
or a torch past that series, is not it.

Which torch series the day belongs to is not in the library's version: its ``version.txt`` is bumped
after torch's, so for weeks after a branch cut a nightly pins the next torch series. Both were seen
in pasted environments: torchvision 0.20.0 and torchaudio 2.4.0 nightlies of 2024-07-10 beside
torch 2.5.0.dev20240710 (vllm-project/vllm#6807), torchvision 0.20.0.dev20241113 beside torch
2.6.0.dev20241113 (vllm-project/vllm#11249), torchaudio 2.5.0.dev20241126 beside torch
2.6.0.dev20241126 (astral-sh/uv#9651). The rule therefore accepts the release pairing's series
(torchvision 0.N: torch 2.(N-15); torchaudio 2.N: torch 2.N) or the next one, up to the library's
day: ``torch>=2.5.0.dev0,<=2.6.0.dev20241105`` for torchvision 0.20.0.dev20241105. A torch nightly
of a later day within the first series is not caught (the day's series cannot be told), nor is a
release of it.
"""

from __future__ import annotations

import re

SOURCE = "https://github.com/pytorch/test-infra/blob/main/tools/pkg-helpers/pytorch_pkg_helpers/version.py"
# the observed pairs the series range rests on (module docstring)
EVIDENCE = (
    "https://github.com/pytorch/pytorch/issues/29530",
    "https://github.com/vllm-project/vllm/issues/6807",
    "https://github.com/vllm-project/vllm/issues/11249",
    "https://github.com/astral-sh/uv/issues/9651",
)
# torch minor of the release pairing = library minor + offset (library major required)
_PAIRING = {"torchvision": (0, -15), "torchaudio": (2, 0)}
_NIGHTLY = re.compile(r"^(\d+)\.(\d+)\.\d+\.dev(\d{8})(?:\+[\w.]+)?$")


def nightly_requirement(dist: str, version: str | None) -> tuple[tuple[str, ...], str] | None:
    """``(("torch>=2.5.0.dev0,<=2.6.0.dev20241105",), source)`` for a torchvision/torchaudio nightly, else ``None``."""
    pairing = _PAIRING.get(dist)
    nightly = _NIGHTLY.match(version or "")
    if pairing is None or nightly is None:
        return None
    major, minor, day = (int(g) for g in nightly.groups())
    torch_minor = minor + pairing[1]
    if major != pairing[0] or torch_minor < 0:
        return None
    return (f"torch>=2.{torch_minor}.0.dev0,<=2.{torch_minor + 1}.0.dev{day}",), SOURCE


def is_source_build(version: str | None) -> bool:
    """A ``0.16.0a0+abc1234`` build from a checkout: its setup.py pins no torch unless ``PYTORCH_VERSION`` is set."""
    return bool(re.match(r"^\d+\.\d+\.\d+a0\+[\w.]+$", version or ""))

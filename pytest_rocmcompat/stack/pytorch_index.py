"""The build a PyTorch package index serves, for a requirements file that installs from one.

``--index-url https://download.pytorch.org/whl/rocm6.2`` (or ``--extra-index-url``) makes pip take
torch, torchvision and torchaudio from PyTorch's own index of that build, whose files carry its label
(``torch-2.5.1+rocm6.2``): with ``--index-url`` it is the only index; beside PyPI (``--extra-index-url``)
``2.5.1+rocm6.2`` sorts above PyPI's ``2.5.1`` and matches ``torch==2.5.1`` (PEP 440 ignores the local
label in ``==``), so pip picks it. A file that pins ``torch==2.5.1`` under such a line therefore holds
``2.5.1+rocm6.2``, not PyPI's CUDA wheel (SOURCE: PyTorch's install commands per build).
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

SOURCE = "https://pytorch.org/get-started/previous-versions/"
# https://download.pytorch.org/whl/rocm6.2, .../whl/cu121, .../whl/cpu, .../whl/nightly/rocm6.3, .../whl/test/cu126
_INDEX = re.compile(r"^https?://download\.pytorch\.org/whl/(?:nightly/|test/)?(cu\d{2,3}|rocm\d+(?:\.\d+){0,2}|cpu)/?$")
# torch's domain libraries, built per torch build and released with it (their labels follow torch's)
DOMAIN_LIBRARIES = ("torchvision", "torchaudio")
SERVED = ("torch", *DOMAIN_LIBRARIES)
INDEX_OPTIONS = ("-i", "--index-url", "--extra-index-url")
# NVIDIA's CUDA runtime wheels that PyPI's CUDA torch depends on (nvidia-cublas-cu12, nvidia-nccl-cu13): their CUDA major
NVIDIA_CU = re.compile(r"^nvidia-[a-z0-9-]+-cu(1[0-9])$")


def index_label(url: str) -> str | None:
    """``"rocm6.2"`` for ``https://download.pytorch.org/whl/rocm6.2``; ``None`` for any other index."""
    match = _INDEX.match(url.strip())
    return match.group(1) if match else None


def labelled(packages: dict[str, str], labels: set[str]) -> dict[str, str]:
    """``packages`` with the one build label of ``labels`` on their unlabelled torch/torchvision/torchaudio.

    For a PyTorch index named in a requirements file, and for conda's torch build (its domain libraries are
    the same build); ``packages`` unchanged unless exactly one label is given (two name no single build).
    """
    if len(labels) != 1:
        return packages
    (label,) = labels
    out = dict(packages)
    for name in SERVED:
        version = out.get(name)
        if version is None:
            continue
        try:
            unlabelled = Version(version).local is None
        except InvalidVersion:
            continue
        if unlabelled:
            out[name] = f"{version}+{label}"
    return out

"""The torch requirement a GPU-stack release declared, for stacks described without metadata.

``--rocm-set lib.vllm=0.6.3.post1`` says which vLLM is installed but not what it declares;
this answers from the generated data (:mod:`declared_data`: every release since 2023 of vLLM,
xformers, torchvision, torchaudio, bitsandbytes, peft, ... as PyPI's metadata states it).
Installed metadata, when recorded, always wins (``Environment.requires``).

Only the requirements on torch are returned (extras and requirements without a version left
out): vLLM's exactly as declared (pip's own conflict messages name them), every other
package's exact pin reduced to its series (``torch==2.5.1`` -> ``torch>=2.5,<2.6``): a domain
library built for one patch loads with the others, so a patch mismatch is not reported here.

Where nothing is declared (a release published after the data was generated, or one whose
wheel names no torch, as torchaudio 2.11.0's) the published pairing rules of torchvision and
torchaudio answer, each sourced; every other package then says nothing.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.stack.versions import coerce_version

# vLLM's and xformers' PyPI wheels are CUDA builds; on ROCm both are built from source
CUDA_WHEELS = ("vllm", "xformers")
EXACT = ("vllm",)  # declared exact pins kept as they are
# Hand-written rules, only where nothing is declared:
_TORCHVISION = "https://github.com/pytorch/vision#installation"  # torchvision 0.N pairs torch 2.(N-15)
_TORCHAUDIO = "https://pytorch.org/audio/main/installation.html#compatibility-matrix"  # torchaudio 2.N: torch 2.N


def declared_requires(dist: str, version: str | None, *, cuda_build: bool = True) -> tuple[tuple[str, ...], str] | None:
    """(requirement strings on torch, source) of ``dist`` at ``version``, or ``None`` when none is known.

    With ``cuda_build=False`` (a ROCm torch) vLLM and xformers declare nothing here: their PyPI
    pins are those of the CUDA wheels.
    """
    v = coerce_version(version)
    if v is None or (dist in CUDA_WHEELS and not cuda_build):
        return None
    release = declared_data.release(dist, v)
    pins = tuple(_shown(dist, r) for r in _torch_requirements(release)) if release is not None else ()
    if release is not None and pins:
        return pins, release.source
    if dist == "torchvision" and v.major == 0 and v.minor >= 15:
        return (_series(2, v.minor - 15),), _TORCHVISION
    if dist == "torchaudio" and v.major == 2:
        return (_series(2, v.minor),), _TORCHAUDIO
    return None


def _torch_requirements(release: declared_data.Release) -> list[Requirement]:
    """The release's versioned requirements on torch, not gated on an extra."""
    found = []
    for text in release.requires or ():
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.name.lower() != "torch" or not req.specifier:
            continue
        if req.marker is not None and "extra" in str(req.marker):
            continue
        found.append(req)
    return found


def _shown(dist: str, req: Requirement) -> str:
    marker = f"; {req.marker}" if req.marker is not None else ""
    specs = list(req.specifier)
    if dist not in EXACT and len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version:
        pinned = coerce_version(specs[0].version)
        if pinned is not None:
            return _series(pinned.major, pinned.minor) + marker
    return str(req)


def _series(major: int, minor: int) -> str:
    return f"torch>={major}.{minor},<{major}.{minor + 1}"

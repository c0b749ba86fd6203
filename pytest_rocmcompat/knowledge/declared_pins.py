"""Key declared requirements of GPU-stack releases, for stacks described without metadata.

``--rocm-set lib.vllm=0.6.3`` says which vLLM is installed but not what it declares;
this small table supplies the pins that matter (vLLM's exact torch pin, the domain
libraries' torch series, xformers' torch build). Installed metadata, when recorded,
always wins (``Environment.requires``). Where a release pins an exact patch the table
keeps only the series (``torch>=2.4,<2.5``): a patch mismatch is not reported from here.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.stack.versions import coerce_version, parse_version

_VLLM = "https://github.com/vllm-project/vllm/blob/v{v}/requirements-cuda.txt"
# vLLM releases -> the torch requirement they declare (first release of each, in order).
# Exact pins where pip's own conflict messages confirm them (0.6.3 torch==2.4.0, 0.7.3
# torch==2.5.1 in hiyouga/EasyR1#27, 0.8.5 torch==2.6.0 in LMCache/LMCache#583, 0.10.0 and
# 0.10.1.1 torch==2.7.1 in nvidia-cosmos/cosmos-rl#183 and NovaSky-AI/SkyRL#218, 0.11.0
# torch==2.8.0 in verl-project/verl#5123); the torch series where a patch is uncertain.
VLLM_TORCH: tuple[tuple[str, str], ...] = (
    ("0.4.0", "torch==2.1.2"),
    ("0.4.1", "torch==2.2.1"),
    ("0.4.2", "torch==2.3.0"),
    ("0.5.0", "torch>=2.3,<2.4"),
    ("0.5.4", "torch==2.4.0"),
    ("0.6.4", "torch==2.5.1"),
    ("0.8.0", "torch==2.6.0"),
    ("0.9.0", "torch==2.7.0"),
    ("0.10.0", "torch==2.7.1"),
    ("0.10.2", "torch==2.8.0"),
    ("0.11.1", "torch>=2.9,<2.10"),
)
VLLM_KNOWN_UNTIL = "0.12"  # releases from here on are not in the table
# xformers release -> torch series it was built for (from its release notes / wheels).
XFORMERS_TORCH: tuple[tuple[str, str], ...] = (
    ("0.0.28.post1", "2.4"),
    ("0.0.28.post2", "2.5"),
    ("0.0.29.post2", "2.6"),
    ("0.0.30", "2.7"),
    ("0.0.31", "2.7"),
    ("0.0.32", "2.8"),
)
_XFORMERS = "https://github.com/facebookresearch/xformers/releases/tag/v{v}"


def declared_requires(dist: str, version: str | None, *, cuda_build: bool = True) -> tuple[tuple[str, ...], str] | None:
    """(requirement strings, source) of ``dist`` at ``version`` from the table, or ``None``.

    vLLM's and xformers' pins are those of their CUDA wheels (``requirements-cuda.txt``, the
    PyPI builds); on ROCm both are built from source against the installed torch, so with
    ``cuda_build=False`` they declare nothing here.
    """
    v = coerce_version(version)
    if v is None:
        return None
    release = parse_version(v.base_version)
    if dist in ("vllm", "xformers") and not cuda_build:
        return None
    if dist == "vllm":
        if not (SpecifierSet(f">=0.4,<{VLLM_KNOWN_UNTIL}").contains(release, prereleases=True)):
            return None
        pin = _last_at_or_below(VLLM_TORCH, release)
        if pin is None:
            return None
        return (pin[1],), _VLLM.format(v=_tag(v))
    if dist == "torchvision" and v.major == 0 and v.minor >= 15:
        series = f"2.{v.minor - 15}"
        return (_series("torch", series),), "https://github.com/pytorch/vision#installation"
    if dist == "torchaudio" and v.major == 2:
        return (
            _series("torch", f"2.{v.minor}"),
        ), "https://pytorch.org/audio/main/installation.html#compatibility-matrix"
    if dist == "xformers":
        found = _last_at_or_below(XFORMERS_TORCH, v)
        if found is None or not SpecifierSet("<0.0.33").contains(release, prereleases=True):
            return None
        return (_series("torch", found[1]),), _XFORMERS.format(v=found[0])
    return None


def _tag(v: Version) -> str:
    return str(v.public)


def _series(name: str, series: str) -> str:
    major, minor = (int(p) for p in series.split("."))
    return f"{name}>={major}.{minor},<{major}.{minor + 1}"


def _last_at_or_below(table: tuple[tuple[str, str], ...], version: Version) -> tuple[str, str] | None:
    found = None
    for first, value in table:
        if parse_version(first) <= version:
            found = (first, value)
    return found

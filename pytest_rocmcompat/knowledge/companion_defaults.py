"""The build of PyPI's torchvision or torchaudio wheel, for a stack that lists one without a build label.

PyPI's Linux x86_64 wheels of torch's domain libraries are built with the CUDA release of the torch
series they pin, the one PyPI's torch of that series is built with (``pip3 install torch torchvision
torchaudio`` is PyTorch's default CUDA install: DEFAULT_SOURCE); a ``+cuXYZ``, ``+rocmX.Y`` or ``+cpu``
build comes only from PyTorch's own indexes, and pip records its label (``torchvision==0.16.0+rocm5.6``).
The two must be "built in similar environment" (a torchvision and torch of different CUDA builds fail
at run time: BUILT_TOGETHER_SOURCE). So a stack that labels torch (``2.1.0+rocm5.6``) but lists an
unlabelled ``torchvision==0.16.0`` holds PyPI's CUDA 12.1 wheel beside it, or left the label out when
writing the stack down: :func:`pypi_default_label` says which build PyPI's is, and the check that uses it
(``extension-built-for-other-torch``) reports the mismatch as a risk.

A stack naming no OS is read as Linux x86_64, as :mod:`derived_facts` reads it. PyPI's Windows wheels are
CPU builds, the CUDA ones coming from PyTorch's own indexes (WINDOWS_SOURCE, as ``torch-cpu-build`` reads
an untagged torch on Windows), so an unlabelled torchvision on Windows is the CPU build; macOS has no GPU
build and is not judged. Prereleases, nightlies and source builds have no PyPI wheel.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.declared_pins import declared_requires
from pytest_rocmcompat.knowledge.derived_facts import pypi_default_build
from pytest_rocmcompat.stack.pytorch_index import DOMAIN_LIBRARIES
from pytest_rocmcompat.stack.versions import coerce_version

DEFAULT_SOURCE = "https://github.com/pytorch/test-infra/pull/1145"
BUILT_TOGETHER_SOURCE = "https://github.com/pytorch/vision/issues/949"
COMPANIONS = DOMAIN_LIBRARIES
WINDOWS_SOURCE = "https://discuss.pytorch.org/t/index-url-to-install-pytorch/198253"
_MACOS = ("darwin", "macos")


def pypi_default_label(dist: str, version: str | None, system: str = "") -> str | None:
    """``"cu121"`` for ``torchvision`` ``0.16.0`` on Linux: the build of PyPI's wheel; ``None`` when unknown.

    ``"cpu"`` on Windows; ``None`` for a labelled version (it says its own build), a prerelease or a source
    build, a macOS stack, and a release whose torch series has no known default build.
    """
    v = coerce_version(version)
    if dist not in COMPANIONS or v is None or v.local or v.is_prerelease or v.is_devrelease:
        return None
    if system.lower() in _MACOS:
        return None
    declared = declared_requires(dist, str(v))
    if declared is None:
        return None
    if system.lower() == "windows":
        return "cpu"
    series = _pinned_series(declared[0])
    found = pypi_default_build(series) if series else None
    return found[0] if found is not None else None


def _pinned_series(requirements: tuple[str, ...]) -> str | None:
    """``"2.1"`` from ``("torch>=2.1,<2.2",)`` or ``("torch==2.1.0",)``: the one torch series pinned, else ``None``."""
    for text in requirements:
        spec = SpecifierSet(text.removeprefix("torch").strip())
        lower = [s for s in spec if s.operator in (">=", "==")]
        if len(lower) != 1:
            continue
        v = coerce_version(lower[0].version.rstrip(".*"))
        if v is None:
            continue
        series = Version(f"{v.major}.{v.minor}")
        after = Version(f"{v.major}.{v.minor + 1}")
        if spec.contains(series, prereleases=False) and not spec.contains(after, prereleases=False):
            return str(series)
    return None

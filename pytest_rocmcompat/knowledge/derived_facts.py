"""Facts a stack implies but does not state, derived in one place, each row sourced.

:func:`derive` returns the environment the rule engine and the built-in checks read
(``ActiveRules`` and ``checks.registry.evaluate`` call it): a copy with

- **an untagged torch's build**: ``torch==2.5.1`` (how ``pip freeze`` lists the default PyPI
  wheel) becomes ``2.5.1+cu124`` from :data:`PYPI_DEFAULT_BUILD`, when the platform is CUDA or
  the ``nvidia-*-cu12`` packages the PyPI wheel depends on are installed. Never on ROCm (the
  ROCm wheels are always tagged; an untagged torch there is a source, conda or vendor build:
  unknown), never for a prerelease/dev version (NGC and source builds: ``2.4.0a0+git...``),
  never on macOS or Windows (their PyPI wheels are CPU-only). Linux aarch64 cannot be told
  from x86_64 in a recorded stack and is taken as x86_64; a conda ``pytorch`` is not told from
  the PyPI wheel either (the stack file drops its build string);
- **facts from packages** (:data:`PACKAGE_FACTS`): ``nvidia-nccl-cu12==2.27.3`` -> ``nccl``,
  ``nvidia-cuda-runtime-cu12`` -> ``cuda``, cuDNN/cuBLAS/hipBLASLt -> a ``cudnn`` /
  ``cublas`` / ``hipblaslt`` library entry, ROCm's ``rccl`` -> ``nccl``.

A fact the environment already has (probed, recorded or ``--rocm-set``) always wins; nothing
here overwrites one. :func:`contains` compares a prerelease, dev or local build per bound
(see its docstring); :func:`is_fixed` is the ``fixed_in`` side of the same rule.
Pure: no I/O, no imports above ``stack``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.versions import coerce_version

_GH = "https://github.com/"
# (torch releases, build tag of the default PyPI wheel on Linux x86_64, source)
PYPI_DEFAULT_BUILD: tuple[tuple[str, str, str], ...] = (
    # `pip install torch==2.1.1` pulls nvidia-cuda-nvrtc-cu12==12.1.105 (CUDA 12.1 wheel on PyPI)
    (">=2.1,<2.2", "cu121", _GH + "pytorch/pytorch/issues/100974"),
    # "Move small pypi build as default for linux cuda 12.1" (2.2 cycle); the 2.5 RFC below moves
    # PyPI to 12.4 "rather than 12.1", so 2.2-2.4 kept 12.1
    (">=2.2,<2.5", "cu121", _GH + "pytorch/pytorch/pull/114281"),
    # "[RFC] Cuda support matrix for Release 2.5": "CUDA 12.4 as main binary on pypi rather then 12.1"
    (">=2.5,<2.6", "cu124", _GH + "pytorch/pytorch/issues/134015"),
    # "the default PyTorch v2.6 on pypi which was built with 12.4 CTK"
    (">=2.6,<2.7", "cu124", _GH + "rapidsai/cugraph-gnn/pull/155"),
    # ptrblck: "running `pip install torch` will install the default config: `torch==2.7.0+cu126`"
    (">=2.7,<2.8", "cu126", _GH + "pytorch/pytorch.github.io/pull/1998"),
    # 2025-08-15 (2.8.0 out 2025-08-06): "Torch now defaults to CUDA 12.8 for Linux builds"
    (">=2.8,<2.9", "cu128", _GH + "mmartial/ComfyUI-Nvidia-Docker/pull/63"),
    # "[RFC] Cuda support matrix for Release 2.9": CUDA 12.8 stable, "Version Release to Pypi"
    # (options 1 and 4; 13.0 prototype) -- the least certain row
    (">=2.9,<2.10", "cu128", _GH + "pytorch/pytorch/issues/159980"),
)
_PARSED_DEFAULTS = tuple((SpecifierSet(spec), tag, source) for spec, tag, source in PYPI_DEFAULT_BUILD)
# The CUDA packages the PyPI wheels depend on (Requires-Dist of torch 2.1+ on Linux x86_64).
_NVIDIA_CU12 = re.compile(r"^nvidia-[a-z0-9-]+-cu12$")
_NVIDIA_SOURCE = "https://pypi.org/project/nvidia-nccl-cu12/"

# (distribution, fact it gives, platforms where it applies, source). A fact named ``lib.X``
# becomes the library entry ``X``; the others are Environment fields.
PACKAGE_FACTS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    # NCCL's own PyPI wheels; the version is NCCL's (2.27.3 is NCCL 2.27.3)
    ("nvidia-nccl-cu13", "nccl", ("cuda", "cpu"), "https://pypi.org/project/nvidia-nccl-cu13/"),
    ("nvidia-nccl-cu12", "nccl", ("cuda", "cpu"), "https://pypi.org/project/nvidia-nccl-cu12/"),
    ("nvidia-nccl-cu11", "nccl", ("cuda", "cpu"), "https://pypi.org/project/nvidia-nccl-cu11/"),
    # the CUDA runtime (cudart) wheel: 12.4.127 is the CUDA 12.4 runtime
    ("nvidia-cuda-runtime-cu12", "cuda", ("cuda", "cpu"), "https://pypi.org/project/nvidia-cuda-runtime-cu12/"),
    ("nvidia-cuda-runtime-cu11", "cuda", ("cuda", "cpu"), "https://pypi.org/project/nvidia-cuda-runtime-cu11/"),
    ("nvidia-cudnn-cu12", "lib.cudnn", ("cuda", "cpu"), "https://pypi.org/project/nvidia-cudnn-cu12/"),
    ("nvidia-cudnn-cu11", "lib.cudnn", ("cuda", "cpu"), "https://pypi.org/project/nvidia-cudnn-cu11/"),
    ("nvidia-cublas-cu12", "lib.cublas", ("cuda", "cpu"), "https://pypi.org/project/nvidia-cublas-cu12/"),
    ("nvidia-cublas-cu11", "lib.cublas", ("cuda", "cpu"), "https://pypi.org/project/nvidia-cublas-cu11/"),
    # ROCm's user-space libraries where a package manager lists them (conda-forge, ROCm's
    # repositories); RCCL keeps NCCL's version numbering (rccl 2.22.3 implements NCCL 2.22.3)
    ("rccl", "nccl", ("rocm", "cpu"), "https://github.com/ROCm/rccl/blob/develop/CMakeLists.txt"),
    ("hipblaslt", "lib.hipblaslt", ("rocm", "cpu"), "https://github.com/ROCm/hipBLASLt"),
)

_LOWER = (">=", ">", "~=")
_UPPER = ("<", "<=")


def pypi_default_build(torch: str | None) -> tuple[str, str] | None:
    """``"2.5.1"`` -> ``("cu124", SOURCE)``: the tag of the default PyPI wheel; ``None`` when not known."""
    version = coerce_version(torch)
    if version is None or version.local or version.is_prerelease or version.is_devrelease:
        return None
    release = Version(version.base_version)
    for spec, tag, source in _PARSED_DEFAULTS:
        if spec.contains(release):
            return tag, source
    return None


def derive(env: Environment) -> Environment:
    """``env`` with every fact it implies filled in (see the module); ``env`` itself if none."""
    changes: dict[str, object] = {}
    notes: list[str] = []
    libraries = dict(env.libraries)
    for dist, fact, platforms, source in PACKAGE_FACTS:
        version = env.libraries.get(dist)
        if version is None or env.platform not in platforms or coerce_version(version) is None:
            continue
        if fact.startswith("lib."):
            name = normalize_library(fact[4:])
            if name not in libraries:
                libraries[name] = version
                notes.append(f"derived: {name} {version} from {dist} ({source})")
        elif getattr(env, fact) is None and fact not in changes:
            changes[fact] = version
            notes.append(f"derived: {fact} {version} from {dist} ({source})")
    if libraries != env.libraries:
        changes["libraries"] = libraries
    build = _untagged_build(env)
    if build is not None:
        tag, source = build
        changes["torch"] = f"{env.torch}+{tag}"
        notes.append(f"derived: torch {env.torch} is the default PyPI wheel, {env.torch}+{tag} ({source})")
    if not changes:
        return env
    return replace(env, **changes, notes=(*env.notes, *notes))  # type: ignore[arg-type]


def _untagged_build(env: Environment) -> tuple[str, str] | None:
    """The default PyPI build of an untagged torch, where the stack says it came from PyPI for CUDA."""
    if not env.torch or env.platform == "rocm" or env.hip or env.torch_rocm is not None:
        return None
    system = env.os.split(" ", 1)[0].lower()
    if system in ("darwin", "windows", "macos"):
        return None
    nvidia = any(_NVIDIA_CU12.match(name) for name in env.libraries)
    if env.platform != "cuda" and not nvidia:
        return None
    found = pypi_default_build(env.torch)
    if found is None:
        return None
    runtime = coerce_version(env.libraries.get("nvidia-cuda-runtime-cu12"))
    tag = found[0]
    if runtime is not None and f"cu{runtime.major}{runtime.minor}" != tag:
        return None  # the installed runtime says another build: not the default wheel
    return found


def contains(spec: SpecifierSet, version: Version | str) -> bool:
    """Whether ``version`` satisfies ``spec``, a prerelease, dev or local build compared per bound.

    ``2.4.0a0+git1234abc`` (NGC containers, ROCm's and source builds) is a snapshot of the 2.4
    branch before its release:

    - a **lower** bound (``>=``, ``>``, ``~=``) compares the release it precedes: ``>=2.4``
      holds (the features of 2.4 are there), ``>2.4`` does not;
    - an **upper** bound (``<``, ``<=``) compares the snapshot itself, before its release:
      ``<2.4`` holds (PEP 440 would say no), because a rule's upper bound is where its bug is
      fixed, and a snapshot before the release may lack the fix (see :func:`is_fixed`);
    - ``==``, ``!=`` and ``===`` are PEP 440's: ``==2.4.*`` holds, ``==2.4.0`` does not.

    A final release (local tags ignored, as PEP 440) is compared as PEP 440 says.
    """
    v = version if isinstance(version, Version) else Version(str(version))
    if not (v.is_prerelease or v.is_devrelease):
        return spec.contains(v, prereleases=True)
    release, public = Version(v.base_version), Version(v.public)
    for s in spec:
        if s.operator in _LOWER:
            ok = s.contains(release, prereleases=True)
        elif s.operator == "<":
            ok = public < Version(s.version)
        elif s.operator == "<=":
            ok = public <= Version(s.version)
        else:
            ok = s.contains(v, prereleases=True)
        if not ok:
            return False
    return True


def is_fixed(version: Version | str, fixed_in: str) -> bool:
    """Whether ``version`` has a fix first released in ``fixed_in``: a snapshot before that release has not.

    ``is_fixed("2.4.0a0+gitabc", "2.4.0")`` is ``False``; ``is_fixed("2.4.1", "2.4.0")`` is ``True``.
    """
    v = version if isinstance(version, Version) else Version(str(version))
    return Version(v.public) >= Version(fixed_in)

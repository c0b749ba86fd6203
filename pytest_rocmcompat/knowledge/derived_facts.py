"""Facts a stack implies but does not state, derived in one place, each row sourced.

:func:`derive` returns the environment the rule engine and the built-in checks read
(``ActiveRules`` and ``checks.registry.evaluate`` call it): a copy with

- **an untagged torch's build**: ``torch==2.5.1`` (how ``pip freeze`` lists the default PyPI
  wheel) becomes ``2.5.1+cu124``, the CUDA runtime its Linux x86_64 wheel pins
  (``nvidia-cuda-runtime-cu12==12.4.127``, :mod:`declared_data`, every release since 2020),
  when the platform is CUDA or the ``nvidia-*-cu1X`` packages the PyPI wheel depends on are
  installed. Never on ROCm (the
  ROCm wheels are always tagged; an untagged torch there is a source, conda or vendor build:
  unknown), never for a prerelease/dev version (NGC and source builds: ``2.4.0a0+git...``),
  never on macOS or Windows (their PyPI wheels are CPU-only). Linux aarch64 cannot be told
  from x86_64 in a recorded stack and is taken as x86_64; a conda ``pytorch`` is not told from
  the PyPI wheel either (the stack file drops its build string);
- **what that wheel pins** (:data:`TORCH_PIN_FACTS`): the ``nccl``, ``cuda``, cuDNN, cuBLAS
  and Triton versions torch's own ``Requires-Dist`` pins (markers evaluated for Linux x86_64
  and the stack's Python), for an untagged torch and for the tagged build that is the same
  wheel (``2.5.1+cu124``); another build (``+cu118``) is not that wheel and gets none;
- **the highest CUDA an NVIDIA driver supports** (:mod:`nvidia_driver_cuda`): ``driver=535.104.05``
  on a CUDA stack gives ``driver_cuda`` 12.2, what ``nvidia-smi`` prints beside it;
- **the GPUs a process sees** (:func:`stack.visibility.visible_gpus`): for a stack that states its
  devices and its ``ROCR_VISIBLE_DEVICES`` / ``HIP_VISIBLE_DEVICES`` / ``CUDA_VISIBLE_DEVICES``, the
  devices those index lists leave (an APU's hidden integrated GPU is judged by no check or rule; a
  live probe's list is never narrowed);
- **torch from its dependents' exact pins** (:func:`_torch_from_pins`), for a CUDA stack naming none;
- **facts from packages** (:data:`PACKAGE_FACTS`): ``nvidia-nccl-cu12==2.27.3`` -> ``nccl``,
  ``nvidia-cuda-runtime-cu12`` -> ``cuda``, cuDNN/cuBLAS/hipBLASLt -> a ``cudnn`` /
  ``cublas`` / ``hipblaslt`` library entry, ROCm's ``rccl`` -> ``nccl``.

A fact the environment already has (probed, recorded or ``--rocm-set``) always wins; nothing
here overwrites one. :func:`contains` compares a prerelease, dev or local build per bound
(see its docstring); :func:`is_fixed` is the ``fixed_in`` side of the same rule.
No I/O but reading the packaged data file; no imports above ``knowledge``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.nvidia_driver_cuda import SOURCE as DRIVER_SOURCE
from pytest_rocmcompat.knowledge.nvidia_driver_cuda import driver_cuda
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.pytorch_index import NVIDIA_CU
from pytest_rocmcompat.stack.versions import coerce_version
from pytest_rocmcompat.stack.visibility import NOTE as VISIBILITY_NOTE
from pytest_rocmcompat.stack.visibility import visible_gpus

# The CUDA packages the PyPI wheels depend on (Requires-Dist of torch 2.0+ on Linux x86_64).
# an NVIDIA runtime wheel built for one CUDA major (``nvidia-cudnn-cu12``): the major
_RUNTIME = re.compile(r"^nvidia-cuda-runtime-cu1[0-9]$")
# What torch's own exact pins give (the generated data, declared_data): distribution pattern -> fact
TORCH_PIN_FACTS: tuple[tuple[str, str], ...] = (
    (r"nvidia-nccl-cu1[0-9]", "nccl"),
    (r"nvidia-cuda-runtime-cu1[0-9]", "cuda"),
    (r"nvidia-cudnn-cu1[0-9]", "lib.cudnn"),
    (r"nvidia-cublas-cu1[0-9]", "lib.cublas"),
    (r"triton", "lib.triton"),
)

# Before 1.13 the PyPI wheel bundled its CUDA runtime and pinned no nvidia-* package, so the
# declared data cannot say its build: each series' Linux x86_64 wheel on PyPI says it itself, in
# its torch/version.py (``cuda = '10.2'``; from 1.9 also ``__version__ = '1.9.1+cu102'``), read by
# range requests in the manylinux1 wheels 1.2.0, 1.3.1, 1.4.0, 1.5.0, 1.5.1, 1.7.0, 1.7.1, 1.9.0,
# 1.9.1, 1.10.0, 1.10.2, 1.11.0, 1.12.0 and 1.12.1 (PYPI_WHEEL_SOURCE), and for 1.6 and 1.8 in a
# public report (pip's own download of the PyPI wheel, then the build it reports).
PYPI_WHEEL_SOURCE = "https://pypi.org/project/torch/{}/#files"
BUNDLED_CUDA_DEFAULT: dict[str, tuple[str, str]] = {
    "1.2": ("cu100", PYPI_WHEEL_SOURCE.format("1.2.0")),  # cuda = '10.0.130'
    "1.3": ("cu101", PYPI_WHEEL_SOURCE.format("1.3.1")),  # cuda = '10.1.243'
    "1.4": ("cu101", PYPI_WHEEL_SOURCE.format("1.4.0")),
    "1.5": ("cu102", PYPI_WHEEL_SOURCE.format("1.5.1")),
    "1.7": ("cu102", PYPI_WHEEL_SOURCE.format("1.7.1")),
    "1.9": ("cu102", PYPI_WHEEL_SOURCE.format("1.9.1")),
    "1.10": ("cu102", PYPI_WHEEL_SOURCE.format("1.10.2")),
    "1.11": ("cu102", PYPI_WHEEL_SOURCE.format("1.11.0")),
    "1.12": ("cu102", PYPI_WHEEL_SOURCE.format("1.12.1")),
    # `pip install torch torchvision` -> torch-1.6.0-cp38-cp38-manylinux1_x86_64.whl, pytorch.org's
    # command for CUDA 10.2 (the title: "PyTorch pip installation command for CUDA 10.2")
    "1.6": ("cu102", "https://github.com/pytorch/pytorch/issues/43493"),
    # `pip install torch` -> torch-1.8.0-cp38-cp38-manylinux1_x86_64.whl; collect_env: "1.8.1+cu102",
    # "CUDA used to build PyTorch: 10.2", capabilities sm_37 sm_50 sm_60 sm_70
    "1.8": ("cu102", "https://github.com/pytorch/pytorch/issues/53838"),
}

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
    """``"2.5.1"`` -> ``("cu124", SOURCE)``: the tag of the default PyPI wheel; ``None`` when not known.

    Read from the CUDA runtime the release's Linux x86_64 wheel pins
    (``nvidia-cuda-runtime-cu12==12.4.127`` -> ``cu124``) in the generated data.
    """
    version = coerce_version(torch)
    if version is None or version.local or version.is_prerelease or version.is_devrelease:
        return None
    pins = _torch_pins(str(version), None)
    for dist, pinned, source in pins:
        if _RUNTIME.match(dist):
            v = coerce_version(pinned)
            if v is not None:
                return f"cu{v.major}{v.minor}", source
    return BUNDLED_CUDA_DEFAULT.get(f"{version.major}.{version.minor}")


def derive(env: Environment) -> Environment:
    """``env`` with every fact it implies filled in (see the module); ``env`` itself if none."""
    changes: dict[str, object] = {}
    notes: list[str] = []
    libraries = dict(env.libraries)
    for dist, fact, platforms, source in PACKAGE_FACTS:
        version = env.libraries.get(dist)
        if version is None or env.platform not in platforms or coerce_version(version) is None:
            continue
        _fill(env, fact, version, f"from {dist} ({source})", changes, libraries, notes)
    cuda_of_driver = driver_cuda(env.driver) if cuda_stack(env) and env.driver_cuda is None else None
    if cuda_of_driver is not None:
        changes["driver_cuda"] = cuda_of_driver
        notes.append(f"derived: driver_cuda {cuda_of_driver} from NVIDIA driver {env.driver} ({DRIVER_SOURCE})")
    visible = visible_gpus(env)
    if visible is not None:
        changes["gpus"] = visible[0]
        notes.append(f"{VISIBILITY_NOTE}{visible[1]}")
    pinned_torch = _torch_from_pins(env)
    if pinned_torch is not None:
        version, why = pinned_torch
        changes["torch"] = version
        notes.append(f"derived: torch {version} {why}")
        env = replace(env, torch=version)
    build = _untagged_build(env)
    if build is not None:
        tag, source = build
        changes["torch"] = f"{env.torch}+{tag}"
        notes.append(f"{_UNTAGGED_TORCH}{env.torch} is the default PyPI wheel, {env.torch}+{tag} ({source})")
    wheel = _default_wheel(env, build)
    if wheel is not None:
        for dist, pinned, source in _torch_pins(wheel, env.python or None):
            for pattern, fact in TORCH_PIN_FACTS:
                if re.fullmatch(pattern, dist):
                    _fill(
                        env,
                        fact,
                        pinned,
                        f"pinned by torch {wheel}'s PyPI wheel, {dist} ({source})",
                        changes,
                        libraries,
                        notes,
                    )
    if libraries != env.libraries:
        changes["libraries"] = libraries
    if not changes:
        return env
    return replace(env, **changes, notes=(*env.notes, *notes))  # type: ignore[arg-type]


# the note an untagged torch taken as the default PyPI wheel carries (:func:`torch_tag_derived`)
_UNTAGGED_TORCH = "derived: torch "


def cuda_stack(env: Environment) -> bool:
    """Whether ``env`` is a CUDA stack (its platform, or a ``+cu`` torch): its driver is NVIDIA's, its toolkit nvcc."""
    return env.platform == "cuda" or (env.torch_local or "").startswith("cu")


def torch_tag_derived(env: Environment) -> bool:
    """Whether torch's build tag is :func:`derive`'s guess for an untagged torch (a conda torch reads the
    same), not a build the stack stated.
    """
    return any(note.startswith(_UNTAGGED_TORCH) for note in env.notes)


def _fill(
    env: Environment,
    fact: str,
    version: str,
    why: str,
    changes: dict[str, object],
    libraries: dict[str, str],
    notes: list[str],
) -> None:
    """Set ``fact`` (a field, or ``lib.NAME``) to ``version`` unless the environment or an earlier row has it."""
    if fact.startswith("lib."):
        name = normalize_library(fact[4:])
        if name not in libraries:
            libraries[name] = version
            notes.append(f"derived: {name} {version} {why}")
    elif getattr(env, fact) is None and fact not in changes:
        changes[fact] = version
        notes.append(f"derived: {fact} {version} {why}")


def torch_release_pins(torch: str, python: str | None) -> list[tuple[str, str, str]]:
    """:func:`_torch_pins` of ``torch``'s release, whatever its build label: every build of one release is
    made from the same sources, so the PyPI wheel's pins name the libraries that release was built against.
    """
    version = coerce_version(torch)
    return _torch_pins(version.public, python) if version is not None else []


def _torch_pins(torch: str, python: str | None) -> list[tuple[str, str, str]]:
    """(distribution, exact version, source) of every ``==`` pin torch's Linux x86_64 wheel declares."""
    release = declared_data.release("torch", torch)
    if release is None:
        return []
    found = []
    for req in declared_data.requirements(release, python):
        specs = list(req.specifier)
        if len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version:
            found.append((normalize_library(req.name), specs[0].version, release.source))
    return found


def _torch_from_pins(env: Environment) -> tuple[str, str] | None:
    """``(release, why)``: the torch a CUDA stack that names none holds, by its packages' exact pins.

    torchvision, torchaudio, xFormers and vLLM releases pin torch exactly (``torchvision 0.17.0``:
    ``torch==2.2.0``); pip installs that torch beside them, so where every such pin of the stack
    agrees, that release is the stack's torch (then taken as the default PyPI wheel, as an untagged
    torch is); a pinning package with a build label (``0.17.0+cu118``, from download.pytorch.org) gives
    torch that label. Only where the stack holds PyPI's CUDA wheels (:func:`_from_cuda_pypi`): ROCm builds of
    these packages are made against the ROCm torch in hand; never where torch is named, as a field or as
    an installed package. Pins or labels that disagree say nothing.
    """
    if env.torch or "torch" in env.libraries or not _from_cuda_pypi(replace(env, torch="0")):
        return None  # torch named (also as an installed package): that one is the stack's
    pins: dict[str, str] = {}
    labels: set[str] = set()  # the build labels of the pinning packages (torchvision 0.17.0+cu118: cu118)
    for dist, version in sorted(env.libraries.items()):
        release = declared_data.release(dist, version)
        if release is None:
            continue
        for req in declared_data.requirements_on(release, "torch", env.python or None):
            specs = list(req.specifier)
            if len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version:
                pins.setdefault(specs[0].version, f"pinned by {dist} {version} ({release.source})")
                local = coerce_version(version)
                if local is not None and local.local:
                    labels.add(local.local)
    if len(pins) != 1 or len(labels) > 1:
        return None  # pins, or builds, that disagree
    version, why = next(iter(pins.items()))
    # a labelled package was built against that build of torch (its own index's): not the default wheel
    return (f"{version}+{labels.pop()}" if labels else version), why


def _default_wheel(env: Environment, build: tuple[str, str] | None) -> str | None:
    """The torch release whose PyPI wheel the stack holds: untagged (``build``) or tagged as that wheel."""
    if build is not None:
        return env.torch
    version = coerce_version(env.torch)
    if version is None or not version.local or not _from_cuda_pypi(env):
        return None
    public = version.public
    found = pypi_default_build(public)
    return public if found is not None and found[0] == version.local else None


def _from_cuda_pypi(env: Environment) -> bool:
    """Whether the stack can hold a CUDA wheel of PyPI: not ROCm, not macOS/Windows, CUDA or nvidia-* seen."""
    if not env.torch or env.platform == "rocm" or env.hip or env.torch_rocm is not None:
        return False
    system = env.system.lower()
    if system in ("darwin", "windows", "macos"):
        return False
    return env.platform == "cuda" or any(NVIDIA_CU.match(name) for name in env.libraries)


def _untagged_build(env: Environment) -> tuple[str, str] | None:
    """The default PyPI build of an untagged torch, where the stack says it came from PyPI for CUDA."""
    if not _from_cuda_pypi(env):
        return None
    found = pypi_default_build(env.torch)
    if found is None:
        return None
    for name, installed in env.libraries.items():
        runtime = coerce_version(installed) if _RUNTIME.match(name) else None
        if runtime is not None and f"cu{runtime.major}{runtime.minor}" != found[0]:
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

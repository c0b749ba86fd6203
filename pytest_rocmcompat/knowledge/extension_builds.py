"""Which torch a compiled torch extension was built for, from what the install records.

A C++/CUDA extension (flash-attn, torchao, PyG, mamba-ssm, ...) links against one torch
build's C++ symbols; under another torch it fails at import (``undefined symbol``), aborts,
or silently drops its kernels. Three recorded facts say which torch it was built for:

* a **build label** in the version: flash-attn's release wheels are named
  ``2.8.3+cu12torch2.8cxx11abiTRUE`` (torch series and C++ ABI), PyG's
  ``2.1.2+pt23cu121`` (torch 2.3). The probe reads it from the installed version or from
  the wheel file name in ``direct_url.json`` (PEP 610), nothing imported;
* **torchao's own compatibility table** (``torchao/__init__.py``, v0.14.1 to v0.16.0; from
  0.17 a minimum torch): the release loads its C++ extensions only with those torch builds;
* **torchcodec's compatibility table** (its README, in every release's wheel METADATA): one torch
  series per torchcodec series up to 0.11, torch >= 2.11 from 0.12; under another torch libtorchcodec
  does not load;
* the torch build's **C++ ABI** (``torch._C._GLIBCXX_USE_CXX11_ABI`` when probed, else the
  official pip wheels' switch: pytorch/pytorch#143962, #152790).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from packaging.version import Version

from pytest_rocmcompat.knowledge.companion_defaults import BUILT_TOGETHER_SOURCE, pypi_default_label
from pytest_rocmcompat.stack.versions import coerce_version

_TORCHAO = "https://github.com/pytorch/ao/blob/v0.16.0/torchao/__init__.py"
_TORCHAO_MIN = "https://github.com/pytorch/ao/blob/v0.17.0/torchao/__init__.py"
_LABEL_SOURCE = "https://github.com/Dao-AILab/flash-attention/blob/main/setup.py"
_PYG_SOURCE = "https://data.pyg.org/whl/"
ABI_SOURCE = "https://github.com/pytorch/pytorch/issues/152790"

# torchao release -> the torch builds its C++ extensions load with ([major, minor, patch];
# a ``.dev`` build counts as patch -1, exactly as torchao's ``_parse_version``).
TORCHAO_BUILT_FOR: dict[tuple[int, int, int], tuple[tuple[int, int, int], ...]] = {
    (0, 13, 0): ((2, 8, 0), (2, 9, -1)),  # 0.13 has no gate: under another torch the import aborts
    (0, 14, 0): ((2, 8, 0), (2, 9, -1)),
    (0, 14, 1): ((2, 9, 0), (2, 10, -1)),
    (0, 15, 0): ((2, 9, 1), (2, 10, -1)),
    (0, 16, 0): ((2, 10, 0), (2, 11, -1)),
}
TORCHAO_MIN_FROM = (0, 17, 0)  # from this release: torch >= 2.11.0
TORCHAO_MIN_TORCH = (2, 11, 0)

# torchcodec release series -> the torch series its libtorchcodec is built for: the compatibility table of its
# README, as each release's wheel METADATA carries it (read in every PyPI wheel 0.1.0-0.17.0, session 29); from
# 0.12 the table says ">=2.11" (built on torch's stable ABI)
_TORCHCODEC = "https://github.com/pytorch/torchcodec/blob/v0.11.0/README.md"
_TORCHCODEC_MIN = "https://github.com/pytorch/torchcodec/blob/v0.17.0/README.md"
TORCHCODEC_BUILT_FOR: dict[tuple[int, int], tuple[int, int]] = {
    (0, 0): (2, 4),
    (0, 1): (2, 5),
    (0, 2): (2, 6),
    (0, 3): (2, 7),
    (0, 4): (2, 7),
    (0, 5): (2, 7),
    (0, 6): (2, 8),
    (0, 7): (2, 8),
    (0, 8): (2, 9),
    (0, 9): (2, 9),
    (0, 10): (2, 10),
    (0, 11): (2, 11),
}
TORCHCODEC_MIN_FROM = (0, 12)  # from this series: torch >= 2.11
TORCHCODEC_MIN_TORCH = (2, 11)
# its own RuntimeError when libtorchcodec does not load (torchcodec/_core/ops.py, every release read), which names the
# torch version as a likely cause; an FFmpeg missing says the same, so it is predicted only for this fact
TORCHCODEC_PREDICTS = r"Could not load libtorchcodec"

# torch2.8 (flash-attn, mamba-ssm, causal-conv1d, flashinfer wheels) and pt23 (PyG wheels)
_TORCH_LABEL = re.compile(r"torch(\d+)\.(\d+)")
_PYG_LABEL = re.compile(r"(?:^|[._])pt(\d)(\d{1,2})(?=cu|cpu|rocm|[._]|$)")
_ABI_LABEL = re.compile(r"cxx11abi(true|false)")
# cu121, cu12 (flash-attn's torch2.8 labels), pt23cu121 (PyG), cuda12.1; rocm6.2, rocm62 (flash-attn)
_CUDA_LABEL = re.compile(r"(?<![a-z])cu(?:da)?(\d+)")
_ROCM_LABEL = re.compile(r"rocm(?:(\d+)\.(\d+)?|(\d)(\d)?)")
# CUDA's compatibility holds within one major release ("minor version compatibility")
_CUDA_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/"
# the HIP runtime's soname follows ROCm's major: libamdhip64.so.5 / .so.6 / .so.7
_ROCM_SOURCE = "https://github.com/ROCm/TheRock/issues/1119"
# torchvision's setup.py compiles its CUDA/HIP kernels (``ops/cuda/*.cu``, hipified on ROCm) only where
# the building torch has a GPU (``BUILD_CUDA_SOURCES``); a ``+cpu`` build registers its operators for
# the CPU alone, and a GPU build links torch's own GPU libraries (``libc10_cuda.so``), which a CPU
# torch does not ship (pyg-team/pytorch_geometric#3904 for PyG's CUDA wheels on a CPU torch)
# torch's own GPU libraries missing (pyg-team/pytorch_geometric#3904): predicted for this fact only, as
# a plain torch install missing them is torch's own breakage, not an extension's
GPU_LIBS_MISSING = r"lib(?:c10|torch)_(?:cuda|hip)\.so: cannot open shared object file"
_CPU_BUILD_SOURCE = "https://github.com/pytorch/vision/blob/004ebb5cd46514e67a2f21bfdae64e74cc11bb13/setup.py"
# Packages whose label links no GPU runtime of that release beside torch's. jaxlib's CUDA wheels
# (``0.4.23+cuda12.cudnn89``) use an installed CUDA or NVIDIA's pip wheels, so such a label beside a
# torch of another CUDA major says nothing about the stack.
# Triton's AMD driver dlopens the HIP runtime torch already loaded (``libamdhip64.so``, no major), so
# its wheel's ``+rocm`` label links nothing of that release.
_TRITON_HIP = "https://github.com/triton-lang/triton/blob/main/third_party/amd/backend/driver.py"
OWN_GPU_RUNTIME: dict[str, str] = {
    "jaxlib": "https://docs.jax.dev/en/latest/installation.html",
    "pytorch-triton-rocm": _TRITON_HIP,
    "triton-rocm": _TRITON_HIP,
}


@dataclass(frozen=True)
class BuiltFor:
    """What a compiled extension release was built for, and whether ``torch`` matches it."""

    wanted: str  # "torch 2.8" / "torch 2.10.0 or 2.11 nightlies" / "the C++11 ABI"
    source: str
    matches: bool
    consequence: str  # what happens when it does not match
    partial: bool = False  # only part of it fails (its GPU operators): a test may never meet it
    predicts: str = ""  # a failure this fact alone predicts (beyond the check's signature)
    assumed: bool = False  # judged by the build PyPI's wheel is, the stack giving the package no label


def built_for(
    dist: str, version: str | None, torch: str | None, torch_abi: bool | None, system: str = ""
) -> list[BuiltFor]:
    """Every recorded build fact of ``dist`` at ``version``, judged against ``torch`` (on the OS ``system``).

    Empty when nothing is recorded or the extension was built locally (``+git`` versions).
    """
    v, t = coerce_version(version), coerce_version(torch)
    if v is None or t is None or dist in OWN_GPU_RUNTIME:
        return []
    found: list[BuiltFor] = []
    label = (v.local or "").lower()
    if "git" in label:
        return []  # built from source here: against whatever torch was installed then
    if dist == "torchao":
        judged = _torchao(v, t)
        if judged is not None:
            found.append(judged)
    if dist == "torchcodec":
        codec = _torchcodec(v, t)
        if codec is not None:
            found.append(codec)
    series = _labelled_series(label)
    if series is not None:
        source = _PYG_SOURCE if _PYG_LABEL.search(label) and not _TORCH_LABEL.search(label) else _LABEL_SOURCE
        found.append(
            BuiltFor(
                f"torch {series[0]}.{series[1]}",
                source,
                (t.major, t.minor) == series,
                "its compiled library fails to load (undefined symbol)",
            )
        )
    runtime = _runtime_mismatch(dist, v, label, (t.local or "").lower())
    if runtime is None and not label:
        runtime = _unlabelled_companion(dist, v, (t.local or "").lower(), system)
    if runtime is not None:
        found.append(runtime)
    abi = _ABI_LABEL.search(label)
    if abi is not None and torch_abi is not None:
        built_abi = abi.group(1) == "true"
        found.append(
            BuiltFor(
                "the C++11 ABI" if built_abi else "the pre-C++11 ABI",
                ABI_SOURCE,
                built_abi == torch_abi,
                "its compiled library fails to load (undefined symbol ...__cxx11...)",
            )
        )
    return found


def official_cxx11_abi(torch: str | None) -> bool | None:
    """The C++ ABI of an official Linux pip wheel of ``torch``, or ``None`` when not known.

    2.7 and later: C++11 ABI for every build (pytorch/pytorch#143962); 2.6: only the +cu126
    build (pytorch/pytorch#152790); earlier +cuXYZ/+cpu wheels: the pre-C++11 ABI
    (pytorch/pytorch#51039). Nightlies near the switch, ROCm before 2.7 and builds without a
    local tag (conda, NGC containers, source) are not known.
    """
    v = coerce_version(torch)
    if v is None or not v.local or v.is_devrelease or v.is_prerelease:
        return None
    tag = v.local.lower()
    release = Version(v.base_version)
    if release >= Version("2.7"):
        return True
    if not re.fullmatch(r"cu\d+|cpu", tag):
        return None
    if release >= Version("2.6"):
        return tag == "cu126"
    return False if release >= Version("1.0") else None


def gpu_runtime(label: str) -> tuple[str, int, int | None] | None:
    """``("cuda", 12, 1)`` for ``cu121``/``pt23cu121``, ``("cuda", 12, None)`` for flash-attn's
    ``cu12torch2.8``, ``("rocm", 6, 2)`` for ``rocm6.2``/``rocm62torch2.5``, ``("cpu", 0, None)``:
    the GPU runtime release a build label names.
    """
    m = _CUDA_LABEL.search(label)
    if m:
        digits = m.group(1)
        if len(digits) >= 3:  # cu121, cu102
            return "cuda", int(digits[:2]), int(digits[2:])
        if digits.startswith("1"):  # cu12 (a major only)
            return "cuda", int(digits), None
        return "cuda", int(digits[0]), int(digits[1:])  # cu92
    m = _ROCM_LABEL.search(label)
    if m:
        if m.group(1):
            return "rocm", int(m.group(1)), int(m.group(2)) if m.group(2) else None
        return "rocm", int(m.group(3)), int(m.group(4)) if m.group(4) else None
    return ("cpu", 0, None) if re.search(r"(?:^|[._])cpu(?:$|[._])", label) else None


def _runtime_mismatch(dist: str, v: Version, label: str, torch_label: str) -> BuiltFor | None:
    """An extension built for another major of torch's GPU runtime (``+cu118`` beside ``+cu121``).

    A library built against CUDA N links ``libcudart.so.N`` (CUDA's compatibility holds within a
    major only); one built against ROCm N links ``libamdhip64.so.N``, whose soname follows ROCm's
    major. torchvision before 0.16 also refuses another CUDA *minor* (its ``_check_cuda_version``
    compared both until pytorch/vision#7726), torchaudio releases before pytorch/audio#4226 (merged
    2026-09-02) likewise. Another vendor's build is ``built-for-other-vendor``'s; a torch without a
    label is not judged. A ``+cpu`` build beside a GPU torch has no GPU kernels (its operators fail on
    GPU tensors: a partial failure); a GPU build beside a ``+cpu`` torch links GPU libraries it lacks (its
    compiled part fails to load; torchvision loads it in a try/except, so a partial failure too).
    """
    built, torch = gpu_runtime(label), gpu_runtime(torch_label)
    if built is None or torch is None:
        return None
    if (built[0] == "cpu") != (torch[0] == "cpu"):
        return _cpu_gpu_mismatch(built[0], torch[0])
    if built[0] != torch[0] or built[0] == "cpu":
        return None
    if built[0] == "cuda" and built[1] == torch[1] and None not in (built[2], torch[2]) and built[2] != torch[2]:
        strict = _MINOR_STRICT.get(dist)
        if strict is not None and strict[0](v):
            return BuiltFor(
                f"CUDA {built[1]}.{built[2]}", strict[1], False,
                f"it refuses a torch built with another CUDA release (CUDA {torch[1]}.{torch[2]})",
            )  # fmt: skip
        return None
    if built[1] == torch[1]:
        return None
    if built[0] == "cuda":
        return BuiltFor(
            f"CUDA {built[1]}", _CUDA_SOURCE, False,
            f"its library links the CUDA {built[1]} runtime (libcudart.so.{built[1]}), which a CUDA {torch[1]} "
            "torch does not bring",
        )  # fmt: skip
    return BuiltFor(
        f"ROCm {built[1]}", _ROCM_SOURCE, False,
        f"its library links the ROCm {built[1]} HIP runtime (libamdhip64.so.{built[1]}), which a ROCm {torch[1]} "
        "torch does not bring",
    )  # fmt: skip


# torchvision's own texts when its compiled part did not load (io/image.py, extension.py)
_TORCHVISION_LOAD = r"Failed to load image Python extension|Couldn['’]t load custom C\+\+ ops"


def _unlabelled_companion(dist: str, v: Version, torch_label: str, system: str) -> BuiltFor | None:
    """PyPI's build of an unlabelled torchvision/torchaudio (:mod:`companion_defaults`) against a labelled torch."""
    default = pypi_default_label(dist, str(v), system)
    torch, built = gpu_runtime(torch_label), gpu_runtime(default or "")
    if default is None or torch is None or built is None:
        return None  # an unlabelled torch is PyPI's too: the same build
    shown = f"PyPI's {dist} {v} wheel, which the stack gives no build label"
    if torch[0] == "rocm":
        fact = BuiltFor(
            f"a CUDA {built[1]} torch ({shown})", BUILT_TOGETHER_SOURCE, False,
            f"its library links torch's CUDA libraries (libc10_cuda.so, libcudart.so.{built[1]}), which a ROCm "
            "torch does not have, so its compiled operators do not load",
            partial=True,
            predicts=f"{GPU_LIBS_MISSING}|{_TORCHVISION_LOAD}" if dist == "torchvision" else GPU_LIBS_MISSING,
        )  # fmt: skip
    else:
        mismatch = _runtime_mismatch(dist, v, default, torch_label)
        if mismatch is None:
            return None
        fact = replace(mismatch, wanted=f"{mismatch.wanted} ({shown})")
    return replace(fact, assumed=True)


def _cpu_gpu_mismatch(built: str, torch: str) -> BuiltFor:
    """A CPU-only build beside a GPU torch, or a GPU build beside a CPU-only torch."""
    if built == "cpu":
        runtime = "CUDA" if torch == "cuda" else "ROCm (HIP)"
        return BuiltFor(
            "the CPU only", _CPU_BUILD_SOURCE, False,
            f"its operators have no {runtime} kernels, so calling them on GPU tensors fails "
            "(\"Could not run 'NS::op' with arguments from the 'CUDA' backend\")",
            partial=True,
        )  # fmt: skip
    runtime = "CUDA" if built == "cuda" else "ROCm"
    return BuiltFor(
        f"a {runtime} torch", _CPU_BUILD_SOURCE, False,
        f"its library links torch's {runtime} libraries (libc10_cuda.so), which a CPU-only torch does not have",
        # torchvision loads its _C in a try/except: import and its Python parts still work, only its ops fail
        partial=True,
        predicts=GPU_LIBS_MISSING,
    )  # fmt: skip


def _released_before(name: str, day: str) -> Callable[[Version], bool]:
    def check(v: Version) -> bool:
        from pytest_rocmcompat.knowledge import declared_data

        release = declared_data.release(name, v)
        return release is not None and bool(release.date) and release.date < day

    return check


def _among(*releases: str) -> Callable[[Version], bool]:
    return lambda v: v.base_version in releases


# distribution -> (the releases that refuse another CUDA minor, source). PyG's torch-scatter 2.0.3-2.0.5
# and torch-sparse 0.6.0-0.6.8 compared major and minor at import (``+cu101``/``+cu110`` wheels);
# torch-scatter 2.0.6 and torch-sparse 0.6.9 on compare the major only (their __init__.py at each tag).
_MINOR_STRICT: dict[str, tuple[Callable[[Version], bool], str]] = {
    "torchvision": (lambda v: v < Version("0.16"), "https://github.com/pytorch/vision/pull/7726"),
    "torchaudio": (_released_before("torchaudio", "2026-09-02"), "https://github.com/pytorch/audio/pull/4226"),
    "torch-scatter": (
        _among("2.0.3", "2.0.4", "2.0.5"),
        "https://github.com/rusty1s/pytorch_scatter/blob/2.0.5/torch_scatter/__init__.py",
    ),
    "torch-sparse": (
        _among("0.6.0", "0.6.1", "0.6.3", "0.6.4", "0.6.5", "0.6.6", "0.6.7", "0.6.8"),
        "https://github.com/rusty1s/pytorch_sparse/blob/0.6.8/torch_sparse/__init__.py",
    ),
}


def _labelled_series(label: str) -> tuple[int, int] | None:
    m = _TORCH_LABEL.search(label)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = _PYG_LABEL.search(label)
    if m:
        return int(m.group(1)), int(m.group(2))
    return None


def _triple(v: Version) -> tuple[int, int, int]:
    major, minor, patch = ((*tuple(v.release), 0, 0, 0))[:3]
    return (major, minor, -1 if (v.is_devrelease or v.is_prerelease) else patch)


def _torchao(v: Version, t: Version) -> BuiltFor | None:
    ao, torch = _triple(v), _triple(t)
    if ao >= TORCHAO_MIN_FROM:
        ok = torch >= TORCHAO_MIN_TORCH
        return BuiltFor("torch >= 2.11.0", _TORCHAO_MIN, ok, "it skips its C++ extensions (their kernels are missing)")
    pairs = TORCHAO_BUILT_FOR.get(ao)
    if pairs is None:
        return None
    wanted = " or ".join(_shown(p) for p in pairs)
    consequence = (
        "importing it can abort the process"
        if ao < (0, 14, 0)
        else "it skips its C++ extensions (their kernels are missing)"
    )
    return BuiltFor(f"torch {wanted}", _TORCHAO, torch in pairs, consequence)


def _torchcodec(v: Version, t: Version) -> BuiltFor | None:
    """What torchcodec's compatibility table says of ``v`` beside torch ``t`` (by series; ``None``: not tabled)."""
    codec, torch = (v.major, v.minor), (t.major, t.minor)
    consequence = "libtorchcodec does not load (decoding and torchaudio's load fail)"
    if codec >= TORCHCODEC_MIN_FROM:
        wanted = f"torch >= {TORCHCODEC_MIN_TORCH[0]}.{TORCHCODEC_MIN_TORCH[1]}"
        source, ok = _TORCHCODEC_MIN, torch >= TORCHCODEC_MIN_TORCH
    elif codec in TORCHCODEC_BUILT_FOR:
        series = TORCHCODEC_BUILT_FOR[codec]
        wanted, source, ok = f"torch {series[0]}.{series[1]}", _TORCHCODEC, torch == series
    else:
        return None
    return BuiltFor(wanted, source, ok, consequence, predicts=TORCHCODEC_PREDICTS)


def _shown(p: tuple[int, int, int]) -> str:
    return f"{p[0]}.{p[1]} nightlies" if p[2] < 0 else f"{p[0]}.{p[1]}.{p[2]}"

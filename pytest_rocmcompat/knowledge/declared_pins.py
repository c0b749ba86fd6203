"""What a GPU-stack release declared, for stacks described without metadata.

``--rocm-set lib.vllm=0.6.3.post1`` says which vLLM is installed but not what it declares;
this answers from the generated data (:mod:`declared_data`: every release since 2020 of torch,
its domain libraries, vLLM, SGLang, xformers, bitsandbytes, DeepSpeed, flash-attn, the Hugging Face
libraries and the fine-tuning, RL and inference libraries on them, 77 packages, as PyPI's metadata
states it; the packages and the requirements kept are listed by ``tools/regenerate_declared.py``).
Installed metadata, when recorded, always wins
(``Environment.requires``, in the check). Extras and requirements without a version are left
out; markers are left on the text for the check to evaluate for the stack.

:func:`declared_requires` returns the requirements on torch; :func:`declared_requires_all`
every requirement, on torch and on the rest of the stack, with these policies:

1. **On torch**: vLLM's and SGLang's exactly as declared (pip's own conflict messages name
   them; SGLang pins torch exactly in its base requirements from 0.5.3rc0 on (``torch==2.8.0`` to 0.5.5), beside its
   exact ``sgl-kernel``, ``flashinfer_python`` and ``torchaudio`` pins, as vLLM pins its
   kernels' torch), every other package's exact pin (torchtext, torchdata, xformers, AutoAWQ's
   ``torch==2.3.1``) reduced to its series (``torch==2.5.1`` -> ``torch>=2.5,<2.6``): a
   domain library built for one patch loads with the others, so a patch mismatch is not
   reported. Where nothing is declared (a release published after the data was generated, or
   one whose wheel names no torch, as torchaudio 2.11.0's) the published pairing rules of
   torchvision and torchaudio answer, each sourced, and triton-windows' table of the torch minor
   each Triton minor works with (:data:`TRITON_WINDOWS`); every other package then says nothing.
   A torchvision/torchaudio nightly (``2.5.0.dev20240801``) answers from :mod:`nightly_pins` (the
   torch nightly it was built against: that series or the next, not after its day); a build from
   a checkout (``0.16.0a0+abc1234``) declares ``torch`` unpinned unless ``PYTORCH_VERSION`` was set
   (torchvision's and torchaudio's ``setup.py``), so it says nothing.
2. **torch's own pins** apply to a CUDA build of torch only (PyPI's torch metadata is the CUDA
   wheel's; a ``+rocm`` torch or a ROCm platform pulls ``pytorch-triton-rocm`` (``triton-rocm``
   from 2.10, at the version :mod:`torch_rocm_triton` tables for the official ``+rocm`` wheels) and no
   ``nvidia-*`` wheel, a ``+cpu`` torch neither):

   - ``triton`` / ``pytorch-triton`` / ``pytorch-triton-rocm``: exact, as declared. Inductor
     imports Triton internals that move between releases (``triton_key``, ``AttrsDescriptor``,
     ``CompiledKernel.launch_enter_hook``), so ``torch.compile`` breaks with another Triton.
     The Triton pin is the same for every CUDA build of one torch release (``+cu118`` ...).
     Eager torch never imports Triton, and a library's own Triton kernels build with any
     Triton, so the check lets this pair reach torch.compile tests only.
   - ``nvidia-*`` exact pins (``nvidia-nccl-cu12==2.21.5``): *same major, not older than the
     pin* (``>=2.21.5,<3``). Users upgrade NCCL or cuDNN on purpose (a fix, a newer GPU) and
     NVIDIA keeps them backward compatible within a major version; an *older* library lacks
     symbols the torch build links (``undefined symbol: ncclCommRegister``, ``ncclMemFree``).
     These pins are those of the default PyPI wheel only (untagged, or tagged with the CUDA
     runtime that wheel pins, :func:`derived_facts.pypi_default_build`): a ``+cu118`` or
     ``+cu121`` build from download.pytorch.org pins other releases.
3. **Between libraries** (peft -> transformers/accelerate, TRL -> transformers, vLLM ->
   xformers/transformers/torchvision, transformers -> tokenizers/huggingface-hub/safetensors,
   tokenizers -> huggingface-hub, sentence-transformers/diffusers/unsloth -> the Hugging Face
   libraries, SGLang -> transformers/xgrammar/flashinfer-python/sgl-kernel): as declared,
   ``nvidia-*`` exact pins read as in 2. Requirements gated on an extra are not in the data, except integration
   extras (``vllm>=0.10.2; extra == "vllm"``), which only ``checks/integration_extras.py`` reads.
   The check reports only requirements on packages present in the stack.

vLLM's, xformers' and SGLang's PyPI metadata is that of their CUDA builds: on ROCm they declare
nothing here (vLLM and xformers are built from source; SGLang's ROCm build reads
``python/pyproject_other.toml``, not the ``pyproject.toml`` PyPI's wheel was built from).
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.derived_facts import pypi_default_build
from pytest_rocmcompat.knowledge.nightly_pins import is_source_build, nightly_requirement
from pytest_rocmcompat.knowledge.torch_rocm_triton import rocm_triton_pin
from pytest_rocmcompat.stack.versions import coerce_version

# vLLM's and xformers' PyPI wheels are CUDA builds; on ROCm both are built from source. SGLang's
# PyPI metadata is its CUDA pyproject.toml's; ROCm builds use python/pyproject_other.toml (AMD's
# own wheel is amd-sglang): https://github.com/sgl-project/sglang/blob/main/3rdparty/amd/wheel/BUILDING_WHEELS.md
CUDA_WHEELS = ("vllm", "xformers", "sglang")
# declared exact pins on torch kept as they are: vLLM's, and SGLang's (``torch==2.8.0`` in the base
# requirements of 0.5.3rc0 .. 0.5.5, https://pypi.org/project/sglang/0.5.5/, as vLLM's)
EXACT = ("vllm", "sglang")
TRITON = ("triton", "pytorch-triton", "pytorch-triton-rocm", "triton-rocm")  # torch's own pins kept exact
# Policy 2's reasons: cuDNN minor releases are binary backward compatible within a major version;
# NCCL keeps one soname per major version (libnccl.so.2) and adds symbols in minor releases
NVIDIA_COMPAT = "https://docs.nvidia.com/deeplearning/cudnn/latest/developer/forward-compatibility.html"
# Hand-written rules, only where nothing is declared:
_TORCHVISION = "https://github.com/pytorch/vision#installation"  # torchvision 0.N pairs torch 2.(N-15)
_TORCHAUDIO = "https://pytorch.org/audio/main/installation.html#compatibility-matrix"  # torchaudio 2.N: torch 2.N
# a build from a checkout pins torch only when PYTORCH_VERSION is set: torch==$PYTORCH_VERSION, else "torch"
# (https://github.com/pytorch/vision/blob/main/setup.py get_requirements, https://github.com/pytorch/audio/blob/main/setup.py)
_DOMAIN = ("torchvision", "torchaudio")
# triton-windows (the Windows fork on PyPI; torch's own triton pin is Linux-only) states which torch minor
# each Triton minor is "only guaranteed to work with": 2.4 and 2.5 -> 3.1, 2.6 -> 3.2, ... 2.10 -> 3.6
# (README, "3. PyTorch"). Triton 3.2 "you can try ... with PyTorch >= 2.7", so its row has no upper bound.
TRITON_WINDOWS_SOURCE = (
    "https://github.com/woct0rdho/triton-windows/blob/66361c03af0b1e1c18f8ee2f7050a23911c949f8/README.md"
)
TRITON_WINDOWS: dict[tuple[int, int], str] = {
    (3, 1): "torch>=2.4,<2.6",
    (3, 2): "torch>=2.6",
    (3, 3): "torch>=2.7,<2.8",
    (3, 4): "torch>=2.8,<2.9",
    (3, 5): "torch>=2.9,<2.10",
    (3, 6): "torch>=2.10,<2.11",
}


def declared_requires(dist: str, version: str | None, *, cuda_build: bool = True) -> tuple[tuple[str, ...], str] | None:
    """(requirement strings on torch, source) of ``dist`` at ``version``, or ``None`` when none is known.

    With ``cuda_build=False`` (a ROCm torch) vLLM, xformers and SGLang declare nothing here:
    their PyPI pins are those of the CUDA builds.
    """
    v = coerce_version(version)
    if v is None or (dist in CUDA_WHEELS and not cuda_build):
        return None
    nightly = nightly_requirement(dist, version)
    if nightly is not None or (dist in _DOMAIN and is_source_build(version)):
        return nightly  # PyPI has neither; a checkout's build pins no torch
    release = declared_data.release(dist, v)
    pins = tuple(_shown(dist, r) for r in _torch_requirements(release)) if release is not None else ()
    if release is not None and pins:
        return pins, release.source
    if dist == "torchvision" and v.major == 0 and v.minor >= 15:
        return (_series(2, v.minor - 15),), _TORCHVISION
    if dist == "torchaudio" and v.major == 2:
        return (_series(2, v.minor),), _TORCHAUDIO
    if dist == "triton-windows" and (v.major, v.minor) in TRITON_WINDOWS:
        return (TRITON_WINDOWS[v.major, v.minor],), TRITON_WINDOWS_SOURCE
    return None


def declared_requires_all(dist: str, version: str | None, *, cuda_build: bool = True) -> tuple[tuple[str, str], ...]:
    """``(requirement, source)`` of every versioned requirement ``dist`` at ``version`` declared.

    The policies of the module docstring applied: on torch as :func:`declared_requires`;
    torch's own Triton and ``nvidia-*`` pins for a CUDA build only; the rest as declared, an
    exact ``nvidia-*`` pin read as "same major, not older". Empty when nothing is known.
    """
    v = coerce_version(version)
    if v is None or (dist in CUDA_WHEELS and not cuda_build):
        return ()
    on_torch = declared_requires(dist, version, cuda_build=cuda_build)
    found = [(text, on_torch[1]) for text in on_torch[0]] if on_torch is not None else []
    if canonicalize_name(dist) == "torch":
        rocm_triton = rocm_triton_pin(str(version))  # an official +rocm wheel's own Triton pin
        if rocm_triton is not None:
            found.append(rocm_triton)
    release = declared_data.release(dist, v)
    if release is None:
        return tuple(found)
    torch_build = _torch_build(v.local, release.version) if canonicalize_name(dist) == "torch" else None
    for req in _requirements(release):
        name = canonicalize_name(req.name)
        if name == "torch":
            continue  # answered above
        if torch_build is not None and not _applies_to_build(name, torch_build, cuda_build):
            continue
        found.append((_nvidia_policy(req) if name.startswith("nvidia-") else str(req), release.source))
    return tuple(found)


def _torch_build(local: str | None, public: str) -> str:
    """``"default"`` (the PyPI wheel: untagged, or tagged ``+cu124`` as its runtime), ``"cuda"`` (another
    CUDA build, ``+cu118``), else ``"other"`` (``+cpu``, ``+rocm6.2``, ``+xpu``).
    """
    if not local:
        return "default"
    default = pypi_default_build(public)
    if default is not None and default[0] == local:
        return "default"
    return "cuda" if local.startswith("cu") else "other"


def _applies_to_build(name: str, build: str, cuda_build: bool) -> bool:
    """Whether torch's own pin on ``name`` holds for the torch build in hand (policy 2)."""
    if not cuda_build or build == "other":
        return False  # a ROCm or CPU torch pulls none of the CUDA wheel's pins
    if name.startswith("nvidia-"):
        return build == "default"  # +cu118/+cu121 wheels pin other nvidia-* releases
    return True  # Triton: one pin per torch release, whatever its CUDA


def _requirements(release: declared_data.Release) -> list[Requirement]:
    """The release's versioned requirements, not gated on an extra."""
    found = []
    for text in release.requires or ():
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if not req.specifier or (req.marker is not None and "extra" in str(req.marker)):
            continue
        found.append(req)
    return found


def _torch_requirements(release: declared_data.Release) -> list[Requirement]:
    """The release's versioned requirements on torch, not gated on an extra."""
    return [req for req in _requirements(release) if canonicalize_name(req.name) == "torch"]


def _nvidia_policy(req: Requirement) -> str:
    """``nvidia-nccl-cu12==2.21.5`` -> ``nvidia-nccl-cu12>=2.21.5,<3`` (same major, not older); others as declared."""
    specs = list(req.specifier)
    pinned = coerce_version(specs[0].version) if len(specs) == 1 and specs[0].operator == "==" else None
    if pinned is None or "*" in specs[0].version:
        return str(req)
    marker = f"; {req.marker}" if req.marker is not None else ""
    return f"{req.name}>={specs[0].version},<{pinned.major + 1}{marker}"


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

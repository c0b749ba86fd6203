"""``requirement-not-met:<companion>``: a compiled companion of torch left unnamed beside a named torch.

torchvision, torchaudio, xFormers' and vLLM's PyPI wheels are built against one torch release and declare it
exactly (torchvision 0.20.1: ``torch==2.5.1``, xformers 0.0.23.post1: ``torch==2.1.2``, vllm 0.5.0:
``torch==2.3.0``, read in the generated ``declared_data``); another release's compiled operators do not load beside it ("operator
torchvision::nms does not exist", a CUDA-version check, xFormers' "can't load C++/CUDA extensions", an
undefined symbol in its library). A stated stack that names torch but not the companion does not say which release
is installed (pip upgrading torch alone, an image's companion kept, a wheel from another index), so a test
that uses the companion is at a risk (*uncertain*, conditional) that only the companion's own load-failure
messages confirm (``signature_only``): whatever its release, they mean that its compiled part does not fit
the torch loaded. Only for a stated stack (``registry.evaluate_risks``); a torch release no companion
release declares (a source or nightly build, or one newer than the data) is not judged.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

# Each companion's messages for a compiled part that does not fit the torch loaded, beyond its own
# (requirements.OWN_MESSAGES); verbatim in tests/knowledge/test_companion_unnamed.py: torchvision's
# operators missing after its _C failed to load (torch/_ops.py, torch/library.py), torchvision's
# extension.py refusal, its CUDA check, an undefined torch symbol in a companion's library.
# A torch symbol (namespace torch, c10 or at, as the Itanium ABI mangles them) missing from a companion's library:
# built against another torch. A missing symbol of the companion's own code is a build problem, not claimed.
_TORCH_SYMBOL = r"\.so: undefined symbol: _ZNK?(?:5torch|3c10|2at)\d"
LOAD_FAILURES: dict[str, str] = {
    "torchvision": r"operator torchvision::\w+ does not exist|No such operator torchvision::\w+"
    r"|Couldn't load custom C\+\+ ops"
    r"|Detected that PyTorch and torchvision were compiled with different CUDA (?:major )?versions"
    r"|[\\/]torchvision[\\/][\w.-]+" + _TORCH_SYMBOL + r"|" + requirements.TORCHVISION_META_FRAME,
    "torchaudio": r"Detected that PyTorch and TorchAudio were compiled with different CUDA (?:major )?versions"
    r"|[\\/]torchaudio[\\/](?:lib[\\/])?[\w.-]+" + _TORCH_SYMBOL,
    # xformers/_cpp_lib.py's warning when its _C does not load (it then names the torch it was built for)
    "xformers": r"xFormers can't load C\+\+/CUDA extensions|[\\/]xformers[\\/][\w.-]+" + _TORCH_SYMBOL,
    # vLLM's _C (pinned to one torch release): "Failed to import from vllm._C with ImportError('.../vllm/_C.abi3.so:
    # undefined symbol: ...')" alone is not claimed (vLLM prints it on platforms without _C too)
    "vllm": r"[\\/]vllm[\\/][\w.-]+" + _TORCH_SYMBOL,
}
COMPANIONS = tuple(LOAD_FAILURES)
# Companions whose pinned wheels are CUDA builds only: on ROCm vLLM is built from source (or comes in AMD's
# images), so PyPI's pairing says nothing there
PYPI_CUDA_ONLY = ("vllm",)


def unnamed(env: Environment) -> list[Finding]:
    """One risk per companion the stack does not name, beside the torch release it does."""
    release = _torch_release(env)
    if release is None:
        return []
    found = []
    for dist in COMPANIONS:
        if dist in env.libraries or (dist in PYPI_CUDA_ONLY and requirements.rocm_build(env)):
            continue
        paired = declared_data.pinned_to_torch(dist, release)
        if not paired:
            continue
        shown = ", ".join(str(v) for v in paired)
        rel = declared_data.release(dist, paired[-1])
        found.append(
            Finding(
                check=f"{requirements.ID}:{dist}",
                reason=f"{dist} is not named: only {dist} {shown} {'is' if len(paired) == 1 else 'are'} built for "
                f"torch {release} (declaring torch=={release}); another release's compiled operators do not load "
                f"beside torch {env.torch}",
                fix=f"install {dist}=={paired[-1]} from the index torch {env.torch} came from, or state its version",
                link=rel.source if rel is not None else f"https://pypi.org/project/{dist}/",
                uses=(dist,),
                conditional=True,
                uncertain=True,
                predicts="|".join(filter(None, (LOAD_FAILURES[dist], requirements.OWN_MESSAGES.get(dist, "")))),
                signature_only=True,
            )
        )
    return found


def _torch_release(env: Environment) -> Version | None:
    """The stack's torch as a release (``2.5.1+rocm6.2`` -> ``2.5.1``); ``None`` for a dev, pre or unparsable one."""
    version = env.torch_version
    if version is None or version.is_devrelease or version.is_prerelease:
        return None
    return Version(version.public)

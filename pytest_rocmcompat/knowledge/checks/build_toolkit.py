"""``extension-build-toolkit-mismatch``: a GPU extension is compiled with another CUDA toolkit than torch's.

Code that compiles CUDA extensions against the installed torch at build or run time (DeepSpeed's
JIT ops, ``torch.utils.cpp_extension`` and the apex / flash-attn / xformers source builds through
it) compares the ``nvcc`` it finds (``CUDA_HOME``) with ``torch.version.cuda`` and refuses another
release:

* **torch** (``_check_cuda_version``, 1.10.0 to 2.9.0 read in the wheels): a RuntimeError when
  the majors differ, only a warning on a minor difference. Before 2.2 it compared
  ``getattr(v, "major", nan)``, so where setuptools' ``packaging`` has no ``major`` (older than
  49.6) a minor difference raises too: a risk on torch 1.10-2.1.
* **DeepSpeed** (``op_builder/builder.py`` ``assert_no_cuda_mismatch``, 0.9.0 to 0.19.8 read in
  the sdists): raises unless ``major.minor`` are equal or both are in ``cuda_minor_mismatch_ok``
  of the nvcc's major (its per-release table below); ``DS_SKIP_CUDA_CHECK=1`` (from 0.9.3) turns
  it into a warning, but torch's own check still raises on another major (DeepSpeed#3436).
* **apex** (``setup.py`` ``check_cuda_torch_binary_vs_bare_metal`` with ``--cuda_ext``, tags 22.03 to
  25.09): raises on any ``major.minor`` difference, a minor one included.

None of them checks ROCm: DeepSpeed skips ``assert_no_cuda_mismatch`` when torch is a ROCm build,
torch's ``cpp_extension`` compares no HIP/ROCm release and NVIDIA apex's ``setup.py`` (25.09) has no
ROCm branch, so a ROCm stack is not judged here.

Which CUDA is the system toolkit: a probe records ``cuda`` as ``torch.version.cuda`` (the driver's
CUDA only without a CUDA torch), so ``cuda`` says nothing about ``nvcc`` there. Only a stated
``cuda=`` (``--rocm-set``) that differs from torch's own ``+cuXYZ`` tag is taken as the toolkit (a
tag ``derived_facts`` adds to an untagged torch is a guess, not a stated build: never judged); a
replay that restates ``torch=`` but not ``cuda=`` keeps the recorded torch's CUDA, which is no
toolkit either.

A stated CUDA stack that names no such toolkit (:func:`unstated`: no ``cuda=``, or one beside a torch whose
build tag does not show its CUDA; a ``cuda=`` equal to the tag says they match) does not say which ``nvcc`` a test will
build with: a risk (uncertain, conditional) for the tests of :data:`BUILDERS`, confirmed only by these
checks' own refusals, which state the mismatch themselves (never listed as a problem of the stack:
``registry.evaluate_risks``).
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding, own_message_risk
from pytest_rocmcompat.knowledge.derived_facts import cuda_stack, torch_tag_derived
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import stated_keys
from pytest_rocmcompat.stack.versions import coerce_version

ID = "extension-build-toolkit-mismatch"
# torch's RuntimeError (formatted up to 2.7; from 2.8 raised with its %s arguments unformatted,
# "compile" and "PyTorch" joined) and DeepSpeed's exception; never the warnings that share their
# first words (torch's "has a minor version mismatch", DeepSpeed's "accepting this combination" and
# its DS_SKIP_CUDA_CHECK warning, which end differently)
PREDICTS = (
    r"The detected CUDA version \((?:\d+\.\d+|%s)\) mismatches the version that was used to compile\s*PyTorch"
    # (its tail is cut in logs that wrap: "... compiled with 11.8, unable to",
    # https://github.com/deepspeedai/DeepSpeedExamples/issues/370; the DS_SKIP_CUDA_CHECK warning, "... with 11.8.Detected",
    # is no failure)
    r"|DeepSpeed Op Builder: Installed CUDA version \d+\.\d+ does not match the version torch was compiled with "
    r"[\d.]+, unable to\b"
    r"|Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile "
    r"Pytorch binaries"
)
TORCH_SOURCE = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/utils/cpp_extension.py"
DEEPSPEED_SOURCE = "https://github.com/deepspeedai/DeepSpeed/blob/v0.18.0/op_builder/builder.py"
SKIP_SOURCE = "https://github.com/deepspeedai/DeepSpeed/pull/3436"
APEX_SOURCE = "https://github.com/NVIDIA/apex/blob/25.09/setup.py"
# the packages whose tests may build torch extensions with the system nvcc (through cpp_extension)
BUILDERS: tuple[str, ...] = ("deepspeed", "apex", "flash-attn", "xformers", "cpp_extension")
TORCH_FIRST = Version("1.10.0")  # the oldest torch whose check was read (1.10.0 ... 2.9.0)
TORCH_MAJOR_ATTR = Version("2.2.0")  # from here Version.major always exists: minor differences only warn
DS_FIRST = Version("0.9.0")  # the oldest DeepSpeed read (0.9.0 ... 0.19.8)
DS_NEWEST = Version("0.19.8")
DS_SKIP_FROM = Version("0.9.3")  # DS_SKIP_CUDA_CHECK: absent in 0.9.2, present in 0.9.3
_CUDA_11 = tuple(f"11.{m}" for m in range(9))
# DeepSpeed release -> cuda_minor_mismatch_ok[12] from it on (10.0-10.2 and 11.0-11.8 in every release read)
DS_CUDA12_OK: tuple[tuple[Version, tuple[str, ...]], ...] = (
    (Version("0.12.3"), ("12.0", "12.1", "12.2", "12.3")),
    (Version("0.14.3"), ("12.0", "12.1", "12.2", "12.3", "12.4", "12.5")),
    (Version("0.15.3"), ("12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6")),
    (Version("0.16.4"), ("12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8")),
    (Version("0.17.2"), ("12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9")),
)


@dataclass(frozen=True)
class Toolkits:
    """The stated system toolkit (nvcc) and the CUDA torch was built with, as ``major.minor``."""

    system: Version
    torch: Version


def toolkits(env: Environment) -> Toolkits | None:
    """Both sides when the stack states them and they differ; ``None`` otherwise (see the module doc)."""
    tagged = _tag_cuda(env)
    stated = coerce_version(env.cuda) if "cuda" in stated_keys(env) else None
    if tagged is None or stated is None:
        return None
    system = Version(f"{stated.major}.{stated.minor}")
    return Toolkits(system, tagged) if system != tagged else None


def torch_refuses(torch: Version, kits: Toolkits) -> bool | None:
    """What ``torch.utils.cpp_extension._check_cuda_version`` does: True raises, None a risk (pre-2.2, old setuptools), False a warning."""
    if torch < TORCH_FIRST:
        return False  # not read: not judged
    if kits.system.major != kits.torch.major:
        return True
    return None if torch < TORCH_MAJOR_ATTR else False


def deepspeed_refuses(release: Version, kits: Toolkits, variables: dict[str, str]) -> bool:
    """DeepSpeed's ``assert_no_cuda_mismatch`` at ``release`` raises for these toolkits."""
    if release < DS_FIRST:
        return False  # not read: not judged
    if release >= DS_SKIP_FROM and variables.get("DS_SKIP_CUDA_CHECK", "0") == "1":
        return False
    if kits.system.major != kits.torch.major:
        return True  # cuda_minor_mismatch_ok is read per major: another major always raises
    if release > DS_NEWEST:
        return False  # a newer table may accept this pair: not judged
    accepted = _accepted(release).get(kits.system.major, ())
    return not (str(kits.system) in accepted and str(kits.torch) in accepted)


def check(env: Environment) -> list[Finding]:
    kits = toolkits(env)
    torch = coerce_version(env.torch)
    if kits is None or torch is None:
        return []
    found = []
    ds = coerce_version(env.libraries.get("deepspeed"))
    if ds is not None and deepspeed_refuses(ds, kits, env.env):
        found.append(_deepspeed(env, kits))
    refuses = torch_refuses(torch, kits)
    if refuses is not False:
        found.append(_torch(env, kits, certain=refuses is True))
    if refuses is not True:  # another major: torch's finding already reaches apex's tests
        found.append(_apex(env, kits))
    return found


def unstated(env: Environment) -> list[Finding]:
    """The risk of a stated CUDA stack that names no system toolkit apart from torch's CUDA (see the module doc)."""
    if not cuda_stack(env) or toolkits(env) is not None or (env.torch_local or "").startswith(("rocm", "cpu")):
        return []
    if "cuda" in stated_keys(env) and _tag_cuda(env) is not None:
        return []  # a stated toolkit equal to torch's +cuXYZ: the stack says they match
    built = f"torch {env.torch}" if env.torch else f"the stack's torch (CUDA {env.cuda})" if env.cuda else "torch"
    return [
        own_message_risk(
            f"{ID}:unstated",
            f"the stack does not name the CUDA toolkit (nvcc of CUDA_HOME) that extensions are built with; "
            f"torch.utils.cpp_extension, DeepSpeed's op builder and apex refuse one that does not match {built}",
            "state the toolkit (nvcc --version) to settle it; point CUDA_HOME at the CUDA release torch was built with",
            TORCH_SOURCE,
            PREDICTS,
            uses=BUILDERS,
        )
    ]


def _deepspeed(env: Environment, kits: Toolkits) -> Finding:
    return Finding(
        check=ID,
        reason=f"DeepSpeed {env.libraries['deepspeed']} compiles its ops with the system CUDA {kits.system} "
        f"(nvcc of CUDA_HOME), but torch {env.torch} is built with CUDA {kits.torch}: its op builder refuses "
        "the pair (assert_no_cuda_mismatch)",
        fix=f"point CUDA_HOME at a CUDA {kits.torch} toolkit, or install the torch build for CUDA {kits.system}; "
        "DS_SKIP_CUDA_CHECK=1 only lifts DeepSpeed's own check",
        link=DEEPSPEED_SOURCE,
        uses=("deepspeed",),
        conditional=True,  # only tests that build or JIT-load DeepSpeed ops meet it
        uncertain=True,  # a prebuilt op or a test that loads none passes: a pass stands
    )


def _torch(env: Environment, kits: Toolkits, *, certain: bool) -> Finding:
    why = (
        "another major: torch.utils.cpp_extension refuses to build"
        if certain
        else "a minor difference: torch before 2.2 refuses it where setuptools is older than 49.6"
    )
    return Finding(
        check=ID,
        reason=f"extensions built against torch {env.torch} (CUDA {kits.torch}) with the system CUDA "
        f"{kits.system} (nvcc of CUDA_HOME): {why}",
        fix=f"point CUDA_HOME at a CUDA {kits.torch.major}.x toolkit, or install the torch build for CUDA "
        f"{kits.system}",
        link=TORCH_SOURCE,
        uses=BUILDERS,
        conditional=True,  # only tests that compile an extension meet it
        uncertain=True,  # installed wheels need no nvcc: a pass stands
    )


def _apex(env: Environment, kits: Toolkits) -> Finding:
    return Finding(
        check=ID,
        reason=f"apex's --cuda_ext build with the system CUDA {kits.system} (nvcc of CUDA_HOME) beside torch "
        f"{env.torch} (CUDA {kits.torch}): apex's setup.py refuses any major.minor difference",
        fix=f"point CUDA_HOME at a CUDA {kits.torch} toolkit before building apex",
        link=APEX_SOURCE,
        uses=("apex",),
        conditional=True,  # only a test that builds apex meets it
        uncertain=True,  # an apex built before the run needs no nvcc: a pass stands
    )


def _tag_cuda(env: Environment) -> Version | None:
    """The CUDA of torch's ``+cuXYZ`` tag as ``major.minor`` (no tag, or one derived_facts added: not judged)."""
    local = env.torch_local
    if not local or not local.startswith("cu") or torch_tag_derived(env):
        return None
    tagged = env.torch_cuda
    return Version(f"{tagged.major}.{tagged.minor}") if tagged is not None else None


def _accepted(release: Version) -> dict[int, tuple[str, ...]]:
    """DeepSpeed's ``cuda_minor_mismatch_ok`` at ``release``."""
    table: dict[int, tuple[str, ...]] = {10: ("10.0", "10.1", "10.2"), 11: _CUDA_11}
    for first, versions in DS_CUDA12_OK:
        if release >= first:
            table[12] = versions
    return table

"""``bitsandbytes-cuda-build``: the bitsandbytes wheel lacks the CUDA library its loader picks.

bitsandbytes ships one native library per CUDA release (``libbitsandbytes_cuda118.so``, and up
to 0.44 ``libbitsandbytes_cuda118_nocublaslt.so`` for GPUs below compute capability 7.5) and at
import loads the one named by torch's CUDA version; when that file is not in the wheel, no GPU
function works. Which libraries each release carries is read from its Linux x86_64 wheel
(``native`` in ``data/declared.json``); how the loader names the file, per release range, from
its source at the tag (:data:`LOADERS`):

- the CUDA version is ``torch.version.cuda`` (``major`` and ``minor`` joined: 12.4 -> ``124``)
  from 0.40.2; from 0.37.0 to 0.40.0.post4 it was the ``libcudart`` found on the library path
  (``get_cuda_version``: its ``cudaRuntimeGetVersion``, no override), judged only by a stated ``cuda``
  (the toolkit on that path) and as a risk (*uncertain*: a conda or other ``libcudart`` may come
  first); 0.40.1 is not judged (its override read the ``CUDA_VERSION`` variable that NVIDIA's images set);
- ``_nocublaslt`` is added when the highest compute capability of the GPUs is below 7.5, up to 0.44;
- a non-empty ``BNB_CUDA_VERSION`` replaces the version (each range's own string rule, below);
- from 0.50.0 a missing version falls back to the nearest library of the same CUDA major (the
  highest below, else the lowest above); no cross-major fallback.

Releases after the last tag read (:data:`LAST_READ`) are not judged: their rule is not sourced.

A stated CUDA stack that names no bitsandbytes release (:func:`unnamed`) leaves the wheel open: where some
judged release carries no library the loader would pick for torch's CUDA (or ``BNB_CUDA_VERSION``) on
the stated GPUs, that is a risk (*uncertain*) for the tests that ``uses("bitsandbytes")``, claiming only
bitsandbytes' own loader texts (:data:`PREDICTS`); another failure stays a failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import cuda_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.derived_facts import pypi_default_build
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import stated_keys
from pytest_rocmcompat.stack.versions import build_tag_version, coerce_version, optional_version

ID = "bitsandbytes-cuda-build"
REPO = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/{ref}/bitsandbytes/{path}"
_NUMBERED = re.compile(r"^libbitsandbytes_cuda(\d\d)(\d+)\.so$")
_ANY_CUDA = re.compile(r"^libbitsandbytes_cuda(\d\d)(\d+)(?:_nocublaslt)?\.so$")


def _slice(name: str, value: str) -> str:
    """0.40.2-0.42: ``self.binary_name[:-6] + f'{BNB_CUDA_VERSION}.so'``."""
    return name[:-6] + f"{value}.so"


def _rstrip(name: str, value: str) -> str:
    """0.43.0-0.43.3: the stem's trailing digits replaced (``rstrip("0123456789")``)."""
    stem, _, ext = name.rpartition(".")
    return f"{stem.rstrip('0123456789')}{value}.{ext}"


def _sub(name: str, value: str) -> str:
    """0.44.0-0.49: ``re.sub(r"cuda\\d+", f"cuda{BNB_CUDA_VERSION}", name, count=1)``."""
    return re.sub(r"cuda\d+", f"cuda{value}", name, count=1)


def _exact(name: str, value: str) -> str:
    """0.50: ``libbitsandbytes_cuda{BNB_CUDA_VERSION}.so``, no fallback."""
    return f"libbitsandbytes_cuda{value}.so"


@dataclass(frozen=True)
class Loader:
    """How one release range names the CUDA library it loads."""

    first: Version
    ref: str  # tag (or the version-bump commit of an untagged release) whose source is cited
    path: str
    nocublaslt: bool
    override: Callable[[str, str], str]
    nearest: bool = False  # 0.50: the nearest library of the same CUDA major when the exact one is missing
    until: Version | None = None  # the first release this rule no longer describes (when not the next loader's)
    from_path: bool = False  # 0.37-0.40.0: the libcudart on the library path names the CUDA version, no override

    @property
    def link(self) -> str:
        return REPO.format(ref=self.ref, path=self.path)


# first release of each rule, newest first. 0.40.2 is untagged: f3232d13 is its version bump.
LOADERS: tuple[Loader, ...] = (
    Loader(Version("0.50.0"), "0.50.0", "cextension.py", False, _exact, nearest=True),
    Loader(Version("0.45.0"), "0.45.0", "cextension.py", False, _sub),
    Loader(Version("0.44.0"), "0.44.0", "cextension.py", True, _sub),
    Loader(Version("0.43.1"), "0.43.1", "cextension.py", True, _rstrip),
    Loader(Version("0.43.0"), "0.43.0", "cuda_setup/main.py", True, _rstrip),
    Loader(Version("0.41.0"), "0.41.0", "cuda_setup/main.py", True, _slice),
    Loader(Version("0.40.2"), "f3232d139164be384405d0cb788113ebb7d57cc2", "cuda_setup/main.py", True, _slice),
    Loader(Version("0.37.0"), "0.37.0", "cuda_setup/main.py", True, _slice, until=Version("0.40.1"), from_path=True),
)
LAST_READ = Version("0.50.1")  # the newest tag whose loader was read

# What bitsandbytes prints when the library is not in the wheel, and what a CPU library loaded in
# its place (or none) raises; each verbatim in cuda_setup/main.py or cextension.py at the tags of
# LOADERS (0.50.0: f"No compatible {BNB_BACKEND} binary found at ...", hence ``\S+``).
PREDICTS = (
    r"CUDA SETUP: Required library version not found: libbitsandbytes_cuda\d+"
    r"|CUDA SETUP: Setup Failed!|CUDA Setup failed despite (?:GPU|CUDA) being available"
    r"|Could not find the bitsandbytes CUDA binary at|Configured CUDA binary not found at"
    r"|No compatible \S+ binary found at|bitsandbytes library load error"
    r"|bitsandbytes native library functionality but it's not available"
    r"|compiled without GPU support|cadam32bit_grad_fp32"
    r"|'NoneType' object has no attribute 'c\w+'"
)


def check(env: Environment) -> list[Finding]:
    listed = env.libraries.get("bitsandbytes")
    release = declared_data.release("bitsandbytes", listed)
    version = optional_version(listed)
    if release is None or not release.native or version is None or version.local:
        return []
    judged = _judge(env, version, release.native, env.env.get("BNB_CUDA_VERSION", ""))
    if judged is None:
        return []
    loader, cuda, picked = judged
    return [
        Finding(
            check=ID,
            reason=f"bitsandbytes {listed} has no {' or '.join(picked)} for {_whose(loader)} CUDA "
            f"{cuda.major}.{cuda.minor} (its wheel's CUDA libraries: {_shipped(release.native)})",
            fix="install a bitsandbytes release whose wheel carries a library for this CUDA version, "
            "or set BNB_CUDA_VERSION to one it carries (with that CUDA runtime on the library path)",
            link=loader.link,
            uses=("bitsandbytes",),
            uncertain=loader.from_path,  # a conda or other libcudart may come first on the path
        )
    ]


def unnamed(env: Environment) -> list[Finding]:
    """The risk of a stated CUDA stack naming no bitsandbytes: releases whose wheel lacks the library it loads."""
    if "bitsandbytes" in env.libraries:
        return []
    override = env.env.get("BNB_CUDA_VERSION", "")
    missing: list[tuple[Version, Loader, Version, list[str]]] = []
    for version in declared_data.versions("bitsandbytes"):
        release = declared_data.release("bitsandbytes", version)
        if release is None or not release.native or version.is_prerelease:
            continue
        judged = _judge(env, version, release.native, override)
        if judged is not None:
            missing.append((version, *judged))
    if not missing:
        return []
    newest, loader, cuda, picked = missing[-1]
    wanted = (
        f"BNB_CUDA_VERSION={override}"
        if override and not loader.from_path
        else f"{_whose(loader)} CUDA {cuda.major}.{cuda.minor}"
    )
    return [
        Finding(
            check=f"{ID}:unnamed",
            reason=f"bitsandbytes is not named, and bitsandbytes {_runs([m[0] for m in missing])} carry no "
            f"{' or '.join(picked)} for {wanted} (the library its loader picks)",
            fix="state the bitsandbytes release, and install one whose wheel carries a library for this CUDA version"
            + (f" (releases after {newest} do)" if newest != _judged_releases()[-1] else " (or build it from source)"),
            link=loader.link,
            uses=("bitsandbytes",),
            conditional=True,
            uncertain=True,
            predicts=PREDICTS,
            signature_only=True,
        )
    ]


def _judge(
    env: Environment, version: Version, native: tuple[str, ...], override: str
) -> tuple[Loader, Version, list[str]] | None:
    """For a release ``version`` carrying ``native``: its loader, the CUDA it names the library by, and the
    names it may pick when the wheel has none of them; ``None`` when it has one or the release is not judged.
    """
    loader = next((lo for lo in LOADERS if version >= lo.first), None)
    if loader is None or version > LAST_READ or (loader.until is not None and version >= loader.until):
        return None
    if loader.from_path:
        stated = env.cuda and env.platform == "cuda" and "cuda" in stated_keys(env)  # not torch's own runtime
        cuda = coerce_version(env.cuda) if stated else None
        override = ""  # these releases read no variable
    else:
        cuda = _torch_cuda(env) or _override_cuda(env, override)
    if cuda is None:
        return None
    picked = _picked(loader, cuda, _highest_capability(env.archs), override, native)
    return (loader, cuda, picked) if picked else None


def _whose(loader: Loader) -> str:
    return "the library path's" if loader.from_path else "torch's"


def _override_cuda(env: Environment, override: str) -> Version | None:
    """A CUDA stack's ``BNB_CUDA_VERSION=124`` read as CUDA 12.4 where nothing else says which CUDA torch has."""
    if env.platform != "cuda" or env.torch_rocm is not None or not re.fullmatch(r"\d{3}", override):
        return None
    return Version(f"{override[:2]}.{override[2:]}")


def _judged_releases() -> list[Version]:
    """The releases some loader of :data:`LOADERS` describes, oldest first."""
    return [
        v for v in declared_data.versions("bitsandbytes") if LOADERS[-1].first <= v <= LAST_READ and not v.is_prerelease
    ]


def _runs(versions: list[Version]) -> str:
    """Consecutive judged releases joined: ``0.40.2-0.43.0, 0.45.0``."""
    judged = _judged_releases()
    runs: list[list[Version]] = []
    for v in versions:
        if runs and judged.index(v) == judged.index(runs[-1][-1]) + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(str(r[0]) + (f"-{r[-1]}" if len(r) > 1 else "") for r in runs)


def _picked(
    loader: Loader, cuda: Version, capability: tuple[int, int] | None, override: str, native: tuple[str, ...]
) -> list[str]:
    """The library names the loader may pick, when the wheel has none of them; ``[]`` when it has one.

    With the GPUs' capability unknown, a ``_nocublaslt`` loader may pick either variant.
    """
    if loader.nearest and override and not override.isdigit():
        return []  # 0.50 raises on a non-numeric override: another failure, not a missing library
    base = f"libbitsandbytes_cuda{cuda.major}{cuda.minor}"
    if not loader.nocublaslt or (capability is not None and capability >= (7, 5)):
        stems = [base]
    elif capability is not None:
        stems = [f"{base}_nocublaslt"]
    else:
        stems = [base, f"{base}_nocublaslt"]
    names = [f"{stem}.so" for stem in stems]
    if override:
        names = [loader.override(n, override) for n in names]
    elif loader.nearest and _same_major(cuda, native):
        return []
    return [] if any(n in native for n in names) else names


def _same_major(cuda: Version, native: tuple[str, ...]) -> bool:
    """0.50's fallback: the wheel carries a library of the same CUDA major."""
    return any((m := _NUMBERED.match(n)) is not None and int(m.group(1)) == cuda.major for n in native)


def _shipped(native: tuple[str, ...]) -> str:
    """The CUDA versions of the wheel's libraries, runs of one major joined: ``11.7-11.8, 12.0-12.6, 12.8``."""
    found = sorted({(int(m.group(1)), int(m.group(2))) for n in native if (m := _ANY_CUDA.match(n))})
    runs: list[list[tuple[int, int]]] = []
    for v in found:
        if runs and runs[-1][-1][0] == v[0] and runs[-1][-1][1] + 1 == v[1]:
            runs[-1].append(v)
        else:
            runs.append([v])
    text = [f"{r[0][0]}.{r[0][1]}" + (f"-{r[-1][0]}.{r[-1][1]}" if len(r) > 1 else "") for r in runs]
    return ", ".join(text) or "none"


def _torch_cuda(env: Environment) -> Version | None:
    """The CUDA release torch was built for: its ``+cuXYZ`` tag, else (a CUDA stack) ``cuda``, else
    an untagged torch's default PyPI build (:func:`derived_facts.pypi_default_build`); ``None`` on ROCm or CPU.
    """
    if env.platform == "rocm" or env.torch_rocm is not None:
        return None
    tagged = build_tag_version(env.torch_local, "cuda")
    if tagged is not None or env.platform != "cuda":
        return tagged
    if env.cuda:
        return coerce_version(env.cuda)
    default = pypi_default_build(env.torch)
    return build_tag_version(default[0], "cuda") if default is not None else None


def _highest_capability(archs: tuple[str, ...]) -> tuple[int, int] | None:
    """The loader's compute capability: the highest among the GPUs (``None`` when none is known)."""
    found = [c for c in (cuda_targets.capability(a) for a in archs) if c is not None]
    return max(found) if found else None

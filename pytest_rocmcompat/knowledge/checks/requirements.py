"""``requirement-not-met``: an installed stack package's declared requirement on another is not met.

The ``pip check`` idea, limited to the GPU stack the probe records: ``Requires-Dist`` from
the installed metadata (``Environment.requires``), which always wins when recorded, else what
the release declared on PyPI (:func:`declared_pins.declared_requires_all`, whose docstring
states the policies: torch pins reduced to their series for non-vLLM packages, torch's own
Triton pin exact and its ``nvidia-*`` pins as "same major, not older", both for a CUDA torch
only, requirements between libraries as declared), else the small sourced tables below for
releases the data cannot answer. Local version tags count as pip counts them: ``torch==2.5.1``
is met by ``2.5.1+rocm6.2``. Extras are left out; markers are evaluated for the stack's Python
and OS, Linux x86_64 where the stack names no OS (as :mod:`derived_facts` assumes). Only
requirements on packages present in the stack are checked; in a ``--rocm-set`` replay, on
packages the replay named (or torch). Each pair is reported with its source. A pair reaches the
tests that use either package, except torch's Triton pin, which reaches torch.compile tests only
(:data:`COMPILE_USES`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.dynamo_gate import COMPILE_TESTS
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.declared_data import LINUX_X86_64
from pytest_rocmcompat.knowledge.declared_pins import TRITON, declared_requires_all
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.versions import coerce_version, specifier_contains

ID = "requirement-not-met"
SOURCE = "https://pip.pypa.io/en/stable/cli/pip_check/"
# A package next to a version of its dependency it does not accept: pip's resolver says so, a
# compiled part fails to load (undefined symbols, xFormers' and torchvision's own messages), or
# it calls an API the installed dependency does not have (too old) or no longer has (too new).
PREDICTS = (
    r"requires [^\n]{1,200}?, but you have |has requirement [^\n]{1,200}?, but you have "
    r"|undefined symbol: |'_OpNamespace' '\w+' object has no attribute|xFormers can't load C\+\+/CUDA extensions"
    r"|operator torchvision::\w+ does not exist|No such operator torchvision::\w+|Couldn't load custom C\+\+ ops"
    r"|cannot import name '\w+' from 'torch[\w.]*'|module 'torch[\w.]*' has no attribute '\w+'"
    r"|Disabling PyTorch because PyTorch >= ?\S+ is required"
    r"|Detected that PyTorch and torchvision were compiled with different CUDA (?:major )?versions"
    r"|No module named 'torch\.[\w.]+'|No module named 'torch\._six'|partially initialized module 'torchvision'"
    r"|Failed to load image Python extension|Could not run 'torchvision::\w+' with arguments"
    r"|because these package versions have conflicting dependencies|ResolutionImpossible"
    r"|lib(?:torch|c10)\w*\.so[\w.]*: cannot open shared object file|The specified procedure could not be found"
    # the resolvers' own conflict reports: pip (pypa/pip#13588), uv, conda/mamba (libmamba's solver),
    # Poetry; and an extension op built without the GPU half (torchvision's csrc before 0.5)
    r"|The conflict is caused by:|your requirements are unsatisfiable|No solution found when resolving dependencies"
    r"|Could not solve for environment specs|none of the providers can be installed|version solving failed"
    r"|Not compiled with GPU support"
    # transformers' run-time version checks (utils/versions.py ``require_version``)
    r"|is required for a normal functioning of this module, but found "
    # pip's ResolutionImpossible causes, one per line (resolvelib/factory.py: "{name} {version} depends
    # on {requirement}", "The user requested {requirement}")
    r"|\b[A-Za-z0-9][\w.-]{0,80} \d[\w.+!-]{0,40} depends on [A-Za-z0-9]|The user requested (?:\(constraint\) )?[A-Za-z0-9]"
    # a library beside a Triton or transformers it was not built for: Inductor's imports of Triton
    # internals (triton_key, AttrsDescriptor, CompiledKernel hooks), peft/TRL importing a transformers API
    r"|cannot import name '\w+' from '(?:triton|transformers|accelerate)(?:\.[\w.]+)?'|type object 'CompiledKernel' has no attribute '\w+'"
    # transformers' own run-time floors (training_args.py Trainer check, utils/peft_utils.py MIN_PEFT_VERSION)
    # and a peft importing a transformers module an older release lacks (huggingface/setfit#625)
    r"|requires `accelerate>=[\d.]+`|The version of PEFT you are using is not compatible"
    r"|No module named 'transformers\.[\w.]+'"
)


# name [extras] specifier ; marker  (PEP 508 without URLs; anything else is left alone)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^;()@]*)\)?\s*(?:;(.*))?$")


def check(env: Environment) -> list[Finding]:
    markers: dict[str, str] = {}  # filled when a requirement on an installed package has a marker
    broken: list[tuple[str, str, str, str]] = []  # (dist, requirement, installed target, source)
    installed = dict(env.libraries)
    if env.torch:
        installed["torch"] = env.torch  # the torch field wins (it is what --rocm-set torch= changes)
    replaced = _overridden_names(env)
    for dist, version in installed.items():
        if replaced and dist not in replaced:
            continue  # the base machine's package beside a replayed stack: not part of that stack
        for text, where in _declared(env, dist, version) + _runtime_minimums(dist, version):
            problem = _unmet(text, env, markers, replaced)
            if problem is not None:
                broken.append((f"{dist} {version}", text, problem, where))
    if not broken:
        return []
    pairs = "; ".join(f"{d} requires {_bare(r)}, installed {t} ({_cite(s)})" for d, r, t, s in broken)
    uses = tuple(dict.fromkeys(n for d, r, t, _ in broken for n in _uses(d.split()[0], t.split()[0])))
    sources = [s for *_, s in broken if s.startswith("http")]
    return [
        Finding(
            check=ID,
            reason=pairs,
            fix="install versions that agree (pip install the pinned version, or a release of the "
            "dependent package built for the installed one)",
            link=sources[0] if sources else SOURCE,
            uses=uses,
            nodeids=COMPILE_TESTS if set(COMPILE_USES) <= set(uses) else (),
        )
    ]


# torch's Triton pin binds only Inductor, which imports Triton internals (torch/_inductor:
# codecache.py ``triton_key``, runtime/hints.py ``AttrsDescriptor``, runtime/triton_heuristics.py
# ``CompiledKernel`` hooks); eager torch never imports Triton, and a library's own Triton kernels
# are compiled by whatever Triton is installed. So that pair reaches torch.compile tests only.
COMPILE_USES = ("torch.compile", "inductor")


def _uses(dist: str, target: str) -> tuple[str, ...]:
    """The ``uses`` names a broken pair reaches."""
    if dist == "torch" and target in TRITON:
        return COMPILE_USES
    return (dist, target)


def _bare(text: str) -> str:
    """A requirement without its marker (the marker held for this stack, or it would not be reported)."""
    return text.split(";", 1)[0].strip()


def _cite(source: str) -> str:
    return "installed metadata" if source == SOURCE else source


def _declared(env: Environment, dist: str, version: str) -> list[tuple[str, str]]:
    """``(requirement, source)``: installed metadata, else a sourced table, else what PyPI's release declared."""
    if dist in env.requires:
        return [(text, SOURCE) for text in env.requires[dist]]
    paired = _domain_pairing(dist, version)
    if paired is not None:
        return [(text, paired[1]) for text in paired[0]]
    return list(declared_requires_all(dist, version, cuda_build=not _rocm_build(env)))


class RuntimeRow(NamedTuple):
    """A requirement a release enforces at run time, for releases ``since <= v < until``."""

    since: str
    requirement: str
    source: str
    until: str | None = None  # the first release that no longer needs it (None: still needed)


_TF = "https://github.com/huggingface/transformers/blob/"
_PEFT = "https://github.com/huggingface/peft/blob/"
# What a release checks or needs at run time although its metadata declares it only loosely or as
# an extra, each row read at the release tags it names:
# - transformers' DeepSpeed integration calls ``dep_version_check("deepspeed")`` (``integrations/
#   deepspeed.py``), which reads ``dependency_versions_table.py``: ``deepspeed>=0.9.3`` from 4.31.0
#   (huggingface/transformers#24541, merged 2023-06-28, after 4.30.2).
# - transformers' Trainer (``training_args.py``) raises "Using the `Trainer` with `PyTorch` requires
#   `accelerate>=X`" below ``X``: 0.20.1 from 4.30.0, ``ACCELERATE_MIN_VERSION`` (utils/import_utils.py)
#   0.21.0 from 4.37.0, 0.26.0 from 4.45.0, 1.1.0 from 5.0.0 (accelerate is only an extra there).
# - transformers' PEFT integration (``integrations/peft.py``) calls ``check_peft_version(MIN_PEFT_VERSION)``:
#   0.5.0 from 4.33.0, 0.18.0 from 5.0.0.
# - peft imports transformers names at import time although it declares ``transformers`` unbounded:
#   ``EncoderDecoderCache`` (first in transformers 4.43.0) from 0.14.0 (huggingface/peft#2292);
#   ``HybridCache`` (4.44.0 to 4.57.x, gone in 5.0.0: huggingface/transformers#44351) in 0.16.0 to
#   0.17.x (guarded from 0.18.0, huggingface/peft#2735); ``transformers.modeling_layers`` (first in
#   4.52.0) from 0.18.0; and accelerate's ``clear_device_cache`` (first in accelerate 0.32.0) from
#   0.15.0, although it declares accelerate>=0.21.0.
# - TRL before 0.8.0 imports ``top_k_top_p_filtering`` from transformers, removed in transformers 4.39.0
#   (huggingface/transformers#29492; TRL copied it in huggingface/trl#1415, first in 0.8.0).
# Rows of one package and dependency do not overlap, so one pair is reported once. Earlier floors are not tabled.
RUNTIME_MINIMUMS: dict[str, tuple[RuntimeRow, ...]] = {
    "transformers": (
        RuntimeRow("4.31.0", "deepspeed>=0.9.3", "https://github.com/huggingface/transformers/pull/24541"),
        RuntimeRow("4.30.0", "accelerate>=0.20.1", f"{_TF}v4.30.0/src/transformers/training_args.py", "4.37.0"),
        RuntimeRow("4.37.0", "accelerate>=0.21.0", f"{_TF}v4.37.0/src/transformers/utils/import_utils.py", "4.45.0"),
        RuntimeRow("4.45.0", "accelerate>=0.26.0", f"{_TF}v4.45.0/src/transformers/utils/import_utils.py", "5.0.0"),
        RuntimeRow("5.0.0", "accelerate>=1.1.0", f"{_TF}v5.0.0/src/transformers/utils/import_utils.py"),
        RuntimeRow("4.33.0", "peft>=0.5.0", f"{_TF}v4.33.0/src/transformers/integrations/peft.py", "5.0.0"),
        RuntimeRow("5.0.0", "peft>=0.18.0", f"{_TF}v5.0.0/src/transformers/integrations/peft.py"),
    ),
    "peft": (
        RuntimeRow("0.14.0", "transformers>=4.43.0", f"{_PEFT}v0.14.0/src/peft/peft_model.py#L37", "0.16.0"),
        RuntimeRow("0.16.0", "transformers>=4.44.0,<5.0.0", f"{_PEFT}v0.16.0/src/peft/peft_model.py#L37", "0.18.0"),
        RuntimeRow("0.18.0", "transformers>=4.52.0", f"{_PEFT}v0.18.0/src/peft/tuners/lora/model.py#L26"),
        RuntimeRow("0.15.0", "accelerate>=0.32.0", f"{_PEFT}v0.15.0/src/peft/utils/loftq_utils.py#L25"),
    ),
    "trl": (RuntimeRow("0.2.0", "transformers<4.39.0", "https://github.com/huggingface/trl/pull/1415", "0.8.0"),),
}


def _runtime_minimums(dist: str, version: str) -> list[tuple[str, str]]:
    """``(requirement, source)`` of :data:`RUNTIME_MINIMUMS` whose release range holds this release."""
    v = coerce_version(version)
    if v is None:
        return []
    return [
        (row.requirement, row.source)
        for row in RUNTIME_MINIMUMS.get(dist, ())
        if Version(row.since) <= v and (row.until is None or v < Version(row.until))
    ]


# torchvision's setup.py pins the torch it was built with (``torch==$PYTORCH_VERSION``): a nightly
# torchvision 0.N.0.devYYYYMMDD requires the torch 2.(N-15) nightly of the same day.
_NIGHTLY_SOURCE = "https://github.com/pytorch/vision/blob/main/setup.py"
_NIGHTLY = re.compile(r"^(\d+)\.(\d+)\.\d+\.dev(\d{8})")
# Releases before the generated data (2023): the PyTorch Versions table of domain libraries.
_HISTORY_SOURCE = "https://github.com/pytorch/pytorch/wiki/PyTorch-Versions"
TORCHVISION_HISTORY: dict[str, str] = {
    "0.2.2": "1.0",
    "0.3": "1.1",
    "0.4.0": "1.2",
    "0.4.1": "1.3",
    "0.4.2": "1.3",
    "0.5": "1.4",
    "0.6": "1.5",
    "0.7": "1.6",
    "0.8": "1.7",
    "0.9": "1.8",
    "0.10": "1.9",
    "0.11": "1.10",
    "0.12": "1.11",
    "0.13": "1.12",
    "0.14": "1.13",
}


# Releases that declare no torch bound but cannot run on a newer torch, each from its fix:
# DeepSpeed before 0.8.2 imports torch._six, which torch 2.0 removed.
UPPER_BOUNDS: dict[str, tuple[str, str, str]] = {
    "deepspeed": ("0.8.2", "torch<2.0", "https://github.com/microsoft/DeepSpeed/pull/2863"),
}


def _domain_pairing(dist: str, version: str) -> tuple[tuple[str, ...], str] | None:
    """The torch a release needs where the generated data cannot say: a torchvision nightly's day,
    a pre-2023 torchvision, a release fixed only later (:data:`UPPER_BOUNDS`).
    """
    if dist in UPPER_BOUNDS:
        fixed_in, requirement, source = UPPER_BOUNDS[dist]
        v = coerce_version(version)
        return ((requirement,), source) if v is not None and v < Version(fixed_in) else None
    if dist != "torchvision":
        return None
    nightly = _NIGHTLY.match(version)
    if nightly is not None:
        major, minor, day = (int(g) for g in nightly.groups())
        if major == 0 and minor >= 15:
            return (f"torch=={2}.{minor - 15}.0.dev{day}",), _NIGHTLY_SOURCE
        return None
    v = coerce_version(version)
    if v is None or v.major != 0 or v.minor >= 15:
        return None
    series = TORCHVISION_HISTORY.get(".".join(map(str, v.release[:3]))) or TORCHVISION_HISTORY.get(f"0.{v.minor}")
    if series is None:
        return None
    torch_major, torch_minor = series.split(".")
    return (f"torch>={torch_major}.{torch_minor},<{torch_major}.{int(torch_minor) + 1}",), _HISTORY_SOURCE


def _rocm_build(env: Environment) -> bool:
    """A ROCm torch (``+rocm`` tag, HIP, or the rocm platform): CUDA wheels' pins do not apply."""
    return env.torch_rocm is not None or env.platform == "rocm"


def _unmet(text: str, env: Environment, markers: dict[str, str], replaced: set[str] | None = None) -> str | None:
    """``"torch 2.5.1"`` when the requirement names an installed distribution it does not accept.

    Parsed by a small pattern first so that requirements on packages that are not installed
    (most of them) cost no full PEP 508 parse; markers go to :mod:`packaging.markers`.
    """
    m = _REQUIREMENT.match(text)
    if m is None:
        return None
    name = normalize_library(m.group(1))
    if replaced and name not in replaced and name != "torch":
        return None  # the base machine's package beside a replayed stack
    installed = env.torch if name == "torch" and env.torch else env.libraries.get(name)
    version = coerce_version(installed)
    spec_text = m.group(2).strip()
    if version is None or not spec_text:
        return None
    try:
        spec = SpecifierSet(spec_text)
    except InvalidSpecifier:
        return None
    if specifier_contains(spec, version):
        return None
    if m.group(3) and not _marker_holds(m.group(3), env, markers):
        return None  # an extra's requirement, or one for another Python/platform
    return f"{name} {installed}" if _valid(text) else None


def _valid(text: str) -> bool:
    """A full PEP 508 parse, only for a requirement about to be reported (pip rejects the rest)."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(text)
    except InvalidRequirement:
        return False
    return True


def _marker_holds(text: str, env: Environment, markers: dict[str, str]) -> bool:
    from packaging.markers import InvalidMarker, Marker

    if not markers:
        markers.update(_marker_environment(env))
    try:
        return bool(Marker(text).evaluate({**markers, "extra": ""}))
    except (InvalidMarker, Exception):
        return False


def _marker_environment(env: Environment) -> dict[str, str]:
    """Markers for the stack: its Python, its OS (Linux x86_64 unless it names macOS or Windows)."""
    from packaging.markers import default_environment

    # a TypedDict of str fields, which mypy reads as Mapping[str, object]
    markers = {key: str(value) for key, value in default_environment().items()}
    python = coerce_version(env.python)
    if python is not None:
        markers["python_version"] = f"{python.major}.{python.minor}"
        markers["python_full_version"] = env.python
    system = env.os.split(" ", 1)[0].lower()
    if system in ("darwin", "macos"):
        markers.update(sys_platform="darwin", platform_system="Darwin", os_name="posix", platform_machine="arm64")
    elif system == "windows":
        markers.update(sys_platform="win32", platform_system="Windows", os_name="nt", platform_machine="AMD64")
    else:  # Linux, or not stated: Linux x86_64, where PyPI's CUDA wheels and their pins apply
        markers.update({k: v for k, v in LINUX_X86_64.items() if k != "extra"})
    return markers


def _overridden_names(env: Environment) -> set[str]:
    """Distributions a ``--rocm-set`` replay named (``torch``, ``lib.NAME``, ``requires.NAME``).

    When a replay changes torch or a library, the packages it did not name come from the
    machine the replay runs on; their pins describe that machine, not the replayed stack.
    """
    if env.source != "overridden":
        return set()
    names: set[str] = set()
    for part in env.origin.split("; "):
        key = part.rpartition(" + ")[2].partition("=")[0].strip()
        if key == "torch":
            names.add("torch")
        elif key.startswith(("lib.", "requires.")):
            names.add(normalize_library(key.partition(".")[2]))
    return names if names else set()

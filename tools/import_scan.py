"""Generate ``pytest_rocmcompat/knowledge/data/import_scan.json``: the names a Hugging Face library
release imports at ``import <pkg>`` from a dependency that some dependency releases do not have.

For each pair of :data:`PAIRS` (peft -> transformers, trl -> accelerate, deepspeed -> torch, ...) it reads,
from PyPI's released files only (no repository, no install):

- the dependent's side, for every release since ``--since`` (default 2023-01-01; pre-releases left
  out) with a ``py3`` wheel, else a Linux x86_64 wheel, else a source archive (DeepSpeed's, read whole): the modules ``import <pkg>`` executes (from ``<pkg>/__init__.py``, the
  package's own modules imported by statements directly in a module's body, transitively; not those
  under ``try``, ``if``, ``with``, ``def`` or ``class``), and in them every such unconditional
  ``from <dependency>[.<module>] import <names>``. An ``if is_<dependency>_available():`` (called with no
  argument) runs whenever the dependency is installed, so its body counts as the module's (transformers
  imports accelerate's and PEFT's names so); a lazy package's modules that its public names load are walked
  too (:data:`ENTRY_MODULES`: transformers' ``trainer`` and ``modeling_utils``). Where the availability check has
  a minimum version of its own (transformers >= 4.37's ``ACCELERATE_MIN_VERSION``), a row below it repeats what
  the hand-written run-time rows already require;
- the dependency's side, for the newest patch of each minor first released since ``--dependency-since``
  (default 2022-01-01) and of the minor before (torch: each minor from 1.13, :data:`DEPENDENCY_SINCE`, in its
  CPython 3.11 manylinux x86_64 wheel, of which only the zip directory, ZIP64 aware, and a few ``.py`` are
  read): whether each of those modules exists and binds each
  name at module level (inside ``try``/``if`` too), or has it as a submodule. A module with a star
  import, its own ``__getattr__`` or ``define_import_structure`` counts as having every name; a lazy one
  (``_LazyModule``, a lazy ``__getattr__``) every name its text mentions. Doubt counts as present. Names bound
  by running code (``globals()``, ``sys.modules[__name__]``, ``exec``), imported from ``torch`` itself or
  ``torch._C`` (:data:`ASSUMED_PRESENT`), from an extension module, from a star or ``__getattr__`` module of
  torch, or from a missing module a parent may put in ``sys.modules`` (it names it there) count as present.

A name missing in some sampled dependency releases becomes a requirement of the dependent release
(``transformers>=4.30.0``: missing below 4.30; ``huggingface-hub<0.26.0``: missing from 0.26 on) unless
the release's declared requirement on the dependency (``declared.json``) already excludes every
missing release, or every missing release is older than ``--dependency-since``; consecutive dependent
releases with the same requirement and message make one row (``since``, ``until``). Each row's message
is the text CPython raises (``cannot import name 'X' from 'pkg.mod'``, or ``No module named 'pkg.mod'``
where the module is missing), and its source the dependent's file at the release tag.

Wheels are read by HTTP range requests (the zip directory from the wheel's end, then only the ``.py``
members needed, neighbours fetched in one request). Before the torch pairs: 425 releases of 6 packages (238 dependent releases,
187 sampled dependency releases), about 3,300 requests and 150 MB (mostly transformers' zip directories
and ``__init__.py``), about 3 minutes with eight requests at a time (2026-11-27: 195 s). With them
(2026-11-27): 829 releases (17 torch minors), 5,985 requests, 390 MB (mostly DeepSpeed's sdists), 422 s
(mostly parsing, which the threads do not share), 68 rows (39 before); with torchao's opt-in pair 851
releases, 585 s, 120 rows. With unsloth's three pairs (2026-11-27): 1,158 releases, 8,405 requests, 497 MB, 782 s,
129 rows (unsloth's 61 rows are new; every earlier row reproduced). With the RL and quantisation pairs (2026-11-29:
liger-kernel, verl, OpenRLHF, AutoAWQ, AutoGPTQ, GPTQModel, unsloth-zoo on transformers, TRL on vLLM): 1,746
releases, 23,623 requests, 1,159 MB, 1,740 s, 309 rows (99 new; every earlier row reproduced). ``--offline`` answers only the byte ranges recorded: replay with the pairs
recorded (other pairs ask other ranges, and a member not answered counts as present). Run from the
repository root::

    python tools/import_scan.py                      # writes the committed data file
    python tools/import_scan.py --record DIR         # also saves every response under DIR
    python tools/import_scan.py --offline DIR --out x.json   # from saved responses only
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import io
import json
import re
import sys
import tarfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

if __package__ in (None, ""):  # run as a script: the repository root on the path, as ``python -m`` has it
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.regenerate_declared import (
    Fetch,
    RegenerateError,
    http_fetch,
    member_text,
    offline_fetch,
    project_index,
    recording,
    zip_directory,
    zip_members,
)

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pytest_rocmcompat" / "knowledge" / "data" / "import_scan.json"
PAIRS: tuple[tuple[str, str], ...] = (
    ("peft", "transformers"),
    ("peft", "accelerate"),
    ("peft", "huggingface-hub"),
    ("trl", "transformers"),
    ("trl", "accelerate"),
    ("accelerate", "huggingface-hub"),
    ("sentence-transformers", "transformers"),
    ("sentence-transformers", "huggingface-hub"),
    # torch as the dependency (not transformers -> torch: transformers guards its torch imports)
    ("deepspeed", "torch"),
    ("peft", "torch"),
    ("accelerate", "torch"),
    ("trl", "torch"),
    ("bitsandbytes", "torch"),
    ("xformers", "torch"),
    ("sentence-transformers", "torch"),
    ("transformers", "huggingface-hub"),
    ("diffusers", "huggingface-hub"),
    # unsloth patches transformers' model modules and TRL's trainers at import (``unsloth/models``):
    # it imports their internals, which move between releases its metadata does not exclude
    ("unsloth", "transformers"),
    ("unsloth", "trl"),
    ("unsloth", "peft"),
    # transformers imports accelerate's and PEFT's names under their availability checks
    # (``if is_accelerate_available():``), in the modules its public names load (ENTRY_MODULES)
    ("transformers", "accelerate"),
    ("transformers", "peft"),
    ("trl", "peft"),
    # vLLM imports transformers' model configs and utilities at ``import vllm``; it declares only a lower bound
    ("vllm", "transformers"),
    # thirty-first round: the RL and fine-tuning stacks' own libraries, on the transformers (and TRL on the vLLM) they
    # import: Liger's model patches, verl's and OpenRLHF's trainers and workers, the GPTQ/AWQ quantisers (their
    # releases declare transformers with a lower bound only), unsloth-zoo beside unsloth, TRL's vLLM client and trainers
    ("liger-kernel", "transformers"),
    ("verl", "transformers"),
    ("openrlhf", "transformers"),
    ("autoawq", "transformers"),
    ("auto-gptq", "transformers"),
    ("gptqmodel", "transformers"),
    ("unsloth-zoo", "transformers"),
    ("unsloth-zoo", "trl"),
    ("trl", "vllm"),
)
# a lazy package's modules that its public names load, walked beside ``import <pkg>`` (a module a release
# lacks is skipped): transformers' ``__init__`` only maps names to modules (``_LazyModule``), and ``Trainer``
# loads ``trainer``, every model class ``modeling_utils``; TRL's (lazy from 0.8) its trainers; diffusers' its
# model and pipeline bases
ENTRY_MODULES: dict[str, tuple[str, ...]] = {
    "transformers": ("transformers.trainer", "transformers.modeling_utils"),
    "trl": tuple(
        f"trl.trainer.{m}_trainer" for m in ("sft", "dpo", "ppo", "reward", "grpo", "kto", "orpo", "online_dpo")
    ),
    "diffusers": ("diffusers.models.modeling_utils", "diffusers.pipelines.pipeline_utils"),
    # Liger's patches load with ``liger_kernel.transformers``; verl's and OpenRLHF's entry points are their trainers
    # and workers (``import verl`` alone loads almost nothing)
    "liger-kernel": ("liger_kernel.transformers",),
    "verl": ("verl.trainer.main_ppo", "verl.workers.fsdp_workers", "verl.workers.megatron_workers"),
    "openrlhf": ("openrlhf.trainer", "openrlhf.models", "openrlhf.utils"),
}
# scanned with ``--pairs`` only: their rows' sources (pytorch/ao's files) are not yet among those the
# run-time tables accept (tests/knowledge/test_requirements_runtime.py's ``_ROW_SOURCES``)
OPT_IN_PAIRS: tuple[tuple[str, str], ...] = (("torchao", "torch"),)
# a dependency's own window (``--dependency-since`` otherwise), without the minor before it: torch from 1.13
DEPENDENCY_SINCE = {"torch": "2022-10-01"}
# modules whose names are bound by C or dynamically: every name imported from them counts as present
# (``torch`` itself binds names from ``torch._C`` and star imports; ``torch._C`` is an extension module)
ASSUMED_PRESENT = ("torch", "torch._C", "torch._C.*")
# dependencies partly written in C: a module with a star import or a ``__getattr__`` has every name
NATIVE = {"torch"}
IMPORT_NAME = {
    "peft": "peft",
    "trl": "trl",
    "accelerate": "accelerate",
    "sentence-transformers": "sentence_transformers",
    "transformers": "transformers",
    "huggingface-hub": "huggingface_hub",
    "deepspeed": "deepspeed",
    "autoawq": "awq",
}


def import_name(dist: str) -> str:
    """The top-level package a distribution installs."""
    return IMPORT_NAME.get(dist, dist.replace("-", "_"))


# the dependent's file at its release tag: (tag pattern, folder of the package in the repository)
SOURCES = {
    "peft": "https://github.com/huggingface/peft/blob/v{version}/src/{path}",
    "trl": "https://github.com/huggingface/trl/blob/v{version}/{path}",
    "accelerate": "https://github.com/huggingface/accelerate/blob/v{version}/src/{path}",
    "sentence-transformers": "https://github.com/UKPLab/sentence-transformers/blob/v{version}/{path}",
    "deepspeed": "https://github.com/deepspeedai/DeepSpeed/blob/v{version}/{path}",
    "transformers": "https://github.com/huggingface/transformers/blob/v{version}/src/{path}",
    "diffusers": "https://github.com/huggingface/diffusers/blob/v{version}/src/{path}",
    "torchao": "https://github.com/pytorch/ao/blob/v{version}/{path}",
    "xformers": "https://github.com/facebookresearch/xformers/blob/v{version}/{path}",
    "vllm": "https://github.com/vllm-project/vllm/blob/v{version}/{path}",
    "liger-kernel": "https://github.com/linkedin/Liger-Kernel/blob/v{version}/src/{path}",
    "verl": "https://github.com/volcengine/verl/blob/v{version}/{path}",
    "openrlhf": "https://github.com/OpenRLHF/OpenRLHF/blob/v{version}/{path}",
    "autoawq": "https://github.com/casper-hansen/AutoAWQ/blob/v{version}/{path}",
    "auto-gptq": "https://github.com/AutoGPTQ/AutoGPTQ/blob/v{version}/{path}",
    "gptqmodel": "https://github.com/ModelCloud/GPTQModel/blob/v{version}/{path}",
}
PYPI_PAGE = "https://pypi.org/project/{name}/{version}/"
GAP = 32768  # members closer than this are fetched in one range request
WORKERS = 8


# ---- the dependent's side (pure) ---------------------------------------------------------
@dataclass(frozen=True, order=True)
class Imported:
    """``from <module> import <name>``, unconditional, in ``path`` (a wheel member) at ``line``."""

    module: str
    name: str
    path: str
    line: int


def module_files(module: str) -> tuple[str, str]:
    """The wheel members that would be ``module``: ``a/b.py`` and ``a/b/__init__.py``."""
    base = module.replace(".", "/")
    return f"{base}.py", f"{base}/__init__.py"


def _parents(module: str) -> list[str]:
    """``a``, ``a.b``, ``a.b.c`` for ``a.b.c``: every module importing it executes."""
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str | None:
    """The absolute module of a ``from`` import in ``current`` (relative when ``level`` > 0)."""
    if level == 0:
        return module
    parts = current.split(".") if is_package else current.split(".")[:-1]
    if level - 1 > len(parts) - 1:
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base)


def unconditional_imports(
    source: str, current: str, is_package: bool, guards: AbstractSet[str] = frozenset()
) -> tuple[list[str], list[tuple[str, str, int]]]:
    """(modules imported, ``(module, name, line)`` of each name imported) by statements directly in
    the module body (not under ``try``/``if``/``with``/``def``/``class``); relative imports resolved.
    ``modules`` holds ``a.b`` for ``import a.b`` and the ``a`` of ``from a import x``.

    ``guards``: availability checks (``is_accelerate_available``) whose ``if`` body runs whenever the
    dependency is installed: the body of ``if <guard>():`` (called with no argument, so no version of its
    own; not its ``else``) counts as the module body, recursively.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [], []
    modules: list[str] = []
    names: list[tuple[str, str, int]] = []
    for node in _module_level(tree.body, guards):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(current, is_package, node.level, node.module)
            if base is None:
                continue
            modules.append(base)
            names.extend((base, alias.name, node.lineno) for alias in node.names if alias.name != "*")
    return modules, names


def _module_level(body: list[ast.stmt], guards: AbstractSet[str]) -> Iterator[ast.stmt]:
    """The statements of ``body`` in order, those under an availability check of ``guards`` in its place."""
    for node in body:
        if isinstance(node, ast.If) and _availability_guard(node.test, guards):
            yield from _module_level(node.body, guards)
        else:
            yield node


def _availability_guard(test: ast.expr, guards: AbstractSet[str]) -> bool:
    """``is_x_available()`` (a name or ``module.is_x_available``), no arguments, one of ``guards``."""
    if not isinstance(test, ast.Call) or test.args or test.keywords:
        return False
    func = test.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in guards


def availability_guards(deps: Iterable[str]) -> frozenset[str]:
    """The availability checks of dependencies (import names): ``accelerate`` -> ``is_accelerate_available``."""
    return frozenset(f"is_{dep}_available" for dep in deps)


def reachable_imports(
    package: str,
    members: Iterable[str],
    read: Callable[[list[str]], dict[str, str]],
    deps: Iterable[str],
    entries: Iterable[str] = (),
) -> list[Imported]:
    """The unconditional imports from ``deps`` (import names) in the modules ``import <package>`` executes,
    and those ``entries`` execute (a lazy package's modules that its public names load), an import under a
    dependency's availability check (:func:`availability_guards`) included.

    ``members``: the wheel's file names; ``read(paths)``: their texts (a batch per level of the walk).
    """
    files = set(members)
    roots = tuple(deps)
    guards = availability_guards(roots)
    seen: set[str] = set()
    found: set[Imported] = set()
    level = [package, *entries]
    while level:
        wanted: dict[str, str] = {}  # path -> module
        for module in level:
            for part in _parents(module):
                if part in seen or (part != package and not part.startswith(package + ".")):
                    continue
                seen.add(part)
                path = next((p for p in reversed(module_files(part)) if p in files), None)
                if path is not None:
                    wanted[path] = part
        texts = read(sorted(wanted)) if wanted else {}
        level = []
        for path, module in sorted(wanted.items()):
            text = texts.get(path)
            if text is None:
                continue
            modules, names = unconditional_imports(text, module, path.endswith("/__init__.py"), guards)
            level.extend(modules)
            for base, name, line in names:
                if base == package or base.startswith(package + "."):
                    level.append(f"{base}.{name}")  # the name may be a submodule (no file: skipped)
                elif base.split(".")[0] in roots:
                    found.add(Imported(base, name, path, line))
    return sorted(found)


# ---- the dependency's side (pure) --------------------------------------------------------
def _bindings(body: list[ast.stmt], bound: set[str]) -> bool:
    """Add the names ``body`` binds at module level (inside ``if``/``try``/``with``/``for`` too) to
    ``bound``; ``True`` when it has a star import.
    """
    star = False

    def targets(node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            bound.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                targets(elt)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                targets(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets(node.target)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    targets(item.optional_vars)
        elif isinstance(node, ast.Import):
            bound.update((a.asname or a.name.split(".")[0]) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                star = star or a.name == "*"
                bound.add(a.asname or a.name)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ExceptHandler):
                if child.name:
                    bound.add(child.name)
                star = _bindings(child.body, bound) or star
            elif isinstance(child, ast.NamedExpr):
                targets(child.target)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                star = _bindings(block, bound) or star
        for case in getattr(node, "cases", None) or ():
            star = _bindings(case.body, bound) or star
    return star


@dataclass(frozen=True)
class ModuleFacts:
    """What a dependency module's text says about the names it has (:func:`module_facts`)."""

    bound: frozenset[str]  # the names bound at module level
    opaque: bool  # a star import or its own ``__getattr__``: any name may be there
    lazy: bool  # ``_LazyModule`` or a lazy ``__getattr__``: the names its text mentions
    # ``define_import_structure``: names from other files too, those of these sub-folders ("*": any)
    structure: frozenset[str]
    origins: dict[str, frozenset[str]]  # name -> the first part of each relative module it is imported from


# names bound by running code, not statements: ``globals()[name] = ...``, ``setattr(sys.modules[__name__], ...)``
_DYNAMIC = re.compile(r"\bglobals\(\)|sys\.modules\[__name__\]|\bexec\(")
_STRUCTURE = re.compile(r"define_import_structure\((.*)")  # the call, to the end of its line
_FOLDER = re.compile(r"[\"'](\w+)[\"']")


@lru_cache(maxsize=256)
def module_facts(source: str) -> ModuleFacts:
    """:class:`ModuleFacts` of a module's text (an unparsable text is opaque)."""
    structure: set[str] = set()
    for call in _STRUCTURE.finditer(source):
        folder = _FOLDER.search(call.group(1))
        structure.add(folder.group(1) if folder else "*")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ModuleFacts(frozenset(), True, False, frozenset(structure), {})
    bound: set[str] = set()
    star = _bindings(tree.body, bound)
    lazy = "_LazyModule" in source or ("__getattr__" in bound and re.search("lazy", source, re.IGNORECASE) is not None)
    origins: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0 and node.module:
            for alias in node.names:
                origins.setdefault(alias.asname or alias.name, set()).add(node.module.split(".", 1)[0])
    return ModuleFacts(
        frozenset(bound),
        star or "__getattr__" in bound or _DYNAMIC.search(source) is not None,
        lazy,
        frozenset(structure),
        {name: frozenset(tops) for name, tops in origins.items()},
    )


def has_name(source: str, name: str) -> bool | None:
    """Whether a module with this text has ``name`` after it runs: ``True`` (or in doubt), ``False``, or
    ``None`` where a lazy module built with ``define_import_structure`` does not mention it (the files it
    reads may export it: :func:`settle` decides).
    """
    facts = module_facts(source)
    if facts.lazy:
        if re.search(rf"\b{re.escape(name)}\b", source) is not None:
            return True
        return None if facts.structure else False
    return facts.opaque or bool(facts.structure) or name in facts.bound


def assumed_present(module: str) -> bool:
    """Whether every name imported from ``module`` counts as present (:data:`ASSUMED_PRESENT`)."""
    return any(module == p or (p.endswith(".*") and module.startswith(p[:-1])) for p in ASSUMED_PRESENT)


def _native(members: AbstractSet[str], module: str) -> bool:
    """Whether the release has ``module`` as an extension (``a/b.cpython-311-x86_64-linux-gnu.so``, ``a/b.pyd``)."""
    return module.replace(".", "/") in _extensions(members if isinstance(members, frozenset) else frozenset(members))


@lru_cache(maxsize=64)
def _extensions(members: frozenset[str]) -> frozenset[str]:
    """The extension modules among an archive's members, as paths without the suffix (``torch/_C``)."""
    return frozenset(m.split(".", 1)[0] for m in members if m.endswith((".so", ".pyd")) and "/" in m)


def _registered(members: AbstractSet[str], read: Callable[[str], str | None], module: str) -> bool:
    """Whether the nearest module above a missing ``module`` may make it: its text puts modules in
    ``sys.modules`` and mentions the missing part's name (in doubt, present).
    """
    parts = module.split(".")
    for i in range(len(parts) - 1, 0, -1):
        path = next((p for p in module_files(".".join(parts[:i])) if p in members), None)
        if path is None:
            continue
        text = read(path)
        if text is None:
            return True
        return "sys.modules" in text and re.search(rf"\b{re.escape(parts[i])}\b", text) is not None
    return False


def missing_kind(members: AbstractSet[str], read: Callable[[str], str | None], module: str, name: str) -> str | None:
    """How ``from module import name`` fares in one release: ``"module"`` (no such module), ``"name"`` (the
    module lacks the name), ``None`` (present or unknown); for :func:`settle`, ``"from:A,B"`` (present in a
    lazy module, imported from its sub-modules ``A``, ``B``) and ``"unmentioned:F,G"`` (not mentioned by a lazy
    module that also exports the names of its folders ``F``, ``G``; ``*``: of any file).
    """
    top = module.split(".", 1)[0]
    if f"{top}/__init__.py" not in members or assumed_present(module):
        return None  # not this package's wheel layout, or bound in C: unknown
    path = next((p for p in module_files(module) if p in members), None)
    if path is None:
        if _native(members, module) or _registered(members, read, module):
            return None
        return "module"
    if any(p in members for p in module_files(f"{module}.{name}")) or _native(members, f"{module}.{name}"):
        return None  # a submodule: imported by the from statement
    text = read(path)
    if text is None:
        return None
    facts = module_facts(text)
    if top in NATIVE and (facts.opaque or facts.lazy or facts.structure):
        return None  # a star import or ``__getattr__`` in a partly-C package: any name may be there
    found = has_name(text, name)
    if found is None:
        return "unmentioned:" + ",".join(sorted(facts.structure))
    if found and facts.lazy and facts.origins.get(name):
        return "from:" + ",".join(sorted(facts.origins[name]))
    return None if found else "name"


def settle(kinds: list[str | None]) -> list[str | None]:
    """Per sampled release (oldest first), ``"module"``, ``"name"`` or ``None`` (present): a name a lazy
    module no longer mentions (``"unmentioned:F"``) is missing only where the last release that had it
    imported it from outside the folders ``F`` (an explicit export dropped, not one moved to a folder
    it reads); in doubt, present.
    """
    settled: list[str | None] = []
    last: set[str] | None = None  # where the last release that had it imported it from (None: unknown)
    for kind in kinds:
        if kind is not None and kind.startswith("unmentioned:"):
            folders = set(kind.split(":", 1)[1].split(","))
            gone = last is not None and "*" not in folders and not last & folders
            settled.append("name" if gone else None)
            continue
        if kind is None or kind.startswith("from:"):
            last = set(kind.split(":", 1)[1].split(",")) if kind else None
            settled.append(None)
            continue
        settled.append(kind)
    return settled


# ---- requirements and rows (pure) ---------------------------------------------------------
def _minor(version: str) -> str:
    v = Version(version)
    return f"{v.major}.{v.minor}.0"


def requirement_for(dist: str, sampled: list[str], missing: set[str]) -> str | None:
    """The requirement that excludes the ``missing`` releases of the ``sampled`` ones (oldest first):
    the present ones' span (``>=`` the first present minor's first dev release, so that a snapshot
    before it, NGC's ``2.2.0a0+git``, is not claimed; ``<`` the first missing minor after the last
    present), and ``!=X.Y.*`` for a missing minor inside it; ``None`` when nothing is missing or
    nothing present.
    """
    present = [i for i, v in enumerate(sampled) if v not in missing]
    if not missing or not present:
        return None
    first, last = present[0], present[-1]
    parts = []
    if first > 0:  # a dev or pre-release of that minor (NGC's and ROCm's 2.2.0a0+git, a nightly) is let in
        parts.append(f">={_minor(sampled[first])}.dev0")
    for v in sampled[first:last]:
        if v in missing:
            parts.append(f"!={Version(v).major}.{Version(v).minor}.*")
    if last < len(sampled) - 1:
        parts.append(f"<{_minor(sampled[last + 1])}")
    return f"{dist}{','.join(parts)}"


def message_for(module: str, name: str, kinds: set[str]) -> str:
    """The regular expression of what CPython raises for ``from module import name`` on the missing releases."""
    found = []
    if "name" in kinds:
        found.append(f"cannot import name '{re.escape(name)}' from '{re.escape(module)}'")
    if "module" in kinds:
        found.append(f"No module named '{re.escape(module)}'")
    return "|".join(found)


@dataclass(frozen=True)
class Finding:
    """One dependent release's import that some dependency releases lack."""

    dist: str
    version: str
    dependency: str
    module: str
    name: str
    requirement: str
    message: str
    source: str


def merge_rows(dist: str, versions: list[str], findings: list[Finding]) -> list[dict[str, Any]]:
    """Rows of consecutive ``versions`` (all the dependent's scanned releases, oldest first) with the same
    requirement and message for one ``(module, name)``; ``until``: the next release without it.
    """
    by_key: dict[tuple[str, str], dict[str, Finding]] = {}
    for f in findings:
        by_key.setdefault((f.module, f.name), {})[f.version] = f
    rows: list[dict[str, Any]] = []
    for (module, name), per_release in sorted(by_key.items()):
        open_row: dict[str, Any] | None = None
        for version in versions:
            hit = per_release.get(version)
            same = (
                open_row is not None
                and hit is not None
                and (hit.requirement, hit.message) == (open_row["requirement"], open_row["message"])
            )
            if same:
                continue
            if open_row is not None:
                open_row["until"] = version
                rows.append(open_row)
                open_row = None
            if hit is not None:
                open_row = {
                    "dist": dist,
                    "since": version,
                    "until": None,
                    "requirement": hit.requirement,
                    "message": hit.message,
                    "source": hit.source,
                    "module": module,
                    "name": name,
                }
        if open_row is not None:
            rows.append(open_row)
    return rows


def _declared(dist: str, version: str, dependency: str) -> list[Requirement] | None:
    """The release's declared requirements on ``dependency`` (``declared.json``); ``None``: not known."""
    from pytest_rocmcompat.knowledge import declared_data

    rel = declared_data.release(dist, version)
    if rel is None or rel.requires is None:
        return None
    return list(declared_data.requirements_on(rel, dependency))


Declared = Callable[[str, str, str], "list[Requirement] | None"]


def excluded(declared: list[Requirement] | None, version: str) -> bool:
    """Whether the declared requirements already keep ``version`` out."""
    return declared is not None and any(not r.specifier.contains(version, prereleases=True) for r in declared)


# ---- reading wheels ----------------------------------------------------------------------
class Sdist:
    """A source archive (``.tar.gz``), read whole: its ``.py`` files under the folder it unpacks to (and
    ``src/``), named as in a wheel (``deepspeed/__init__.py`` for ``DeepSpeed-0.9.0/deepspeed/__init__.py``).
    """

    def __init__(self, fetch: Fetch, url: str, size: int) -> None:
        body = fetch(url, None)
        if body is None:
            raise RegenerateError(f"{url}: not found")
        self.url, self.size = url, size
        self.texts: dict[str, str | None] = {}
        try:
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as tar:
                for member in tar.getmembers():
                    path = sdist_path(member.name)
                    if path is None or not member.isfile():
                        continue
                    data = tar.extractfile(member) if path.endswith(".py") else None
                    self.texts[path] = None if data is None else data.read().decode("utf-8", "replace")
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise RegenerateError(f"{url}: not a source archive ({exc})") from None
        self.members = frozenset(self.texts)

    def read(self, paths: list[str]) -> dict[str, str]:
        return {p: t for p in paths if (t := self.texts.get(p)) is not None}

    def text(self, path: str) -> str | None:
        return self.texts.get(path)


def sdist_path(name: str) -> str | None:
    """A source archive member's path as a wheel would name it: the top folder (and a ``src/``) dropped."""
    parts = name.split("/")[1:]
    if parts[:1] == ["src"]:
        parts = parts[1:]
    return "/".join(parts) or None


def archive(fetch: Fetch, url: str, size: int) -> Wheel | Sdist:
    """The release file at ``url``: a wheel read by ranges, a source archive whole."""
    return Sdist(fetch, url, size) if url.endswith((".tar.gz", ".tgz")) else Wheel(fetch, url, size)


class Counter:
    """A fetch that counts requests and bytes (thread-safe)."""

    def __init__(self, fetch: Fetch) -> None:
        self.fetch, self.requests, self.bytes = fetch, 0, 0
        self._lock = threading.Lock()

    def __call__(self, url: str, span: tuple[int, int] | None) -> bytes | None:
        body = self.fetch(url, span)
        with self._lock:
            self.requests += 1
            self.bytes += len(body or b"")
        return body


class Wheel:
    """A wheel read by byte ranges: its member names, and the texts of the members asked for."""

    def __init__(self, fetch: Fetch, url: str, size: int) -> None:
        self.fetch, self.url, self.size = fetch, url, size
        directory = zip_directory(fetch, url, size)
        if directory is None:
            raise RegenerateError(f"{url}: no zip directory")
        self.entries = {
            name: (method, compressed, offset) for name, method, compressed, offset in zip_members(directory)
        }
        self.texts: dict[str, str | None] = {}
        self.members = frozenset(self.entries)

    def read(self, paths: list[str]) -> dict[str, str]:
        """The texts of ``paths`` (members not there left out); neighbours in one range request."""
        todo = sorted((self.entries[p][2], p) for p in paths if p in self.entries and p not in self.texts)
        groups: list[list[str]] = []
        end = -1
        for offset, path in todo:
            if groups and offset - end < GAP:
                groups[-1].append(path)
            else:
                groups.append([path])
            end = offset + 30 + len(path.encode()) + 1024 + self.entries[path][1]
        for group in groups:
            start = self.entries[group[0]][2]
            last = self.entries[group[-1]]
            stop = min(self.size - 1, last[2] + 30 + len(group[-1].encode()) + 1024 + last[1])
            body = self.fetch(self.url, (start, stop)) or b""
            for path in group:
                self.texts[path] = member_text(body, self.entries[path][2] - start, *self.entries[path][:2])
        return {p: t for p in paths if (t := self.texts.get(p)) is not None}

    def text(self, path: str) -> str | None:
        return self.read([path]).get(path)


def file_rank(filename: str) -> int | None:
    """Which release file to read (lowest first): a ``py3-none-any`` wheel; a Linux x86_64 wheel
    (``py3-none``, then CPython 3.11, 3.10, 3.12, then ``abi3``); a source archive; ``None``: none of these.
    """
    if filename.endswith("-none-any.whl") and "py3" in filename:
        return 0
    if filename.endswith(".whl") and "linux" in filename and "x86_64" in filename:
        tags = ("-py3-none-", "-cp311-cp311-", "-cp310-cp310-", "-cp312-cp312-", "-abi3-")
        return next((1 + i for i, tag in enumerate(tags) if tag in filename), None)
    if filename.endswith(".tar.gz"):
        return 9
    return None


def releases(index_url: str, index: dict[str, Any]) -> dict[str, tuple[str, str, int]]:
    """``{version: (upload date, file url, size)}`` of the final releases with a file :func:`file_rank`
    reads, oldest first.
    """
    found: dict[str, tuple[str, str, int]] = {}
    for version, files in (index.get("releases") or {}).items():
        try:
            v = Version(version)
        except InvalidVersion:
            continue
        if v.is_prerelease or v.is_devrelease or not files:
            continue
        ranked = [
            (rank, str(f["filename"]), f) for f in files if (rank := file_rank(str(f.get("filename", "")))) is not None
        ]
        if not ranked:
            continue
        uploaded = min(str(f.get("upload_time_iso_8601") or f.get("upload_time") or "") for f in files)[:10]
        wheel = min(ranked, key=lambda r: r[:2])[2]
        found[version] = (uploaded, urljoin(index_url, str(wheel["url"])), int(wheel.get("size") or 0))
    return dict(sorted(found.items(), key=lambda kv: Version(kv[0])))


def sample(all_releases: dict[str, tuple[str, str, int]], since: str, before: bool = True) -> list[str]:
    """The newest patch of each minor first released on or after ``since``, and (``before``) of the minor before."""
    minors: dict[tuple[int, int], list[str]] = {}
    for version in all_releases:
        v = Version(version)
        minors.setdefault((v.major, v.minor), []).append(version)
    ordered = sorted(minors)
    first_dates = {m: min(all_releases[v][0] for v in minors[m]) for m in ordered}
    kept = [i for i, m in enumerate(ordered) if first_dates[m] >= since]
    if before and kept and kept[0] > 0:
        kept.insert(0, kept[0] - 1)
    return [max(minors[ordered[i]], key=Version) for i in kept]


def source_url(dist: str, version: str, path: str, line: int) -> str:
    pattern = SOURCES.get(dist)
    if pattern is None:
        return PYPI_PAGE.format(name=dist, version=version)
    return pattern.format(version=version, path=path) + f"#L{line}"


# ---- the scan ----------------------------------------------------------------------------
@dataclass
class Stats:
    releases: int = 0
    seconds: float = 0.0


def scan(
    fetch: Fetch,
    pairs: Iterable[tuple[str, str]],
    since: str,
    dependency_since: str,
    today: str,
    declared: Declared = _declared,
    workers: int = WORKERS,
    stats: Stats | None = None,
) -> dict[str, Any]:
    """The data file as a JSON-ready dict (see the module docstring)."""
    pairs = sorted(set(pairs))
    dependents = sorted({a for a, _ in pairs})
    dependencies = sorted({b for _, b in pairs})
    with ThreadPoolExecutor(max_workers=workers) as pool:
        indexes = dict(
            zip(
                dependents + dependencies,
                pool.map(lambda n: project_index(fetch, n), dependents + dependencies),
                strict=True,
            )
        )
        dependent_releases = {
            name: {v: r for v, r in releases(*indexes[name]).items() if r[0] >= since} for name in dependents
        }
        dependency_all = {name: releases(*indexes[name]) for name in dependencies}
        window = {name: DEPENDENCY_SINCE.get(name, dependency_since) for name in dependencies}
        sampled = {
            name: sample(dependency_all[name], window[name], name not in DEPENDENCY_SINCE) for name in dependencies
        }

        # the dependent side: every release's unconditional imports from its dependencies
        def dependent(job: tuple[str, str]) -> list[Imported]:
            name, version = job
            _date, url, size = dependent_releases[name][version]
            wheel = archive(fetch, url, size)
            deps = [import_name(b) for a, b in pairs if a == name]
            return reachable_imports(import_name(name), wheel.members, wheel.read, deps, ENTRY_MODULES.get(name, ()))

        jobs = [(name, v) for name in dependents for v in dependent_releases[name]]
        imports = dict(zip(jobs, pool.map(dependent, jobs), strict=True))

        # the dependency side: each imported (module, name) in each sampled release
        asked: dict[str, set[tuple[str, str]]] = {b: set() for b in dependencies}
        by_import = {import_name(b): b for b in dependencies}
        for found in imports.values():
            for imp in found:
                asked[by_import[imp.module.split(".")[0]]].add((imp.module, imp.name))

        def dependency(job: tuple[str, str]) -> dict[tuple[str, str], str]:
            name, version = job
            _date, url, size = dependency_all[name][version]
            wheel = archive(fetch, url, size)
            paths = [p for module, _ in asked[name] if not assumed_present(module) for p in module_files(module)]
            wheel.read(paths)
            kinds = {}
            for module, imported in sorted(asked[name]):
                kind = missing_kind(wheel.members, wheel.text, module, imported)
                if kind is not None:
                    kinds[(module, imported)] = kind
            return kinds

        djobs = [(name, v) for name in dependencies for v in sampled[name]]
        missing = dict(zip(djobs, pool.map(dependency, djobs), strict=True))
    if stats is not None:
        stats.releases = len(jobs) + len(djobs)

    rows: list[dict[str, Any]] = []
    for name in dependents:
        findings: list[Finding] = []
        for version in dependent_releases[name]:
            for imp in imports[(name, version)]:
                dep = by_import[imp.module.split(".")[0]]
                if (name, dep) not in pairs:
                    continue
                each = settle([missing[(dep, v)].get((imp.module, imp.name)) for v in sampled[dep]])
                kinds = {v: k for v, k in zip(sampled[dep], each, strict=True) if k is not None}
                recent = [v for v in kinds if dependency_all[dep][v][0] >= window[dep]]
                declared_on = declared(name, version, dep)
                if not recent or all(excluded(declared_on, v) for v in kinds):
                    continue
                requirement = requirement_for(dep, sampled[dep], set(kinds))
                if requirement is None:
                    continue
                findings.append(
                    Finding(
                        name,
                        version,
                        dep,
                        imp.module,
                        imp.name,
                        requirement,
                        message_for(imp.module, imp.name, set(kinds.values())),
                        source_url(name, version, imp.path, imp.line),
                    )
                )
        rows.extend(merge_rows(name, list(dependent_releases[name]), findings))
    rows.sort(key=lambda r: (r["dist"], r["module"], r["name"], Version(r["since"])))
    return {
        "generated": today,
        "tool": "tools/import_scan.py",
        "since": since,
        "dependency_since": dependency_since,
        "dependency_since_of": {name: window[name] for name in dependencies if window[name] != dependency_since},
        "pairs": [
            {
                "dependent": a,
                "dependency": b,
                "dependent_releases": len(dependent_releases[a]),
                "dependency_releases": sampled[b],
            }
            for a, b in pairs
        ],
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=OUT, help="data file to write (default: the committed one)")
    parser.add_argument("--since", default="2023-01-01", help="first upload date of dependent releases scanned")
    parser.add_argument("--dependency-since", default="2022-01-01", help="first dependency minor sampled (date)")
    parser.add_argument("--date", default=None, help="generation date written to the file (default: today, UTC)")
    parser.add_argument("--offline", type=Path, default=None, help="answer from responses saved by --record")
    parser.add_argument("--record", type=Path, default=None, help="save every response under this folder")
    parser.add_argument(
        "--pairs",
        default=None,
        help="comma-separated dependent:dependency pairs (default: all of PAIRS; OPT_IN_PAIRS only so)",
    )
    args = parser.parse_args(argv)
    pairs = PAIRS if args.pairs is None else [tuple(p.split(":", 1)) for p in args.pairs.split(",") if ":" in p]
    base: Fetch = offline_fetch(args.offline) if args.offline else http_fetch
    if args.record:
        base = recording(base, args.record)
    fetch = Counter(base)
    today = args.date or dt.datetime.now(dt.timezone.utc).date().isoformat()
    stats = Stats()
    started = time.monotonic()
    try:
        data = scan(fetch, pairs, args.since, args.dependency_since, today, stats=stats)
    except RegenerateError as exc:
        print(f"import_scan: {exc}; nothing was written", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(
        f"import_scan: {stats.releases} releases, {fetch.requests} requests, {fetch.bytes / 1e6:.1f} MB, "
        f"{time.monotonic() - started:.0f} s, {len(data['rows'])} rows -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

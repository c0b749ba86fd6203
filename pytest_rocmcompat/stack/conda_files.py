"""conda's ways of writing an environment, read into package versions (for stack_files.py).

* ``conda env export`` (an ``environment.yml``): ``name=version=build`` entries and a nested
  ``pip:`` list, whose pins stack_files.py reads as requirements;
* ``conda list --export``: a ``# platform: linux-64`` header, then ``name=version=build`` lines
  (``=pypi_0``: installed by pip; ``=dev_0``: installed in development mode);
* ``conda list --explicit``: ``@EXPLICIT``, then package URLs (``.../name-version-build.conda``);
* plain ``conda list``: ``# packages in environment at PATH:``, then ``name version build
  channel`` columns (channel ``pypi``: installed by pip; ``<develop>``: in development mode).

Every entry goes through one function, :func:`add_entry`, whatever the format: ``python=`` is the
stack's Python, ``pytorch`` is ``torch``, the selectors ``pytorch-cuda``/``pytorch-gpu``/
``pytorch-cpu`` are not packages, a version that is not PEP 440 (a system library's ``9e``) is
skipped, a range is refused naming the file and line. conda's own CUDA and NCCL packages
(``cudatoolkit``, ``cuda-version``, ``cuda-cudart``, ``nccl``) stay in the stack under their names.

conda's torch says which build it is in its build string, where a wheel says it in its version
(``+cu121``): :func:`torch_build_label` reads it, and where the build string does not say, the
environment's selector packages do (``cpuonly``, ``pytorch-cuda=12.1``); torch gets that label, so
conda's CUDA torch is not taken for PyPI's default wheel. A version with a label keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.stack.environment import normalize_library
from pytest_rocmcompat.stack.pytorch_index import labelled
from pytest_rocmcompat.stack.stack_model import StackFileError

CONDA_EXPORT_HOW = "write the environment with `conda env export` (not --from-history)"
CONDA_LIST_HOW = "write the environment with `conda list --export`"
_RENAMED = {"pytorch": "torch", "pytorch-gpu": None, "pytorch-cpu": None, "pytorch-cuda": None}
_NOT_PINNED = "<>*!,|"
_EXPORT_ROW = re.compile(r"^(?:[\w.-]+::)?[\w.+-]+=[^=\s]+=[^=\s]+$")  # name=version=build
# its headers: the environment line, `# Name Version Build Channel` (a list pasted from there on), --export's platform
_LIST_HEADER = re.compile(
    r"(?m)^(# packages in environment at |# platform: |@EXPLICIT\s*$|#\s*Name\s+Version\s+Build(?:\s+Channel)?\s*$)"
)


def looks_like_conda_list(text: str) -> bool:
    """``conda list`` (its ``# packages in environment at`` header), ``conda list --export``/``--explicit``
    (``# platform:``, ``@EXPLICIT``), or lines that are all ``name=version=build``.
    """
    if _LIST_HEADER.search(text):
        return True
    rows = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return bool(rows) and all(_EXPORT_ROW.match(row) for row in rows)


@dataclass(frozen=True)
class CondaEntry:
    """One installed conda package as a file states it."""

    item: str  # as written, for messages
    name: str
    version: str
    build: str = ""
    channel: str = ""  # "pypi": installed by pip; "<develop>": installed in development mode
    where: str = ""  # FILE:LINE (FILE when the line is not known)


@dataclass
class CondaStack:
    """What the entries say, as :func:`add_entry` gathers them; :func:`finish` gives the packages."""

    how: str  # how to write the file pinned, for the errors
    conda: dict[str, str] = field(default_factory=dict)
    pip: dict[str, str] = field(default_factory=dict)  # installed by pip: over conda's package of the name
    python: str | None = None
    not_checkable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    torch_build: str = ""
    cpuonly: bool = False
    pytorch_cuda: str | None = None


def add_entry(stack: CondaStack, entry: CondaEntry) -> None:
    """One conda entry into the stack, by the same rules for every conda format."""
    version = entry.version.strip()
    if not version or any(c in version for c in _NOT_PINNED):
        raise StackFileError(
            f"{entry.where}: {entry.item} is not pinned to one version: a range is not a stack; {stack.how}"
        )
    if entry.channel == "<develop>" or re.fullmatch(r"dev_\d+", entry.build):
        stack.not_checkable.append(
            f"{entry.where}: {entry.name} {version} installed in development mode (an editable install has no "
            "released version)"
        )
        return
    pip = entry.channel == "pypi" or re.fullmatch(r"pypi_\d+", entry.build) is not None
    name = normalize_library(entry.name)
    if not pip and name == "python":
        stack.python = version
        return
    if not pip and name == "cpuonly":
        stack.cpuonly = True
    if not pip and name == "pytorch-cuda":
        stack.pytorch_cuda = version
    renamed = name if pip else _RENAMED.get(name, name)
    if renamed is None:
        return  # a selector of conda's torch build, no Python package
    try:
        Version(version)
    except InvalidVersion:
        stack.skipped.append(f"{entry.where}: {entry.item} (not a PEP 440 version; a system library)")
        return
    if pip:
        stack.pip[renamed] = version
        return
    stack.conda[renamed] = version
    if renamed == "torch":
        stack.torch_build = entry.build


def finish(stack: CondaStack) -> dict[str, str]:
    """The packages: conda's (torch and its domain libraries with its build's label), pip's over them; sorted."""
    packages = dict(stack.conda)
    torch = packages.get("torch")
    if torch is not None and Version(torch).local is None:
        label = torch_build_label(stack.torch_build) or _selected_label(stack)
        # torch's domain libraries take its label too: the solver pairs their conda builds with conda's torch
        # build (the pytorch channel's torchvision depends on the same pytorch-cuda/cpuonly selector;
        # conda-forge's are built per torch build), so no check reads them as PyPI's wheels (companion_defaults)
        packages = labelled(packages, {label} if label else set())
    packages.update(stack.pip)
    return dict(sorted(packages.items()))


def torch_build_label(build: str) -> str | None:
    """The wheel's local label (``cu121``, ``cpu``) that a conda torch build string states, or None.

    The shapes, as the channels build them:

    * the pytorch channel: ``py3.10_cuda12.1_cudnn8.9.2_0`` and ``py3.8_cpu_0``; seen in
      https://github.com/dphnAI/sonar/issues/784 (``pytorch 2.4.0 py3.11_cuda12.4_cudnn9.1.0_0``)
      and https://github.com/pytorch/pytorch/issues/92273 (``pytorch-1.12.1 py3.8_cpu_0``);
    * conda-forge: ``cuda{XY}py{PY}h...``/``cpu_py{PY}h...`` (1.x to 2.1.0),
      ``cuda{XY}_py{PY}h...``/``cpu_{blas}_py{PY}h...`` (2.1.2 to 2.5.1: ``cuda120_py310h...``,
      ``cuda118_py39h...``) and ``cuda{XY}_{blas}_py{PY}_h...``/``cpu_{blas}_py{PY}_h...`` since
      (``cuda126_generic_py312_h...``, ``cpu_mkl_py311_h...``, ``cpu_generic_py311_h...``), with
      ``{XY}`` the CUDA version without its dot and ``{blas}`` ``generic`` or ``mkl``: the recipe's
      ``string:`` lines in
      https://github.com/conda-forge/pytorch-cpu-feedstock/blob/898ca4abc08ac1cb38b7658fdb48868206ad12f2/recipe/meta.yaml,
      https://github.com/conda-forge/pytorch-cpu-feedstock/blob/7d9fd51a98e99c8d3cc797f18e9bf9c804960190/recipe/meta.yaml
      and https://github.com/conda-forge/pytorch-cpu-feedstock/blob/74dd3d46ff0c3d05053197961386b5a2018cf3d1/recipe/meta.yaml;
      Anaconda's defaults name builds the same way (``cuda100py36h...``, seen in
      https://github.com/verm/freebsd-stable-diffusion/issues/7).

    There is no ROCm build of torch on conda to read: "PyTorch via Anaconda is not supported on
    ROCm currently" (https://github.com/pytorch/pytorch.github.io/pull/1096), and conda-forge
    lists ROCm as to do (https://github.com/conda-forge/pytorch-cpu-feedstock/issues/229).
    """
    pytorch_channel = re.search(r"(?:^|_)cuda(\d+)\.(\d+)", build)  # cuda12.1, cuda10.1.243
    if pytorch_channel:
        return f"cu{pytorch_channel.group(1)}{pytorch_channel.group(2)}"
    conda_forge = re.match(r"cuda(\d+)(?=_|py)", build)
    if conda_forge:
        return f"cu{conda_forge.group(1)}"
    if build.startswith("cpu_") or re.fullmatch(r"py\d+(?:\.\d+)?_cpu_\d+", build):
        return "cpu"
    return None


def _selected_label(stack: CondaStack) -> str | None:
    """What the selector packages choose: ``cpuonly`` a CPU build, ``pytorch-cuda=12.1`` a CUDA 12.1 one."""
    if stack.cpuonly and stack.pytorch_cuda is None:
        return "cpu"
    if stack.pytorch_cuda is not None and not stack.cpuonly:
        try:
            release = Version(stack.pytorch_cuda).release
        except InvalidVersion:
            return None
        if len(release) >= 2:
            return f"cu{release[0]}{release[1]}"
    return None


# ---------------------------------------------------------------------------- conda env export
def read_conda_export(path: str, text: str) -> tuple[CondaStack, list[tuple[int, str]]]:
    """An ``environment.yml``: its conda entries and its ``pip:`` list (line number, requirement)."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        problem = getattr(exc, "problem", None) or "syntax error"
        raise StackFileError(f"{where}: not valid YAML ({problem}); write it with `conda env export`") from None
    if not isinstance(data, dict) or not isinstance(data.get("dependencies"), list):
        raise StackFileError(
            f"{path}: no `dependencies:` list; a conda environment export has one (`conda env export`)"
        )
    lines = text.splitlines()
    stack = CondaStack(CONDA_EXPORT_HOW)
    pip_lines: list[tuple[int, str]] = []
    for item in data["dependencies"]:
        if isinstance(item, dict) and isinstance(item.get("pip"), list):
            pip_lines.extend((_line_of(lines, str(entry)), str(entry)) for entry in item["pip"])
            continue
        if not isinstance(item, str):
            raise StackFileError(f"{path}: dependencies: {item!r} is neither `name=version=build` nor a `pip:` list")
        number = _line_of(lines, item)
        add_entry(stack, _split_equals(item, f"{path}:{number}" if number else path))
    return stack, pip_lines


def _line_of(lines: list[str], entry: str) -> int:
    for number, line in enumerate(lines, 1):
        if re.match(rf"^\s*-\s*['\"]?{re.escape(entry)}['\"]?\s*(#.*)?$", line):
            return number
    return 0


def _split_equals(item: str, where: str) -> CondaEntry:
    """``[channel::]name=version[=build]``."""
    channel, _, spec = item.strip().rpartition("::")
    parts = spec.split("=")
    name = parts[0].strip()
    version = parts[1].strip() if len(parts) > 1 else ""
    build = parts[2].strip() if len(parts) > 2 else ""
    if re.search(r"[<>!~*,|\s]", name):
        version = ""  # `numpy>=1.26`, `numpy 1.26.*`: a range, whatever follows
    return CondaEntry(item.strip(), name, version, build, channel, where)


# ---------------------------------------------------------------------------- conda list
def read_conda_list(path: str, text: str) -> CondaStack:
    """``conda list``, ``conda list --export`` or ``conda list --explicit`` output."""
    stack = CondaStack(CONDA_LIST_HOW)
    explicit = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s+)#.*$", "", raw).strip()
        where = f"{path}:{number}"
        if not line:
            continue
        if line == "@EXPLICIT":
            explicit = True
            continue
        if explicit:
            add_entry(stack, _from_url(line, where))
        elif not re.search(r"\s", line):  # name=version=build (`name` alone, `name>=1`: a range)
            add_entry(stack, _split_equals(line, where))
        else:
            add_entry(stack, _from_columns(line, where))
    return stack


def _from_columns(line: str, where: str) -> CondaEntry:
    """A row of ``conda list``: ``name version build [channel]``."""
    columns = line.split()
    if len(columns) not in (3, 4):
        raise StackFileError(
            f"{where}: `{line}` is not a `conda list` row (NAME VERSION BUILD CHANNEL) nor `name=version=build`; "
            f"{CONDA_LIST_HOW}"
        )
    name, version, build, *channel = columns
    return CondaEntry(line, name, version, build, channel[0] if channel else "", where)


def _from_url(line: str, where: str) -> CondaEntry:
    """A line of ``conda list --explicit``: ``https://.../linux-64/name-version-build.conda#hash``."""
    filename = line.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    stem = re.sub(r"\.(conda|tar\.bz2)$", "", filename)
    parts = stem.rsplit("-", 2)
    if stem == filename or len(parts) != 3 or not all(parts):
        raise StackFileError(
            f"{where}: `{line}` is not a conda package URL (.../NAME-VERSION-BUILD.conda); {CONDA_LIST_HOW}"
        )
    return CondaEntry(filename, parts[0], parts[1], parts[2], "", where)

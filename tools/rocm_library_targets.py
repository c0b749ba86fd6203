"""Regenerate ``knowledge/data/library_targets.json``: the GPU processors each ROCm release's rocBLAS and RCCL are built for.

Reads local clones of https://github.com/ROCm/rocBLAS and https://github.com/ROCm/rccl (their tags): at every
release tag ``rocm-X.Y.Z``, the default target list of the top ``CMakeLists.txt``, in whichever form that
release wrote it:

- rocBLAS 3.x: ``set( gpus "gfx803;...")``; 4.3-5.3: ``rocm_check_target_ids(... TARGETS "...")`` and the
  ``set(target_list "...")`` fallbacks; 5.4 on: one ``TARGET_LIST_ROCM_X.Y`` per ROCm series, chosen by
  the release's own ``ROCM_PLATFORM_VERSION`` (the newest list not newer than the tag's series);
- RCCL 3.x-4.2: ``set(AMDGPU_TARGETS gfx803;...)``; 4.5-5.6: ``DEFAULT_AMDGPU_TARGETS``; 5.7 on:
  ``set(DEFAULT_GPUS gfx803 ...)``; and for RCCL the ROCm series each RCCL release (NCCL's
  ``makefiles/version.mk`` numbering, as torch reports it) first shipped with.

Where a file carries a full list and fallbacks for an old compiler (no target-ID syntax), the lists are
joined: every fallback is a subset, and a release's own compiler takes the full one. The ``set_property(...
STRINGS ...)`` menus are not read (they offer choices, not the build). Feature suffixes (``:xnack-``) are
dropped. A series' row is the union over its patch tags (a check claims a GPU only where no build of the
series lists it), with the tags read. The checks add hand rows, each sourced, for the releases after the
libraries moved into ROCm/rocm-libraries and ROCm/rocm-systems (6.3 on).

    python -m tools.rocm_library_targets --rocblas /path/to/rocBLAS --rccl /path/to/rccl > \\
        pytest_rocmcompat/knowledge/data/library_targets.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

from packaging.version import Version

from tools.git_read import git

REPOS = {"rocblas": "ROCm/rocBLAS", "rccl": "ROCm/rccl"}
_TAG = re.compile(r"^rocm-(\d+)\.(\d+)\.(\d+)$")
_COMMAND = re.compile(r"\b([A-Za-z_]\w*)[ \t]*\(")
_GFX = re.compile(r"\bgfx[0-9a-f]{3,4}\b")
_LIST_VARIABLES = frozenset({"gpus", "target_list", "AMDGPU_TARGETS", "DEFAULT_AMDGPU_TARGETS", "DEFAULT_GPUS"})
_PER_SERIES = re.compile(r"^TARGET_LIST_ROCM_(\d+\.\d+)$")
# RCCL keeps NCCL's version file: the version torch reports for it (torch.cuda.nccl.version() on ROCm)
_RCCL_VERSION = re.compile(r"^NCCL_(MAJOR|MINOR|PATCH)\s*:=\s*(\d+)", re.MULTILINE)


def release_tags(repo: Path) -> list[tuple[Version, str]]:
    """(release, tag) of every ``rocm-X.Y.Z`` tag, oldest first."""
    found = [(Version(".".join(m.groups())), tag) for tag in git(repo, "tag").split() if (m := _TAG.match(tag))]
    return sorted(found)


def commands(text: str) -> list[tuple[str, str]]:
    """(name, argument text) of each CMake command call, comments removed, nested parentheses kept."""
    text = re.sub(r"#[^\n]*", "", text)
    found = []
    for m in _COMMAND.finditer(text):
        depth, end = 1, m.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        found.append((m.group(1), text[m.end() : end - 1]))
    return found


def default_targets(cmake: str, series: Version) -> list[str]:
    """The processors (no feature suffixes) a ``CMakeLists.txt`` builds for by default, for a release of ``series``."""
    joined: list[str] = []
    per_series: dict[Version, list[str]] = {}
    for name, args in commands(cmake):
        words = args.split(None, 1)
        if not words:
            continue
        gfx = _GFX.findall(args)
        if name.lower() == "set" and (m := _PER_SERIES.match(words[0])):
            per_series[Version(m.group(1))] = gfx
        elif (name.lower() == "set" and words[0] in _LIST_VARIABLES) or name == "rocm_check_target_ids":
            joined += gfx
    if per_series:
        usable = [v for v in per_series if v <= series]
        joined = per_series[max(usable)] if usable else []
    return list(dict.fromkeys(joined))


def rccl_version(repo: Path, tag: str) -> str | None:
    """The RCCL release at ``tag`` (``makefiles/version.mk``: ``2.20.5``), ``None`` where the file is missing."""
    try:
        parts = dict(_RCCL_VERSION.findall(git(repo, "show", f"{tag}:makefiles/version.mk")))
    except subprocess.CalledProcessError:
        return None
    return ".".join(parts[k] for k in ("MAJOR", "MINOR", "PATCH")) if len(parts) == 3 else None


def first_series(repo: Path) -> dict[str, str]:
    """RCCL release -> the ROCm series it first shipped with (its first ``rocm-X.Y.Z`` tag)."""
    found: dict[str, str] = {}
    for release, tag in release_tags(repo):
        version = rccl_version(repo, tag)
        if version is not None:
            found.setdefault(version, f"{release.major}.{release.minor}")
    return found


class SeriesRow(TypedDict):
    """One ROCm series' row: the union of its tags' targets (first-seen order), the tags read, the first's commit."""

    targets: list[str]
    tags: list[str]
    commit: str


def series_targets(repo: Path) -> dict[str, SeriesRow]:
    """ROCm series -> its :class:`SeriesRow`, oldest first."""
    rows: dict[str, SeriesRow] = {}
    for release, tag in release_tags(repo):
        series = f"{release.major}.{release.minor}"
        try:
            cmake = git(repo, "show", f"{tag}:CMakeLists.txt")
        except subprocess.CalledProcessError:
            continue
        targets = default_targets(cmake, Version(series))
        if not targets:
            continue
        if series not in rows:
            rows[series] = SeriesRow(targets=[], tags=[], commit=git(repo, "rev-list", "-n1", tag).strip())
        row = rows[series]
        row["targets"] = list(dict.fromkeys([*row["targets"], *targets]))
        row["tags"].append(tag)
    return rows


def generate(clones: dict[str, Path]) -> dict[str, object]:
    """The data file's content: its date, and per library its repository and per-series rows."""
    libraries: dict[str, dict[str, object]] = {
        name: {"repository": REPOS[name], "series": series_targets(path)} for name, path in clones.items()
    }
    if "rccl" in clones:
        libraries["rccl"]["releases"] = first_series(clones["rccl"])
    return {
        "generated": str(datetime.date.today()),
        "by": "python -m tools.rocm_library_targets",
        "libraries": libraries,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, repo in REPOS.items():
        parser.add_argument(f"--{name}", type=Path, required=True, help=f"a clone of {repo} with its tags")
    args = parser.parse_args(argv)
    print(json.dumps(generate({name: getattr(args, name) for name in REPOS}), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

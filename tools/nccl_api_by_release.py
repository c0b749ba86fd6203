"""Regenerate ``nccl_symbols.SINCE``: the first NCCL release whose public header declares each API function.

Reads a local clone of https://github.com/NVIDIA/nccl (its tags): at every release tag ``vX.Y.Z-1``, the
functions ``src/nccl.h.in`` (``src/nccl.h`` in old trees) declares (``ncclResult_t ncclName(``,
``const char* ncclGetLastError(``). Functions
already in the oldest tag read are left out (their first release is not known from the clone).

    python -m tools.nccl_api_by_release /path/to/nccl            # the table, as Python, with the date
    python -m tools.nccl_api_by_release /path/to/nccl --json
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

from packaging.version import Version

from tools.git_read import git

_TAG = re.compile(r"^v(2\.\d+\.\d+)-1$")  # NCCL 2 (libnccl.so.2); 1.x was another library
# a declaration at the start of a line: its return type (ncclResult_t, const char*, void, ...), then the name
_DECLARED = re.compile(r"^[ \t]*(?:const[ \t]+)?[A-Za-z_]\w*[ \t*]+(nccl[A-Z]\w*)[ \t]*\(", re.MULTILINE)
HEADERS = ("src/nccl.h.in", "src/nccl.h")


def release_tags(repo: Path) -> list[tuple[Version, str]]:
    """(release, tag) of every ``vX.Y.Z-1`` tag, oldest first."""
    found = [(Version(m.group(1)), tag) for tag in git(repo, "tag").split() if (m := _TAG.match(tag))]
    return sorted(found)


def declared(repo: Path, tag: str) -> set[str]:
    """The API functions the public header at ``tag`` declares (none when it has no such header)."""
    for header in HEADERS:
        try:
            text = git(repo, "show", f"{tag}:{header}")
        except subprocess.CalledProcessError:
            continue
        return set(_DECLARED.findall(text))
    return set()


def first_releases(repo: Path) -> dict[str, str]:
    """Function -> the first release declaring it, oldest first; those of the oldest tag read left out."""
    since: dict[str, str] = {}
    seen: set[str] | None = None
    for release, tag in release_tags(repo):
        functions = declared(repo, tag)
        if not functions:
            continue
        if seen is None:
            seen = set(functions)
            continue
        for name in sorted(functions - seen):
            since[name] = str(release)
        seen |= functions
    return since


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a clone of NVIDIA/nccl with its tags")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    since = first_releases(args.repo)
    if args.json:
        print(json.dumps(since, indent=2))
        return 0
    tags = release_tags(args.repo)
    print(f"# read {datetime.date.today()} from tags {tags[0][1]} ... {tags[-1][1]}")
    print("SINCE: dict[str, str] = {")
    for name, release in since.items():
        print(f'    "{name}": "{release}",')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate ``knowledge.distro_glibc.GLIBC``: the glibc each Linux distribution release ships.

Reads a local clone of https://github.com/mayeut/pep600_compliance (the data behind the manylinux
README's distribution table): ``cache/x86_64/<distro>-<release>.json``, field ``glibc_version``, and
names each release as ``--rocm-set os=`` records it (``Linux ubuntu-22.04``, ``Linux rhel-9``).
Rolling and development releases are left out (no fixed glibc).

    python -m tools.distro_glibc /path/to/pep600_compliance
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

from tools.git_read import git

# their distribution name -> ours (stack.overrides' short names); RHEL's UBI images stand for RHEL and CentOS
NAMES: dict[str, tuple[str, ...]] = {
    "ubuntu": ("ubuntu",),
    "debian": ("debian",),
    "rhubi": ("rhel", "centos"),
    "centos-stream": ("centos-stream",),
    "rockylinux": ("rocky",),
    "almalinux": ("almalinux",),
    "oraclelinux": ("oraclelinux",),
    "fedora": ("fedora",),
    "opensuse": ("opensuse",),
    "amazonlinux": ("amazonlinux",),
}
_FILE = re.compile(r"^(?P<name>[a-z]+(?:-stream)?)-?(?P<release>\d+(?:\.\d+)?)\.json$")


def table(repo: Path) -> dict[tuple[str, str], str]:
    """(our distribution name, release) -> its glibc, for every fixed release of a distribution we name."""
    found: dict[tuple[str, str], str] = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "cache/x86_64").split():
        match = _FILE.match(Path(path).name)
        if match is None or match.group("name") not in NAMES:
            continue
        glibc = json.loads(git(repo, "show", f"HEAD:{path}"))["glibc_version"]
        for ours in NAMES[match.group("name")]:
            found[(ours, match.group("release"))] = str(glibc)
    return dict(sorted(found.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a clone of mayeut/pep600_compliance")
    args = parser.parse_args(argv)
    commit = git(args.repo, "rev-parse", "HEAD").strip()
    print(f"# read {datetime.date.today()} from mayeut/pep600_compliance@{commit[:12]} (cache/x86_64/*.json)")
    print("GLIBC: dict[tuple[str, str], str] = {")
    for (name, release), glibc in table(args.repo).items():
        print(f'    ("{name}", "{release}"): "{glibc}",')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

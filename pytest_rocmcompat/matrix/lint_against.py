"""``rocmcompat lint MATRIX --against PATH...``: node-id rules that match no collected test.

A rule whose ``applies_to.nodeids`` pattern matches no test silently never fires (a typo, a
renamed test, an exact id whose parameter part was once read as a glob class). The tests are
collected by a real ``pytest --collect-only -q`` subprocess in the current directory, so
rootdir, ini, conftests and plugins are the project's own; this module, loaded into it with
``-p``, writes the collected node ids to a file. Rules of the bundled database are not checked
(they name the bundled suites' tests).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_rocmcompat.matrix.model import Matrix

if TYPE_CHECKING:  # for the hook's annotation only: the lint command imports this module too
    import pytest

IDS_FILE_VAR = "ROCMCOMPAT_COLLECTED_IDS"


def pytest_collection_finish(session: pytest.Session) -> None:
    path = os.environ.get(IDS_FILE_VAR)
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump([item.nodeid for item in session.items], fh)


class CollectError(Exception):
    """pytest could not collect the given paths."""


def collect_node_ids(paths: Sequence[str], cwd: str | None = None) -> list[str]:
    """Node ids pytest collects from ``paths`` (a real subprocess, the project's configuration)."""
    with tempfile.TemporaryDirectory(prefix="rocmcompat-lint-") as tmp:
        out = os.path.join(tmp, "ids.json")
        env = {**os.environ, IDS_FILE_VAR: out}
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "pytest_rocmcompat.matrix.lint_against",
                *paths,
            ],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,  # a failed collection is reported below with pytest's own words
        )
        if proc.returncode not in (0, 5) or not os.path.exists(out):  # 5: nothing collected
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
            raise CollectError(f"pytest --collect-only {' '.join(paths)} exited with {proc.returncode}:\n{tail}")
        with open(out, encoding="utf-8") as fh:
            return json.load(fh)


def unmatched_patterns(matrix: Matrix, node_ids: Sequence[str]) -> list[str]:
    """One warning line (``file:line: rule ID: ...``) per node-id pattern matching no collected test."""
    from pytest_rocmcompat.knowledge.rules.engine import _glob
    from pytest_rocmcompat.matrix.loader import bundled_matrices_dir

    bundled = str(bundled_matrices_dir().resolve())
    warnings = []
    for rule in matrix.rules:
        if not rule.applies_to.nodeids or str(Path(rule.file).resolve()).startswith(bundled):
            continue
        for pattern in rule.applies_to.nodeids:
            regex = re.compile(_glob(pattern))
            if not any(regex.match(nodeid) for nodeid in node_ids):
                warnings.append(
                    f"{rule.location}: rule {rule.id}: applies_to.nodeids pattern {pattern!r} "
                    f"matches none of the {len(node_ids)} collected tests"
                )
    return warnings

"""A matrix or replay file outside the host project must not move pytest's rootdir (issue 18.1)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import CPU_ENV

MATRIX = """
name: Outside
known_bad:
  - id: param-skip
    applies_to: {nodeids: ["tests/test_a.py::TestA::test_p[x 1]"]}
    action: skip
    reason: literal node id with a space
"""


@pytest.fixture
def layout(pytester: pytest.Pytester) -> Path:
    """``proj/`` (no pytest config, like accelerate) and ``elsewhere/`` (a checkout with a config)."""
    proj = pytester.path / "proj"
    (proj / "tests").mkdir(parents=True)
    (proj / "tests" / "test_a.py").write_text(
        "import pytest\n\nclass TestA:\n    @pytest.mark.parametrize('v', ['x 1', 'y'])\n"
        "    def test_p(self, v):\n        pass\n"
    )
    elsewhere = pytester.path / "elsewhere"
    (elsewhere / "matrices").mkdir(parents=True)
    (elsewhere / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["suites"]\n')
    (elsewhere / "matrices" / "m.yaml").write_text(MATRIX)
    (elsewhere / "env.json").write_text(CPU_ENV.to_json())
    return pytester.path


def _run(pytester: pytest.Pytester, cwd: Path, *args: str) -> tuple[pytest.RunResult, str, list[tuple[str, str]]]:
    junit = cwd.parent / f"junit{len(list(cwd.parent.glob('junit*.xml')))}.xml"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        result = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider", f"--junitxml={junit}", *args)
    header = "\n".join(line for line in result.outlines if line.startswith(("rootdir:", "configfile:")))
    cases = [(c.get("classname"), c.get("name")) for c in ET.parse(junit).iter("testcase")]
    return result, header, cases


@pytest.mark.parametrize("form", ["space", "equals"])
def test_outside_matrix_and_env_keep_rootdir_and_node_ids(pytester: pytest.Pytester, layout: Path, form: str) -> None:
    proj, elsewhere = layout / "proj", layout / "elsewhere"
    plain, plain_header, plain_cases = _run(pytester, proj, "--rocm-no-bundled", f"--rocm-env={elsewhere / 'env.json'}")
    if form == "space":
        options = ["--rocm-matrix", str(elsewhere / "matrices" / "m.yaml"), "--rocm-env", str(elsewhere / "env.json")]
    else:
        options = [f"--rocm-matrix={elsewhere / 'matrices' / 'm.yaml'}", f"--rocm-env={elsewhere / 'env.json'}"]
    ruled, header, cases = _run(pytester, proj, *options)
    assert plain.ret == ruled.ret == 0, ruled.stdout.str()
    assert header == plain_header and f"rootdir: {proj}" in header and "configfile" not in header
    assert cases == plain_cases == [("tests.test_a.TestA", "test_p[x 1]"), ("tests.test_a.TestA", "test_p[y]")]
    ruled.stdout.fnmatch_lines(
        [
            "tests/test_a.py::TestA::test_p[[]x 1] SKIPPED ([[]param-skip] literal*",
            "tests/test_a.py::TestA::test_p[[]y] PASSED*",
        ]
    )


def test_cannot_repair_when_the_wrong_config_had_addopts(pytester: pytest.Pytester, layout: Path) -> None:
    elsewhere = layout / "elsewhere"
    (elsewhere / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-p no:doctest"\n')
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(layout / "proj")
        result = pytester.runpytest_subprocess(
            "--rocm-matrix", str(elsewhere / "matrices" / "m.yaml"), f"--rocm-env={elsewhere / 'env.json'}"
        )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    assert re.search(r"m\.yaml given as separate arguments made pytest choose rootdir .*elsewhere", text)
    assert "--rocm-matrix=PATH" in text and "Traceback" not in text

"""uv's resolver reports, as users quote them, claimed by the checks whose failures they are.

uv (PubGrub) words a conflict and a missing wheel differently from pip: "Because X==1 depends on
Y==2 and ..." and "X has no wheels with a matching Python ABI tag".
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import requirements, wheel_python

# astral-sh/uv#14178 (uv sync on axolotl 0.10.0 beside torch 2.7.1)
UV_CONFLICT = (
    "  × No solution found when resolving dependencies for split (python_full_version >= '3.11.0' and "
    "python_full_version < '3.12' and sys_platform == 'linux'):\n"
    "  ╰─▶ Because axolotl==0.10.0 depends on torch==2.6.0 and your project depends on axolotl==0.10.0, we can "
    "conclude that your project depends on torch==2.6.0."
)
# astral-sh/uv#622, a maintainer's output of uv pip install "torchaudio>=2,<2.2.0" on Python 3.12
UV_NO_WHEEL = (
    "      And because torchaudio>=2.0.1,<=2.1.2 has no wheels with a matching Python ABI tag and you require\n"
    "      torchaudio>=2,<2.2.0, we can conclude that your requirements are unsatisfiable."
)


def test_uvs_conflict_report_is_a_broken_pair() -> None:
    # the line alone, without uv's "No solution found" header, is still the pair's report
    line = UV_CONFLICT.splitlines()[1]
    assert re.search(requirements.PREDICTS, line)
    assert len(requirements.PREDICTS) <= 2000  # every signature's cap


# Other resolvers' reports of a pinned pair, verbatim (twenty-sixth round)
OTHER_RESOLVERS = [
    ("Because torchvision (0.8.2+cu101) depends on torch (1.7.1)", "https://github.com/pytorch/vision/issues/4819"),
    ("  SolverProblemError", "https://github.com/pytorch/vision/issues/4347"),  # Poetry's exception, its header
    ("Package pytorch conflicts for:", "https://github.com/pytorch/pytorch/issues/77463"),  # conda's classic solver
    (
        "pdm.termui: Candidate rejected: torchvision@0.18.1+cu121 because it introduces a new requirement "
        "torch==2.3.1 that conflicts with other requirements:",
        "https://github.com/pdm-project/pdm/issues/2962",
    ),
    (
        "    └─ torchvision =* * is not installable because there are no viable options",
        "https://github.com/conda-forge/pytorch-cpu-feedstock/issues/390",
    ),
]


@pytest.mark.parametrize(("text", "source"), OTHER_RESOLVERS)
def test_other_resolvers_reports_are_a_broken_pair(text: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert re.search(requirements.PREDICTS, text)


def test_uvs_missing_wheel_report_is_no_wheel_for_python() -> None:
    assert re.search(wheel_python.PREDICTS, UV_NO_WHEEL)


@pytest.mark.parametrize(
    "text",
    [
        "Because torch==2.5.1+cpu has no wheels with a matching platform tag",  # a platform, not the Python
        "RuntimeError: a genuinely different regression",
        "the project depends on numpy",  # prose, no pinned release
        "Because of this, torch (the library) depends on nothing",  # prose with parentheses, no pinned release
    ],
)
def test_other_texts_are_not_claimed(text: str) -> None:
    assert re.search(wheel_python.PREDICTS, text) is None
    assert re.search(requirements.PREDICTS, text) is None

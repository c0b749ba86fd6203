"""The terminal header names the active known-bad rules (issue 27): ids, bounded, and under
``-v`` one line each with the rule's action and reason."""

from __future__ import annotations

import pytest

from tests.conftest import CPU_ENV


def _matrix(n: int) -> str:
    rules = "".join(
        f"""
  - id: rule-{i:02d}
    when: {{platform: cpu}}
    applies_to: {{nodeids: ["test_x.py::test_never_{i}"]}}
    action: {"skip" if i % 2 else "xfail"}
    reason: |
      reason number {i}
      on a second line
"""
        for i in range(n)
    )
    return f"""known_bad:{rules}
  - id: rocm-only
    when: {{platform: rocm}}
    applies_to: {{all: true}}
    action: skip
    reason: not on this machine
"""


@pytest.fixture
def run(pytester: pytest.Pytester):
    def go(n: int, *args: str) -> pytest.RunResult:
        (pytester.path / "env.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
        pytester.makefile(".yaml", matrix=_matrix(n))
        pytester.makepyfile(test_x="def test_ok():\n    pass\n")
        return pytester.runpytest(
            "--rocm-env", "env.json", "--rocm-matrix", "matrix.yaml", "-p", "no:cacheprovider", *args
        )

    return go


def test_header_names_the_active_rules(run) -> None:
    result = run(2)
    result.stdout.fnmatch_lines(
        ["rocmcompat: 2 of 3 known-bad rules active (matrix.yaml)", "rocmcompat:   active: rule-00, rule-01"]
    )
    assert "rocm-only" not in result.stdout.str()  # inactive rules are not named


def test_header_lists_at_most_ten_then_counts_the_rest(run) -> None:
    result = run(13)
    result.stdout.fnmatch_lines(
        [
            "rocmcompat: 13 of 14 known-bad rules active (matrix.yaml)",
            "rocmcompat:   active: " + ", ".join(f"rule-{i:02d}" for i in range(10)) + " +3 more",
        ]
    )
    assert "rule-10" not in result.stdout.str()


def test_verbose_header_describes_each_rule_on_one_line(run) -> None:
    result = run(12, "-v")
    result.stdout.fnmatch_lines(
        [
            "rocmcompat: 12 of 13 known-bad rules active (matrix.yaml)",
            "rocmcompat:   rule-00 (xfail): reason number 0 on a second line",
            "rocmcompat:   rule-01 (skip): reason number 1 on a second line",
            "rocmcompat:   rule-09 (skip): reason number 9 on a second line",
            "rocmcompat:   +2 more",
        ]
    )
    assert "rule-10" not in result.stdout.str()


def test_no_active_rule_adds_no_line(run) -> None:
    result = run(0)
    result.stdout.fnmatch_lines(["rocmcompat: 0 of 1 known-bad rules active (matrix.yaml)"])
    assert "rocmcompat:   active:" not in result.stdout.str()

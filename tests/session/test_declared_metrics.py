"""A project's own metrics (issue 27 item 6): declared in the matrix's ``metrics:`` (unit, which
way is better), then ``floors:`` may name them and ``rocm_measure`` records them in their unit
and direction. Real matrix files through ``rocmcompat lint`` and real pytest runs (pytester).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.errors import ConfigError
from pytest_rocmcompat.matrix.cache import MatrixCache
from pytest_rocmcompat.matrix.loader import load_matrix
from tests.conftest import CPU_ENV

DECLARED = """\
name: Own
platform: cpu
metrics:
  tokens_per_joule: {unit: "tok/J", better: higher, headline: true}
  p50_latency_ms:
    unit: ms
    better: lower
    label: p50 latency
    description: median request latency
  warmup_s: {unit: s, better: lower, headline: false}
floors:
  tokens_per_joule: 12.5
  p50_latency_ms: 40
  gemm_bf16_tflops: 600
"""


def lint(pytester: pytest.Pytester, name: str, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = pytester.path / name
    path.write_text(text, encoding="utf-8")
    code = main(["lint", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_lint_accepts_a_declared_metric_and_its_floor(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROCMCOMPAT_CACHE_DIR", str(pytester.path / "cache"))
    code, out = lint(pytester, "own.yaml", DECLARED, capsys)
    assert code == 0, out
    assert "own.yaml: ok: 'Own'" in out
    for _ in range(2):  # checked, then read back from the matrix cache: the same declarations
        matrix = load_matrix(str(pytester.path / "own.yaml"), cache=MatrixCache.from_environ())
        own = matrix.metrics
        assert list(own) == ["tokens_per_joule", "p50_latency_ms", "warmup_s"]
        assert (own["tokens_per_joule"].unit, own["tokens_per_joule"].higher_is_better) == ("tok/J", True)
        assert (own["p50_latency_ms"].higher_is_better, own["p50_latency_ms"].label) == (False, "p50 latency")
        assert own["p50_latency_ms"].headline and not own["warmup_s"].headline
        assert matrix.floors == {"tokens_per_joule": 12.5, "p50_latency_ms": 40.0, "gemm_bf16_tflops": 600.0}
    assert list((pytester.path / "cache").iterdir())  # the second load was a cache hit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # an undeclared unknown metric, with no metrics section at all
            "name: M\nfloors:\n  my_metric: 3\n",
            "m.yaml:3: floors.my_metric: unknown metric 'my_metric'; known metrics: gemm_bf16_tflops",
        ),
        (  # declared metrics do not make every name a metric
            "name: M\nmetrics:\n  tok_j: {unit: tok/J, better: higher}\nfloors:\n  tok_j: 2\n  tok_jj: 3\n",
            "m.yaml:6: floors.tok_jj: unknown metric 'tok_jj'; did you mean 'tok_j'?",
        ),
        (
            "name: M\nmetrics:\n  tok_j: {unit: tok/J, better: upward}\n",
            "m.yaml:3: metrics.tok_j.better: 'upward' is not a direction; use higher or lower",
        ),
        (
            "name: M\nmetrics:\n  tok_j: {unit: tok/J, better: higher, colour: red}\n",
            "m.yaml:3: metrics.tok_j.colour: unknown key 'colour'",
        ),
        (
            "name: M\nmetrics:\n  gemm_bf16_tflops: {unit: TFLOP/s, better: higher}\n",
            "m.yaml:3: metrics.gemm_bf16_tflops: 'gemm_bf16_tflops' is a bundled metric",
        ),
        (
            "name: M\nmetrics:\n  tok_j:\n    better: higher\n",
            "m.yaml:4: metrics.tok_j: needs 'unit:'",
        ),
        (
            "name: M\nmetrics:\n  tok_j: {unit: tok/J}\n",
            "m.yaml:3: metrics.tok_j: needs 'better: higher' or 'better: lower'",
        ),
        (
            "name: M\nmetrics:\n  tok@j: {unit: tok/J, better: higher}\n",
            "m.yaml:3: metrics.tok@j: 'tok@j' is not a metric name",
        ),
        (
            "name: M\nmetrics:\n  tok_j: {unit: tok/J, better: higher, headline: maybe}\n",
            "m.yaml:3: metrics.tok_j.headline: expected true or false, got a string 'maybe'",
        ),
        (
            "name: M\nmetrics:\n  a: {unit: x, better: higher, label: same}\n  b: {unit: x, better: higher, label: same}\n",
            "m.yaml:4: metrics.b: 'same' names two metrics",
        ),
        (
            "name: M\nmetrics: [tok_j]\n",
            "m.yaml:2: metrics: expected a mapping, got a list",
        ),
    ],
)
def test_lint_rejects_a_bad_declaration_with_file_and_line(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    code, out = lint(pytester, "m.yaml", text, capsys)
    assert code == 1
    assert expected in out, out
    assert "Traceback" not in out


def test_a_broken_declaration_is_reported_once_not_again_at_its_floor(pytester: pytest.Pytester) -> None:
    (pytester.path / "m.yaml").write_text(
        "name: M\nmetrics:\n  tok_j: {unit: tok/J, better: sideways}\nfloors:\n  tok_j: 2\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as info:
        load_matrix(str(pytester.path / "m.yaml"), cache=None)
    assert [p.path for p in info.value.problems] == ["metrics.tok_j.better"]


def test_an_included_file_may_not_declare_metrics(pytester: pytest.Pytester) -> None:
    (pytester.path / "shared.yaml").write_text(
        "name: S\nmetrics:\n  tok_j: {unit: tok/J, better: higher}\n", encoding="utf-8"
    )
    (pytester.path / "m.yaml").write_text("name: M\ninclude: [shared.yaml]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_matrix(str(pytester.path / "m.yaml"), cache=None)
    assert "shared.yaml:2: metrics: is not allowed in an included file" in str(info.value)


PROJECT_TESTS = """
import os

def test_efficiency(rocm_measure):
    rocm_measure("tokens_per_joule", float(os.environ.get("TOK_J", "9.5")))

def test_latency(rocm_measure):
    rocm_measure("p50_latency_ms", float(os.environ.get("LATENCY", "55")))

def test_warmup(rocm_measure):
    rocm_measure("warmup_s", 3.0)
"""


def run_project(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makefile(".yaml", matrix=DECLARED)
    (pytester.path / "env.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    pytester.makepyfile(test_own=PROJECT_TESTS)
    return pytester.runpytest_subprocess(
        "--rocm-matrix",
        "matrix.yaml",
        "--rocm-env",
        "env.json",
        "--junitxml=junit.xml",
        "-p",
        "no:cacheprovider",
        *args,
    )


def junit_metrics(path) -> dict[str, dict]:
    out = {}
    for prop in ET.parse(path).getroot().iter("property"):
        if prop.get("name", "").startswith("rocm_metric."):
            out[prop.get("name", "").removeprefix("rocm_metric.")] = json.loads(prop.get("value", ""))
    return out


def test_a_declared_metric_below_its_floor_fails_the_test_with_the_floor_message(pytester: pytest.Pytester) -> None:
    result = run_project(pytester, "-rf")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_efficiency _*",
            "performance below the matrix floor: tokens_per_joule = 9.5 tok/J (floor 12.5)",
            "*_ test_latency _*",
            "performance below the matrix floor: p50_latency_ms = 55 ms (ceiling 40)",
        ]
    )
    figures = junit_metrics(pytester.path / "junit.xml")
    assert figures["tokens_per_joule"] == {"value": 9.5, "unit": "tok/J", "floor": 12.5, "headline": True}
    assert figures["p50_latency_ms"] == {
        "value": 55.0,
        "unit": "ms",
        "floor": 40.0,
        "higher_is_better": False,
        "headline": True,
        "label": "p50 latency",
    }
    assert figures["warmup_s"] == {"value": 3.0, "unit": "s", "higher_is_better": False}


def test_a_declared_metric_that_meets_its_floor_passes(pytester: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.setenv("TOK_J", "14")
    monkeypatch.setenv("LATENCY", "31")
    run_project(pytester).assert_outcomes(passed=3)


def test_a_test_contradicting_the_declaration_is_told_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_wrong="""
        def test_unit(rocm_measure):
            rocm_measure("tokens_per_joule", 14.0, "J/tok")

        def test_direction(rocm_measure):
            rocm_measure("p50_latency_ms", 10.0, higher_is_better=True)
        """
    )
    result = run_project(pytester, "test_wrong.py")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*rocm_measure('tokens_per_joule'): the matrix declares it in 'tok/J', not 'J/tok'*",
            "*rocm_measure('p50_latency_ms'): the matrix declares it better: lower*",
        ]
    )

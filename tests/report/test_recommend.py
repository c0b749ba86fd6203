"""``rocmcompat recommend``: judged on the bundled matrices and known-bad database, recorded real
runs (the committed H100/H200 JUnit files) and real replayed runs."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix
from pytest_rocmcompat.report.junit_read import read_run
from pytest_rocmcompat.report.recommend import recommend
from pytest_rocmcompat.report.recommend_render import render_markdown
from pytest_rocmcompat.stack.environment import Environment
from tests.conftest import MI50_ENV, REPO


def _section(text: str, title: str) -> str:
    return text.split(title, 1)[1].split("\n## ", 1)[0]


def _rows(section: str) -> list[list[str]]:
    return [
        [c.strip() for c in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| torch ") and not line.startswith("| stacks ")
    ]


def _gfx906_rule(torch_spec: str):
    rules = load_matrix(str(bundled_known_bad())).rules
    return next(
        r
        for r in rules
        if "gfx906" in r.when.archs
        and any(axis in ("torch", "torch_rocm") and torch_spec in str(spec) for axis, spec in r.when.versions)
    )


def test_gfx906_from_the_bundled_matrices(capsys: pytest.CaptureFixture) -> None:
    assert main(["recommend", "--arch", "gfx906:sramecc+:xnack-", "--limit", "20"]) == 0
    text = capsys.readouterr().out
    good = _rows(_section(text, "## Newest stacks with no known-bad rule against them"))
    assert ["2.4.x", "ROCm 6.0"] in [row[:2] for row in good]  # the published working MI50 stack's series
    assert all(not (row[0] == "2.5.1" and row[1] == "ROCm 6.2") for row in good)
    assert any(row[0] == "2.5.x except 2.5.1" and row[1] == "ROCm 6.2" for row in good)
    # the evidence against 2.5.1+rocm6.2 (avoid while it is a skip rule, at risk once it is contested)
    fault = _gfx906_rule("2.5.1")
    where = _section(text, "## At risk") if fault.action == "isolate" else _section(text, "## Avoid")
    assert fault.id in where and fault.links[0] in where and "2.5.1" in where
    # ROCm 6.4+ builds: no gfx906 kernels, though no planned cell reaches them
    kernels = _gfx906_rule("6.4")
    avoid = _section(text, "## Avoid")
    assert re.search(
        rf"\| arch gfx906 · torch_rocm >=6.4 +\| {re.escape(kernels.id)} +\| .*"
        rf"{re.escape(kernels.links[0])}.*\| no planned cell",
        avoid,
    )


def test_a_contested_isolate_rule_marks_the_stack_at_risk() -> None:
    mi50 = load_matrix(str(REPO / "matrices" / "mi50.yaml"))
    fault = _gfx906_rule("2.5.1")
    contested = replace(mi50, rules=tuple(replace(r, action="isolate") if r.id == fault.id else r for r in mi50.rules))
    rec = recommend("gfx906", [contested])
    risky = rec.at_risk()
    assert {(s.torch, s.runtime) for s in risky} == {("2.5.1", "ROCm 6.2")}
    assert all(s.against == [replace(fault, action="isolate")] for s in risky)
    assert not any(s.torch == "2.5.1" for s in rec.recommended(100) + rec.avoid())


def test_an_uncertain_rule_marks_the_stack_at_risk_not_avoid() -> None:
    """An xfail rule whose source says the stack *may* fail (``uncertain: true``) is no reason to avoid it."""
    mi50 = load_matrix(str(REPO / "matrices" / "mi50.yaml"))
    fault = _gfx906_rule("2.5.1")
    maybe = replace(fault, action="xfail", at_risk=True)
    uncertain = replace(mi50, rules=tuple(maybe if r.id == fault.id else r for r in mi50.rules))
    rec = recommend("gfx906", [uncertain])
    assert {(s.torch, s.runtime) for s in rec.at_risk()} == {("2.5.1", "ROCm 6.2")}
    assert not any(s.torch == "2.5.1" for s in rec.avoid())
    settled = replace(maybe, at_risk=False, contested=False)  # a certain xfail rule: its sources agree
    certain = replace(mi50, rules=tuple(settled if r.id == fault.id else r for r in mi50.rules))
    assert any(s.torch == "2.5.1" for s in recommend("gfx906", [certain]).avoid())
    # the rendered report lists it under "At risk" only, never under "Avoid"
    text = "\n".join(render_markdown(rec))
    assert maybe.id in _section(text, "## At risk") and maybe.id not in _section(text, "## Avoid")


def test_evidence_hardware_with_date_and_replay_only(pytester: pytest.Pytester) -> None:
    runs = [read_run(str(REPO / f"reports/{d}/junit.xml")) for d in ("h100-suites", "h200x2-suites")]
    h100 = load_matrix(str(REPO / "matrices" / "h100.yaml"))
    rec = recommend("sm_90", [h100], runs)
    verified = [s for s in rec.stacks if s.evidence.text().startswith("verified on hardware 2026-11-23")]
    assert {(s.torch, s.runtime) for s in verified} == {("2.11.x", "CUDA 13.0")}
    assert "pass" in verified[0].evidence.text()
    # a replayed run of the published MI50 stack is evidence, labelled as a replay
    pytester.makepyfile("def test_ok():\n    pass\n")
    env = replace(MI50_ENV, torch="2.4.1+rocm6.0", rocm="6.0.2", libraries={})
    (pytester.path / "mi50.json").write_text(env.to_json(), encoding="utf-8")
    pytester.runpytest("-p", "no:cacheprovider", "--rocm-env", "mi50.json", "--junitxml=r.xml")
    rec = recommend(
        "gfx906", [load_matrix(str(REPO / "matrices" / "mi50.yaml"))], [read_run(str(pytester.path / "r.xml"))]
    )
    (stack,) = [s for s in rec.stacks if s.evidence.by_source]
    assert (stack.torch, stack.runtime) == ("2.4.x", "ROCm 6.0")
    assert stack.evidence.text() == "replay only (not hardware): 1 pass"


def test_unknown_arch_is_a_clear_usage_error(capsys: pytest.CaptureFixture) -> None:
    assert main(["recommend", "--arch", "gfx1234"]) == 2
    err = capsys.readouterr().err
    assert "no matrix covers --arch gfx1234" in err and "gfx906" in err


def test_check_and_recommend_agree_on_what_is_only_a_risk() -> None:
    """One predicate (``Rule.only_a_risk``): ``rocmcompat check`` leaves a rule uncounted as a risk exactly when
    ``recommend`` puts the stack at risk for it, over every bundled rule and the four kinds by hand.
    """
    from pytest_rocmcompat.knowledge.rules.standing import RISK, standing
    from pytest_rocmcompat.probe.libraries import STACK_LIBRARIES
    from pytest_rocmcompat.report.recommend import puts_at_risk

    def _counted(rule: Rule) -> bool:
        return standing(rule, Environment(), STACK_LIBRARIES) != RISK

    rules = load_matrix(str(bundled_known_bad())).rules
    # every bundled rule of each kind sorted the same way by both (kinds the bundled matrix has)
    for rule in rules:
        risk = rule.at_risk or rule.contested or (rule.action == "isolate" and rule.signature is None)
        assert (puts_at_risk(rule), _counted(rule)) == (risk, not risk), rule.id
    assert any(r.contested for r in rules) and any(r.action == "isolate" and r.signature is None for r in rules)
    fault = _gfx906_rule("2.5.1")  # contested, isolate, signed: its sources disagree
    assert fault.contested and puts_at_risk(fault) and not _counted(fault)
    settled = replace(fault, contested=False)  # an isolate rule with a signature: a known crash
    assert _counted(settled) and not puts_at_risk(settled)
    assert puts_at_risk(replace(settled, signature=None))  # crash-prone, claims no failure
    assert puts_at_risk(replace(settled, action="xfail", at_risk=True))  # "may fail"

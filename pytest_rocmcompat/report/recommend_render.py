"""The recommendation rendered: Markdown lines for the report's section, the same lines for a
terminal (``rocmcompat recommend``), an HTML fragment for the published page. Every quoted value
is escaped here, for where it goes: Markdown cells with :func:`md_cell` (HTML entities), terminal
cells as one safe line (no entity: ``>=6.4`` reads as it is).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tabulate import tabulate

from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.report.html import html_table
from pytest_rocmcompat.report.md_table import md_table
from pytest_rocmcompat.report.recommend import Recommendation, load_inputs, matrices_for, puts_at_risk, recommend
from pytest_rocmcompat.safe_io.escape import clean, defuse_markdown, html_text, md_cell, one_line
from pytest_rocmcompat.stack.arch import normalize_arch

_Cell = Callable[[object], str]
_Table = Callable[[Sequence[object], Iterable[Sequence[object]]], str]


def terminal_cell(text: object, limit: int = 400) -> str:
    """A value quoted into the terminal form: redacted, one line (controls written as escapes),
    cut at ``limit``; links defused and ``|`` written ``\\|`` as Markdown does, so the text still
    pastes as Markdown; no HTML entity.
    """
    return one_line(defuse_markdown(clean(text, limit))).replace("|", "\\|")


def _terminal_table(headers: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    body = [["" if c is None else terminal_cell(c) for c in row] for row in rows]
    return tabulate(body, headers=[terminal_cell(h) for h in headers], tablefmt="github", disable_numparse=True)


def describe_when(rule: Rule) -> str:
    """``arch gfx906 · torch ==2.5.1 · torch_rocm ==6.2.*``: the stacks a rule names."""
    parts = []
    if rule.when.archs:
        parts.append("arch " + ", ".join(rule.when.archs))
    parts += [f"{axis} {spec}" for axis, spec in rule.when.versions]
    return " · ".join(parts) or "every stack"


def _short_ids(rules: list[Rule], shown: int = 3) -> str:
    ids = [r.id for r in rules]
    return ", ".join(ids[:shown]) + (f" +{len(ids) - shown} more" if len(ids) > shown else "")


def render_markdown(rec: Recommendation, limit: int = 10, heading: str = "##") -> list[str]:
    """The recommendation as Markdown lines (a section of the report), every value :func:`md_cell`'d."""
    return _render(rec, limit, heading, md_cell, md_table)


def render_terminal(rec: Recommendation, limit: int = 10, heading: str = "#") -> list[str]:
    """The same lines for a terminal (``rocmcompat recommend``): every value a :func:`terminal_cell`."""
    return _render(rec, limit, heading, terminal_cell, _terminal_table)


def _render(rec: Recommendation, limit: int, heading: str, cell: _Cell, table: _Table) -> list[str]:
    matrices = ", ".join(cell(name) for name in rec.matrices) or "(none cover this arch)"
    out = [
        f"{heading} Recommendations for {cell(rec.arch)}",
        "",
        f"From the matrices {matrices} and their known-bad rules; evidence from the results given.",
        "",
    ]
    good = rec.recommended(limit)
    out += [f"{heading}# Newest stacks with no known-bad rule against them", ""]
    out += [
        table(
            ("torch", "runtime", "python", "evidence", "caveats (some tests or libraries)"),
            [(s.torch, s.runtime, ", ".join(s.python), s.evidence.text(), _short_ids(s.caveats)) for s in good],
        )
        if good
        else "None found.",
        "",
    ]
    risky = rec.at_risk()
    if risky:
        out += [
            f"{heading}# At risk (contested: reports of faults and of it working; or its source says it may fail)",
            "",
            table(
                ("torch", "runtime", "python", "evidence", "rule", "reason", "links"),
                [
                    (s.torch, s.runtime, ", ".join(s.python), s.evidence.text(), r.id, r.reason, " ".join(r.links))
                    for s in risky
                    for r in s.against
                ],
            ),
            "",
        ]
    out += [f"{heading}# Avoid", ""]
    rows = []
    for rule in rec.arch_rules:
        if puts_at_risk(rule):
            continue
        hit = sorted({f"torch {s.torch} · {s.runtime}" for s in rec.avoid() if rule in s.against})
        rows.append(
            (
                describe_when(rule),
                rule.id,
                rule.reason,
                " ".join(rule.links),
                "; ".join(hit) or "no planned cell (the matrix leaves these out)",
            )
        )
    out += [
        table(("stacks", "rule", "why", "links", "planned cells it hits"), rows) if rows else "Nothing known.",
        "",
    ]
    return out


def render_html(rec: Recommendation, limit: int = 10) -> str:
    """The same recommendation as an HTML section (every value escaped)."""
    good = rec.recommended(limit)
    out = [
        f"<h2>Recommendations for {html_text(rec.arch)}</h2>",
        "<h3>Newest stacks with no known-bad rule against them</h3>",
        html_table(
            ("torch", "runtime", "python", "evidence", "caveats"),
            [(s.torch, s.runtime, ", ".join(s.python), s.evidence.text(), _short_ids(s.caveats)) for s in good],
        )
        if good
        else "<p>None found.</p>",
    ]
    risky = rec.at_risk()
    if risky:
        out += [
            "<h3>At risk (contested, or its source says it may fail)</h3>",
            html_table(
                ("torch", "runtime", "python", "evidence", "rule", "reason", "links"),
                [
                    (s.torch, s.runtime, ", ".join(s.python), s.evidence.text(), r.id, r.reason, " ".join(r.links))
                    for s in risky
                    for r in s.against
                ],
            ),
        ]
    rows = [(describe_when(r), r.id, r.reason, " ".join(r.links)) for r in rec.arch_rules if not puts_at_risk(r)]
    out += ["<h3>Avoid</h3>", html_table(("stacks", "rule", "why", "links"), rows) if rows else "<p>Nothing known.</p>"]
    return "\n".join(out)


def report_sections(archs: list[str], matrix_args: list[str] | None, runs: list) -> tuple[list[str], str]:
    """``rocmcompat report --recommend ARCH``: Markdown lines and an HTML fragment per arch."""
    matrices, _, _ = load_inputs(matrix_args, [])
    lines: list[str] = []
    fragments: list[str] = []
    for arch in archs:
        chosen = matrices_for(normalize_arch(arch), matrices)
        if not chosen:  # the argument as given: quoted into a published report
            lines += [f"## Recommendations for {md_cell(arch, 80)}", "", "No bundled matrix covers this arch.", ""]
            continue
        rec = recommend(arch, chosen, runs)
        lines += render_markdown(rec, heading="##")
        fragments.append(render_html(rec))
    return lines, "\n".join(fragments)

"""``rocmcompat recommend``: its arguments; the judging is :mod:`pytest_rocmcompat.report.recommend`,
the rendering :mod:`pytest_rocmcompat.report.recommend_render`.
"""

from __future__ import annotations

import argparse

from pytest_rocmcompat.report.recommend import load_inputs, matrices_for, recommend
from pytest_rocmcompat.report.recommend_render import (  # noqa: F401  importable here as before the layout
    describe_when,
    render_html,
    render_markdown,
    render_terminal,
    report_sections,
)
from pytest_rocmcompat.stack.arch import normalize_arch


def add_recommend_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--arch", required=True, help="GPU architecture, such as gfx906, gfx942 or sm_90")
    p.add_argument(
        "--matrix",
        action="append",
        metavar="NAME|PATH",
        help="matrix to judge (repeatable); default: every bundled matrix covering the arch",
    )
    p.add_argument("--limit", type=int, default=10, help="how many recommended stacks to list (default 10)")
    p.add_argument(
        "results",
        nargs="*",
        metavar="JUNIT",
        help="JUnit files, directories or globs of earlier runs: the evidence column",
    )


def run_recommend(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.errors import ConfigError
    from pytest_rocmcompat.safe_io.escape import echo

    try:
        matrices, runs, _ = load_inputs(args.matrix, args.results)
    except ConfigError as exc:
        echo(f"rocmcompat recommend: {exc}", err=True)
        return 1
    chosen = matrices_for(normalize_arch(args.arch), matrices)
    if not chosen:
        names = sorted({a for m in matrices for a in m.archs})
        echo(
            f"rocmcompat recommend: no matrix covers --arch {args.arch} (known: {', '.join(names)}); "
            "give one with --matrix",
            err=True,
        )
        return 2
    from pytest_rocmcompat.safe_io.escape import one_environment_scan

    # Markdown-shaped lines whose quoted values are terminal-safe (render_terminal: redacted, one
    # line each, no HTML entity); printed as they are
    with one_environment_scan():
        lines = render_terminal(recommend(args.arch, chosen, runs), limit=args.limit)
    print("\n".join(lines))
    return 0

"""``rocmcompat report``: arguments and the command (merge JUnit files, write MD/HTML/JSON).

Exit status: 0 written; 1 regressions with ``--fail-on-regression``, a bad matrix or
baseline, no readable input among the files, or an output that cannot be written;
2 no file matched the arguments.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="FILES_OR_GLOBS",
        help="JUnit XML files, directories (every *.xml below) or globs such as 'results/**/*.xml'",
    )
    p.add_argument("-o", "--output", metavar="COMPAT.md", help="write the Markdown report here (default: stdout)")
    p.add_argument("--html", metavar="COMPAT.html", help="also write a self-contained HTML page")
    p.add_argument("--json", metavar="COMPAT.json", help="also write the merged table as JSON (a later --baseline)")
    p.add_argument(
        "--matrix",
        metavar="NAME|PATH",
        help="list the matrix's planned cells without results as 'not run' (a file or a bundled matrix name)",
    )
    p.add_argument("--baseline", metavar="OLD.json", help="flag regressions against an earlier --json output")
    p.add_argument(
        "--threshold",
        type=float,
        default=10.0,
        metavar="PERCENT",
        help="a measurement worse than the baseline by more than this is a regression (default 10)",
    )
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when the baseline shows regressions")
    p.add_argument(
        "--recommend",
        action="append",
        metavar="ARCH",
        default=[],
        help="add the stacks to install and to avoid on this GPU arch (repeatable; as rocmcompat recommend)",
    )
    p.add_argument(
        "--site",
        metavar="DIR",
        help="also publish a static site here: index grid, a page per stack, "
        "history of headline figures across earlier publications in DIR, what changed, badge JSON",
    )


def run_report(args: argparse.Namespace) -> int:
    from pytest_rocmcompat.errors import ConfigError
    from pytest_rocmcompat.report.baseline import BaselineError, load_baseline, regressions, snapshot
    from pytest_rocmcompat.report.merge import expand_inputs, merge, read_runs
    from pytest_rocmcompat.report.table import render_markdown
    from pytest_rocmcompat.safe_io.atomic import write_atomic
    from pytest_rocmcompat.safe_io.escape import echo

    paths = expand_inputs(args.inputs)
    if not paths:
        echo(
            f"rocmcompat report: no JUnit file matched {' '.join(args.inputs)!s}: give files, directories "
            "or globs of the XML files that pytest --junitxml wrote (quote a glob with ** so the shell "
            "leaves it to rocmcompat).",
            err=True,
        )
        return 2
    if not 0 <= args.threshold < 1000:
        echo(f"rocmcompat report: --threshold {args.threshold}: give a percentage between 0 and 1000.", err=True)
        return 2
    matrix = baseline = None
    try:
        if args.matrix:
            from pytest_rocmcompat.cli.matrix_arg import load_named_matrix

            matrix = load_named_matrix(args.matrix)
        if args.baseline:
            baseline = load_baseline(args.baseline)
    except ConfigError as exc:
        from pytest_rocmcompat.cli.matrix_arg import report_matrix_error

        report_matrix_error(exc, args.matrix, "rocmcompat report: ")
        return 1
    except BaselineError as exc:
        echo(f"rocmcompat report: {exc}", err=True)
        return 1
    if args.site:
        from pytest_rocmcompat.report.site import SiteError, load_history

        try:
            load_history(args.site)  # a corrupt history stops the command before anything is written
        except SiteError as exc:
            echo(f"rocmcompat report: {exc}", err=True)
            return 1
    runs, warnings = read_runs(paths)
    if not runs:
        echo(
            f"rocmcompat report: none of the {len(paths)} file(s) could be read as JUnit XML "
            "(each is named above); nothing to merge.",
            err=True,
        )
        return 1
    merged = merge(runs, matrix, warnings)
    threshold = args.threshold / 100
    found = regressions(merged, baseline, threshold) if baseline is not None else None
    rec_lines: list[str] = []
    rec_html = ""
    if args.recommend:
        from pytest_rocmcompat.report.recommend_render import report_sections

        rec_lines, rec_html = report_sections(args.recommend, None, runs)
    markdown = render_markdown(merged, found, threshold if baseline is not None else None, rec_lines)
    try:
        if args.output:
            write_atomic(args.output, markdown)
        else:
            sys.stdout.write(markdown)
        page = ""  # rendered only for --html or --site
        if args.html or args.site:
            from pytest_rocmcompat.report.html import render_html

            page = render_html(merged, found, rec_html)
        if args.html:
            write_atomic(args.html, page)
        if args.site:
            from pytest_rocmcompat.report.site import write_site

            changed = write_site(args.site, merged, page, threshold)
            echo(
                f"rocmcompat report: site -> {args.site}/index.html ({len(changed.new_failures)} new failure(s), "
                f"{len(changed.new_known_bad)} new known-bad, {len(changed.moved)} figure(s) moved)",
                err=True,
            )
        if args.json:
            from pytest_rocmcompat.safe_io.escape import safe_data

            write_atomic(args.json, json.dumps(safe_data(snapshot(merged)), sort_keys=True) + "\n")
    except OSError as exc:
        echo(f"rocmcompat report: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}", err=True)
        return 1
    if args.output:
        echo(
            f"rocmcompat report: {len(runs)} file(s), {sum(not r.not_run for r in merged.rows)} cell(s) -> "
            f"{args.output}" + (f" ({len(found)} regression(s))" if found is not None else ""),
            err=True,
        )
    return 1 if found and args.fail_on_regression else 0

"""Property-based fuzzing of the loader, the linter, the report writers and the merger.

Hypothesis builds matrix texts and JUnit files from hostile pieces (lone surrogates, ESC/NUL,
live Markdown/HTML, planted secrets) mixed with valid structure. Properties: the loader gives a
Matrix or a ConfigError of one-line problems; lint exits 0 or 1; ``rocmcompat report`` inputs
never raise; every written report is UTF-8, free of control bytes, secrets and live links.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.errors import ConfigError
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.matrix.model import Matrix
from pytest_rocmcompat.report.baseline import snapshot
from pytest_rocmcompat.report.html import render_html
from pytest_rocmcompat.report.merge import merge, read_runs
from pytest_rocmcompat.report.table import render_markdown
from pytest_rocmcompat.safe_io.escape import safe_data
from tests.hostile import PIECES, SECRET_ENV, SECRET_ENV_NAME, violations

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
# pieces joined by spaces: secrets are delimited in real text (two tokens glued into one word are not)
hostile = st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=6).map(" ".join)

MATRIX_LINES = st.sampled_from(
    [
        "name: {h}",
        "platform: rocm",
        "arch: [gfx942, '{h}']",
        "axes:",
        "  torch: ['2.5', '{h}']",
        "  libraries: {{'{h}': ['1.0']}}",
        "known_bad:",
        "  - id: r{n}",
        "    reason: '{h}'",
        "    action: xfail",
        "    signature: '{h}'",
        "    when: {{torch: '>=2.{n}', env: {{'{h}': present}}}}",
        "    links: ['{h}']",
        "  - <<: {{id: m{n}, reason: x}}",
        "    id: own{n}",
        "'{h}': 1",
        "{h}",
        "include: ['{h}']",
        "floors: {{'{h}': {n}}}",
        "exclude: [{{torch: '{h}'}}]",
        "  - {{id: d{n}, reason: '{h}', when: {{python: '=={big}'}}}}",
    ]
)


@st.composite
def matrix_texts(draw) -> str:
    lines = draw(st.lists(st.tuples(MATRIX_LINES, hostile, st.integers(0, 99)), min_size=1, max_size=12))
    return "\n".join(template.format(h=h.replace("'", "''"), n=n, big="9" * 40) for template, h, n in lines) + "\n"


@pytest.fixture(autouse=True)
def planted_secret(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(SECRET_ENV_NAME, SECRET_ENV)
    monkeypatch.setenv("ROCMCOMPAT_CACHE_DIR", "off")
    monkeypatch.chdir(tmp_path)


@FUZZ
@given(text=matrix_texts())
def test_loader_gives_a_matrix_or_one_line_problems(text: str) -> None:
    Path("m.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        assert isinstance(load_matrix("m.yaml"), Matrix)
    except ConfigError as exc:
        for problem in exc.problems:
            line = str(problem)
            assert line.startswith("m.yaml") and "\n" not in line and "\x1b" not in line and "\x00" not in line
            assert len(line) < 2500


@FUZZ
@given(text=matrix_texts())
def test_lint_exits_0_or_1_with_safe_output(text: str) -> None:
    Path("m.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["lint", "m.yaml"])
    assert status in (0, 1)
    assert "Traceback" not in err.getvalue() and "\x1b" not in err.getvalue() + out.getvalue()


@st.composite
def junit_files(draw) -> bytes:
    """A pytest-shaped JUnit file whose names, messages and properties hold hostile text."""
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name="pytest", tests="1")
    props = ET.SubElement(suite, "properties")
    for name in ("rocm_env.platform", "rocm_env.torch", "rocm_var.VLLM_INDEX_URL", "rocm_env.arch"):
        ET.SubElement(props, "property", name=name, value=_xml_safe(draw(hostile)))
    for i in range(draw(st.integers(1, 4))):
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_xml_safe("suites.gpu.test_" + draw(hostile)),
            name=_xml_safe(f"test_{i}" + draw(hostile)),
        )
        cprops = ET.SubElement(case, "properties")
        metric = json.dumps(
            {
                "value": draw(st.floats(allow_nan=False, allow_infinity=False, width=32)),
                "unit": draw(hostile),
                "detail": draw(hostile),
            }
        )  # \udcff escaped in JSON
        ET.SubElement(cprops, "property", name="rocm_metric.gemm_bf16_tflops", value=metric)
        ET.SubElement(
            cprops,
            "property",
            name="rocm_outcome",
            value=draw(st.sampled_from(["fail", "known-bad", "crashed", "hang", "pass", "bogus"])),
        )
        ET.SubElement(cprops, "property", name="rocm_rule", value=_xml_safe(draw(hostile)))
        if draw(st.booleans()):
            failure = ET.SubElement(case, "failure", message=_xml_safe(draw(hostile)))
            failure.text = _xml_safe(draw(hostile))
    return b'<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="utf-8").split(b"?>", 1)[-1]


def _xml_safe(text: str) -> str:
    """What pytest's writer does with characters XML cannot hold (``#x1B``)."""
    return "".join(
        c
        if c in "\t\n\r" or (" " <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c > "\uffff"
        else f"#x{ord(c):02X}"
        for c in text
    )


@FUZZ
@given(files=st.lists(junit_files() | st.binary(max_size=200), min_size=1, max_size=4))
def test_merged_writers_stay_safe(files: list[bytes]) -> None:
    paths = []
    for i, data in enumerate(files):
        Path(f"r{i}.xml").write_bytes(data)
        paths.append(f"r{i}.xml")
    runs, warnings = read_runs(paths, warn=lambda message: None)
    assert len(runs) + len(warnings) == len(paths)
    if not runs:
        return
    merged = merge(runs, None, warnings)
    for text, kind in (
        (render_markdown(merged), "md"),
        (render_html(merged), "html"),
        (json.dumps(safe_data(snapshot(merged))), "json"),
    ):
        assert violations(text, kind) == [], (kind, violations(text, kind))


@FUZZ
@given(text=hostile)
def test_every_md_cell_is_safe(text: str) -> None:
    from pytest_rocmcompat.safe_io.escape import md_cell

    assert violations(md_cell(text, 10_000), "md") == []

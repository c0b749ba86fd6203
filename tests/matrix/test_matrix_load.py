"""Loading matrices: the valid shape, includes, and every error path with file:line: key.path."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.errors import ConfigError
from pytest_rocmcompat.matrix.expand import count_cells, expand
from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix
from tests.conftest import REPO

GOOD = """
name: MI300X
platform: rocm
arch: [gfx942]
axes:
  rocm: ["6.2", "6.3", "6.4"]
  torch: ["2.5", "2.6", "2.7"]
  python: ["3.10", "3.11", "3.12"]
  libraries:
    vllm: ["0.8.5", "0.9"]
exclude:
  - {rocm: "6.2", torch: "2.7"}
  - {rocm: ["6.3", "6.4"], lib.vllm: "0.8.5", python: "3.10"}
include: [kb.yaml]
suites: [preflight, gpu]
floors: {gemm_bf16_tflops: 600, allreduce_busbw_gbps: 250}
expect: {min_gpu_memory_gib: 192, min_gpus: 8}
known_bad:
  - id: torchao-int1
    when: {libraries: {torchao: ">=0.7"}, torch: "<2.6"}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "module 'torch' has no attribute 'int1'"
    reason: torchao needs torch.int1
    links: [https://github.com/pytorch/ao/issues/1]
    fixed_in: {torch: "2.6.0"}
"""
KB = """
known_bad:
  - id: kb-rule
    when: {arch: "gfx94*", env: {HSA_OVERRIDE_GFX_VERSION: present}}
    reason: override
"""


def test_valid_matrix_with_include(matrix_file) -> None:
    matrix_file(KB, "kb.yaml")
    m = load_matrix(matrix_file(GOOD))
    assert m.name == "MI300X" and m.platform == "rocm" and m.archs == ("gfx942",)
    assert m.axis_names == ("arch", "rocm", "torch", "python", "lib.vllm")
    assert [r.id for r in m.rules] == ["kb-rule", "torchao-int1"]  # included first
    assert m.rules[0].file.endswith("kb.yaml") and m.rules[0].line == 2
    assert m.floors == {"gemm_bf16_tflops": 600.0, "allreduce_busbw_gbps": 250.0}
    assert m.expect["min_gpus"] == 8 and m.suites == ("preflight", "gpu")
    assert "torchao" in m.library_names and "vllm" in m.library_names
    planned, excluded = count_cells(m)
    # 3*3*3*2 = 54; rocm 6.2 + torch 2.7: 3*2 = 6; (6.3|6.4) + vllm 0.8.5 + py3.10: 2*3 = 6
    assert (planned, excluded) == (42, 12)
    cells = [c.as_dict() for c in expand(m)]
    assert len(cells) == 42
    assert not any(c["rocm"] == "6.2" and c["torch"] == "2.7" for c in cells)


def test_bundled_matrices_lint_clean() -> None:
    for path in sorted((REPO / "matrices").glob("*.yaml")):
        load_matrix(path)  # raises on any mistake
    assert bundled_known_bad().is_file()


def _errors(matrix_file, text: str, name: str = "m.yaml") -> list[str]:
    path = matrix_file(text, name)
    with pytest.raises(ConfigError) as info:
        load_matrix(path)
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    when: {torch: '>=2.x'}\n",
            "m.yaml:5: known_bad[0].when.torch: '>=2.x' is not a valid version specifier",
        ),
        ("name: x\naxez: {}\n", "m.yaml:2: axez: unknown key 'axez'; did you mean 'axes'?"),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    whne: {}\n",
            "m.yaml:5: known_bad[0].whne: unknown key 'whne'; did you mean 'when'?",
        ),
        (
            "name: x\naxes:\n  torch: [2.5, '2.6']\n",
            "m.yaml:3: axes.torch[0]: 2.5 is a number, write the version as a quoted string",
        ),
        ("name: x\naxes:\n  rocm: '6.2'\n", None),
        ("name: x\narch: [gfx9x6]\n", "m.yaml:2: arch[0]: 'gfx9x6' is not a GPU architecture name"),
        ("name: x\narch: gfx94*\n", "m.yaml:2: arch: 'gfx94*' is not a GPU architecture name"),
        ("name: x\nplatform: hip\n", "m.yaml:2: platform: 'hip' is not a platform"),
        (
            "name: x\nsuites: [gpu, colectives]\n",
            "m.yaml:2: suites[1]: unknown suite 'colectives'; did you mean 'collectives'?",
        ),
        ("name: x\nfloors: {gemm_bf16_tflops: -1}\n", "m.yaml:2: floors.gemm_bf16_tflops: must be greater than 0"),
        ("name: x\nfloors: {gemm_bf16_tflops: fast}\n", "m.yaml:2: floors.gemm_bf16_tflops: expected a number"),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n  - id: a\n    reason: s\n",
            "m.yaml:5: known_bad: duplicate rule id 'a' (first defined at m.yaml:3)",
        ),
        (
            "name: x\nknown_bad:\n  - id: A b\n    reason: r\n",
            "m.yaml:3: known_bad[0].id: 'A b' is not a valid rule id",
        ),
        ("name: x\nknown_bad:\n  - reason: r\n", "m.yaml:3: known_bad[0]: missing required key 'id'"),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    action: crash\n",
            "m.yaml:5: known_bad[0].action: 'crash' is not an action",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    signature: '(unclosed'\n",
            "m.yaml:5: known_bad[0].signature: '(unclosed' is not a valid regular expression",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    links: [ftp://x]\n",
            "m.yaml:5: known_bad[0].links[0]: 'ftp://x' is not an http(s) URL",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    when: {env: {HSA_X: maybe}}\n",
            "m.yaml:5: known_bad[0].when.env.HSA_X: expected 'present', 'absent'",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    when: {arch: [gfx1100, mi300]}\n",
            "m.yaml:5: known_bad[0].when.arch[1]: 'mi300' is not a GPU architecture",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    applies_to: {uses: []}\n",
            "m.yaml:5: known_bad[0].applies_to.uses: must not be an empty list",
        ),
        ("name: x\nknown_bad: {id: a}\n", "m.yaml:2: known_bad: expected a list of rules"),
        (
            "name: x\naxes: {torch: ['2.5']}\nexclude:\n  - {torch: '2.9'}\n",
            "m.yaml:4: exclude[0].torch: '2.9' is not a value of the torch axis (2.5)",
        ),
        (
            "name: x\naxes: {torch: ['2.5']}\nexclude:\n  - {rocm: '6.2'}\n",
            "m.yaml:4: exclude[0].rocm: unknown axis 'rocm'",
        ),
        ("name: x\nname: y\n", "m.yaml:2: duplicate key 'name' (first on line 1)"),
        ("- a\n- b\n", "m.yaml:1: the top level must be a mapping"),
        ("{}\n", "m.yaml:1: the file is an empty mapping"),
        ("   \n\n", "m.yaml:1: the file is empty"),
        (
            "x: !!python/object/apply:os.system ['echo hi']\n",
            "m.yaml:1: not valid YAML: 'tag:yaml.org,2002:python/object/apply:os.system' tags are not allowed",
        ),
        ("name: [unclosed\n", "m.yaml:2: not valid YAML"),
        ("name: x\naxes: {torch: ['2.5', '2.5']}\n", "m.yaml:2: axes.torch: '2.5' is listed twice"),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    fixed_in: {torch: 2.6}\n",
            "m.yaml:5: known_bad[0].fixed_in.torch: 2.6 is a number",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    uncertain: true\n",
            "m.yaml:5: known_bad[0].uncertain: an uncertain rule claims only the failures it names",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    action: xfail\n    uncertain: true\n",
            "m.yaml:6: known_bad[0].uncertain: an uncertain rule claims only the failures it names",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    action: xfail\n    signature: boom\n    uncertain: 1\n",
            "m.yaml:7: known_bad[0].uncertain: expected true or false, got a number 1",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    action: xfail\n    signature: boom\n"
            "    contested: true\n    uncertain: true\n",
            "m.yaml:8: known_bad[0].uncertain: a rule cannot be both contested",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    feature_gap: true\n",
            "m.yaml:5: known_bad[0].feature_gap: a feature gap reaches only the tests that use the feature",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    applies_to: {markers: [gpus]}\n    feature_gap: true\n",
            "m.yaml:6: known_bad[0].feature_gap: a feature gap reaches only the tests that use the feature",
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    applies_to: {nodeids: ['*fp8*']}\n    feature_gap: yes\n",
            None,  # YAML 1.1's yes is true
        ),
        (
            "name: x\nknown_bad:\n  - id: a\n    reason: r\n    applies_to: {nodeids: ['*fp8*']}\n    feature_gap: 'no'\n",
            "m.yaml:6: known_bad[0].feature_gap: expected true or false, got a string 'no'",
        ),
    ],
)
def test_error_names_file_line_and_path(matrix_file, text: str, expected: str | None) -> None:
    path = matrix_file(text)
    if expected is None:  # a single string is accepted for a one-value axis
        load_matrix(path)
        return
    errors = _errors(matrix_file, text)
    assert any(e.endswith(expected) or expected in e for e in errors), errors
    assert all(str(path.name) in e for e in errors)


def test_all_problems_reported_at_once(matrix_file) -> None:
    errors = _errors(matrix_file, "name: x\naxez: 1\nsuites: [gpuu]\nplatform: amd\n")
    assert len(errors) == 3


def test_missing_include_names_the_including_line(matrix_file) -> None:
    errors = _errors(matrix_file, "name: x\ninclude:\n  - nope.yaml\n")
    assert errors == ["m.yaml:3: include[0]: cannot include 'nope.yaml': file not found"]


def test_include_cycle(matrix_file) -> None:
    matrix_file("include: [b.yaml]\nknown_bad: []\n", "a.yaml")
    matrix_file("include: [a.yaml]\nknown_bad: []\n", "b.yaml")
    errors = _errors(matrix_file, "name: x\ninclude: [a.yaml]\n")
    assert errors == ["b.yaml:1: include[0]: include cycle: a.yaml -> b.yaml -> a.yaml"]


def test_included_file_may_not_define_axes(matrix_file) -> None:
    matrix_file("axes: {torch: ['2.5']}\nknown_bad: []\n", "inc.yaml")
    errors = _errors(matrix_file, "name: x\ninclude: [inc.yaml]\n")
    assert any("inc.yaml:1: axes: is not allowed in an included file" in e for e in errors)


def test_duplicate_rule_across_includes(matrix_file) -> None:
    matrix_file("known_bad:\n  - id: same\n    reason: one\n", "inc.yaml")
    errors = _errors(matrix_file, "name: x\ninclude: [inc.yaml]\nknown_bad:\n  - id: same\n    reason: two\n")
    assert errors == ["m.yaml:4: known_bad: duplicate rule id 'same' (first defined at inc.yaml:2)"]


def test_missing_file_and_directory(tmp_path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_matrix(tmp_path / "absent.yaml")
    with pytest.raises(ConfigError, match="is a directory"):
        load_matrix(tmp_path)


def test_non_utf8_file(tmp_path) -> None:
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_matrix(path)


def test_bare_include_falls_back_to_bundled_database(matrix_file) -> None:
    m = load_matrix(matrix_file("name: x\ninclude: [known_bad.yaml]\n"))
    assert m.rules and all("known_bad.yaml" in r.file for r in m.rules)


def test_dates_are_text_not_timestamps(matrix_file) -> None:
    """`name: 2024-13-45` once escaped as a ValueError from PyYAML's date parsing (corpus BUG_BAD_DATE)."""
    m = load_matrix(matrix_file("name: 2024-13-45\ndescription: 2024-02-30\n"))
    assert m.name == "2024-13-45"

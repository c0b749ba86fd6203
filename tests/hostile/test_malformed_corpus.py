"""A corpus of malformed matrices: each must give a clear error, none a traceback.

Every case is a matrix file (plus, for includes, the files next to it). Loading it must
raise :class:`ConfigError` and nothing else; every problem reads ``file:line: key.path:
message`` on one line, names the file, has a line unless the whole file is at fault, and
-- where the case targets a key -- reports that key's path on that key's line.

The corpus is generated, not hand-listed:

* **schema mutations** of a valid base matrix (``BASE``, dumped with ``yaml.safe_dump``):
  for every key path, each value of the wrong type, a misspelled key (did-you-mean),
  an unknown key, deleted required keys, numeric versions, invalid specifiers, versions,
  architectures, regexes, URLs, rule ids, env conditions, exclude values and duplicate
  rule ids;
* **text corruptions** of the hand-written ``BASE``: truncation at many offsets (a
  truncated file may still be valid: then it must load), tab indentation, unbalanced
  brackets and quotes, duplicate keys, Python and unknown tags, undefined aliases,
  several documents, non-UTF-8 bytes, empty files, a top-level list or scalar, deep
  nesting, alias bombs;
* **includes**: missing files, cycles, directories, bad included files.

Cases marked ``bug`` are known defects of the package (strict xfail): see the reasons.
Also here: hypothesis properties (arbitrary YAML-ish documents and text: a Matrix or a
ConfigError, never another exception), a real "billion laughs" file in a subprocess with a
timeout, and a sample of cases through ``rocmcompat lint`` and ``pytest --rocm-matrix``.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_rocmcompat.errors import ConfigError, Problem
from pytest_rocmcompat.knowledge.metrics import METRICS
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.matrix.model import SUITES, Matrix
from pytest_rocmcompat.matrix.rule_schema import APPLIES_KEYS, ENV_OPS, RULE_KEYS, WHEN_KEYS
from pytest_rocmcompat.matrix.schema import AXIS_KEYS, EXPECT_KEYS, TOP_KEYS
from tests.conftest import CPU_ENV

MAIN = "m.yaml"
MAX_MESSAGE = 2000  # a clear one-paragraph message, not an echo of a huge value

BASE = """\
name: MI300X
description: corpus base matrix
platform: rocm
arch: [gfx942, gfx90a]
axes:
  rocm: ["6.2", "6.3"]
  torch: ["2.5", "2.6"]
  python: ["3.11", "3.12"]
  libraries:
    vllm: ["0.8.5", "0.9"]
exclude:
  - {rocm: "6.2", torch: "2.6"}
  - {arch: gfx90a, lib.vllm: ["0.9"]}
include: [kb.yaml]
suites: [preflight, gpu]
floors: {gemm_bf16_tflops: 600, allreduce_busbw_gbps: 250}
expect: {min_gpu_memory_gib: 192, min_gpus: 8}
known_bad:
  - id: torchao-int1
    when:
      platform: rocm
      arch: ["gfx94*"]
      torch: "<2.6"
      torch_rocm: "==6.2.*"
      libraries: {torchao: ">=0.7", vllm: absent}
      env: {HSA_OVERRIDE_GFX_VERSION: present, PYTORCH_CUDA_ALLOC_CONF: {matches: "expandable_segments"}}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "module 'torch' has no attribute 'int1'"
    reason: torchao needs torch.int1
    links: [https://github.com/pytorch/ao/issues/1]
    fixed_in: {torch: "2.6.0"}
  - id: second-rule
    applies_to: {markers: [gpus]}
    action: skip
    reason: crashes on any GPU op
"""
KB = """\
known_bad:
  - id: kb-rule
    when: {arch: "gfx94*", env: {HSA_OVERRIDE_GFX_VERSION: present}}
    reason: shared database rule
"""
BASE_DATA = yaml.safe_load(BASE)

# ---- known bugs (strict xfail) ---------------------------------------------------------
BUG_CONTROL_CHARS = (
    "BUG: a control character (NUL, ESC, BEL, U+FFFE) in otherwise valid UTF-8 text "
    "makes yaml.reader.ReaderError escape load_matrix (raised by the _Loader constructor, "
    "outside the try in yaml_lines.load_yaml), and its text is multi-line"
)
BUG_DEEP_NESTING = (
    "BUG: ~250 nested flow lists (or ~500 mappings) make PyYAML recurse past the limit: "
    "RecursionError escapes load_matrix"
)
BUG_HUGE_ECHO = (
    "BUG: error messages echo the offending value with repr() in full (Checker.string, "
    "exclude values, env conditions): a big value gives a megabyte 'line', and an alias "
    "bomb (billion laughs) never finishes"
)
BUG_FLOORS_KEY = (
    "BUG: a non-string metric name under floors (floors: {1: 5}) crashes Checker.unknown: "
    "TypeError from difflib.get_close_matches"
)
BUG_REGEX_OVERFLOW = (
    "BUG: signature / env matches 'a{4294967296}' raises OverflowError from re.compile (only re.error is caught)"
)
BUG_REGEX_DEPTH = "BUG: a signature with thousands of nested groups raises RecursionError from re.compile"
BUG_INCLUDE_NUL = "BUG: include path with a NUL character: ValueError (embedded null byte) escapes open()"
BUG_INCLUDE_LONG = (
    "BUG: include of a 5000-character name: OSError ENAMETOOLONG escapes "
    "_resolve_include (Path.is_file on the bundled fallback)"
)
BUG_SCALAR_TAGS = (
    "BUG: explicit standard tags with bad values (!!int abc, !!float abc, !!bool maybe, "
    "!!timestamp x, !!map abc, !!seq abc) raise ValueError/KeyError/AttributeError from "
    "PyYAML's constructors, which load_yaml does not catch"
)
BUG_BAD_DATE = (
    "BUG: an impossible date such as 2024-13-45 (implicitly a timestamp) raises ValueError "
    "from PyYAML's timestamp constructor: traceback"
)
BUG_BIG_INT = (
    "BUG: an integer of more than 4300 digits raises ValueError (int max str digits) from "
    "PyYAML's int constructor: traceback"
)
BUG_EMPTY_EXCLUDE_VALUE = (
    "BUG: an exclude axis given an empty list ({torch: []}) is silently accepted; the exclude then matches nothing"
)
BUG_FRACTIONAL_GPUS = (
    "BUG (questionable acceptance): expect.min_gpus: 2.5 is accepted; a GPU count must be a whole number"
)
BUG_AXISS = "BUG (wording): an unknown exclude axis lists 'known axiss:' instead of 'known axes:'"
BUG_QUOTE_NUMBERS_HINT = (
    "BUG (misleading message): env equals/not_equals/matches given null or a list says "
    "\"expected a string (quote numbers: 'None')\" -- the hint is for numbers only"
)
BUG_SECOND_DOCUMENT = (
    "BUG (vague message): two YAML documents give 'not valid YAML: but found another document'; "
    "PyYAML's context 'expected a single document in the stream' is dropped"
)
BUG_INFINITE_FLOOR = (
    "BUG (questionable acceptance): floors: {gemm_bf16_tflops: .inf} is accepted; no machine can meet it"
)


@dataclass(frozen=True)
class Case:
    """One malformed matrix and what its error must say."""

    id: str
    text: str | bytes | None  # the matrix file m.yaml; None: not written
    files: tuple[tuple[str, str | bytes | None], ...] = ()  # other files; None: a directory
    path: str | None = None  # some problem reports this key path (or one below it)
    lines: tuple[int, int] | None = None  # (key line, last line of its value)
    contains: str | None = None  # some (targeted) problem's message contains this
    absent: str | None = None  # no problem's message contains this
    file: str = MAIN  # the file the targeted problems are in
    whole_file: bool = False  # problems about the whole file may have no line
    may_be_valid: bool = False  # truncated texts: loading fine is fine
    bug: str | None = None  # known package bug: strict xfail


# ---- helpers over the YAML documents ------------------------------------------------------
def dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=4096)


def join(path: tuple) -> str:
    out = ""
    for step in path:
        out = f"{out}[{step}]" if isinstance(step, int) else (f"{out}.{step}" if out else str(step))
    return out


def locate(text: str, path: tuple) -> tuple[int, int]:
    """(line of the key or item, last line of its value), 1-based, from PyYAML's own node marks."""
    node = yaml.compose(text)
    line = 1
    for step in path:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == step:
                    line, node = key.start_mark.line + 1, value
                    break
            else:
                raise KeyError(step)
        else:
            node = node.value[step]
            line = node.start_mark.line + 1
    end = node.end_mark.line + (0 if node.end_mark.column == 0 else 1)
    return line, max(line, end)


def line_with(text: str, needle: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise ValueError(needle)


def last_line(text: str) -> int:
    return max(len(text.splitlines()), text.count("\n")) + 1


def _get(data: Any, path: tuple) -> Any:
    for step in path:
        data = data[step]
    return data


def replaced(path: tuple, value: Any) -> Any:
    data = copy.deepcopy(BASE_DATA)
    _get(data, path[:-1])[path[-1]] = copy.deepcopy(value)
    return data


def deleted(path: tuple) -> Any:
    data = copy.deepcopy(BASE_DATA)
    del _get(data, path[:-1])[path[-1]]
    return data


def renamed(path: tuple, new: str) -> Any:
    data = copy.deepcopy(BASE_DATA)
    parent = _get(data, path[:-1])
    items = list(parent.items())
    parent.clear()
    parent.update((new if k == path[-1] else k, v) for k, v in items)
    return data


def added(path: tuple, key: Any, value: Any) -> Any:
    data = copy.deepcopy(BASE_DATA)
    _get(data, path)[key] = copy.deepcopy(value)
    return data


def at(
    case_id: str,
    data: Any,
    target: tuple,
    *,
    contains: str | None = None,
    path: str | None = None,
    line_of: tuple | None = None,
    bug: str | None = None,
    absent: str | None = None,
) -> Case:
    """A case whose problem must be reported at ``target`` (key path and line)."""
    text = dump(data)
    lo, hi = locate(text, line_of if line_of is not None else target)
    if path is not None:  # reported on the container's path, at exactly the line of line_of
        hi = lo
    return Case(
        case_id,
        text,
        path=join(target) if path is None else path,
        lines=(lo, hi),
        contains=contains,
        bug=bug,
        absent=absent,
    )


# ---- 1. wrong types, empty values: every key path x every kind of value ------------------------
SAMPLES: dict[str, Any] = {
    "int": 7,
    "float": 2.5,
    "bool": True,
    "null": None,
    "string": "zzz",
    "empty-string": "",
    "list": ["x", "y"],
    "empty-list": [],
    "mapping": {"k": "v"},
    "empty-mapping": {},
}
# For each key path of BASE: which samples are *valid* there (all others must be errors).
PATHS: dict[tuple, set[str]] = {
    ("name",): {"string"},
    ("description",): {"string"},
    ("platform",): set(),
    ("arch",): set(),
    ("arch", 1): set(),
    ("axes",): {"empty-mapping"},
    ("axes", "rocm"): set(),
    ("axes", "rocm", 0): set(),
    ("axes", "torch"): set(),
    ("axes", "python", 1): set(),
    ("axes", "libraries"): {"empty-mapping"},
    ("axes", "libraries", "vllm"): set(),
    ("axes", "libraries", "vllm", 1): set(),
    ("exclude",): {"empty-list"},
    ("exclude", 0): set(),
    ("exclude", 0, "rocm"): set(),
    ("exclude", 0, "torch"): set(),
    ("exclude", 1, "arch"): set(),
    ("exclude", 1, "lib.vllm"): set(),
    ("include",): set(),
    ("include", 0): set(),
    ("suites",): set(),
    ("suites", 1): set(),
    ("floors",): {"empty-mapping"},
    ("floors", "gemm_bf16_tflops"): {"int", "float"},
    ("expect",): {"empty-mapping"},
    ("expect", "min_gpus"): {"int", "float"},
    ("expect", "min_gpu_memory_gib"): {"int", "float"},
    ("known_bad",): {"empty-list"},
    ("known_bad", 0): set(),
    ("known_bad", 0, "id"): {"string"},
    ("known_bad", 0, "when"): {"empty-mapping"},
    ("known_bad", 0, "when", "platform"): set(),
    ("known_bad", 0, "when", "arch"): set(),
    ("known_bad", 0, "when", "arch", 0): set(),
    ("known_bad", 0, "when", "torch"): set(),
    ("known_bad", 0, "when", "torch_rocm"): set(),
    ("known_bad", 0, "when", "libraries"): {"empty-mapping"},
    ("known_bad", 0, "when", "libraries", "torchao"): set(),
    ("known_bad", 0, "when", "libraries", "vllm"): set(),
    ("known_bad", 0, "when", "env"): {"empty-mapping"},
    ("known_bad", 0, "when", "env", "HSA_OVERRIDE_GFX_VERSION"): set(),
    ("known_bad", 0, "when", "env", "PYTORCH_CUDA_ALLOC_CONF"): set(),
    ("known_bad", 0, "when", "env", "PYTORCH_CUDA_ALLOC_CONF", "matches"): {"string", "empty-string"},
    ("known_bad", 0, "applies_to"): set(),
    ("known_bad", 0, "applies_to", "uses"): {"string", "list"},
    ("known_bad", 0, "action"): set(),
    ("known_bad", 0, "signature"): {"string"},
    ("known_bad", 0, "reason"): {"string"},
    ("known_bad", 0, "links"): set(),
    ("known_bad", 0, "links", 0): set(),
    ("known_bad", 0, "fixed_in"): {"empty-mapping"},
    ("known_bad", 0, "fixed_in", "torch"): set(),
    ("known_bad", 1): set(),
    ("known_bad", 1, "id"): {"string"},
    ("known_bad", 1, "applies_to", "markers"): {"string", "list"},
    ("known_bad", 1, "reason"): {"string"},
}
# exclude axes given an empty list are accepted (see BUG_EMPTY_EXCLUDE_VALUE)
_TYPE_BUGS = {
    (("exclude", 0, "rocm"), "empty-list"): BUG_EMPTY_EXCLUDE_VALUE,
    (("exclude", 0, "torch"), "empty-list"): BUG_EMPTY_EXCLUDE_VALUE,
    (("exclude", 1, "arch"), "empty-list"): BUG_EMPTY_EXCLUDE_VALUE,
    (("exclude", 1, "lib.vllm"), "empty-list"): BUG_EMPTY_EXCLUDE_VALUE,
}


def type_cases() -> list[Case]:
    cases = []
    for path, valid in PATHS.items():
        _get(BASE_DATA, path)  # the path exists in the base
        for sample, value in SAMPLES.items():
            if sample not in valid:
                cases.append(
                    at(f"type:{join(path)}={sample}", replaced(path, value), path, bug=_TYPE_BUGS.get((path, sample)))
                )
    return cases


# ---- 2. keys: misspelled (did-you-mean), unknown, required ones missing ------------------------
SCHEMA_MAPS: tuple[tuple, ...] = (
    (),
    ("axes",),
    ("exclude", 0),
    ("exclude", 1),
    ("floors",),
    ("expect",),
    ("known_bad", 0),
    ("known_bad", 0, "when"),
    ("known_bad", 0, "applies_to"),
    ("known_bad", 1),
    ("known_bad", 1, "applies_to"),
)


def misspellings(key: str) -> dict[str, str]:
    mid = len(key) // 2
    return {"doubled": key[:mid] + key[mid] + key[mid:], "clipped": key[:-1]}


def key_cases() -> list[Case]:
    cases = []
    for parent in SCHEMA_MAPS:
        for key in _get(BASE_DATA, parent):
            for typo in misspellings(key).values():
                cases.append(
                    at(
                        f"typo:{join((*parent, key))}->{typo}",
                        renamed((*parent, key), typo),
                        (*parent, typo),
                        contains=f"did you mean {key!r}?",
                    )
                )
        cases.append(
            at(
                f"unknown-key:{join(parent) or 'top'}",
                added(parent, "bogus_key", "x"),
                (*parent, "bogus_key"),
                contains="'bogus_key'",
            )
        )
    # env conditions take one operator: a misspelled one is reported on the variable
    env = ("known_bad", 0, "when", "env", "PYTORCH_CUDA_ALLOC_CONF")
    for typo in ("matchs", "equal", "contains"):
        data = replaced(env, {typo: "x"})
        cases.append(at(f"env-op:{typo}", data, env, contains="expected 'present', 'absent'"))
    for rule in (0, 1):
        for required in ("id", "reason"):
            cases.append(
                at(
                    f"missing:known_bad[{rule}].{required}",
                    deleted(("known_bad", rule, required)),
                    ("known_bad", rule),
                    path=f"known_bad[{rule}]",
                    line_of=("known_bad", rule),
                    contains=f"missing required key {required!r}",
                )
            )
    cases.append(
        at(
            "missing:known_bad[0].id+reason",
            _without(("known_bad", 0), "id", "reason"),
            ("known_bad", 0),
            path="known_bad[0]",
            line_of=("known_bad", 0),
            contains="missing required key",
        )
    )
    return cases


def _without(path: tuple, *keys: str) -> Any:
    data = copy.deepcopy(BASE_DATA)
    for key in keys:
        del _get(data, path)[key]
    return data


# ---- 3. values that have the right type but are wrong ------------------------------------
WHEN = ("known_bad", 0, "when")
RULE = ("known_bad", 0)
VALUE_CASES: list[tuple[str, tuple, Any, str]] = [
    # numbers where versions belong (YAML reads 6.10 as 6.1)
    *[
        ("number-version", p, v, "is a number")
        for p, v in [
            (("axes", "rocm", 0), 6.2),
            (("axes", "torch", 1), 2.6),
            (("axes", "python", 0), 3.1),
            (("axes", "libraries", "vllm", 1), 0.9),
            (("axes", "torch"), 2.5),
            (("axes", "python"), 3.10),
            ((*RULE, "fixed_in", "torch"), 2.6),
            ((*WHEN, "torch"), 2.5),
            ((*WHEN, "torch_rocm"), 6.2),
            ((*WHEN, "libraries", "torchao"), 0.7),
            (("exclude", 0, "rocm"), 6.2),
            (("exclude", 0, "torch"), 2.6),
            (("exclude", 1, "lib.vllm"), [0.9]),
        ]
    ],
    # invalid specifiers
    *[
        ("specifier", (*WHEN, axis), spec, "is not a valid version specifier")
        for axis in ("torch", "torch_rocm")
        for spec in (">=2.x", "=>2", "2.5.*.*", "~=2", ">=", "2..5", ">=2.5;<3", "latest", ">2.5 <2.7", "rocm6.2")
    ],
    *[
        ("specifier", (*WHEN, "libraries", "torchao"), spec, "is not a valid version specifier")
        for spec in (">=0.x", "=>0.7", "~=1", "any")
    ],
    # invalid versions
    *[
        ("version", p, v, "is not a valid version")
        for p, v in [
            (("axes", "torch", 0), "2.x"),
            (("axes", "torch", 0), "latest"),
            (("axes", "rocm", 1), "6.3-rc?"),
            (("axes", "python", 0), "3.11.*"),
            (("axes", "libraries", "vllm", 0), "0.8.5-x"),
            ((*RULE, "fixed_in", "torch"), "2.6.x"),
            ((*RULE, "fixed_in", "torch"), ">=2.6"),
        ]
    ],
    # architectures
    *[
        ("arch", ("arch", 0), a, "is not a GPU architecture name")
        for a in ("gfx9x6", "mi300", "gfx94*", "sm_9", "gfx", "GFX 942", "nvidia", "gfx90?", "sm_90a1")
    ],
    *[
        ("arch", (*WHEN, "arch", 0), a, "is not a GPU architecture")
        for a in ("mi300", "nvidia", "gfx 942", "amd*", "cuda", "942")
    ],
    # platforms, actions, suites, metrics
    *[("platform", ("platform",), p, "is not a platform") for p in ("hip", "ROCm", "amd", "nvidia")],
    ("platform", (*WHEN, "platform"), ["rocm", "hip"], "is not a platform"),
    *[("action", (*RULE, "action"), a, "is not an action") for a in ("crash", "Skip", "xfail ", "ignore")],
    ("suite", ("suites", 1), "gpuu", "did you mean 'gpu'?"),
    ("suite", ("suites", 0), "smoke", "unknown suite 'smoke'"),
    ("floor", ("floors", "gemm_bf16_tflops"), 0, "must be greater than 0"),
    ("floor", ("floors", "gemm_bf16_tflops"), -600, "must be greater than 0"),
    ("floor", ("floors", "gemm_bf16_tflops"), float("nan"), "must be a finite number"),
    ("floor", ("floors", "gemm_bf16_tflops"), "600", "expected a number"),
    ("expect", ("expect", "min_gpus"), 0, "must be greater than 0"),
    ("expect", ("expect", "min_gpus"), "8", "expected a number"),
    ("expect", ("expect", "min_gpu_memory_gib"), "192GiB", "expected a number"),
    # regular expressions
    *[
        ("regex", (*RULE, "signature"), r, "is not a valid regular expression")
        for r in ("(", "[a-", "*abc", "(?P<n>", "a{2,1}", "\\", "(?<=a+)b", "[z-a]")
    ],
    *[
        ("regex", (*WHEN, "env", "PYTORCH_CUDA_ALLOC_CONF", "matches"), r, "is not a valid regular expression")
        for r in ("(", "[z-a]", "+")
    ],
    # links
    *[
        ("url", (*RULE, "links", 0), u, "is not an http(s) URL")
        for u in (
            "ftp://x",
            "github.com/pytorch/ao",
            "http://",
            "https:// x",
            "javascript:alert(1)",
            "www.example.com",
            "mailto:a@b.c",
        )
    ],
    # rule ids
    *[
        ("rule-id", (*RULE, "id"), i, "is not a valid rule id")
        for i in ("Has Space", "UPPER", "-leading", "a/b", "ümlaut", "_x")
    ],
    # env conditions
    *[
        ("env", (*WHEN, "env", "HSA_OVERRIDE_GFX_VERSION"), c, "expected 'present', 'absent'")
        for c in ("maybe", "Present", "set", True, ["present"], {"equals": "a", "matches": "b"})
    ],
    *[
        ("env", (*WHEN, "env", "HSA_OVERRIDE_GFX_VERSION", op), v, "expected a string")
        for op, v in (("equals", 5), ("not_equals", ["a"]), ("equals", None), ("matches", 1.5))
    ],
    # exclude values / axes not in the matrix
    ("exclude", ("exclude", 0, "torch"), "2.9", "is not a value of the torch axis"),
    ("exclude", ("exclude", 0, "rocm"), ["6.2", "7.0"], "is not a value of the rocm axis"),
    ("exclude", ("exclude", 1, "arch"), "gfx906", "is not a value of the arch axis"),
    ("exclude", ("exclude", 1, "lib.vllm"), "1.0", "is not a value of the lib.vllm axis"),
    ("exclude", ("exclude", 0, "torch"), "2.5.1", "is not a value of the torch axis"),
    # applies_to
    ("applies", (*RULE, "applies_to"), {"all": False}, "must be true"),
    ("applies", (*RULE, "applies_to"), {"all": True, "uses": ["x"]}, "cannot be combined"),
    ("applies", (*RULE, "applies_to"), "nothing", "expected a mapping"),
    ("applies", (*RULE, "applies_to"), {"nodeid": ["x"]}, "did you mean 'nodeids'?"),
]


def value_cases() -> list[Case]:
    seen: dict[str, int] = {}
    cases = []
    for kind, path, value, contains in VALUE_CASES:
        case_id = f"{kind}:{join(path)}={value!r}"
        seen[case_id] = seen.get(case_id, 0) + 1
        if seen[case_id] > 1:
            case_id += f"#{seen[case_id]}"
        parent = _get(BASE_DATA, path[:-1])
        if not isinstance(parent, (dict, list)):  # an env operator where the variable has a word
            data = replaced(path[:-1], {path[-1]: value})
        elif path[-1] not in parent:  # a new key
            data = added(path[:-1], path[-1], value)
        else:
            data = replaced(path, value)
        cases.append(at(case_id, data, path, contains=contains))
    # names that are not names
    for parent, name, contains in [
        ((*WHEN, "env"), "1BAD", "is not an environment variable name"),
        ((*WHEN, "env"), "HAS SPACE", "is not an environment variable name"),
        ((*WHEN, "env"), "A-B", "is not an environment variable name"),
        ((*WHEN, "env"), "", "is not an environment variable name"),
        ((*WHEN, "libraries"), "bad name", "is not a distribution name"),
        ((*WHEN, "libraries"), "-x", "is not a distribution name"),
        ((*RULE, "fixed_in"), "to rch", "is not an axis or library name"),
        (("axes", "libraries"), "  ", "is not a distribution name"),
    ]:
        value = "present" if parent[-1] == "env" else ("2.6" if parent[-1] == "fixed_in" else ["1.0"])
        if parent[-1] == "libraries" and parent[0] == "known_bad":
            value = ">=1"
        cases.append(
            at(f"name:{join((*parent, name))}", added(parent, name, value), (*parent, name), contains=contains)
        )
    # exclude entries naming axes the matrix does not have
    for axis in ("cuda", "lib.ray", "platform", "torchh"):
        cases.append(
            at(
                f"exclude-axis:{axis}",
                added(("exclude", 0), axis, "1.0"),
                ("exclude", 0, axis),
                contains=f"unknown axis {axis!r}",
            )
        )
    data = copy.deepcopy(BASE_DATA)
    data["exclude"].append({"python": "3.9"})
    cases.append(
        at("exclude:new-entry-python=3.9", data, ("exclude", 2, "python"), contains="is not a value of the python axis")
    )
    # duplicates: rule ids (within the file, with the included database), list values
    data = replaced(("known_bad", 1, "id"), "torchao-int1")
    cases.append(
        at(
            "dup-rule-id:within-file",
            data,
            ("known_bad", 1),
            path="known_bad",
            line_of=("known_bad", 1),
            contains="duplicate rule id 'torchao-int1' (first defined at m.yaml:",
        )
    )
    data = replaced(("known_bad", 0, "id"), "kb-rule")
    cases.append(
        at(
            "dup-rule-id:with-include",
            data,
            ("known_bad", 0),
            path="known_bad",
            line_of=("known_bad", 0),
            contains="(first defined at kb.yaml:2)",
        )
    )
    data = copy.deepcopy(BASE_DATA)
    data["known_bad"].append(copy.deepcopy(data["known_bad"][1]))
    cases.append(
        at(
            "dup-rule-id:copied-rule",
            data,
            ("known_bad", 2),
            path="known_bad",
            line_of=("known_bad", 2),
            contains="duplicate rule id 'second-rule'",
        )
    )
    for path, value in [
        (("arch",), ["gfx942", "gfx942"]),
        (("axes", "torch"), ["2.5", "2.5"]),
        (("axes", "libraries", "vllm"), ["0.9", "0.9"]),
    ]:
        cases.append(at(f"dup-value:{join(path)}", replaced(path, value), path, contains="is listed twice"))
    # message wording
    cases.append(
        at(
            "wording:exclude-unknown-axis",
            added(("exclude", 0), "cuda", "12.4"),
            ("exclude", 0, "cuda"),
            contains="known axes:",
            bug=BUG_AXISS,
        )
    )
    for value in (None, ["a"]):
        path = (*WHEN, "env", "HSA_OVERRIDE_GFX_VERSION")
        cases.append(
            at(
                f"wording:env-equals={value!r}",
                replaced(path, {"equals": value}),
                (*path, "equals"),
                contains="expected a string",
                absent="quote numbers",
                bug=BUG_QUOTE_NUMBERS_HINT,
            )
        )
    # questionable acceptances
    cases.append(
        at(
            "expect:min_gpus=2.5",
            replaced(("expect", "min_gpus"), 2.5),
            ("expect", "min_gpus"),
            bug=BUG_FRACTIONAL_GPUS,
        )
    )
    cases.append(
        at(
            "floor:inf",
            replaced(("floors", "gemm_bf16_tflops"), float("inf")),
            ("floors", "gemm_bf16_tflops"),
            bug=BUG_INFINITE_FLOOR,
        )
    )
    # floors with a metric name that is not a string
    for key in (1, None, True):
        data = added(("floors",), key, 5)
        cases.append(
            Case(
                f"floors-key:{key!r}",
                dump(data),
                path="floors",
                lines=(locate(dump(data), ("floors",))[0], last_line(dump(data))),
                bug=BUG_FLOORS_KEY,
            )
        )
    # regexes that blow up re.compile with something other than re.error
    for path, regex, bug in [
        ((*RULE, "signature"), "a{4294967296}", BUG_REGEX_OVERFLOW),
        ((*WHEN, "env", "PYTORCH_CUDA_ALLOC_CONF", "matches"), "a{4294967296}", BUG_REGEX_OVERFLOW),
        ((*RULE, "signature"), "(" * 3000 + ")" * 3000, BUG_REGEX_DEPTH),
    ]:
        cases.append(
            at(
                f"regex-crash:{join(path)}={regex[:16]}",
                replaced(path, regex),
                path,
                contains="regular expression",
                bug=bug,
            )
        )
    return cases


# ---- 4. the included database ------------------------------------------------------------
def include_cases() -> list[Case]:
    inc = lambda *names: BASE.replace("include: [kb.yaml]", f"include: [{', '.join(names)}]")  # noqa: E731
    line = line_with(BASE, "include:")
    cases = [
        Case("include:missing", inc("nope.yaml"), path="include[0]", lines=(line, line), contains="file not found"),
        Case(
            "include:missing-subdir",
            inc("sub/nope.yaml"),
            path="include[0]",
            lines=(line, line),
            contains="file not found",
        ),
        Case(
            "include:missing-second",
            inc("kb.yaml", "gone.yaml"),
            path="include[1]",
            lines=(line, line),
            contains="'gone.yaml': file not found",
        ),
        Case(
            "include:directory",
            inc("incdir"),
            files=(("incdir", None),),
            path="include[0]",
            lines=(line, line),
            contains="is a directory",
        ),
        Case("include:parent-directory", inc("'..'"), path="include[0]", lines=(line, line), contains="is a directory"),
        Case("include:empty-name", inc("''"), path="include[0]", lines=(line, line), contains="must not be empty"),
        Case(
            "include:self", inc(MAIN), path="include[0]", lines=(line, line), contains="include cycle: m.yaml -> m.yaml"
        ),
        Case(
            "include:cycle-of-two",
            inc("a.yaml"),
            files=(("a.yaml", "include: [b.yaml]\nknown_bad: []\n"), ("b.yaml", "known_bad: []\ninclude: [a.yaml]\n")),
            file="b.yaml",
            path="include[0]",
            lines=(2, 2),
            contains="include cycle: a.yaml -> b.yaml -> a.yaml",
        ),
        Case(
            "include:cycle-of-three",
            inc("a.yaml"),
            files=(
                ("a.yaml", "include: [b.yaml]\n"),
                ("b.yaml", "include: [c.yaml]\n"),
                ("c.yaml", "include: [a.yaml]\n"),
            ),
            file="c.yaml",
            path="include[0]",
            lines=(1, 1),
            contains="a.yaml -> b.yaml -> c.yaml -> a.yaml",
        ),
        Case(
            "include:cycle-back-to-main",
            inc("a.yaml"),
            files=(("a.yaml", f"include: [{MAIN}]\n"),),
            file="a.yaml",
            path="include[0]",
            lines=(1, 1),
            contains="m.yaml -> a.yaml -> m.yaml",
        ),
        Case(
            "include:not-utf8",
            BASE,
            files=(("kb.yaml", b"known_bad: []\ndescription: caf\xe9\n"),),
            path="include[0]",
            lines=(line, line),
            contains="not UTF-8 text",
        ),
        Case(
            "include:empty-file",
            BASE,
            files=(("kb.yaml", ""),),
            file="kb.yaml",
            whole_file=True,
            contains="the file is empty",
        ),
        Case(
            "include:comment-only",
            BASE,
            files=(("kb.yaml", "# nothing yet\n"),),
            file="kb.yaml",
            whole_file=True,
            contains="the file is empty",
        ),
        Case(
            "include:top-level-list",
            BASE,
            files=(("kb.yaml", "- id: a\n  reason: r\n"),),
            file="kb.yaml",
            lines=(1, 1),
            contains="the top level must be a mapping",
        ),
        Case(
            "include:syntax-error",
            BASE,
            files=(("kb.yaml", "known_bad:\n  - id: [a\n"),),
            file="kb.yaml",
            lines=(2, 3),
            contains="not valid YAML",
        ),
        Case(
            "include:python-tag",
            BASE,
            files=(("kb.yaml", "known_bad: !!python/object/apply:os.system ['touch pwned']\n"),),
            file="kb.yaml",
            lines=(1, 1),
            contains="tags are not allowed",
        ),
        Case(
            "include:duplicate-key",
            BASE,
            files=(("kb.yaml", KB + "known_bad: []\n"),),
            file="kb.yaml",
            lines=(5, 5),
            contains="duplicate key 'known_bad' (first on line 1)",
        ),
        Case(
            "include:bad-rule",
            BASE,
            files=(("kb.yaml", KB.replace('"gfx94*"', "mi300")),),
            file="kb.yaml",
            path="known_bad[0].when.arch",
            lines=(3, 3),
            contains="'mi300' is not a GPU architecture",
        ),
        Case(
            "include:misspelled-key",
            BASE,
            files=(("kb.yaml", KB.replace("reason:", "reasn:")),),
            file="kb.yaml",
            path="known_bad[0].reasn",
            lines=(4, 4),
            contains="did you mean 'reason'?",
        ),
        Case(
            "include:nested-missing",
            BASE,
            files=(("kb.yaml", "include: [deeper.yaml]\n" + KB),),
            file="kb.yaml",
            path="include[0]",
            lines=(1, 1),
            contains="cannot include 'deeper.yaml': file not found",
        ),
        Case("include:nul-in-name", inc('"kb\\0.yaml"'), path="include[0]", lines=(line, line), bug=BUG_INCLUDE_NUL),
        Case(
            "include:very-long-name",
            inc("a" * 5000 + ".yaml"),
            path="include[0]",
            lines=(line, line),
            bug=BUG_INCLUDE_LONG,
        ),
    ]
    for key in ("platform", "axes", "floors", "suites", "exclude"):
        value = {
            "platform": "rocm",
            "axes": "{torch: ['2.5']}",
            "floors": "{gemm_bf16_tflops: 1}",
            "suites": "[gpu]",
            "exclude": "[]",
        }[key]
        cases.append(
            Case(
                f"include:disallowed-{key}",
                BASE,
                files=(("kb.yaml", f"{key}: {value}\n" + KB),),
                file="kb.yaml",
                path=key,
                lines=(1, 1),
                contains="is not allowed in an included file",
            )
        )
    cases.append(Case("main:missing", None, whole_file=True, contains="file not found"))
    cases.append(Case("main:directory", None, files=((MAIN, None),), whole_file=True, contains="is a directory"))
    return cases


# ---- 5. text corruptions of the hand-written BASE ------------------------------------------
def _replace_line(text: str, needle: str, new: str) -> tuple[str, int]:
    n = line_with(text, needle)
    lines = text.splitlines(keepends=True)
    lines[n - 1] = lines[n - 1].replace(needle, new, 1)
    return "".join(lines), n


def text_cases() -> list[Case]:
    cases = []
    end = last_line(BASE)
    # truncation at many offsets (some prefixes are valid matrices: then they must load)
    step = max(1, len(BASE) // 60)
    for cut in [*range(1, len(BASE), step), *(BASE.index(s) + 1 for s in ('["6.2"', "{rocm", "'torch'", "[https"))]:
        cases.append(Case(f"truncated:{cut}", BASE[:cut], may_be_valid=True, whole_file=True))
    # a tab as indentation on each indented line
    for n, line in enumerate(BASE.splitlines(), 1):
        if line.startswith("  "):
            lines = BASE.splitlines(keepends=True)
            lines[n - 1] = "\t" + line.lstrip(" ") + "\n"
            cases.append(Case(f"tab-indent:line{n}", "".join(lines), lines=(n, n), contains="'\\t'"))
    # unbalanced brackets and quotes: reported where the parser notices, never before the line
    for needle, new in [
        ("gfx90a]", "gfx90a"),
        ('"6.3"]', '"6.3"'),
        ('torch: "2.6"}', 'torch: "2.6"'),
        ("250}", "250"),
        ("[kb.yaml]", "[kb.yaml]]"),
        ("min_gpus: 8}", "min_gpus: 8}}"),
        ("'int1'\"", "'int1'"),
        ('"<2.6"', '"<2.6'),
        ("name: MI300X", "name: 'MI300X"),
        ("gfx90a]", "gfx90a}"),
        ("[torchao]}", "[torchao}]"),
        ("[gpus]", "[gpus"),
        ("{torchao:", "{{torchao:"),
        ('"expandable_segments"}}', '"expandable_segments"}'),
    ]:
        text, n = _replace_line(BASE, needle, new)
        cases.append(Case(f"unbalanced:{needle}->{new}", text, lines=(n, end), contains="not valid YAML"))
    # duplicate keys (YAML would silently keep the last one)
    for needle in (
        "platform: rocm",
        "name: MI300X",
        "description:",
        "    action: xfail",
        "    reason: torchao",
        '      torch: "<2.6"',
        "  python:",
        "    vllm:",
        "    signature:",
        "suites:",
    ):
        n = line_with(BASE, needle)
        lines = BASE.splitlines(keepends=True)
        # repeat the key line (block values: with an empty value, which is still a duplicate key)
        dup = lines[n - 1] if not lines[n - 1].rstrip().endswith(":") else lines[n - 1].rstrip() + " []\n"
        lines.insert(n, dup)
        key = needle.strip().split(":")[0]
        cases.append(
            Case(
                f"duplicate-key:{key}@{n}",
                "".join(lines),
                lines=(n + 1, n + 1),
                contains=f"duplicate key {key!r} (first on line {n})",
            )
        )
    # tags: Python objects are refused (and never run), unknown tags too
    tag_sites = {
        "name: MI300X": "name: {}",
        "signature:": "    signature: {}",
        "description:": "description: {}",
        "reason: torchao": "    reason: {}",
        "platform: rocm": "platform: {}",
    }
    tags = [
        ("name: MI300X", "!!python/object/apply:os.system ['touch pwned']"),
        ("signature:", "!!python/object/apply:subprocess.check_output [['touch', 'pwned']]"),
        ("reason: torchao", "!!python/object/new:os.system ['touch pwned']"),
        ("description:", "!!python/name:os.system"),
        ("description:", "!!python/module:os"),
        ("platform: rocm", "!!python/tuple [rocm]"),
        ("name: MI300X", "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch pwned']"),
        ("name: MI300X", "!!python/object:builtins.object {}"),
        ("name: MI300X", "!custom MI300X"),
        ("platform: rocm", "!rocm rocm"),
        ("description:", '!!python/object/apply:builtins.exec [\'open("pwned", "w")\']'),
    ]
    for needle, tag in tags:
        text, n = _replace_line(BASE, BASE.splitlines()[line_with(BASE, needle) - 1], tag_sites[needle].format(tag))
        cases.append(Case(f"tag:{tag.split()[0]}@{n}", text, lines=(n, n), contains="tags are not allowed"))
    text = "%TAG ! tag:evil.example,2000:\n---\n" + BASE.replace("platform: rocm", "platform: !x rocm")
    n = line_with(text, "platform:")
    cases.append(Case("tag:%TAG-directive", text, lines=(n, n), contains="tags are not allowed"))
    # explicit standard tags: wrong-typed, or bad values (the latter crash PyYAML's constructors)
    for needle, new, contains, bug in [
        ("name: MI300X", "name: !!binary aGVsbG8=", "expected a string", None),
        ("min_gpus: 8", "min_gpus: !!str 8", "expected a number", None),
        ("arch: [gfx942, gfx90a]", "arch: !!set {gfx942}", "expected a string or a list", None),
        ("name: MI300X", "name: !!str {a: 1}", "not valid YAML", None),
        ("name: MI300X", "name: !!set [a]", "not valid YAML", None),
        ("name: MI300X", "name: !!binary é", "not valid YAML", None),
        ("name: MI300X", "name: !!int abc", None, BUG_SCALAR_TAGS),
        ("name: MI300X", "name: !!float abc", None, BUG_SCALAR_TAGS),
        ("name: MI300X", "name: !!bool maybe", None, BUG_SCALAR_TAGS),
        ("name: MI300X", "name: !!timestamp x", None, BUG_SCALAR_TAGS),
        ("description: corpus base matrix", "description: !!map abc", None, BUG_SCALAR_TAGS),
        ("description: corpus base matrix", "description: !!seq abc", None, BUG_SCALAR_TAGS),
        ("min_gpus: 8", "min_gpus: 1" + "0" * 5000, None, BUG_BIG_INT),
    ]:
        text, n = _replace_line(BASE, needle, new)
        cases.append(Case(f"scalar-tag:{new[:40]}", text, lines=(n, n), contains=contains, bug=bug))
    # aliases and merge keys
    for needle, new, contains in [
        ("name: MI300X", "name: *nope", "undefined alias 'nope'"),
        ("arch: [gfx942, gfx90a]", "arch: [*gpu]", "undefined alias 'gpu'"),
        ("description: corpus base matrix", "description: &d [*d]", "recursive"),
        ("name: MI300X", "<<: 5\nname: MI300X", "for merging"),
        ("name: MI300X", "<<: *base\nname: MI300X", "undefined alias 'base'"),
    ]:
        text, n = _replace_line(BASE, needle, new)
        cases.append(Case(f"alias:{new.splitlines()[0]}", text, lines=(n, n), contains=contains))
    # several documents, directives
    for case_id, text, n, contains in [
        ("documents:two", BASE + "---\nname: other\n", end, "another document"),
        ("documents:two-message", BASE + "---\nname: other\n", end, "expected a single document"),
        ("documents:leading-and-trailing", "---\n" + BASE + "---\n", end + 1, "another document"),
        ("documents:after-end-marker", BASE + "...\nname: again\n", end + 1, "not valid YAML"),
        ("documents:yaml-2.0", "%YAML 2.0\n---\n" + BASE, 1, "incompatible YAML document"),
        ("documents:only-end-marker", "...\n", 1, "not valid YAML"),
    ]:
        cases.append(
            Case(
                case_id,
                text,
                lines=(n, n),
                contains=contains,
                bug=BUG_SECOND_DOCUMENT if case_id == "documents:two-message" else None,
            )
        )
    # bytes that are not UTF-8 (nor what a byte-order mark says): about the whole file; a file that
    # starts with a mark is read by it (BASE.encode("utf-16") loads: tests/safe_io/test_input_files.py)
    utf16 = "not UTF-16 LE text (it starts with a UTF-16 LE byte-order mark)"
    for case_id, data, contains in [
        ("bytes:utf-16-no-mark", BASE.encode("utf-16-le") + b"\xff\xdc", "not UTF-8 text"),
        ("bytes:utf-16-lone-surrogate", BASE.encode("utf-16") + "\n".encode("utf-16-le") + b"\x00\xdc", utf16),
        ("bytes:utf-32-out-of-range", BASE.encode("utf-32") + b"\x00\x00\x11\x00", "not UTF-32 LE text"),
        ("bytes:latin-1", BASE.replace("corpus base", "café").encode("latin-1"), "not UTF-8 text"),
        ("bytes:ff-fe-fd", b"\xff\xfe\xfd", utf16),
        ("bytes:all-256", bytes(range(256)), "not UTF-8 text"),
        ("bytes:stray-continuation", BASE.encode() + b"\x80\n", "not UTF-8 text"),
        ("bytes:utf-8-mark-then-stray", b"\xef\xbb\xbf" + BASE.encode() + b"\x80\n", "not UTF-8 text (it starts"),
        ("bytes:cut-multibyte", ("description: 日本\n").encode()[:-2], "not UTF-8 text"),
        ("bytes:gzip-magic", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", "not UTF-8 text"),
    ]:
        cases.append(Case(case_id, data, whole_file=True, contains=contains))
    for case_id, text in [
        ("control:nul", BASE.replace("MI300X", "MI\x00300X")),
        ("control:escape", BASE.replace("corpus base", "\x1b[31mred")),
        ("control:bell", BASE.replace("corpus base", "bell\x07")),
        ("control:U+FFFE", BASE.replace("corpus base", "x\ufffe")),
    ]:
        cases.append(Case(case_id, text, whole_file=True, bug=BUG_CONTROL_CHARS))
    # empty files and top levels that are not mappings
    for case_id, text, contains in [
        ("empty:zero-bytes", "", "the file is empty"),
        ("empty:newlines", "\n\n\n", "the file is empty"),
        ("empty:whitespace", "   \n\t\n", "the file is empty"),
        ("empty:comment", "# todo\n", "the file is empty"),
        ("empty:document-marker", "---\n", "the file is empty"),
        ("empty:tilde", "~\n", "the file is empty"),
        ("empty:null", "null\n", "the file is empty"),
        ("top:scalar-int", "42\n", "the top level must be a mapping"),
        ("top:scalar-str", "MI300X\n", "the top level must be a mapping"),
        ("top:scalar-bool", "true\n", "the top level must be a mapping"),
        ("top:quoted", "'name: MI300X'\n", "the top level must be a mapping"),
    ]:
        cases.append(Case(case_id, text, whole_file=True, contains=contains))
    for case_id, text, contains in [
        ("top:block-list", "- name: MI300X\n- platform: rocm\n", "the top level must be a mapping"),
        ("top:flow-list", "[name, MI300X]\n", "the top level must be a mapping"),
        ("top:empty-list", "[]\n", "the top level must be a mapping"),
        ("top:empty-mapping", "{}\n", "the file is an empty mapping"),
        (
            "top:list-of-base",
            textwrap.indent(BASE, "  ").replace("  name:", "- name:", 1),
            "the top level must be a mapping",
        ),
    ]:
        cases.append(Case(case_id, text, lines=(1, 1), contains=contains))
    # deep nesting: past MAX_DEPTH (64) a marked error at the top-level key (was: a traceback from ~250 on)
    for depth, kind, bug in [
        (100, "list", None),
        (100, "mapping", None),
        (300, "list", BUG_DEEP_NESTING),
        (1000, "mapping", BUG_DEEP_NESTING),
        (50_000, "list", BUG_DEEP_NESTING),
    ]:
        nested = "[" * depth + "]" * depth if kind == "list" else "{a: " * depth + "}" * depth
        text, n = _replace_line(BASE, "description: corpus base matrix", f"description: {nested}")
        if bug is None:
            cases.append(
                Case(
                    f"nesting:{kind}x{depth}",
                    text,
                    path="description",
                    lines=(n, n),
                    contains="nested more than 64 levels deep",
                )
            )
        else:  # found BUG_DEEP_NESTING (fixed): a marked YAML error at the line where it nests too deep
            cases.append(Case(f"nesting:{kind}x{depth}", text, lines=(n, n), contains="nested too deeply", bug=bug))
    # alias bombs in-process (moderate size: 9**6 leaves); the real one runs in a subprocess below
    for where, path, bug in [
        ("bomb_holder_only", "bomb", None),
        ("name", "name", BUG_HUGE_ECHO),
        ("exclude", "exclude[0].arch", BUG_HUGE_ECHO),
    ]:
        text = bomb_text(6, where)
        n = line_with(text, "*l5") if where != "bomb_holder_only" else 1
        cases.append(Case(f"alias-bomb:{where}", text, path=path, lines=(n, n), bug=bug))
    text, n = _replace_line(BASE, "description: corpus base matrix", "description: [" + "x, " * 2000 + "x]")
    cases.append(Case("huge-value:list-of-2000", text, path="description", lines=(n, n), bug=BUG_HUGE_ECHO))
    return cases


def bomb_text(levels: int, where: str) -> str:
    """A matrix holding an alias bomb: 9**levels leaves from ~levels lines."""
    body = ["bomb:", "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    body += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    top = f"*l{levels - 1}"
    tail = {
        "bomb_holder_only": "name: ok\n",
        "name": f"name: {top}\n",
        "exclude": f"name: ok\narch: [gfx942]\nexclude:\n  - arch: {top}\n",
    }[where]
    return "\n".join(body) + "\n" + tail


CORPUS: list[Case] = [*type_cases(), *key_cases(), *value_cases(), *include_cases(), *text_cases()]
DESIGNED = [c for c in CORPUS if not c.may_be_valid]


def _param(case: Case):
    return pytest.param(case, id=case.id)  # case.bug records the bug this case found (now fixed)


# ---- the checks --------------------------------------------------------------------------
def write_case(case: Case, root: Path) -> dict[str, str | None]:
    """Write the case's files; return each file's text (None for bytes/directories)."""
    files: dict[str, str | bytes | None] = {"kb.yaml": KB}
    files.update(case.files)
    if case.text is not None:
        files[MAIN] = case.text
    texts: dict[str, str | None] = {}
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
        texts[name] = content if isinstance(content, str) else None
    return texts


def check_problem_format(p: Problem, case: Case, texts: dict[str, str | None]) -> None:
    s = str(p)
    assert isinstance(p, Problem)
    assert p.file in texts or (case.text is None and p.file == MAIN), f"unknown file named: {s}"
    assert s.startswith(f"{p.file}:"), s
    assert "\n" not in s and "\r" not in s, f"multi-line problem: {s!r}"
    assert "Traceback" not in s and "Error(" not in s, s
    assert len(s) <= MAX_MESSAGE, f"{len(s)}-character problem: {s[:300]}..."
    assert p.message.strip(), s
    where = f"{p.file}:{p.line}" if p.line is not None else p.file
    if p.line is None:
        assert case.whole_file, f"no line number: {s}"
    else:
        text = texts.get(p.file)
        bound = last_line(text) if text is not None else None
        assert isinstance(p.line, int) and p.line >= 1 and (bound is None or p.line <= bound), s
        assert s.startswith(f"{where}: "), s
    if p.path:
        assert s.startswith(f"{where}: {p.path}: "), s


def _under(actual: str, expected: str) -> bool:
    return actual == expected or actual.startswith((expected + ".", expected + "["))


def check_target(case: Case, problems: list[Problem]) -> None:
    mine = [p for p in problems if p.file == case.file]
    listing = "\n".join(str(p) for p in problems)
    assert mine, f"no problem in {case.file}:\n{listing}"
    hits = mine
    if case.path is not None:
        hits = [p for p in mine if _under(p.path, case.path)]
        assert hits, f"no problem at {case.path}:\n{listing}"
        lo, hi = case.lines
        for p in hits:
            if p.path == case.path:
                assert p.line == lo, f"{case.path} is on line {lo}:\n{listing}"
            else:
                assert lo <= p.line <= hi, f"{case.path} spans lines {lo}-{hi}:\n{listing}"
    elif case.lines is not None:
        lo, hi = case.lines
        hits = [p for p in mine if p.line is not None and lo <= p.line <= hi]
        assert hits, f"no problem on lines {lo}-{hi}:\n{listing}"
    if case.contains is not None:
        assert any(case.contains in p.message for p in hits), f"expected {case.contains!r}:\n{listing}"
    if case.absent is not None:
        assert not any(case.absent in p.message for p in problems), f"unexpected {case.absent!r}:\n{listing}"


def test_base_matrix_is_valid(tmp_path, monkeypatch) -> None:
    """Every mutation starts from a valid matrix, hand-written or dumped."""
    monkeypatch.chdir(tmp_path)
    for text in (BASE, dump(BASE_DATA)):
        write_case(Case("base", text), tmp_path)
        m = load_matrix(MAIN)
        assert m.name == "MI300X" and [r.id for r in m.rules] == ["kb-rule", "torchao-int1", "second-rule"]


def test_corpus_size_and_ids() -> None:
    ids = [c.id for c in CORPUS]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert len(DESIGNED) >= 100, len(DESIGNED)


@pytest.mark.parametrize("case", [_param(c) for c in CORPUS])
def test_malformed_matrix_gives_clear_error(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    texts = write_case(case, tmp_path)
    error: ConfigError | None = None
    try:
        matrix = load_matrix(MAIN)
    except ConfigError as exc:
        error = exc
    if error is not None:
        assert error.problems, "ConfigError without problems"
        assert str(error) == "\n".join(str(p) for p in error.problems)
        for p in error.problems:
            check_problem_format(p, case, texts)
        if not case.may_be_valid:
            check_target(case, error.problems)
    else:
        assert case.may_be_valid, f"silently accepted: {case.id}"
        assert isinstance(matrix, Matrix)
    assert not (tmp_path / "pwned").exists(), "a YAML tag ran code"


# ---- the real billion laughs, in a subprocess with a deadline -----------------------------
_BOMB_RUNNER = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 29, 1 << 29))
from pytest_rocmcompat.cli.main import main
sys.exit(main(["lint", "bomb.yaml"]))
"""


@pytest.mark.parametrize(
    "where",
    [
        "bomb_holder_only",
        "name",  # found BUG_HUGE_ECHO (fixed: messages quote values through a bounded repr)
    ],
)
def test_billion_laughs_finishes_quickly(tmp_path: Path, where: str) -> None:
    (tmp_path / "bomb.yaml").write_text(bomb_text(10, where), encoding="utf-8")  # 9**10 leaves
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _BOMB_RUNNER],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=20,
            env=_clean_env(),
        )
    except subprocess.TimeoutExpired:
        pytest.fail("rocmcompat lint did not finish within 20 s on an alias bomb")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "bomb.yaml:" in proc.stderr
    assert len(proc.stderr) < 10_000, f"{len(proc.stderr)} characters of errors"


# ---- hypothesis: arbitrary documents and text ---------------------------------------------
VOCAB = sorted(
    {
        *TOP_KEYS,
        *AXIS_KEYS,
        *RULE_KEYS,
        *WHEN_KEYS,
        *APPLIES_KEYS,
        *ENV_OPS,
        *EXPECT_KEYS,
        *METRICS,
        *SUITES,
        "lib.vllm",
        "vllm",
        "torchao",
        "HSA_OVERRIDE_GFX_VERSION",
    }
)
WORDS = [
    "2.5",
    "6.2",
    "6.10",
    ">=2.5",
    "<2.6",
    "==6.2.*",
    "gfx942",
    "gfx94*",
    "sm_90",
    "rocm",
    "cuda",
    "cpu",
    "xfail",
    "skip",
    "isolate",
    "present",
    "absent",
    "all",
    "installed",
    "*",
    "https://example.invalid/x",
    "(",
    "kb.yaml",
    "torchao",
    "gpu",
    "",
    "a-rule",
]


safe_text = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cn")), max_size=12)
keys = st.sampled_from(VOCAB) | safe_text
scalars = st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.floats() | st.sampled_from(WORDS) | safe_text
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5), max_leaves=20
)
MUTABLE_PATHS = sorted(PATHS, key=join)


@st.composite
def documents(draw) -> Any:
    choice = draw(st.integers(0, 3))
    if choice == 0:  # a mutated base: one or more key paths get arbitrary values
        data = copy.deepcopy(BASE_DATA)
        for path in draw(st.lists(st.sampled_from(MUTABLE_PATHS), min_size=1, max_size=3)):
            try:
                parent = _get(data, path[:-1])
                parent[path[-1]] = draw(values)
            except (KeyError, IndexError, TypeError):
                pass  # an earlier mutation removed the path
        return data
    if choice == 1:  # top-level keys with arbitrary values
        return draw(st.dictionaries(st.sampled_from(TOP_KEYS) | keys, values, max_size=8))
    if choice == 2:  # a list of arbitrary rules
        return {
            "name": "x",
            "known_bad": draw(
                st.lists(st.dictionaries(st.sampled_from(RULE_KEYS) | keys, values, max_size=6), max_size=3)
            ),
        }
    return draw(values)


def _load_outcome(tmp: Path, text: str) -> None:
    with open(tmp / MAIN, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    error: ConfigError | None = None
    try:
        load_matrix(MAIN)
    except ConfigError as exc:
        error = exc
    if error is not None:
        assert error.problems
        for p in error.problems:
            s = str(p)
            assert s.startswith(p.file + ":") and p.file in (MAIN, "kb.yaml"), s
            assert "\n" not in s and "Traceback" not in s, s
            assert p.line is None or 1 <= p.line <= last_line(text), s


_HYPOTHESIS = settings(
    max_examples=250,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@_HYPOTHESIS
@given(doc=documents())
def test_any_document_gives_matrix_or_config_error(doc: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kb.yaml").write_text(KB, encoding="utf-8")
    text = dump(doc)
    _load_outcome(tmp_path, text)


TOKENS = [
    "name",
    "known_bad",
    "id",
    "reason",
    "when",
    "axes",
    "torch",
    "include",
    "exclude",
    "arch",
    ":",
    ": ",
    " ",
    "  ",
    "\n",
    "\n  ",
    "- ",
    "-",
    "[",
    "]",
    "{",
    "}",
    ",",
    "'",
    '"',
    "#",
    "&a ",
    "*a",
    "!!str ",
    "!!python/name:os.system ",
    "!x ",
    "---",
    "...",
    "? ",
    "|",
    ">",
    "\t",
    "%YAML 1.1",
    "2.5",
    "6.10",
    ">=2.5",
    "gfx942",
    "kb.yaml",
    "<<",
    "\\",
    "~",
    "null",
    "true",
]


@_HYPOTHESIS
@given(text=st.lists(st.sampled_from(TOKENS) | safe_text, max_size=40).map("".join) | st.text(max_size=200))
def test_any_text_gives_matrix_or_config_error(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kb.yaml").write_text(KB, encoding="utf-8")
    _load_outcome(tmp_path, text)


# ---- through the front ends ----------------------------------------------------------------
FRONT_END_SAMPLE = [
    "type:platform=int",
    "typo:known_bad[0].when->whe",
    "unknown-key:axes",
    "specifier:known_bad[0].when.torch='=>2'",
    "dup-rule-id:with-include",
    "include:missing",
    "include:cycle-of-two",
    "tab-indent:line6",
    "tag:!!python/object/apply:os.system@1",
    "duplicate-key:platform@3",
]


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}


@pytest.mark.parametrize("case", [_param(c) for c in CORPUS if c.id in FRONT_END_SAMPLE])
def test_front_ends_report_problems_without_traceback(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_case(case, tmp_path)
    (tmp_path / "env.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_matrix(MAIN)
    expected = [str(p) for p in info.value.problems]
    first = info.value.problems[0]
    assert first.line is not None

    lint = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "lint", MAIN],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(),
    )
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert "Traceback" not in lint.stderr + lint.stdout
    assert lint.stderr.splitlines() == expected

    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--rocm-matrix", MAIN, "--rocm-env", "env.json", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=_clean_env(),
    )
    assert run.returncode == 4, run.stdout + run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert f"ERROR: rocmcompat: {first.file}:{first.line}:" in run.stderr, run.stderr
    for line in expected:
        assert line in run.stderr, run.stderr
    assert not (tmp_path / "pwned").exists()

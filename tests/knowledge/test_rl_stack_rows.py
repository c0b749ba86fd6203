"""``requirement-not-met`` on the RL / fine-tuning frameworks' own version gates.

:data:`requirement_tables.RUNTIME_MINIMUMS` rows for verl's vLLM gate (``verl/third_party/vllm/__init__.py``),
OpenRLHF's vLLM assertions (``openrlhf/trainer/ray/vllm_engine.py``, string comparisons before 0.8.8) and
LLaMA-Factory 0.9.3's mandatory DeepSpeed range (each sourced in the comment above the table). Each gate is
transcribed from its tag and compared with its row over vLLM's PyPI releases; each row both ways through
the registry; the text each tag raises predicted by the row's message and the compiled signature, near
misses (warnings, skippable checks, other floors) not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS, RuntimeRow, runtime_minimums
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import assert_both_ways, assert_predicted, reasons, rule

BASE = Environment(platform="rocm", python="3.11.7", os="Linux")
_reasons = partial(reasons, BASE)
_rule = partial(rule, BASE)
_VERL = "https://github.com/volcengine/verl/blob/"
_ORLHF = "https://github.com/OpenRLHF/OpenRLHF/blob/"

# vLLM's PyPI releases (https://pypi.org/project/vllm/#history), and the two builds verl's gate names
_PYPI = """
0.2.7 0.3.0 0.3.1 0.3.2 0.3.3 0.4.0 0.4.0.post1 0.4.1 0.4.2 0.4.3 0.5.0 0.5.0.post1 0.5.1 0.5.2 0.5.3 0.5.3.post1
0.5.4 0.5.5 0.6.0 0.6.1 0.6.1.post1 0.6.1.post2 0.6.2 0.6.3 0.6.3.post1 0.6.4 0.6.4.post1 0.6.5 0.6.6 0.6.6.post1
0.7.0 0.7.1 0.7.2 0.7.3 0.8.0 0.8.1 0.8.2 0.8.3 0.8.4 0.8.5 0.8.5.post1 0.9.0 0.9.0.1 0.9.1 0.9.2 0.10.0 0.10.1
0.10.1.1 0.10.2 0.11.0 0.11.2 0.12.0 0.13.0 0.15.1 0.17.1 0.18.0 0.19.1 0.22.1 0.24.0 0.27.1 0.33.0
"""
VLLM_RELEASES: tuple[str, ...] = (*_PYPI.split(), "0.6.3+rocm624", "0.6.6.post2.dev252+g8027a724")


def _verl_02(v: str) -> bool:
    """verl v0.2 to v0.2.0.post2: the exact strings, else ``vs.parse`` from 0.6.6.post2.dev252."""
    return v in ("0.3.1", "0.4.2", "0.5.4", "0.6.3") or Version(v) >= Version("0.6.6.post2.dev252+g8027a724")


def _verl_030(v: str) -> bool:
    """verl v0.3.0.post0 and v0.3.0.post1: AMD's 0.6.3+rocm624 added, the parsed floor 0.7.0."""
    return v in ("0.3.1", "0.4.2", "0.5.4", "0.6.3", "0.6.3+rocm624") or Version(v) >= Version("0.7.0")


def _verl_04(v: str) -> bool:
    """verl v0.4.0 and v0.4.1: "0.5.4", any string starting "0.6.3", or 0.7.0 on."""
    return v == "0.5.4" or v.startswith("0.6.3") or Version(v) >= Version("0.7.0")


def _floor(text: str, strict: bool = False) -> Callable[[str], bool]:
    """OpenRLHF before 0.8.8: ``vllm.__version__ >= "X"`` (or ``>``), compared as strings."""
    return (lambda v: v > text) if strict else (lambda v: v >= text)


# (package, a release the row covers, the tag's own acceptance of a vLLM version)
GATES: list[tuple[str, str, Callable[[str], bool]]] = [
    ("verl", "0.1", lambda v: v in ("0.3.1", "0.4.2", "0.5.4", "0.6.3")),
    ("verl", "0.2", _verl_02),
    ("verl", "0.2.0.post2", _verl_02),
    ("verl", "0.3.0.post1", _verl_030),
    ("verl", "0.4.1", _verl_04),
    ("verl", "0.5.0", lambda v: Version(v) >= Version("0.7.0")),
    ("verl", "0.8.0", lambda v: Version(v) >= Version("0.7.0")),
    ("verl", "0.9.1", lambda v: Version(v) >= Version("0.18.0")),
    ("openrlhf", "0.3.6.post1", _floor("0.4.1")),
    ("openrlhf", "0.5.7", _floor("0.4.2")),
    ("openrlhf", "0.6.0.post2", _floor("0.7.0")),
    ("openrlhf", "0.6.2", _floor("0.7.2")),
    ("openrlhf", "0.8.0.post1", _floor("0.8.1")),
    ("openrlhf", "0.8.7", _floor("0.8.2", strict=True)),
    ("openrlhf", "0.9.0", lambda v: Version(v) > Version("0.8.2")),
    ("openrlhf", "0.11.2", lambda v: Version(v) > Version("0.8.5")),
]


def _row(dist: str, version: str) -> RuntimeRow:
    (row,) = [r for r in runtime_minimums(dist, version) if r.requirement.startswith("vllm")]
    return row


@pytest.mark.parametrize(("dist", "release", "accepts"), GATES)
def test_each_row_is_its_gate(dist: str, release: str, accepts: Callable[[str], bool]) -> None:
    """The row's specifier accepts exactly the vLLM releases the tag's code accepts."""
    spec = SpecifierSet(_row(dist, release).requirement.removeprefix("vllm"))
    differ = [v for v in VLLM_RELEASES if spec.contains(v, prereleases=True) is not accepts(v)]
    assert differ == [], (dist, release, differ)


# (stack, the reported "<dist> <version> requires <requirement>, installed <dep> <version> (<source>" or None)
CASES: list[tuple[tuple[str, ...], str | None]] = [
    (("lib.verl=0.1", "lib.vllm=0.6.2"), "verl 0.1 requires vllm>=0.3.1,<=0.6.3,!=0.3.2,"),
    (("lib.verl=0.1", "lib.vllm=0.7.0"), f"installed vllm 0.7.0 ({_VERL}v0.1/"),  # PyPI's 0.1 names no vllm
    (("lib.verl=0.1", "lib.vllm=0.5.4"), None),
    (("lib.verl=0.2", "lib.vllm=0.6.1"), "verl 0.2 requires vllm>=0.3.1,!=0.3.2,"),
    (("lib.verl=0.2", "lib.vllm=0.6.3+rocm624"), "installed vllm 0.6.3+rocm624 ("),
    (("lib.verl=0.2.0.post1", "lib.vllm=0.6.3.post1"), f"installed vllm 0.6.3.post1 ({_VERL}v0.2/"),
    (("lib.verl=0.2", "lib.vllm=0.6.3"), None),
    (("lib.verl=0.2.0.post2", "lib.vllm=0.4.2"), None),
    # above PyPI's vllm<=0.6.3: what 0.2 declared is reported, not the gate
    (("lib.verl=0.2", "lib.vllm=0.7.3"), "verl 0.2 requires vllm<=0.6.3, installed vllm 0.7.3 (https://pypi.org/"),
    (("lib.verl=0.3.0.post1", "lib.vllm=0.6.3+rocm624"), None),
    (("lib.verl=0.3.0.post1", "lib.vllm=0.6.6.post1"), f"installed vllm 0.6.6.post1 ({_VERL}v0.3.0.post0/"),
    (("lib.verl=0.4.1", "lib.vllm=0.6.3.post1"), None),
    (("lib.verl=0.4.0", "lib.vllm=0.6.2"), "verl 0.4.0 requires vllm>=0.5.4,"),
    (("lib.verl=0.6.1", "lib.vllm=0.6.3"), f"verl 0.6.1 requires vllm>=0.7.0, installed vllm 0.6.3 ({_VERL}v0.5.0/"),
    (("lib.verl=0.7.0", "lib.vllm=0.7.0"), None),
    (("lib.verl=0.9.1", "lib.vllm=0.17.1"), "verl 0.9.1 requires vllm>=0.18.0, installed vllm 0.17.1"),
    (("lib.verl=0.9.0", "lib.vllm=0.18.0"), None),
    # OpenRLHF: its vllm_latest extra admits vLLM 0.10, which its string comparison refuses
    (
        ("lib.openrlhf=0.8.7", "lib.vllm=0.10.0"),
        f"openrlhf 0.8.7 requires vllm>0.8.2,<0.10, installed vllm 0.10.0 ({_ORLHF}v0.8.1/",
    ),
    (("lib.openrlhf=0.8.7", "lib.vllm=0.9.2"), None),
    (("lib.openrlhf=0.8.7", "lib.vllm=0.8.2"), "openrlhf 0.8.7 requires vllm>0.8.2,<0.10, installed vllm 0.8.2"),
    (("lib.openrlhf=0.8.8", "lib.vllm=0.10.0"), None),  # version.parse from 0.8.8
    (("lib.openrlhf=0.8.8", "lib.vllm=0.8.2"), "openrlhf 0.8.8 requires vllm>0.8.2, installed vllm 0.8.2"),
    (("lib.openrlhf=0.6.3.post1", "lib.vllm=0.8.0"), "openrlhf 0.6.3.post1 requires vllm>=0.8.1,<0.10"),
    (("lib.openrlhf=0.6.3.post1", "lib.vllm=0.8.1"), None),
    (("lib.openrlhf=0.3.6.post1", "lib.vllm=0.4.0.post1"), "openrlhf 0.3.6.post1 requires vllm>=0.4.1,<0.10"),
    (("lib.openrlhf=0.10.4", "lib.vllm=0.8.5"), f"installed vllm 0.8.5 ({_ORLHF}v0.9.1/"),
    (("lib.openrlhf=0.10.4", "lib.vllm=0.8.5.post1"), None),  # version.parse: 0.8.5.post1 > 0.8.5
    (("lib.openrlhf=0.10.4", "lib.vllm=0.9.0"), None),
    # LLaMA-Factory 0.9.3's mandatory DeepSpeed range (a run with a DeepSpeed config)
    (
        ("lib.llamafactory=0.9.3", "lib.deepspeed=0.17.0"),
        "llamafactory 0.9.3 requires deepspeed>=0.10.0,<=0.16.9, installed deepspeed 0.17.0 "
        "(https://github.com/hiyouga/LLaMA-Factory/blob/v0.9.3/",
    ),
    (("lib.llamafactory=0.9.3", "lib.deepspeed=0.9.5"), "requires deepspeed>=0.10.0,<=0.16.9, installed deepspeed"),
    (("lib.llamafactory=0.9.3", "lib.deepspeed=0.16.9"), None),
    (("lib.llamafactory=0.9.4", "lib.deepspeed=0.17.0"), None),  # 0.9.4 checks only that it is installed
    (("lib.llamafactory=0.9.2", "lib.deepspeed=0.17.0"), None),
]


@pytest.mark.parametrize(("stack", "found"), CASES)
def test_rows_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    assert_both_ways(BASE, stack, found)


# (stack, the text the tag raises for that stack, as its code formats it, the tag)
VERBATIM: list[tuple[tuple[str, ...], str, str]] = [
    (
        ("lib.verl=0.1", "lib.vllm=0.6.3.post1"),
        "ValueError: vllm version 0.6.3.post1 not supported. Currently supported versions are 0.3.1, 0.4.2, 0.5.4 "
        "and 0.6.3.",
        f"{_VERL}v0.1/verl/third_party/vllm/__init__.py#L49",
    ),
    (
        ("lib.verl=0.2", "lib.vllm=0.6.1"),
        "ValueError: vllm version 0.6.1 not supported. Currently supported versions are 0.3.1, 0.4.2, 0.5.4, "
        "0.6.3 and 0.7.0+",
        f"{_VERL}v0.2/verl/third_party/vllm/__init__.py#L58",
    ),
    (
        ("lib.verl=0.3.0.post1", "lib.vllm=0.6.4"),
        "ValueError: vllm version 0.6.4 not supported and SGLang also not Found. Currently supported vllm versions "
        "are 0.3.1, 0.4.2, 0.5.4, 0.6.3 and 0.7.0+",
        f"{_VERL}v0.3.0.post1/verl/third_party/vllm/__init__.py#L64",
    ),
    (
        ("lib.verl=0.4.1", "lib.vllm=0.6.4.post1"),
        "ValueError: vllm version 0.6.4.post1 not supported and SGLang also not Found. Currently supported vllm "
        "versions are 0.6.3 and 0.7.0+",
        f"{_VERL}v0.4.1/verl/third_party/vllm/__init__.py#L53",
    ),
    (
        ("lib.verl=0.7.0", "lib.vllm=0.6.3"),
        "ValueError: vLLM version 0.6.3 support has been removed. vLLM 0.5.4 and 0.6.3 are no longer supported. "
        "Please use vLLM 0.7.0 or later.",
        f"{_VERL}v0.7.0/verl/third_party/vllm/__init__.py#L54",
    ),
    (
        ("lib.verl=0.6.0", "lib.vllm=0.6.6.post1"),
        "ValueError: vllm version 0.6.6.post1 not supported and SGLang also not Found. Currently supported vllm "
        "versions are 0.7.0+",
        f"{_VERL}v0.6.0/verl/third_party/vllm/__init__.py#L59",
    ),
    (
        ("lib.verl=0.9.1", "lib.vllm=0.17.1"),
        "ValueError: vllm version 0.17.1 not supported and SGLang also not Found. Currently supported vllm versions "
        "are 0.18.0+",
        f"{_VERL}v0.9.1/verl/third_party/vllm/__init__.py",
    ),
    (
        ("lib.openrlhf=0.4.2", "lib.vllm=0.4.0"),
        "AssertionError: OpenRLHF only supports vLLM >= 0.4.1",
        f"{_ORLHF}v0.4.2/openrlhf/trainer/ray/vllm_engine.py#L19",
    ),
    (
        ("lib.openrlhf=0.5.7", "lib.vllm=0.10.0"),
        "AssertionError: OpenRLHF only supports vLLM >= 0.4.2",
        f"{_ORLHF}v0.5.7/openrlhf/trainer/ray/vllm_engine.py#L25",
    ),
    (
        ("lib.openrlhf=0.6.0", "lib.vllm=0.6.5"),
        "AssertionError: OpenRLHF only supports vllm >= 0.7.0",
        f"{_ORLHF}v0.6.0/openrlhf/trainer/ray/vllm_engine.py#L117",
    ),
    (
        ("lib.openrlhf=0.6.2", "lib.vllm=0.7.1"),
        "AssertionError: OpenRLHF only supports vllm >= 0.7.2",
        f"{_ORLHF}v0.6.2/openrlhf/trainer/ray/vllm_engine.py#L127",
    ),
    (
        ("lib.openrlhf=0.7.5", "lib.vllm=0.10.1"),
        "AssertionError: OpenRLHF only supports vllm >= 0.8.1",
        f"{_ORLHF}v0.7.5/openrlhf/trainer/ray/vllm_engine.py#L126",
    ),
    (
        ("lib.openrlhf=0.8.7", "lib.vllm=0.10.0"),
        "AssertionError: OpenRLHF only supports vllm > 0.8.2",
        f"{_ORLHF}v0.8.7/openrlhf/trainer/ray/vllm_engine.py#L128",
    ),
    (
        ("lib.openrlhf=0.9.0", "lib.vllm=0.8.2"),
        "AssertionError: OpenRLHF only supports vllm > 0.8.2",
        f"{_ORLHF}v0.9.0/openrlhf/trainer/ray/vllm_engine.py#L131",
    ),
    (
        ("lib.openrlhf=0.11.0", "lib.vllm=0.8.5"),
        "AssertionError: Streaming VLLM version must be greater than 0.8.5",
        f"{_ORLHF}v0.11.0/openrlhf/trainer/ray/vllm_engine.py#L93",
    ),
    (
        ("lib.llamafactory=0.9.3", "lib.deepspeed=0.17.1"),
        "ImportError: deepspeed>=0.10.0,<=0.16.9 is required for a normal functioning of this module, but found "
        "deepspeed==0.17.1.\nTo fix: run `pip install deepspeed>=0.10.0,<=0.16.9`.",
        "https://github.com/hiyouga/LLaMA-Factory/blob/v0.9.3/src/llamafactory/extras/misc.py#L76",
    ),
]


@pytest.mark.parametrize(("stack", "message", "source"), VERBATIM)
def test_the_failures_are_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    assert_predicted(BASE, stack, message, source)


# Near misses: warnings, the checks DISABLE_VERSION_CHECK skips, other releases' floors, other assertions
UNCLAIMED = [
    "UserWarning: TRL currently only supports vLLM version `0.10.2`. You have version 0.9.2 installed. We "
    "recommend to install this version to avoid compatibility issues.",
    "ROLL is not tested on vllm version 0.9.0, something strange may happen!!!",
    # hiyouga/LlamaFactory#7428: check_version("vllm>=0.4.3,<=0.7.3"), skipped by DISABLE_VERSION_CHECK=1
    "ImportError: vllm>=0.4.3,<=0.7.3 is required for a normal functioning of this module, but found vllm==0.8.1.",
    "AssertionError: Asyn VLLM version must be greater than 0.8.5",
    "AssertionError: vLLM > 0.10.0 is required for logprobs_mode",
    "AssertionError: Only vllm >= 0.7.2 supports hybrid engine",
    "ValueError: vllm version 0.8.5.post1 not supported",
    "ImportError: deepspeed>=0.13.0 is required for a normal functioning of this module, but found deepspeed==0.12.6.",
]


def _new_messages() -> list[tuple[str, str]]:
    return [(d, r.message) for d in ("verl", "openrlhf", "llamafactory") for r in RUNTIME_MINIMUMS[d]]


@pytest.mark.parametrize("text", UNCLAIMED)
def test_the_messages_are_narrow(text: str) -> None:
    for dist, message in _new_messages():
        assert message and not re.search(message, text), (dist, message)


def test_one_floor_does_not_claim_another() -> None:
    """Each OpenRLHF release range claims only its own floor's assertion."""
    texts = [t for s, t, _ in VERBATIM if s[0].startswith("lib.openrlhf")]
    for row in RUNTIME_MINIMUMS["openrlhf"]:
        claimed = {t for t in texts if re.search(row.message, t)}
        assert len(claimed) in (1, 2), row  # 0.8.1-0.8.7 and 0.8.8-0.9.0 share one text
        assert all(row.message.replace("\\", "") in t for t in claimed), row


def test_llamafactory_tables_only_its_mandatory_check() -> None:
    """check_dependencies and the vLLM range are skipped by DISABLE_VERSION_CHECK=1: no run-time row states them.
    What the release declared on PyPI is another fact (pip's own check), judged since the data holds LLaMA-Factory."""
    rows = RUNTIME_MINIMUMS["llamafactory"]
    assert [r.requirement for r in rows] == ["deepspeed>=0.10.0,<=0.16.9"]
    (reason,) = _reasons("lib.llamafactory=0.9.3", "lib.transformers=4.56.0", "lib.datasets=4.0.0")
    assert "llamafactory 0.9.3 requires transformers" in reason and "<=4.52.4" in reason
    assert "https://pypi.org/project/llamafactory/0.9.3/" in reason
    assert not _reasons("lib.llamafactory=0.9.3", "lib.transformers=4.52.4", "lib.datasets=3.6.0")


def test_an_unnamed_openrlhf_beside_vllm_010() -> None:
    """openrlhf not named: the string-comparison releases' floors are claimed for tests that use it."""
    env = apply_overrides(BASE, ["lib.vllm=0.10.0"])
    (finding,) = [f for f in requirements.unnamed_findings(env) if f.uses == ("openrlhf",)]
    assert finding.signature_only and "releases 0.8.1 to <0.8.8 need vllm>0.8.2,<0.10 (installed 0.10.0)" in (
        finding.reason
    )
    assert "0.8.8 to <0.9.1" not in finding.reason
    (rule,) = compile_rules([finding])
    assert rule.signature_matches("AssertionError: OpenRLHF only supports vllm > 0.8.2")
    assert not rule.signature_matches(UNCLAIMED[0])
    assert not [
        f for f in requirements.unnamed_findings(apply_overrides(BASE, ["lib.vllm=0.9.2"])) if f.uses == ("openrlhf",)
    ]


# ---- builds the gate orders differently from PEP 440 (review finding), and who meets a gate ----
@pytest.mark.parametrize(
    ("openrlhf", "vllm"),
    [
        ("0.9.1", "0.8.5+rocm642"),  # version.parse: above 0.8.5 (a ROCm build of vLLM 0.8.5)
        ("0.8.1", "0.8.2.dev5+gabc.rocm631"),  # string comparison: "0.8.2.dev5..." > "0.8.2"
        ("0.6.3", "0.8.1.dev50+gabc123.rocm631"),  # string comparison: >= "0.8.1"
    ],
)
def test_a_local_or_dev_build_of_the_bound_release_is_not_judged(openrlhf: str, vllm: str) -> None:
    """OpenRLHF's own comparison accepts these; a PEP 440 specifier would not (``RuntimeRow.compared``)."""
    env = apply_overrides(BASE, [f"lib.openrlhf={openrlhf}", f"lib.vllm={vllm}"])
    assert not [f for f in evaluate(env) if f.check == requirements.ID and "openrlhf" in f.reason]


def test_a_compared_row_still_judges_other_builds() -> None:
    for vllm in ("0.8.1+rocm631", "0.10.0+rocm700"):  # below the floor; above it, where a string comparison fails
        env = apply_overrides(BASE, ["lib.openrlhf=0.8.7", f"lib.vllm={vllm}"])
        assert [f for f in evaluate(env) if f.check == requirements.ID and "openrlhf" in f.reason], vllm


def test_a_run_time_gate_reaches_the_tests_of_either_package() -> None:
    """As every pair: a user's ``uses`` may name vLLM for a test that runs OpenRLHF's rollout."""
    env = apply_overrides(BASE, ["lib.openrlhf=0.8.7", "lib.vllm=0.10.0"])
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID]
    assert set(finding.uses) == {"openrlhf", "vllm"}

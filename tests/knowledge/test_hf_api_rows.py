"""``requirement-not-met`` on keyword arguments one Hugging Face library passes that the release it admits lacks.

:data:`requirement_tables.RUNTIME_MINIMUMS` rows (each sourced in the comment above the table):
transformers 4.32.0 to 4.39.x construct ``Accelerator(dispatch_batches=...)`` in every ``Trainer(...)``,
an argument accelerate 1.0.0 removed; from 4.52.0 every ``train()``/``evaluate()`` calls
``unwrap_model(model, keep_torch_compile=False)``, an argument first in accelerate 1.3.0; TRL's trainers
before 0.12.0 pass ``tokenizer=`` to ``transformers.Trainer``, which transformers 5.0.0 no longer takes. Each row both
ways through the registry, the failures users met predicted by the row's message and the finding's
signature, the text the installed accelerate formats too, and near misses not claimed.
"""

from __future__ import annotations

import re
from functools import partial

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.import_scan_rows import import_scan_rows
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import assert_both_ways, hand_rows, reasons, rule

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
_reasons = partial(reasons, BASE)
_rule = partial(rule, BASE)
_TRAINER = "https://github.com/huggingface/transformers/blob/{}/src/transformers/trainer.py#L{}"


# (stack, the "<dist> <version> requires <requirement>, installed <dep> <version> (<source>" reported, or None)
CASES: list[tuple[tuple[str, ...], str | None]] = [
    # 4.32.0 to 4.37.x: Accelerator(dispatch_batches=self.args.dispatch_batches, ...)
    (
        ("lib.transformers=4.32.0", "lib.accelerate=1.0.0"),
        "transformers 4.32.0 requires accelerate<1.0.0, installed accelerate 1.0.0 ("
        + _TRAINER.format("v4.32.0", 3884)
        + ")",
    ),
    (("lib.transformers=4.37.2", "lib.accelerate=1.2.1"), "transformers 4.37.2 requires accelerate<1.0.0, installed"),
    (("lib.transformers=4.37.2", "lib.accelerate=0.34.2"), None),  # deprecated there (a warning), not removed
    (("lib.transformers=4.31.0", "lib.accelerate=1.0.0"), None),  # no dispatch_batches passed yet
    # 4.38.x and 4.39.x: Accelerator(**AcceleratorConfig().to_dict())
    (
        ("lib.transformers=4.39.3", "lib.accelerate=1.0.1"),
        "transformers 4.39.3 requires accelerate<1.0.0, installed accelerate 1.0.1 ("
        + _TRAINER.format("v4.38.0", 4130)
        + ")",
    ),
    (("lib.transformers=4.38.2", "lib.accelerate=1.15.0"), "transformers 4.38.2 requires accelerate<1.0.0"),
    (("lib.transformers=4.39.3", "lib.accelerate=0.28.0"), None),
    (("lib.transformers=4.40.0", "lib.accelerate=1.0.0"), None),  # DataLoaderConfiguration from 4.40.0
    # the floor below it is still the one reported for an accelerate under it
    (("lib.transformers=4.37.2", "lib.accelerate=0.20.3"), "transformers 4.37.2 requires accelerate>=0.21.0"),
    # 4.52.0 on: unwrap_model(model, keep_torch_compile=False) in Trainer._wrap_model
    (
        ("lib.transformers=4.52.3", "lib.accelerate=0.34.0"),
        "transformers 4.52.3 requires accelerate>=1.3.0, installed accelerate 0.34.0 ("
        + _TRAINER.format("v4.52.0", 1990)
        + ")",
    ),
    (("lib.transformers=5.0.0", "lib.accelerate=1.2.1"), "transformers 5.0.0 requires accelerate>=1.3.0, installed"),
    (("lib.transformers=4.57.1", "lib.accelerate=1.3.0"), None),
    (("lib.transformers=4.51.3", "lib.accelerate=0.34.0"), None),  # before the call (absent in the 4.51.3 wheel)
    # 5.0.0's own floor (1.1.0) first below it
    (("lib.transformers=5.0.0", "lib.accelerate=1.0.1"), "transformers 5.0.0 requires accelerate>=1.1.0, installed"),
]


@pytest.mark.parametrize(("stack", "found"), CASES)
def test_rows_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    assert_both_ways(BASE, stack, found)


# (stack, the message users met, its source)
VERBATIM: list[tuple[tuple[str, ...], str, str]] = [
    (  # transformers 4.39.3's run_ner.py example
        ("lib.transformers=4.39.3", "lib.accelerate=1.0.1"),
        "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
        "https://github.com/huggingface/transformers/issues/34699",
    ),
    (  # transformers 4.32.0, trainer.py line 3883 in create_accelerator_and_postprocess
        ("lib.transformers=4.32.0", "lib.accelerate=1.0.1"),
        "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
        "https://github.com/QwenLM/Qwen/issues/1326",
    ),
    (  # Python 3.9's form, from trainer.py line 4127 (4.38.x) under TRL's SFTTrainer
        ("lib.transformers=4.38.2", "lib.accelerate=1.0.1"),
        "TypeError: __init__() got an unexpected keyword argument 'dispatch_batches'",
        "https://github.com/instructlab/instructlab/issues/2542",
    ),
    (  # trainer.py line 1990, in _wrap_model, from _inner_training_loop
        ("lib.transformers=4.52.3", "lib.accelerate=0.34.0"),
        "[rank0]: TypeError: Accelerator.unwrap_model() got an unexpected keyword argument 'keep_torch_compile'",
        "https://github.com/hiyouga/LlamaFactory/issues/8451",
    ),
    (  # transformers 4.52.3 beside accelerate 0.34.0
        ("lib.transformers=4.52.3", "lib.accelerate=0.34.0"),
        "InternVL3-8B-hf训练报错, TypeError: Accelerator.unwrap_model() got an unexpected keyword argument "
        "'keep_torch_compile'",
        "https://github.com/hiyouga/LlamaFactory/issues/8527",
    ),
]


def _row_message(stack: tuple[str, ...]) -> str:
    """The message of the one row with a message, for the stack's transformers, that rejects its accelerate."""
    version = stack[0].removeprefix("lib.transformers=")
    accelerate = Version(stack[1].removeprefix("lib.accelerate="))
    (message,) = [
        r.message
        for r in hand_rows("transformers", version)
        if r.message and r.requirement.startswith("accelerate") and not _admits(r.requirement, accelerate)
    ]
    return message


def _admits(requirement: str, version: Version) -> bool:
    """Whether ``accelerate<X`` / ``accelerate>=X`` admits ``version``."""
    return Requirement(requirement).specifier.contains(version, prereleases=True)


@pytest.mark.parametrize(("stack", "message", "source"), VERBATIM)
def test_the_failures_are_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert re.search(_row_message(stack), message), source
    compiled = _rule(*stack)
    assert compiled.signature is not None and compiled.signature_matches(message), source


def test_the_installed_accelerate_formats_the_dispatch_message() -> None:
    """The TypeError the installed accelerate (>= 1.0) raises at binding, before ``__init__`` runs."""
    accelerate = pytest.importorskip("accelerate")
    if Version(accelerate.__version__) < Version("1.0.0"):
        pytest.skip("accelerate < 1.0 still takes dispatch_batches")
    with pytest.raises(TypeError) as raised:
        accelerate.Accelerator(dispatch_batches=None)
    assert re.search(_row_message(("lib.transformers=4.39.3", "lib.accelerate=1.0.0")), str(raised.value))


# Near misses no new row's message may claim: another class, another argument, transformers' own removals
UNCLAIMED = [
    "TypeError: Accelerator.__init__() got an unexpected keyword argument 'split_batches'",
    "TypeError: DataLoaderConfiguration.__init__() got an unexpected keyword argument 'dispatch_batches'",
    "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'dispatch_batches'",
    "TypeError: Accelerator.unwrap_model() got an unexpected keyword argument 'keep_fp32_wrapper'",
    "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
    "TypeError: MyAccelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
    "Segmentation fault (core dumped)",
]

_NEW = {"4.32.0", "4.38.0", "4.52.0"}


def _new_messages() -> list[str]:
    return [
        r.message
        for r in RUNTIME_MINIMUMS["transformers"]
        if r.since in _NEW and r.requirement.startswith("accelerate") and r not in import_scan_rows()["transformers"]
    ]


def test_the_new_messages_are_narrow() -> None:
    messages = _new_messages()
    assert len(messages) == len(_NEW) and all(messages)
    for text in UNCLAIMED:
        assert not any(re.search(m, text) for m in messages), text
    rule = _rule("lib.transformers=4.39.3", "lib.accelerate=1.0.1")
    assert not rule.signature_matches(UNCLAIMED[3]) and not rule.signature_matches(UNCLAIMED[6])


def test_an_unnamed_transformers_beside_accelerate() -> None:
    """transformers not named: only its rows' own messages are claimed, for tests that use it."""
    env = apply_overrides(BASE, ["lib.accelerate=1.2.1"])
    (finding,) = [f for f in requirements.unnamed_findings(env) if f.uses == ("transformers",)]
    assert finding.signature_only
    assert "releases 4.32.0 to <4.38.0 need accelerate<1.0.0 (installed 1.2.1)" in finding.reason
    assert "releases 4.52.0 on need accelerate>=1.3.0 (installed 1.2.1)" in finding.reason
    (rule,) = compile_rules([finding])
    assert rule.signature_matches(VERBATIM[0][1]) and rule.signature_matches(VERBATIM[3][1])
    assert not rule.signature_matches(UNCLAIMED[2])
    later = apply_overrides(BASE, ["lib.accelerate=1.3.0"])
    (finding,) = [f for f in requirements.unnamed_findings(later) if f.uses == ("transformers",)]
    assert "4.52.0" not in finding.reason and "need accelerate<1.0.0" in finding.reason


_TRL_SFT = "https://github.com/huggingface/trl/blob/v0.9.4/trl/trainer/sft_trainer.py#L408"
# (stack, the reason reported, or None): TRL's Trainer(tokenizer=...) beside transformers 5
TRL_CASES: list[tuple[tuple[str, ...], str | None]] = [
    (
        ("lib.trl=0.8.0", "lib.transformers=5.0.0"),
        f"trl 0.8.0 requires transformers<5.0.0, installed transformers 5.0.0 ({_TRL_SFT})",
    ),
    (("lib.trl=0.9.4", "lib.transformers=5.2.0"), "trl 0.9.4 requires transformers<5.0.0, installed transformers"),
    (("lib.trl=0.9.4", "lib.transformers=4.57.6"), None),  # deprecated there (a FutureWarning), not removed
    (("lib.trl=0.7.11", "lib.transformers=4.38.2"), None),  # before the 0.8.0 row (its own row ends at 4.39)
    (("lib.trl=0.12.0", "lib.transformers=4.46.0"), None),  # processing_class, as it declares
]


@pytest.mark.parametrize(("stack", "found"), TRL_CASES)
def test_trl_rows_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    assert_both_ways(BASE, stack, found)


# (stack, the message, its source): users' report, and what Python printed here for TRL 0.8.0 and 0.9.4
TRL_VERBATIM: list[tuple[tuple[str, ...], str, str]] = [
    (  # trl/trainer/sft_trainer.py line 401 (TRL 0.11.x), super().__init__(
        ("lib.trl=0.11.4", "lib.transformers=5.0.0"),
        "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
        "https://github.com/huggingface/trl/issues/6168",
    ),
    (  # transformers 5.0.0, CPU, Python 3.11: SFTTrainer(model, args, train_dataset, tokenizer=...)
        ("lib.trl=0.8.0", "lib.transformers=5.0.0"),
        "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
        "https://github.com/huggingface/trl/blob/v0.8.0/trl/trainer/sft_trainer.py#L322",
    ),
    (
        ("lib.trl=0.9.4", "lib.transformers=5.0.0"),
        "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
        _TRL_SFT,
    ),
]


@pytest.mark.parametrize(("stack", "message", "source"), TRL_VERBATIM)
def test_the_trl_failures_are_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    dist, version = stack[0].removeprefix("lib.").split("=")
    (row,) = [r for r in hand_rows(dist, version) if r.message]
    assert re.search(row.message, message), source
    rule = _rule(*stack)
    assert rule.signature is not None and rule.signature_matches(message), source


# What TRL's tokenizer message must not claim: a caller's own SFTTrainer mistake, other arguments
TRL_UNCLAIMED = [
    "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'",
    "TypeError: Trainer.init() got an unexpected keyword argument 'processing_class'",
    "TypeError: Trainer.__init__() got an unexpected keyword argument 'processing_class'",
    "TypeError: Seq2SeqTrainer.__init__() got an unexpected keyword argument 'tokenizer'",
    "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer_name'",
]


def test_the_trl_message_is_narrow() -> None:
    (row,) = [r for r in RUNTIME_MINIMUMS["trl"] if r.since == "0.8.0"]
    for text in TRL_UNCLAIMED:
        assert not re.search(row.message, text), text
    rule = _rule("lib.trl=0.9.4", "lib.transformers=5.0.0")
    assert not rule.signature_matches(TRL_UNCLAIMED[0])

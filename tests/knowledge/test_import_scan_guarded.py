"""Generated rows for imports under a dependency's availability check (``tools/import_scan.py``).

transformers imports accelerate's names in ``trainer``/``modeling_utils`` under ``if is_accelerate_available():``,
which runs whenever accelerate is installed; its lazy ``__init__`` loads those modules when ``Trainer`` or a
model class is used (``ENTRY_MODULES``). Two generated rows, each quoted from users who met it:
transformers 4.53.0's unguarded ``TorchTensorParallelPlugin`` (fixed in 4.53.1) and 4.43-4.44's
``is_mlu_available`` (accelerate 0.29 added it; transformers accepted 0.21).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.import_scan_rows import import_scan_rows
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import reasons
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.9", os="Linux")
# (message verbatim as the report quotes it, source, a transformers and an accelerate the row covers: #39077 states
# transformers 4.53.0 and no accelerate; simonw/llm#1197 the same error with transformers 4.53.0 and accelerate 1.1.0)
REPORTS = (
    (
        "ImportError: cannot import name 'TorchTensorParallelPlugin' from 'accelerate.utils'",
        "https://github.com/huggingface/transformers/issues/39077",
        "4.53.0",
        "1.3.0",
    ),
    (
        "ImportError: cannot import name 'TorchTensorParallelPlugin' from 'accelerate.utils' (/home/runner/miniconda3/"
        "envs/assistant_py3/lib/python3.10/site-packages/accelerate/utils/__init__.py)",
        "https://github.com/autogluon/autogluon-assistant/pull/216",
        "4.53.0",
        "1.1.0",
    ),
    (
        "RuntimeError: Failed to import transformers.trainer because of the following error (look up to see its "
        "traceback):\ncannot import name 'is_mlu_available' from 'accelerate.utils'",
        "https://github.com/WeOpenML/PandaLM/issues/43",
        "4.44.0",
        "0.28.0",
    ),
)


def test_the_rows_are_generated_with_their_source_at_the_tag() -> None:
    rows = {(r.requirement, r.since, r.until): r for r in import_scan_rows()["transformers"]}
    tp = rows[("accelerate>=1.4.0.dev0", "4.53.0", "4.53.1")]
    assert tp.source.startswith("https://github.com/huggingface/transformers/blob/v4.53.0/src/transformers/trainer.py")
    assert "TorchTensorParallelPlugin" in tp.message
    mlu = [r for r in import_scan_rows()["transformers"] if "is_mlu_available" in r.message]
    assert [(r.since, r.until, r.requirement) for r in mlu] == [("4.43.0", "4.45.0", "accelerate>=0.29.0.dev0")]


@pytest.mark.parametrize(
    ("transformers", "accelerate", "bound", "fixed", "enough"),
    [
        # above every hand-written row's minimum: only the generated row finds these pairs
        ("4.53.0", "1.3.0", "accelerate>=1.4.0", "4.53.1", "1.4.0"),
        ("4.44.0", "0.28.0", "accelerate>=0.29.0", "4.45.0", "0.29.0"),
    ],
)
def test_the_generated_row_finds_the_pair_the_hand_rows_let_through(
    transformers: str, accelerate: str, bound: str, fixed: str, enough: str
) -> None:
    (reason,) = reasons(BASE, f"lib.transformers={transformers}", f"lib.accelerate={accelerate}")
    assert f"transformers {transformers} requires {bound}" in reason
    assert f"installed accelerate {accelerate}" in reason
    assert reasons(BASE, f"lib.transformers={transformers}", f"lib.accelerate={enough}") == []
    assert not [r for r in reasons(BASE, f"lib.transformers={fixed}", f"lib.accelerate={accelerate}") if bound in r]


@pytest.mark.parametrize(("message", "source", "transformers", "accelerate"), REPORTS, ids=[s for _, s, *_ in REPORTS])
def test_the_reported_text_is_the_rows_failure(message: str, source: str, transformers: str, accelerate: str) -> None:
    assert source.startswith("https://github.com/")
    env = apply_overrides(BASE, [f"lib.transformers={transformers}", f"lib.accelerate={accelerate}"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == requirements.ID]
    assert rule.signature_matches(message)
    assert not rule.signature_matches("cannot import name 'broadcast_to' from 'numpy'")  # another package's


def test_its_text_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    message, _, transformers, accelerate = REPORTS[0]
    predicted, unrelated = predicted_and_unrelated(
        pytester,
        message,
        (f"lib.transformers={transformers}", f"lib.accelerate={accelerate}"),
        uses="transformers",
        env=BASE,
        error="ImportError",
    )
    assert predicted["rocm_rule"].startswith(requirements.ID)
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated


def test_trls_guarded_peft_import_meets_peft_0_10s_removal() -> None:
    # TRL 0.4.2-0.7.1 import prepare_model_for_int8_training under `if is_peft_available():`; PEFT 0.10.0 removed it
    # ("with PEFT v0.10.0, it has been removed", https://github.com/huggingface/peft/issues/1583)
    (reason,) = reasons(BASE, "lib.trl=0.7.1", "lib.peft=0.10.0")
    assert "trl 0.7.1 requires peft>=0.2.0.dev0,<0.10.0" in reason
    assert "https://github.com/huggingface/trl/blob/v0.4.2/trl/trainer/sft_trainer.py" in reason
    assert reasons(BASE, "lib.trl=0.7.1", "lib.peft=0.9.0") == []
    assert reasons(BASE, "lib.trl=0.7.2", "lib.peft=0.10.0") == []  # 0.7.2 imports prepare_model_for_kbit_training
    env = apply_overrides(BASE, ["lib.trl=0.7.1", "lib.peft=0.10.0"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == requirements.ID]
    assert rule.signature_matches("ImportError: cannot import name 'prepare_model_for_int8_training' from 'peft'")


def test_a_lazy_trls_trainers_are_scanned() -> None:
    # TRL is lazy from 0.8: its trainers' imports (ENTRY_MODULES) give rows for 0.8-0.11 too
    rows = [r for r in import_scan_rows()["trl"] if "PartialState" in r.message]
    assert rows and all(r.until == "0.12.0" for r in rows)

"""``requirement-not-met`` on the Hugging Face layer's undeclared import floors and ceilings.

:data:`requirement_tables.RUNTIME_MINIMUMS` rows read in the released wheels: accelerate 0.32.x and
``split_torch_state_dict_into_shards`` (huggingface_hub 0.21.0), diffusers < 0.29 and
sentence-transformers 2.0-2.2 importing ``cached_download`` (gone in huggingface_hub 0.26.0),
sentence-transformers 2.4-2.6 and transformers' ``is_nltk_available`` (4.34.0), TRL 0.9.6-0.22.2 and
transformers names added later or removed in 5.0.0. Each row both ways through the registry, and a
verbatim message from a public report matched by the signature ``compile_rules`` gives the finding.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment


def _found(**libraries: str) -> list[str]:
    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries=dict(libraries))
    return [f.reason for f in evaluate(env) if f.check == requirements.ID]


HUB = "huggingface-hub"
ST = "sentence-transformers"
# (installed libraries, the requirement reported, or None)
CASES = [
    # accelerate 0.32.x imports split_torch_state_dict_into_shards (huggingface_hub >= 0.21.0), declares hub unbounded
    ({"accelerate": "0.32.0", HUB: "0.20.3"}, "accelerate 0.32.0 requires huggingface-hub>=0.21.0"),
    ({"accelerate": "0.32.1", HUB: "0.17.3"}, "accelerate 0.32.1 requires huggingface-hub>=0.21.0"),
    ({"accelerate": "0.32.1", HUB: "0.21.0"}, None),
    ({"accelerate": "0.31.0", HUB: "0.20.3"}, None),  # before the import (huggingface/accelerate#2795)
    # diffusers 0.4.0-0.28.x import cached_download, removed in huggingface_hub 0.26.0
    ({"diffusers": "0.28.0", HUB: "0.26.0"}, "diffusers 0.28.0 requires huggingface-hub<0.26.0"),
    ({"diffusers": "0.4.0", HUB: "0.36.0"}, "diffusers 0.4.0 requires huggingface-hub<0.26.0"),
    ({"diffusers": "0.28.0", HUB: "0.25.2"}, None),
    ({"diffusers": "0.29.0", HUB: "0.26.0"}, None),  # huggingface/diffusers#8419
    ({"diffusers": "0.3.0", HUB: "0.26.0"}, None),  # dynamic_modules_utils not imported yet
    # sentence-transformers 2.0.0-2.2.2 import cached_download too
    ({ST: "2.2.2", HUB: "0.26.0"}, "sentence-transformers 2.2.2 requires huggingface-hub<0.26.0"),
    ({ST: "2.0.0", HUB: "0.26.1"}, "sentence-transformers 2.0.0 requires huggingface-hub<0.26.0"),
    ({ST: "2.2.2", HUB: "0.25.2"}, None),
    ({ST: "2.3.0", HUB: "0.26.0"}, None),
    # sentence-transformers 2.4.0-2.6.1: is_nltk_available from transformers.utils.import_utils (4.34.0)
    ({ST: "2.4.0", "transformers": "4.33.3"}, "sentence-transformers 2.4.0 requires transformers>=4.34.0"),
    ({ST: "2.6.1", "transformers": "4.32.0"}, "sentence-transformers 2.6.1 requires transformers>=4.34.0"),
    ({ST: "2.4.0", "transformers": "4.34.0"}, None),
    ({ST: "2.3.1", "transformers": "4.32.0"}, None),
    # TRL: is_torch_mlu_available (4.40.0), ExportableState (4.41.0), MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES (< 5.0.0)
    ({"trl": "0.10.1", "transformers": "4.39.3"}, "trl 0.10.1 requires transformers>=4.40.0,<5.0.0"),
    ({"trl": "0.10.1", "transformers": "4.40.0"}, None),
    ({"trl": "0.9.6", "transformers": "4.39.3"}, None),
    ({"trl": "0.11.4", "transformers": "4.40.2"}, "trl 0.11.4 requires transformers>=4.41.0,<5.0.0"),
    ({"trl": "0.11.0", "transformers": "4.41.0"}, None),
    ({"trl": "0.9.6", "transformers": "5.0.0"}, "trl 0.9.6 requires transformers<5.0.0"),
    ({"trl": "0.11.4", "transformers": "5.0.0"}, "trl 0.11.4 requires transformers>=4.41.0,<5.0.0"),
    ({"trl": "0.12.0", "transformers": "5.0.0"}, "trl 0.12.0 requires transformers<5.0.0"),
    ({"trl": "0.22.2", "transformers": "5.5.0"}, "trl 0.22.2 requires transformers<5.0.0"),
    ({"trl": "0.22.2", "transformers": "4.57.6"}, None),
    ({"trl": "0.23.0", "transformers": "5.0.0"}, None),  # the import is gone
    # before it, but its SFTTrainer passes Trainer(tokenizer=...), gone in 5.0.0 (test_hf_api_rows.py)
    ({"trl": "0.9.4", "transformers": "5.0.0"}, "trl 0.9.4 requires transformers<5.0.0"),
]


@pytest.mark.parametrize(("libraries", "found"), CASES)
def test_rows_both_ways(libraries: dict[str, str], found: str | None) -> None:
    reasons = _found(**libraries)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        (reason,) = reasons
        assert found + ", installed " in reason and "(https://github.com/huggingface/" in reason


def test_trl_0_12_2_is_reported_once_from_its_own_pin() -> None:
    """TRL 0.12.2 declares transformers<4.47.0 itself: the table adds no second entry for the pair."""
    (reason,) = _found(trl="0.12.2", transformers="5.0.0")
    assert reason.count("trl 0.12.2 requires") == 1 and "transformers<4.47.0" in reason


# (stack, verbatim message from a public report, that report)
VERBATIM = [
    (
        {"accelerate": "0.32.1", HUB: "0.20.3"},
        "ImportError: cannot import name 'split_torch_state_dict_into_shards' from 'huggingface_hub' "
        "(/usr/local/lib/python3.10/dist-packages/huggingface_hub/__init__.py)",
        "https://github.com/bmaltais/kohya_ss/issues/2970",
    ),
    (
        {"diffusers": "0.27.2", HUB: "0.26.1"},
        "ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
        "(/home/jackson/.local/lib/python3.10/site-packages/huggingface_hub/__init__.py)",
        "https://github.com/TencentARC/InstantMesh/issues/169",
    ),
    (
        {ST: "2.2.2", HUB: "0.26.0"},
        "E   ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
        "(/usr/local/lib/python3.11/site-packages/huggingface_hub/__init__.py)",
        "https://github.com/huggingface/sentence-transformers/issues/3001",
    ),
    (
        {"trl": "0.22.2", "transformers": "5.5.0"},
        "RuntimeError: Failed to import trl.trainer.dpo_trainer because of the following error (look up to see "
        "its traceback):\ncannot import name 'MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES' from "
        "'transformers.models.auto.modeling_auto' "
        "(/root/ms-swift/venv/lib/python3.10/site-packages/transformers/models/auto/modeling_auto.py)",
        "https://github.com/modelscope/ms-swift/issues/9343",
    ),
]


@pytest.mark.parametrize(("libraries", "message", "report"), VERBATIM)
def test_the_reported_failures_are_predicted(libraries: dict[str, str], message: str, report: str) -> None:
    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries=dict(libraries))
    found = [f for f in evaluate(env) if f.check == requirements.ID]
    (rule,) = [r for r in compile_rules(found) if r.id == requirements.ID]
    assert rule.signature is not None and rule.signature.search(message), report


def test_the_hub_message_is_not_predicted_without_the_pair() -> None:
    """The same cached_download failure beside a diffusers that no longer imports it: no rule."""
    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={"diffusers": "0.29.0", HUB: "0.26.0"})
    found = [f for f in evaluate(env) if f.check == requirements.ID]
    assert found == [] and not [r for r in compile_rules(found) if r.id == requirements.ID]


def test_a_pair_below_both_the_declared_and_the_run_time_floor_is_reported_once() -> None:
    from pytest_rocmcompat.knowledge.checks.registry import evaluate as _evaluate
    from pytest_rocmcompat.stack.environment import Environment as _Environment
    from pytest_rocmcompat.stack.overrides import apply_overrides as _apply

    base = _Environment(platform="cpu", python="3.11.7", os="Linux")
    stack = ["platform=cuda", "torch=2.3.1+cu121", "lib.sentence-transformers=2.4.0", "lib.transformers=4.31.0"]
    reasons = [f.reason for f in _evaluate(_apply(base, stack)) if f.check == "requirement-not-met"]
    assert len(reasons) == 1 and reasons[0].count("requires transformers") == 1
    assert "transformers<5.0.0,>=4.32.0" in reasons[0]  # what the release declared comes first

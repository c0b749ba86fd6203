"""``requirement-not-met``: a broken pair predicts import errors naming either of its two packages.

The check's own ``PREDICTS`` names the resolvers' messages and the torch/Triton/transformers
imports; each finding adds the packages of its broken pairs (``Finding.predicts``), so that
``cannot import name 'X' from 'huggingface_hub'`` beside an accelerate that requires a newer
huggingface-hub ends known-bad, while the same text from an unrelated package stays a failure.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, junit_properties

BASE = Environment(platform="cpu", python="3.10.14", os="Linux")
# accelerate 0.33.0 declares huggingface-hub>=0.21.0 (PyPI metadata); 0.20.3 is below it
STACK = ("platform=cuda", "torch=2.3.1+cu121", "lib.accelerate=0.33.0", "lib.huggingface-hub=0.20.3")
# accelerate's accelerator.py importing what huggingface-hub 0.20.3 lacks, as the user's traceback
# printed it (huggingface_hub 0.20.3): https://github.com/ZhangXInFD/SpeechTokenizer/issues/12
VERBATIM = (
    "ImportError: cannot import name 'split_torch_state_dict_into_shards' from 'huggingface_hub' "
    "(/home/ehosseiniasl/.local/lib/python3.10/site-packages/huggingface_hub/__init__.py)"
)


def _rule(*stack: str) -> tuple[list[Finding], list[Rule]]:
    env = apply_overrides(BASE, list(stack))
    found = [f for f in evaluate(env) if f.check == requirements.ID]
    rules = [r for r in compile_rules(found) if r.id == requirements.ID]
    return found, rules


def test_the_pair_is_found_and_names_both_packages() -> None:
    found, rules = _rule(*STACK)
    assert len(found) == 1 and "accelerate 0.33.0 requires huggingface-hub>=0.21.0" in found[0].reason
    assert "huggingface_hub" in found[0].predicts and "accelerate" in found[0].predicts
    assert rules[0].signature is not None and rules[0].signature.search(VERBATIM)


@pytest.mark.parametrize(
    "message",
    [
        "AttributeError: module 'accelerate.utils' has no attribute 'is_mlu_available'",
        "ModuleNotFoundError: No module named 'huggingface_hub.serialization'",
        "ImportError: cannot import name 'EncoderDecoderCache' from 'transformers'",  # the static PREDICTS
    ],
)
def test_the_pairs_import_failures_are_predicted(message: str) -> None:
    _, rules = _rule(*STACK)
    assert rules[0].signature is not None and rules[0].signature.search(message)


@pytest.mark.parametrize(
    "message",
    [
        UNRELATED,
        "ImportError: cannot import name 'split_torch_state_dict_into_shards' from 'diffusers'",  # not in the pair
        "ModuleNotFoundError: No module named 'huggingface_hub'",  # not installed at all: another problem
        "AttributeError: module 'numpy' has no attribute 'float'",
    ],
)
def test_other_failures_are_not_predicted(message: str) -> None:
    _, rules = _rule(*STACK)
    assert rules[0].signature is not None and not rules[0].signature.search(message)


def test_a_met_pair_finds_nothing() -> None:
    found, _ = _rule("platform=cuda", "torch=2.3.1+cu121", "lib.accelerate=0.33.0", "lib.huggingface-hub=0.23.4")
    assert found == []


def test_import_names() -> None:
    assert requirements.import_name("Sentence_Transformers") == "sentence_transformers"
    assert requirements.import_name("flashinfer-python") == "flashinfer"
    assert requirements.import_name("autoawq") == "awq"
    assert requirements.pair_predicts([]) == ""


_TESTS = """
import pytest

@pytest.mark.uses("accelerate")
def test_predicted():
    raise ImportError({predicted!r})

@pytest.mark.uses("accelerate")
def test_unrelated():
    raise ValueError({unrelated!r})

def test_elsewhere():
    raise ImportError({predicted!r})
"""


def test_through_pytest_predicted_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    (pytester.path / "env.json").write_text(BASE.to_json(), encoding="utf-8")
    pytester.makepyfile(test_stack=_TESTS.format(predicted=VERBATIM, unrelated=UNRELATED))
    sets = [arg for value in STACK for arg in ("--rocm-set", value)]
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA",
        *sets,
    )  # fmt: skip
    result.assert_outcomes(xfailed=1, failed=2)
    cases = junit_properties(pytester.path / "junit.xml")
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"] == requirements.ID
    unrelated = cases["test_unrelated"]
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{requirements.ID}: accelerate 0.33.0 requires huggingface-hub")
    assert "rocm_rule" not in cases["test_elsewhere"]  # a test that uses neither package is not reached


# torchvision's own messages on a torch it was not built for, as users quoted them
TORCHVISION_VERBATIM = (
    (  # torchvision 0.6 on torch 1.4
        "RuntimeError: Failed to register operator torchvision::_new_empty_tensor_op.",
        "https://github.com/ultralytics/yolov5/issues/148",
    ),
    ("RuntimeError: operator torchvision::nms does not exist", "https://github.com/vllm-project/vllm/issues/5736"),
)


@pytest.mark.parametrize(("message", "source"), TORCHVISION_VERBATIM)
def test_torchvision_on_another_torch_is_predicted(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    found, rules = _rule("platform=cuda", "torch=1.4.0", "lib.torchvision=0.6.0")
    assert found and "torchvision 0.6.0 requires torch>=1.5,<1.6" in found[0].reason
    assert rules[0].signature is not None and rules[0].signature.search(message)


# the pair's other messages, verbatim from real reports
PAIR_VERBATIM = (
    (  # DeepSpeed's JIT op build (-std=c++17) against torch 2.12's headers (C++20)
        "/home/<user-name>/miniconda3/envs/torch/lib/python3.11/site-packages/torch/include/torch/csrc/api/include/"
        "torch/all.h:5:2: error: #error C++20 or later compatible compiler is required to use PyTorch.",
        "https://github.com/deepspeedai/DeepSpeed/issues/8235",
    ),
    (  # DeepSpeed's aio op (-std=c++14) against a torch 2.1 nightly's C++17 headers
        "torch/include/ATen/ATen.h:4:2: error: #error C++17 or later compatible compiler is required to use ATen.",
        "https://github.com/deepspeedai/DeepSpeed/issues/3944",
    ),
    (  # transformers below its torch floor: every model class then refuses (PYTORCH_IMPORT_ERROR)
        "AutoModelForCausalLM requires the PyTorch library but it was not found in your environment.",
        "https://github.com/huggingface/transformers/blob/v4.56.0/src/transformers/utils/import_utils.py",
    ),
)


@pytest.mark.parametrize(("message", "source"), PAIR_VERBATIM)
def test_extension_built_for_an_older_torch_standard_is_predicted(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    found, rules = _rule("platform=cuda", "torch=2.12.0+cu130", "lib.deepspeed=0.19.0")
    assert found and "deepspeed 0.19.0 requires torch<2.12" in found[0].reason
    assert rules[0].signature is not None and rules[0].signature.search(message)

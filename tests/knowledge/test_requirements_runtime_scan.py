"""``requirement-not-met`` on import-time bounds a scan of peft's released wheels found undeclared.

:data:`requirement_tables.RUNTIME_MINIMUMS`: peft 0.5.0 imports ``is_npu_available`` from
``accelerate.utils`` (accelerate 0.21.0) with accelerate unbounded; peft 0.6.1 imports
``id_tensor_storage`` from ``transformers.pytorch_utils`` (transformers 4.30.0) with transformers
unbounded. Each row both ways through the registry, and verbatim messages from public reports
matched by the signature ``compile_rules`` gives the finding.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment


def _env(**libraries: str) -> Environment:
    return Environment(platform="cpu", python="3.11.7", os="Linux", libraries=dict(libraries))


def _found(**libraries: str) -> list[str]:
    return [f.reason for f in evaluate(_env(**libraries)) if f.check == requirements.ID]


_PEFT = "(https://github.com/huggingface/peft/blob/"
# (installed libraries, the requirement and source reported, or None)
CASES = [
    # peft 0.5.0: utils/other.py imports is_npu_available (first in accelerate 0.21.0)
    ({"peft": "0.5.0", "accelerate": "0.20.3"}, "peft 0.5.0 requires accelerate>=0.21.0, installed accelerate 0.20.3 "),
    ({"peft": "0.5.0", "accelerate": "0.18.0"}, "peft 0.5.0 requires accelerate>=0.21.0, installed accelerate 0.18.0 "),
    ({"peft": "0.5.0", "accelerate": "0.21.0"}, None),
    ({"peft": "0.4.0", "accelerate": "0.20.3"}, None),  # before the import
    # peft 0.6.1: peft_model.py imports id_tensor_storage (first in transformers 4.30.0)
    (
        {"peft": "0.6.1", "transformers": "4.29.2"},
        "peft 0.6.1 requires transformers>=4.30.0, installed transformers 4.29.2 ",
    ),
    ({"peft": "0.6.1", "transformers": "4.30.0"}, None),
    ({"peft": "0.6.0", "transformers": "4.29.2"}, None),  # before the import
    ({"peft": "0.6.2", "transformers": "4.29.2"}, None),  # its own copy in peft/utils/other.py
]


@pytest.mark.parametrize(("libraries", "found"), CASES)
def test_rows_both_ways(libraries: dict[str, str], found: str | None) -> None:
    reasons = _found(**libraries)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        (reason,) = reasons
        assert found + _PEFT in reason


def test_peft_0_6_0_is_reported_from_its_own_pin() -> None:
    """peft 0.6.0 declares accelerate>=0.21.0 itself: reported from PyPI's metadata, not the table."""
    (reason,) = _found(peft="0.6.0", accelerate="0.20.3")
    assert "peft 0.6.0 requires accelerate>=0.21.0" in reason and "https://pypi.org/project/peft/0.6.0/" in reason


# (stack, verbatim message from a public report, that report)
VERBATIM = [
    (
        {"peft": "0.5.0", "accelerate": "0.20.3"},
        "ImportError: cannot import name 'is_npu_available' from 'accelerate.utils' "
        "(/opt/conda/lib/python3.10/site-packages/accelerate/utils/__init__.py)",
        "https://github.com/huggingface/peft/issues/860",
    ),
    (
        {"peft": "0.5.0", "accelerate": "0.18.0"},
        "ImportError: cannot import name 'is_npu_available' from 'accelerate.utils' \n"
        "(/usr/local/lib/python3.10/dist-packages/accelerate/utils/__init__.py)",
        "https://github.com/camenduru/text-generation-webui-colab/issues/24",
    ),
    (
        {"peft": "0.6.1", "transformers": "4.29.1"},
        "cannot import name 'id_tensor_storage' from 'transformers.pytorch_utils' "
        "(/home/pai/lib/python3.9/site-packages/transformers/pytorch_utils.py)",
        "https://github.com/baichuan-inc/Baichuan-7B/issues/62",
    ),
]


@pytest.mark.parametrize(("libraries", "message", "report"), VERBATIM)
def test_the_reported_failures_are_predicted(libraries: dict[str, str], message: str, report: str) -> None:
    found = [f for f in evaluate(_env(**libraries)) if f.check == requirements.ID]
    (rule,) = [r for r in compile_rules(found) if r.id == requirements.ID]
    assert rule.signature is not None and rule.signature.search(message), report


def test_the_message_is_not_predicted_without_the_pair() -> None:
    """The same is_npu_available failure beside a peft that declares accelerate>=0.21.0 and a met pair: no rule."""
    found = [f for f in evaluate(_env(peft="0.6.2", accelerate="0.21.0")) if f.check == requirements.ID]
    assert found == [] and not [r for r in compile_rules(found) if r.id == requirements.ID]

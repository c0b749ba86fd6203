"""``requirement-not-met`` on API removals between packages that declare each other unbounded.

:data:`requirement_tables.RUNTIME_MINIMUMS` rows (each sourced in the comment above the table):
transformers 4.50.x imports ``torch.distributed.tensor`` (torch 2.0) and 4.51.x also reads
``torch.float8_e4m3fn`` (torch 2.1) when any model class is imported, before 4.52's torch gate;
basicsr >= 1.4.0 and pytorchvideo >= 0.1.2 import ``torchvision.transforms.functional_tensor`` (removed in
torchvision 0.17.0);
torchvision 0.2.1 to 0.4.x import ``PILLOW_VERSION`` (gone in Pillow 7.0.0, restored in 7.1.0,
removed in 9.0.0). Each row both ways through the registry, and the failures users met (or the text
Python formats for the import) predicted by the finding's signature, unrelated ones not.
"""

from __future__ import annotations

import re
from functools import partial

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import assert_both_ways, assert_predicted, reasons, rule

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
_reasons = partial(reasons, BASE)
_rule = partial(rule, BASE)
_TF = "https://github.com/huggingface/transformers/blob/"


# (stack, the "<dist> <version> requires <requirement>, installed <dep> <version> (<source>" reported, or None)
CASES: list[tuple[tuple[str, ...], str | None]] = [
    # transformers 4.50.x: ``import torch.distributed.tensor`` in modeling_utils.py (absent in torch 1.13)
    (
        ("lib.transformers=4.50.0", "torch=1.13.1"),
        f"transformers 4.50.0 requires torch>=2.0.0a0, installed torch 1.13.1 ({_TF}v4.50.0/src/transformers/"
        "modeling_utils.py#L40)",
    ),
    (("lib.transformers=4.50.3", "torch=2.0.1"), None),
    (("lib.transformers=4.49.0", "torch=1.13.1"), None),  # before the import (no row verified there)
    # transformers 4.51.x: ``"F8_E4M3": torch.float8_e4m3fn`` unguarded (first in torch 2.1)
    (
        ("lib.transformers=4.51.0", "torch=2.0.1+rocm5.4.2"),
        f"transformers 4.51.0 requires torch>=2.1.0a0, installed torch 2.0.1+rocm5.4.2 ({_TF}v4.51.0/",
    ),
    (
        ("lib.transformers=4.51.3", "torch=1.13.1"),
        "transformers 4.51.3 requires torch>=2.1.0a0, installed torch 1.13.1",
    ),
    (("lib.transformers=4.51.3", "torch=2.1.0"), None),
    (("lib.transformers=4.50.3", "torch=2.0.1"), None),  # the float8 line is first in 4.51.0
    # 4.52.0 on: transformers' own gate (its row, not these)
    (("lib.transformers=4.52.0", "torch=2.0.1"), "transformers 4.52.0 requires torch>=2.1, installed torch 2.0.1"),
    # basicsr >= 1.4.0: ``import basicsr`` reaches degradations.py's functional_tensor import
    (
        ("lib.basicsr=1.4.2", "lib.torchvision=0.17.0"),
        "basicsr 1.4.2 requires torchvision<0.17, installed torchvision 0.17.0 (https://github.com/XPixelGroup/",
    ),
    (("lib.basicsr=1.4.0", "lib.torchvision=0.20.1"), "basicsr 1.4.0 requires torchvision<0.17, installed"),
    (("lib.basicsr=1.4.2", "lib.torchvision=0.16.2"), None),  # deprecated there (a warning), not removed
    (("lib.basicsr=1.3.5", "lib.torchvision=0.17.0"), None),  # import basicsr does not reach degradations.py
    # pytorchvideo 0.1.2 to 0.1.5: transforms/augmentations.py imports functional_tensor as F_t
    (
        ("lib.pytorchvideo=0.1.5", "lib.torchvision=0.17.0"),
        "pytorchvideo 0.1.5 requires torchvision<0.17, installed torchvision 0.17.0 (https://github.com/facebookresearch/",
    ),
    (("lib.pytorchvideo=0.1.2", "lib.torchvision=0.18.1"), "pytorchvideo 0.1.2 requires torchvision<0.17, installed"),
    (("lib.pytorchvideo=0.1.5", "lib.torchvision=0.16.2"), None),
    (("lib.pytorchvideo=0.1.1", "lib.torchvision=0.17.0"), None),  # before augmentations.py
    # torchvision 0.2.1 to 0.4.x: ``from PIL import ... PILLOW_VERSION``
    (
        ("lib.torchvision=0.4.2", "torch=1.3.1", "lib.pillow=7.0.0"),
        "torchvision 0.4.2 requires pillow!=7.0.*,<9.0.0, installed pillow 7.0.0 (https://github.com/pytorch/vision/pull/1501)",
    ),
    (
        ("lib.torchvision=0.2.1", "torch=1.0.0", "lib.Pillow=9.0.0"),
        "torchvision 0.2.1 requires pillow!=7.0.*,<9.0.0, installed pillow 9.0.0",
    ),
    (("lib.torchvision=0.4.2", "torch=1.3.1", "lib.pillow=6.2.2"), None),
    (("lib.torchvision=0.4.2", "torch=1.3.1", "lib.pillow=7.1.0"), None),  # restored (deprecated) in 7.1.0
    (("lib.torchvision=0.4.2", "torch=1.3.1", "lib.pillow=8.4.0"), None),
    (("lib.torchvision=0.5.0", "torch=1.4.0", "lib.pillow=9.0.0"), None),  # pytorch/vision#1501
    (("lib.torchvision=0.2.0", "torch=1.0.0", "lib.pillow=9.0.0"), None),  # before the import
]


@pytest.mark.parametrize(("stack", "found"), CASES)
def test_rows_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    assert_both_ways(BASE, stack, found)


# (stack, the message users met or Python formats, its source)
VERBATIM: list[tuple[tuple[str, ...], str, str]] = [
    (  # as Python formats the failed import of modeling_utils.py#L40 on a torch without the package
        ("lib.transformers=4.50.0", "torch=1.13.1"),
        "ModuleNotFoundError: No module named 'torch.distributed.tensor'",
        f"{_TF}v4.50.0/src/transformers/modeling_utils.py#L40",
    ),
    (  # transformers' lazy module re-raising it (utils/import_utils.py, 4.51.3)
        ("lib.transformers=4.51.3", "torch=1.13.1"),
        "RuntimeError: Failed to import transformers.models.bert.modeling_bert because of the following error "
        "(look up to see its traceback):\nNo module named 'torch.distributed.tensor'",
        f"{_TF}v4.51.3/src/transformers/utils/import_utils.py#L1970",
    ),
    (  # the same dtype read unguarded by transformers 4.43.0 (maintainers' issue), on torch 2.0
        ("lib.transformers=4.51.0", "torch=2.0.1"),
        "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'",
        "https://github.com/huggingface/transformers/issues/32185",
    ),
    (
        ("lib.basicsr=1.4.2", "lib.torchvision=0.17.0"),
        "[Issue]: ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
        "https://github.com/vladmandic/sdnext/issues/2543",
    ),
    (  # basicsr's traceback beside torchvision 0.17.1
        ("lib.basicsr=1.4.2", "lib.torchvision=0.17.1"),
        "No module named 'torchvision.transforms.functional_tensor'",
        "https://github.com/ashleykleynhans/runpod-worker-real-esrgan/issues/3",
    ),
    (  # its traceback from pytorchvideo/transforms/augmentations.py, line 9
        ("lib.pytorchvideo=0.1.5", "lib.torchvision=0.22.1"),
        "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
        "https://github.com/facebookresearch/pytorchvideo/issues/271",
    ),
    (
        ("lib.torchvision=0.4.2", "torch=1.3.1", "lib.pillow=7.0.0"),
        "New Pillow version (7.0.0) breaks torchvision (ImportError: cannot import name 'PILLOW_VERSION' from 'PIL')",
        "https://github.com/pytorch/vision/issues/1712",
    ),
    (  # Python 3.6's form, without "from"
        ("lib.torchvision=0.4.2", "torch=1.3.1", "lib.pillow=7.0.0"),
        "ImportError: cannot import name 'PILLOW_VERSION'",
        "https://github.com/pytorch/vision/issues/1726",
    ),
]


@pytest.mark.parametrize(("stack", "message", "source"), VERBATIM)
def test_the_failures_are_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    assert_predicted(BASE, stack, message, source)


# Near misses no new row's message may claim (another module, another name, another dtype)
UNCLAIMED = [
    "ModuleNotFoundError: No module named 'torchvision.transforms.v2'",
    "ImportError: cannot import name 'Image' from 'PIL'",
    "AttributeError: module 'torch' has no attribute 'float8_e4m3fnuz'",
    "ModuleNotFoundError: No module named 'torch.distributed.tensor.parallel.fsdp'",
    "ImportError: cannot import name 'DTensor' from 'torch.distributed.tensor'",
    "Segmentation fault (core dumped)",
]

_NEW = {
    ("transformers", "4.50.0"),
    ("transformers", "4.51.0"),
    ("basicsr", "1.4.0"),
    ("pytorchvideo", "0.1.2"),
    ("torchvision", "0.2.1"),
}


def test_the_new_messages_are_narrow() -> None:
    messages = [r.message for d, rows in RUNTIME_MINIMUMS.items() for r in rows if (d, r.since) in _NEW]
    assert len(messages) == len(_NEW) and all(messages)
    for text in UNCLAIMED:
        assert not any(re.search(m, text) for m in messages), text


def test_an_unnamed_basicsr_beside_torchvision_017() -> None:
    """basicsr not named: only its row's own message is claimed, for tests that use it."""
    env = apply_overrides(BASE, ["lib.torchvision=0.17.0"])
    (finding,) = [f for f in requirements.unnamed_findings(env) if f.uses == ("basicsr",)]
    assert finding.signature_only and "releases 1.4.0 on need torchvision<0.17 (installed 0.17.0)" in finding.reason
    (rule,) = compile_rules([finding])
    assert rule.signature_matches(VERBATIM[3][1])
    assert not rule.signature_matches("ModuleNotFoundError: No module named 'torchvision.transforms.v2'")
    assert not [
        f
        for f in requirements.unnamed_findings(apply_overrides(BASE, ["lib.torchvision=0.16.2"]))
        if f.uses == ("basicsr",)
    ]

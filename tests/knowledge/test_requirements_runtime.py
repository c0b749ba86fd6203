"""``requirement-not-met`` on :data:`requirement_tables.RUNTIME_MINIMUMS`, the Hugging Face fine-tuning layer.

Each row both ways through the registry: the pair below the floor (or above the ceiling) is
found, with the row's requirement and source; the pair at the floor (or below the ceiling), or
a release outside the row's range, is not.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import requirement_tables, requirements
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment


def _reasons(**libraries: str) -> list[str]:
    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries=dict(libraries))
    return [f.reason for f in evaluate(env) if f.check == requirements.ID]


# (installed libraries, the requirement reported, or None)
CASES = [
    # transformers' Trainer: "Using the `Trainer` with `PyTorch` requires `accelerate>=X`"
    ({"transformers": "4.30.0", "accelerate": "0.20.0"}, "transformers 4.30.0 requires accelerate>=0.20.1"),
    ({"transformers": "4.30.0", "accelerate": "0.20.1"}, None),
    ({"transformers": "4.29.2", "accelerate": "0.19.0"}, None),  # before the tabled floors
    ({"transformers": "4.37.0", "accelerate": "0.20.3"}, "transformers 4.37.0 requires accelerate>=0.21.0"),
    ({"transformers": "4.37.0", "accelerate": "0.21.0"}, None),
    # 4.43-4.44's Trainer imports accelerate's is_mlu_available (0.29.0 on) under its availability check (generated:
    # tools/import_scan.py), met with these very versions in huggingface/transformers#32292's thread
    ({"transformers": "4.44.2", "accelerate": "0.21.0"}, "transformers 4.44.2 requires accelerate>=0.29.0.dev0"),
    ({"transformers": "4.44.2", "accelerate": "0.29.0"}, None),  # the hand-written 0.26.0 floor from 4.45.0 only
    ({"transformers": "4.45.0", "accelerate": "0.25.0"}, "transformers 4.45.0 requires accelerate>=0.26.0"),
    # the 0.26.0 floor is met, but Trainer._wrap_model passes keep_torch_compile (test_hf_api_rows.py)
    ({"transformers": "4.57.6", "accelerate": "0.26.0"}, "transformers 4.57.6 requires accelerate>=1.3.0"),
    ({"transformers": "5.0.0", "accelerate": "1.0.1"}, "transformers 5.0.0 requires accelerate>=1.1.0"),
    ({"transformers": "5.0.0", "accelerate": "1.1.0"}, "transformers 5.0.0 requires accelerate>=1.3.0"),
    # transformers' PEFT integration: check_peft_version(MIN_PEFT_VERSION)
    ({"transformers": "4.33.0", "peft": "0.4.0"}, "transformers 4.33.0 requires peft>=0.5.0"),
    ({"transformers": "4.33.0", "peft": "0.5.0"}, None),
    ({"transformers": "5.0.0", "peft": "0.17.1"}, "transformers 5.0.0 requires peft>=0.18.0"),
    ({"transformers": "5.0.0", "peft": "0.18.0"}, None),
    # peft's imports of transformers names
    ({"peft": "0.14.0", "transformers": "4.42.4"}, "peft 0.14.0 requires transformers>=4.43.0"),
    ({"peft": "0.14.0", "transformers": "4.43.0"}, None),
    ({"peft": "0.13.2", "transformers": "4.42.4"}, None),  # before the EncoderDecoderCache import
    ({"peft": "0.16.0", "transformers": "4.43.0"}, "peft 0.16.0 requires transformers>=4.44.0,<5.0.0"),
    ({"peft": "0.17.1", "transformers": "5.0.0"}, "peft 0.17.1 requires transformers>=4.44.0,<5.0.0"),
    ({"peft": "0.17.1", "transformers": "4.57.6"}, None),
    ({"peft": "0.18.0", "transformers": "5.0.0"}, None),  # HybridCache guarded (huggingface/peft#2735)
    ({"peft": "0.18.0", "transformers": "4.51.3"}, "peft 0.18.0 requires transformers>=4.52.0"),
    ({"peft": "0.18.0", "transformers": "4.52.0"}, None),
    # peft's import of accelerate's clear_device_cache
    ({"peft": "0.15.0", "accelerate": "0.31.0"}, "peft 0.15.0 requires accelerate>=0.32.0"),
    ({"peft": "0.15.0", "accelerate": "0.32.0"}, None),
    ({"peft": "0.14.0", "accelerate": "0.31.0"}, None),
    # TRL before 0.8.0 imports top_k_top_p_filtering, gone in transformers 4.39.0
    ({"trl": "0.7.11", "transformers": "4.39.0"}, "trl 0.7.11 requires transformers<4.39.0"),
    ({"trl": "0.7.11", "transformers": "4.38.2"}, None),
    ({"trl": "0.8.0", "transformers": "4.39.0"}, None),
]


@pytest.mark.parametrize(("libraries", "found"), CASES)
def test_runtime_rows_both_ways(libraries: dict[str, str], found: str | None) -> None:
    reasons = _reasons(**libraries)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        assert found + ", installed " in reasons[0]
        assert "(https://github.com/huggingface/" in reasons[0]


def test_the_deepspeed_row_is_kept() -> None:
    assert "transformers 4.31.0 requires deepspeed>=0.9.3" in _reasons(transformers="4.31.0", deepspeed="0.8.3")[0]


def test_one_pair_per_dependency() -> None:
    """A later transformers below every accelerate floor is reported against its own floor only."""
    (reason,) = _reasons(transformers="5.0.0", accelerate="0.19.0")
    assert reason.count("requires accelerate") == 1 and "accelerate>=1.1.0" in reason


# the projects whose tags, PRs and releases the rows are read from
_ROW_SOURCES = (
    "https://github.com/huggingface/",
    "https://github.com/deepspeedai/",
    "https://github.com/XPixelGroup/BasicSR/",
    "https://github.com/facebookresearch/pytorchvideo/",
    "https://github.com/pytorch/vision/",
    "https://github.com/volcengine/verl/",
    "https://github.com/OpenRLHF/OpenRLHF/",
    "https://github.com/hiyouga/LLaMA-Factory/",
    "https://github.com/facebookresearch/xformers/",  # xFormers' flash-attn check (session 29)
    "https://github.com/bitsandbytes-foundation/bitsandbytes/",
    "https://github.com/linkedin/Liger-Kernel/",
    "https://github.com/state-spaces/mamba/",
    "https://github.com/UKPLab/sentence-transformers/",  # generated rows (tools/import_scan.py)
    "https://pypi.org/project/unsloth/",  # generated rows: unsloth's tags do not name its PyPI releases
    "https://github.com/vllm-project/vllm/",  # generated rows (vllm -> transformers)
    # generated rows of the thirty-first round (tools/import_scan.py: the quantisers, unsloth-zoo)
    "https://github.com/casper-hansen/AutoAWQ/",
    "https://github.com/AutoGPTQ/AutoGPTQ/",
    "https://github.com/ModelCloud/GPTQModel/",
    "https://pypi.org/project/unsloth-zoo/",
)


def test_rows_are_well_formed() -> None:
    for dist, rows in requirement_tables.RUNTIME_MINIMUMS.items():
        for row in rows:
            assert row.source.startswith(_ROW_SOURCES), (
                dist,
                row,
            )
            assert row.until is None or Version(row.since) < Version(row.until)


def _torch_reasons(torch: str, python: str = "3.11.7", **libraries: str) -> list[str]:
    env = Environment(platform="cpu", python=python, os="Linux", torch=torch, libraries=dict(libraries))
    return [f.reason for f in evaluate(env) if f.check == requirements.ID]


_DS = "(https://github.com/deepspeedai/DeepSpeed/pull/"
# (deepspeed, torch, python, the requirement and fix PR reported, or None)
DEEPSPEED_CASES = [
    # 0.15.3: torch.compiler.is_compiling (torch 2.3) called when torch.compiler and nn.Module.compile exist
    ("0.15.3", "2.2.1", "3.11.7", "requires torch!=2.1.*,!=2.2.*, installed torch 2.2.1 " + _DS + "6663)"),
    ("0.15.3", "2.1.2+rocm5.6", "3.11.7", "requires torch!=2.1.*,!=2.2.*, installed torch 2.1.2+rocm5.6"),
    ("0.15.3", "2.0.1", "3.11.7", None),  # no torch.compiler: the call is skipped
    ("0.15.3", "2.3.0", "3.11.7", None),
    ("0.15.4", "2.2.1", "3.11.7", None),  # the fallback (#6663)
    ("0.15.2", "2.2.1", "3.11.7", None),  # before the call
    # 0.17.5: ZenFlow's _disable_dynamo_if_unsupported (torch 2.4) without a fallback for torch 2.1-2.3
    ("0.17.5", "2.3.1", "3.11.7", "requires torch!=2.1.*,!=2.2.*,!=2.3.*, installed torch 2.3.1 " + _DS + "7544)"),
    # below 2.1 ZenFlow's fallback is defined, but ZeRO-3's hooks need torch.compiler (from 0.16.6)
    ("0.17.5", "2.0.1", "3.11.7", "requires torch>=2.1.0a0, installed torch 2.0.1 (https://github.com/deepspeedai/"),
    ("0.17.5", "2.4.0", "3.11.7", None),
    ("0.17.6", "2.3.1", "3.11.7", None),
    ("0.17.4", "2.3.1", "3.11.7", None),  # no ZenFlow yet
    # 0.18.6: torch.compile at import, which torch < 2.4 refuses on Python 3.12
    ("0.18.6", "2.3.1", "3.12.3", "requires torch>=2.4.0a0 on Python >= 3.12, installed torch 2.3.1 " + _DS + "7875)"),
    # 0.18.3-0.18.6: ZeRO's gradient hooks fail on torch 2.3/2.4 (fixed in 0.18.7)
    ("0.18.6", "2.3.1", "3.11.7", "requires torch!=2.3.*,!=2.4.*, installed torch 2.3.1 " + _DS + "7841)"),
    ("0.18.6", "2.4.0", "3.12.3", "requires torch!=2.3.*,!=2.4.*, installed torch 2.4.0 " + _DS + "7841)"),
    # (on Python 3.12 Muon's torch.compile at import fails first: torch < 2.4 refuses 3.12)
    (
        "0.18.5",
        "2.3.1",
        "3.12.3",
        "requires torch>=2.4.0a0 on Python >= 3.12, installed torch 2.3.1 (https://github.com/",
    ),
    ("0.18.6", "2.5.1", "3.12.3", None),
    ("0.18.2", "2.3.1", "3.11.7", None),
    # 0.18.7 and 0.18.8: torch.amp.custom_fwd (torch 2.4) at import
    ("0.18.7", "2.3.1", "3.11.7", "requires torch>=2.4.0a0, installed torch 2.3.1 " + _DS + "7920)"),
    ("0.18.8", "2.2.2+rocm5.7", "3.12.3", "requires torch>=2.4.0a0, installed torch 2.2.2+rocm5.7 " + _DS + "7920)"),
    ("0.18.8", "2.4.0", "3.11.7", None),
    ("0.18.8", "2.4.0a0+3bcc3cddb5.nv24.07", "3.11.7", None),  # a 2.4 development build has the API
    # 0.18.9 imports AutoSP, whose torch.library.custom_op needs torch 2.4 again
    ("0.18.9", "2.3.1", "3.11.7", "requires torch>=2.4.0a0, installed torch 2.3.1 " + _DS + "7860)"),
    # before 0.19.5: ops built with -std=c++17, which torch 2.12's headers refuse
    ("0.19.4", "2.12.0", "3.12.3", "requires torch<2.12, installed torch 2.12.0 " + _DS + "8238)"),
    ("0.14.4", "2.12.1", "3.11.7", "requires torch<2.12, installed torch 2.12.1 " + _DS + "8238)"),
    ("0.19.4", "2.11.0", "3.12.3", None),
    ("0.19.5", "2.12.0", "3.12.3", None),
]


@pytest.mark.parametrize(("deepspeed", "torch", "python", "found"), DEEPSPEED_CASES)
def test_deepspeed_torch_rows_both_ways(deepspeed: str, torch: str, python: str, found: str | None) -> None:
    reasons = _torch_reasons(torch, python, deepspeed=deepspeed)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        (reason,) = reasons
        assert reason.count("deepspeed ") == 1 and f"deepspeed {deepspeed} {found}" in reason


# transformers' is_torch_available floor: (transformers, torch, the floor reported, or None)
TRANSFORMERS_TORCH_CASES = [
    ("4.52.0", "2.0.1", "torch>=2.1"),
    ("4.57.6", "2.0.1", "torch>=2.1"),
    ("4.52.0", "2.1.0+rocm5.6", None),
    ("4.51.3", "2.1.0", None),  # no gate yet (on torch 2.0 its float8 read fails: test_api_removal_rows.py)
    ("5.0.0", "2.1.2", "torch>=2.2"),
    ("5.0.0", "2.2.0", None),
    ("5.1.0", "2.3.1", "torch>=2.4"),
    ("5.14.0", "2.4.0", None),
    ("5.15.0", "2.4.1", "torch>=2.5"),
    ("5.19.0", "2.5.0", None),
    ("5.20.0", "2.5.1", "torch>=2.6"),
    ("5.24.0", "2.6.0+rocm6.2.4", None),
]


@pytest.mark.parametrize(("transformers", "torch", "found"), TRANSFORMERS_TORCH_CASES)
def test_transformers_torch_floor_both_ways(transformers: str, torch: str, found: str | None) -> None:
    reasons = _torch_reasons(torch, transformers=transformers)
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        (reason,) = reasons
        assert f"transformers {transformers} requires {found}, installed torch {torch} " in reason
        assert "/src/transformers/utils/import_utils.py)" in reason


def test_transformers_floor_message_is_predicted() -> None:
    """transformers v5.20.0 utils/import_utils.py, as formatted."""
    message = "Disabling PyTorch because PyTorch >= 2.6 is required but found 2.5.1"
    assert compile_signature(PREDICTS[requirements.ID]).search(message)


def test_the_torch_six_bound_is_kept() -> None:
    (reason,) = _torch_reasons("2.0.1", deepspeed="0.8.1")
    assert "deepspeed 0.8.1 requires torch<2.0" in reason and "pull/2863" in reason


@pytest.mark.parametrize(
    "message",
    [
        # deepspeedai/DeepSpeed#6656 (0.15.3 on torch 2.1/2.2), its title
        "module 'torch.compiler' has no attribute 'is_compiling'",
        # deepspeedai/DeepSpeed#7544 (0.17.5 on torch 2.1-2.3), the warning line before the NameError
        "[WARNING] ZenFlow disabled: torch internal optimizer symbols could not be imported: cannot import name "
        "'_disable_dynamo_if_unsupported' from 'torch.optim.optimizer' "
        "(/usr/local/lib/python3.10/dist-packages/torch/optim/optimizer.py)",
        # torch.amp.custom_fwd on torch < 2.4 (the message of kijai/ComfyUI-GIMM-VFI#2, as 0.18.7's linear.py gets it)
        "AttributeError: module 'torch.amp' has no attribute 'custom_fwd'",
    ],
)
def test_the_deepspeed_import_failures_are_predicted(message: str) -> None:
    assert compile_signature(PREDICTS[requirements.ID]).search(message)


@pytest.mark.parametrize(
    "message",
    [
        # huggingface/trl#1409
        "ImportError: cannot import name 'top_k_top_p_filtering' from 'transformers' "
        "(/usr/local/lib/python3.10/dist-packages/transformers/__init__.py)",
        # huggingface/peft#2292
        "ImportError: cannot import name 'EncoderDecoderCache' from 'transformers'",
        # huggingface/transformers#44351 (peft 0.16/0.17's import line on transformers 5)
        "ImportError: cannot import name 'HybridCache' from 'transformers' "
        "(/opt/conda/envs/python3.10.13/lib/python3.10/site-packages/transformers/__init__.py)",
    ],
)
def test_the_import_failures_are_predicted(message: str) -> None:
    assert compile_signature(PREDICTS[requirements.ID]).search(message)


@pytest.mark.parametrize(
    "message",
    [
        # LlamaFactory#8142 (peft's loftq_utils on an older accelerate), verbatim
        "ImportError: cannot import name 'clear_device_cache' from 'accelerate.utils.memory'",
        # huggingface/setfit#625 (peft 0.18 on transformers 4.51.3), verbatim
        "ModuleNotFoundError: No module named 'transformers.modeling_layers'",
        # transformers v5.0.0 training_args.py and utils/peft_utils.py, as formatted
        "Using the `Trainer` with `PyTorch` requires `accelerate>=1.1.0`: Please run `pip install transformers[torch]`",
        "The version of PEFT you are using is not compatible, please use a version >= 0.18.0",
    ],
)
def test_the_runtime_floors_own_messages_are_predicted(message: str) -> None:
    from pytest_rocmcompat.knowledge.checks.requirements import PREDICTS
    from pytest_rocmcompat.knowledge.rules.signature import compile_signature

    assert compile_signature(PREDICTS).search(message) is not None

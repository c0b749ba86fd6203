"""``requirement-not-met`` on a package the stack does not name (``RuntimeRow.message``, ``unnamed_findings``).

Users' reports name torch (or huggingface-hub, transformers) but often not the library that failed. Where
some releases of an unnamed :data:`RUNTIME_MINIMUMS` package cannot run with what the stack states, the
finding claims only those rows' own messages (``Finding.signature_only``): each quoted here verbatim with
its source, and none of the check's broad ``PREDICTS`` (another import error naming torch stays a failure).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.checks import requirement_tables, requirements
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
_TF = "https://github.com/huggingface/transformers/blob/"

# (package, the row's first release, the message as users met it or as the row's source formats it, source)
VERBATIM: list[tuple[str, str, str, str]] = [
    (
        "deepspeed",
        "0.10.1",
        "ImportError: cannot import name 'log' from 'torch.distributed.elastic.agent.server.api' "
        "(/root/miniconda3/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py)",
        "https://github.com/deepspeedai/DeepSpeed/issues/5337",
    ),
    (
        "deepspeed",
        "0.14.1",
        "[BUG] cannot import name '_get_socket_with_port' from 'torch.distributed.elastic.agent.server.api'",
        "https://github.com/deepspeedai/DeepSpeed/issues/5603",
    ),
    (
        "deepspeed",
        "0.8.2",
        "/usr/local/lib/python3.8/dist-packages/torch/include/torch/csrc/api/include/torch/all.h:4:2: "
        "error: #error C++17 or later compatible compiler is required to use PyTorch.",
        "https://github.com/pytorch/pytorch/issues/102082",
    ),
    (
        "deepspeed",
        "0.15.3",
        "module 'torch.compiler' has no attribute 'is_compiling'",
        "https://github.com/deepspeedai/DeepSpeed/issues/6656",
    ),
    (
        "deepspeed",
        "0.17.5",
        "[BUG] Import Error: `name '_disable_dynamo_if_unsupported' is not defined`",
        "https://github.com/deepspeedai/DeepSpeed/issues/7514",
    ),
    (  # the PR's own words: "`import deepspeed` raises `RuntimeError: Dynamo is not supported on Python 3.12+`"
        "deepspeed",
        "0.18.6",
        "RuntimeError: Dynamo is not supported on Python 3.12+",
        "https://github.com/deepspeedai/DeepSpeed/pull/7875",
    ),
    (
        "deepspeed",
        "0.18.7",
        "AttributeError: module 'torch.amp' has no attribute 'custom_fwd'",
        "https://github.com/kijai/ComfyUI-GIMM-VFI/issues/2",
    ),
    (
        "deepspeed",
        "0.8.2",
        "[rank0]:     5 | #error C++20 or later compatible compiler is required to use PyTorch.",
        "https://github.com/deepspeedai/DeepSpeed/issues/8235",
    ),
    (
        "deepspeed",
        "0.18.9",
        "AttributeError: module 'torch.library' has no attribute 'custom_op'",
        "https://github.com/dropbox/hqq/issues/92",
    ),
    (
        "transformers",
        "4.52.0",
        "Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1",
        "https://github.com/jingyaogong/minimind/issues/588",
    ),
    # as each release's utils/import_utils.py formats it (f"... >= X is required but found {torch_version}")
    (
        "transformers",
        "5.0.0",
        "Disabling PyTorch because PyTorch >= 2.2 is required but found 2.1.2",
        f"{_TF}v5.0.0/src/transformers/utils/import_utils.py",
    ),
    (
        "transformers",
        "5.1.0",
        "Disabling PyTorch because PyTorch >= 2.4 is required but found 2.3.1",
        f"{_TF}v5.1.0/src/transformers/utils/import_utils.py",
    ),
    (
        "transformers",
        "5.15.0",
        "Disabling PyTorch because PyTorch >= 2.5 is required but found 2.4.1",
        f"{_TF}v5.15.0/src/transformers/utils/import_utils.py",
    ),
    (
        "transformers",
        "5.20.0",
        "Disabling PyTorch because PyTorch >= 2.6 is required but found 2.5.1",
        f"{_TF}v5.20.0/src/transformers/utils/import_utils.py",
    ),
    # transformers v5.0.0 training_args.py and utils/peft_utils.py, as formatted
    (
        "transformers",
        "5.0.0",
        "Using the `Trainer` with `PyTorch` requires `accelerate>=1.1.0`: Please run `pip install transformers[torch]`",
        f"{_TF}v5.0.0/src/transformers/training_args.py",
    ),
    (
        "transformers",
        "5.0.0",
        "The version of PEFT you are using is not compatible, please use a version >= 0.18.0",
        f"{_TF}v5.0.0/src/transformers/utils/peft_utils.py",
    ),
    (
        "peft",
        "0.14.0",
        "ImportError: cannot import name 'EncoderDecoderCache' from 'transformers'",
        "https://github.com/huggingface/peft/issues/2292",
    ),
    (
        "peft",
        "0.16.0",
        "ImportError: cannot import name 'HybridCache' from 'transformers' "
        "(/opt/conda/envs/python3.10.13/lib/python3.10/site-packages/transformers/__init__.py)",
        "https://github.com/huggingface/transformers/issues/44351",
    ),
    (
        "peft",
        "0.18.0",
        "ModuleNotFoundError: No module named 'transformers.modeling_layers'",
        "https://github.com/huggingface/setfit/issues/625",
    ),
    (
        "peft",
        "0.15.0",
        "ImportError: cannot import name 'clear_device_cache' from 'accelerate.utils.memory'",
        "https://github.com/hiyouga/LlamaFactory/issues/8142",
    ),
    (
        "trl",
        "0.2.0",
        "ImportError: cannot import name 'top_k_top_p_filtering' from 'transformers' "
        "(/usr/local/lib/python3.10/dist-packages/transformers/__init__.py)",
        "https://github.com/huggingface/trl/issues/1409",
    ),
    (
        "trl",
        "0.13.0",
        "cannot import name 'MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES' from 'transformers.models.auto.modeling_auto' "
        "(/root/ms-swift/venv/lib/python3.10/site-packages/transformers/models/auto/modeling_auto.py)",
        "https://github.com/modelscope/ms-swift/issues/9343",
    ),
    (
        "trl",
        "0.10.1",
        "[Bug] cannot import name 'is_torch_mlu_available' from 'transformers.utils'",
        "https://github.com/OpenGVLab/InternVL/issues/981",
    ),
    (
        "accelerate",
        "0.32.0",
        "ImportError: cannot import name 'split_torch_state_dict_into_shards' from 'huggingface_hub' "
        "(/opt/conda/lib/python3.8/site-packages/huggingface_hub/__init__.py)",
        "https://github.com/aigc-apps/EasyAnimate/issues/114",
    ),
    (
        "accelerate",
        "0.21.0",
        "DeepSpeed version must be >= 0.9.3. Please update DeepSpeed.",
        "https://github.com/huggingface/accelerate/blob/v0.21.0/src/accelerate/accelerator.py#L290",
    ),
    (
        "diffusers",
        "0.4.0",
        "ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
        "(/home/anaconda3/envs/distifusion/lib/python3.10/site-packages/huggingface_hub/__init__.py)",
        "https://github.com/mit-han-lab/distrifuser/issues/24",
    ),
    (
        "sentence-transformers",
        "2.0.0",
        "E   ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
        "(/usr/local/lib/python3.11/site-packages/huggingface_hub/__init__.py)",
        "https://github.com/huggingface/sentence-transformers/issues/3001",
    ),
    (
        "sentence-transformers",
        "2.4.0",
        "ImportError: cannot import name 'is_nltk_available' from 'transformers.utils.import_utils' "
        "(/app/conda_envs/myenv/lib/python3.8/site-packages/transformers/utils/import_utils.py)",
        "https://github.com/huggingface/sentence-transformers/issues/2560",
    ),
    # DeepSpeed's ZeRO-3 hooks (torch.compiler.disable, from 0.16.6) on torch 2.0; its gradient hooks (0.18.3-0.18.6)
    # on torch 2.3/2.4 (more in test_deepspeed_torch_zero.py)
    (
        "deepspeed",
        "0.16.6",
        "AttributeError: module 'torch' has no attribute 'compiler'",
        "https://github.com/bmaltais/kohya_ss/issues/2071",
    ),
    (
        "deepspeed",
        "0.18.3",
        "AttributeError in DeepSpeed ZeRO-3 backward: 'NoneType' object has no attribute 'next_functions'",
        "https://github.com/dexmal/dexbotic/issues/66",
    ),
    # DeepSpeed >= 0.18.3 applies torch.compile at import (Muon), which torch refuses on a newer Python
    (
        "deepspeed",
        "0.18.3",
        "RuntimeError: Python 3.11+ not yet supported for torch.compile",
        "https://github.com/pytorch/pytorch/issues/104918",
    ),
    (
        "deepspeed",
        "0.18.3",
        "RuntimeError: Dynamo is not supported on Python 3.12+",
        "https://github.com/jianchang512/ChatTTS-ui/issues/36",
    ),
    (
        "deepspeed",
        "0.18.3",
        "Dynamo is not supported on Python 3.13+",
        "https://github.com/pytorch/pytorch/blob/v2.5.1/torch/__init__.py",  # torch.compile's own check
    ),
    # API removals between packages that declare each other unbounded (more in test_api_removal_rows.py)
    (  # as Python formats the failed import at transformers v4.50.0 modeling_utils.py#L40 (torch < 2.0)
        "transformers",
        "4.50.0",
        "ModuleNotFoundError: No module named 'torch.distributed.tensor'",
        f"{_TF}v4.50.0/src/transformers/modeling_utils.py#L40",
    ),
    (
        "transformers",
        "4.51.0",
        "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'",
        "https://github.com/huggingface/transformers/issues/32185",
    ),
    (
        "basicsr",
        "1.4.0",
        "[Issue]: ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
        "https://github.com/vladmandic/sdnext/issues/2543",
    ),
    (
        "pytorchvideo",
        "0.1.2",
        "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
        "https://github.com/facebookresearch/pytorchvideo/issues/271",
    ),
    (
        "torchvision",
        "0.2.1",
        "New Pillow version (7.0.0) breaks torchvision (ImportError: cannot import name 'PILLOW_VERSION' from 'PIL')",
        "https://github.com/pytorch/vision/issues/1712",
    ),
    # the RL frameworks' own vLLM / DeepSpeed gates, as each tag formats them (more in test_rl_stack_rows.py)
    (
        "verl",
        "0.1",
        "ValueError: vllm version 0.6.2 not supported. Currently supported versions are 0.3.1, 0.4.2, 0.5.4 and 0.6.3.",
        "https://github.com/volcengine/verl/blob/v0.1/verl/third_party/vllm/__init__.py#L49",
    ),
    (
        "verl",
        "0.2",
        "ValueError: vllm version 0.6.1 not supported. Currently supported versions are 0.3.1, 0.4.2, 0.5.4, "
        "0.6.3 and 0.7.0+",
        "https://github.com/volcengine/verl/blob/v0.2/verl/third_party/vllm/__init__.py#L58",
    ),
    (
        "verl",
        "0.3.0.post0",
        "ValueError: vllm version 0.6.4 not supported and SGLang also not Found. Currently supported vllm "
        "versions are 0.3.1, 0.4.2, 0.5.4, 0.6.3 and 0.7.0+",
        "https://github.com/volcengine/verl/blob/v0.3.0.post0/verl/third_party/vllm/__init__.py#L64",
    ),
    (
        "verl",
        "0.4.0",
        "ValueError: vllm version 0.6.4.post1 not supported and SGLang also not Found. Currently supported vllm "
        "versions are 0.6.3 and 0.7.0+",
        "https://github.com/volcengine/verl/blob/v0.4.0/verl/third_party/vllm/__init__.py#L51",
    ),
    (
        "verl",
        "0.5.0",
        "ValueError: vLLM version 0.6.3 support has been removed. vLLM 0.5.4 and 0.6.3 are no longer supported. "
        "Please use vLLM 0.7.0 or later.",
        "https://github.com/volcengine/verl/blob/v0.5.0/verl/third_party/vllm/__init__.py#L45",
    ),
    (
        "verl",
        "0.9.0",
        "ValueError: vllm version 0.17.1 not supported and SGLang also not Found. Currently supported vllm "
        "versions are 0.18.0+",
        "https://github.com/volcengine/verl/blob/v0.9.0/verl/third_party/vllm/__init__.py",
    ),
    (
        "openrlhf",
        "0.2.6",
        "AssertionError: OpenRLHF only supports vLLM >= 0.4.1",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.2.6/openrlhf/trainer/ray/vllm_engine.py#L18",
    ),
    (
        "openrlhf",
        "0.5.2",
        "AssertionError: OpenRLHF only supports vLLM >= 0.4.2",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.5.2/openrlhf/trainer/ray/vllm_engine.py#L25",
    ),
    (
        "openrlhf",
        "0.5.8",
        "AssertionError: OpenRLHF only supports vllm >= 0.7.0",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.5.8/openrlhf/trainer/ray/vllm_engine.py#L117",
    ),
    (
        "openrlhf",
        "0.6.0.post3",
        "AssertionError: OpenRLHF only supports vllm >= 0.7.2",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.6.0.post3/openrlhf/trainer/ray/vllm_engine.py#L124",
    ),
    (
        "openrlhf",
        "0.6.3",
        "AssertionError: OpenRLHF only supports vllm >= 0.8.1",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.6.3/openrlhf/trainer/ray/vllm_engine.py#L129",
    ),
    (
        "openrlhf",
        "0.8.1",
        "AssertionError: OpenRLHF only supports vllm > 0.8.2",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.8.1/openrlhf/trainer/ray/vllm_engine.py#L123",
    ),
    (
        "openrlhf",
        "0.9.1",
        "AssertionError: Streaming VLLM version must be greater than 0.8.5",
        "https://github.com/OpenRLHF/OpenRLHF/blob/v0.9.1/openrlhf/trainer/ray/vllm_engine.py#L88",
    ),
    (  # transformers 4.32.0's Trainer (trainer.py line 3883) beside accelerate >= 1.0
        "transformers",
        "4.32.0",
        "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
        "https://github.com/QwenLM/Qwen/issues/1326",
    ),
    (  # transformers 4.39.3's Trainer
        "transformers",
        "4.38.0",
        "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
        "https://github.com/huggingface/transformers/issues/34699",
    ),
    (  # transformers 4.52.x's Trainer._wrap_model (trainer.py line 1990)
        "transformers",
        "4.52.0",
        "[rank0]: TypeError: Accelerator.unwrap_model() got an unexpected keyword argument 'keep_torch_compile'",
        "https://github.com/hiyouga/LlamaFactory/issues/8451",
    ),
    (  # TRL 0.11.x's SFTTrainer (sft_trainer.py line 401) beside transformers 5
        "trl",
        "0.11.0",
        "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
        "https://github.com/huggingface/trl/issues/6168",
    ),
    (  # as Python printed it here for TRL 0.9.4's SFTTrainer beside transformers 5.0.0
        "trl",
        "0.8.0",
        "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
        "https://github.com/huggingface/trl/blob/v0.9.4/trl/trainer/sft_trainer.py#L408",
    ),
    (  # check_version's mandatory hint (extras/misc.py) through transformers' require_version (utils/versions.py)
        "llamafactory",
        "0.9.3",
        "ImportError: deepspeed>=0.10.0,<=0.16.9 is required for a normal functioning of this module, but found "
        "deepspeed==0.17.0.\nTo fix: run `pip install deepspeed>=0.10.0,<=0.16.9`.",
        "https://github.com/hiyouga/LLaMA-Factory/blob/v0.9.3/src/llamafactory/hparams/parser.py#L175",
    ),
    (  # import bitsandbytes beside triton 3.2 (triton_api_rows.py)
        "bitsandbytes",
        "0.38.1",
        "ModuleNotFoundError: No module named 'triton.ops'",
        "https://github.com/triton-lang/triton/issues/5471",
    ),
    (  # the import liger-kernel 0.5.10's ops/dyt.py repeats (triton_api_rows.py), on a Triton without the module
        "liger-kernel",
        "0.5.10",
        "ModuleNotFoundError: No module named 'triton.language.extra.libdevice'",
        "https://github.com/linkedin/Liger-Kernel/pull/79",
    ),
    (  # mamba-ssm 2.0.x's _chunk_cumsum_fwd_kernel on triton >= 3.0 (triton_api_rows.py)
        "mamba-ssm",
        "2.0.0",
        "AttributeError: module 'triton.language.math' has no attribute 'log1p'. Did you mean: 'log2'?",
        "https://github.com/triton-lang/triton/issues/4918",
    ),
    (
        "xformers",
        "0.0.30",
        "ImportError: Requires Flash-Attention version >=2.7.1,<=2.7.4 but got 2.8.0.post2.",
        "https://github.com/facebookresearch/xformers/issues/1267",
    ),
]


def _row_messages(dist: str, since: str) -> list[str]:
    return [r.message for r in RUNTIME_MINIMUMS[dist] if r.since == since and r.message]


@pytest.mark.parametrize(("dist", "since", "message", "source"), VERBATIM)
def test_each_quote_matches_its_row(dist: str, since: str, message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert any(re.search(m, message) for m in _row_messages(dist, since)), (dist, since)


def _generated() -> set[tuple[str, str, str]]:
    """The generated rows (tools/import_scan.py), each message checked to be CPython's ImportError text for
    its exact module and name (``Python/ceval.c`` ``import_from``: "cannot import name %R from %R";
    ``importlib._bootstrap``: "No module named {!r}", where the module itself may be missing).
    """
    data = json.loads((Path(requirement_tables.__file__).parents[1] / "data" / "import_scan.json").read_text("utf-8"))
    found: set[tuple[str, str, str]] = set()
    for row in data["rows"]:
        cannot = f"cannot import name '{row['name']}' from '{re.escape(row['module'])}'"
        missing = f"No module named '{re.escape(row['module'])}'"
        if row["message"] not in (cannot, f"{cannot}|{missing}", missing):
            raise AssertionError(f"a generated message that is not CPython's text: {row}")
        found.add((row["dist"], row["since"], row["message"]))
    return found


def test_every_row_message_has_a_quote() -> None:
    """A hand row's message is matched by a quote from a public report; a generated row's is CPython's own
    ImportError text for the exact module and name the release imports (checked in :func:`_generated`).
    """
    generated = _generated()
    for dist, rows in RUNTIME_MINIMUMS.items():
        for row in rows:
            if row.message and (dist, row.since, row.message) not in generated:
                quotes = [m for d, _, m, _ in VERBATIM if d == dist]
                assert any(re.search(row.message, q) for q in quotes), (dist, row.since, row.message)


# What must never be claimed for a package the stack does not name: generic crashes, and import errors
# the broad PREDICTS would take (another torch or transformers name, the pip resolver)
UNCLAIMED = [
    "Segmentation fault (core dumped)",
    "RuntimeError: HIP error: invalid device function",
    "ValueError: a genuinely different regression",
    "ImportError: cannot import name 'DeviceMesh' from 'torch.distributed'",
    "AttributeError: module 'torch.library' has no attribute 'triton_op'",
    "ImportError: cannot import name 'AutoModelForVision2Seq' from 'transformers'",
    "ERROR: pip's dependency resolver ... torch 2.5.1 requires triton==3.1.0, but you have triton 3.0.0",
]


@pytest.mark.parametrize("message", UNCLAIMED)
def test_row_messages_are_narrow(message: str) -> None:
    for rows in RUNTIME_MINIMUMS.values():
        for row in rows:
            assert not (row.message and re.search(row.message, message)), (row, message)


def _unnamed(*stack: str) -> dict[str, Finding]:
    return {f.uses[0]: f for f in requirements.unnamed_findings(apply_overrides(BASE, list(stack)))}


def test_an_unnamed_deepspeed_beside_torch_26() -> None:
    found = _unnamed("torch=2.6.0")
    ds = found["deepspeed"]
    assert ds.check == f"{requirements.ID}:deepspeed" and ds.uses == ("deepspeed",)
    assert ds.uncertain and ds.conditional and ds.signature_only
    assert ds.reason.startswith("deepspeed is not named: releases 0.10.1 to <0.14.1 need torch<2.4 (installed 2.6.0)")
    assert ds.link == "https://github.com/deepspeedai/DeepSpeed/pull/5346"
    assert "transformers" not in found  # torch 2.6 meets every transformers torch floor


@pytest.mark.parametrize(
    ("stack", "dist", "reason"),
    [
        (("torch=2.3.1",), "transformers", "releases 5.1.0 to <5.15.0 need torch>=2.4 (installed 2.3.1)"),
        (("torch=2.3.1",), "deepspeed", "releases 0.18.9 on need torch>=2.4.0a0 (installed 2.3.1)"),
        (
            ("torch=2.3.1", "python=3.12.3"),
            "deepspeed",
            "0.18.6 to <0.18.7 need torch>=2.4.0a0 on Python >= 3.12 (installed 2.3.1)",
        ),
        (("lib.huggingface-hub=0.26.0",), "diffusers", "releases 0.4.0 to <0.29.0 need huggingface-hub<0.26.0"),
        (("lib.huggingface-hub=0.26.0",), "sentence-transformers", "2.0.0 to <2.3.0 need huggingface-hub<0.26.0"),
        (("lib.huggingface-hub=0.20.3",), "accelerate", "0.32.0 to <0.33.0 need huggingface-hub>=0.21.0"),
        (("lib.transformers=5.0.0",), "trl", "releases 0.9.6 to <0.10.1 need transformers<5.0.0"),
        (("lib.transformers=5.0.0",), "peft", "releases 0.16.0 to <0.18.0 need transformers>=4.44.0,<5.0.0"),
    ],
)
def test_unnamed_packages_found(stack: tuple[str, ...], dist: str, reason: str) -> None:
    finding = _unnamed(*stack)[dist]
    assert reason in finding.reason and finding.reason.startswith(f"{dist} is not named: ")


@pytest.mark.parametrize(
    ("stack", "dist"),
    [
        (("torch=2.6.0", "lib.deepspeed=0.16.0"), "deepspeed"),  # named: judged as today, by its version
        (("torch=2.3.1", "lib.transformers=4.46.0"), "transformers"),
        (("lib.transformers=4.46.0",), "deepspeed"),  # torch not stated
        (("lib.transformers=4.46.0",), "diffusers"),  # huggingface-hub not stated
        (("lib.huggingface-hub=0.25.2",), "diffusers"),  # it meets every row
        (("lib.huggingface-hub=0.25.2",), "accelerate"),
        (("torch=2.6.0",), "transformers"),
        (("lib.transformers=4.57.1",), "peft"),  # 4.52.0 to 4.x meets every peft row with a message
    ],
)
def test_silent(stack: tuple[str, ...], dist: str) -> None:
    assert dist not in _unnamed(*stack)


def test_a_marker_that_does_not_hold_finds_nothing() -> None:
    """0.18.6's torch.compile at import fails on Python 3.12+ only (its row's marker)."""
    assert "0.18.6" not in _unnamed("torch=2.3.1", "python=3.11.9")["deepspeed"].reason


def test_a_row_without_a_message_finds_nothing() -> None:
    """transformers >= 4.31's deepspeed>=0.9.3 has no verified message: a deepspeed 0.9.2 alone says nothing of it."""
    assert "transformers" not in _unnamed("lib.deepspeed=0.9.2")


def test_a_replay_judges_only_what_it_names() -> None:
    """A recorded machine's own huggingface-hub is not part of a replayed stack (as for named pairs)."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux", libraries={"huggingface-hub": "0.26.0"})
    assert "diffusers" in {f.uses[0] for f in requirements.unnamed_findings(env)}
    replay = apply_overrides(env, ["torch=2.6.0"])
    assert "diffusers" not in {f.uses[0] for f in requirements.unnamed_findings(replay)}


def _rule_for(dist: str, *stack: str, settings: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    env = apply_overrides(BASE, list(stack))
    (rule,) = compile_rules([f for f in requirements.unnamed_findings(env) if f.uses == (dist,)], settings)
    return rule, env


def test_the_rule_claims_only_the_rows_messages() -> None:
    rule, _ = _rule_for("deepspeed", "torch=2.6.0")
    assert rule.id == "requirement-not-met:deepspeed" and rule.at_risk and rule.action == "xfail"
    assert rule.signature is not None and PREDICTS[requirements.ID] not in rule.signature.pattern
    assert rule.signature_matches(VERBATIM[0][2])  # DeepSpeed#5337's import error
    assert rule.signature_matches(VERBATIM[1][2])
    for message in UNCLAIMED:
        assert not rule.signature_matches(message), message
    # the broad signature would have claimed a different import error naming torch
    assert Signature(PREDICTS[requirements.ID]).search(UNCLAIMED[3]) is not None


def test_the_rule_reaches_only_tests_that_use_the_package() -> None:
    rule, env = _rule_for("deepspeed", "torch=2.6.0")
    active = ActiveRules([rule], derive(env))
    assert active.match(ItemFacts("t.py::test_ds", frozenset(), frozenset({"deepspeed"})))
    assert not active.match(ItemFacts("t.py::test_torch", frozenset(), frozenset({"torch"})))


def test_the_check_action_applies() -> None:
    rule, _ = _rule_for("deepspeed", "torch=2.6.0", settings={requirements.ID: "skip"})
    assert rule.action == "skip"


def test_signature_only_replaces_the_check_signature() -> None:
    """``Finding.signature_only``: the finding's ``predicts`` alone; without it, joined to the check's PREDICTS."""
    base = Finding(check=requirements.ID, reason="r", fix="f", link="l", uses=("x",), predicts="only this")
    (joined,) = compile_rules([base])
    assert joined.signature is not None and joined.signature.pattern == f"{PREDICTS[requirements.ID]}|only this"
    (own,) = compile_rules([Finding(**{**base.__dict__, "signature_only": True})])
    assert own.signature is not None and own.signature.pattern == "only this"


def test_through_pytest_only_the_rows_message_is_known_bad(pytester: pytest.Pytester) -> None:
    """An unnamed DeepSpeed beside torch 2.6: DeepSpeed#5337's import error is known-bad; an unrelated
    failure and another import error naming torch (which the broad PREDICTS would claim) stay ``fail``.
    """
    env = Environment(platform="rocm", python="3.10.14", os="Linux")
    predicted, unrelated = predicted_and_unrelated(
        pytester, VERBATIM[0][2], ("torch=2.6.0",), uses="deepspeed", env=env, error="ImportError"
    )
    assert predicted["rocm_rule"] == "requirement-not-met:deepspeed"
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    cases = run_cases(pytester, UNCLAIMED[3], ("torch=2.6.0",), uses="deepspeed", env=env, error="ImportError")
    other = cases["test_predicted"]
    assert other.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in other


@pytest.mark.parametrize("stack", [("torch=2.6.0", "lib.deepspeed=0.16.0"), ("lib.transformers=4.46.0",)])
def test_through_pytest_silent(pytester: pytest.Pytester, stack: tuple[str, ...]) -> None:
    """Deepspeed named (and fine), or torch not stated: the row's message is an ordinary failure."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux")
    failed = run_cases(pytester, VERBATIM[0][2], stack, uses="deepspeed", env=env, error="ImportError")[
        "test_predicted"
    ]
    assert failed.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in failed


def test_only_a_stated_stack_gets_unnamed_findings() -> None:
    """On a probed or recorded machine a package the stack does not name is not installed at all."""
    from pytest_rocmcompat.knowledge.checks.registry import evaluate_risks

    recorded = Environment(platform="rocm", python="3.10.14", os="Linux", torch="2.6.0", source="replay")
    assert evaluate_risks(recorded) == []
    stated = apply_overrides(BASE, ["torch=2.6.0"])
    assert "requirement-not-met:deepspeed" in {f.check for f in evaluate_risks(stated)}

"""Sourced tables for ``requirement-not-met`` where what PyPI's releases declared cannot say.

- :data:`RUNTIME_MINIMUMS`: the bounds (floors, ceilings, excluded series) a release checks or imports
  at run time although its metadata
  declares it only loosely or as an extra;
- :data:`UPPER_BOUNDS`: releases that declare no torch bound but cannot run on a newer torch;
- :func:`domain_pairing`: the torch a torchvision nightly (its day) or a pre-2023 torchvision needs.

Each row names the tag, pull request or table it was read from.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.runtime_row import RuntimeRow
from pytest_rocmcompat.knowledge.checks.triton_api_rows import TRITON_API_ROWS
from pytest_rocmcompat.knowledge.nightly_pins import nightly_requirement
from pytest_rocmcompat.stack.versions import coerce_version

__all__ = ["RUNTIME_MINIMUMS", "UPPER_BOUNDS", "RuntimeRow", "domain_pairing", "runtime_minimums"]


_TF = "https://github.com/huggingface/transformers/blob/"
_TF_IMPORT = "src/transformers/utils/import_utils.py"
_TF_MODELING = "src/transformers/modeling_utils.py"
_PEFT = "https://github.com/huggingface/peft/blob/"
_DS = "https://github.com/deepspeedai/DeepSpeed/"
_ACC = "https://github.com/huggingface/accelerate/blob/"
_ST = "https://github.com/huggingface/sentence-transformers/blob/"
_TRL = "https://github.com/huggingface/trl/blob/"
_TRL_DPO = f"{_TRL}v0.22.2/trl/trainer/dpo_trainer.py#L51"
# Each row's own failure text (RuntimeRow.message), quoted in tests/knowledge/test_requirements_unnamed.py
_ELASTIC = r"from 'torch\.distributed\.elastic\.agent\.server\.api'"
_MUON = f"{_DS}blob/v0.18.3/deepspeed/runtime/zero/muon/original_muon.py#L35"
_VISION2SEQ = (
    r"cannot import name 'MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES' from 'transformers\.models\.auto\.modeling_auto'"
)
_CACHED_DOWNLOAD = r"cannot import name 'cached_download' from 'huggingface_hub'"
# transformers 5.0's Trainer takes no ``tokenizer`` (TRL's trainers before 0.12 pass it); 5.x needs Python >= 3.10,
# whose message carries the qualified name, so "SFTTrainer.__init__()" (a caller's own mistake) is not this
_TRAINER_TOKENIZER = r"(?<![\w.])Trainer\.__init__\(\) got an unexpected keyword argument 'tokenizer'"
_NO_DTENSOR_PKG = r"No module named 'torch\.distributed\.tensor'"
_FUNCTIONAL_TENSOR = r"No module named 'torchvision\.transforms\.functional_tensor'"
_NO_TORCH = r"Disabling PyTorch because PyTorch >= ?{} is required"
# Python >= 3.10 prefixes the qualified name ("Accelerator.__init__()"), 3.9 gives the bare one
_ACC_KWARG = r"(?<![\w.])(?:Accelerator\.)?{}\(\) got an unexpected keyword argument '{}'"
_VERL = "https://github.com/volcengine/verl/blob/"
_VERL_GATE = "verl/third_party/vllm/__init__.py"
_VERL_NO_SGLANG = r"vllm version \S+ not supported and SGLang also not Found\. Currently supported vllm versions are "
# vLLM's PyPI releases below 0.7.0 other than 0.3.1, 0.4.2, 0.5.4 and 0.6.3, which verl's gate refuses (its
# "vllm<=0.6.3" history: https://pypi.org/project/vllm/#history); 0.6.6.x is left to each row
_VERL_REFUSED = (
    "!=0.3.2,!=0.3.3,!=0.4.0.*,!=0.4.1,!=0.4.3,!=0.5.0.*,!=0.5.1,!=0.5.2,!=0.5.3.*,!=0.5.5,"
    "!=0.6.0,!=0.6.1.*,!=0.6.2,!=0.6.3.post1,!=0.6.4.*,!=0.6.5"
)
_XF = "https://github.com/facebookresearch/xformers/blob/"
_XF_FLASH = "xformers/ops/fmha/flash.py"
_XF_SKIP = "XFORMERS_IGNORE_FLASH_VERSION_CHECK=1"
# xFormers' ImportError (format strings of every release read), as facebookresearch/xformers#1267 quotes it
_XF_MESSAGE = r"Requires Flash-Attention version >=\d[\w.]*,<=\d[\w.]* but got \S+"
_ORLHF = "https://github.com/OpenRLHF/OpenRLHF/blob/"
_ORLHF_ENGINE = "openrlhf/trainer/ray/vllm_engine.py"
# What a release checks or needs at run time although its metadata declares it only loosely or as
# an extra, each row read at the release tags it names:
# - transformers' DeepSpeed integration calls ``dep_version_check("deepspeed")`` (``integrations/
#   deepspeed.py``), which reads ``dependency_versions_table.py``: ``deepspeed>=0.9.3`` from 4.31.0
#   (huggingface/transformers#24541, merged 2023-06-28, after 4.30.2).
# - transformers' Trainer (``training_args.py``) raises "Using the `Trainer` with `PyTorch` requires
#   `accelerate>=X`" below ``X``: 0.20.1 from 4.30.0, ``ACCELERATE_MIN_VERSION`` (utils/import_utils.py)
#   0.21.0 from 4.37.0, 0.26.0 from 4.45.0, 1.1.0 from 5.0.0 (accelerate is only an extra there).
# - transformers' PEFT integration (``integrations/peft.py``) calls ``check_peft_version(MIN_PEFT_VERSION)``:
#   0.5.0 from 4.33.0, 0.18.0 from 5.0.0.
# - peft imports transformers names at import time although it declares ``transformers`` unbounded:
#   ``EncoderDecoderCache`` (first in transformers 4.43.0) from 0.14.0 (huggingface/peft#2292);
#   ``HybridCache`` (4.44.0 to 4.57.x, gone in 5.0.0: huggingface/transformers#44351) in 0.16.0 to
#   0.17.x (guarded from 0.18.0, huggingface/peft#2735); ``transformers.modeling_layers`` (first in
#   4.52.0) from 0.18.0; and accelerate's ``clear_device_cache`` (first in accelerate 0.32.0) from
#   0.15.0, although it declares accelerate>=0.21.0.
# - TRL before 0.8.0 imports ``top_k_top_p_filtering`` from transformers, removed in transformers 4.39.0
#   (huggingface/transformers#29492; TRL copied it in huggingface/trl#1415, first in 0.8.0).
# - TRL imports transformers names its declared ``transformers>=X`` does not guarantee (each read in
#   the release's wheel and the transformers wheels): 0.10.1's ``trainer/utils.py`` imports
#   ``is_torch_mlu_available`` (first in transformers 4.40.0; TRL declares >=4.31.0 until 0.11.0);
#   0.11.x's ``ppov2_trainer.py`` (and ``rloo_trainer.py`` from 0.11.1) imports ``ExportableState``
#   from ``transformers.trainer_callback`` (first in 4.41.0; 0.11.x declares >=4.40.0); and 0.9.6 to
#   0.22.2's ``dpo_trainer.py`` imports ``MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES`` from
#   ``transformers.models.auto.modeling_auto``, gone in transformers 5.0.0 (deprecated by
#   huggingface/transformers#38900), with no upper bound declared (0.12.2 declares <4.47.0 itself;
#   0.23.0 no longer imports it).
# - TRL's trainers before 0.12.0 (0.9.4's SFT, DPO, Reward, KTO, ORPO, CPO, IterativeSFT) pass ``tokenizer=`` to
#   ``transformers.Trainer.__init__``, which 4.46.0 deprecated for ``processing_class`` (huggingface/transformers
#   #32385) and 5.0.0 removed (huggingface/transformers#41128), while TRL declares ``transformers>=4.31.0``
#   (>=4.40.0 from 0.11.0) unbounded: every ``SFTTrainer(...)`` raises TypeError there. Run here on transformers
#   5.0.0 (CPU, Python 3.11, a 1-layer GPT-2 and a word-level tokenizer): TRL 0.8.0, 0.8.6, 0.9.2, 0.9.4,
#   0.9.6, 0.10.1 and 0.11.4 each raise "Trainer.__init__() got an unexpected keyword argument 'tokenizer'"
#   from ``sft_trainer.py``'s ``super().__init__(`` (``from trl import SFTTrainer`` imports lazily, so 0.9.6
#   to 0.11.x reach it before their DPO import below); 0.12.0 passes ``processing_class`` and declares
#   transformers>=4.46.0 (huggingface/trl#2162).
# - accelerate's ``Accelerator`` given a DeepSpeed plugin raises "DeepSpeed version must be >= 0.9.3"
#   below 0.9.3 from 0.21.0 (huggingface/accelerate#1638; 0.20.x checks >= 0.6.5), deepspeed being an extra.
# - accelerate 0.32.x imports ``split_torch_state_dict_into_shards`` from huggingface_hub at import
#   (``accelerator.py``, huggingface/accelerate#2795) while declaring ``huggingface-hub`` unbounded; the
#   name is first in huggingface_hub 0.21.0 (huggingface/huggingface_hub#1938); 0.33.0 declares >=0.21.0.
# - huggingface_hub 0.26.0 removed ``cached_download`` (huggingface/huggingface_hub#2579), which
#   diffusers 0.4.0 to 0.28.x import when ``diffusers`` is imported (``dynamic_modules_utils.py``,
#   through ``pipeline_utils.py``, later ``utils/__init__.py``; dropped by huggingface/diffusers#8419
#   in 0.29.0) and sentence-transformers 2.0.0 to 2.2.2 (``SentenceTransformer.py``; 2.3.0 no longer
#   does, huggingface/sentence-transformers#3001); neither declares an upper bound.
# - sentence-transformers 2.4.0 to 2.6.1 import ``is_nltk_available`` from
#   ``transformers.utils.import_utils`` (first in transformers 4.34.0) on ``import sentence_transformers``
#   (``datasets/DenoisingAutoEncoderDataset.py``) while declaring transformers>=4.32.0; 2.7.0 declares >=4.34.0.
# - transformers' ``is_torch_available`` (``utils/import_utils.py``) disables PyTorch below a floor
#   ("Disabling PyTorch because PyTorch >= X is required but found ..."; every model class then fails)
#   although torch is only an extra: 2.1 from 4.52.0, 2.2 in 5.0.0, 2.4 from 5.1.0, 2.5 from 5.15.0,
#   2.6 from 5.20.0 (each read in the release's wheel; 4.51.x has no such gate).
# - DeepSpeed declares ``torch`` with no bound, yet these releases cannot be imported (or build no op)
#   beside a torch they did not guard for, each read at its tags and fixed in the ``until`` release:
#   0.15.3 calls ``torch.compiler.is_compiling`` (first in torch 2.3) whenever ``torch.compiler`` and
#   ``nn.Module.compile`` exist (torch 2.1 and 2.2 too): ``import deepspeed`` fails there
#   (deepspeedai/DeepSpeed#6656, fixed by #6663 in 0.15.4); 0.17.5 decorates ZenFlow's ``adamw`` with
#   ``torch.optim.optimizer._disable_dynamo_if_unsupported`` (first in torch 2.4), defining no fallback
#   for torch 2.1 to 2.3 (NameError at import; #7514, fixed by #7544 in 0.17.6); 0.18.6 calls
#   ``torch.compile`` at import (``jit_script_compat``, #7835), which torch 2.1 to 2.3 refuse on
#   Python 3.12 (fixed by #7875 in 0.18.7); 0.18.7 and 0.18.8 call ``torch.amp.custom_fwd`` (first in
#   torch 2.4) at import (#7879; fixed by #7920 in 0.18.9); and releases before 0.19.5 build their ops
#   with ``-std=c++17`` (``-std=c++14`` before #3596), which torch 2.12's headers refuse ("C++20 or
#   later compatible compiler is required", #8235; fixed by #8238). The torch facts were read in the
#   torch 2.1.0 to 2.4.0 wheels (torch/compiler, torch/optim/optimizer.py, torch/amp, torch/__init__.py).
#   Releases before 0.8.2 are :data:`UPPER_BOUNDS`' (torch._six).
# - DeepSpeed, further (each read at its tags and in the torch 2.0.1 to 2.6.0 wheels): from 0.10.1
#   (#4010; before it ``is_torch_elastic_compatible`` was false on torch 2) ``import deepspeed`` reaches
#   ``deepspeed/elasticity/elastic_agent.py`` (through ``runtime/config.py``), whose ``from
#   torch.distributed.elastic.agent.server.api import log, _get_socket_with_port`` fails on torch 2.4,
#   where ``log`` is ``logger`` and ``_get_socket_with_port`` is gone (pytorch/pytorch#125743); ``log``
#   is no longer imported from 0.14.1 (#5346, fixing #5337), ``_get_socket_with_port`` from 0.14.4
#   (#5654, fixing #5603). Before 0.9.3 the ops are built with ``-std=c++14``, which torch 2.1's headers
#   refuse ("C++17 or later compatible compiler is required to use PyTorch", pytorch/pytorch#102082;
#   fixed by #3596). Before 0.16.0 ``TorchCheckpointEngine.load`` calls ``torch.load`` without
#   ``weights_only``, which torch 2.6 defaults to True, so ``load_checkpoint`` fails on DeepSpeed's own
#   pickled classes ("Unsupported global: GLOBAL deepspeed.runtime.fp16.loss_scaler.LossScaler";
#   ``weights_only=False`` from #6751) — no row: only resuming fails (training, saving work, and
#   ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` avoids it), so the stack is not broken as a whole. From 0.18.9 ``runtime/engine.py`` imports AutoSP
#   (``compile/init_sp.py``, #7860), whose ``compile/custom_ops/all_to_all.py`` calls
#   ``torch.library.custom_op`` and ``register_fake`` (first in torch 2.4) at import, unguarded.
# - DeepSpeed's engine, further (each read at its tags and in the torch 2.0.1, 2.1.0, 2.3.0, 2.4.0 and
#   2.5.0 wheels), failing on every run of the ZeRO stage named although ``import deepspeed`` works:
#   from 0.16.6 (DeepCompile, #7154) ZeRO-3's ``_register_deepspeed_module`` (``runtime/zero/
#   parameter_offload.py``) decorates its module hooks with ``torch.compiler.disable`` unguarded, and
#   ``torch.compiler`` is first in torch 2.1 ("torch.compiler was introduced in torch 2.1", #5096), so
#   ZeRO-3 fails on torch 2.0 (still so in 0.19.5; 0.19.1 declares torch>=2.0.0, which admits 2.0).
#   0.18.3 to 0.18.6 (#7665) call ``count_used_parameters_in_backward`` from ZeRO 1-3's gradient
#   hooks, whose ``torch.autograd.graph._get_grad_fn_or_grad_acc`` (torch 2.3 and 2.4) takes
#   ``t.view_as(t).grad_fn.next_functions`` without grad mode, which backward hooks run without:
#   "'NoneType' object has no attribute 'next_functions'" (#7830 on torch 2.3.0; torch 2.5.0 wraps
#   it in ``torch.enable_grad()``; fixed by #7841 in 0.18.7).
# - DeepSpeed from 0.18.3 (#7648; still in 0.19.5) imports ``runtime/zero/muon/original_muon.py`` on
#   ``import deepspeed`` (through ``runtime/zero/utils.py``, which catches only ImportError), whose
#   ``@compiler.compile()`` is ``torch.compile`` applied at import; torch raises there on a Python its
#   Dynamo does not support (read in the torch 2.0.1 to 2.6.0 wheels, ``torch/__init__.py`` and
#   ``_dynamo/eval_frame.py``): 2.0 on Python >= 3.11 ("Python 3.11+ not yet supported for
#   torch.compile"; 3.11 from 2.1, pytorch/pytorch#104918), 2.1 to 2.3 on >= 3.12 ("Dynamo is not
#   supported on Python 3.12+"; the 0.18.6 row's message, #7875), 2.4 and 2.5 on >= 3.13 (3.13 from
#   2.6, https://github.com/pytorch/pytorch/releases/tag/v2.6.0). Run here: 0.18.5 on torch 2.0.1/Python 3.11 and 2.3.0/3.12, 0.18.9
#   and 0.19.5 on torch 2.5.1/Python 3.13 fail at import; 0.18.2 imports on each.
# - A scan of every peft release's module-level imports executed by ``import peft`` (against the
#   transformers and accelerate wheels of each minor's .0 release, boundaries read by hand in the
#   wheels) adds: peft 0.5.0's ``utils/other.py`` imports ``is_npu_available`` from ``accelerate.utils``
#   (first in accelerate 0.21.0; absent in 0.20.3) while declaring no accelerate bound (0.6.0 declares
#   >=0.21.0); peft 0.6.1's ``peft_model.py`` imports ``id_tensor_storage`` from
#   ``transformers.pytorch_utils`` (first in transformers 4.30.0; absent in 4.29.2) with transformers
#   unbounded (0.6.2 carries its own copy in ``peft/utils/other.py``).
# - transformers before 4.52 (no "Disabling PyTorch" gate; torch only an extra, ``torch>=2.0`` from 4.50)
#   imports what an older torch lacks on every model class's import (``modeling_utils.py``, read in the
#   4.50.0 to 4.51.3 wheels): from 4.50.0 ``import torch.distributed.tensor`` at module level (the
#   package is first in torch 2.0: absent in the torch 1.13.1 wheel, present in 2.0.1); from 4.51.0 also
#   ``"F8_E4M3": torch.float8_e4m3fn`` in the module-level ``str_to_torch_dtype`` (its later assignments
#   are guarded by ``is_torch_greater_or_equal("2.1.0")``, this one is not), a dtype first in torch 2.1
#   (``c10/core/ScalarType.h`` of the 2.0.1 and 2.1.0 wheels). No row for 4.30 to 4.49: the import-time
#   torch uses of their core modules (modeling_utils, pytorch_utils, utils/generic, generation, cache and
#   attention utils; read in the 4.30.2, 4.36.2, 4.40.2, 4.45.2 and 4.49.0 wheels) are old APIs or guarded
#   (``torch.utils._pytree.register_pytree_node`` behind ``hasattr`` in 4.37.x and a torch >= 2.2 test from
#   4.38.0; ``torch.distributed.tensor`` names behind >= 2.5); per-model code was not scanned.
# - basicsr (all releases to its last, 1.4.2) imports ``rgb_to_grayscale`` from
#   ``torchvision.transforms.functional_tensor`` (``basicsr/data/degradations.py``), reached on ``import
#   basicsr`` from 1.4.0 (``data/realesrgan_dataset.py`` and ``models/realesr*_model.py``, imported by
#   the packages' registry scans; read in the 1.3.5, 1.4.0 and 1.4.2 sdists), while declaring
#   ``torchvision`` unbounded; torchvision 0.17.0 removed the module ("We removed the
#   torchvision.transforms.functional_tensor.py and torchvision.transforms.functional_pil.py modules",
#   https://github.com/pytorch/vision/releases/tag/v0.17.0; deprecated by pytorch/vision#7269 in 0.15;
#   read in the 0.16.2 and 0.17.0 wheels). BasicSR fixed it after 1.4.2 (XPixelGroup/BasicSR#650, 2024,
#   unreleased).
#   pytorchvideo 0.1.2 to 0.1.5 (its last release) import the module as ``F_t`` in
#   ``transforms/augmentations.py``, reached by ``import pytorchvideo.transforms`` (``augmix.py``; read in
#   the 0.1.0 to 0.1.5 sdists), declaring no torchvision requirement at all; fixed after 0.1.5 by
#   facebookresearch/pytorchvideo@eb04d1b (2023, unreleased).
# - torchvision 0.2.1 to 0.4.x import ``PILLOW_VERSION`` from PIL (``transforms/functional.py``, on
#   ``import torchvision``; read in the 0.2.0 to 0.5.0 wheels; 0.5.0 imports ``__version__``,
#   pytorch/vision#1501), which Pillow 7.0.0 removed, 7.1.0 restored (deprecated, through a module
#   ``__getattr__``) and 9.0.0 removed again (read in the Pillow 6.2.2, 7.0.0, 7.1.0, 8.4.0 and 9.0.0
#   wheels' ``PIL/__init__.py``); pytorch/vision#1712 is the maintainers' report.
# - The RL / fine-tuning frameworks' own vLLM and DeepSpeed gates (raising ones only), on the rollout or
#   training path, where their metadata declares the dependency unbounded or only as an extra:
#   verl's ``verl/third_party/vllm/__init__.py`` (imported by the vLLM rollout and its sharding managers)
#   raises ValueError for a vLLM it has no branch for, comparing the version *string*: 0.1 (whose PyPI
#   metadata names no vllm; read in its wheel) accepts exactly "0.3.1", "0.4.2", "0.5.4" and "0.6.3"; 0.2
#   to 0.2.0.post2 (PyPI: ``vllm<=0.6.3``, 0.2.0.post1 ``<=0.6.3.post1``) accept those or ``>=
#   0.6.6.post2.dev252+g8027a724`` (so AMD's "0.6.3+rocm624" and 0.6.3.post1 fail); 0.3.0.post0 and
#   0.3.0.post1 add "0.6.3+rocm624" and move the floor to 0.7.0, raising only when SGLang is not installed
#   (with SGLang the vLLM rollout fails later, importing the ``LLM`` the gate did not define); 0.4.x
#   accept "0.5.4", any string starting "0.6.3", or >= 0.7.0;
#   0.5.0 to 0.8.0 (read at the tags and in the 0.8.0 wheel) need >= 0.7.0 (0.5.4 and 0.6.3: "support has
#   been removed", whether or not SGLang is installed; from 0.6.0 an Ascend NPU skips the gate); 0.9.0 and
#   0.9.1 (read in their wheels) need >= 0.18.0. vLLM is only an extra from 0.3.0.post0.
#   OpenRLHF asserts a vLLM floor when it creates its vLLM engines (``LLMRayActor.__init__``, from 0.5.8
#   ``create_vllm_engines``), vLLM being only an extra (``vllm`` pinned, ``vllm_latest`` unbounded above):
#   0.2.6 ">= 0.4.1", 0.5.2 ">= 0.4.2", 0.5.8 ">= 0.7.0", 0.6.0.post3 ">= 0.7.2", 0.6.3 ">= 0.8.1", 0.8.1
#   "> 0.8.2" — all comparing ``vllm.__version__`` as a string until 0.8.8 (OpenRLHF/OpenRLHF@b1e937b,
#   "bump vllm and transformers version", switched to ``version.parse``), so vLLM 0.10 and later ("0.10.0"
#   < "0.8.2" as strings) fail those releases too, although their ``vllm_latest`` extra admits them; 0.8.8
#   to 0.9.0 need > 0.8.2 as versions; from 0.9.1 (OpenRLHF/OpenRLHF#1152; still in the 0.11.2 wheel)
#   ``_configure_vllm_env`` asserts > 0.8.5 ("Streaming VLLM version must be greater than 0.8.5").
#   LLaMA-Factory 0.9.3, when the run has a DeepSpeed config, calls ``check_version("deepspeed>=0.10.0,
#   <=0.16.9", mandatory=True)`` (``hparams/parser.py``; transformers' ``require_version`` text), which
#   ``DISABLE_VERSION_CHECK`` does not skip; deepspeed is only its extra. Not tabled: LLaMA-Factory's
#   ``check_dependencies`` (transformers/datasets/accelerate/peft/trl ranges, 0.6.0 to 0.9.5) and its
#   vLLM/SGLang ranges are skipped when ``DISABLE_VERSION_CHECK=1`` (``mandatory=False``), a condition a
#   row cannot state (a marker cannot read the environment); TRL's vLLM range (``is_vllm_available``, read
#   at 0.24.0 to 0.27.0 and 1.9.0) and ROLL's (``roll/third_party/vllm/__init__.py`` at v0.3.0) only warn;
#   unsloth's raising checks sit outside what its metadata admits (read in the 2024.12.1, 2025.3.1, 2025.6.1,
#   2025.9.1, 2025.12.1, 2026.3.1, 2026.6.1 and 2026.10.1 wheels): its torch/xformers pairs
#   (``models/_utils.py``) refuse only torch < 2.4, and it declares torch>=2.4.0; its datasets 4.4.0-4.5.0
#   refusal (``import_fixes.py``, added in 2025.11) is excluded by its declared datasets range. Not tabled
#   either: unsloth before 2024.12.1 (2024.8 declares no torch and refuses torch 1.x), its SM100-with-vLLM
#   check (it needs the GPU, not a version).
# - transformers' Trainer passes keyword arguments to accelerate that the accelerate it admits does not
#   take (accelerate is only an extra; the Trainer's floors above have no ceiling). 4.32.0 to 4.37.x call
#   ``Accelerator(dispatch_batches=self.args.dispatch_batches, ...)`` in ``create_accelerator_and_postprocess``
#   (``trainer.py``; 4.31.0 does not), and 4.38.x and 4.39.x ``Accelerator(**accelerator_config)``, whose
#   ``AcceleratorConfig`` always holds ``split_batches``, ``dispatch_batches``, ``even_batches`` and
#   ``use_seedable_sampler`` (``training_args.py`` sets it when unset; 4.40.0 passes a
#   ``DataLoaderConfiguration`` when accelerate >= 0.28.0); accelerate 1.0.0 removed all but
#   ``split_batches`` from ``Accelerator.__init__`` (deprecated by huggingface/accelerate#2441; "Passing in
#   `dispatch_batches`, ... to the `Accelerator()` should now be handled by ... `DataLoaderConfiguration()`",
#   https://github.com/huggingface/accelerate/releases/tag/v1.0.0), so every ``Trainer(...)`` raises
#   TypeError on accelerate >= 1.0 (read in the 4.31.0, 4.32.0, 4.33.0, 4.36.2, 4.37.0, 4.38.0, 4.38.2,
#   4.39.0, 4.39.3 and 4.40.0 wheels and the accelerate 0.34.2 and 1.0.0 wheels). From 4.52.0 (not in 4.51.3)
#   ``Trainer._wrap_model``, run by every ``train()``, ``evaluate()`` and ``predict()``, calls
#   ``self.accelerator.unwrap_model(model, keep_torch_compile=False)`` unguarded (still in 5.24.0), an
#   argument first in accelerate 1.3.0 (huggingface/accelerate#3282; absent in the 1.2.1 wheel), while
#   transformers admits accelerate >= 0.26.0 (4.52 to 4.57) and >= 1.1.0 (5.x).
# Rows of one package and dependency do not overlap in the releases they cover, or, where they do
# (DeepSpeed's), the first row that rejects the installed version is the one reported (import failures
# first, then op builds, then the engine's ZeRO hooks), so one pair is reported once. Earlier floors are not tabled.
RUNTIME_MINIMUMS: dict[str, tuple[RuntimeRow, ...]] = {
    "transformers": (
        RuntimeRow("4.31.0", "deepspeed>=0.9.3", "https://github.com/huggingface/transformers/pull/24541"),
        RuntimeRow("4.30.0", "accelerate>=0.20.1", f"{_TF}v4.30.0/src/transformers/training_args.py", "4.37.0"),
        RuntimeRow("4.37.0", "accelerate>=0.21.0", f"{_TF}v4.37.0/src/transformers/utils/import_utils.py", "4.45.0"),
        RuntimeRow("4.45.0", "accelerate>=0.26.0", f"{_TF}v4.45.0/src/transformers/utils/import_utils.py", "5.0.0"),
        RuntimeRow(
            "5.0.0",
            "accelerate>=1.1.0",
            f"{_TF}v5.0.0/src/transformers/utils/import_utils.py",
            message=r"requires `accelerate>=1\.1\.0`",
        ),
        RuntimeRow("4.33.0", "peft>=0.5.0", f"{_TF}v4.33.0/src/transformers/integrations/peft.py", "5.0.0"),
        RuntimeRow(
            "5.0.0",
            "peft>=0.18.0",
            f"{_TF}v5.0.0/src/transformers/integrations/peft.py",
            message=r"The version of PEFT you are using is not compatible, please use a version >= ?0\.18\.0",
        ),
        # an API's existence before the 4.52 gate: a development build of the torch named has it
        RuntimeRow("4.50.0", "torch>=2.0.0a0", f"{_TF}v4.50.0/{_TF_MODELING}#L40", "4.51.0", _NO_DTENSOR_PKG),
        RuntimeRow(
            "4.51.0",
            "torch>=2.1.0a0",
            f"{_TF}v4.51.0/{_TF_MODELING}#L487",
            "4.52.0",
            rf"module 'torch' has no attribute 'float8_e4m3fn'|{_NO_DTENSOR_PKG}",
        ),
        RuntimeRow("4.52.0", "torch>=2.1", f"{_TF}v4.52.0/{_TF_IMPORT}", "5.0.0", _NO_TORCH.format(r"2\.1")),
        RuntimeRow("5.0.0", "torch>=2.2", f"{_TF}v5.0.0/{_TF_IMPORT}", "5.1.0", _NO_TORCH.format(r"2\.2")),
        RuntimeRow("5.1.0", "torch>=2.4", f"{_TF}v5.1.0/{_TF_IMPORT}", "5.15.0", _NO_TORCH.format(r"2\.4")),
        RuntimeRow("5.15.0", "torch>=2.5", f"{_TF}v5.15.0/{_TF_IMPORT}", "5.20.0", _NO_TORCH.format(r"2\.5")),
        RuntimeRow("5.20.0", "torch>=2.6", f"{_TF}v5.20.0/{_TF_IMPORT}", message=_NO_TORCH.format(r"2\.6")),
        # Trainer(...) passes Accelerator arguments accelerate 1.0.0 removed (after the floors above, which
        # are reported first for an accelerate below them)
        RuntimeRow(
            "4.32.0",
            "accelerate<1.0.0",
            f"{_TF}v4.32.0/src/transformers/trainer.py#L3884",
            "4.38.0",
            _ACC_KWARG.format("__init__", "dispatch_batches"),
        ),
        RuntimeRow(
            "4.38.0",
            "accelerate<1.0.0",
            f"{_TF}v4.38.0/src/transformers/trainer.py#L4130",
            "4.40.0",
            _ACC_KWARG.format("__init__", "dispatch_batches"),
        ),
        # train()/evaluate()/predict() (Trainer._wrap_model) pass keep_torch_compile, first in accelerate 1.3.0
        RuntimeRow(
            "4.52.0",
            "accelerate>=1.3.0",
            f"{_TF}v4.52.0/src/transformers/trainer.py#L1990",
            message=_ACC_KWARG.format("unwrap_model", "keep_torch_compile"),
        ),
    ),
    "peft": (
        RuntimeRow(
            "0.14.0",
            "transformers>=4.43.0",
            f"{_PEFT}v0.14.0/src/peft/peft_model.py#L37",
            "0.16.0",
            r"cannot import name 'EncoderDecoderCache' from 'transformers'",
        ),
        RuntimeRow(
            "0.16.0",
            "transformers>=4.44.0,<5.0.0",
            f"{_PEFT}v0.16.0/src/peft/peft_model.py#L37",
            "0.18.0",
            r"cannot import name '(?:EncoderDecoderCache|HybridCache)' from 'transformers'",
        ),
        RuntimeRow(
            "0.18.0",
            "transformers>=4.52.0",
            f"{_PEFT}v0.18.0/src/peft/tuners/lora/model.py#L26",
            message=r"No module named 'transformers\.modeling_layers'",
        ),
        RuntimeRow(
            "0.15.0",
            "accelerate>=0.32.0",
            f"{_PEFT}v0.15.0/src/peft/utils/loftq_utils.py#L25",
            message=r"cannot import name 'clear_device_cache' from 'accelerate\.utils(?:\.memory)?'",
        ),
        RuntimeRow("0.5.0", "accelerate>=0.21.0", f"{_PEFT}v0.5.0/src/peft/utils/other.py#L24", "0.6.0"),
        RuntimeRow("0.6.1", "transformers>=4.30.0", f"{_PEFT}v0.6.1/src/peft/peft_model.py#L35", "0.6.2"),
    ),
    "trl": (
        RuntimeRow(
            "0.2.0",
            "transformers<4.39.0",
            "https://github.com/huggingface/trl/pull/1415",
            "0.8.0",
            r"cannot import name 'top_k_top_p_filtering' from 'transformers'",
        ),
        # every SFTTrainer(...): Trainer.__init__(tokenizer=...), gone in transformers 5.0.0
        RuntimeRow(
            "0.8.0",
            "transformers<5.0.0",
            f"{_TRL}v0.9.4/trl/trainer/sft_trainer.py#L408",
            "0.9.6",
            _TRAINER_TOKENIZER,
        ),
        RuntimeRow(
            "0.9.6",
            "transformers<5.0.0",
            f"{_TRL}v0.9.6/trl/trainer/dpo_trainer.py#L40",
            "0.10.1",
            rf"{_VISION2SEQ}|{_TRAINER_TOKENIZER}",
        ),
        RuntimeRow(
            "0.10.1",
            "transformers>=4.40.0,<5.0.0",
            f"{_TRL}v0.10.1/trl/trainer/utils.py#L40",
            "0.11.0",
            rf"cannot import name 'is_torch_mlu_available' from 'transformers(?:\.utils)?'|{_VISION2SEQ}"
            rf"|{_TRAINER_TOKENIZER}",
        ),
        RuntimeRow(
            "0.11.0",
            "transformers>=4.41.0,<5.0.0",
            f"{_TRL}v0.11.0/trl/trainer/ppov2_trainer.py#L42",
            "0.12.0",
            # no report of 0.11's ExportableState import found: that half has no message
            rf"{_VISION2SEQ}|{_TRAINER_TOKENIZER}",
        ),
        RuntimeRow("0.12.0", "transformers<5.0.0", _TRL_DPO, "0.12.2", _VISION2SEQ),
        RuntimeRow("0.13.0", "transformers<5.0.0", _TRL_DPO, "0.23.0", _VISION2SEQ),
    ),
    "accelerate": (
        RuntimeRow(
            "0.32.0",
            "huggingface-hub>=0.21.0",
            f"{_ACC}v0.32.0/src/accelerate/accelerator.py#L34",
            "0.33.0",
            r"cannot import name 'split_torch_state_dict_into_shards' from 'huggingface_hub'",
        ),
        RuntimeRow(
            "0.21.0",
            "deepspeed>=0.9.3",
            f"{_ACC}v0.21.0/src/accelerate/accelerator.py#L289",
            message=r"DeepSpeed version must be >= ?0\.9\.3",
        ),
    ),
    "diffusers": (
        RuntimeRow(
            "0.4.0",
            "huggingface-hub<0.26.0",
            "https://github.com/huggingface/diffusers/pull/8419",
            "0.29.0",
            _CACHED_DOWNLOAD,
        ),
    ),
    "sentence-transformers": (
        RuntimeRow(
            "2.0.0",
            "huggingface-hub<0.26.0",
            f"{_ST}v2.2.2/sentence_transformers/SentenceTransformer.py#L12",
            "2.3.0",
            _CACHED_DOWNLOAD,
        ),
        RuntimeRow(
            "2.4.0",
            "transformers>=4.34.0",
            f"{_ST}v2.4.0/sentence_transformers/datasets/DenoisingAutoEncoderDataset.py#L5",
            "2.7.0",
            r"cannot import name 'is_nltk_available' from 'transformers\.utils\.import_utils'",
        ),
    ),
    "basicsr": (
        RuntimeRow(
            "1.4.0",
            "torchvision<0.17",
            "https://github.com/XPixelGroup/BasicSR/blob/v1.4.2/basicsr/data/degradations.py#L8",
            message=_FUNCTIONAL_TENSOR,
        ),
    ),
    "pytorchvideo": (
        RuntimeRow(
            "0.1.2",
            "torchvision<0.17",
            "https://github.com/facebookresearch/pytorchvideo/blob/0.1.3/pytorchvideo/transforms/augmentations.py#L9",
            message=_FUNCTIONAL_TENSOR,
        ),
    ),
    "torchvision": (
        RuntimeRow(
            "0.2.1",
            "pillow!=7.0.*,<9.0.0",
            "https://github.com/pytorch/vision/pull/1501",
            "0.5.0",
            r"cannot import name 'PILLOW_VERSION'",
        ),
    ),
    "verl": (
        RuntimeRow(
            "0.1",
            f"vllm>=0.3.1,<=0.6.3,{_VERL_REFUSED},!=0.6.3+rocm624",
            f"{_VERL}v0.1/{_VERL_GATE}#L49",
            "0.2",
            r"vllm version \S+ not supported\. Currently supported versions are 0\.3\.1, 0\.4\.2, 0\.5\.4 "
            r"and 0\.6\.3\.",
        ),
        RuntimeRow(
            "0.2",
            f"vllm>=0.3.1,{_VERL_REFUSED},!=0.6.3+rocm624,!=0.6.6,!=0.6.6.post1",
            f"{_VERL}v0.2/{_VERL_GATE}#L58",
            "0.3.0.post0",
            r"vllm version \S+ not supported\. Currently supported versions are 0\.3\.1, 0\.4\.2, 0\.5\.4, 0\.6\.3 "
            r"and 0\.7\.0\+",
        ),
        # raises only without SGLang (see the comment above RUNTIME_MINIMUMS)
        RuntimeRow(
            "0.3.0.post0",
            f"vllm>=0.3.1,{_VERL_REFUSED},!=0.6.6.*",
            f"{_VERL}v0.3.0.post0/{_VERL_GATE}#L64",
            "0.4.0",
            rf"{_VERL_NO_SGLANG}0\.3\.1, 0\.4\.2, 0\.5\.4, 0\.6\.3 and 0\.7\.0\+",
        ),
        RuntimeRow(
            "0.4.0",
            "vllm>=0.5.4,!=0.5.5,!=0.6.0,!=0.6.1.*,!=0.6.2,!=0.6.4.*,!=0.6.5,!=0.6.6.*",
            f"{_VERL}v0.4.0/{_VERL_GATE}#L51",
            "0.5.0",
            rf"{_VERL_NO_SGLANG}0\.6\.3 and 0\.7\.0\+",
        ),
        RuntimeRow(
            "0.5.0",
            "vllm>=0.7.0",
            f"{_VERL}v0.5.0/{_VERL_GATE}#L45",
            "0.9.0",
            rf"{_VERL_NO_SGLANG}0\.7\.0\+|vLLM version \S+ support has been removed",
        ),
        RuntimeRow("0.9.0", "vllm>=0.18.0", f"{_VERL}v0.9.0/{_VERL_GATE}", message=rf"{_VERL_NO_SGLANG}0\.18\.0\+"),
    ),
    # string comparisons of vllm.__version__ before 0.8.8: "0.10.0" and later sort below each floor
    "openrlhf": (
        RuntimeRow(
            "0.2.6",
            "vllm>=0.4.1,<0.10",
            f"{_ORLHF}v0.2.6/{_ORLHF_ENGINE}#L18",
            "0.5.2",
            r"OpenRLHF only supports vLLM >= 0\.4\.1",
            compared="string",
        ),
        RuntimeRow(
            "0.5.2",
            "vllm>=0.4.2,<0.10",
            f"{_ORLHF}v0.5.2/{_ORLHF_ENGINE}#L25",
            "0.5.8",
            r"OpenRLHF only supports vLLM >= 0\.4\.2",
            compared="string",
        ),
        RuntimeRow(
            "0.5.8",
            "vllm>=0.7.0,<0.10",
            f"{_ORLHF}v0.5.8/{_ORLHF_ENGINE}#L117",
            "0.6.0.post3",
            r"OpenRLHF only supports vllm >= 0\.7\.0",
            compared="string",
        ),
        RuntimeRow(
            "0.6.0.post3",
            "vllm>=0.7.2,<0.10",
            f"{_ORLHF}v0.6.0.post3/{_ORLHF_ENGINE}#L124",
            "0.6.3",
            r"OpenRLHF only supports vllm >= 0\.7\.2",
            compared="string",
        ),
        RuntimeRow(
            "0.6.3",
            "vllm>=0.8.1,<0.10",
            f"{_ORLHF}v0.6.3/{_ORLHF_ENGINE}#L129",
            "0.8.1",
            r"OpenRLHF only supports vllm >= 0\.8\.1",
            compared="string",
        ),
        RuntimeRow(
            "0.8.1",
            "vllm>0.8.2,<0.10",
            f"{_ORLHF}v0.8.1/{_ORLHF_ENGINE}#L123",
            "0.8.8",
            r"OpenRLHF only supports vllm > 0\.8\.2",
            compared="string",
        ),
        RuntimeRow(
            "0.8.8",
            "vllm>0.8.2",
            "https://github.com/OpenRLHF/OpenRLHF/commit/b1e937bffa4a77319e62f427e9379200cb1a9fd7",
            "0.9.1",
            r"OpenRLHF only supports vllm > 0\.8\.2",
            compared="version",
        ),
        RuntimeRow(
            "0.9.1",
            "vllm>=0.8.5.post0",  # version.parse > 0.8.5, which 0.8.5.post1 is (a ">0.8.5" specifier excludes it)
            f"{_ORLHF}v0.9.1/{_ORLHF_ENGINE}#L86",
            message=r"Streaming VLLM version must be greater than 0\.8\.5",
            compared="version",
        ),
    ),
    # session 29: xFormers' own check of an installed flash-attn (xformers/ops/fmha/flash.py, read in every PyPI wheel
    # 0.0.27-0.0.35). Its wheels stopped carrying their own FlashAttention-2 (_C_flashattention) from 0.0.27.post1; from
    # 0.0.30 the check sits in an if/elif chain, so `import xformers.ops` raises on every platform wherever flash_attn
    # is installed outside the range (0.0.27.post1-0.0.29.x caught it and fell back to torch's kernels on CUDA: not
    # tabled). Up to 0.0.31.post1 it compares the first three numbers (2.8.0.post2 is 2.8.0), from 0.0.32 packaging's
    # Version (2.8.2.post1 is above 2.8.2). XFORMERS_IGNORE_FLASH_VERSION_CHECK=1 skips it (skipped_by).
    "xformers": tuple(
        RuntimeRow(since, f"flash-attn{bounds}", f"{_XF}{tag}/{_XF_FLASH}", until, _XF_MESSAGE, skipped_by=_XF_SKIP)
        for since, bounds, tag, until in (
            ("0.0.30", ">=2.7.1,<2.7.5", "v0.0.30", "0.0.31"),
            ("0.0.31", ">=2.7.1,<2.8.1", "v0.0.31", "0.0.32"),
            ("0.0.32", ">=2.7.1,<=2.8.2", "v0.0.32.post1", "0.0.33"),
            ("0.0.33", ">=2.7.1,<=2.8.4", "v0.0.33", "0.0.36"),
        )
    ),
    # a run with a DeepSpeed config; mandatory=True: DISABLE_VERSION_CHECK does not skip it
    "llamafactory": (
        RuntimeRow(
            "0.9.3",
            "deepspeed>=0.10.0,<=0.16.9",
            "https://github.com/hiyouga/LLaMA-Factory/blob/v0.9.3/src/llamafactory/hparams/parser.py#L175",
            "0.9.4",
            r"deepspeed>=0\.10\.0,<=0\.16\.9 is required for a normal functioning of this module, but found "
            r"deepspeed==",
        ),
    ),
    "deepspeed": (
        RuntimeRow(
            "0.10.1",
            "torch<2.4",
            f"{_DS}pull/5346",
            "0.14.1",
            rf"cannot import name '(?:log|_get_socket_with_port)' {_ELASTIC}",
        ),
        RuntimeRow(
            "0.14.1",
            "torch<2.4",
            f"{_DS}pull/5654",
            "0.14.4",
            rf"cannot import name '_get_socket_with_port' {_ELASTIC}",
        ),
        RuntimeRow(
            "0.8.2",
            "torch<2.1",
            f"{_DS}pull/3596",
            "0.9.3",
            r"C\+\+17 or later compatible compiler is required to use PyTorch",
        ),
        RuntimeRow(
            "0.15.3",
            "torch!=2.1.*,!=2.2.*",
            f"{_DS}pull/6663",
            "0.15.4",
            r"module 'torch\.compiler' has no attribute 'is_compiling'",
        ),
        RuntimeRow(
            "0.17.5",
            "torch!=2.1.*,!=2.2.*,!=2.3.*",
            f"{_DS}pull/7544",
            "0.17.6",
            r"name '_disable_dynamo_if_unsupported' is not defined",
        ),
        # an API's existence: a 2.4 development build (NGC's 2.4.0a0+…nv24.07, ROCm's 2.4.0a0+git…) has it
        RuntimeRow(
            "0.18.6",
            'torch>=2.4.0a0; python_version >= "3.12"',
            f"{_DS}pull/7875",
            "0.18.7",
            r"Dynamo is not supported on Python 3\.12\+",
        ),
        RuntimeRow(
            "0.18.7",
            "torch>=2.4.0a0",
            f"{_DS}pull/7920",
            "0.18.9",
            r"module 'torch\.amp' has no attribute 'custom_fwd'",
        ),
        RuntimeRow(
            "0.8.2",
            "torch<2.12",
            f"{_DS}pull/8238",
            "0.19.5",
            r"C\+\+20 or later compatible compiler is required to use PyTorch",
        ),
        RuntimeRow(
            "0.18.9",
            "torch>=2.4.0a0",
            f"{_DS}pull/7860",
            message=r"module 'torch\.library' has no attribute '(?:custom_op|register_fake)'",
        ),
        # Muon's @torch.compile at import from 0.18.3, which torch refuses on a Python its Dynamo lacks
        RuntimeRow(
            "0.18.3",
            'torch>=2.1.0a0; python_version >= "3.11"',
            _MUON,
            message=r"Python 3\.11\+ not yet supported for torch\.compile",
        ),
        RuntimeRow(
            "0.18.3",
            'torch>=2.4.0a0; python_version >= "3.12"',
            _MUON,
            message=r"Dynamo is not supported on Python 3\.12\+",
        ),
        RuntimeRow(
            "0.18.3",
            'torch>=2.6.0a0; python_version >= "3.13"',
            _MUON,
            message=r"Dynamo is not supported on Python 3\.13\+",
        ),
        # Not at import but on every run of the engine they name (see the comment above RUNTIME_MINIMUMS):
        # ZeRO-3's module hooks decorated with torch.compiler.disable from 0.16.6 (torch 2.0 has no
        # torch.compiler; a 2.1 development build may have it)
        RuntimeRow(
            "0.16.6",
            "torch>=2.1.0a0",
            f"{_DS}blob/v0.16.6/deepspeed/runtime/zero/parameter_offload.py#L295",
            message=r"module 'torch' has no attribute 'compiler'",
        ),
        # ZeRO 1-3's gradient hooks count the parameters in backward with torch's
        # _get_grad_fn_or_grad_acc, which needs grad mode on torch 2.3 and 2.4 (it enables it from 2.5)
        RuntimeRow(
            "0.18.3",
            "torch!=2.3.*,!=2.4.*",
            f"{_DS}pull/7841",
            "0.18.7",
            r"'NoneType' object has no attribute 'next_functions'",
        ),
    ),
}

# libraries' own Triton kernels (triton_api_rows.py), merged per package
for _dist, _rows in TRITON_API_ROWS.items():
    RUNTIME_MINIMUMS[_dist] = (*RUNTIME_MINIMUMS.get(_dist, ()), *_rows)


def runtime_minimums(dist: str, version: str) -> list[RuntimeRow]:
    """The :data:`RUNTIME_MINIMUMS` rows whose release range holds this release."""
    v = coerce_version(version)
    if v is None:
        return []
    return [
        row
        for row in RUNTIME_MINIMUMS.get(dist, ())
        if Version(row.since) <= v and (row.until is None or v < Version(row.until))
    ]


# Releases before the generated data (2023): the PyTorch Versions table of domain libraries.
_HISTORY_SOURCE = "https://github.com/pytorch/pytorch/wiki/PyTorch-Versions"
TORCHVISION_HISTORY: dict[str, str] = {
    "0.2.2": "1.0",
    "0.3": "1.1",
    "0.4.0": "1.2",
    "0.4.1": "1.3",
    "0.4.2": "1.3",
    "0.5": "1.4",
    "0.6": "1.5",
    "0.7": "1.6",
    "0.8": "1.7",
    "0.9": "1.8",
    "0.10": "1.9",
    "0.11": "1.10",
    "0.12": "1.11",
    "0.13": "1.12",
    "0.14": "1.13",
}


# Releases that declare no torch bound but cannot run on a newer torch, each from its fix:
# DeepSpeed before 0.8.2 imports torch._six, which torch 2.0 removed.
UPPER_BOUNDS: dict[str, tuple[str, str, str]] = {
    "deepspeed": ("0.8.2", "torch<2.0", "https://github.com/microsoft/DeepSpeed/pull/2863"),
}


def domain_pairing(dist: str, version: str) -> tuple[tuple[str, ...], str] | None:
    """The torch a release needs where the generated data cannot say: a pre-2023 torchvision, a release
    fixed only later (:data:`UPPER_BOUNDS`). Nightlies are :mod:`declared_pins`' (from :mod:`nightly_pins`).
    """
    if dist in UPPER_BOUNDS:
        fixed_in, requirement, source = UPPER_BOUNDS[dist]
        v = coerce_version(version)
        return ((requirement,), source) if v is not None and v < Version(fixed_in) else None
    if dist != "torchvision" or nightly_requirement(dist, version) is not None:
        return None  # a nightly: declared_pins answers from nightly_pins, as for torchaudio's
    v = coerce_version(version)
    if v is None or v.major != 0 or v.minor >= 15:
        return None
    series = TORCHVISION_HISTORY.get(".".join(map(str, v.release[:3]))) or TORCHVISION_HISTORY.get(f"0.{v.minor}")
    if series is None:
        return None
    torch_major, torch_minor = series.split(".")
    return (f"torch>={torch_major}.{torch_minor},<{torch_major}.{int(torch_minor) + 1}",), _HISTORY_SOURCE


# Rows generated from the released wheels (tools/import_scan.py), merged per package: a hand-written row that
# states one whole (its requirement, all its releases, its failure) wins (import_scan_rows.without_hand_written).
# A generated row's message is CPython's own text for the
# exact name and module the release imports (``cannot import name 'X' from 'pkg.mod'``, ``No module named
# 'pkg.mod'``; tests/knowledge/test_requirements_unnamed.py checks each is that template), so it is predicted
# for a stack that does not name the dependent package too, as a hand row's quoted message is.
from pytest_rocmcompat.knowledge.checks.import_scan_rows import import_scan_rows, without_hand_written  # noqa: E402

for _dist, _rows in import_scan_rows().items():
    _hand = RUNTIME_MINIMUMS.get(_dist, ())
    RUNTIME_MINIMUMS[_dist] = (*_hand, *without_hand_written(_rows, _hand))

"""``apex-rocm-build``: apex on a ROCm stack is a source build the stack cannot vouch for.

No apex wheel serves ROCm. NVIDIA's apex (version ``0.1``) has no ROCm branch in its ``setup.py``
(NVIDIA_SETUP: every extension option calls ``raise_if_cuda_home_none``, and a ROCm torch has no
``CUDA_HOME``, so ``--cuda_ext`` ends in "--cuda_ext was requested, but nvcc was not found"); PyPI's
``apex`` is another project (:mod:`pypi_namesake`). AMD's ROCm/apex (``1.N.0``) is built from its
repository, one branch per torch release: its README's *Supported Versions* table pairs apex
``1.N.0`` (``release/1.N.0``) with torch ``2.N``, and ``1.0.0`` with ``2.0 and older`` (ROCM_README);
from 1.x its ops are compiled by torch's JIT loader when first imported, so a missing HIP compiler
or a branch made for another torch fails there ("Error building extension 'fused_layer_norm_cuda'").

What fails is apex's compiled part: its extension modules missing (``No module named 'amp_C'``,
NVIDIA's and ROCm's module names, :data:`EXTENSIONS`), their build failing, or NVIDIA's setup refusing
a torch without CUDA. A ROCm stack whose tests use apex therefore meets a risk (*uncertain*, its own
messages only) where it lists NVIDIA's ``0.1`` or a ROCm/apex ``1.N`` beside a torch ``2.M`` of another
release (built from a branch made for another torch), and, as one of ``registry.evaluate_risks``'
unnamed packages (:func:`unnamed`), where a stated stack (``--rocm-set``) names no apex: it cannot say a
ROCm/apex with its ops is there (a probed or recorded machine lists what it has). A ROCm/apex of torch's own
release, or an apex the stack does not name as either, is not judged.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import pypi_namesake
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "apex-rocm-build"
ROCM_README = "https://github.com/ROCm/apex/blob/daed85255d51476425080e7e6203f0bee6d7e4cc/README.md#supported-versions"
NVIDIA_SETUP = "https://github.com/NVIDIA/apex/blob/6424da3b4faa6c8f062da4a48c424fff3f02d42d/setup.py#L92-L98"
# the extension modules of NVIDIA/apex's setup.py and ROCm/apex's op_builder (at the commits above)
EXTENSIONS = (
    "amp_C|apex_C|bnp|syncbn|mlp_cuda|fused_dense_cuda|fused_adam_cuda|fused_lamb_cuda|fused_layer_norm_cuda"
    "|fast_layer_norm|fast_multihead_attn|xentropy_cuda|focal_loss_cuda|fused_index_mul_2d|fused_bias_swiglu"
    "|fused_weight_gradient_mlp_cuda|fused_rotary_positional_embedding|fused_conv_bias_relu"
    "|(?:generic_)?scaled_(?:masked_|upper_triang_masked_)?softmax_cuda|distributed_(?:adam|lamb)_cuda"
    "|transducer_(?:joint|loss)_cuda|group_norm(?:_v2)?_cuda|peer_memory_cuda|nccl_p2p_cuda"
)
PREDICTS = (
    rf"No module named '(?:{EXTENSIONS})'|Error building extension '(?:{EXTENSIONS})'"
    r"|--\w+ was requested, but nvcc was not found"
)
_NVIDIA = Version("0.1")
UNNAMED_REASON = (
    "apex on ROCm is only ROCm/apex built from source with its ops (NVIDIA's apex has no ROCm build, PyPI's "
    "'apex' is another project); the stack does not say which apex it has"
)


def check(env: Environment) -> list[Finding]:
    """The risk of a listed apex that is no ROCm/apex of torch's release."""
    stated = env.libraries.get("apex")
    version = coerce_version(stated)
    if env.platform != "rocm" or stated is None or version is None:
        return []
    if pypi_namesake.is_pyramid_apex(version):
        return []  # PyPI's Pyramid toolkit: pypi-namesake's, certain
    reason = _reason(env, stated, version)
    return [] if reason is None else [_finding(reason)]


def unnamed(env: Environment) -> list[Finding]:
    """The risk of a stated ROCm stack naming no apex (``registry.evaluate_risks`` calls it for stated stacks only)."""
    if env.platform != "rocm" or "apex" in env.libraries:
        return []
    return [_finding(UNNAMED_REASON)]


def _finding(reason: str) -> Finding:
    return Finding(
        check=ID,
        reason=reason,
        fix="build ROCm/apex from source on its branch for your torch (release/1.N.0 for torch 2.N), with its ops "
        "(pip install . --no-build-isolation, or APEX_BUILD_CPP_OPS=1 APEX_BUILD_CUDA_OPS=1), not NVIDIA's apex",
        link=ROCM_README,
        uses=("apex",),
        conditional=True,  # only tests that use apex
        uncertain=True,  # a ROCm/apex built with its ops for this torch works
        predicts=PREDICTS,
        signature_only=True,  # apex's compiled part missing or not building: nothing else
    )


def _reason(env: Environment, stated: str, version: Version) -> str | None:
    """Why a listed apex ``stated`` (parsed ``version``) is at risk on this ROCm stack, or ``None``."""
    base = Version(version.base_version)
    if base.release[:2] == _NVIDIA.release[:2]:
        return f"apex {stated} is NVIDIA's, whose setup.py has no ROCm branch: its extensions do not build on ROCm"
    torch = coerce_version(env.torch)
    if base.major != 1 or torch is None or torch.major != 2:
        return None
    pairs = torch.minor <= 0 if base.minor == 0 else torch.minor == base.minor
    if pairs:
        return None
    wanted = "1.0.0" if torch.minor == 0 else f"1.{torch.minor}.0"
    return (
        f"ROCm/apex {stated} is built from its branch for torch {'2.0 and older' if base.minor == 0 else f'2.{base.minor}'}, "
        f"not torch {env.torch} (ROCm/apex {wanted} is)"
    )

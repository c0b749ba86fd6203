"""``extension-built-for-other-torch``: compiled packages built for another GPU runtime major or torch minor.

Stacks as users state them (``--rocm-set lib.X=VERSION+LABEL`` beside ``torch=...``): every label
form below is one a real index or build script writes, with its source. A label naming another
CUDA/ROCm *major* than torch's, or (PyG) another torch minor, is a finding; another *minor* of the
same major, an unlabelled package, or a package that brings its own GPU libraries is not. The
failures such stacks produce (a runtime or math library of the other release is missing) are
matched verbatim from public reports, both ways through real pytest runs.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import extension_torch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

from .test_extension_build import H100, MI300X
from .two_ways import predicted_and_unrelated

# Label forms, each from the source that writes it:
# vLLM: ``+rocm{hip version without dots}[:3]`` / ``+cu{cuda}[:3]`` (0.6.3+rocm624), get_vllm_version in
#   https://github.com/vllm-project/vllm/blob/main/setup.py
# flash-attn v2.6.3: ``+cu{118|123}torch2.4cxx11abiFALSE`` (any CUDA 12 torch gets the cu123 wheel),
#   ``+rocm{major}{minor}torch...``: https://github.com/Dao-AILab/flash-attention/blob/v2.6.3/setup.py
# PyG: ``torch_scatter-2.1.0+pt113cu117`` from data.pyg.org/whl/torch-1.13.0+cu117 (quoted in
#   https://github.com/rusty1s/pytorch_sparse/issues/271), ``torch_scatter-2.1.2+pt21cu118`` and
#   ``torch_sparse-0.6.18+pt21cu118`` from data.pyg.org/whl/torch-2.1.0+cu118
# torchvision/torchaudio: ``0.16.0+rocm5.6`` beside ``torch 2.1.0+rocm5.6``,
#   https://pytorch.org/get-started/previous-versions/
_VLLM = "https://github.com/vllm-project/vllm/blob/main/setup.py"
_FLASH = "https://github.com/Dao-AILab/flash-attention/blob/v2.6.3/setup.py"
_PREVIOUS = "https://pytorch.org/get-started/previous-versions/"


def problems(env: Environment, *assignments: str) -> list[str]:
    """The check's reasons for ``env`` with the ``--rocm-set`` assignments applied."""
    env = apply_overrides(env, list(assignments))
    return [f.reason for f in evaluate(env) if f.check == extension_torch.ID]


# (machine, torch, library as stated, what the finding says or None for silence)
SHAPES: list[tuple[str, str, str, str | None]] = [
    # another ROCm major: the build links libamdhip64.so.5, a ROCm 6 torch brings .so.6
    ("MI300X", "2.5.1+rocm6.2", "vllm=0.6.3+rocm573", "built for ROCm 5"),
    ("MI300X", "2.5.1+rocm6.2", "torchvision=0.16.0+rocm5.6", "built for ROCm 5"),
    ("MI300X", "2.5.1+rocm6.2", "torchaudio=2.1.0+rocm5.6", "built for ROCm 5"),
    ("MI300X", "2.9.0+rocm7.0", "vllm=0.10.1+rocm624", "built for ROCm 6"),
    ("MI300X", "2.5.1+rocm6.2", "flash-attn=2.6.3+rocm57torch2.5cxx11abiFALSE", "built for ROCm 5"),
    # another CUDA major: libcudart.so.11.0 / libcudart.so.12
    ("H100", "2.4.0+cu121", "flash-attn=2.6.3+cu118torch2.4cxx11abiFALSE", "built for CUDA 11"),
    ("H100", "2.4.0+cu118", "flash-attn=2.6.3+cu123torch2.4cxx11abiFALSE", "built for CUDA 12"),
    ("H100", "2.4.0+cu121", "vllm=0.6.3+cu118", "built for CUDA 11"),
    ("H100", "2.4.0+cu121", "mamba-ssm=2.2.2+cu118torch2.4cxx11abiFALSE", "built for CUDA 11"),
    ("H100", "2.1.0+cu121", "torch-scatter=2.1.2+pt21cu118", "built for CUDA 11"),
    # torch-scatter 2.0.3-2.0.5 / torch-sparse 0.6.0-0.6.8 refuse another CUDA minor (their __init__.py);
    # wheels named torch_scatter-2.0.5+cu101, torch_sparse-0.6.8+cu110 (pytorch-geometric.com/whl)
    ("H100", "1.6.0+cu102", "torch-scatter=2.0.5+cu101", "built for CUDA 10.1"),
    ("H100", "1.7.0+cu101", "torch-sparse=0.6.8+cu110", "built for CUDA 11"),  # another major
    ("H100", "1.7.0+cu110", "torch-sparse=0.6.8+cu102", "built for CUDA 10"),
    ("H100", "1.7.0+cu102", "torch-sparse=0.6.8+cu101", "built for CUDA 10.1"),
    ("H100", "1.8.0+cu102", "torch-sparse=0.6.9+cu101", None),  # 0.6.9 on: the major only
    ("H100", "1.8.0+cu102", "torch-scatter=2.0.6+cu101", None),
    # flash-attn's cu12 wheels on a CUDA 13 torch (Dao-AILab/flash-attention#2118: libcudart.so.12 missing)
    ("H100", "2.9.1+cu130", "flash-attn=2.8.3+cu12torch2.9cxx11abiTRUE", "built for CUDA 12"),
    # PyG's wheels are per torch minor: pt23 on torch 2.4
    ("H100", "2.4.0+cu121", "torch-scatter=2.1.2+pt23cu121", "built for torch 2.3"),
    # nothing known: stay silent
    ("MI300X", "2.5.1+rocm6.2", "vllm=0.6.3+rocm624", None),  # same major
    ("MI300X", "2.5.1+rocm6.2", "torchvision=0.20.1+rocm6.1", None),  # another minor of ROCm 6
    ("MI300X", "2.5.1+rocm6.2", "onnxruntime-rocm=1.19.0", None),  # no label
    ("MI300X", "2.5.1+rocm6.2", "mamba-ssm=2.2.2", None),  # no label
    ("MI300X", "2.5.1+rocm6.2", "torchao=0.9.0+rocm6.2", None),  # same major, outside torchao's table
    ("MI300X", "2.5.1+rocm6.2", "pytorch-triton-rocm=3.1.0", None),
    ("MI300X", "2.5.1+rocm6.2", "torch-scatter=2.1.2+pt25cu121", None),  # another vendor: not this check's
    ("H100", "2.4.0+cu124", "vllm=0.6.3+cu121", None),  # CUDA 12 both (minor compatibility)
    ("H100", "2.4.0+cu121", "torch-scatter=2.1.2+pt24cpu", None),  # a CPU build
    ("H100", "2.4.0+cu121", "torch-scatter=2.1.2", None),  # unlabelled (older PyG wheels)
    ("H100", "2.4.0a0+git32f93b1", "vllm=0.6.3+cu118", None),  # a source-built torch: its CUDA unknown
    ("H100", "2.4.0+cu121", "vllm=0.6.3+rocm624", None),  # another vendor
]


@pytest.mark.parametrize(("machine", "torch", "lib", "expected"), SHAPES)
def test_stated_shapes(machine: str, torch: str, lib: str, expected: str | None) -> None:
    python = "python=3.8.10" if torch.startswith("1.") else "python=3.10.12"  # a Python those torch releases serve
    found = problems(H100 if machine == "H100" else MI300X, python, f"torch={torch}", f"lib.{lib}")
    if expected is None:
        assert found == [], found
    else:
        (reason,) = found
        assert expected in reason, reason


def test_the_finding_names_the_missing_runtime() -> None:
    (rocm,) = problems(MI300X, "torch=2.5.1+rocm6.2", "lib.vllm=0.6.3+rocm573")
    assert "libamdhip64.so.5" in rocm and "ROCm 6 torch does not bring" in rocm
    (cuda,) = problems(H100, "torch=2.4.0+cu118", "lib.flash-attn=2.6.3+cu123torch2.4cxx11abiFALSE")
    assert "libcudart.so.12" in cuda and "CUDA 11 torch does not bring" in cuda


def test_pyg_minor_refusal_is_its_own_message() -> None:
    """torch-scatter 2.0.5's import refusal (verbatim from its __init__.py at 2.0.5, CUDA versions filled in)."""
    (reason,) = problems(H100, "python=3.8.10", "torch=1.6.0+cu102", "lib.torch_scatter=2.0.5+cu101")
    assert "refuses a torch built with another CUDA release (CUDA 10.2)" in reason
    message = (
        "RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions. "
        "PyTorch has CUDA version 10.2 and torch_scatter has CUDA version 10.1. Please reinstall the "
        "torch_scatter that matches your PyTorch install."
    )
    assert compile_signature(extension_torch.PREDICTS).search(message)


# ---- real working combinations: never a finding ---------------------------------------------------
WORKING: list[tuple[str, tuple[str, ...], str]] = [
    # flash-attn v2.6.3 picks its cu123 wheel for every CUDA 12 torch ("Minor versions should be compatible")
    ("H100", ("torch=2.4.0+cu121", "lib.flash-attn=2.6.3+cu123torch2.4cxx11abiFALSE"), _FLASH),
    ("H100", ("torch=2.4.0+cu118", "lib.flash-attn=2.6.3+cu118torch2.4cxx11abiFALSE"), _FLASH),
    ("H100", ("torch=2.2.0+cu121", "lib.torchvision=0.17.0+cu121", "lib.torchaudio=2.2.0+cu121"), _PREVIOUS),
    ("MI300X", ("torch=2.1.0+rocm5.6", "lib.torchvision=0.16.0+rocm5.6", "lib.torchaudio=2.1.0+rocm5.6"), _PREVIOUS),
    ("MI300X", ("torch=2.5.1+rocm6.2", "lib.torchvision=0.20.1+rocm6.2", "lib.torchaudio=2.5.1+rocm6.2"), _PREVIOUS),
    # PyG's index for torch 1.13.0+cu117 serves torch_scatter 2.1.0+pt113cu117 (rusty1s/pytorch_sparse#271)
    ("H100", ("torch=1.13.0+cu117", "lib.torch-scatter=2.1.0+pt113cu117"), "https://data.pyg.org/whl/"),
    (
        "H100",
        ("torch=2.1.0+cu118", "lib.torch-scatter=2.1.2+pt21cu118", "lib.torch-sparse=0.6.18+pt21cu118"),
        "https://data.pyg.org/whl/torch-2.1.0+cu118.html",
    ),
    # vLLM labels its ROCm 6.2.4 build rocm624 (setup.py); it runs on a ROCm 6.2 torch
    ("MI300X", ("torch=2.5.1+rocm6.2", "lib.vllm=0.6.3+rocm624"), _VLLM),
    # Triton finds the HIP runtime torch loaded (driver.py): a ROCm 7 Triton label beside a ROCm 6 torch links nothing
    (
        "MI300X",
        ("torch=2.8.0+rocm6.4", "lib.pytorch-triton-rocm=3.4.0+rocm7.0"),
        "https://github.com/triton-lang/triton/blob/main/third_party/amd/backend/driver.py",
    ),
    # jaxlib is no torch extension: its CUDA comes from an installed CUDA or NVIDIA's pip wheels
    (
        "H100",
        ("torch=2.1.0+cu118", "lib.jaxlib=0.4.23+cuda12.cudnn89"),
        "https://docs.jax.dev/en/latest/installation.html",
    ),
]


@pytest.mark.parametrize(("machine", "stack", "source"), WORKING)
def test_working_combinations_stay_silent(machine: str, stack: tuple[str, ...], source: str) -> None:
    assert source.startswith("https://")
    assert problems(H100 if machine == "H100" else MI300X, *stack) == []


def test_jaxlib_label_alone_would_read_as_cuda_12() -> None:
    """The silence above is jaxlib's exclusion, not a label the parser misses."""
    from pytest_rocmcompat.knowledge.extension_builds import OWN_GPU_RUNTIME, gpu_runtime

    assert gpu_runtime("cuda12.cudnn89") == ("cuda", 12, None) and "jaxlib" in OWN_GPU_RUNTIME
    assert problems(H100, "torch=2.1.0+cu118", "lib.some-ext=0.4.23+cuda12.cudnn89")


# ---- the failures such stacks produce, verbatim --------------------------------------------------
VERBATIM: list[tuple[str, str]] = [
    # flash-attn built for CUDA 11 on a CUDA 12 system
    (
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        "https://github.com/Dao-AILab/flash-attention/issues/1122",
    ),
    # flash-attn built for CUDA 12 beside torch 2.1.0 (CUDA 11.8)
    (
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
        "https://github.com/Dao-AILab/flash-attention/issues/631",
    ),
    (
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        "https://github.com/tdrussell/diffusion-pipe/issues/21",
    ),
    # PyG's torch-sparse linking cuSPARSE of its CUDA release
    (
        "OSError: libcusparse.so.11: cannot open shared object file: No such file or directory",
        "https://github.com/pyg-team/pytorch_geometric/issues/6152",
    ),
    (
        "ImportError: libcusparse.so.10.0: cannot open shared object file: No such file or directory",
        "https://github.com/rusty1s/pytorch_sparse/issues/16",
    ),
    # cuBLAS of another CUDA release (bitsandbytes built for cuda120 beside torch cu116; oneflow's cu12 build)
    (
        "OSError: libcublas.so.11: cannot open shared object file: No such file or directory",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/60",
    ),
    (
        "libcublas.so.12: cannot open shared object file: No such file or directory",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/422",
    ),
    (
        "ImportError: libcublas.so.11: cannot open shared object file: No such file or directory",
        "https://github.com/siliconflow/onediff/issues/766",
    ),
    # the HIP runtime of another ROCm release
    (
        "link_cuda_dso: warning: libamdhip64.so.6: cannot open shared object file: No such file or directory: "
        "failed to load library",
        "https://github.com/mozilla-ai/llamafile/issues/547",
    ),
    # ROCm math libraries whose soname moved with the release
    (
        "./llama-fit-params: error while loading shared libraries: libhipblas.so.3: cannot open shared object file: "
        "No such file or directory",
        "https://github.com/ggml-org/llama.cpp/issues/25807",
    ),
    (
        "ImportError: librocblas.so.0: cannot open shared object file: No such file or directory",
        "https://github.com/ROCm/rocBLAS/issues/1302",
    ),
    (
        "./simple-torch-test: error while loading shared libraries: libhipsolver.so.0: cannot open shared object "
        "file: No such file or directory",
        "https://github.com/pytorch/builder/pull/1413",
    ),
]

# Failures of other classes the check must not claim
NOT_THIS_CLASS: list[tuple[str, str]] = [
    # torch itself not finding TheRock's libraries (MIOpen's soname does not carry the release)
    (
        "ImportError: libMIOpen.so.1: cannot open shared object file: No such file or directory",
        "https://github.com/pccr10001/comfyui-gfx1151-fa/issues/1",
    ),
    (
        "OSError: libtorch_cuda.so: cannot open shared object file: No such file or directory",
        "https://github.com/pytorch/pytorch/issues/139410",
    ),
    (
        "OSError: libhiprtc.so: cannot open shared object file: No such file or directory",
        "https://github.com/ROCm/TheRock/issues/1693",
    ),
    (
        "OSError: libc10_hip.so: cannot open shared object file: No such file or directory",
        "https://github.com/Looong01/pyg-rocm-build/issues/1",
    ),
    ("CUDA driver version is insufficient for CUDA runtime version", "a driver, not a build, problem"),
]


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_predicted_verbatim(message: str, source: str) -> None:
    assert compile_signature(extension_torch.PREDICTS).search(message), source


@pytest.mark.parametrize(("message", "source"), NOT_THIS_CLASS)
def test_other_classes_not_predicted(message: str, source: str) -> None:
    assert not compile_signature(extension_torch.PREDICTS).search(message), source


# ---- both ways through pytest ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "stack", "uses", "predicted"),
    [
        (
            MI300X,
            ("torch=2.5.1+rocm6.2", "lib.vllm=0.6.3+rocm573"),
            "vllm",
            "ImportError: librocblas.so.0: cannot open shared object file: No such file or directory",
        ),
        (
            H100,
            ("torch=2.4.0+cu121", "lib.flash-attn=2.6.3+cu118torch2.4cxx11abiFALSE"),
            "flash-attn",
            "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        ),
        (
            H100,
            ("torch=2.1.0+cu121", "python=3.10.12", "lib.torch-sparse=0.6.18+pt21cu118"),
            "torch-sparse",
            "OSError: libcusparse.so.11: cannot open shared object file: No such file or directory",
        ),
    ],
)
def test_two_ways(
    pytester: pytest.Pytester, env: Environment, stack: tuple[str, ...], uses: str, predicted: str
) -> None:
    found, unrelated = predicted_and_unrelated(pytester, predicted, stack, uses=uses, env=env, error="ImportError")
    assert found["rocm_rule"] == extension_torch.ID
    assert "rocm_rule" not in unrelated
    assert unrelated.get("rocm_diagnosis", "").startswith(f"{extension_torch.ID}: ")

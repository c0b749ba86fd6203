"""``extension-built-for-other-torch``: a compiled torch extension was built for another torch.

The class behind most ``undefined symbol`` import failures (flash-attn, PyG, mamba-ssm),
torchao's aborts and skipped kernels: the extension's recorded build facts
(:mod:`..probe.extension_builds`: its wheel's build label, torchao's own table, the C++ ABI)
disagree with the installed torch. Reaches tests that use the extension.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.finding import Finding, own_message_risk
from pytest_rocmcompat.knowledge.checks.python_range import torch_series
from pytest_rocmcompat.knowledge.extension_builds import built_for, official_cxx11_abi
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import replay_names

ID = "extension-built-for-other-torch"
# How an extension built for another torch fails: its library does not link (undefined symbols),
# the process aborts while loading it (torchao 0.13 under torch 2.9), it refuses to load its
# kernels (torchao's version gate, PyG's import warning and CUDA check) so that its operators are
# missing (torch's dispatcher names the operator), or it needs torch dtypes or APIs an older torch lacks (torchao from 0.13
# on torch < 2.6: a missing dtype, a missing attribute of a torch submodule, a name or submodule
# of torch; a missing attribute of torch itself only for those dtypes, so `torch.int16` missing,
# which every torch has, stays a failure).
PREDICTS = (
    r"undefined symbol: |Fatal Python error: Aborted|'_OpNamespace' '\w+' object has no attribute"
    r"|Could not run '(?!aten::)\w+::\w+' with arguments from the '\w+' backend"
    r"|operator (?!aten::)\w+::\w+ does not exist|No such operator (?!aten::)\w+::\w+"
    r"|Skipping import of cpp extensions due to incompatible torch version"
    r"|An issue occurred while importing '[\w-]+'|Detected that PyTorch and [\w-]+ were compiled with different CUDA (?:major )?versions"
    # the same checks' later sentences, as a wrapped or cut log shows them (torchvision extension.py 0.4-0.25,
    # torchaudio _check_cuda_version 0.13-2.9; quoted in tests/knowledge/test_torchvision_texts_more.py)
    r"|PyTorch has CUDA Version=\d+\.\d+ and [\w-]+ has CUDA\s+Version=\d|whereas TorchAudio has CUDA version \d"
    r"|Please reinstall the torchvision that matches your PyTorch\s+install"
    r"|Please install the TorchAudio version that matches your PyTorch version"
    # a build for another CUDA/ROCm major: a runtime or math library it links (by a soname that
    # carries the release) is not there (tests/knowledge/test_extension_gpu_major.py: the reports)
    r"|lib(?:cudart|cublas|cusparse|amdhip64|hipblas|rocblas|hipsolver)\.so\.[\d.]{1,12}: cannot open shared object file"
    r"|module 'torch' has no attribute '(?:u?int[1-7]|float8_e\w+)'"
    r"|module 'torch\.[\w.]+' has no attribute '\w+'|cannot import name '\w+' from 'torch[\w.]*'"
    r"|No module named 'torch\.[\w.]+'"
)


def check(env: Environment) -> list[Finding]:
    if not env.torch:
        return []
    abi = env.torch_cxx11_abi if env.torch_cxx11_abi is not None else official_cxx11_abi(env.torch)
    found: list[Finding] = []
    replaced = replay_names(env)
    for dist, version in sorted(env.libraries.items()):
        if dist == "torch" or (replaced and dist not in replaced):
            continue  # (the base machine's package beside a replayed stack: not part of that stack)
        for fact in built_for(dist, version, env.torch, abi, env.system):
            if fact.matches:
                continue
            found.append(
                Finding(
                    check=ID,
                    reason=f"{dist} {version} is built for {fact.wanted}, installed torch {env.torch}: {fact.consequence}",
                    fix=f"install a {dist} build made for torch {torch_series(env)} (or build it from source "
                    f"against the installed torch), or the torch it was built for",
                    link=fact.source,
                    uses=(dist,),
                    # only part of it fails (a CPU build's GPU operators): a risk a test may not meet; or
                    # judged by PyPI's build of a package the stack gives no label, which it may have left out
                    uncertain=fact.partial or fact.assumed,
                    predicts=fact.predicts,
                )
            )
    return found


# The linker's refusal of a library that calls torch's C++ API (namespaces c10, at, torch, caffe2: the
# mangled names ``_ZN3c10``, ``_ZNK3c10``, ``_ZN2at``, ``_ZN5torch``) with a symbol the installed torch
# does not export: the library was built against another torch; or the GPU runtime of another major it
# links is missing (tests/knowledge/test_unstated_risks.py quotes the reports)
TORCH_ABI = (
    r"undefined symbol: _ZNK?(?:3c10|2at|5torch|6caffe2)\w"
    # a build for another CUDA/ROCm major: the runtime it links by soname is not there (as in PREDICTS)
    r"|lib(?:cudart|cublas|cusparse|amdhip64|hipblas|rocblas|hipsolver)\.so\.[\d.]{1,12}: cannot open shared object file"
    # xFormers' own check of its build (xformers/_cpp_lib.py, v0.0.32.post2), where the torch it names is not the
    # installed one (the same torch twice is another failure: its Python differs, or the build is broken)
    r"|xFormers was built for:\s+PyTorch (\d\S*) with CUDA \w+ \(you have (?!\1\))"
    r"|xFormers was built for a different version of PyTorch or Python"
    # its operators' reason where the build has no CUDA kernels at all (xformers/ops/fmha/common.py, the
    # library's own spelling)
    r"|xFormers wasn't build with CUDA support"
)
ABI_SOURCE = "https://pytorch.org/tutorials/advanced/cpp_extension.html"


# Compiled extensions that link torch's C++ API (PyPI names): the tests that use one the stack leaves out
LINKS_TORCH = (
    "apex", "auto-gptq", "causal-conv1d", "deepspeed", "detectron2", "exllamav2", "fbgemm-gpu", "flash-attn",
    "flash-attn-3", "flashinfer-python", "grouped-gemm", "mamba-ssm", "mmcv", "natten", "pyg-lib", "pytorch3d",
    "sgl-kernel", "torch-cluster", "torch-scatter", "torch-sparse", "torch-spline-conv", "torch-tensorrt",
    "torchao", "torchaudio", "torchvision", "transformer-engine", "vllm", "xformers",
)  # fmt: skip


def unknown_builds(env: Environment) -> list[Finding]:
    """The risk that a compiled extension the stack leaves out was built against another torch: which torch a
    build without a label (a wheel built from source, a ``pip install`` of an sdist, another index's wheel) was
    made for is recorded nowhere, so only the linker's refusal of a torch symbol (:data:`TORCH_ABI`, which states
    it) confirms it. For a stated stack naming torch (``registry.evaluate_risks``), in the tests that use an
    extension of :data:`LINKS_TORCH` it does not name; one it names is judged by :func:`check` alone.
    """
    named = replay_names(env)
    if not env.torch or "torch" not in named:
        return []
    unnamed = tuple(dist for dist in LINKS_TORCH if dist not in named)
    return [
        own_message_risk(
            f"{ID}:unknown-build",
            f"a compiled extension built against another torch than {env.torch} cannot be loaded; "
            "which torch a build without a label was made for is recorded nowhere",
            f"reinstall the extension the error names built against torch {env.torch} (pip install "
            "--no-build-isolation --no-cache-dir, or its wheel for this torch series), or the torch it was built for",
            ABI_SOURCE,
            TORCH_ABI,
            uses=unnamed,
        )
    ]

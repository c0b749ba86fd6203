"""``requirement-not-met``: torchvision, torchaudio and Triton beside a torch they were not built for.

A corpus of real public reports (2019-2026; CUDA, ROCm, CPU, Windows, macOS), each message quoted
verbatim from the report beside it (a message its source wraps over lines is quoted as it wraps; the
signature reads any run of whitespace as one space). Each must be predicted by the signature that
the check gives for a broken pair of the same packages, and failures of other packages or of no
package must not be. Then torch's own Triton pins and triton-windows' pairing, both ways.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.declared_pins import TRITON_WINDOWS_SOURCE
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import rule as rule_of
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.10.14", os="Linux")
# torchvision 0.19.0 and torchaudio 2.4.0 declare torch==2.4.0 (PyPI)
VISION = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchvision=0.19.0")
VISION_WIN = ("platform=cpu", "os=Windows", "torch=2.2.1+cpu", "lib.torchvision=0.19.0")
VISION_MAC = ("platform=cpu", "os=macOS", "torch=1.14.0.dev20221110", "lib.torchvision=0.14.0")
AUDIO = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchaudio=2.4.0")
AUDIO_WIN = ("platform=cpu", "os=Windows", "torch=2.0.1+cpu", "lib.torchaudio=2.3.1")
# torch 2.1.2 / 2.9.1 declare triton==2.1.0 / 3.5.1 (PyPI); the +rocm6.4 wheel pytorch-triton-rocm==3.5.1
TRITON = ("platform=cuda", "torch=2.1.2+cu121", "lib.triton=3.0.0")
TRITON_29 = ("platform=cuda", "torch=2.9.1+cu128", "lib.triton=3.6.0")
TRITON_ROCM = ("platform=rocm", "arch=gfx942", "torch=2.9.1+rocm6.4", "lib.pytorch-triton-rocm=3.6.0")
TRITON_WIN = ("platform=cuda", "os=Windows", "torch=2.7.1+cu128", "lib.triton-windows=3.4.0.post20")
# torch 2.4.0 declares nvidia-cudnn-cu12==9.1.0.70 (PyPI): cuDNN 8.9 beside it is older than its build's
CUDNN = ("platform=cuda", "torch=2.4.0", "lib.nvidia-cudnn-cu12=8.9.2.26")

# (message, source, stack)
CORPUS: list[tuple[str, str, tuple[str, ...]]] = [
    # ---- Triton beside torch: pip's conflict lines ----
    (
        'torch 2.2.1 requires triton==2.2.0; platform_system == "Linux" and platform_machine == "x86_64" and '
        'python_version < "3.12", but you have triton 3.0.0 which is incompatible.',
        "https://github.com/triton-lang/triton/issues/3359",
        TRITON,
    ),
    (
        'torch 2.11.0 requires triton==3.6.0; platform_system == "Linux", but you have triton 3.5.1 which is '
        "incompatible.",
        "https://github.com/Tavris1/ComfyUI-Easy-Install/issues/192",
        TRITON,
    ),
    # ---- Triton beside torch: Inductor importing or reading Triton internals ----
    (  # Windows: triton-windows 3.5 with torch 2.8
        "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler'",
        "https://github.com/woct0rdho/triton-windows/issues/158",
        TRITON_WIN,
    ),
    (  # Windows: triton-windows 3.4 with torch 2.7 (the maintainer: "Triton 3.4 only works with PyTorch >= 2.8")
        "torch._inductor.exc.InductorError: AttributeError: type object 'CompiledKernel' has no attribute "
        "'launch_enter_hook'",
        "https://github.com/woct0rdho/triton-windows/issues/137",
        TRITON_WIN,
    ),
    (  # ROCm: torch 2.9's Inductor with Triton 3.6
        "torch._inductor.exc.InductorError: AttributeError: 'KernelMetadata' object has no attribute 'cluster_dims'",
        "https://github.com/ROCm/pytorch/pull/2838",
        TRITON_ROCM,
    ),
    (  # CUDA: torch 2.9.x with triton 3.6.0
        "InductorError: 'KernelMetadata' object has no attribute 'cluster_dims'",
        "https://github.com/unslothai/unsloth/pull/4001",
        TRITON_29,
    ),
    (  # torch 2.1 with a triton-nightly that dropped triton.runtime.jit.get_cuda_stream
        "ImportError: cannot import name 'get_cuda_stream' from 'triton.runtime.jit'",
        "https://github.com/sgl-project/sglang/issues/383",
        TRITON,
    ),
    # ---- torchvision beside torch ----
    (  # torch_npu's torch with a newer torchvision (vllm-ascend pins torchvision<0.21.0 for it)
        "RuntimeError: operator torchvision::nms does not exist",
        "https://github.com/vllm-project/vllm-ascend/pull/479",
        VISION,
    ),
    (  # torch 2.3.1 with a torchvision for 2.4
        "AttributeError: module 'torch.library' has no attribute 'register_fake'",
        "https://github.com/chaidiscovery/chai-lab/issues/138",
        VISION,
    ),
    (  # Windows, torch 2.2.1+cpu ("your torchvision version is too high")
        "module 'torch.library' has no attribute 'register_fake'",
        "https://github.com/lllyasviel/IC-Light/issues/77",
        VISION_WIN,
    ),
    (  # macOS (Apple silicon): torch 1.14 nightly with torchvision 0.14.0 (the maintainer: pair it with 0.15)
        "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are "
        "incompatible, or if you had errors while compiling torchvision from source. For further information on the "
        "compatible versions, check https://github.com/pytorch/vision#installation for the compatibility matrix. "
        "Please check your PyTorch version with torch.__version__ and your torchvision version with "
        "torchvision.__version__ and verify if they are compatible, and if not please reinstall torchvision so that "
        "it matches your PyTorch install.",
        "https://github.com/pytorch/vision/issues/6946",
        VISION_MAC,
    ),
    (  # Windows' loader dialog on torchvision's image extension
        "The procedure entry point ?get_warnAlways@Warning@c10@@YA_NXZ could not be located in the dynamic link "
        "library C:\\Users\\spenc\\AppData\\Local\\Programs\\Python\\Python39\\Lib\\site-packages\\torchvision\\"
        "image.pyd",
        "https://github.com/milksense/venus/issues/12",
        VISION_WIN,
    ),
    (
        "UserWarning: Failed to load image Python extension: [WinError 127] The specified procedure could not be found",
        "https://github.com/milksense/venus/issues/12",
        VISION_WIN,
    ),
    (  # torchvision 0.9.2 installed for a torch of 0.8.2's
        "The procedure entry point\ntorchCheckFail@detail[....] could not be located in the dynamic link library "
        "C:\\Users[...]\\tablenetVirtualEnv\\Lib\\site-packages\\torchvision\\_C.pyd.",
        "https://github.com/tomassosorio/OCR_tablenet/issues/13",
        VISION_WIN,
    ),
    (
        "the procedure entry point ?tls_local_tensor_type_@....... set could not be located in the dynamic link "
        "library \nC:\\......\\lib\\site-packages\\torchvision\\_C.pyd.",
        "https://github.com/eriklindernoren/PyTorch-YOLOv3/issues/514",
        VISION_WIN,
    ),
    # ---- torchaudio beside torch ----
    (  # the maintainer: "you have an old / mismatched version of PyTorch since torchaudio was compiled"
        "ImportError: /usr/local/lib/python3.5/dist-packages/_torch_sox.cpython-35m-x86_64-linux-gnu.so: undefined "
        "symbol: _ZN2at19UndefinedTensorImpl10_singletonE",
        "https://github.com/pytorch/audio/issues/99",
        AUDIO,
    ),
    (  # ROCm: the ROCm torchaudio 0.10.0 beside torch 1.10.0+cu111
        "OSError: libtorch_hip.so: cannot open shared object file: No such file or directory",
        "https://github.com/pytorch/audio/issues/2525",
        AUDIO,
    ),
    (  # Colab: a torchaudio for another torch than 1.9.1 (the maintainer: use torchaudio==0.9.0)
        "OSError: libtorch_cuda_cpp.so: cannot open shared object file: No such file or directory",
        "https://github.com/TEAMuP-dev/audacitorch/issues/9",
        AUDIO,
    ),
    (  # Windows ("boiled down to a torch / torchaudio mismatch")
        "FileNotFoundError: Could not find module 'C:\\Users\\fanny\\AppData\\Local\\Programs\\Python\\Python310\\Lib"
        "\\site-packages\\torchaudio\\lib\\libtorchaudio.pyd' (or one of its dependencies). Try using the full path "
        "with constructor syntax.",
        "https://github.com/neonbjb/tortoise-tts/issues/298",
        AUDIO_WIN,
    ),
    (  # Windows CI: a +cu116 torchaudio nightly beside a +cu117 torch
        "RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has "
        "CUDA version 11.7 whereas TorchAudio has CUDA version 11.6. Please install the TorchAudio version that "
        "matches your PyTorch version.",
        "https://github.com/pytorch/audio/pull/2721",
        AUDIO,
    ),
    (
        "torchaudio 2.5.1+cu121 requires torch==2.5.1, but you have torch 2.1.2+cu118 which is incompatible.",
        "https://github.com/C0untFloyd/roop-unleashed/issues/990",
        AUDIO,
    ),
    (
        "ERROR: torchaudio 0.13.0.dev20221016+cu117 has requirement torch==1.14.0.dev20221016, but you'll have torch "
        "1.14.0.dev20221017+cu117 which is incompatible.",
        "https://github.com/pytorch/pytorch/issues/87075",
        AUDIO,
    ),
    (
        "torchaudio 2.3.1 requires torch==2.3.1, but you have torch 2.0.1 which is incompatible.",
        "https://github.com/MyNiuuu/MOFA-Video/pull/20",
        AUDIO_WIN,
    ),
    # ---- cuDNN older than torch's build: torch's check (its wording of 2022 and of 2018-2019), cuDNN's loaders ----
    (
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime "
        "version (8, 4, 1). PyTorch already comes bundled with cuDNN. One option to resolving this error is to "
        "ensure PyTorch can find the bundled cuDNN.Looks like your LD_LIBRARY_PATH contains incompatible version "
        "of cudnnPlease either remove it from the path or install cudnn (8, 5, 0)",
        "https://github.com/gladiaio/gladia/issues/928",
        CUDNN,
    ),
    (
        "cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 3, 3). "
        "PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find "
        "the bundled cuDNN.",
        "https://github.com/RaleLee/Co-GAT/issues/2",
        CUDNN,
    ),
    (
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against "
        "(8, 0, 3)",
        "https://github.com/pytorch/functorch/issues/926",
        CUDNN,
    ),
    (
        "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 6021 but linked against 5110",
        "https://github.com/pytorch/pytorch/issues/5369",
        CUDNN,
    ),
    (
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}",
        "https://github.com/daswer123/xtts-finetune-webui/issues/18",
        CUDNN,
    ),
    (
        "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor",
        "https://github.com/daswer123/xtts-finetune-webui/issues/18",
        CUDNN,
    ),
    (
        "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object "
        "file: No such file or directory",
        "https://github.com/ultrasev/stream-whisper/issues/28",
        CUDNN,
    ),
]


def _rule(stack: tuple[str, ...]) -> Rule:
    return rule_of(BASE, *stack)


def test_the_corpus_is_broad() -> None:
    assert len(CORPUS) >= 22 and len({url for _, url, _ in CORPUS}) >= 21
    assert {stack[-1].split("=")[0] for *_, stack in CORPUS} >= {
        "lib.torchvision",
        "lib.torchaudio",
        "lib.triton",
        "lib.pytorch-triton-rocm",
        "lib.triton-windows",
    }


@pytest.mark.parametrize(("message", "source", "stack"), CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_each_report_is_predicted_for_its_pair(message: str, source: str, stack: tuple[str, ...]) -> None:
    assert source.startswith("https://github.com/")
    rule = _rule(stack)
    assert rule.signature is not None and rule.signature.search(message)


# Not the pair's failure: another package's DLL or module, a crash, a generic HIP error, or another pair's text
OTHERS: list[tuple[str, tuple[str, ...]]] = [
    (UNRELATED, VISION),
    ("Segmentation fault (core dumped)", TRITON_ROCM),
    ("RuntimeError: HIP error: invalid device function", TRITON_ROCM),
    (
        "ImportError: DLL load failed while importing _multiarray_umath: The specified module could not be found.",
        VISION,
    ),
    (
        "The procedure entry point ?foo@@YAXXZ could not be located in the dynamic link library "
        "C:\\Python39\\Lib\\site-packages\\numpy\\core\\_multiarray_umath.pyd",
        VISION_WIN,
    ),
    ("FileNotFoundError: Could not find module 'C:\\venv\\Lib\\site-packages\\sox\\libsox.pyd'", AUDIO_WIN),
    # Triton's texts are not a torchvision pair's, and torchvision's not a Triton pair's
    ("torch._inductor.exc.TritonMissing: Cannot find a working triton installation.", VISION),
    ("AttributeError: 'KernelMetadata' object has no attribute 'cluster_dims'", AUDIO),
    ("UserWarning: Failed to load image Python extension: foo", TRITON),
    # cuDNN's loader failing on the driver or NVRTC, not on cuDNN (open-mmlab/mmdetection3d#2132, vladmandic/sdnext#539)
    ("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file", CUDNN),
    ("Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file", CUDNN),
    # the cuDNN texts are not a torchvision pair's
    ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found", VISION),
]


@pytest.mark.parametrize(("message", "stack"), OTHERS)
def test_other_failures_are_not_predicted(message: str, stack: tuple[str, ...]) -> None:
    rule = _rule(stack)
    assert rule.signature is not None and not rule.signature.search(message)


# ---- torch's own Triton pins and triton-windows' pairing reach the check, both ways ----
@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("platform=cuda", "torch=2.5.1+cu124", "lib.triton=3.0.0"), "torch 2.5.1+cu124 requires triton==3.1.0"),
        (("platform=cuda", "torch=2.5.1+cu124", "lib.triton=3.1.0"), None),
        (("platform=cuda", "torch=2.9.1", "lib.triton=3.6.0"), "requires triton==3.5.1, installed triton 3.6.0"),
        (
            ("platform=rocm", "torch=2.5.1+rocm6.2", "lib.pytorch-triton-rocm=3.0.0"),
            "torch 2.5.1+rocm6.2 requires pytorch-triton-rocm==3.1.0",
        ),
        (("platform=rocm", "torch=2.5.1+rocm6.2", "lib.pytorch-triton-rocm=3.1.0"), None),
        (("platform=rocm", "torch=2.11.0+rocm7.1", "lib.triton-rocm=3.5.1"), "requires triton-rocm==3.6.0"),
        (("platform=rocm", "torch=2.11.0+rocm7.1", "lib.triton-rocm=3.6.0"), None),
        # torch's triton pin holds on Linux only; on Windows triton-windows' own table answers
        (("platform=cuda", "os=Windows", "torch=2.7.1+cu128", "lib.triton=3.4.0"), None),
        (TRITON_WIN, "triton-windows 3.4.0.post20 requires torch>=2.8,<2.9, installed torch 2.7.1+cu128"),
        (("platform=cuda", "os=Windows", "torch=2.8.0+cu128", "lib.triton-windows=3.4.0.post20"), None),
        (("platform=cuda", "os=Windows", "torch=2.5.1+cu124", "lib.triton-windows=3.1.0.post17"), None),
        (("platform=cuda", "os=Windows", "torch=2.8.0+cu128", "lib.triton-windows=3.2.0.post18"), None),
        (("platform=cuda", "os=Windows", "torch=2.5.1+cu124", "lib.triton-windows=3.2.0.post18"), "torch>=2.6"),
        (("platform=cuda", "os=Windows", "torch=2.8.0+cu128", "lib.triton-windows=3.9.0"), None),  # not in the table
    ],
)
def test_triton_pins_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    env = apply_overrides(BASE, list(stack))
    findings = [f for f in evaluate(env) if f.check == requirements.ID and not f.uncertain]
    if found is None:
        assert findings == []
        return
    (finding,) = findings
    assert found in finding.reason
    assert finding.uses == requirements.COMPILE_USES  # eager torch never imports Triton


def test_triton_windows_is_sourced() -> None:
    env = apply_overrides(BASE, list(TRITON_WIN))
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID and not f.uncertain]
    assert finding.link == TRITON_WINDOWS_SOURCE and TRITON_WINDOWS_SOURCE in finding.reason


def test_through_pytest_triton_windows_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    message = CORPUS[5][0]  # CompiledKernel.launch_enter_hook, woct0rdho/triton-windows#137
    predicted, unrelated = predicted_and_unrelated(
        pytester, message, TRITON_WIN, uses="torch.compile", env=BASE, error="AttributeError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated

"""``requirement-not-met``: more of what torchvision and torchaudio print beside a torch they were not built for.

torchvision 0.26 (pytorch/vision#9364) stopped warning when its image extension fails to load: the first
image op raises ``Couldn't load the image extension`` (``torchvision/io/image.py``), and
``TORCHVISION_WARN_WHEN_EXTENSION_LOADING_FAILS=1`` makes ``extension.py`` warn ``Failed to load '_C'
extension: ...`` (``_C_stable`` / ``image_stable`` from 0.29). Before 0.26 the image ops of an extension that
did not load are torch's ``No such operator image::...``, and torch < 2.0 names no namespace in
``'_OpNamespace' object has no attribute ...``. conda's classic solver lists a pinned pair as a dependency
chain (``torchvision -> pytorch[version=...]``); TorchScript names torchvision's unregistered ops (``Unknown
builtin op``); and torchaudio imported again after its extension failed meets a circular import (``partially
initialized module 'torchaudio'``). Each message is quoted verbatim from the source file at its tag or from the
public report beside it; other failures of the same tests must stay ``fail``.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.requirements import OWN_MESSAGES, PREDICTS
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.knowledge.rules.signature import MAX_PATTERN_CHARS, compile_signature
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.row_checks import rule as rule_of
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.12.3", os="Linux")
# torchvision 0.26.0 declares torch>=2.11,<2.12 and 0.29.2 torch>=2.14.0 (PyPI); 0.15.1 torch 2.0;
# torchvision 0.10.0 / torchaudio 0.9.0 pair torch 1.9 (PyPI, the PyTorch Versions wiki)
VISION_26 = ("platform=cuda", "torch=2.10.0+cu128", "lib.torchvision=0.26.0")
VISION_29 = ("platform=cuda", "torch=2.11.0+cu128", "lib.torchvision=0.29.2")
VISION_MAC = ("platform=cpu", "os=macOS", "torch=1.13.1", "lib.torchvision=0.15.1")
VISION_OLD = ("platform=cuda", "torch=1.8.1", "lib.torchvision=0.10.0")
AUDIO_OLD = ("platform=cuda", "torch=1.8.1", "lib.torchaudio=0.9.0")
AUDIO = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchaudio=2.4.0")  # torchaudio 2.4.0 declares torch==2.4.0
TRITON = ("platform=cuda", "torch=2.1.2+cu121", "lib.triton=3.0.0")  # torch 2.1.2 declares triton==2.1.0

# (message, source, stack)
CORPUS: list[tuple[str, str, tuple[str, ...]]] = [
    # ---- torchvision's own texts, read in the release's PyPI wheel and cited at its tag ----
    (  # io/image.py _assert_has_image_ops, raised by the first image op when image.so did not load
        "RuntimeError: Couldn't load the image extension. If you built torchvision from source, make sure libjpeg "
        "and libpng were found. Set TORCHVISION_WARN_WHEN_EXTENSION_LOADING_FAILS=1 and retry to get more details.",
        "https://github.com/pytorch/vision/blob/v0.26.0/torchvision/io/image.py",
        VISION_26,
    ),
    # extension.py _load_library's opt-in warning, f"Failed to load '{lib_name}' extension: {type(e).__name__}: {e}"
    # (0.29: _C_stable), with {e} the loader's OSError as boson-ai/higgs-audio#177 quotes it (a CUDA 13 build)
    (
        "UserWarning: Failed to load '_C_stable' extension: OSError: libcudart.so.13: cannot open shared object "
        "file: No such file or directory",
        "https://github.com/pytorch/vision/blob/v0.29.2/torchvision/extension.py",
        VISION_29,
    ),
    (  # the same for io/image.py's library at 0.26, {e} as pytorch/pytorch#138821 quotes it
        "UserWarning: Failed to load 'image' extension: OSError: libc10_cuda.so: cannot open shared object file: "
        "No such file or directory",
        "https://github.com/pytorch/vision/blob/v0.26.0/torchvision/extension.py",
        VISION_26,
    ),
    # ---- torch's texts for torchvision's image ops when image.so did not load (before 0.26) ----
    (  # Windows nightly smoke test: image.pyd not loaded, then decode_png
        "RuntimeError: No such operator image::decode_png",
        "https://github.com/pytorch/vision/issues/7185",
        VISION_26,
    ),
    (  # torch 2.1.0+cpu
        "RuntimeError: No such operator image::decode_jpeg",
        "https://github.com/pytorch/vision/issues/8047",
        VISION_26,
    ),
    (  # Windows: image.pyd "Could not find module ... (or one of its dependencies)", then read_image
        "RuntimeError: No such operator image::read_file",
        "https://github.com/intel/intel-extension-for-pytorch/issues/656",
        VISION_26,
    ),
    (  # macOS, torch 1.13 (before 2.0 torch/_ops.py named no namespace): the title
        "AttributeError: '_OpNamespace' object has no attribute 'decode_image'",
        "https://github.com/pytorch/vision/issues/7146",
        VISION_MAC,
    ),
    (  # TorchScript loading a scripted detection model whose torchvision ops are not registered (Windows, torch 1.7)
        "RuntimeError: \nUnknown builtin op: torchvision::nms.\nCould not find any similar ops to torchvision::nms. "
        "This op may not exist or may not be currently supported in TorchScript.",
        "https://github.com/pytorch/pytorch/issues/48932",
        VISION_OLD,
    ),
    (
        "Unknown builtin op: torchvision::nms.\nCould not find any similar ops to torchvision::nms. This op may not "
        "exist or may not be currently supported in TorchScript.",
        "https://github.com/zhiqwang/yolort/issues/153",
        VISION_OLD,
    ),
    # ---- torchaudio's next import after its extension failed (2.0-2.10 _check_cuda_version) ----
    (  # the tab loaded after "PyTorch has CUDA version 12.1 whereas TorchAudio has CUDA version 11.8"
        "Error: partially initialized module 'torchaudio' has no attribute 'lib' (most likely due to a circular import)",
        "https://github.com/rsxdalv/TTS-WebUI/issues/433",
        AUDIO,
    ),
    (  # torchaudio 2.4.0, the traceback ending in _check_cuda_version's torchaudio.lib._torchaudio.cuda_version()
        "AttributeError: partially initialized module 'torchaudio' has no attribute 'lib' (most likely due to a "
        "circular import)",
        "https://github.com/RVC-Boss/GPT-SoVITS/issues/1476",
        AUDIO,
    ),
    (  # the maintainer: install the torchaudio compatible with your pytorch
        "Failed to init class <class 'ComfyUI-UniAnimate-W.tools.modules.autoencoder.AutoencoderKL'>, with partially "
        "initialized module 'torchaudio' has no attribute 'lib' (most likely due to a circular import)",
        "https://github.com/Isi-dev/ComfyUI-UniAnimate-W/issues/20",
        AUDIO,
    ),
    # ---- conda's classic solver: the pinned pair as a dependency chain ----
    (
        "Package pytorch conflicts for:\npytorch\ntorchvision -> pytorch[version='1.12.0|>=1.0.0|>=0.4']",
        "https://github.com/pytorch/pytorch/issues/80506",
        VISION_OLD,
    ),
    (
        "Package pytorch conflicts for:\ntorchvision -> pytorch[version='*|1.10|1.14.0.dev20221010|>=1.12.0,<1.13.0a0|"
        ">=1.11.0,<1.12.0a0|>=1.10.2,<1.11.0a0|1.10.0.*|>=1.8.0',build=cpu*]",
        "https://github.com/pytorch/audio/issues/2768",
        VISION_OLD,
    ),
    (  # the line's start (the version list runs on)
        "torchvision==0.9.1 -> pytorch-gpu -> pytorch[version='1.10.0|1.10.0|1.10.0",
        "https://github.com/pytorch/pytorch/issues/77463",
        VISION_OLD,
    ),
    ("torchaudio==0.8.1 -> pytorch==1.8.1", "https://github.com/pytorch/pytorch/issues/77463", AUDIO_OLD),
]


def _rule(stack: tuple[str, ...]) -> Rule:
    return rule_of(BASE, *stack)


@pytest.mark.parametrize(("message", "source", "stack"), CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_each_text_is_predicted_for_its_pair(message: str, source: str, stack: tuple[str, ...]) -> None:
    assert source.startswith("https://github.com/")
    rule = _rule(stack)
    assert rule.signature is not None and rule.signature.search(message), source


@pytest.mark.parametrize(("message", "source", "stack"), CORPUS[:2], ids=["image-ext", "C-stable"])
def test_torchvision_texts_are_its_own_not_every_pairs(message: str, source: str, stack: tuple[str, ...]) -> None:
    """The 0.26+ texts come from ``OWN_MESSAGES['torchvision']``: a torch/Triton pair does not claim them."""
    assert compile_signature(OWN_MESSAGES["torchvision"]).search(message), source
    rule = _rule(TRITON)
    assert rule.signature is not None and not rule.signature.search(message)


# Not the pair's failure: a CUDA OOM, an unrelated AttributeError, a user's own module, another
# extension's op namespace, and conda chains from torchvision/torchaudio to other packages
OTHERS: list[tuple[str, tuple[str, ...]]] = [
    (UNRELATED, VISION_26),
    (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
        "79.10 GiB of which 3.06 MiB is free.",
        VISION_26,
    ),
    ("AttributeError: 'NoneType' object has no attribute 'shape'", VISION_26),
    ("ImportError: cannot import name 'helper' from 'mypkg.utils' (/src/mypkg/utils.py)", VISION_26),
    ("ModuleNotFoundError: No module named 'mypkg'", AUDIO_OLD),
    ("RuntimeError: No such operator my_ext::nms", VISION_26),
    ("RuntimeError: Unknown builtin op: my_ext::nms.", VISION_OLD),
    (
        "AttributeError: partially initialized module 'mypkg' has no attribute 'lib' (most likely due to a circular import)",
        AUDIO,
    ),
    ("RuntimeError: Couldn't load the model weights", VISION_26),
    ("UserWarning: Failed to load 'libfoo' extension: OSError: foo", VISION_26),
    # conda chains naming the package but leading to numpy / python / cudatoolkit (JonathonLuiten/Dynamic3DGaussians#29,
    # pytorch/audio#2729): not a torch pin
    ("torchaudio=0.12.1 -> numpy[version='>=1.11'] -> openblas[version='0.2.20|0.2.20.*']", AUDIO_OLD),
    ("torchvision=0.13.1 -> cudatoolkit[version='>=11.6,<11.7'] -> ucrt[version='>=10.0.20348.0']", VISION_OLD),
    ("  - torchaudio -> python[version='2.7.*|3.5.*|3.6.*|>=2.7,<2.8.0a0|>=3.5,<3.6.0a0|3.4.*']", AUDIO_OLD),
]


@pytest.mark.parametrize(("message", "stack"), OTHERS)
def test_other_failures_are_not_predicted(message: str, stack: tuple[str, ...]) -> None:
    rule = _rule(stack)
    assert rule.signature is not None and not rule.signature.search(message)


def test_signature_parts_stay_valid_and_capped() -> None:
    """PREDICTS keeps the signature cap; each package's own part is a valid, safe signature on its own."""
    assert len(PREDICTS) <= MAX_PATTERN_CHARS
    compile_signature(PREDICTS)
    for dist in ("torchvision", "torchaudio"):
        assert len(OWN_MESSAGES[dist]) <= MAX_PATTERN_CHARS
        compile_signature(OWN_MESSAGES[dist])


def test_through_pytest_image_extension_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(pytester, CORPUS[0][0], VISION_26, uses="torchvision", env=BASE)
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated

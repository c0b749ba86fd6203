"""``requirement-not-met``: the later sentences of torchvision's and torchaudio's CUDA checks, and torch's texts
for torchaudio's operators.

torchvision's ``extension.py`` (0.4 to 0.25) raises ``Detected that PyTorch and torchvision were compiled with
different CUDA [major] versions. PyTorch has CUDA Version=X and torchvision has CUDA Version=Y. Please reinstall
the torchvision that matches your PyTorch install.``; torchaudio's ``_check_cuda_version`` (0.13 to 2.9) its
twin ``... PyTorch has CUDA version X whereas TorchAudio has CUDA version Y. Please install the TorchAudio version
that matches your PyTorch version.``. A log that wraps or cuts the message (a notebook's Rich traceback, an issue
title) shows its later sentences without the first one, which only the first was matched by. torch names
torchaudio's operators when its library did not load (``No such operator torchaudio::...``: torch/_ops.py raises
it as is before 1.12, and chains the ``_OpNamespace`` AttributeError to it from 1.12 on) or holds no kernel for the device (``Could not run
'torchaudio::...' with arguments from the 'CUDA' backend``), as it does torchvision's. Each text is quoted
verbatim from the source at its tag or from the public report beside it; other failures stay ``fail``.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import extension_torch, requirements
from pytest_rocmcompat.knowledge.checks.requirements import OWN_MESSAGES
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import rule as rule_of
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.10.12", os="Linux")
# torchvision 0.15.2 declares torch==2.0.1, 0.16.0 torch==2.1.0 (PyPI), 0.4.0 torch 1.2 (the PyTorch Versions wiki); torchaudio 2.4.0 torch==2.4.0,
# 0.13.0 torch==1.13.0 and 0.10.0 torch 1.10 (PyPI)
VISION_15 = ("platform=cuda", "torch=1.13.1+cu117", "lib.torchvision=0.15.2+cu118")
VISION_16 = ("platform=cuda", "torch=2.0.1+cu118", "lib.torchvision=0.16.0+cu121")
VISION_4 = ("platform=cuda", "torch=1.1.0", "lib.torchvision=0.4.0")  # torchvision 0.4.0 declares torch==1.2.0
AUDIO = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchaudio=2.4.0+cu118")
AUDIO_13 = ("platform=cuda", "torch=1.12.1+cu116", "lib.torchaudio=0.13.0+cu117")
AUDIO_10 = ("platform=cuda", "torch=1.11.0+cu113", "lib.torchaudio=0.10.0+cu113")
TRITON = ("platform=cuda", "torch=2.1.2+cu121", "lib.triton=3.0.0")  # torch 2.1.2 declares triton==2.1.0

VISION_SRC = "https://github.com/pytorch/vision/blob/{tag}/torchvision/extension.py"
AUDIO_SRC = "https://github.com/pytorch/audio/blob/{tag}/torchaudio/_extension/utils.py"

# (message, source, stack)
CORPUS: list[tuple[str, str, tuple[str, ...]]] = [
    # ---- torchvision extension.py _check_cuda_version, without its first sentence ----
    (  # the title: the message's middle sentence alone
        "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8.",
        "https://github.com/nerdyrodent/AVeryComfyNerd/issues/8",
        VISION_15,
    ),
    (  # a Rich traceback's wrapped lines, from its second line on
        "CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA \nVersion=11.8. Please reinstall the "
        "torchvision that matches your PyTorch \ninstall.",
        "https://github.com/acheong08/Diffusion-ColabUI/issues/108",
        VISION_15,
    ),
    (  # the last wrapped line but one, and the last
        "Version=11.8. Please reinstall the torchvision that matches your PyTorch \ninstall.",
        "https://github.com/acheong08/Diffusion-ColabUI/issues/108",
        VISION_15,
    ),
    (  # 0.16's f-string, "different CUDA major versions" (0.14 on), as formatted for CUDA 12.1 / 11.8
        "PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please reinstall the torchvision "
        "that matches your PyTorch install.",
        VISION_SRC.format(tag="v0.16.0"),
        VISION_16,
    ),
    (  # 0.4's str.format, as formatted for CUDA 10.0 / 9.2
        "PyTorch has CUDA Version=10.0 and torchvision has CUDA Version=9.2. Please reinstall the torchvision "
        "that matches your PyTorch install.",
        VISION_SRC.format(tag="v0.4.0"),
        VISION_4,
    ),
    # ---- torchaudio _check_cuda_version, without its first sentence ----
    (  # the report's quote of the message's middle sentence (the next import then met a circular import)
        "PyTorch has CUDA version 12.1 whereas TorchAudio has CUDA version 11.8",
        "https://github.com/rsxdalv/TTS-WebUI/issues/433",
        AUDIO,
    ),
    (  # the report's title: the middle sentence alone
        "PyTorch has CUDA version 11.8 whereas TorchAudio has CUDA version 11.7",
        "https://github.com/mli/autocut/issues/106",
        AUDIO,
    ),
    (  # the tail of the report's message
        "PyTorch has CUDA version 11.8 whereas TorchAudio has CUDA version 11.7. Please install the TorchAudio "
        "version that matches your PyTorch version.",
        "https://github.com/mli/autocut/issues/106",
        AUDIO,
    ),
    (  # 0.13's _extension.py, the last sentence on a line of its own
        "Please install the TorchAudio version that matches your PyTorch version.",
        "https://github.com/pytorch/audio/blob/v0.13.0/torchaudio/_extension.py",
        AUDIO_13,
    ),
    (
        "Please install the TorchAudio version that matches your PyTorch version.",
        AUDIO_SRC.format(tag="v2.4.0"),
        AUDIO,
    ),
    # ---- torch's texts for torchaudio's operators ----
    (  # _check_cuda_version's torch.ops.torchaudio.cuda_version() with no torchaudio library loaded
        "RuntimeError: No such operator torchaudio::cuda_version",
        "https://github.com/pytorch/audio/issues/2832",
        AUDIO_13,
    ),
    (  # torchaudio 0.10 (built for torch 1.10) beside torch 1.11: no CUDA kernel of its RNN-T loss
        "NotImplementedError: Could not run 'torchaudio::rnnt_loss' with arguments from the 'CUDA' backend.",
        "https://github.com/NVIDIA-NeMo/Speech/pull/3637",
        AUDIO_10,
    ),
]


def _rule(stack: tuple[str, ...]) -> Rule:
    return rule_of(BASE, *stack)


@pytest.mark.parametrize(("message", "source", "stack"), CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_each_text_is_predicted_for_its_pair(message: str, source: str, stack: tuple[str, ...]) -> None:
    assert source.startswith("https://github.com/")
    rule = _rule(stack)
    assert rule.signature is not None and rule.signature.search(message), source


@pytest.mark.parametrize(("message", "source", "stack"), CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_texts_are_the_packages_own_not_every_pairs(message: str, source: str, stack: tuple[str, ...]) -> None:
    """Each text is its package's own (``OWN_MESSAGES``): a torch/Triton pair does not claim it."""
    dist = "torchaudio" if any(s.startswith("lib.torchaudio") for s in stack) else "torchvision"
    assert compile_signature(OWN_MESSAGES[dist]).search(message), source
    rule = _rule(TRITON)
    assert rule.signature is not None and not rule.signature.search(message)


# Not the pair's failure: another library's CUDA check and reinstall advice, torch's own aten operators and
# other extensions' op namespaces, an unrelated CUDA version line
OTHERS: list[tuple[str, tuple[str, ...]]] = [
    (UNRELATED, VISION_15),
    ("PyTorch has CUDA version 12.1 whereas MyExt has CUDA version 11.8.", AUDIO),
    ("PyTorch has CUDA Version=11.7 and mmcv has CUDA Version=11.8.", VISION_15),
    ("Please reinstall the mmcv that matches your PyTorch install.", VISION_15),
    ("Please install the MyExt version that matches your PyTorch version.", AUDIO),
    ("NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend.", AUDIO_10),
    (
        "NotImplementedError: Could not run 'torchcodec_ns::create_from_tensor' with arguments from the 'CPU' backend.",
        AUDIO,
    ),
    ("RuntimeError: No such operator my_ext::cuda_version", AUDIO_13),
    ("RuntimeError: No such operator aten::foo", AUDIO_13),
    ("CUDA Version: 12.2", VISION_16),
]


@pytest.mark.parametrize(("message", "stack"), OTHERS)
def test_other_failures_are_not_predicted(message: str, stack: tuple[str, ...]) -> None:
    rule = _rule(stack)
    assert rule.signature is not None and not rule.signature.search(message)


def test_through_pytest_torchaudio_cuda_kernel_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, CORPUS[-1][0], AUDIO_10, uses="torchaudio", env=BASE, error="NotImplementedError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_through_pytest_torchvision_cuda_tail_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(pytester, CORPUS[0][0], VISION_15, uses="torchvision", env=BASE)
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


# A same-release build for another CUDA (torch 2.0.0+cu117 beside torchvision 0.15.1+cu118) is no pair
# mismatch but an extension built for another torch: that check claims the same sentences.
SAME_RELEASE_OTHER_CUDA = ("platform=cuda", "torch=2.0.0+cu117", "lib.torchvision=0.15.1+cu118")


@pytest.mark.parametrize(
    "message",
    sorted(
        {m for m, _, _ in CORPUS if "CUDA" in m and "::" not in m} | {m for m, _, _ in CORPUS if m.startswith("Please")}
    ),
)
def test_the_cuda_check_sentences_are_an_other_build_extensions_too(message: str) -> None:
    assert compile_signature(extension_torch.PREDICTS).search(message), message


@pytest.mark.parametrize(
    "message",
    [
        "PyTorch has CUDA version 12.1",  # half a sentence naming no extension
        "Please reinstall the NVIDIA driver",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ],
)
def test_other_cuda_texts_are_not_an_other_build_extensions(message: str) -> None:
    assert not compile_signature(extension_torch.PREDICTS).search(message), message


def test_a_same_release_build_for_another_cuda_gets_the_extension_finding() -> None:
    found = extension_torch.check(apply_overrides(BASE, list(SAME_RELEASE_OTHER_CUDA)))
    assert [f.uses for f in found] == [("torchvision",)], found

"""``requirement-not-met``: what users meet when torchvision, torchaudio or torchtext does not match torch.

Each message is quoted verbatim from the public report beside it; the finding for a broken
torch/domain-library pair must predict it (so the test ends known-bad), and an unrelated failure
of the same test must still end ``fail``.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.10.14", os="Linux")
# torchvision 0.19.0 declares torch==2.4.0 (PyPI); torchaudio 2.4.0 declares torch==2.4.0
VISION = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchvision=0.19.0")
AUDIO = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchaudio=2.4.0")
TEXT = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchtext=0.17.0")  # torchtext 0.17.0: torch==2.2.0

# (message, source, stack): each quoted from the report
MESSAGES = (
    (  # torchvision 0.19's _meta_registrations on a torch before 2.4
        "AttributeError: module 'torch.library' has no attribute 'register_fake'",
        "https://github.com/oobabooga/textgen/issues/6373",
        VISION,
    ),
    ("RuntimeError: operator torchvision::nms does not exist", "https://github.com/pytorch/vision/issues/8985", VISION),
    (  # a prebuilt torchvision on a torch 2.8 main build that registers its own Meta nms
        "RuntimeError: register_fake(...): the operator torchvision::nms already has an DispatchKey::Meta "
        "implementation via a pre-existing torch.library or TORCH_LIBRARY registration. Please either remove that "
        "registration or don't call register_fake.",
        "https://github.com/intel/torch-xpu-ops/issues/1545",
        VISION,
    ),
    ("RuntimeError: No such operator torchvision::nms", "https://github.com/pytorch/vision/issues/1405", VISION),
    (
        "ImportError: /home/guobaozi/anaconda3/envs/PkuNet_apex/lib/python3.7/site-packages/torchvision/_C.so: "
        "undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
        "https://github.com/GOATmessi8/ASFF/issues/52",
        VISION,
    ),
    (  # a torchvision ROCm wheel beside a CUDA torch
        "UserWarning: Failed to load image Python extension: 'libc10_hip.so: cannot open shared object file: "
        "No such file or directory'",
        "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/11343",
        VISION,
    ),
    (
        "torchvision 0.15.2+rocm5.4.2 requires torch==2.0.1, but you have torch 2.0.0+cu118 which is incompatible.",
        "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/11343",
        VISION,
    ),
    (  # pip before 20.3
        "ERROR: torchvision 0.5.0.dev20191110 has requirement torch==1.4.0.dev20191109, but you'll have torch "
        "1.4.0.dev20191110 which is incompatible.",
        "https://github.com/pytorch/pytorch/issues/29530",
        VISION,
    ),
    (
        "ERROR: torchvision 0.9.1 has requirement torch==1.8.1, but you'll have torch 1.9.0.dev20210217+cu112 which "
        "is incompatible.",
        "https://github.com/pytorch/pytorch/issues/56034",
        VISION,
    ),
    (  # conda's classic solver
        "UnsatisfiableError: The following specifications were found to be in conflict:\n  - pytorch=0.3.1\n"
        "  - torchvision=0.2.1 -> pytorch[version='>=0.4']",
        "https://github.com/quark0/darts/issues/9",
        VISION,
    ),
    (
        "UnsatisfiableError: The following specifications were found to be incompatible with each other:",
        "https://github.com/pytorch/pytorch/issues/77463",
        VISION,
    ),
    (
        "RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has "
        "CUDA version 11.8 whereas TorchAudio has CUDA version 11.7. Please install the TorchAudio version that "
        "matches your PyTorch version.",
        "https://github.com/mli/autocut/issues/106",
        AUDIO,
    ),
    (
        "OSError: /usr/local/lib/python3.8/dist-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
        "_ZNK3c107SymBool10guard_boolEPKcl",
        "https://github.com/RangiLyu/nanodet/issues/547",
        AUDIO,
    ),
    (  # macOS
        "ImportError: dlopen(/Users/sethweidman/anaconda3/lib/python3.7/site-packages/_torch_sox.cpython-37m-darwin.so,"
        " 2): Symbol not found: __ZN3c1011CPUTensorIdEv",
        "https://github.com/pytorch/audio/issues/307",
        AUDIO,
    ),
    (
        "Symbol not found: _torch_library_impl",
        "https://github.com/TaterTotterson/microWakeWord-Trainer-AppleSilicon/pull/16",
        AUDIO,
    ),
    ("AttributeError: module 'torch' has no attribute 'classes'", "https://github.com/pytorch/audio/issues/878", AUDIO),
    (
        "OSError: dlopen(/opt/homebrew/lib/python3.10/site-packages/torchtext/lib/libtorchtext.so, 0x0006): Symbol "
        "not found: __ZN2at4_ops19empty_memory_format4callEN3c108ArrayRefIxEENS2_8optionalINS2_10ScalarTypeEEE",
        "https://github.com/pytorch/text/issues/1988",
        TEXT,
    ),
    (
        "OSError: /usr/local/lib/python3.11/dist-packages/torchtext/lib/libtorchtext.so: undefined symbol: "
        "_ZN5torch3jit17parseSchemaOrNameERKSs",
        "https://github.com/pytorch/text/issues/2288",
        TEXT,
    ),
    (  # _assert_has_ops' text pasted through a rich-text source (a typographic apostrophe); 0.16.2 on torch 2.1.2
        "Couldn’t load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible, "
        "or if you had errors while compiling torchvision from source.",
        "https://github.com/glucauze/sd-webui-faceswaplab/issues/168",
        VISION,
    ),
    (  # its second sentence quoted alone (torchvision 0.11.2 beside torch 1.10.1)
        "This can happen if your PyTorch and torchvision versions are incompatible.",
        "https://github.com/Xilinx/Vitis-AI/issues/943",
        VISION,
    ),
    (  # torchvision 0.4.2's cu101 _C beside torch 1.1.0 (CUDA 10.0)
        "ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory.",
        "https://github.com/pytorch/vision/issues/3261",
        VISION,
    ),
    (  # PyPI's CUDA 9.0 torchvision 0.3.0 beside a CPU torch
        "ImportError: libcudart.so.9.0: cannot open shared object file: No such file or directory",
        "https://github.com/pyro-ppl/pyro/pull/1880",
        VISION,
    ),
)


def _rules(*stack: str) -> list[Rule]:
    env = apply_overrides(BASE, list(stack))
    found = [f for f in evaluate(env) if f.check == requirements.ID]
    assert found, f"no {requirements.ID} finding for {stack}"
    return [r for r in compile_rules(found) if r.id == requirements.ID]


@pytest.mark.parametrize(("message", "source", "stack"), MESSAGES)
def test_real_mismatch_messages_are_predicted(message: str, source: str, stack: tuple[str, ...]) -> None:
    assert source.startswith("https://github.com/")
    (rule,) = _rules(*stack)
    assert rule.signature is not None and rule.signature.search(message)


@pytest.mark.parametrize(
    "message",
    [
        UNRELATED,
        "Segmentation fault (core dumped)",
        "RuntimeError: HIP error: invalid device function",
        # conda's Python conflict is another problem than a torch/torchvision pin
        "UnsatisfiableError: The following specifications were found\nto be incompatible with the existing python "
        "installation in your environment:",
        "RuntimeError: operator my_ext::nms does not exist",
    ],
)
def test_other_failures_are_not_predicted(message: str) -> None:
    (rule,) = _rules(*VISION)
    assert rule.signature is not None and not rule.signature.search(message)


def test_a_missing_cuda_runtime_is_torchvisions_own_message_not_every_pairs() -> None:
    """A libcudart of another CUDA is predicted where torchvision's _C is in the pair, not for torchaudio's."""
    (audio,) = _rules(*AUDIO)
    missing = "ImportError: libcudart.so.9.0: cannot open shared object file: No such file or directory"
    assert audio.signature is not None and not audio.signature.search(missing)


def test_through_pytest_register_fake_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, MESSAGES[0][0], VISION, uses="torchvision", env=BASE, error="AttributeError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated

"""An unlabelled torchvision/torchaudio beside a labelled torch: PyPI's wheel, judged as the build it is (a risk).

PyPI's Linux wheels of torch's domain libraries are the default CUDA build of their torch series
(``companion_defaults``); a stack that labels torch but lists ``torchvision==0.16.0`` holds that wheel, or
left the label out. Both ways: the build PyPI's wheel is, the risk where it differs from torch's build
(another vendor, another CUDA major, a CUDA build beside a CPU torch, and before 0.16 another CUDA minor),
none where it is the same or nothing says which, conda's paired builds never read as PyPI's, and through
pytest a predicted failure ends known-bad while an unrelated one stays a failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge import companion_defaults
from pytest_rocmcompat.knowledge.checks import extension_torch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from pytest_rocmcompat.stack.stack_files import load_stack
from pytest_rocmcompat.stack.stack_model import Target
from tests.knowledge.two_ways import predicted_and_unrelated

NEUTRAL = Environment(platform="cpu", python="3.10.14", os="Linux", source="replay")


@pytest.mark.parametrize(
    ("dist", "version", "system", "label"),
    [
        ("torchvision", "0.16.0", "", "cu121"),  # torch 2.1's PyPI wheels: CUDA 12.1
        ("torchaudio", "2.1.0", "Linux", "cu121"),
        ("torchvision", "0.15.2", "", "cu117"),  # torch 2.0: CUDA 11.7
        ("torchvision", "0.20.1", "", "cu124"),  # torch 2.5: CUDA 12.4
        ("torchvision", "0.11.3", "", "cu102"),  # torch 1.10: CUDA 10.2
        ("torchvision", "0.16.0+rocm5.6", "", None),  # labelled: its own build
        ("torchvision", "0.16.0", "Windows", "cpu"),  # PyPI's Windows wheels are CPU builds
        ("torchvision", "0.16.0", "Darwin", None),  # macOS: no GPU build to tell apart
        ("torchvision", "0.19.0.dev20240601", "", None),  # a nightly has no PyPI wheel
        ("xformers", "0.0.28", "", None),  # not a domain library
    ],
)
def test_the_build_of_pypis_wheel(dist: str, version: str, system: str, label: str | None) -> None:
    assert companion_defaults.pypi_default_label(dist, version, system) == label


def _risks(*stack: str, base: Environment = NEUTRAL) -> list[Finding]:
    env = apply_overrides(base, list(stack))
    return [f for f in evaluate(env) if f.check == extension_torch.ID]


@pytest.mark.parametrize(
    ("stack", "says"),
    [
        (("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchvision=0.16.0"), "built for a CUDA 12 torch"),
        (("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchaudio=2.1.0"), "built for a CUDA 12 torch"),
        (("platform=cuda", "torch=2.1.0+cu118", "lib.torchvision=0.16.0"), "built for CUDA 12"),
        (("platform=cpu", "torch=2.1.0+cpu", "lib.torchvision=0.16.0"), "built for a CUDA torch"),
        (("platform=cuda", "torch=2.0.1+cu118", "lib.torchvision=0.15.2"), "built for CUDA 11.7"),  # minor, < 0.16
        # Windows: PyPI's CPU wheel beside a CUDA torch (its operators have no CUDA kernels)
        (("platform=cuda", "torch=2.1.0+cu121", "lib.torchvision=0.16.0", "os=Windows"), "built for the CPU only"),
    ],
)
def test_a_labelled_torch_beside_pypis_wheel_of_another_build_is_a_risk(stack: tuple[str, ...], says: str) -> None:
    (finding,) = _risks(*stack)
    assert finding.uncertain  # the stack may only have left the label out
    assert says in finding.reason and "which the stack gives no build label" in finding.reason
    assert finding.uses and finding.uses[0] in ("torchvision", "torchaudio")


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=cuda", "torch=2.1.0+cu121", "lib.torchvision=0.16.0"),  # the same build as PyPI's
        ("platform=cuda", "torch=2.1.0", "lib.torchvision=0.16.0"),  # both PyPI's
        ("platform=cuda", "torch=2.0.1+cu117", "lib.torchvision=0.15.2"),
        ("platform=cuda", "torch=2.1.0+cu123", "lib.torchvision=0.16.0"),  # another minor, from 0.16 accepted
        ("platform=cpu", "torch=2.1.0+cpu", "lib.torchvision=0.16.0", "os=Windows"),  # both CPU builds
        ("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchvision=0.16.0", "os=Darwin"),
        ("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchvision=0.16.0+rocm5.6"),
    ],
)
def test_no_risk_where_the_builds_agree_or_nothing_says(stack: tuple[str, ...]) -> None:
    assert _risks(*stack) == []


def test_condas_domain_libraries_take_torchs_build(tmp_path: Path) -> None:
    """The conda solver pairs them with conda's torch build: not PyPI's wheels, no risk."""
    text = (
        "# platform: linux-64\npython=3.10.14=h955ad1f_0\npytorch=2.1.0=py3.10_cuda11.8_cudnn8.7.0_0\n"
        "torchvision=0.16.0=py310_cu118\ntorchaudio=2.1.0=py310_cu118\n"
    )
    path = tmp_path / "conda.txt"
    path.write_text(text, encoding="utf-8")
    packages = load_stack(str(path), Target()).packages
    assert packages["torch"] == "2.1.0+cu118"
    assert packages["torchvision"] == "0.16.0+cu118" and packages["torchaudio"] == "2.1.0+cu118"
    stack = [
        "platform=cuda",
        *(f"{'' if n == 'torch' else 'lib.'}{n}={v}" for n, v in packages.items() if n != "python"),
    ]
    assert _risks(*stack) == []


# torchvision's text when its CUDA _C does not load beside a ROCm torch (the image extension's warning),
# AUTOMATIC1111/stable-diffusion-webui#11343 (the opposite pairing, the same load failure)
LOAD = (
    "UserWarning: Failed to load image Python extension: 'libc10_hip.so: cannot open shared object file: "
    "No such file or directory'"
)


def test_through_pytest_the_load_failure_is_known_bad_and_another_stays_a_failure(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "torch=2.1.0+rocm5.6", "lib.torchvision=0.16.0")
    predicted, unrelated = predicted_and_unrelated(pytester, LOAD, stack, uses="torchvision", env=NEUTRAL)
    assert predicted["rocm_rule"] == extension_torch.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated

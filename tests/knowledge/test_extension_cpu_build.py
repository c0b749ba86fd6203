"""A CPU-only build of a torch extension beside a GPU torch, and a GPU build beside a CPU-only torch.

torchvision's setup.py compiles its CUDA/HIP kernels only where the building torch has a GPU
(``BUILD_CUDA_SOURCES``, pytorch/vision setup.py@004ebb5): a ``+cpu`` build registers ``nms`` and the
other operators for the CPU alone, so they fail on GPU tensors (a risk: only code calling them meets
it); a GPU build links torch's ``libc10_cuda.so``, absent from a CPU-only torch (also a risk: torchvision
loads its ``_C`` in a try/except, so only its operators fail).
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import extension_torch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

# ultralytics/ultralytics#7713 (answered there: "cuda version pytorch is installed, but torchvision is
# cpu version installed"): the dispatcher lists the CPU backends only
CPU_BUILD_ON_CUDA = (
    "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be "
    "because the operator doesn't exist for this backend, or was omitted during the selective/custom build process "
    "(if using custom build). 'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU, "
    "BackendSelect, Python, Named, Conjugate, Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU]."
)
# pyg-team/pytorch_geometric#3904 (title): PyG's CUDA wheels on a CPU-only torch
GPU_BUILD_ON_CPU = "OSError: libc10_cuda.so: cannot open shared object file: No such file or directory"


def _found(*assignments: str) -> list:
    env = apply_overrides(Environment(os="Linux"), list(assignments))
    return [f for f in evaluate(env) if f.check == extension_torch.ID]


def test_a_cpu_build_beside_a_gpu_torch_is_a_risk_for_its_gpu_operators() -> None:
    for platform, torch in (("cuda", "2.5.1+cu124"), ("rocm", "2.5.1+rocm6.2")):
        (finding,) = _found(f"platform={platform}", f"torch={torch}", "lib.torchvision=0.20.1+cpu")
        assert finding.uncertain and finding.uses == ("torchvision",)
        assert "built for the CPU only" in finding.reason and "vision/blob/004ebb5" in finding.link


def test_a_gpu_build_beside_a_cpu_torch_is_a_risk_too() -> None:
    """torchvision loads its ``_C`` in a try/except (``torchvision/extension.py``): its Python parts work."""
    (finding,) = _found("platform=cpu", "torch=2.5.1+cpu", "lib.torchvision=0.20.1+cu124")
    assert finding.uncertain and "libc10_cuda.so" in finding.reason
    (pyg,) = _found("platform=cpu", "torch=2.1.0+cpu", "lib.torch-scatter=2.1.2+pt21cu121")
    assert "a CUDA torch" in pyg.reason


@pytest.mark.parametrize(
    "assignments",
    [
        ("platform=cuda", "torch=2.5.1+cu124", "lib.torchvision=0.20.1+cu124"),
        ("platform=cpu", "torch=2.5.1+cpu", "lib.torchvision=0.20.1+cpu"),
        ("platform=cuda", "torch=2.5.1+cu124", "lib.torchvision=0.20.1"),  # an untagged extension
    ],
)
def test_matching_or_unlabelled_builds_are_not_judged(assignments: tuple[str, ...]) -> None:
    assert not [f for f in _found(*assignments) if "CPU" in f.reason]


def test_the_verbatim_failures_are_predicted_and_a_generic_one_is_not() -> None:
    predicts = re.compile(extension_torch.PREDICTS)
    assert predicts.search(CPU_BUILD_ON_CUDA)
    # torch's own GPU libraries missing: only the GPU-build-on-CPU-torch finding predicts it
    assert not predicts.search(GPU_BUILD_ON_CPU)
    (finding,) = _found("platform=cpu", "torch=2.5.1+cpu", "lib.torchvision=0.20.1+cu124")
    own = re.compile(finding.predicts)
    assert own.search(GPU_BUILD_ON_CPU) and own.search("OSError: libc10_hip.so: cannot open shared object file")
    for generic in ("OSError: libjpeg.so.8: cannot open shared object file", "RuntimeError: CUDA error: out of memory"):
        assert not predicts.search(generic) and not own.search(generic)


def test_an_untagged_torch_is_judged_as_its_default_pypi_build() -> None:
    (finding,) = _found("platform=cuda", "torch=2.5.1", "lib.torchvision=0.20.1+cpu")
    assert "2.5.1+cu124" in finding.reason and finding.uncertain


def test_both_ways_through_pytest_and_a_pass_stands(pytester: pytest.Pytester) -> None:
    stack = ("platform=cuda", "torch=2.5.1+cu124", "lib.torchvision=0.20.1+cpu")
    cases = run_cases(pytester, CPU_BUILD_ON_CUDA, stack, uses="torchvision")
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"].startswith(extension_torch.ID)
    # an unrelated failure stays a failure, and a risk names no cause for it
    assert cases["test_unrelated"].get("rocm_outcome", "fail") == "fail"
    assert (
        cases["test_unrelated"].get("rocm_note", "").startswith("risk ")
        and "likely cause" not in cases["test_unrelated"]["rocm_note"]
    )
    assert "rocm_rule" not in cases["test_elsewhere"]


def test_a_replay_judges_only_the_extensions_it_names() -> None:
    """A ``--rocm-set`` replay's stack is what it states: the base machine's extensions are not part of it."""
    base = Environment(os="Linux", platform="cuda", torch="2.9.0+cu128", libraries={"torchao": "0.13.0"})
    assert [f for f in evaluate(base) if f.check == extension_torch.ID]  # the machine itself: judged
    assert not [f for f in evaluate(apply_overrides(base, ["torch=2.5.1+cu124"])) if f.check == extension_torch.ID]
    named = apply_overrides(base, ["torch=2.5.1+cu124", "lib.torchao=0.13.0"])
    assert [f for f in evaluate(named) if f.check == extension_torch.ID]

"""``torch-cpu-build``: a torch without CUDA or HIP on a stack with GPUs, and the texts such a build prints."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pytest_rocmcompat.knowledge.checks import torch_cpu_build
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
SIGNATURE = compile_signature(PREDICTS[torch_cpu_build.ID])


def _findings(*stack: str, base: Environment = BASE) -> list[Finding]:
    env = apply_overrides(base, list(stack)) if stack else base
    return [f for f in evaluate(env) if f.check == torch_cpu_build.ID]


# ---- which stacks ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stack", "reason"),
    [
        (
            ("arch=sm_90", "torch=2.5.1+cpu"),
            "torch 2.5.1+cpu is built without CUDA or HIP (its +cpu label), but the stack's GPUs are CUDA (sm_90)",
        ),
        (
            ("arch=gfx942", "torch=2.1.0+cpu.cxx11.abi"),
            "torch 2.1.0+cpu.cxx11.abi is built without CUDA or HIP (its +cpu.cxx11.abi label), "
            "but the stack's GPUs are ROCm (gfx942)",
        ),
        (
            ("platform=cuda", "torch=2.7.0+xpu"),
            "torch 2.7.0+xpu is built without CUDA or HIP (its +xpu label), but the stack's GPUs are CUDA "
            "(platform cuda)",
        ),
        (
            ("arch=sm_86", "os=macOS", "torch=2.2.2"),
            "torch 2.2.2 on macOS has no CUDA or ROCm build, but the stack's GPUs are CUDA (sm_86)",
        ),
    ],
)
def test_a_build_without_gpu_code_on_a_gpu_stack_is_a_problem(stack: tuple[str, ...], reason: str) -> None:
    (finding,) = _findings(*stack)
    assert finding.reason == f"{reason}: torch cannot use them"
    assert not finding.uncertain and not finding.conditional
    assert finding.markers == ("gpus",) and "suites/gpu" in finding.nodeids and not finding.uses
    assert "download.pytorch.org/whl/" in finding.fix


def test_an_untagged_torch_on_windows_is_a_risk_and_on_linux_is_none() -> None:
    (finding,) = _findings("arch=sm_89", "os=Windows", "torch=2.3.1")
    assert finding.uncertain and "PyPI's Windows wheels are CPU-only" in finding.reason
    assert finding.link == torch_cpu_build.WINDOWS_SOURCE
    # an untagged torch on Linux is the default CUDA wheel (knowledge/derived_facts.py), no CPU build
    assert _findings("arch=sm_89", "os=Linux", "torch=2.3.1") == []


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=sm_90", "torch=2.5.1+cu124"),  # a CUDA build
        ("arch=gfx90a", "torch=2.5.1+rocm6.2"),  # a ROCm build
        ("torch=2.5.1+cpu",),  # no GPU stated: a CPU stack, nothing to use
        ("platform=cpu", "torch=2.5.1+cpu"),
        ("arch=sm_90",),  # no torch
        ("arch=sm_90", "torch=2.5.1+cpuonly"),  # not the label of a CPU build (it must be cpu, cpu.xxx or cpu_xxx)
    ],
)
def test_builds_with_gpu_code_and_stacks_without_gpus_are_no_problem(stack: tuple[str, ...]) -> None:
    assert _findings(*stack) == []


def test_a_probed_torch_without_cuda_or_hip_is_a_cpu_build() -> None:
    """A live probe reads torch.version.cuda/.hip (probe/native_child.py): both None is a build without GPU code."""
    gpus = (GPU(0, "NVIDIA H100 80GB HBM3", "sm_90"),)
    probed = Environment(platform="cuda", gpus=gpus, torch="2.6.0a0+gitabc", torch_archs=(), os="Linux")
    (finding,) = _findings(base=probed)
    assert finding.reason.startswith("torch 2.6.0a0+gitabc is built without CUDA or HIP (probed)")
    # the same torch with CUDA recorded, code targets probed or stated, or torch never probed, is no problem
    assert (
        _findings(base=Environment(platform="cuda", gpus=gpus, torch="2.6.0a0+gitabc", torch_archs=(), cuda="12.4"))
        == []
    )
    assert _findings(base=Environment(platform="cuda", gpus=gpus, torch="2.6.0a0+gitabc", torch_archs=("sm_90",))) == []
    assert _findings(base=Environment(platform="cuda", gpus=gpus, torch="2.6.0a0+gitabc")) == []


def test_the_rule_reaches_gpu_tests_only() -> None:
    env = apply_overrides(BASE, ["arch=sm_90", "torch=2.5.1+cpu"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == torch_cpu_build.ID]
    assert rule.applies_to.markers == ("gpus",) and rule.applies_to.uses == () and not rule.applies_to.everything


# ---- the texts: printed by a real CPU build of torch ---------------------------------------------
_CALLS = r"""
import json, warnings
import torch
warnings.simplefilter("ignore")
calls = {
    "tensor.to(cuda)": lambda: torch.zeros(1).to("cuda"),
    "tensor on cuda": lambda: torch.zeros(1, device="cuda:0"),
    "module.cuda()": lambda: torch.nn.Linear(2, 2).cuda(),
    "get_device_properties": lambda: torch.cuda.get_device_properties(0),
    "synchronize": lambda: torch.cuda.synchronize(),
    "set_device": lambda: torch.cuda.set_device(0),
    "nccl.version": lambda: torch.cuda.nccl.version(),
    "Stream": lambda: torch.cuda.Stream(),
    "pin_memory": lambda: torch.zeros(1, pin_memory=True),
    "nccl process group": lambda: torch.distributed.init_process_group(
        "nccl", init_method="tcp://127.0.0.1:1", rank=0, world_size=1),
}
out = {}
for name, call in calls.items():
    try:
        call()
        out[name] = None
    except Exception as exc:
        out[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps({"cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None), "errors": out}))
"""


def test_every_error_a_real_cpu_build_raises_for_gpu_code_is_predicted() -> None:
    pytest.importorskip("torch")
    done = subprocess.run([sys.executable, "-c", _CALLS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    if seen["cuda"] or seen["hip"]:
        pytest.skip("the installed torch is a GPU build (these texts come from a CPU build)")
    errors = seen["errors"]
    assert all(errors.values()), f"a CPU build ran GPU code without an error: {errors}"
    unclaimed = {name: text for name, text in errors.items() if not SIGNATURE.search(text)}
    assert unclaimed == {}


# Texts quoted from public reports (where the test above cannot produce them: a checkpoint saved on a GPU)
@pytest.mark.parametrize(
    ("message", "source"),
    [
        (
            'raise AssertionError("Torch not compiled with CUDA enabled") AssertionError: Torch not compiled with '
            "CUDA enabled",
            "https://github.com/facebookresearch/detectron2/issues/460",
        ),
        (
            "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
            "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') "
            "to map your storages to the CPU.",
            "https://github.com/pytorch/pytorch/blob/v2.5.1/torch/serialization.py",
        ),
    ],
)
def test_quoted_texts_are_predicted(message: str, source: str) -> None:
    assert source.startswith("https://") and SIGNATURE.search(message)


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: Found no NVIDIA driver on your system.",  # a CUDA build without a driver
        "RuntimeError: No CUDA GPUs are available",  # a CUDA build with every device hidden
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "AssertionError: assert torch.cuda.is_available()",  # says nothing of the build
    ],
)
def test_texts_of_gpu_builds_are_not_claimed(message: str) -> None:
    assert not SIGNATURE.search(message)


# ---- through pytest: the predicted failure is known-bad, another stays a failure with the cause ---
def test_predicted_is_known_bad_and_unrelated_fails_with_the_cause(pytester: pytest.Pytester) -> None:
    cases = run_cases(pytester, "Torch not compiled with CUDA enabled", ("torch=2.5.1+cpu",), error="AssertionError")
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"] == torch_cpu_build.ID
    assert cases["test_unrelated"]["rocm_outcome"] == "fail"
    assert cases["test_unrelated"]["rocm_diagnosis"].startswith(f"{torch_cpu_build.ID}: torch 2.5.1+cpu")
    # an unmarked test is a CPU test: the finding does not reach it (a plain failure, the text's own diagnosis)
    elsewhere = cases["test_elsewhere"]
    assert "rocm_rule" not in elsewhere and elsewhere["rocm_diagnosis"].startswith("no-gpu-visible: ")

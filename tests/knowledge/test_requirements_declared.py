"""``requirement-not-met`` on every declared requirement (issue 25, sixth round), on the real generated data.

Each policy of :mod:`pytest_rocmcompat.knowledge.declared_pins` both ways: torch's own Triton pin
(CUDA builds only), its ``nvidia-*`` pins as "same major, not older" (the default PyPI wheel
only), requirements between libraries as declared, installed metadata winning, markers for the
stack's Python and OS, and replays judged on the packages they name.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_rocmcompat.knowledge.checks import dynamo_gate, requirements
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.declared_pins import declared_requires, declared_requires_all
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")  # bench/incidents/run.py's neutral machine
H100 = Environment.load(str(DATA / "env_h100_archs.json"))  # a real stack: torch 2.11.0+cu130, peft, transformers


def _reasons(*stack: str, base: Environment = BASE) -> list[str]:
    return [f.reason for f in evaluate(apply_overrides(base, list(stack))) if f.check == requirements.ID]


# ---- policy 2: torch's own pins ------------------------------------------------------------------
TORCH_251 = "https://pypi.org/project/torch/2.5.1/"


@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("torch=2.5.1", "lib.triton=3.0.0"), "torch 2.5.1 requires triton==3.1.0, installed triton 3.0.0"),
        (("torch=2.5.1+cu121", "lib.triton=3.0.0"), "requires triton==3.1.0"),  # one Triton pin per release
        (("platform=cuda", "torch=2.5.1", "lib.triton=3.0.0"), "torch 2.5.1+cu124 requires triton==3.1.0"),
        (("torch=2.7.1", "lib.triton=3.4.0"), "torch 2.7.1 requires triton==3.3.1"),  # NixOS/nixpkgs#432046
        (("torch=2.5.1", "lib.triton=3.1.0"), None),
        (("platform=rocm", "torch=2.5.1", "lib.triton=3.0.0"), None),
        (("torch=2.5.1+cpu", "lib.triton=3.0.0"), None),  # the CPU wheel pulls no Triton
        (("torch=2.5.1", "lib.triton=3.0.0", "python=3.13.1"), None),  # marker: python_version < "3.13"
        (("torch=2.5.1",), None),  # no Triton in the stack: nothing to compare
    ],
)
def test_torch_triton_pin(stack: tuple[str, ...], found: str | None) -> None:
    reasons = _reasons(*stack)
    assert bool(reasons) is (found is not None)
    if found is not None:
        assert found in reasons[0] and "(https://pypi.org/project/torch/" in reasons[0]


def test_a_rocm_torch_is_judged_by_its_rocm_triton_pin_not_the_cuda_wheels() -> None:
    """PyPI's triton beside torch 2.5.1+rocm6.2: the CUDA wheel's triton==3.1.0 pin is not the one judged, the ROCm
    wheel's pytorch-triton-rocm==3.1.0 is (its triton module; test_companion_messages.py)."""
    (reason,) = _reasons("torch=2.5.1+rocm6.2", "lib.triton=3.0.0")
    assert "the triton module of pytorch-triton-rocm==3.1.0, installed triton 3.0.0" in reason
    assert "(https://pypi.org/project/torch/" not in reason


@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("torch=2.5.1", "lib.nvidia-nccl-cu12=2.20.5"), "requires nvidia-nccl-cu12>=2.21.5,<3, installed"),
        (("torch=2.5.1", "lib.nvidia-cudnn-cu12=8.9.2.26"), "requires nvidia-cudnn-cu12>=9.1.0.70,<10"),
        (("torch=2.5.1", "lib.nvidia-nccl-cu12=2.21.5"), None),  # the pin itself
        (("torch=2.5.1", "lib.nvidia-nccl-cu12=2.23.4"), None),  # upgraded on purpose: same major, newer
        (("torch=2.5.1", "lib.nvidia-cudnn-cu12=9.5.1.17"), None),
        (("torch=2.5.1+cu124", "lib.nvidia-nccl-cu12=2.20.5"), "requires nvidia-nccl-cu12>=2.21.5,<3"),
        (("torch=2.5.1+cu121", "lib.nvidia-nccl-cu12=2.20.5"), None),  # not the default wheel: other pins
        (("torch=2.5.1+rocm6.2", "lib.nvidia-nccl-cu12=2.20.5"), None),
    ],
)
def test_torch_nvidia_pins_same_major_not_older(stack: tuple[str, ...], found: str | None) -> None:
    reasons = _reasons(*stack)
    assert bool(reasons) is (found is not None)
    if found is not None:
        assert found in reasons[0] and f"({TORCH_251})" in reasons[0]


@pytest.mark.parametrize(
    ("os", "found"), [("Darwin 24.1.0", False), ("Windows 10", False), ("", True), ("Linux 6.8", True)]
)
def test_markers_for_the_stack_os(os: str, found: bool) -> None:
    """torch 2.5.1's Triton pin holds on Linux x86_64 only; a stack naming no OS is taken as Linux x86_64."""
    assert bool(_reasons("torch=2.5.1", "lib.triton=3.0.0", base=replace(BASE, os=os))) is found


@pytest.mark.parametrize(
    ("uses", "reached"),
    [
        ({"torch-compile"}, True),
        ({"inductor"}, True),
        ({"vllm"}, False),  # vLLM's reach is a risk of its own (tests/knowledge/test_inductor_users.py)
        ({"triton"}, False),
        ({"torch"}, False),
        (set(), False),
    ],
)
def test_triton_pin_reaches_torch_compile_tests_only(uses: set[str], reached: bool) -> None:
    """Eager torch never imports Triton; a library's own Triton kernels build with any Triton: only Inductor."""
    env = apply_overrides(BASE, ["torch=2.5.1", "lib.triton=3.0.0"])
    (finding,) = [f for f in evaluate(env) if not f.uncertain]
    assert finding.uses == ("torch.compile", "inductor") and finding.nodeids == dynamo_gate.COMPILE_TESTS
    active = ActiveRules(compile_rules([finding]), derive(env))
    assert bool(active.match(ItemFacts("test_x.py::test_x", frozenset(), frozenset(uses)))) is reached
    # an older NCCL breaks loading torch itself: that pair reaches every test using torch
    (both,) = [
        f
        for f in evaluate(apply_overrides(BASE, ["torch=2.5.1", "lib.triton=3.0.0", "lib.nvidia-nccl-cu12=2.20.5"]))
        if not f.uncertain
    ]
    assert {"torch.compile", "inductor", "torch", "nvidia-nccl-cu12"} == set(both.uses)


def test_torch_pins_by_build() -> None:
    default = dict(declared_requires_all("torch", "2.5.1"))
    assert 'triton==3.1.0; platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13"' in (
        default
    )
    assert any(r.startswith("nvidia-nccl-cu12>=2.21.5,<3;") for r in default)
    assert set(default.values()) == {TORCH_251}
    assert [r.split(";")[0] for r, _ in declared_requires_all("torch", "2.5.1+cu118")] == ["triton==3.1.0"]
    assert declared_requires_all("torch", "2.5.1+cpu") == ()
    # a ROCm wheel: none of PyPI's (CUDA) pins, only its own Triton (knowledge/torch_rocm_triton.py)
    assert [r for r, _ in declared_requires_all("torch", "2.5.1+rocm6.2")] == ["pytorch-triton-rocm==3.1.0"]
    assert declared_requires_all("torch", "2.5.1", cuda_build=False) == ()


# ---- policy 3: between libraries --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("lib.peft=0.14.0", "lib.accelerate=0.20.3"), "peft 0.14.0 requires accelerate>=0.21.0, installed accelerate"),
        (("lib.peft=0.14.0", "lib.accelerate=1.2.0"), None),
        (("lib.trl=0.12.0", "lib.transformers=4.45.2"), "trl 0.12.0 requires transformers>=4.46.0"),
        (("lib.trl=0.12.0", "lib.transformers=4.46.0"), None),
        (("lib.transformers=4.46.0", "lib.tokenizers=0.21.0"), "requires tokenizers<0.21,>=0.20"),
        (("lib.transformers=4.46.0", "lib.tokenizers=0.20.3"), None),
        # YanWenKun/Hunyuan3D-2-WinPortable#104: transformers 4.5x beside huggingface-hub 1.x
        (("lib.transformers=4.57.1", "lib.huggingface-hub=1.2.3"), "requires huggingface-hub<1.0,>=0.34.0"),
        (("lib.transformers=4.57.1", "lib.huggingface_hub=0.35.3"), None),
        (("torch=2.4.0", "lib.vllm=0.6.3", "lib.xformers=0.0.28.post1"), "requires xformers==0.0.27.post2"),
        (("torch=2.4.0", "lib.vllm=0.6.3", "lib.xformers=0.0.27.post2"), None),
        (("torch=2.4.0", "lib.vllm=0.6.3", "lib.transformers=4.44.2"), "vllm 0.6.3 requires transformers>=4.45.0"),
        # vLLM's PyPI pins are the CUDA wheel's: a ROCm vLLM is built from source
        (("torch=2.4.0+rocm6.1", "lib.vllm=0.6.3", "lib.xformers=0.0.28.post1"), None),
        (("lib.peft=0.14.0",), None),  # accelerate not in the stack: nothing to check
    ],
)
def test_requirements_between_libraries(stack: tuple[str, ...], found: str | None) -> None:
    reasons = _reasons(*stack)
    assert bool(reasons) is (found is not None)
    if found is not None:
        assert found in reasons[0] and "(https://pypi.org/project/" in reasons[0]


def test_each_pair_is_named_with_its_source() -> None:
    (reason,) = _reasons("torch=2.5.1", "lib.triton=3.0.0", "lib.peft=0.14.0", "lib.accelerate=0.20.3")
    assert sorted(reason.split("; ")) == [
        "peft 0.14.0 requires accelerate>=0.21.0, installed accelerate 0.20.3 (https://pypi.org/project/peft/0.14.0/)",
        "torch 2.5.1 requires triton==3.1.0, installed triton 3.0.0 (https://pypi.org/project/torch/2.5.1/)",
    ]


# ---- policy 1: requirements on torch unchanged -----------------------------------------------------
def test_requirements_on_torch_keep_the_series_reduction() -> None:
    assert declared_requires("xformers", "0.0.28.post3") == (
        ("torch>=2.5,<2.6",),
        "https://pypi.org/project/xformers/0.0.28.post3/",
    )
    assert ("torch>=2.5,<2.6", "https://pypi.org/project/xformers/0.0.28.post3/") in declared_requires_all(
        "xformers", "0.0.28.post3"
    )
    assert _reasons("torch=2.5.0", "lib.xformers=0.0.28.post3") == []  # a patch apart: not reported
    assert _reasons("torch=2.4.1", "lib.xformers=0.0.28.post3") != []
    assert ("torch==2.4.0", "https://pypi.org/project/vllm/0.6.3/") in declared_requires_all("vllm", "0.6.3")


# ---- policy 4: installed metadata wins ----------------------------------------------------------------
def test_installed_metadata_wins_and_is_named() -> None:
    env = apply_overrides(BASE, ["lib.peft=0.14.0", "lib.accelerate=0.20.3"])
    assert [f.check for f in evaluate(replace(env, requires={"peft": ("accelerate>=0.1",)}))] == []
    (finding,) = evaluate(replace(env, requires={"peft": ("accelerate>=0.30",)}))
    assert finding.reason == "peft 0.14.0 requires accelerate>=0.30, installed accelerate 0.20.3 (installed metadata)"


# ---- works-cases and replays -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["env_h100_archs.json", "env_h100_live.json"])
def test_real_recorded_stacks_have_no_finding(name: str) -> None:
    """Two real H100 stacks (torch, triton, peft, transformers, accelerate, tokenizers ... as installed)."""
    env = Environment.load(str(DATA / name))
    assert [f for f in evaluate(env) if f.check == requirements.ID] == []


def test_a_replay_is_judged_on_the_packages_it_names() -> None:
    # the H100's own triton 3.6.0 is not the replayed torch 2.5.1's: not part of the replayed stack
    assert _reasons("torch=2.5.1+cu124", base=H100) == []
    (reason,) = _reasons("torch=2.5.1+cu124", "lib.triton=3.0.0", base=H100)
    assert "torch 2.5.1+cu124 requires triton==3.1.0, installed triton 3.0.0" in reason
    assert _reasons("lib.peft=0.14.0", base=H100) == []  # the machine's accelerate 1.15.0 is not named


def test_pip_freeze_through_rocmcompat_check(tmp_path, capsys) -> None:
    from pytest_rocmcompat.cli.main import main

    freeze = tmp_path / "requirements.txt"
    freeze.write_text("torch==2.5.1\ntriton==3.0.0\nnvidia-nccl-cu12==2.20.5\n", encoding="utf-8")
    main(["check", str(freeze), "--set", "python=3.11.7"])
    out = capsys.readouterr().out
    assert "torch 2.5.1+cu124 requires triton==3.1.0, installed triton 3.0.0" in out
    assert "requires nvidia-nccl-cu12>=2.21.5,<3, installed nvidia-nccl-cu12 2.20.5" in out
    freeze.write_text("torch==2.5.1\ntriton==3.1.0\nnvidia-nccl-cu12==2.21.5\n", encoding="utf-8")
    main(["check", str(freeze), "--set", "python=3.11.7"])
    assert "requirement-not-met" not in capsys.readouterr().out


# ---- what these mismatches print (PREDICTS) ----------------------------------------------------------
# (message as the source quotes it, source); each must match requirement-not-met's signature
VERBATIM: list[tuple[str, str]] = [
    (  # torch 2.4 nightly beside triton 2.3.x: Inductor imports a Triton internal the release lacks
        "LoweringException: ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' "
        "(/home/yanbingj/anaconda3/envs/sam/lib/python3.10/site-packages/triton/compiler/compiler.py)",
        "https://github.com/pytorch/pytorch/issues/127271",
    ),
    (  # torch 2.5's Inductor beside a Triton that moved AttrsDescriptor
        "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' "
        "(I:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\triton\\compiler\\compiler.py)",
        "https://github.com/Comfy-Org/ComfyUI/issues/7106",
    ),
    (  # torch 2.7.1 (declares triton==3.3.1) beside triton 3.4.0
        "LoweringException: AttributeError: type object 'CompiledKernel' has no attribute 'launch_enter_hook'",
        "https://github.com/NixOS/nixpkgs/pull/432046",
    ),
    (  # an NCCL older than the one torch was built against (nvidia-nccl-cu11 2.14.3 loaded)
        "ImportError: /home/runner/.local/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: "
        "undefined symbol: ncclMemFree",
        "https://github.com/rwth-i6/returnn/issues/1802",
    ),
    (  # transformers' own run-time check of what it declares (utils/versions.py)
        "ImportError: huggingface-hub>=0.34.0,<1.0 is required for a normal functioning of this module, "
        "but found huggingface-hub==1.2.3.",
        "https://github.com/YanWenKun/Hunyuan3D-2-WinPortable/issues/104",
    ),
    (  # peft beside a transformers older than the API it imports
        "ImportError: cannot import name 'EncoderDecoderCache' from 'transformers' "
        "(/home_data/home/geyx2023/.conda/envs/llava/lib/python3.10/site-packages/transformers/__init__.py)",
        "https://github.com/haotian-liu/LLaVA/issues/1794",
    ),
]


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_signature_covers_what_the_mismatches_print(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert compile_signature(PREDICTS[requirements.ID]).search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        "ImportError: cannot import name 'foo' from 'tritonclient.utils'",  # another package
        "AttributeError: type object 'Kernel' has no attribute 'launch_enter_hook'",
        "ImportError: cannot import name 'x' from 'transformers_stream_generator'",
    ],
)
def test_signature_leaves_other_failures_alone(message: str) -> None:
    assert compile_signature(PREDICTS[requirements.ID]).search(message) is None


def test_a_python_marker_judged_without_the_stacks_python_says_which_python_judged_it() -> None:
    """gptqmodel 7.7.0 declares a numpy floor per Python: a stack naming no Python is judged for the Python
    running the check, and the reason says so; a stated Python judges it, and the reason names no assumption."""
    from pytest_rocmcompat.knowledge.checks import requirements
    from pytest_rocmcompat.knowledge.checks.registry import evaluate
    from pytest_rocmcompat.stack.environment import Environment
    from pytest_rocmcompat.stack.overrides import apply_overrides

    stack = ["lib.gptqmodel=7.7.0", "lib.numpy=2.0.0"]
    unstated = apply_overrides(Environment(platform="cpu", python=""), stack)
    (found,) = [f for f in evaluate(unstated) if f.check == requirements.ID]
    assert "gptqmodel 7.7.0 requires numpy>=" in found.reason and ": the stack states none)" in found.reason
    stated = apply_overrides(unstated, ["python=3.10.12"])
    (found,) = [f for f in evaluate(stated) if f.check == requirements.ID]
    assert "gptqmodel 7.7.0 requires numpy>=" in found.reason and "states none" not in found.reason

"""Risks of what a stated stack leaves out, confirmed only by a failure that states the mismatch itself.

The NVIDIA driver (``cuda-newer-than-driver:unstated``), and a NumPy 1.x build beside a stated NumPy 2
(``numpy2-abi:unknown-build``); plus the driver's CUDA read from its version (``nvidia_driver_cuda``) and the
newer-minor risk it allows. Both ways through pytest: the self-stating message ends known-bad, an unrelated
failure does not, and a stack that settles the fact gets no risk.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import cuda_driver, numpy_abi
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.nvidia_driver_cuda import driver_cuda
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, run_source

# a neutral machine a report's stack is replayed on (no GPU, no driver)
BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# c10/cuda/CUDAFunctions.cpp (torch 2.x), as torch raises it on a CUDA 11.4 driver
DRIVER_TOO_OLD = (
    "The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by "
    "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
    "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
    "version of the CUDA driver."
)
# NumPy 2.0's numpy/core/_multiarray_umath.py, the first line of its message
NUMPY1_BUILD = (
    "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash. To support both "
    "1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0."
)
SOURCE = """
import pytest

{marker}
def test_predicted():
    raise RuntimeError({text!r})

{marker}
def test_unrelated():
    raise ValueError({unrelated!r})
"""


def _run(pytester: pytest.Pytester, text: str, stack: tuple[str, ...], uses: str = "") -> dict[str, dict[str, str]]:
    marker = f"@pytest.mark.uses({uses!r})" if uses else ""
    return run_source(pytester, SOURCE.format(marker=marker, text=text, unrelated=UNRELATED), stack, env=BASE)


@pytest.mark.parametrize(
    ("driver", "cuda"),
    [
        ("470.82.01", "11.4"),
        ("535.104.05", "12.2"),
        ("552.22", "12.4"),  # Windows numbers R550's releases above it
        ("472.50", "11.4"),
        ("535", "12.2"),  # a branch, as users write it
        ("580.65.06", "13.0"),
        ("590.44.01", None),  # a branch after the table: not guessed
        ("440.33", None),  # before R450
        ("6.8.5", None),  # an amdgpu or kernel version
        ("", None),
    ],
)
def test_the_driver_s_cuda_is_its_branch_s(driver: str, cuda: str | None) -> None:
    assert driver_cuda(driver) == cuda


def test_derived_only_for_an_nvidia_driver() -> None:
    cuda = derive(apply_overrides(BASE, ["platform=cuda", "torch=2.5.1+cu124", "driver=470.82.01"]))
    assert cuda.driver_cuda == "11.4"
    assert any("driver_cuda 11.4 from NVIDIA driver 470.82.01" in n for n in cuda.notes)
    stated = derive(apply_overrides(BASE, ["platform=cuda", "driver=470.82.01", "driver_cuda=12.2"]))
    assert stated.driver_cuda == "12.2"  # a stated fact stands
    rocm = derive(apply_overrides(BASE, ["platform=rocm", "driver=535.104.05"]))
    assert rocm.driver_cuda is None


def test_a_driver_of_an_older_major_is_certain_a_newer_minor_a_risk() -> None:
    def found(driver: str) -> list[tuple[str, bool]]:
        env = derive(apply_overrides(BASE, ["platform=cuda", "torch=2.5.1+cu124", f"driver={driver}"]))
        return [(f.check, f.uncertain) for f in cuda_driver.check(env)]

    assert found("470.82.01") == [("cuda-newer-than-driver", False)]
    assert found("535.104.05") == [("cuda-newer-than-driver:minor", True)]
    assert found("550.54.15") == []
    assert found("570.86.10") == []


def test_an_unstated_driver_is_claimed_by_the_runtime_s_own_refusal(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, DRIVER_TOO_OLD, ("platform=cuda", "torch=2.5.1+cu124"))
    assert cases["test_predicted"].get("rocm_outcome") == "known-bad", cases["test_predicted"]
    assert cases["test_predicted"].get("rocm_rule", "").startswith("cuda-newer-than-driver"), cases["test_predicted"]
    assert cases["test_unrelated"].get("rocm_outcome") != "known-bad", cases["test_unrelated"]


def test_a_stated_driver_new_enough_leaves_the_text_unclaimed(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, DRIVER_TOO_OLD, ("platform=cuda", "torch=2.5.1+cu124", "driver=550.54.15"))
    assert cases["test_predicted"].get("rocm_outcome") != "known-bad", cases["test_predicted"]


def test_a_stated_old_driver_is_certain(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, DRIVER_TOO_OLD, ("platform=cuda", "torch=2.5.1+cu124", "driver=470.82.01"))
    assert cases["test_predicted"].get("rocm_rule") == "cuda-newer-than-driver", cases["test_predicted"]
    assert cases["test_predicted"].get("rocm_outcome") == "known-bad"
    assert cases["test_unrelated"].get("rocm_outcome") != "known-bad"


def test_the_unstated_driver_risk_needs_a_stated_cuda_stack() -> None:
    assert cuda_driver.unstated(apply_overrides(BASE, ["platform=cuda", "torch=2.5.1+cu124"]))
    assert not cuda_driver.unstated(apply_overrides(BASE, ["platform=rocm", "torch=2.5.1+rocm6.2"]))
    assert not cuda_driver.unstated(apply_overrides(BASE, ["platform=cuda", "driver=550.54.15"]))
    assert not cuda_driver.unstated(apply_overrides(BASE, ["platform=cuda", "driver_cuda=12.4"]))


def test_a_numpy1_build_beside_a_stated_numpy2(pytester: pytest.Pytester) -> None:
    stack = ("platform=cuda", "torch=2.3.1", "lib.numpy=2.0.1", "lib.opencv-python=4.9.0.80", "driver=550.54.15")
    cases = _run(pytester, NUMPY1_BUILD, stack)
    assert cases["test_predicted"].get("rocm_outcome") == "known-bad", cases["test_predicted"]
    assert cases["test_predicted"].get("rocm_rule", "").startswith("numpy2-abi"), cases["test_predicted"]
    assert cases["test_unrelated"].get("rocm_outcome") != "known-bad"


def test_numpy1_settles_it(pytester: pytest.Pytester) -> None:
    cases = _run(pytester, NUMPY1_BUILD, ("platform=cuda", "torch=2.3.1", "lib.numpy=1.26.4", "driver=550.54.15"))
    assert cases["test_predicted"].get("rocm_outcome") != "known-bad", cases["test_predicted"]


def test_a_stack_of_numpy2_builds_settles_it(pytester: pytest.Pytester) -> None:
    # torch 2.3 is built against NumPy 2 and the stack names nothing else: no package of it is a NumPy 1.x build
    cases = _run(pytester, NUMPY1_BUILD, ("platform=cuda", "torch=2.3.0+cu121", "lib.numpy=2.0.0rc1"))
    assert cases["test_predicted"].get("rocm_outcome") != "known-bad", cases["test_predicted"]


def test_a_numpy_the_stack_does_not_name_is_not_taken_from_the_text(pytester: pytest.Pytester) -> None:
    # a replay reports nothing about packages its stack does not contain, whatever the failure says
    cases = _run(pytester, NUMPY1_BUILD, ("platform=cuda", "torch=2.3.1", "lib.pandas=2.1.4", "driver=550.54.15"))
    assert cases["test_predicted"].get("rocm_outcome") != "known-bad", cases["test_predicted"]


def test_the_machine_s_numpy_is_not_the_replayed_stack_s() -> None:
    machine = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={"numpy": "2.1.0"})
    assert not numpy_abi.unknown_builds(apply_overrides(machine, ["platform=cuda", "torch=2.3.1"]))
    assert numpy_abi.unknown_builds(apply_overrides(machine, ["platform=cuda", "lib.numpy=2.1.0"]))


# extensions built against another torch, as users reported them
TORCH_ABI_TEXTS = (
    # Dao-AILab/flash-attention#1612 (2025-04-24)
    "/home/<user>/.local/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: "
    "undefined symbol: _ZN3c104cuda9SetDeviceEi",
    # Dao-AILab/flash-attention#709 (2023-12-08)
    "ImportError: /tmp/.local/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
    "undefined symbol: _ZNK3c1017SymbolicShapeMeta18init_is_contiguousEv",
    # sgl-project/sglang#851 (2024-08-02)
    "[rank0]: ImportError: /usr/local/lib/python3.10/dist-packages/transformer_engine_extensions.cpython-310-"
    "x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_"
    "10ScalarTypeEEENS6_INS2_6LayoutEEENS6_INS2_6DeviceEEENS6_IbEE",
    # Dao-AILab/flash-attention#631 (2023-10-24)
    "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
)


@pytest.mark.parametrize("text", TORCH_ABI_TEXTS)
def test_an_extension_built_for_another_torch(pytester: pytest.Pytester, text: str) -> None:
    cases = _run(pytester, text, ("platform=cuda", "torch=2.3.1", "driver=550.54.15"), uses="flash_attn")
    assert cases["test_predicted"].get("rocm_outcome") == "known-bad", cases["test_predicted"]
    assert cases["test_predicted"].get("rocm_rule", "").startswith("extension-built-for-other-torch")
    assert cases["test_unrelated"].get("rocm_outcome") != "known-bad"


def test_an_extension_the_stack_names_is_judged_by_its_build_alone(pytester: pytest.Pytester) -> None:
    # flash-attn 2.5.8 beside torch 2.3.0 works (it has release wheels for torch 2.3): the stack settles it, and
    # a failure naming the extension's symbols is the install's, not the stack's
    stack = ("platform=cuda", "torch=2.3.0+cu121", "lib.flash_attn=2.5.8", "driver=550.54.15")
    cases = _run(pytester, TORCH_ABI_TEXTS[0], stack, uses="flash_attn")
    assert cases["test_predicted"].get("rocm_outcome") != "known-bad", cases["test_predicted"]


def test_a_symbol_that_is_not_torch_s_is_not_an_extension_s_torch() -> None:
    from pytest_rocmcompat.knowledge.checks.extension_torch import TORCH_ABI
    from pytest_rocmcompat.knowledge.rules.signature import Signature

    abi = Signature(TORCH_ABI)
    assert all(abi.search(text) for text in TORCH_ABI_TEXTS)
    # NCCL's own symbol (a library mismatch of another kind), a C++ standard library one
    assert abi.search("libtorch_cuda.so: undefined symbol: ncclCommRegister") is None
    assert abi.search("undefined symbol: _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE") is None


def test_no_extension_risk_without_a_stated_torch() -> None:
    from pytest_rocmcompat.knowledge.checks import extension_torch

    assert extension_torch.unknown_builds(apply_overrides(BASE, ["platform=cuda", "torch=2.3.1"]))
    machine = Environment(platform="cpu", python="3.11.7", os="Linux", torch="2.13.0+cpu")
    assert not extension_torch.unknown_builds(apply_overrides(machine, ["platform=cuda", "lib.flash-attn=2.5.8"]))


# xFormers' own check (xformers/_cpp_lib.py), as users reported it
XFORMERS_OTHER_TORCH = (
    # a CUDA build under a ROCm torch: facebookresearch/xformers#1070 (2024-07-15), unslothai/unsloth#11639
    "WARNING:xformers:WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch 2.3.1+cu121 with CUDA 1201 (you have 2.3.1+rocm6.0)",
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+rocm7.13.0)\n"
    "    Python  3.10.19 (you have 3.13.11)",
)
# the same torch on both sides: not a build for another torch (its Python differs, or the build is broken):
# facebookresearch/xformers#1250 (2025-04-30)
XFORMERS_SAME_TORCH = (
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch 2.6.0+cu118 with CUDA 1107 (you have 2.6.0+cu118)\n"
    "    Python  3.10.17 (you have 3.10.17)"
)


def test_xformers_names_the_torch_it_was_built_for() -> None:
    from pytest_rocmcompat.knowledge.checks.extension_torch import TORCH_ABI
    from pytest_rocmcompat.knowledge.rules.signature import Signature

    abi = Signature(TORCH_ABI)
    assert all(abi.search(text) for text in XFORMERS_OTHER_TORCH)
    assert abi.search(XFORMERS_SAME_TORCH) is None


@pytest.mark.parametrize(
    ("check_id", "text"),
    [
        # ptxas not knowing the GPU: kijai/ComfyUI-WanVideoWrapper#63 (RTX 5090), triton-lang/triton#8539 (sm_121a)
        ("arch-not-in-build", "ptxas fatal  : Value 'sm_120' is not defined for option 'gpu-name'"),
        ("arch-not-in-build", "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"),
    ],
)
def test_a_toolchain_s_own_refusal(check_id: str, text: str) -> None:
    from pytest_rocmcompat.knowledge.checks.registry import PREDICTS
    from pytest_rocmcompat.knowledge.rules.signature import Signature

    assert Signature(PREDICTS[check_id]).search(text) is not None


def test_an_xformers_build_without_cuda_kernels() -> None:
    from pytest_rocmcompat.knowledge.checks.extension_torch import TORCH_ABI
    from pytest_rocmcompat.knowledge.rules.signature import Signature

    # Vchitect/SEINE#27, kijai/ComfyUI-DepthAnythingV2#27: the reason xformers gives for each operator
    text = "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n" + (
        "    xFormers wasn't build with CUDA support"
    )
    assert Signature(TORCH_ABI).search(text) is not None

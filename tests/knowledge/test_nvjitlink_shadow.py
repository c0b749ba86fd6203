"""``cusparse-nvjitlink-older``: cuSPARSE of a newer CUDA 12 release loading an older nvJitLink.

Each message below is quoted verbatim from its public report (the issue title or the traceback in it); the
facts behind the check (which versioned nvJitLink names each ``nvidia-nvjitlink-cu12`` exports, when torch began
preloading the wheel's) are in the module's docstring.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import nvjitlink_shadow
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate, evaluate_risks
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
VERBATIM = (
    (
        "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: "
        "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
        "https://github.com/pytorch/pytorch/issues/111469",
    ),
    (
        "On Kaggle : libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
        "https://github.com/pytorch/pytorch/issues/134929",
    ),
    (
        "ImportError: /home/dp/anaconda3/envs/ComfyUI/lib/python3.11/site-packages/torch/lib/../../nvidia/cusparse/lib/"
        "libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
        "https://github.com/pytorch/pytorch/issues/131312",
    ),
    (
        "[Question]: ImportError: /home/mit/kxyRAG/ragflow/.venv/lib/python3.12/site-packages/torch/lib/../../nvidia/"
        "cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitL",
        "https://github.com/infiniflow/ragflow/issues/4466",
    ),
    (
        "causing `undefined symbol: _nvJitLinkGetErrorLogSize_12_9` at runtime",
        "https://github.com/NVIDIA/cuvs/pull/1794",
    ),
)
# other load failures of the same libraries, which an older nvJitLink does not explain
NOT_CLAIMED = (
    "ImportError: libnvJitLink.so.12: cannot open shared object file: No such file or directory",
    "OSError: libcusparse.so.12: undefined symbol: cusparseSpSV_updateMatrix",
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
)


def findings(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == nvjitlink_shadow.ID]


def risks(*stack: str) -> list:
    env = apply_overrides(BASE, list(stack))
    return [f for f in evaluate_risks(env) if f.check == f"{nvjitlink_shadow.ID}:unstated"]


@pytest.mark.parametrize(("message", "source"), VERBATIM, ids=[s.rsplit("/", 3)[-3] for _, s in VERBATIM])
def test_the_loaders_words_match_the_signature(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert Signature(nvjitlink_shadow.PREDICTS).search(message)


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_other_load_failures_do_not(message: str) -> None:
    assert not Signature(nvjitlink_shadow.PREDICTS).search(message)


def test_cusparse_releases_map_to_the_cuda_torch_pins_them_beside() -> None:
    minors = nvjitlink_shadow.cusparse_cuda_minors()
    assert minors["12.1.0.106"] == 1  # torch 2.1-2.4 (CUDA 12.1)
    assert minors["12.3.1.170"] == 4  # torch 2.5-2.6 (CUDA 12.4)
    assert minors["12.5.4.2"] == 6  # torch 2.7 (CUDA 12.6)


@pytest.mark.parametrize(
    ("path", "torch", "needed"),
    [
        ("/usr/local/cuda-12.1/lib64", "2.5.1", 4),  # pytorch/pytorch#140797's kind: the untagged default is cu124
        ("/usr/local/cuda-12.3/lib64:/usr/lib", "2.4.1+cu124", 4),
        ("/opt/nvidia/hpc_sdk/Linux_x86_64/24.5/cuda/12.2/lib64", "2.5.0.dev20240720+cu124", 4),  # a 2.5 nightly
        ("/usr/local/cuda-12.0/lib64", "2.1.0+cu121", 1),
    ],
)
def test_an_older_toolkit_on_the_library_path_breaks_torch_before_2_6(path: str, torch: str, needed: int) -> None:
    (finding,) = findings("platform=cuda", f"torch={torch}", f"env.LD_LIBRARY_PATH={path}")
    assert finding.everything and not finding.uncertain
    assert f"CUDA 12.{needed}" in finding.reason and "import torch fails" in finding.reason


def test_an_unversioned_toolkit_directory_is_the_stated_toolkit() -> None:
    stack = ("platform=cuda", "torch=2.5.1+cu124", "env.LD_LIBRARY_PATH=/usr/local/cuda/lib64")
    (finding,) = findings(*stack, "cuda=12.2")
    assert "CUDA 12.2" in finding.reason
    assert findings(*stack) == []  # no toolkit stated: which release /usr/local/cuda is, is unknown
    assert findings(*stack, "cuda=12.4") == []  # the toolkit torch was built with


@pytest.mark.parametrize(
    "stack",
    [
        ("torch=2.6.0+cu124", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64"),  # 2.6 preloads the wheel's
        ("torch=2.8.0", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64"),
        ("torch=2.5.1+cu124", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64"),  # the same release
        ("torch=2.5.1+cu124", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.6/lib64"),  # newer: exports 12.4's names too
        ("torch=2.5.1+cu118", "env.LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64"),  # CUDA 11: no nvJitLink
        ("torch=2.5.1+cu124", "env.LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64"),  # no libnvJitLink.so.12 there
        ("torch=2.0.1", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.0/lib64"),  # a CUDA 11.7 wheel
        ("torch=2.5.1+rocm6.2", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64"),
    ],
)
def test_no_finding_where_the_path_cannot_shadow_it(stack: tuple[str, ...]) -> None:
    assert findings("platform=cuda", *stack) == []


def test_an_older_nvjitlink_wheel_where_torch_does_not_pin_one() -> None:
    # torch 2.4.1's CUDA 12.1 wheel requires nvidia-cusparse-cu12==12.1.0.106 and no nvJitLink
    (finding,) = findings("platform=cuda", "torch=2.4.1", "lib.nvidia-nvjitlink-cu12=12.0.140")
    assert "12.0" in finding.reason and "CUDA 12.1" in finding.reason and finding.everything
    # a listed cuSPARSE of CUDA 12.4 (as another package's requirement installs it) needs 12.4's names
    (newer,) = findings(
        "platform=cuda",
        "torch=2.4.1",
        "lib.nvidia-cusparse-cu12=12.3.1.170",
        "lib.nvidia-nvjitlink-cu12=12.1.105",
    )
    assert "CUDA 12.4" in newer.reason
    assert findings("platform=cuda", "torch=2.4.1", "lib.nvidia-nvjitlink-cu12=12.4.127") == []
    # torch 2.5.1 pins nvidia-nvjitlink-cu12==12.4.127 itself: requirement-not-met judges that pin
    assert findings("platform=cuda", "torch=2.5.1", "lib.nvidia-nvjitlink-cu12=12.1.105") == []


def test_a_stated_stack_without_its_library_path_is_a_risk() -> None:
    (risk,) = risks("platform=cuda", "torch=2.5.1", "cuda=12.2")
    assert risk.uncertain and risk.signature_only and risk.everything
    assert "CUDA 12.4" in risk.reason
    assert risks("platform=cuda", "torch=2.6.0", "cuda=12.2") == []
    assert risks("platform=cuda", "torch=2.5.1", "env.LD_LIBRARY_PATH=/usr/lib") == []  # stated: judged by check
    assert risks("platform=cuda", "torch=2.5.1", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64") == []


def test_the_rule_claims_only_the_loaders_words() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "torch=2.5.1", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == nvjitlink_shadow.ID]
    assert rule.applies_to.everything and not rule.at_risk
    assert rule.signature_matches(VERBATIM[1][0]) and not rule.signature_matches(NOT_CLAIMED[0])


def test_the_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    stack = ("platform=cuda", "torch=2.5.1", "env.LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64")
    predicted, unrelated = predicted_and_unrelated(pytester, VERBATIM[2][0], stack)
    assert predicted["rocm_rule"] == nvjitlink_shadow.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated

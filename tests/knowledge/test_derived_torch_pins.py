"""A CUDA stack that names no torch holds the torch its packages pin exactly (derived_facts._torch_from_pins).

torchvision 0.17.0 declares ``torch==2.2.0`` and vLLM 0.6.3 ``torch==2.4.0`` (their PyPI metadata,
knowledge/data/declared.json): pip installs that torch beside them, which is then taken as the
default PyPI wheel like any untagged torch, so the arch, driver and NCCL knowledge reach the stack.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import derived_facts
from pytest_rocmcompat.knowledge.checks import arch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# CUDA's launch error on a GPU the build has no code for, verbatim from https://github.com/Comfy-Org/ComfyUI/issues/9650
NO_KERNEL = "CUDA error: no kernel image is available for execution on the device"


def _env(platform: str = "cuda", torch: str | None = None, **libraries: str) -> Environment:
    return Environment(platform=platform, python="3.11.7", os="Linux", torch=torch, libraries=dict(libraries))


@pytest.mark.parametrize(
    ("libraries", "torch"),
    [
        ({"torchvision": "0.17.0"}, "2.2.0+cu121"),
        ({"vllm": "0.6.3"}, "2.4.0+cu121"),
        ({"torchaudio": "2.5.1", "peft": "0.13.0"}, "2.5.1+cu124"),  # peft pins no torch exactly: no say
        ({"torchvision": "0.19.0", "vllm": "0.6.3"}, "2.4.0+cu121"),  # both pin 2.4.0
        ({"torchvision": "0.17.0+cu118"}, "2.2.0+cu118"),  # a labelled build: torch of that build
    ],
)
def test_the_pinned_torch_is_the_stacks(libraries: dict[str, str], torch: str) -> None:
    env = derived_facts.derive(_env(**libraries))
    assert env.torch == torch
    released = torch.split("+", maxsplit=1)[0]
    prefixes = (f"derived: torch {released} pinned by ", f"derived: torch {torch} pinned by ")
    assert any(n.startswith(prefixes) for n in env.notes), env.notes


@pytest.mark.parametrize(
    "env",
    [
        _env(torchvision="0.17.0", vllm="0.6.3"),  # 2.2.0 and 2.4.0: the pins disagree
        _env(peft="0.13.0"),  # a range, not a pin
        _env(platform="rocm", torchvision="0.17.0"),  # ROCm builds are made against the torch in hand
        _env(torch="2.3.1+cu118", torchvision="0.17.0"),  # a stated torch wins
        # torch as an installed package (a live probe whose torch did not import)
        Environment(platform="cuda", os="Linux", libraries={"torch": "2.2.0+cu118", "torchvision": "0.17.0+cu118"}),
        _env(torchvision="0.17.0+cu118", torchaudio="2.2.0+cu121"),  # builds that disagree
        Environment(platform="cuda", python="3.11.7", os="Windows", libraries={"torchvision": "0.17.0"}),
    ],
)
def test_no_torch_where_the_pins_do_not_say_it(env: Environment) -> None:
    derived = derived_facts.derive(env)
    assert derived.torch == env.torch
    assert not any("pinned by torchvision" in n or "pinned by vllm" in n for n in derived.notes)


def test_sm120_beside_a_vllm_that_pins_an_older_torch_is_certain() -> None:
    """vLLM 0.6.3's torch 2.4.0 (+cu121) has no sm_120 code: the check is certain, not a risk."""
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_120", "lib.vllm=0.6.3"])
    (finding,) = [f for f in evaluate(env) if f.check == arch.ID]
    assert not finding.uncertain and "torch 2.4.0+cu121 has no kernels for sm_120" in finding.reason


def test_through_pytest_predicted_is_known_bad_unrelated_fails(pytester: pytest.Pytester) -> None:
    stack = ("platform=cuda", "arch=sm_120", "lib.torchvision=0.17.0")
    found, unrelated = predicted_and_unrelated(pytester, NO_KERNEL, stack, env=BASE)
    assert found["rocm_rule"] == arch.ID
    assert "rocm_rule" not in unrelated


def test_a_labelled_build_is_judged_as_that_build() -> None:
    """torchvision 0.17.0+cu118 beside an sm_37 GPU: torch 2.2.0+cu118 carries sm_37 (no arch finding), and the
    extension matches its torch (no ABI finding), where the default cu121 wheel would have been claimed.
    """
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_37", "lib.torchvision=0.17.0+cu118"])
    checks = {f.check for f in evaluate(env) if not f.uncertain}
    assert arch.ID not in checks and "extension-built-for-other-torch" not in checks, checks

"""Triton's AMD driver refuses a HIP runtime older than the HIP headers it builds its launcher with.

From Triton 3.5, ``backends/amd/driver.c`` ``checkDriverVersion`` compares ``hipDriverGetVersion``'s major
with ``HIP_VERSION_MAJOR`` of the HIP headers the wheel carries (``include/hip/hip_version.h``; 6 in PyPI's
3.5.0) and raises ``libamdhip64 version %d.%d.%d is not supported! Required major version is >=%d.``.
So PyPI's Triton 3.5 beside a torch that loads ROCm 5's ``libamdhip64`` fails at its first kernel: a
Triton pair's own text (``requirements.OWN_MESSAGES``), claimed where that pair is judged.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.row_checks import rule as rule_of

BASE = Environment(platform="cpu", python="3.10.14", os="Linux")
SOURCE = "https://github.com/triton-lang/triton/blob/v3.5.0/third_party/amd/backend/driver.c"
# driver.c's snprintf at v3.5.0 (read in PyPI's triton 3.5.0 wheel), formatted for ROCm 5.7.1's HIP (5.7.31921)
GATE = "RuntimeError: libamdhip64 version 5.7.31921 is not supported! Required major version is >=6."
# torch 2.3.1's ROCm 5.7 wheel pins pytorch-triton-rocm 2.3.1: PyPI's triton 3.5.0 is another Triton
STACK = ("platform=rocm", "arch=gfx90a", "torch=2.3.1+rocm5.7", "lib.triton=3.5.0")


def test_the_gate_is_a_triton_pairs_own_text() -> None:
    assert compile_signature(requirements.OWN_MESSAGES["triton"]).search(GATE), SOURCE
    assert not compile_signature(requirements.OWN_MESSAGES["torchvision"]).search(GATE)


def test_the_gate_is_claimed_for_pypis_triton_beside_a_rocm5_torch() -> None:
    rule = rule_of(BASE, *STACK)
    assert rule.signature is not None and rule.signature.search(GATE), rule


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: cannot open libamdhip64.so",  # no HIP at all: not a version gate
        "libamdhip64 version is: 6.4.43482",  # the debug log line of an accepted version
        "RuntimeError: HIP error: invalid device function",
    ],
)
def test_other_texts_are_not_the_gate(message: str) -> None:
    assert not compile_signature(requirements.OWN_MESSAGES["triton"]).search(message)

"""The GPU-fault rules of ``known_bad.yaml`` claim a fault however ROCm reports it (their shared ``&rocm-gpu-fault``).

A rule that says "this stack faults on the GPU" (gfx906 with torch 2.5.1+rocm6.2, gfx1151 before ROCm 7.2, gfx12 on
ROCm 7.0-7.1, TunableOp) meets the fault as ROCr prints it, as HIP's queue callback prints it, or as the HIP error the
runtime returns to torch: each form below is quoted from a public report, and each must end ``known-bad`` under
every such rule, while failures that are no fault (out of memory, an assertion, a missing kernel) stay ``fail``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_rocmcompat.matrix.loader import load_matrix

KNOWN_BAD = Path(__file__).resolve().parents[2] / "matrices" / "known_bad.yaml"
FAULT_RULES = (
    "torch-2.5.1-rocm6.2-gfx906-memory-fault",
    "gfx1151-rocm-before-7.2-cwsr-vgpr-crashes",
    "gfx12-rocm-7.0-7.1-hipblaslt-expert-scheduling-faults",
    "rocm-tunableop-memory-access-fault",
)
# (source, verbatim text): HIP's queue callback with a hardware exception, and with an aperture violation (Inductor's
# Triton kernel on ROCm; whisper.cpp on a gfx1151 under ROCm 7), HIP's launch failure as torch raises it (gfx1150,
# ROCm 7.12) and as an older torch named it, and ROCr's own fault line (as test_known_bad_rules quotes it)
FAULTS = (
    (
        "https://github.com/mila-iqia/milabench/pull/397",
        ":0:rocdevice.cpp            :3586: 93411680345 us:  Callback: Queue 0x77ef1a200000 aborting with error : "
        "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016",
    ),
    (
        "https://github.com/pytorch/pytorch/issues/147378",
        ":0:rocdevice.cpp            :3018: 62491722575d us:  Callback: Queue 0x7fa730c00000 aborting with error : "
        "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal "
        "address. code: 0x29",
    ),
    (
        "https://github.com/ggml-org/whisper.cpp/issues/3576",
        "rocdevice.cpp Callback: Queue 0x7fc220400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: "
        "The agent attempted to access memory beyond the largest legal address. code: 0x29",
    ),
    ("https://github.com/ROCm/TheRock/issues/4214", "torch.AcceleratorError: HIP error: unspecified launch failure"),
    ("https://github.com/rocm-arch/python-pytorch-rocm/issues/41", "RuntimeError: HIP error: hipErrorLaunchFailure"),
    (
        "https://github.com/ROCm/ROCm/issues/5581",
        "Memory access fault by GPU node-1 (Agent handle: 0x3158d740) on address 0x731276071000. Reason: Page not "
        "present or supervisor privilege.",
    ),
)
NOT_FAULTS = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB.",
    ":0:rocdevice.cpp :3672: Callback: Queue ... Aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime "
    "failed to allocate the necessary resources.",
    "RuntimeError: HIP error: invalid device function",
    "AssertionError: assert 1 == 2",
)


@pytest.fixture(scope="module")
def rules() -> dict[str, object]:
    return {r.id: r for r in load_matrix(KNOWN_BAD).rules}


@pytest.mark.parametrize("rule_id", FAULT_RULES)
@pytest.mark.parametrize(("url", "text"), FAULTS)
def test_every_form_of_a_gpu_fault_is_claimed(rules, rule_id: str, url: str, text: str) -> None:
    assert rules[rule_id].signature.search(text), f"{rule_id} misses the fault quoted in {url}"


@pytest.mark.parametrize("rule_id", FAULT_RULES)
@pytest.mark.parametrize("text", NOT_FAULTS)
def test_failures_that_are_no_fault_stay_unclaimed(rules, rule_id: str, text: str) -> None:
    assert not rules[rule_id].signature.search(text)


def test_the_family_is_written_once() -> None:
    """The fault rules share one anchored signature (the TunableOp rule adds its segfault), so they cannot drift."""
    raw = KNOWN_BAD.read_text(encoding="utf-8")
    assert raw.count("&rocm-gpu-fault") == 1 and raw.count("*rocm-gpu-fault") == 2
    data = yaml.safe_load(raw)
    by_id = {r["id"]: r for r in data["known_bad"]}
    family = by_id[FAULT_RULES[0]]["signature"]
    assert by_id[FAULT_RULES[1]]["signature"] == by_id[FAULT_RULES[2]]["signature"] == family
    assert by_id[FAULT_RULES[3]]["signature"] == family + "|Segmentation fault"

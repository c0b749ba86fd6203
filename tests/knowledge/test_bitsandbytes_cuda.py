"""``bitsandbytes-cuda-build``: the library bitsandbytes' loader picks, against what its wheel carries."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import bitsandbytes_cuda
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, junit_properties

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
CUDA = "platform=cuda"


def _found(*stack: str) -> list[str]:
    env = apply_overrides(BASE, [CUDA, *stack])
    return [f.reason for f in evaluate(env) if f.check == bitsandbytes_cuda.ID]


@pytest.mark.parametrize(
    ("stack", "missing"),
    [
        # 0.42.0's wheel stops at CUDA 12.3 (its py3-none-any wheel's *.so files)
        (("arch=sm_80", "torch=2.4.0+cu124", "lib.bitsandbytes=0.42.0"), "libbitsandbytes_cuda124.so"),
        # a GPU below 7.5 loads the _nocublaslt variant up to 0.44 (0.43.0 stops at CUDA 12.3)
        (("arch=sm_70", "torch=2.4.0+cu124", "lib.bitsandbytes=0.43.0"), "libbitsandbytes_cuda124_nocublaslt.so"),
        # the highest capability decides: all GPUs below 7.5
        (("arch=sm_61", "torch=2.6.0+cu126", "lib.bitsandbytes=0.43.3"), "libbitsandbytes_cuda126_nocublaslt.so"),
        # no capability known: neither variant shipped
        (("torch=2.6.0+cu126", "lib.bitsandbytes=0.43.1"), "libbitsandbytes_cuda126.so or"),
        # 0.45-0.49: one library per CUDA minor, no _nocublaslt; 0.45.5 stops at 12.8
        (("arch=sm_90", "torch=2.8.0+cu129", "lib.bitsandbytes=0.45.5"), "libbitsandbytes_cuda129.so"),
        (("arch=sm_90", "torch=2.9.0+cu130", "lib.bitsandbytes=0.47.0"), "libbitsandbytes_cuda130.so"),
        # BNB_CUDA_VERSION names a library the wheel does not carry
        (
            ("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=0.45.0", "env.BNB_CUDA_VERSION=131"),
            "libbitsandbytes_cuda131.so",
        ),
        # 0.41/0.42 slice the name (binary_name[:-6]): the _nocublaslt name breaks under an override
        (
            ("arch=sm_70", "torch=2.1.0+cu121", "lib.bitsandbytes=0.41.1", "env.BNB_CUDA_VERSION=118"),
            "libbitsandbytes_cuda121_nocubla118.so",
        ),
        # 0.50: no library of the same CUDA major at all (no cross-major fallback)
        (("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=0.50.0", "env.BNB_CUDA_VERSION=125"), "cuda125.so"),
        (("arch=sm_75", "torch=1.12.1+cu102", "lib.bitsandbytes=0.50.1"), "libbitsandbytes_cuda102.so"),
        # an untagged torch is its default PyPI build (torch 2.6.0 -> +cu124, derived_facts)
        (("arch=sm_90", "torch=2.6.0", "lib.bitsandbytes=0.42.0"), "libbitsandbytes_cuda124.so"),
    ],
)
def test_missing_library_is_found(stack: tuple[str, ...], missing: str) -> None:
    (reason,) = _found(*stack)
    assert missing in reason and "for torch's CUDA" in reason


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=sm_80", "torch=2.1.0+cu121", "lib.bitsandbytes=0.42.0"),  # shipped
        ("arch=sm_70", "torch=2.1.0+cu121", "lib.bitsandbytes=0.42.0"),  # its _nocublaslt shipped
        ("arch=sm_70", "torch=2.6.0+cu124", "lib.bitsandbytes=0.45.0"),  # no _nocublaslt from 0.45
        ("arch=sm_90", "torch=2.8.0+cu129", "lib.bitsandbytes=0.47.0"),
        # 0.50: the nearest library of the same major (12.9 -> 12.8)
        ("arch=sm_90", "torch=2.8.0+cu129", "lib.bitsandbytes=0.50.0"),
        # BNB_CUDA_VERSION names a shipped library
        ("arch=sm_90", "torch=2.9.0+cu130", "lib.bitsandbytes=0.45.0", "env.BNB_CUDA_VERSION=126"),
        # before 0.40.2 the version came from the libcudart on the library path: not judged
        ("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=0.39.1"),
        ("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=0.40.1"),
        # a release after the last loader read (0.50.1), a local build, an unlisted version, none
        ("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=0.50.2", "env.BNB_CUDA_VERSION=125"),
        ("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=0.42.0+cu124"),
        ("arch=sm_90", "torch=2.4.0+cu124", "lib.bitsandbytes=9.9.9"),
        ("arch=sm_90", "torch=2.4.0+cu124"),
    ],
)
def test_served_or_unknown_stacks_say_nothing(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "arch=gfx90a", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.42.0"),
        ("platform=cpu", "torch=2.4.0+cpu", "lib.bitsandbytes=0.42.0"),
    ],
)
def test_not_a_cuda_stack_says_nothing(stack: tuple[str, ...]) -> None:
    env = apply_overrides(BASE, list(stack))
    assert [f for f in evaluate(env) if f.check == bitsandbytes_cuda.ID] == []


def test_finding_is_certain_reaches_bitsandbytes_tests_and_cites_the_loader() -> None:
    env = apply_overrides(BASE, [CUDA, "arch=sm_80", "torch=2.4.0+cu124", "lib.bitsandbytes=0.42.0"])
    (f,) = [f for f in evaluate(env) if f.check == bitsandbytes_cuda.ID]
    assert f.uses == ("bitsandbytes",) and not f.everything and not f.conditional and not f.uncertain
    assert (
        f.link == "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.41.0/bitsandbytes/cuda_setup/main.py"
    )
    assert f.reason.endswith("(its wheel's CUDA libraries: 11.0-11.1, 11.4-11.5, 11.7-11.8, 12.0-12.3)")


def test_the_data_records_the_wheels_libraries() -> None:
    rel = declared_data.release("bitsandbytes", "0.42.0")
    assert rel is not None and "libbitsandbytes_cuda123_nocublaslt.so" in rel.native
    assert declared_data.release("torch", "2.5.1").native == ()  # type: ignore[union-attr]


def test_loader_name_rules_per_range() -> None:
    name = "libbitsandbytes_cuda118_nocublaslt.so"
    assert bitsandbytes_cuda._slice(name, "122") == "libbitsandbytes_cuda118_nocubla122.so"
    assert bitsandbytes_cuda._rstrip(name, "122") == "libbitsandbytes_cuda118_nocublaslt122.so"
    assert bitsandbytes_cuda._sub(name, "122") == "libbitsandbytes_cuda122_nocublaslt.so"
    assert bitsandbytes_cuda._slice("libbitsandbytes_cuda118.so", "122") == "libbitsandbytes_cuda122.so"


# (message as the report or the source at the tag quotes it, source)
VERBATIM = [
    (
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda124.so. Maybe you need to compile it from source?",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1264",
    ),
    (
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so. "
        "Maybe you need to compile it from source?",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/138",
    ),
    (
        "Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/notebooks/bitsandbytes/bitsandbytes/libbitsandbytes_cuda124.so')",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1559",
    ),
    (
        "raise Exception('CUDA SETUP: Setup Failed!')",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.42.0/bitsandbytes/cuda_setup/main.py#L153",
    ),
    (
        "CUDA Setup failed despite CUDA being available. Please run the following command to get more information:",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.43.1/bitsandbytes/cextension.py#L116",
    ),
    (
        'raise RuntimeError(f"Configured CUDA binary not found at {cuda_binary_path}")',
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.46.0/bitsandbytes/cextension.py#L270",
    ),
    (
        'raise RuntimeError(f"No compatible {BNB_BACKEND} binary found at {cuda_binary_path}")',
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.50.0/bitsandbytes/cextension.py#L359",
    ),
    (
        'base_msg = "Attempted to use bitsandbytes native library functionality but it\'s not available.\\n\\n"',
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.48.0/bitsandbytes/cextension.py#L182",
    ),
]


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_signature_matches_the_loaders_messages(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert compile_signature(PREDICTS[bitsandbytes_cuda.ID]).search(message) is not None


def test_signature_is_narrow() -> None:
    sig = compile_signature(PREDICTS[bitsandbytes_cuda.ID])
    assert not sig.search("RuntimeError: CUDA error: out of memory")
    assert not sig.search(UNRELATED)


_TESTS = """
import pytest

@pytest.mark.uses("bitsandbytes")
def test_predicted():
    raise RuntimeError({predicted!r})

@pytest.mark.uses("bitsandbytes")
def test_unrelated():
    raise ValueError({unrelated!r})

def test_elsewhere():
    raise RuntimeError({predicted!r})
"""


def test_through_pytest_predicted_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    env = apply_overrides(BASE, [CUDA, "arch=sm_80", "torch=2.4.0+cu124", "python=3.11.7"])
    (pytester.path / "env.json").write_text(env.to_json(), encoding="utf-8")
    predicted = (
        "Could not find the bitsandbytes CUDA binary at PosixPath('/venv/bitsandbytes/libbitsandbytes_cuda124.so')"
    )
    pytester.makepyfile(test_stack=_TESTS.format(predicted=predicted, unrelated=UNRELATED))
    result = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA",
        "--rocm-set", "lib.bitsandbytes=0.42.0",
    )  # fmt: skip
    result.assert_outcomes(xfailed=1, failed=2)
    cases = junit_properties(pytester.path / "junit.xml")
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"] == bitsandbytes_cuda.ID
    unrelated = cases["test_unrelated"]
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{bitsandbytes_cuda.ID}: bitsandbytes 0.42.0 has no ")
    assert "rocm_rule" not in cases["test_elsewhere"]  # a test that does not use bitsandbytes is not reached

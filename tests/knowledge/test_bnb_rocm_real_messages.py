"""``bitsandbytes-rocm-build``: the texts bitsandbytes really prints on ROCm when its native library is missing or
has no code for the GPU, for every release line a ROCm user meets (PyPI 0.35-0.50, multi-backend-refactor,
ROCm/bitsandbytes' forks, the bitsandbytes-rocm forks), each quoted verbatim beside its source; and the risk a
stack naming no bitsandbytes gets, which now claims the loader's own texts of 0.46-0.50 too.
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge import test_bitsandbytes_rocm_preview, test_bitsandbytes_rocm_shapes, test_check_signatures
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
BNB = "https://github.com/bitsandbytes-foundation/bitsandbytes"
ROCM_FORK = "https://github.com/ROCm/bitsandbytes"
BRONCOTC = "https://github.com/broncotc/bitsandbytes-rocm"

# (message, source): what a bitsandbytes without a usable library for torch's ROCm prints. Each is claimed by
# NO_LIBRARY, the signature of a stack that names no bitsandbytes (and so by PREDICTS too).
NO_LIBRARY_TEXTS = [
    # 0.46-0.49's loader (0.47-0.49 on ROCm): no libbitsandbytes_rocmXY for torch's ROCm
    (
        "RuntimeError: Configured ROCm binary not found at "
        "/home/ubuntu/unsloth-env/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_rocm82.so",
        "https://github.com/amd/playbooks/issues/250",
    ),
    # ... logged by the module-level loader of 0.46 on (0.46.0 cextension.py; 0.50 without the "\n")
    (
        'logger.error(f"bitsandbytes library load error: {error_msg}\\n", exc_info=True)',
        f"{BNB}/blob/0.46.0/bitsandbytes/cextension.py",
    ),
    # 0.50's loader: no library of torch's ROCm major (get_native_library)
    (
        'raise RuntimeError(f"No compatible {BNB_BACKEND} binary found at {cuda_binary_path}")',
        f"{BNB}/blob/0.50.1/bitsandbytes/cextension.py",
    ),
    # the library is there but a runtime library it links is not (0.46's text; 0.47+ f"{BNB_BACKEND} SETUP ...")
    (
        'f"\\n🚨 CUDA SETUP ERROR: Missing dependency: {missing_lib} 🚨\\n\\n"',
        f"{BNB}/blob/0.46.0/bitsandbytes/cextension.py",
    ),
    ("RuntimeError: CUDA SETUP ERROR: Missing dependency: libnvJitLink.so.13", f"{BNB}/issues/1905"),
    # bitsandbytes' own kernel check (CUDA_CHECK_RETURN, "Error %s at line %d in file %s") on a GPU its library
    # has no code for: the rocm_enabled fork on gfx1100, a ROCm build on gfx1031, a CUDA build on an old GPU
    ("Error invalid device function at line 679 in file /bitsandbytes/csrc/ops.hip", f"{ROCM_FORK}/issues/29"),
    ("Error invalid device function at line 224 in file /src/csrc/ops.hip", f"{BNB}/issues/1464"),
    (
        "Error no kernel image is available for execution on the device at line 167 in file "
        "D:\\ai\\tool\\bitsandbytes\\csrc\\ops.cu",
        f"{BNB}/issues/91",
    ),
    # twenty-sixth round: the CUDA wheel's kernel check under ZLUDA on an AMD GPU (a symbol its binary lacks), and
    # 0.43's diagnostics reading a ROCm torch's HIP version ("61") as a CUDA version (MI210, ROCm 6.0.2)
    (
        "Error named symbol not found at line 90 in file D:\\a\\bitsandbytes\\bitsandbytes\\csrc\\ops.cu",
        "https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu-forge/issues/16",
    ),
    ("WARNING: CUDA versions lower than 11 are currently not supported for LLM.int8().", f"{BNB}/issues/1245"),
    # the bitsandbytes-rocm fork (0.35.4) when its libbitsandbytes_hip_nocublaslt.so is absent
    ("CUDA SETUP: Setup Failed!", f"{BRONCOTC}/issues/2"),
    ("raise Exception('CUDA SETUP: Setup Failed!')", f"{BRONCOTC}/blob/1b52f4243f94cd1b81dd1cad5a9465d9d7add858/bitsandbytes/cextension.py"),
]  # fmt: skip

LOADER_ERROR = NO_LIBRARY_TEXTS[0][0]
KERNEL_CHECK = next(m for m, _ in NO_LIBRARY_TEXTS if m.startswith("Error invalid device function at line 679"))

# (symbol, source): ``lib.SYMBOL`` with ``lib = None`` (0.43-0.45, multi-backend-refactor and the ROCm forks set
# it so when no library loads); the first native call a test makes names it in Python's AttributeError
SYMBOLS = [
    ("cdouble_rowcol_quant", f"{BNB}/blob/0.43.3/bitsandbytes/functional.py#L2547"),
    ("ctransform_row2col32", f"{BNB}/blob/0.44.1/bitsandbytes/functional.py#L2669"),
    ("cextractOutliers_turing", f"{BNB}/blob/0.45.5/bitsandbytes/functional.py#L3169"),
    ("cestimate_quantiles_fp32", f"{BNB}/blob/0.43.3/bitsandbytes/functional.py#L610"),
    ("cpipeline_test", f"{BNB}/blob/0.45.5/bitsandbytes/functional.py#L3180"),
    ("get_context", f"{BNB}/blob/0.43.3/bitsandbytes/functional.py#L155"),  # CUBLAS_Context, before lib.cigemm
    ("get_cusparse", f"{BNB}/blob/0.43.3/bitsandbytes/functional.py#L167"),
    ("get_hipsparse", f"{ROCM_FORK}/blob/2f124986059f4203b055da0f241c4cb0b9572786/bitsandbytes/functional.py#L167"),
]

# (message, source): a library that loads but cannot serve the GPU: PREDICTS only (a named release's finding)
PREDICTS_ONLY_TEXTS = [
    # the forks' HIP library built with NO_CUBLASLT (broncotc's Makefile always) stops LLM.int8() (gfx1030)
    ("ERROR: Your GPU does not support Int8 Matmul!", f"{BRONCOTC}/issues/1"),
    (
        'cout << "ERROR: Your GPU does not support Int8 Matmul!" << endl;',
        f"{ROCM_FORK}/blob/22041b208313840a57c546c1071aeeafa23b4230/csrc/ops.hip",
    ),
]

# (message, source): alternatives kept from earlier rounds, quoted for the first time
KEPT_TEXTS = [
    # an AMD user's PyPI bitsandbytes (0.39-0.41) loading its CPU library under a ROCm torch
    (
        "/home/aiprojs/one-click-installers/installer_files/env/lib/python3.10/site-packages/bitsandbytes/"
        "libbitsandbytes_cpu.so: undefined symbol: cadam32bit_grad_fp32",
        "https://github.com/oobabooga/one-click-installers/issues/94",
    ),
    # the stub a failed load leaves (0.46+), raised at the first native call
    (
        'base_msg = "Attempted to use bitsandbytes native library functionality but it\'s not available.\\n\\n"',
        f"{BNB}/blob/0.50.1/bitsandbytes/cextension.py",
    ),
]

# Failures no bitsandbytes library problem explains: none of the check's signatures may claim them
FOREIGN = [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
    "RuntimeError: HIP error: out of memory",
    "Segmentation fault (core dumped)",
    "ImportError: cannot import name 'is_torch_greater_or_equal' from 'transformers.utils'",
    "ModuleNotFoundError: No module named 'bitsandbytes'",
    # bitsandbytes' own check with an error that names no missing code, and its other banners
    "Error out of memory at line 74 in file /src/csrc/ops.hip",
    "Error: Matmul Algo Heuristic didn't return algorithms",
    # a None attribute that is no bitsandbytes symbol, and a near name of one
    "AttributeError: 'NoneType' object has no attribute 'transform'",
    "AttributeError: 'NoneType' object has no attribute 'get_device'",
    # the loaders' lines when a library does load: 0.50's fallback warning (cextension.py at 0.50.1), and 0.35-0.39's
    # "CUDA SETUP: Loading binary {binary_path}..." printed on every import (cextension.py at 0.39.1), here as a
    # bitsandbytes-foundation/bitsandbytes#310 report quotes it
    "No prebuilt binary for ROCm 6.2, loading ROCm 6.4 instead. Set BNB_ROCM_VERSION to override.",
    "CUDA SETUP: Loading binary G:\\ChromeD\\kohya\\kohya_ss\\venv\\lib\\site-packages\\bitsandbytes\\libbitsandbytes_cuda116.dll...",
    "CUDA SETUP: Loading binary /usr/lib/python3/site-packages/bitsandbytes/libbitsandbytes_cuda118.so...",
]


def _unnamed_rule(*stack: str) -> Rule:
    env = apply_overrides(BASE, list(stack))
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == bitsandbytes_rocm.ID]
    return rule


@pytest.mark.parametrize(("message", "source"), NO_LIBRARY_TEXTS)
def test_a_missing_or_unusable_library_is_claimed_even_for_an_unnamed_release(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert compile_signature(bitsandbytes_rocm.NO_LIBRARY).search(message) is not None
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is not None


@pytest.mark.parametrize(("symbol", "source"), SYMBOLS)
def test_a_library_that_did_not_load_is_claimed_at_its_first_native_call(symbol: str, source: str) -> None:
    """Python's own text for ``lib.SYMBOL`` on ``lib = None``, raised here rather than typed."""
    assert source.startswith("https://github.com/")
    with pytest.raises(AttributeError) as raised:
        getattr(None, symbol)
    message = f"AttributeError: {raised.value}"
    assert compile_signature(bitsandbytes_rocm.NO_LIBRARY).search(message) is not None


@pytest.mark.parametrize(("message", "source"), PREDICTS_ONLY_TEXTS)
def test_a_library_without_int8_matmul_is_predicted_for_a_named_release(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is not None
    assert compile_signature(bitsandbytes_rocm.NO_LIBRARY).search(message) is None  # not without a release


@pytest.mark.parametrize(("message", "source"), KEPT_TEXTS)
def test_the_kept_alternatives_match_their_quotes(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is not None


def test_the_reports_are_cited_in_the_module() -> None:
    """Each public report quoted here is named where the held-out citation check reads the check's sources."""
    sources = [s for _, s in (*NO_LIBRARY_TEXTS, *PREDICTS_ONLY_TEXTS, *KEPT_TEXTS) if "/issues/" in s]
    assert sources and [s for s in sources if s not in (bitsandbytes_rocm.__doc__ or "")] == []


@pytest.mark.parametrize("message", FOREIGN)
def test_unrelated_failures_are_not_claimed(message: str) -> None:
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is None


def test_another_librarys_missing_kernel_stays_unclaimed_without_a_release() -> None:
    """HIP's text alone names no library: only bitsandbytes' own check (its file) confirms an unnamed release."""
    assert (
        compile_signature(bitsandbytes_rocm.NO_LIBRARY).search("RuntimeError: HIP error: invalid device function")
        is None
    )
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search("RuntimeError: HIP error: invalid device function")


# ---- stacks that name no bitsandbytes: the risk, and what confirms it ------------------------------------
UNNAMED = [
    ("platform=rocm", "rocm=6.2"),
    ("platform=rocm", "rocm=7.0.2", "arch=gfx942"),
    ("torch=2.5.1+rocm6.2",),
    ("arch=gfx1100",),
    ("platform=rocm", "lib.bitsandbytes=", "rocm=6.4"),  # named without a version
    ("platform=rocm", "rocm=6.2", "requires.bitsandbytes=bitsandbytes"),  # required, unpinned
]


@pytest.mark.parametrize("stack", UNNAMED)
def test_an_unnamed_bitsandbytes_is_a_risk_the_loaders_texts_confirm(stack: tuple[str, ...]) -> None:
    rule = _unnamed_rule(*stack)
    assert rule.at_risk
    for message, _ in NO_LIBRARY_TEXTS:
        assert rule.signature_matches(message), message
    assert not rule.signature_matches("ERROR: Your GPU does not support Int8 Matmul!")
    assert not rule.signature_matches("Segmentation fault (core dumped)")


def test_the_loaders_text_on_an_unnamed_stack_ends_known_bad_through_pytest(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx1100", "rocm=6.2")
    found, unrelated = predicted_and_unrelated(pytester, LOADER_ERROR, stack, uses="bitsandbytes", env=BASE)
    assert found["rocm_rule"] == bitsandbytes_rocm.ID
    assert "rocm_rule" not in unrelated and "rocm_diagnosis" not in unrelated  # a risk names no cause


@pytest.mark.parametrize(
    "stack", [("platform=rocm", "rocm=5.7"), ("arch=gfx1030", "rocm=5.7.1"), ("torch=2.1.2+rocm5.6",)]
)
def test_an_unnamed_bitsandbytes_on_rocm_5_is_a_risk(stack: tuple[str, ...]) -> None:
    """ROCm/bitsandbytes' rocm5.7_internal_testing (0.42.0, "ROCm >= 5.7") is a ROCm 5 build: a verdict no more."""
    (finding,) = bitsandbytes_rocm.check(apply_overrides(BASE, list(stack)))
    assert finding.uncertain and finding.conditional and "has no ROCm 5." in finding.reason
    assert "rocm5.7_internal_testing" in finding.reason
    assert "rocm5.7_internal_testing" in (bitsandbytes_rocm.__doc__ or "")


def test_the_rocm_5_risk_claims_only_bitsandbytes_own_texts() -> None:
    rule = _unnamed_rule("platform=rocm", "rocm=5.7")
    assert rule.at_risk
    assert rule.signature_matches(KERNEL_CHECK)  # bitsandbytes' kernel check, a fork on another GPU
    assert rule.signature_matches(PREDICTS_ONLY_TEXTS[0][0])  # a fork's int8-less library
    assert not rule.signature_matches("RuntimeError: HIP error: invalid device function")  # torch's own


def test_a_named_release_on_rocm_5_stays_a_verdict() -> None:
    (finding,) = bitsandbytes_rocm.check(
        apply_overrides(BASE, ["platform=rocm", "rocm=5.7", "lib.bitsandbytes=0.45.0"])
    )
    assert not finding.uncertain and not finding.conditional


# ---- every alternative of the signature is quoted somewhere --------------------------------------------
def _alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of ``pattern`` (groups kept whole)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*parts, pattern[start:]]


def _quoted() -> list[str]:
    """Every message quoted for this check, here and in its other test files."""
    raised = []
    for symbol, _ in SYMBOLS:
        try:
            getattr(None, symbol)
        except AttributeError as error:
            raised.append(str(error))
    return [
        *(m for m, _ in NO_LIBRARY_TEXTS),
        *(m for m, _ in PREDICTS_ONLY_TEXTS),
        *(m for m, _ in KEPT_TEXTS),
        *raised,
        *(m for m, _ in test_bitsandbytes_rocm_shapes.REPORTS),
        *(m for m, _ in test_bitsandbytes_rocm_shapes.SOURCE),
        *(m for m, _ in test_bitsandbytes_rocm_preview.VERBATIM),
        *(m for c, m, _ in test_check_signatures.VERBATIM if c == bitsandbytes_rocm.ID),
    ]


def test_every_alternative_of_the_signature_is_matched_by_a_quoted_message() -> None:
    quoted = _quoted()
    alternatives = _alternatives(bitsandbytes_rocm.PREDICTS)
    assert len(alternatives) > 20
    unquoted = [a for a in alternatives if not any(re.search(a, m) for m in quoted)]
    assert unquoted == []

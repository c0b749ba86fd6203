"""``requirement-not-met`` on libraries whose own Triton kernels import a Triton API the installed one lacks.

:data:`triton_api_rows.TRITON_API_ROWS` (sourced in its module docstring), merged into
:data:`requirement_tables.RUNTIME_MINIMUMS`: bitsandbytes 0.38.1 to 0.45.0 import
``triton.ops.matmul_perf_model`` on ``import bitsandbytes`` (gone in triton 3.2.0); liger-kernel 0.5.10
imports ``triton.language.extra.libdevice`` (first in triton 3.0.0) on ``import liger_kernel.transformers``;
mamba-ssm 2.0.x calls ``tl.math.log1p`` (gone in triton 3.0.0) in Mamba2's first forward kernel.
Each row both ways through the registry, the failures users met (and the text Python prints for the
import at those Triton releases) predicted by the row's message and the compiled signature, near misses not.
"""

from __future__ import annotations

import re
from functools import partial

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS
from pytest_rocmcompat.knowledge.checks.triton_api_rows import TRITON_API_ROWS
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import assert_both_ways, assert_predicted, reasons, rule

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
_reasons = partial(reasons, BASE)
_rule = partial(rule, BASE)
_BNB = "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1413"
_LIGER = "https://github.com/linkedin/Liger-Kernel/pull/762"
_MAMBA = "https://github.com/state-spaces/mamba/pull/377"


# (stack, the "<dist> <version> requires <requirement>, installed <dep> <version> (<source>)" reported, or None)
CASES: list[tuple[tuple[str, ...], str | None]] = [
    # bitsandbytes 0.38.1 to 0.45.0: triton.ops.matmul_perf_model imported on import bitsandbytes
    (
        ("lib.bitsandbytes=0.45.0", "lib.triton=3.2.0"),
        f"bitsandbytes 0.45.0 requires triton<3.2.0, installed triton 3.2.0 ({_BNB})",
    ),
    (("lib.bitsandbytes=0.38.1", "lib.triton=3.3.1"), "bitsandbytes 0.38.1 requires triton<3.2.0, installed"),
    (("lib.bitsandbytes=0.43.1", "lib.triton=3.5.0"), "bitsandbytes 0.43.1 requires triton<3.2.0, installed"),
    (("lib.bitsandbytes=0.45.0", "lib.triton=3.1.0"), None),  # triton.ops still in the 3.1.0 wheel
    (("lib.bitsandbytes=0.44.1", "lib.triton=3.0.0"), None),
    (("lib.bitsandbytes=0.45.1", "lib.triton=3.2.0"), None),  # its own matmul_perf_model.py (#1413)
    (("lib.bitsandbytes=0.38.0", "lib.triton=3.2.0"), None),  # no bitsandbytes/triton yet
    # liger-kernel 0.5.10: ops/dyt.py's unconditional triton.language.extra.libdevice import
    (
        ("lib.liger-kernel=0.5.10", "lib.triton=2.3.1"),
        f"liger-kernel 0.5.10 requires triton>=3.0.0, installed triton 2.3.1 ({_LIGER})",
    ),
    (("lib.liger_kernel=0.5.10", "lib.triton=3.0.0"), None),
    (("lib.liger-kernel=0.5.10", "lib.triton=3.2.0"), None),
    (("lib.liger-kernel=0.5.9", "lib.triton=2.3.1"), None),  # behind its triton >= 3.0.0 branch
    (("lib.liger-kernel=0.6.0", "lib.triton=2.3.1"), None),  # fixed (#762)
    # mamba-ssm 2.0.x: tl.math.log1p in Mamba2's _chunk_cumsum_fwd_kernel (gone from tl.math in triton 3.0.0)
    (
        ("lib.mamba-ssm=2.0.4", "lib.triton=3.0.0"),
        f"mamba-ssm 2.0.4 requires triton<3.0.0, installed triton 3.0.0 ({_MAMBA})",
    ),
    (("lib.mamba_ssm=2.0.0", "lib.triton=3.1.0"), "mamba-ssm 2.0.0 requires triton<3.0.0, installed triton 3.1.0"),
    (("lib.mamba-ssm=2.0.4", "lib.triton=2.3.1"), None),
    (("lib.mamba-ssm=2.1.0", "lib.triton=3.0.0"), None),  # ops/triton/softplus.py branches (#377)
    (("lib.mamba-ssm=1.2.2", "lib.triton=3.0.0"), None),  # the decoding step only: not tabled
]


@pytest.mark.parametrize(("stack", "found"), CASES)
def test_rows_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    assert_both_ways(BASE, stack, found)


# (stack, the message users met or Python prints, its source)
VERBATIM: list[tuple[tuple[str, ...], str, str]] = [
    (  # import bitsandbytes (0.43.x tree, int8_matmul_mixed_dequantize.py line 12) beside a newer Triton
        ("lib.bitsandbytes=0.43.3", "lib.triton=3.2.0"),
        "ModuleNotFoundError: No module named 'triton.ops'",
        "https://github.com/triton-lang/triton/issues/5471",
    ),
    (
        ("lib.bitsandbytes=0.45.0", "lib.triton=3.2.0"),
        "No module named 'triton.ops' with new triton versions due to removed triton.ops.matmul_perf_model code",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1492",
    ),
    (  # liger-kernel's own report of the same import (ops/geglu.py, line 14) on a Triton without the module
        ("lib.liger-kernel=0.5.10", "lib.triton=2.3.1"),
        "ModuleNotFoundError: No module named 'triton.language.extra.libdevice'",
        "https://github.com/linkedin/Liger-Kernel/pull/79",
    ),
    (  # mamba_ssm/ops/triton/ssd_chunk_state.py's _chunk_cumsum_fwd_kernel launched under Megatron-LM
        ("lib.mamba-ssm=2.0.4", "lib.triton=3.2.0"),
        "[QUESTION] 'triton.language.math' has no attribute 'log1p'",
        "https://github.com/NVIDIA/Megatron-LM/issues/1800",
    ),
    (  # Triton's own report of the name on 3.1.0
        ("lib.mamba-ssm=2.0.0", "lib.triton=3.1.0"),
        "AttributeError: module 'triton.language.math' has no attribute 'log1p'. Did you mean: 'log2'?",
        "https://github.com/triton-lang/triton/issues/4918",
    ),
]


@pytest.mark.parametrize(("stack", "message", "source"), VERBATIM)
def test_the_failures_are_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    assert_predicted(BASE, stack, message, source)


# Near misses no row's message may claim: Triton itself missing, another Triton module, the old ops path
UNCLAIMED = [
    "ModuleNotFoundError: No module named 'triton'",
    "ModuleNotFoundError: No module named 'triton.language'; 'triton' is not a package",
    "ModuleNotFoundError: No module named 'triton.backends.nvidia._C'",
    "ModuleNotFoundError: No module named 'triton.language.extra.cuda'",
    "AttributeError: module 'triton.language.math' has no attribute 'tanh'",
    "ModuleNotFoundError: No module named 'triton_ops'",
    "AttributeError: module 'triton.language' has no attribute 'math'",
    "AttributeError: module 'triton.language' has no attribute 'cumsum'",
    "AttributeError: module 'triton.language.math' has no attribute 'log2'",
    "Segmentation fault (core dumped)",
]


@pytest.mark.parametrize("text", UNCLAIMED)
def test_the_messages_are_narrow(text: str) -> None:
    messages = [r.message for rows in TRITON_API_ROWS.values() for r in rows]
    assert messages and all(messages)
    assert not any(re.search(m, text) for m in messages), text


def test_the_rows_are_merged_into_runtime_minimums() -> None:
    for dist, rows in TRITON_API_ROWS.items():
        assert set(rows) <= set(RUNTIME_MINIMUMS[dist]), dist
        assert all(r.requirement.startswith("triton") for r in rows), dist


def test_an_unnamed_bitsandbytes_beside_triton_32() -> None:
    """bitsandbytes not named: only its row's own message is claimed, for tests that use it."""
    env = apply_overrides(BASE, ["lib.triton=3.2.0"])
    (finding,) = [f for f in requirements.unnamed_findings(env) if f.uses == ("bitsandbytes",)]
    assert finding.signature_only and "releases 0.38.1 to <0.45.1 need triton<3.2.0" in finding.reason
    (rule,) = compile_rules([finding])
    assert rule.signature_matches(VERBATIM[0][1])
    assert not rule.signature_matches("ModuleNotFoundError: No module named 'triton'")
    older = apply_overrides(BASE, ["lib.triton=3.1.0"])
    assert not [f for f in requirements.unnamed_findings(older) if f.uses == ("bitsandbytes",)]

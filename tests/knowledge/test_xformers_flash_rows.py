"""xFormers' own check of an installed flash-attn, one run-time row per range of releases.

The bounds were read in ``xformers/ops/fmha/flash.py`` of every PyPI wheel 0.0.27-0.0.35 (the table's comment says
which releases raise and how each compares); the message is quoted from a public report.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS, runtime_minimums
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.row_checks import assert_predicted, reasons, rule

BASE = Environment(platform="cuda", python="3.11.7", os="Linux")
VERBATIM = (
    (
        ("lib.xformers=0.0.30", "lib.flash-attn=2.8.0.post2"),
        "ImportError: Requires Flash-Attention version >=2.7.1,<=2.7.4 but got 2.8.0.post2.",
        "https://github.com/facebookresearch/xformers/issues/1267",
    ),
)


@pytest.mark.parametrize(("stack", "message", "source"), VERBATIM)
def test_the_import_error_is_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    assert_predicted(BASE, stack, message, source)


@pytest.mark.parametrize(
    ("xformers", "flash", "outside"),
    [
        ("0.0.30", "2.8.0.post2", True),
        ("0.0.30", "2.7.4.post1", False),  # the first three numbers are compared: 2.7.4
        ("0.0.30", "2.6.3", True),
        ("0.0.31.post1", "2.8.0.post2", False),
        ("0.0.31.post1", "2.8.1", True),
        ("0.0.32.post2", "2.8.2", False),
        ("0.0.32.post2", "2.8.3", True),
        ("0.0.35", "2.8.3", False),
        ("0.0.35", "2.8.4", False),
        ("0.0.35", "2.7.0", True),
        ("0.0.29.post3", "2.8.3", False),  # caught and replaced by torch's kernels on CUDA: not tabled
        ("0.0.28", "2.5.6", False),
    ],
)
def test_each_release_range_has_its_own_bounds(xformers: str, flash: str, outside: bool) -> None:
    found = reasons(BASE, f"lib.xformers={xformers}", f"lib.flash-attn={flash}")
    assert bool([r for r in found if "requires flash-attn" in r]) is outside, found


def test_no_row_without_flash_attn_in_the_stack() -> None:
    assert not [r for r in reasons(BASE, "lib.xformers=0.0.30") if "flash-attn" in r]


def test_rows_are_sourced_at_their_tags_and_contiguous() -> None:
    rows = RUNTIME_MINIMUMS["xformers"]
    assert all(r.source.startswith("https://github.com/facebookresearch/xformers/blob/v0.0.3") for r in rows)
    assert [r.until for r in rows[:-1]] == [r.since for r in rows[1:]]
    assert not runtime_minimums("xformers", "0.0.36")


def test_another_import_failure_is_not_claimed() -> None:
    compiled = rule(BASE, "lib.xformers=0.0.30", "lib.flash-attn=2.8.0.post2")
    assert not compiled.signature_matches("ImportError: Requires Flash attention 2.3.6 for varlen_fwd api")
    assert not compiled.signature_matches("ModuleNotFoundError: No module named 'xformers'")


def test_the_escape_hatch_the_stack_sets_skips_the_rows() -> None:
    stack = ("lib.xformers=0.0.30", "lib.flash-attn=2.8.0.post2")
    assert [r for r in reasons(BASE, *stack) if "requires flash-attn" in r]
    skipped = reasons(BASE, *stack, "env.XFORMERS_IGNORE_FLASH_VERSION_CHECK=1")
    assert not [r for r in skipped if "requires flash-attn" in r]
    kept = reasons(BASE, *stack, "env.XFORMERS_IGNORE_FLASH_VERSION_CHECK=0")  # only "1" skips it
    assert [r for r in kept if "requires flash-attn" in r]
    assert all(r.skipped_by == "XFORMERS_IGNORE_FLASH_VERSION_CHECK=1" for r in RUNTIME_MINIMUMS["xformers"])

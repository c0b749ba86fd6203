"""torchcodec built for one torch series: its README's compatibility table, as every release's wheel carries it.

``extension-built-for-other-torch`` judges a listed torchcodec against the stack's torch by that table (one torch
series per torchcodec series up to 0.11, ``>=2.11`` from 0.12). The messages are quoted from public reports.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import extension_builds
from pytest_rocmcompat.knowledge.checks import extension_torch
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cuda", python="3.11.7", os="Linux")
VERBATIM = (
    (
        # torchcodec's own error (the same sentence in every release read), as a torch 2.11 nightly met it (#1131);
        # the stack is #1180's kind: "torch 2.10.0 broke torchcodec" (0.9 is built for 2.9)
        ("torch=2.10.0", "lib.torchcodec=0.9.1"),
        "torchcodec import failed: Could not load libtorchcodec. Likely causes:",
        "https://github.com/meta-pytorch/torchcodec/issues/1131",
    ),
    (
        ("torch=2.4.0+cu124", "lib.torchcodec=0.1.1+cu124"),  # the maintainer: "With torchcodec 0.1, ... pytorch 2.5"
        "NotImplementedError: Could not run 'torchcodec_ns::scan_all_streams_to_update_metadata' with arguments "
        "from the 'CPU' backend.",
        "https://github.com/meta-pytorch/torchcodec/issues/493",
    ),
)


def findings(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == extension_torch.ID]


@pytest.mark.parametrize(("stack", "message", "source"), VERBATIM, ids=["load", "op"])
def test_the_failures_are_predicted(stack: tuple[str, ...], message: str, source: str) -> None:
    assert source.startswith("https://github.com/meta-pytorch/torchcodec/issues/")
    (finding,) = findings(*stack)
    assert "torchcodec" in finding.reason and "built for torch" in finding.reason
    (rule,) = [r for r in compile_rules([finding]) if r.id == extension_torch.ID]
    assert rule.signature_matches(message)


@pytest.mark.parametrize(
    ("torch", "codec", "wanted"),
    [
        ("2.9.0", "0.8.0", None),
        ("2.9.1", "0.9.1", None),
        ("2.8.0", "0.8.0", "torch 2.9"),  # meta-pytorch/torchcodec#912's kind: a 0.8 beside another torch
        ("2.7.1", "0.5", None),
        ("2.8.0", "0.3.0", "torch 2.7"),  # "TorchCodec 0.3 works only against torch 2.7" (#671)
        ("2.11.0", "0.10.0", "torch 2.10"),
        ("2.11.0", "0.13.0", None),
        ("2.12.0", "0.16.0", None),
        ("2.10.0", "0.13.0", "torch >= 2.11"),
    ],
)
def test_each_series_is_judged_by_its_row(torch: str, codec: str, wanted: str | None) -> None:
    found = findings(f"torch={torch}", f"lib.torchcodec={codec}")
    assert bool(found) is (wanted is not None), found
    if wanted:
        assert f"built for {wanted}" in found[0].reason and found[0].uses == ("torchcodec",)


def test_the_table_covers_every_series_before_the_stable_abi() -> None:
    series = sorted(extension_builds.TORCHCODEC_BUILT_FOR)
    assert series == [(0, m) for m in range(12)] and extension_builds.TORCHCODEC_MIN_FROM == (0, 12)
    assert extension_builds.TORCHCODEC_BUILT_FOR[(0, 11)] == extension_builds.TORCHCODEC_MIN_TORCH


def test_a_load_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, VERBATIM[0][1], ("torch=2.10.0", "lib.torchcodec=0.9.1"), uses="torchcodec", env=BASE
    )
    assert predicted["rocm_rule"] == extension_torch.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated

"""torchvision releases built for another torch, recorded on a real H100, replayed through ``requirement-not-met``.

``tests/data/torchvision_on_torch211_h100`` holds what PyPI's torchvision 0.20.1, 0.24.1, 0.26.0, 0.27.0 and
0.28.0 did on that machine's torch 2.11.0+cu130 (``bench/real_texts/torchvision_other_torch.py``): the
release pinned to torch 2.11.0 (0.26.0) runs; the others fail at import and in every call after it. The
stack each describes must get the pair finding, and every text a mismatched release printed must be one its
rule claims; the matched release gets no finding, and its own unrelated failure (a garbage JPEG) is claimed
by nothing.
"""

from __future__ import annotations

import json

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA

RECORDED = {
    p.stem: json.loads(p.read_text(encoding="utf-8"))
    for p in sorted((DATA / "torchvision_on_torch211_h100").glob("*.json"))
}
BASE = Environment.load(str(DATA / "env_h100_archs.json"))


def _rules(torch: str, torchvision: str) -> list:
    env = apply_overrides(BASE, [f"torch={torch}", f"lib.torchvision={torchvision}"])
    return [r for r in compile_rules(evaluate(env)) if r.id.startswith(requirements.ID)]


def test_the_recordings_are_of_the_h100_and_its_torch() -> None:
    assert set(RECORDED) == {"0.20.1", "0.24.1", "0.26.0", "0.27.0", "0.28.0"}
    for record in RECORDED.values():
        info = record["result"]["info"]
        assert info["torch"] == "2.11.0+cu130" and info["gpu"].startswith("NVIDIA H100")
        assert record["install"] == 0 and record["returncode"] == 0


@pytest.mark.parametrize("version", ["0.20.1", "0.24.1", "0.27.0", "0.28.0"])
def test_every_text_a_mismatched_release_printed_is_claimed_by_the_pair(version: str) -> None:
    record = RECORDED[version]
    failures = [text for text in record["result"]["calls"].values() if text]
    assert failures, "a release built for another torch ran: the recording is not what this test is about"
    (rule,) = _rules(record["result"]["info"]["torch"], version)
    assert "torchvision" in rule.reason and "2.11.0" in rule.reason
    for text in failures:
        assert rule.signature_matches(text), text


def test_the_matched_release_is_not_judged_and_its_own_failure_is_nobodys() -> None:
    record = RECORDED["0.26.0"]
    calls = record["result"]["calls"]
    assert [name for name, text in calls.items() if text] == ["decode_jpeg"]  # the garbage input only
    assert not _rules(record["result"]["info"]["torch"], "0.26.0")
    (other,) = _rules(record["result"]["info"]["torch"], "0.28.0")  # the mismatched pair's rule
    assert not other.signature_matches(calls["decode_jpeg"])

"""The public incident corpus (bench/incidents) is well-formed, and its runner really replays incidents."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

RUN = REPO / "bench" / "incidents" / "run.py"


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("incidents_run", RUN)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus(run) -> list[dict]:
    return run.load_corpus()


def test_corpus_is_well_formed(run, corpus) -> None:
    assert run.validate(corpus) == []


def test_corpus_size_and_near_misses(corpus) -> None:
    assert len(corpus) >= 60
    near = [i for i in corpus if i.get("near_miss")]
    assert len(near) >= 15
    assert all(i["verdict"] == "works" for i in near)


def test_every_incident_has_source_date_error_and_verdict(corpus) -> None:
    for inc in corpus:
        assert inc["url"].startswith("https://github.com/") or inc["url"].startswith("https://"), inc["id"]
        assert inc["date"].year >= 2019, inc["id"]
        assert inc["error"].strip() and inc["error"] == inc["error"].strip(), inc["id"]
        assert inc["verdict"] in ("broken", "works"), inc["id"]


def test_both_halves_hold_broken_and_working_stacks(run, corpus) -> None:
    for split in run.SPLITS:
        half = [i for i in corpus if i["split"] == split]
        assert {i["verdict"] for i in half} == {"broken", "works"}, split
        assert all(i["split"] == run.split_of(i["id"]) for i in half)


def test_validate_names_each_problem(run) -> None:
    bad = [
        {
            "id": "x-1",
            "url": "http://x",
            "date": "2024",
            "stack": ["arch"],
            "test": "check",
            "error": "boom",
            "verdict": "maybe",
            "split": "train",
            "near_miss": True,
        }
    ]
    bad[0]["split"] = "held-out" if run.split_of("x-1") == "train" else "train"
    problems = "\n".join(run.validate(bad))
    for expected in (
        "url must be https",
        "date must be YYYY-MM-DD",
        "verdict must be one of",
        "a near-miss is a working stack",
        "stack must be KEY=VALUE",
        "test must be a test",
        f"split must be {run.split_of('x-1')}",
    ):
        assert expected in problems


def test_runner_replays_a_slice_of_the_corpus(run, corpus, tmp_path: Path) -> None:
    """One broken and one working incident of the corpus go through a real pytest run each."""
    broken = next(i for i in corpus if i["verdict"] == "broken" and "gpus" in (i.get("markers") or ()))
    works = next(i for i in corpus if i.get("near_miss"))
    results = [run.replay(inc, tmp_path / inc["id"]) for inc in (broken, works)]
    for inc, r in zip((broken, works), results):
        assert not r.outcome.startswith("error"), r
        assert r.outcome in ("known-bad", "skipped", "fail", "stale-rule", "crashed"), r
        assert (r.id, r.split, r.verdict) == (inc["id"], inc["split"], inc["verdict"])
        assert (tmp_path / inc["id"] / "junit.xml").exists()
        assert repr(inc["error"]) in (tmp_path / inc["id"] / "test_incident.py").read_text()
    summary = run.summarise(results)
    assert summary["all"]["broken"] == 1 and summary["all"]["works"] == 1


def test_runner_tells_a_claimed_failure_from_an_unclaimed_one(run, tmp_path: Path) -> None:
    """A build without the GPU's arch is claimed by a check; the same text on a plain stack is not."""
    base = {
        "url": "https://example.org/i",
        "date": None,
        "test": "test_tensor_on_gpu",
        "markers": ["gpus"],
        "error": "CUDA error: no kernel image is available for execution on the device",
        "split": "train",
        "verdict": "broken",
    }
    claimed = run.replay(
        {**base, "id": "claimed", "stack": ["platform=cuda", "arch=sm_120", "torch_archs=sm_80,sm_90"]},
        tmp_path / "claimed",
        cited=set(),
    )
    unclaimed = run.replay(
        {**base, "id": "unclaimed", "stack": ["platform=cuda", "arch=sm_90", "torch_archs=sm_80,sm_90"]},
        tmp_path / "unclaimed",
        cited=set(),
    )
    assert claimed.recognised and claimed.rule is not None
    assert not unclaimed.recognised and unclaimed.outcome == "fail"
    assert unclaimed.diagnosis == "no-kernel-for-arch"  # named, not excused

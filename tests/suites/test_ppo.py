"""The mini-PPO suite's harness parts: metrics table entries, MFU and the phase breakdown,
run-config errors, the data-parallel launcher's failure report (real worker processes), the
vLLM adapter's import guard, and the suite's JUnit properties from a real pytest run."""

from __future__ import annotations

import json
import sys

import pytest
from peaks import peak_for

from pytest_rocmcompat.session.measurements import default_unit
from tests.conftest import REPO

torch = pytest.importorskip("torch")
SUITE = REPO / "suites" / "ppo"
sys.path.insert(0, str(SUITE))

from minippo.config import RunConfig  # noqa: E402
from minippo.dist import LaunchError, launch  # noqa: E402
from minippo.perf import PhaseClock, breakdown, train_mfu  # noqa: E402


def test_ppo_metrics_are_in_the_table():
    assert default_unit("ppo_rollout_tokens_per_s") == "tokens/s"
    assert default_unit("ppo_inference_tokens_per_s") == "tokens/s"
    assert default_unit("ppo_train_tokens_per_s") == "tokens/s"
    assert default_unit("ppo_train_mfu") == "%"


def test_train_mfu_against_the_h100_peak():
    peak = peak_for("NVIDIA H100 80GB HBM3", "sm_90")
    # 6 x 1e9 params x 1e4 tokens/s = 6e13 FLOP/s of 989.4e12
    assert train_mfu(10**9, 1e4, peak.get("bf16")) == pytest.approx(6e13 / 989.4e12)
    assert train_mfu(10**9, 1e4, None) is None


def test_phase_breakdown_table():
    clock = PhaseClock(torch.device("cpu"))
    for name, seconds, tokens in (("rollout", 1.0, 100), ("inference", 0.5, 300), ("training", 2.5, 300)):
        with clock.phase(name, tokens):
            pass
        clock.seconds[name] = seconds
    text = breakdown(clock, mfu=0.123)
    lines = {line.split()[0]: line.split() for line in text.splitlines()[2:]}
    assert lines["rollout"][1:5] == ["1.000", "25.0%", "100", "100"]
    assert lines["inference"][4] == "600"
    assert lines["training"][-1] == "12.30%"
    assert "n/a" in breakdown(clock)


def test_run_config_errors_name_every_problem():
    with pytest.raises(ValueError, match="algorithm must be 'grpo' or 'ppo', not 'dpo'") as info:
        RunConfig(algorithm="dpo", size="huge", prompts_per_step=3, mini_batches=2)
    text = str(info.value)
    assert "algorithm must be 'grpo' or 'ppo', not 'dpo'" in text
    assert "size must be one of" in text and "'huge'" in text
    assert "prompts_per_step (3) must divide into mini_batches (2)" in text


def test_launcher_reports_a_failing_rank(tmp_path):
    """Real worker processes: a config that cannot be split over 2 ranks fails in both."""
    bad = RunConfig(prompts_per_step=3, mini_batches=1).to_dict()
    with pytest.raises(LaunchError) as info:
        launch(2, "gloo", [bad], tmp_path, timeout=120)
    text = str(info.value)
    assert "rank 0 exited with 1" in text
    assert "must divide over 2 data-parallel ranks" in text


def test_vllm_adapter_is_import_guarded():
    import minippo.vllm_sampler as adapter  # importing the module never imports vllm

    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            adapter.VLLMSampler()
    else:  # pragma: no cover - vLLM is installed nowhere this was developed
        pytest.skip("vLLM is installed: the guard is not exercised")


def test_suite_run_records_engine_and_phase_metrics(pytester, monkeypatch):
    """A real pytest run of one learning test writes the engine and the metrics to JUnit."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # on CPU on a GPU host too
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "")
    import xml.etree.ElementTree as ET

    from pytest_rocmcompat.report.junit_read import read_run

    xml = pytester.path / "ppo.xml"
    result = pytester.runpytest_subprocess(
        f"{SUITE / 'test_ppo_learning.py'}::test_rl_learns[grpo]",
        "-p",
        "no:cacheprovider",
        f"--rootdir={REPO}",
        f"--junitxml={xml}",
        "-q",
    )
    result.assert_outcomes(passed=1)
    assert "mini-PPO phase breakdown" in result.stdout.str()
    case = ET.parse(xml).getroot().find(".//testcase")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["ppo_rollout_engine"] == "builtin"
    assert props["ppo_device"] == "cpu"
    assert json.loads(props["rocm_metric.ppo_training_seconds"])["higher_is_better"] is False
    # the report reader sees the same figures
    measured = {m.name: m for m in read_run(str(xml)).cases[0].measurements}
    for name in (
        "ppo_rollout_tokens_per_s",
        "ppo_inference_tokens_per_s",
        "ppo_train_tokens_per_s",
        "ppo_rollout_seconds",
        "ppo_inference_seconds",
        "ppo_training_seconds",
    ):
        assert measured[name].value > 0, name
    assert measured["ppo_train_tokens_per_s"].unit == "tokens/s"

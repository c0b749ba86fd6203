"""GPU suite parts exercised on the CPU: timing helpers, numerics checks, the peaks table,
and the suite itself (every GPU test skips with a reason on a CPU box)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import gpubench as gb
import gpunumerics as gn
import pytest
from peaks import PEAKS, peak_for

from pytest_rocmcompat.stack.arch import is_valid_arch
from tests.conftest import REPO

torch = pytest.importorskip("torch")
CPU = torch.device("cpu")


# ---- timing -----------------------------------------------------------------------------


def test_time_calls_counts_warmup_repeats_and_inner_calls():
    calls = []
    timing = gb.time_calls(torch, lambda: calls.append(1), CPU, warmup=2, repeats=4, inner=3)
    assert len(calls) == 2 + 4 * 3
    assert len(timing.samples) == 4 and timing.inner == 3 and timing.clock == "perf_counter"
    assert timing.median >= 0 and "median of 4 repeats x 3 calls" in timing.describe()


def test_time_calls_rejects_bad_counts():
    with pytest.raises(ValueError, match="repeats and inner"):
        gb.time_calls(torch, lambda: None, CPU, repeats=0)


def test_throughput_arithmetic():
    assert gb.gemm_flops(8192, 8192, 8192) == 2 * 8192**3
    assert gb.tflops(2e12, 2.0) == pytest.approx(1.0)
    assert gb.gbps(2 * (1 << 30), 1e-3) == pytest.approx(2147.483648)
    assert gb.gbps(1, 0) != gb.gbps(1, 0)  # NaN, never a division error


def test_bench_figures_on_cpu():
    gemm = gb.bench_gemm(torch, CPU, n=128, dtype=torch.float32, warmup=1, repeats=3, inner=2)
    assert gemm.value > 0 and gemm.unit == "TFLOP/s" and "128x128x128 float32 matmul" in gemm.detail
    copy = gb.bench_copy_d2d(torch, CPU, nbytes=4 << 20, warmup=1, repeats=3, inner=2)
    assert copy.value > 0 and "read+write" in copy.detail
    h2d = gb.bench_host_copy(torch, CPU, "h2d", nbytes=4 << 20, warmup=1, repeats=3, inner=1)
    assert h2d.value > 0 and "pageable h2d" in h2d.detail  # no pinned memory without a GPU
    with pytest.raises(ValueError, match="direction"):
        gb.bench_host_copy(torch, CPU, "sideways")


def test_random_inputs_are_not_zero():
    x = gb.random_tensor(torch, (1024,), torch.bfloat16, CPU)
    assert x.dtype == torch.bfloat16 and int((x != 0).sum()) > 1000


# ---- numerics ---------------------------------------------------------------------------


@pytest.mark.parametrize(("op", "dtype"), [(o, d) for o in gn.OPS for d in gn.DTYPES if gn.applicable(o, d)])
def test_check_op_on_cpu(op, dtype):
    result = gn.check_op(torch, CPU, op, dtype, size=128)
    assert result.ok, result.describe()
    assert result.nonfinite == 0 and 0 <= result.error <= result.tolerance


def test_check_op_rejects_unknown_combination():
    with pytest.raises(ValueError, match="no tolerance for elementwise in tf32"):
        gn.check_op(torch, CPU, "elementwise", "tf32")


def test_poisoned_output_left_unwritten_fails():
    unwritten = gn.NumericsResult("matmul", "bf16", float("nan"), 2e-2, nonfinite=5)
    assert not unwritten.ok and "5 output element(s) not finite" in unwritten.describe()
    too_far = gn.NumericsResult("matmul", "fp32", 1e-3, 1e-5, nonfinite=0)
    assert not too_far.ok


def test_rel_frobenius():
    ref = torch.ones(4, 4, dtype=torch.float64)
    assert gn.rel_frobenius(torch, ref * 1.01, ref) == pytest.approx(0.01)
    assert gn.rel_frobenius(torch, ref, torch.zeros(4, 4)) == float("inf")


@pytest.mark.parametrize(
    ("arch", "has"),
    [
        ("gfx942", True),
        ("gfx950", True),
        ("gfx90a", False),
        ("gfx906", False),
        ("gfx1100", False),
        ("sm_80", False),
        ("sm_86", False),
        ("sm_89", True),
        ("sm_90", True),
        ("sm_100", True),
        ("sm_120", True),
    ],
)
def test_fp8_expected(arch, has):
    assert gn.fp8_expected(arch) is has


def test_fp8_flavour():
    assert gn.fp8_dtype(torch, "gfx942", "hip") is torch.float8_e4m3fnuz
    assert gn.fp8_dtype(torch, "gfx950", "hip") is torch.float8_e4m3fn
    assert gn.fp8_dtype(torch, "sm_90", "cuda") is torch.float8_e4m3fn


def test_fp8_matmul_where_the_build_has_it():
    try:
        result = gn.check_fp8_matmul(torch, CPU, "sm_90", "cuda", size=64)
    except (RuntimeError, NotImplementedError) as exc:
        pytest.skip(f"this torch has no CPU _scaled_mm: {exc}")
    assert result.ok, result.describe()


def test_probe_dtype_reports_instead_of_raising():
    assert gn.probe_dtype(torch, CPU, "bf16") == "ok"
    assert gn.probe_dtype(torch, "no-such-device", "fp32").startswith("unsupported: ")


# ---- peaks --------------------------------------------------------------------------------

WANTED = ("MI300X", "MI325X", "MI250X", "MI210", "MI100", "MI50", "7900 XTX", "A100", "H100 SXM", "H200")


def test_peaks_table_covers_the_issue_list_with_sources():
    products = " | ".join(p.product for p in PEAKS)
    for wanted in WANTED:
        assert wanted in products, f"{wanted} missing from PEAKS"
    for p in PEAKS:
        assert p.source.startswith("https://"), p.product
        assert is_valid_arch(p.arch) and p.memory_gbps > 0, p.product
        assert p.get("bf16") is None or p.get("fp8") is None or p.get("fp8") >= p.get("bf16")
        assert p.get("fp16") and p.get("fp32") and p.get("fp16") >= p.get("fp32"), p.product


@pytest.mark.parametrize(
    ("name", "arch", "product"),
    [
        ("NVIDIA H100 80GB HBM3", "sm_90", "NVIDIA H100 SXM5"),
        ("NVIDIA H100 PCIe", "sm_90", "NVIDIA H100 PCIe"),
        ("NVIDIA H200", "sm_90", "NVIDIA H200 SXM"),
        ("NVIDIA A100-SXM4-80GB", "sm_80", "NVIDIA A100 SXM4 80GB"),
        ("NVIDIA A100-SXM4-40GB", "sm_80", "NVIDIA A100 40GB"),
        ("AMD Instinct MI300X", "gfx942", "AMD Instinct MI300X"),
        ("AMD Instinct MI300X VF", "gfx942", "AMD Instinct MI300X"),
        ("AMD Instinct MI325X", "gfx942", "AMD Instinct MI325X"),
        ("AMD Instinct MI250X/MI250", "gfx90a", "AMD Instinct MI250X"),
        ("AMD Radeon RX 7900 XTX", "gfx1100", "AMD Radeon RX 7900 XTX"),
        ("", "gfx906", "AMD Instinct MI50"),  # unique arch: found without a name
        ("", "gfx908", "AMD Instinct MI100"),
    ],
)
def test_peak_for(name, arch, product):
    peak = peak_for(name, arch)
    assert peak is not None and peak.product == product


def test_peak_for_ambiguous_or_unknown():
    assert peak_for("", "gfx942") is None  # MI300X and MI325X share it
    assert peak_for("Some GPU", "sm_90") is None
    assert peak_for("NVIDIA GeForce RTX 4090", "sm_89") is None


def test_h100_sxm_dense_figures():
    h100 = peak_for("NVIDIA H100 80GB HBM3")
    assert h100.get("bf16") == pytest.approx(989.4) and h100.memory_gbps == 3350.0


# ---- the suite on this CPU box -----------------------------------------------------------


def test_gpu_suite_skips_with_reasons_on_cpu(tmp_path):
    xml = tmp_path / "gpu.xml"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "suites/gpu",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--rocm-matrix",
            "matrices/cpu.yaml",
            f"--junitxml={xml}",
        ],
        cwd=REPO,
        # A GPU host runs this suite too: the CPU box is made by hiding its GPUs from the runtime
        # (the probe then finds the build's GPUs but torch sees none).
        env={**os.environ, "CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    cases = list(ET.parse(xml).iter("testcase"))
    assert len(cases) >= 25
    for case in cases:
        skipped = case.find("skipped")
        assert skipped is not None, f"{case.get('name')} ran on a CPU box"
        assert "GPU" in (skipped.get("message") or ""), skipped.get("message")


def test_crosscheck_reads_harness_figures(tmp_path):
    """bench/gpu_crosscheck.py compares with the suite's JUnit properties; its reader is checked here."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import gpu_crosscheck
    finally:
        sys.path.pop(0)
    xml = tmp_path / "r.xml"
    value = json.dumps({"value": 701.5, "unit": "TFLOP/s"})
    xml.write_text(
        f'<testsuites><testsuite><testcase name="t"><properties>'
        f"<property name=\"rocm_metric.gemm_bf16_tflops\" value='{value}'/>"
        f'<property name="other" value="x"/></properties></testcase></testsuite></testsuites>'
    )
    assert gpu_crosscheck.junit_figures(str(xml)) == {"gemm_bf16_tflops": 701.5}

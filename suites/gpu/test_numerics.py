"""Numerics: elementwise, reduction and matmul in fp32, tf32, fp16, bf16 against float64.

Relative Frobenius error limits (``gpunumerics.TOLERANCES``, beside this file):
fp32 1e-6 / 1e-5 / 1e-5, tf32 matmul 5e-3, fp16 3e-3 / 3e-3 / 5e-3, bf16 1.6e-2 / 1.6e-2 / 2e-2,
fp8 matmul 2e-2. Outputs are NaN-poisoned before each run; inputs are random.
"""

from __future__ import annotations

import json

import gpunumerics as gn
import pytest

CASES = [(op, dt) for op in gn.OPS for dt in gn.DTYPES if gn.applicable(op, dt)]


@pytest.mark.gpus(1)
@pytest.mark.parametrize(("op", "dtype"), CASES, ids=[f"{o}-{d}" for o, d in CASES])
def test_against_float64(torch, gpu_device, op, dtype, rocm_property):
    result = gn.check_op(torch, gpu_device, op, dtype)
    rocm_property("rocm_numerics", result.describe())
    assert result.ok, result.describe()


@pytest.mark.gpus(1)
def test_dtype_support(torch, gpu_device, gpu_arch, rocm_property):
    """Which dtypes work here, reported; fp32 and fp16 must, bf16 is reported (emulated on gfx906)."""
    support = {d: gn.probe_dtype(torch, gpu_device, d) for d in ("fp32", "fp16", "bf16")}
    rocm_property("rocm_dtype_support", json.dumps({"arch": gpu_arch, **support}, sort_keys=True))
    broken = {d: s for d, s in support.items() if d != "bf16" and s != "ok"}
    assert not broken, f"{gpu_arch}: {broken}"


@pytest.mark.gpus(1)
def test_fp8_matmul(torch, gpu_device, gpu_arch, runtime_name, rocm_property):
    """fp8 (e4m3) matmul through torch._scaled_mm where the hardware has fp8: gfx942/gfx950, sm_89+."""
    expected = gn.fp8_expected(gpu_arch)
    try:
        result = gn.check_fp8_matmul(torch, gpu_device, gpu_arch, runtime_name)
    except Exception as exc:  # recorded either way; a failure only where fp8 hardware exists
        status = f"unsupported: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
        rocm_property("rocm_fp8", status)
        if expected:
            pytest.fail(f"{gpu_arch} has fp8 hardware but {status}", pytrace=False)
        pytest.skip(f"{gpu_arch} has no fp8 matrix hardware ({status})")
    rocm_property("rocm_fp8", result.describe())
    assert result.ok, result.describe()

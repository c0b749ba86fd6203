"""scaled_dot_product_attention: each backend the build offers, against the math backend."""

from __future__ import annotations

import pytest
from gpunumerics import rel_frobenius

BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")
TOLERANCE = 2e-2  # bf16 output: relative Frobenius error against float64 and against the math backend


@pytest.mark.gpus(1)
@pytest.mark.parametrize("backend", BACKENDS)
def test_sdpa_backend(torch, gpu_device, backend, rocm_property):
    attention = pytest.importorskip("torch.nn.attention", reason="torch.nn.attention needs torch >= 2.3")
    kind = getattr(attention.SDPBackend, backend, None)
    if kind is None:
        rocm_property("rocm_sdpa." + backend.lower(), "absent from this torch")
        pytest.skip(f"SDPBackend.{backend} does not exist in torch {torch.__version__}")
    F = torch.nn.functional
    gen = torch.Generator(device=gpu_device).manual_seed(0)
    q, k, v = (torch.randn(2, 8, 512, 64, generator=gen, device=gpu_device, dtype=torch.bfloat16) for _ in range(3))
    with attention.sdpa_kernel(attention.SDPBackend.MATH):
        reference = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
        math_out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    try:
        with attention.sdpa_kernel(kind):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.cuda.synchronize(gpu_device)
    except RuntimeError as exc:
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        rocm_property("rocm_sdpa." + backend.lower(), f"unavailable: {reason}")
        pytest.skip(f"{backend} unavailable in this build/device: {reason}")
    err_ref, err_math = rel_frobenius(torch, out, reference), rel_frobenius(torch, out, math_out)
    rocm_property("rocm_sdpa." + backend.lower(), f"available; error vs float64 {err_ref:.2e}, vs math {err_math:.2e}")
    assert err_ref <= TOLERANCE and err_math <= TOLERANCE, (
        f"{backend}: relative error {err_ref:.2e} vs float64, {err_math:.2e} vs math backend (limit {TOLERANCE})"
    )

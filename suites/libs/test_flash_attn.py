"""flash-attn: its forward against torch's scaled_dot_product_attention (GPU only; it
supports Ampere+ on CUDA and MI200/MI300 on ROCm)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("flash-attn")


def test_import_flash_attn(library) -> None:
    version = library("flash-attn", "flash_attn")
    import flash_attn

    assert flash_attn.__version__.split("+")[0] == version.split("+")[0]


@pytest.mark.gpus(1)
@pytest.mark.parametrize("causal", [False, True])
def test_forward_matches_sdpa(library, torch, gpu_device, rel_error, causal: bool) -> None:
    library("flash-attn", "flash_attn")
    from flash_attn import flash_attn_func

    gen = torch.Generator().manual_seed(5)
    batch, seq, heads, dim = 2, 128, 4, 64
    q, k, v = (torch.randn(batch, seq, heads, dim, generator=gen).to(gpu_device, torch.float16) for _ in range(3))
    out = flash_attn_func(q, k, v, causal=causal)  # layout (batch, seq, heads, dim)
    reference = torch.nn.functional.scaled_dot_product_attention(
        *(t.transpose(1, 2).float() for t in (q, k, v)), is_causal=causal
    ).transpose(1, 2)
    assert out.shape == q.shape
    error = rel_error(out, reference)
    assert error < 1e-2, f"flash_attn_func(causal={causal}) differs from SDPA by {error:.2e} (relative)"

"""triton: a vector-add kernel compiled and run on the GPU (ROCm wheels ship it as
pytorch-triton-rocm, CUDA wheels as triton)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("triton")


def test_import_triton(library) -> None:
    library("triton", "pytorch-triton-rocm", "pytorch-triton")
    import triton

    assert triton.__version__


@pytest.mark.gpus(1)
def test_vector_add_kernel(library, torch, gpu_device) -> None:
    library("triton", "pytorch-triton-rocm", "pytorch-triton")
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(
            out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask
        )

    n = 98_765  # not a multiple of the block: the mask matters
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(n, generator=gen).to(gpu_device)
    y = torch.randn(n, generator=gen).to(gpu_device)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(out.cpu(), x.cpu() + y.cpu())

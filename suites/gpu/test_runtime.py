"""Runtime: host round trip, streams and events, RNG reproducibility, torch.compile, Triton."""

from __future__ import annotations

import pytest

try:  # a Triton kernel must live at module level (triton.jit reads its source)
    import triton
    import triton.language as tl
except ImportError:  # the test below skips with the reason
    triton = None

if triton is not None:

    @triton.jit
    def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(
            out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask
        )


@pytest.mark.gpus(1)
def test_tensor_roundtrip(torch, gpu_device):
    host = torch.randn(1 << 20)
    assert torch.equal(host.to(gpu_device).cpu(), host)


@pytest.mark.gpus(1)
def test_streams_and_events_order(torch, gpu_device):
    """Work on one stream, an event, a second stream waiting on it: the reader sees the final value."""
    producer, consumer = torch.cuda.Stream(gpu_device), torch.cuda.Stream(gpu_device)
    a = torch.randn(2048, 2048, device=gpu_device)
    torch.cuda.synchronize(gpu_device)
    start, done = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(producer):
        start.record()
        x = a.clone()
        for _ in range(20):  # long enough that an unordered reader would see a partial result
            x = torch.tanh(x @ a)
        x.fill_(3.0)
        done.record()
    consumer.wait_event(done)
    with torch.cuda.stream(consumer):
        y = x * 2
    x.record_stream(consumer)
    consumer.synchronize()
    assert done.query()
    assert start.elapsed_time(done) > 0
    assert torch.equal(y, torch.full_like(y, 6.0))


@pytest.mark.gpus(1)
def test_rng_reproducible_with_seed(torch, gpu_device):
    torch.manual_seed(1234)
    a = torch.randn(1 << 16, device=gpu_device)
    state = torch.cuda.get_rng_state(gpu_device)
    b = torch.rand(1 << 16, device=gpu_device)
    torch.manual_seed(1234)
    assert torch.equal(torch.randn(1 << 16, device=gpu_device), a)
    torch.cuda.set_rng_state(state, gpu_device)
    assert torch.equal(torch.rand(1 << 16, device=gpu_device), b)
    torch.manual_seed(4321)
    assert not torch.equal(torch.randn(1 << 16, device=gpu_device), a)


@pytest.mark.gpus(1)
@pytest.mark.uses("triton")
def test_torch_compile(torch, gpu_device):
    pytest.importorskip("triton", reason="triton is not installed (inductor needs it for GPU code)")

    def f(x, y):
        return torch.sin(x) * y + torch.nn.functional.gelu(x - y)

    compiled = torch.compile(f, fullgraph=True)
    x, y = torch.randn(4096, device=gpu_device), torch.randn(4096, device=gpu_device)
    torch.testing.assert_close(compiled(x, y), f(x, y), rtol=1e-5, atol=1e-5)


@pytest.mark.gpus(1)
@pytest.mark.uses("triton")
def test_triton_kernel(torch, gpu_device):
    if triton is None:
        pytest.skip("triton is not installed")
    n = 100_003
    x, y = torch.randn(n, device=gpu_device), torch.randn(n, device=gpu_device)
    out = torch.full_like(x, float("nan"))
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    assert torch.equal(out, x + y), f"triton {triton.__version__} kernel result differs from x + y"

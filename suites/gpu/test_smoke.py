"""GPU smoke tests: a device is usable for tensor work (the full GPU suite builds on these)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")


def _device() -> "torch.device":
    if not torch.cuda.is_available():
        pytest.skip("no GPU visible to torch (torch.cuda.is_available() is False)")
    return torch.device("cuda", 0)


@pytest.mark.gpus(1)
def test_tensor_roundtrip() -> None:
    device = _device()
    host = torch.arange(1 << 20, dtype=torch.float32)
    assert torch.equal(host.to(device).cpu(), host)


@pytest.mark.gpus(1)
def test_matmul_fp32_against_float64() -> None:
    device = _device()
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(512, 512, generator=gen, dtype=torch.float64)
    b = torch.randn(512, 512, generator=gen, dtype=torch.float64)
    reference = a @ b
    torch.backends.cuda.matmul.allow_tf32 = False
    result = (a.float().to(device) @ b.float().to(device)).double().cpu()
    error = torch.linalg.norm(result - reference) / torch.linalg.norm(reference)
    assert error < 1e-5, f"relative Frobenius error {error:.2e}"

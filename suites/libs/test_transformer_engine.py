"""transformer_engine: import, and te.Linear against torch's linear with the same weights (GPU)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("transformer-engine")

DISTRIBUTIONS = ("transformer-engine", "transformer-engine-torch", "transformer-engine-cu12")


def test_import_transformer_engine(library) -> None:
    library(*DISTRIBUTIONS)
    import transformer_engine.pytorch  # noqa: F401  (the torch extension loads here)


@pytest.mark.gpus(1)
def test_linear_against_torch(library, torch, gpu_device, rel_error) -> None:
    library(*DISTRIBUTIONS)
    import transformer_engine.pytorch as te

    torch.manual_seed(9)
    layer = te.Linear(256, 128, bias=True, params_dtype=torch.bfloat16).to(gpu_device)
    x = torch.randn(16, 256, device=gpu_device, dtype=torch.bfloat16)
    with torch.no_grad():
        out = layer(x)
        reference = torch.nn.functional.linear(x.float(), layer.weight.float(), layer.bias.float())
    error = rel_error(out, reference)
    assert error < 2e-2, f"te.Linear differs from torch's linear by {error:.2e} (relative)"

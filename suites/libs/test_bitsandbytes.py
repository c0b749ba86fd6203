"""bitsandbytes: an 8-bit linear layer (LLM.int8) against the fp16 layer (GPU)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("bitsandbytes")


def test_import_bitsandbytes(library) -> None:
    version = library("bitsandbytes")
    import bitsandbytes

    assert bitsandbytes.__version__.split("+")[0] == version.split("+")[0]


@pytest.mark.gpus(1)
def test_linear8bit_against_fp16(library, torch, gpu_device, rel_error) -> None:
    library("bitsandbytes")
    import bitsandbytes as bnb

    torch.manual_seed(6)
    fp16 = torch.nn.Linear(256, 128).half()
    int8 = bnb.nn.Linear8bitLt(256, 128, has_fp16_weights=False, threshold=6.0)
    int8.load_state_dict(fp16.state_dict())
    int8 = int8.to(gpu_device)  # the move quantises the weight to int8
    fp16 = fp16.to(gpu_device)
    assert int8.weight.dtype == torch.int8, f"weight not quantised: {int8.weight.dtype}"
    x = torch.randn(8, 256, generator=torch.Generator().manual_seed(7)).to(gpu_device, torch.float16)
    with torch.no_grad():
        error = rel_error(int8(x), fp16(x))
    assert error < 3e-2, f"Linear8bitLt differs from the fp16 layer by {error:.2e} (relative)"

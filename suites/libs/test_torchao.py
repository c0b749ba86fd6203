"""torchao: import (torch.int1 and friends are checked by its import on old torch), and
int8 weight-only quantisation of a small linear layer against the float layer."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("torchao")


def test_import_torchao(library) -> None:
    version = library("torchao")
    import torchao  # on torch < 2.6 torchao >= 0.13 fails here: module 'torch' has no attribute 'int1'

    assert torchao.__version__.split("+")[0] == version.split("+")[0]


def test_int8_weight_only_linear(library, torch, device, no_tf32, rel_error) -> None:
    library("torchao")
    from torchao import quantization

    # The config class is the API from torchao 0.10 on; older releases had a factory function.
    config_class = getattr(quantization, "Int8WeightOnlyConfig", None)
    config = config_class() if config_class is not None else quantization.int8_weight_only()
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32  # the documented GPU path is bf16

    gen = torch.Generator().manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(256, 128)).to(device, dtype)
    x = torch.randn(8, 256, generator=gen).to(device, dtype)
    with torch.no_grad():
        reference = model(x)
        quantization.quantize_(model, config)
        quantized = model(x)
    weight = model[0].weight
    assert type(weight) is not torch.nn.Parameter or weight.dtype != dtype, (
        f"quantize_ left the weight a plain {weight.dtype} parameter"
    )
    assert quantized.shape == reference.shape and quantized.dtype == dtype
    error = rel_error(quantized, reference)
    assert error < 2e-2, f"int8 weight-only output differs from float by {error:.2e} (relative) on {device}"
    assert error > 0, "quantised output is bit-identical to float: the weight was not quantised"

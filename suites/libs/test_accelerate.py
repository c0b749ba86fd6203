"""accelerate: import, and one optimizer step through Accelerator.prepare / backward."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("accelerate")


def test_import_accelerate(library) -> None:
    version = library("accelerate")
    import accelerate

    assert accelerate.__version__ == version


def test_prepared_training_step(library, torch, device) -> None:
    library("accelerate")
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState

    accelerator = Accelerator(cpu=device.type == "cpu")
    try:
        assert accelerator.device.type == device.type, f"Accelerator chose {accelerator.device}, expected {device}"
        torch.manual_seed(8)
        model = torch.nn.Linear(16, 4)
        before = model.weight.detach().clone()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        model, optimizer = accelerator.prepare(model, optimizer)
        assert model.weight.device.type == device.type
        x = torch.randn(8, 16, device=accelerator.device)
        loss = model(x).square().mean()
        accelerator.backward(loss)
        optimizer.step()
    finally:  # accelerate's process-wide state would pin later tests to this configuration
        AcceleratorState._reset_state(reset_partial_state=True)
    assert not torch.equal(model.weight.detach().cpu(), before), "the prepared optimizer step changed nothing"
    assert torch.isfinite(model.weight).all()

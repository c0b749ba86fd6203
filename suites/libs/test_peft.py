"""PEFT: LoRA adapters on a small Llama, one training step, merge and unmerge."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("peft", "transformers")


def test_import_peft(library) -> None:
    version = library("peft")
    import peft

    assert peft.__version__ == version


def test_lora_step_merge_unmerge(library, torch, device, no_tf32, tiny_llama, rel_error) -> None:
    library("peft")
    library("transformers")
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(
        tiny_llama("eager"), LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["q_proj", "v_proj"])
    )
    model.to(device)
    lora = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
    base = {n: p.detach().clone() for n, p in model.named_parameters() if not p.requires_grad}
    assert lora and all("lora_" in n for n in lora), f"trainable parameters are not LoRA adapters: {sorted(lora)}"

    gen = torch.Generator().manual_seed(2)
    ids = torch.randint(0, 128, (2, 16), generator=gen).to(device)
    model.train()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    optimizer.step()

    params = dict(model.named_parameters())
    changed = [n for n in lora if not torch.equal(params[n].detach(), lora[n])]
    assert any("lora_A" in n for n in changed) and any("lora_B" in n for n in changed), (
        f"one step changed only {changed}"
    )
    assert all(torch.equal(params[n].detach(), base[n]) for n in base), "a frozen base weight changed"

    model.eval()
    with torch.no_grad():
        adapted = model(input_ids=ids).logits
        with model.disable_adapter():
            plain = model(input_ids=ids).logits
        model.merge_adapter()
        merged = model(input_ids=ids).logits
        model.unmerge_adapter()
        unmerged = model(input_ids=ids).logits
    assert rel_error(adapted, plain) > 1e-4, "the trained adapter does not change the outputs"
    assert rel_error(merged, adapted) < 1e-4, f"merged adapter differs: {rel_error(merged, adapted):.2e}"
    assert rel_error(unmerged, adapted) < 1e-5, f"unmerge did not restore: {rel_error(unmerged, adapted):.2e}"
    base_after = {n: p for n, p in model.named_parameters() if n in base}
    assert all(rel_error(base_after[n], base[n]) < 1e-5 for n in base if base[n].norm() > 0), (
        "merge + unmerge did not restore the base weights"
    )

"""transformers: import, and a small Llama built from a config trained one step and
compared between eager and SDPA attention."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("transformers")


def test_import_transformers(library) -> None:
    version = library("transformers")
    import transformers

    assert transformers.__version__ == version


def test_forward_backward_eager_matches_sdpa(library, torch, device, no_tf32, tiny_llama, rel_error) -> None:
    library("transformers")
    import transformers  # noqa: F401  (an import failure is the test's failure text)

    eager = tiny_llama("eager").to(device)
    sdpa = tiny_llama("sdpa").to(device)
    sdpa.load_state_dict(eager.state_dict())
    assert (eager.config._attn_implementation, sdpa.config._attn_implementation) == ("eager", "sdpa")

    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, eager.config.vocab_size, (2, 16), generator=gen).to(device)
    mask = torch.ones_like(ids)
    mask[1, 11:] = 0  # right padding exercises the attention-mask path of both kernels
    labels = ids.masked_fill(mask == 0, -100)

    out_eager = eager(input_ids=ids, attention_mask=mask, labels=labels)
    out_sdpa = sdpa(input_ids=ids, attention_mask=mask, labels=labels)
    valid = mask.bool()
    error = rel_error(out_sdpa.logits[valid], out_eager.logits[valid])
    assert error < 1e-4, f"SDPA logits differ from eager by {error:.2e} (relative) on {device}"

    out_eager.loss.backward()
    out_sdpa.loss.backward()
    assert torch.isfinite(out_eager.loss) and out_eager.loss.item() > 0
    for (name, p_eager), p_sdpa in zip(eager.named_parameters(), sdpa.parameters(), strict=False):
        assert p_eager.grad is not None and torch.isfinite(p_eager.grad).all(), f"no finite gradient for {name}"
        scale = float(p_eager.grad.norm())
        if scale > 0:
            assert rel_error(p_sdpa.grad, p_eager.grad) < 1e-3, f"gradient of {name}: SDPA differs from eager"
    assert float(eager.model.embed_tokens.weight.grad.norm()) > 0

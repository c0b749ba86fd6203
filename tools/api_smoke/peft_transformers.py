"""What a PEFT user does first, on a tiny random model: the smoke run of ``tools/measure_api_pairs.py``.

``python peft_transformers.py base`` runs the transformers half alone (a GPT-2 and, where the
release has it, a Llama: forward, backward, generate); ``python peft_transformers.py pair`` wraps
each in a LoRA adapter first, trains a step, generates, saves the adapter, loads it on a fresh
base model and merges it. Nothing is downloaded: the models are built from configs. Prints ``OK``
on success; any failure is the interpreter's own traceback.
"""

from __future__ import annotations

import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import transformers  # noqa: E402

PAIR = sys.argv[1:] == ["pair"]


def models() -> list[tuple[object, list[str]]]:
    """(a config-built model factory, the modules LoRA targets), GPT-2 always, Llama where it exists."""
    gpt2 = transformers.GPT2Config(vocab_size=64, n_positions=32, n_embd=16, n_layer=1, n_head=2)
    made: list[tuple[object, list[str]]] = [(lambda: transformers.GPT2LMHeadModel(gpt2), ["c_attn"])]
    if hasattr(transformers, "LlamaForCausalLM"):  # from transformers 4.28
        llama = transformers.LlamaConfig(
            vocab_size=64,
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            max_position_embeddings=32,
        )
        made.append((lambda: transformers.LlamaForCausalLM(llama), ["q_proj", "v_proj"]))
    return made


def main() -> None:
    torch.manual_seed(0)
    ids = torch.tensor([[1, 2, 3, 4]])
    for build, targets in models():
        model = build()  # type: ignore[operator]
        if PAIR:
            from peft import LoraConfig, PeftModel, get_peft_model

            config = LoraConfig(r=2, lora_alpha=4, target_modules=targets, task_type="CAUSAL_LM")
            model = get_peft_model(model, config)
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=2, do_sample=False)
        if PAIR:
            with tempfile.TemporaryDirectory() as folder:
                model.save_pretrained(folder)
                again = PeftModel.from_pretrained(build(), folder)  # type: ignore[operator]
                again.merge_and_unload()
    print("OK")


if __name__ == "__main__":
    main()

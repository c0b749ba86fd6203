"""What a PEFT user does first, on tiny random models: the smoke run of ``tools/measure_api_pairs.py``.

``python peft_transformers.py base`` runs the transformers half alone (a GPT-2 and, where the
release has it, a Llama: forward, backward, generate). ``python peft_transformers.py pair`` runs each
PEFT method of :data:`FEATURES` on both instead: wrap the model, train a step, generate, save the
adapter, load it on a fresh base model (and merge it, for LoRA). Nothing is downloaded: the models are
built from configs.

Prints one line ``FEATURES {json}`` (each method: ``null``, or the exception it ended with, as the
interpreter prints it, and the first exception of its chain where that differs), then ``OK`` when
every method ran. The transformers half alone prints ``OK`` or dies with its traceback.
"""

from __future__ import annotations

import functools
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import transformers  # noqa: E402
from smoke_report import report  # type: ignore[import-not-found]  # noqa: E402  (the script's own folder)

# The PEFT methods run: LoRA (what most users run), and the two prompt-learning methods, which hand
# transformers their own key/value cache or input embeddings and so meet its generation changes
FEATURES = ("lora", "prefix", "prompt")


def models() -> list[tuple[Callable[[], torch.nn.Module], list[str]]]:
    """(a config-built model factory, the modules LoRA targets), GPT-2 always, Llama where it exists."""
    gpt2 = transformers.GPT2Config(vocab_size=64, n_positions=32, n_embd=16, n_layer=1, n_head=2)
    made: list[tuple[Callable[[], torch.nn.Module], list[str]]] = [
        (lambda: transformers.GPT2LMHeadModel(gpt2), ["c_attn"])
    ]
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


def exercise(model: torch.nn.Module) -> None:
    """A training step and a short greedy generation."""
    ids = torch.tensor([[1, 2, 3, 4]])
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=2, do_sample=False)  # type: ignore[operator]


def adapter(feature: str, targets: list[str]) -> Any:
    import peft

    if feature == "lora":
        return peft.LoraConfig(r=2, lora_alpha=4, target_modules=targets, task_type="CAUSAL_LM")
    if feature == "prefix":
        return peft.PrefixTuningConfig(num_virtual_tokens=2, task_type="CAUSAL_LM")
    return peft.PromptTuningConfig(num_virtual_tokens=2, task_type="CAUSAL_LM")


def run_feature(feature: str) -> None:
    from peft import PeftModel, get_peft_model

    for build, targets in models():
        model = get_peft_model(build(), adapter(feature, targets))
        exercise(model)
        with tempfile.TemporaryDirectory() as folder:
            model.save_pretrained(folder)
            again = PeftModel.from_pretrained(build(), folder)
            if feature == "lora":
                again.merge_and_unload()


def main() -> None:
    torch.manual_seed(0)
    if sys.argv[1:] != ["pair"]:
        for build, _ in models():
            exercise(build())
        print("OK")
        return
    report({feature: functools.partial(run_feature, feature) for feature in FEATURES})


if __name__ == "__main__":
    main()

"""What a transformers ``Trainer`` user does first, on a tiny random GPT-2: the smoke run of
``tools/measure_api_pairs.py`` for accelerate beside transformers (the Trainer runs on accelerate).

``python accelerate_transformers.py base`` and ``... pair`` run the same thing (the pair's accelerate
is the one pinned): two training steps, an evaluation, a save. Nothing is downloaded: the model is
built from a config, the data are tensors. Reports as ``smoke_report.report`` does.
"""

from __future__ import annotations

import tempfile
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import transformers  # noqa: E402
from smoke_report import report  # type: ignore[import-not-found]  # noqa: E402  (the script's own folder)


class Tokens(torch.utils.data.Dataset):
    """Four copies of one short sequence, as the Trainer's default collator takes them."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        ids = torch.tensor([1, 2, 3, 4])
        return {"input_ids": ids, "labels": ids}


def train() -> None:
    """Two training steps, an evaluation and a save of a tiny GPT-2 through the Trainer."""
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=64, n_positions=32, n_embd=16, n_layer=1, n_head=2)
    model = transformers.GPT2LMHeadModel(config)
    with tempfile.TemporaryDirectory() as folder:
        args = transformers.TrainingArguments(
            output_dir=folder,
            per_device_train_batch_size=2,
            per_device_eval_batch_size=2,
            max_steps=2,
            logging_steps=1,
            save_strategy="no",
            report_to=[],
        )
        trainer = transformers.Trainer(model=model, args=args, train_dataset=Tokens(), eval_dataset=Tokens())
        trainer.train()
        trainer.evaluate()
        trainer.save_model(folder)


def main() -> None:
    report({"trainer": train})


if __name__ == "__main__":
    main()

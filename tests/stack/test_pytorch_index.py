"""A requirements file that installs from PyTorch's own index: its unlabelled torch pins are that index's build.

pip takes torch, torchvision and torchaudio from ``--index-url``/``--extra-index-url
https://download.pytorch.org/whl/<build>``, whose files carry the build's label, and ``torch==2.5.1``
matches ``2.5.1+rocm6.2``. Read as PyPI's wheel instead, the stack would be judged as a CUDA build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rocmcompat.stack import pytorch_index
from pytest_rocmcompat.stack.stack_files import load_stack
from pytest_rocmcompat.stack.stack_model import Target


@pytest.mark.parametrize(
    ("url", "label"),
    [
        ("https://download.pytorch.org/whl/rocm6.2", "rocm6.2"),
        ("https://download.pytorch.org/whl/rocm6.2.4/", "rocm6.2.4"),
        ("https://download.pytorch.org/whl/cu121", "cu121"),
        ("https://download.pytorch.org/whl/cpu", "cpu"),
        ("https://download.pytorch.org/whl/nightly/rocm6.3", "rocm6.3"),
        ("https://download.pytorch.org/whl/test/cu126", "cu126"),
        ("https://download.pytorch.org/whl", None),  # the index of every build
        ("https://pypi.org/simple", None),
        ("https://repo.radeon.com/rocm/manylinux/rocm-rel-6.2/", None),  # AMD's: its files say their own build
    ],
)
def test_the_build_an_index_serves(url: str, label: str | None) -> None:
    assert pytorch_index.index_label(url) == label


def _packages(tmp_path: Path, text: str, name: str = "requirements.txt") -> dict[str, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_stack(str(path), Target()).packages


@pytest.mark.parametrize(
    "line",
    [
        "--index-url https://download.pytorch.org/whl/rocm6.2",
        "--index-url=https://download.pytorch.org/whl/rocm6.2",
        "-i https://download.pytorch.org/whl/rocm6.2",
        "--extra-index-url https://download.pytorch.org/whl/rocm6.2",
    ],
)
def test_unlabelled_pins_take_the_index_build(tmp_path: Path, line: str) -> None:
    packages = _packages(tmp_path, f"{line}\ntorch==2.5.1\ntorchvision==0.20.1\ntorchaudio==2.5.1\nnumpy==1.26.4\n")
    assert packages["torch"] == "2.5.1+rocm6.2"
    assert packages["torchvision"] == "0.20.1+rocm6.2" and packages["torchaudio"] == "2.5.1+rocm6.2"
    assert packages["numpy"] == "1.26.4"  # not a package PyTorch's index builds


def test_an_included_file_names_the_index(tmp_path: Path) -> None:
    (tmp_path / "base.txt").write_text("--extra-index-url https://download.pytorch.org/whl/cu118\n", encoding="utf-8")
    assert _packages(tmp_path, "-r base.txt\ntorch==2.1.0\n")["torch"] == "2.1.0+cu118"


@pytest.mark.parametrize(
    "text",
    [
        "torch==2.5.1\n",  # PyPI's own wheel
        "--index-url https://pypi.org/simple\ntorch==2.5.1\n",
        # two builds named: pip's choice between them is not this reader's to guess
        "-i https://download.pytorch.org/whl/cu121\n--extra-index-url https://download.pytorch.org/whl/rocm6.2\n"
        "torch==2.5.1\n",
    ],
)
def test_no_label_without_exactly_one_pytorch_index(tmp_path: Path, text: str) -> None:
    assert _packages(tmp_path, text)["torch"] == "2.5.1"


def test_a_labelled_pin_keeps_its_own_label(tmp_path: Path) -> None:
    text = "--extra-index-url https://download.pytorch.org/whl/rocm6.2\ntorch==2.5.1+rocm6.1\n"
    assert _packages(tmp_path, text)["torch"] == "2.5.1+rocm6.1"

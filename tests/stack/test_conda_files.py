"""conda's list formats (``conda list``, ``--export``, ``--explicit``) read as stacks (``stack/conda_files.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rocmcompat.stack.stack_files import FORMATS, StackFileError, Target, detect_format, load_stack

# `conda list --export` of a pytorch-channel environment, pip and development installs on top.
CONDA_LIST_EXPORT = """\
# This file may be used to create an environment using:
# $ conda create --name <env> --file <this file>
# platform: linux-64
# created-by: conda 24.9.2
_libgcc_mutex=0.1=main
cuda-cudart=12.1.105=0
cuda-version=12.5=3
jpeg=9e=h5eee18b_1
nccl=2.21.5.1=h6103f9b_0
numpy=1.26.4=py310h5f9d8c6_0
python=3.10.14=h955ad1f_0
pytorch=2.3.1=py3.10_cuda12.1_cudnn8.9.2_0
pytorch-cuda=12.1=ha16c6d3_5
pytorch-mutex=1.0=cuda
torchvision=0.18.1=py310_cu121
transformers=4.44.2=pypi_0
verl=0.1.0=dev_0
"""

# plain `conda list` of a conda-forge environment (CUDA 12.6 build), ray and torchao from pip.
CONDA_LIST = """\
# packages in environment at /opt/conda/envs/rl:
#
# Name                    Version                   Build  Channel
_libgcc_mutex             0.1                 conda_forge    conda-forge
cudatoolkit               11.8.0              h4ba93d1_13    conda-forge
cuda-version              12.6                 h7480c83_3    conda-forge
jpeg                      9e                   h0b41bf4_3    conda-forge
nccl                      2.23.4.1             h2b5d15b_3    conda-forge
numpy                     1.26.4          py311h64a7726_0    conda-forge
python                    3.11.10         hc5c86c4_3_cpython    conda-forge
pytorch                   2.5.1           cuda126_generic_py311_h252e73c_207    conda-forge
ray                       2.46.0                   pypi_0    pypi
torchao                   0.13.0                   pypi_0    pypi
verl                      0.3.0                     dev_0    <develop>
"""

# `conda list --explicit`: package URLs.
CONDA_LIST_EXPLICIT = """\
# This file may be used to create an environment using:
# $ conda create --name <env> --file <this file>
# platform: linux-64
@EXPLICIT
https://conda.anaconda.org/conda-forge/linux-64/_libgcc_mutex-0.1-conda_forge.tar.bz2#d7c89558ba9fa0495403155b64376d81
https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py310hb13e2d6_0.conda
https://conda.anaconda.org/conda-forge/linux-64/python-3.10.14-hd12c33a_0_cpython.conda
https://conda.anaconda.org/pytorch/linux-64/pytorch-2.3.0-py3.10_cuda12.1_cudnn8.9.2_0.tar.bz2
https://conda.anaconda.org/pytorch/linux-64/pytorch-cuda-12.1-ha16c6d3_5.tar.bz2
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_conda_list_export(tmp_path: Path) -> None:
    stack = load_stack(write(tmp_path, "conda.txt", CONDA_LIST_EXPORT), Target())
    assert stack.format == "conda-list" and stack.python == "3.10.14"
    assert stack.packages == {
        "-libgcc-mutex": "0.1",
        "cuda-cudart": "12.1.105",  # conda's CUDA and NCCL packages stay, under their names
        "cuda-version": "12.5",
        "nccl": "2.21.5.1",
        "numpy": "1.26.4",
        "pytorch-mutex": "1.0",
        "torch": "2.3.1+cu121",  # conda's pytorch, its build's CUDA 12.1; pytorch-cuda is no package
        "torchvision": "0.18.1+cu121",  # conda pairs it with that torch build: its label, not PyPI's wheel
        "transformers": "4.44.2",  # =pypi_0: installed by pip
    }
    assert stack.skipped == (f"{tmp_path}/conda.txt:8: jpeg=9e=h5eee18b_1 (not a PEP 440 version; a system library)",)
    assert stack.not_checkable == (
        f"{tmp_path}/conda.txt:17: verl 0.1.0 installed in development mode (an editable install has no released "
        "version)",
    )


def test_plain_conda_list(tmp_path: Path) -> None:
    stack = load_stack(write(tmp_path, "packages.txt", CONDA_LIST), Target())
    assert stack.format == "conda-list" and stack.python == "3.11.10"
    assert stack.packages == {
        "-libgcc-mutex": "0.1",
        "cuda-version": "12.6",
        "cudatoolkit": "11.8.0",
        "nccl": "2.23.4.1",
        "numpy": "1.26.4",
        "ray": "2.46.0",
        "torch": "2.5.1+cu126",  # conda-forge's CUDA 12.6 build
        "torchao": "0.13.0",
    }
    assert [s.split(": ", 1)[0] for s in stack.skipped] == [f"{tmp_path}/packages.txt:7"]
    assert [s.split(": ", 1)[1] for s in stack.not_checkable] == [
        "verl 0.3.0 installed in development mode (an editable install has no released version)"
    ]


def test_conda_list_explicit(tmp_path: Path) -> None:
    stack = load_stack(write(tmp_path, "spec-file.txt", CONDA_LIST_EXPLICIT), Target())
    assert stack.format == "conda-list" and stack.python == "3.10.14"
    assert stack.packages == {"-libgcc-mutex": "0.1", "numpy": "1.26.4", "torch": "2.3.0+cu121"}


def test_pip_over_condas_package_of_the_same_name(tmp_path: Path) -> None:
    text = "# platform: linux-64\npytorch=2.3.1=py3.10_cuda12.1_cudnn8.9.2_0\ntorch=2.5.1+rocm6.2=pypi_0\n"
    assert load_stack(write(tmp_path, "c.txt", text), Target()).packages == {"torch": "2.5.1+rocm6.2"}


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("# platform: linux-64\npython=3.8.18\npytorch=2.0.1\nyaml\n", 4, "yaml is not pinned"),
        ("# platform: linux-64\nnumpy>=1.26\n", 2, "numpy>=1.26 is not pinned"),
        ("# platform: linux-64\nnumpy=1.26.*=py310h0\n", 2, "numpy=1.26.*=py310h0 is not pinned"),
    ],
)
def test_a_range_in_a_conda_list_is_refused(tmp_path: Path, text: str, line: int, what: str) -> None:
    with pytest.raises(StackFileError) as info:
        load_stack(write(tmp_path, "c.txt", text), Target())
    message = str(info.value)
    assert message.startswith(f"{tmp_path}/c.txt:{line}: {what}")
    assert "a range is not a stack" in message and "conda list --export" in message


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("# packages in environment at /x:\nnumpy 1.26.4\n", 2, "`numpy 1.26.4` is not a `conda list` row"),
        ("# packages in environment at /x:\na b c d e\n", 2, "`a b c d e` is not a `conda list` row"),
        ("@EXPLICIT\nhttps://example.org/numpy.whl\n", 2, "`https://example.org/numpy.whl` is not a conda package URL"),
    ],
)
def test_malformed_conda_list_names_the_line(tmp_path: Path, text: str, line: int, what: str) -> None:
    with pytest.raises(StackFileError) as info:
        load_stack(write(tmp_path, "c.txt", text), Target(), "conda-list")
    assert str(info.value).startswith(f"{tmp_path}/c.txt:{line}: {what}")


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("conda.txt", CONDA_LIST_EXPORT, "conda-list"),
        ("packages", CONDA_LIST, "conda-list"),
        ("spec-file.txt", CONDA_LIST_EXPLICIT, "conda-list"),
        ("requirements.txt", "numpy=1.26.4=py310h5f9d8c6_0\npytorch=2.3.1=py3.10_cpu_0\n", "conda-list"),
        ("requirements.txt", "numpy==1.26.4\ntorch==2.3.1\n", "requirements"),
        ("requirements.txt", "numpy=1.26.4=py310h5f9d8c6_0\ntorch==2.3.1\n", "requirements"),
        ("environment.yml", "name: x\ndependencies:\n  - numpy=1.26.4=py310h5f9d8c6_0\n", "conda"),
    ],
)
def test_detect_conda_list(name: str, text: str, fmt: str) -> None:
    assert detect_format(name, text) == fmt


def test_formats() -> None:
    assert FORMATS == ("requirements", "uv.lock", "pylock", "conda", "conda-list", "probe", "collect-env")


# ---------------------------------------------------------------------------- torch's build, from its build string
def conda_files(entries: list[tuple[str, str, str]]) -> dict[str, tuple[str, str]]:
    """The same environment in each conda format: format -> (file name, text)."""
    return {
        "env export": (
            "environment.yml",
            "name: x\ndependencies:\n" + "".join(f"  - {n}={v}={b}\n" for n, v, b in entries),
        ),
        "list --export": ("conda.txt", "# platform: linux-64\n" + "".join(f"{n}={v}={b}\n" for n, v, b in entries)),
        "list": ("list.txt", "# packages in environment at /x:\n" + "".join(f"{n} {v} {b} c\n" for n, v, b in entries)),
    }


CPUONLY = ("cpuonly", "2.0", "0")
PYTORCH_CUDA_118 = ("pytorch-cuda", "11.8", "h7e8668a_5")


@pytest.mark.parametrize("fmt", ["env export", "list --export", "list"])
@pytest.mark.parametrize(
    ("build", "selectors", "torch"),
    [
        ("py3.10_cuda12.1_cudnn8.9.2_0", [], "2.3.1+cu121"),  # the pytorch channel
        ("py3.7_cuda10.1.243_cudnn7.6.3_0", [], "2.3.1+cu101"),
        ("py3.10_cpu_0", [], "2.3.1+cpu"),
        ("cuda120_py310h327d3bc_301", [], "2.3.1+cu120"),  # conda-forge
        ("cuda126_generic_py312_h478e78a_207", [], "2.3.1+cu126"),
        ("cuda118_py39h0047a46_300", [], "2.3.1+cu118"),
        ("cuda112py310h5a5d3a5_200", [], "2.3.1+cu112"),
        ("cpu_generic_py311_h740418c_8", [], "2.3.1+cpu"),
        ("cpu_mkl_py311_h3a0e1a4_101", [], "2.3.1+cpu"),
        ("cpu_py39h4bf5b4f_0", [], "2.3.1+cpu"),
        ("py3.10_cpu_0", [PYTORCH_CUDA_118], "2.3.1+cpu"),  # the build string says; selectors do not overrule it
        ("h0a1b2c3_0", [CPUONLY], "2.3.1+cpu"),  # the build does not say: the selectors do
        ("h0a1b2c3_0", [PYTORCH_CUDA_118], "2.3.1+cu118"),
        ("h0a1b2c3_0", [CPUONLY, PYTORCH_CUDA_118], "2.3.1"),  # they disagree: as before, untagged
        ("h0a1b2c3_0", [], "2.3.1"),
    ],
)
def test_condas_torch_build_gives_its_label(
    tmp_path: Path, fmt: str, build: str, selectors: list[tuple[str, str, str]], torch: str
) -> None:
    name, text = conda_files([("python", "3.10.14", "h955ad1f_0"), ("pytorch", "2.3.1", build), *selectors])[fmt]
    stack = load_stack(write(tmp_path, name, text), Target())
    assert stack.packages["torch"] == torch
    assert "pytorch-cuda" not in stack.packages


def test_a_labelled_torch_keeps_its_label(tmp_path: Path) -> None:
    text = "# platform: linux-64\npytorch=2.3.1+cu118=cuda120_py310h327d3bc_301\ncpuonly=2.0=0\n"
    assert load_stack(write(tmp_path, "c.txt", text), Target()).packages["torch"] == "2.3.1+cu118"

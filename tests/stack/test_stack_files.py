"""Stack files as users hold them, read into exact package versions (``stack/stack_files.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rocmcompat.stack.stack_files import (
    StackFileError,
    Target,
    detect_format,
    load_stack,
    marker_target,
)

# `pip freeze` of a ROCm RL box (verl from a checkout, as pip freeze writes it).
PIP_FREEZE = """\
accelerate==0.34.2
certifi==2024.8.30
filelock==3.16.1
fsspec==2024.9.0
huggingface-hub==0.25.1
Jinja2==3.1.4
MarkupSafe==2.1.5
mpmath==1.3.0
networkx==3.3
numpy==2.1.2
packaging==24.1
peft==0.13.0
pytorch-triton-rocm==3.0.0
PyYAML==6.0.2
ray==2.46.0
safetensors==0.4.5
sympy==1.13.3
tokenizers==0.20.0
torch==2.4.1+rocm6.1
torchao==0.13.0
transformers==4.45.1
typing_extensions==4.12.2
-e git+https://github.com/volcengine/verl.git@5b7a3ad7c1e1e4a8e6c25d2d6cf1ba6c7a0e2f4b#egg=verl
"""

# A requirements file with an include, a constraints file, markers, extras and hashes.
REQUIREMENTS = """\
# the training stack
-r common.txt
-c constraints.txt
--extra-index-url https://download.pytorch.org/whl/rocm6.1
torch
torchao==0.13.0 \\
    --hash=sha256:0b5d3a5d0c1e4a3f2b7e8f6c5d4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a \\
    --hash=sha256:1c6e4b6e1d2f5b4a3c8f9a7d6e5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b
transformers[torch]==4.45.1  # extras do not change the version
pywin32==308 ; sys_platform == "win32"
numpy==1.26.4 ; python_version >= "3.8"
-e ./vendor/verl
peft @ git+https://github.com/huggingface/peft@v0.13.0
"""
COMMON = "ray==2.46.0\nfilelock==3.16.1\n"
CONSTRAINTS = "torch==2.4.1+rocm6.1\nvllm==0.6.3  # constrains only what is installed\n"

# A universal uv.lock (uv 0.5+, revision 2): numpy forks on Python 3.11.
UV_LOCK = """\
version = 1
revision = 2
requires-python = ">=3.10"
resolution-markers = [
    "python_full_version >= '3.11'",
    "python_full_version < '3.11'",
]

[[package]]
name = "filelock"
version = "3.16.1"
source = { registry = "https://pypi.org/simple" }
sdist = { url = "https://files.pythonhosted.org/packages/9d/db/filelock-3.16.1.tar.gz", hash = "sha256:c249fbfcd5db47e5e2d6d62198e565475ee65e4831e2561c8e313fa7eb961435", size = 18037, upload-time = "2024-09-17T19:02:01.779Z" }

[[package]]
name = "numpy"
version = "1.26.4"
source = { registry = "https://pypi.org/simple" }
resolution-markers = [
    "python_full_version < '3.11'",
]
sdist = { url = "https://files.pythonhosted.org/packages/65/6e/numpy-1.26.4.tar.gz", hash = "sha256:2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010", size = 15786129, upload-time = "2024-02-06T00:26:44.495Z" }

[[package]]
name = "numpy"
version = "2.1.2"
source = { registry = "https://pypi.org/simple" }
resolution-markers = [
    "python_full_version >= '3.11'",
]
sdist = { url = "https://files.pythonhosted.org/packages/4b/d1/numpy-2.1.2.tar.gz", hash = "sha256:13532a088217fa624c99b843eeb54640de23b3414b14aa66d023805eb731066c", size = 18878063, upload-time = "2024-10-05T18:39:04.081Z" }

[[package]]
name = "pywin32"
version = "308"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "rl-demo"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "numpy", version = "1.26.4", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version < '3.11'" },
    { name = "numpy", version = "2.1.2", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version >= '3.11'" },
    { name = "pywin32", marker = "sys_platform == 'win32'" },
    { name = "torch" },
    { name = "torchao" },
]

[package.metadata]
requires-dist = [
    { name = "numpy" },
    { name = "pywin32", marker = "sys_platform == 'win32'" },
    { name = "torch", specifier = "==2.2.2" },
    { name = "torchao", specifier = "==0.13.0" },
]

[[package]]
name = "torch"
version = "2.2.2"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "filelock" },
]

[[package]]
name = "torchao"
version = "0.13.0"
source = { registry = "https://pypi.org/simple" }
"""

# `conda env export` (conda's pytorch, a pip: list on top).
CONDA_EXPORT = """\
name: rl
channels:
  - pytorch
  - nvidia
  - conda-forge
dependencies:
  - _libgcc_mutex=0.1=conda_forge
  - openssl=3.3.2=hb9d3cd8_0
  - python=3.11.10=hc5c86c4_3_cpython
  - pytorch=2.2.2=py3.11_cuda12.1_cudnn8.9.2_0
  - pytorch-cuda=12.1=ha16c6d3_5
  - numpy=1.26.4=py311h64a7726_0
  - pip=24.2=pyh8b19718_1
  - pip:
      - torchao==0.13.0
      - transformers==4.44.2
prefix: /opt/conda/envs/rl
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_pip_freeze(tmp_path: Path) -> None:
    stack = load_stack(write(tmp_path, "freeze.txt", PIP_FREEZE), Target())
    assert stack.format == "requirements"
    assert stack.packages["torch"] == "2.4.1+rocm6.1"
    assert stack.packages["jinja2"] == "3.1.4" and stack.packages["typing-extensions"] == "4.12.2"
    assert "verl" not in stack.packages
    assert len(stack.not_checkable) == 1 and "freeze.txt:23: editable" in stack.not_checkable[0]


def test_requirements_with_includes_markers_hashes(tmp_path: Path) -> None:
    write(tmp_path, "common.txt", COMMON)
    write(tmp_path, "constraints.txt", CONSTRAINTS)
    stack = load_stack(write(tmp_path, "requirements.txt", REQUIREMENTS), Target())
    assert stack.packages == {
        "ray": "2.46.0",
        "filelock": "3.16.1",
        "torch": "2.4.1+rocm6.1",  # unpinned here, pinned by the constraints file
        "torchao": "0.13.0",
        "transformers": "4.45.1",
        "numpy": "1.26.4",
    }  # vllm only constrains; pywin32 is for Windows
    assert any("requirements.txt:10: pywin32" in s for s in stack.skipped)
    assert [n.split(": ", 1)[0] for n in stack.not_checkable] == [
        f"{tmp_path}/requirements.txt:12",
        f"{tmp_path}/requirements.txt:13",
    ]


def test_include_relative_to_the_file_and_unpinned_line_named(tmp_path: Path) -> None:
    write(tmp_path, "sub/base.txt", "torch==2.5.1\naccelerate>=0.30\n")
    path = write(tmp_path, "sub/top.txt", "-r base.txt\n")
    with pytest.raises(StackFileError) as info:
        load_stack(path, Target())
    text = str(info.value)
    assert "sub/base.txt:2: accelerate>=0.30 is not pinned" in text
    assert "pip freeze" in text and "uv pip compile" in text and "lockfile" in text


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("transformers", "transformers (no version)"),
        ("torch==2.5.*", "torch==2.5.* is not pinned"),
        ("torch~=2.5.0", "torch~=2.5.0 is not pinned"),
        ("accelerate>=0.30", "accelerate>=0.30 is not pinned"),
    ],
)
def test_a_range_is_not_a_stack(tmp_path: Path, line: str, what: str) -> None:
    with pytest.raises(StackFileError, match="a range is not a stack") as info:
        load_stack(write(tmp_path, "r.txt", f"numpy==2.1.2\n{line}\n"), Target())
    assert "r.txt:2: " in str(info.value) and what in str(info.value)


def test_wheel_url_names_its_version(tmp_path: Path) -> None:
    line = "torch @ https://download.pytorch.org/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp311-cp311-linux_x86_64.whl\n"
    stack = load_stack(write(tmp_path, "r.txt", line), Target())
    assert stack.packages == {"torch": "2.5.1+rocm6.2"}


def test_markers_need_a_python_only_when_it_matters(tmp_path: Path) -> None:
    path = write(
        tmp_path, "r.txt", 'numpy==1.26.4 ; python_version < "3.11"\nnumpy==2.1.2 ; python_version >= "3.11"\n'
    )
    with pytest.raises(StackFileError, match=r"r.txt:1: .*--set python=3.X"):
        load_stack(path, Target())
    assert load_stack(path, Target("3.10.14")).packages == {"numpy": "1.26.4"}
    assert load_stack(path, marker_target([("python", "3.12")])).packages == {"numpy": "2.1.2"}


def test_malformed_requirements(tmp_path: Path) -> None:
    with pytest.raises(StackFileError, match=r"r.txt:2: not a requirement"):
        load_stack(write(tmp_path, "r.txt", "torch==2.5.1\n==2.0\n"), Target())
    # packaging < 26 reads 'torch===' as arbitrary equality with an empty version, 26 refuses it:
    # either way the line is named, never a traceback
    with pytest.raises(StackFileError, match=r"r.txt:2: (not a requirement|torch==: not a valid version)"):
        load_stack(write(tmp_path, "r.txt", "torch==2.5.1\ntorch===\n"), Target())
    with pytest.raises(StackFileError, match=r"r.txt:1: unknown option '--frobnicate'"):
        load_stack(write(tmp_path, "r.txt", "--frobnicate\n"), Target())
    write(tmp_path, "b.txt", "numpy==2.1.2\ntorch==2.4.1\n")
    with pytest.raises(StackFileError, match=r"b.txt:2: torch==2.4.1, but .*a.txt:1 pins torch==2.5.1"):
        load_stack(write(tmp_path, "a.txt", "torch==2.5.1\n-r b.txt\n"), Target())
    write(tmp_path, "c.txt", "-r d.txt\n")
    write(tmp_path, "d.txt", "-r c.txt\n")
    with pytest.raises(StackFileError, match="include cycle"):
        load_stack(str(tmp_path / "c.txt"), Target())
    with pytest.raises(StackFileError, match=r"missing.txt: cannot read"):
        load_stack(write(tmp_path, "e.txt", "-r missing.txt\n"), Target())


def test_only_regular_files(tmp_path: Path) -> None:
    with pytest.raises(StackFileError, match="not a regular file"):
        load_stack("/dev/zero", Target(), "requirements")


def test_uv_lock_universal_resolved_by_markers(tmp_path: Path) -> None:
    path = write(tmp_path, "uv.lock", UV_LOCK)
    old = load_stack(path, Target("3.10.14"))
    new = load_stack(path, Target("3.12.7"))
    assert old.format == new.format == "uv.lock"
    assert old.packages == {"filelock": "3.16.1", "numpy": "1.26.4", "torch": "2.2.2", "torchao": "0.13.0"}
    assert new.packages == {**old.packages, "numpy": "2.1.2"}  # no pywin32 (Windows), no rl-demo (the project)
    assert load_stack(path, Target("3.12.7", sys_platform="win32")).packages["pywin32"] == "308"
    with pytest.raises(StackFileError, match=r"numpy: 1.26.4 on Python 3.10, 2.1.2 on Python 3.11.*--set python"):
        load_stack(path, Target())


def test_uv_lock_same_for_every_python_needs_none(tmp_path: Path) -> None:
    text = UV_LOCK.replace('version = "1.26.4"', 'version = "2.1.2"')
    stack = load_stack(write(tmp_path, "uv.lock", text), Target())
    assert stack.packages["numpy"] == "2.1.2"


def test_malformed_toml_names_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(StackFileError, match=r"uv.lock:4: not valid TOML"):
        load_stack(write(tmp_path, "uv.lock", 'version = 1\n[[package]]\nname = "x"\nversion = \n'), Target())
    with pytest.raises(StackFileError, match=r"x.lock: no \[\[package\]\] tables"):
        load_stack(write(tmp_path, "x.lock", "version = 1\n"), Target())


def test_conda_export(tmp_path: Path) -> None:
    stack = load_stack(write(tmp_path, "environment.yml", CONDA_EXPORT), Target())
    assert stack.format == "conda" and stack.python == "3.11.10"
    assert stack.packages == {
        "-libgcc-mutex": "0.1",
        "numpy": "1.26.4",
        "openssl": "3.3.2",
        "pip": "24.2",
        "torch": "2.2.2+cu121",  # conda's pytorch, CUDA 12.1 by its build; pytorch-cuda is a selector, no package
        "torchao": "0.13.0",
        "transformers": "4.44.2",
    }


def test_conda_from_history_is_refused_and_bad_yaml_named(tmp_path: Path) -> None:
    text = "name: rl\ndependencies:\n  - python=3.11\n  - pytorch\n"
    with pytest.raises(StackFileError, match=r"env.yml:4: pytorch is not pinned.*conda env export"):
        load_stack(write(tmp_path, "env.yml", text), Target())
    with pytest.raises(StackFileError, match=r"bad.yml:4: not valid YAML"):
        load_stack(write(tmp_path, "bad.yml", "name: x\ndependencies:\n  - a=1\n  b: [\n"), Target())
    with pytest.raises(StackFileError, match=r"nodeps.yml: no `dependencies:` list"):
        load_stack(write(tmp_path, "nodeps.yml", "name: x\n"), Target())


def test_recorded_probe(tmp_path: Path) -> None:
    from pytest_rocmcompat.stack.environment import Environment

    env = Environment(platform="rocm", torch="2.5.1+rocm6.2", python="3.11.9", libraries={"numpy": "2.1.2"})
    stack = load_stack(write(tmp_path, "env.json", env.to_json()), Target())
    assert stack.format == "probe" and stack.environment == env
    assert stack.packages == {"numpy": "2.1.2", "torch": "2.5.1+rocm6.2"}
    with pytest.raises(StackFileError, match=r"broken.json:1: not valid JSON"):
        load_stack(write(tmp_path, "broken.json", "{nope"), Target())


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("requirements.txt", PIP_FREEZE, "requirements"),
        ("freeze", PIP_FREEZE, "requirements"),
        ("uv.lock", UV_LOCK, "uv.lock"),
        ("lock", UV_LOCK, "uv.lock"),
        ("environment.yml", CONDA_EXPORT, "conda"),
        ("export", CONDA_EXPORT, "conda"),
        ("probe.json", "{}", "probe"),
        ("stack", '  {"torch": "2.5.1"}', "probe"),
    ],
)
def test_detect_format(name: str, text: str, fmt: str) -> None:
    assert detect_format(name, text) == fmt


# ---------------------------------------------------------------------------- byte-order marks
@pytest.mark.parametrize(
    ("encoding", "mark"),
    [
        ("utf-8", b"\xef\xbb\xbf"),
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\0\0"),
    ],
)
def test_a_freeze_written_with_a_byte_order_mark_is_read(tmp_path: Path, encoding: str, mark: bytes) -> None:
    """Notepad saves UTF-8 with a mark; Windows PowerShell 5's `pip freeze > requirements.txt` writes UTF-16 LE."""
    path = tmp_path / "requirements.txt"
    path.write_bytes(mark + PIP_FREEZE.replace("\n", "\r\n").encode(encoding))
    stack = load_stack(str(path), Target())
    assert stack.packages == load_stack(write(tmp_path, "plain.txt", PIP_FREEZE), Target()).packages
    assert stack.packages["accelerate"] == "0.34.2"  # line 1, after the mark
    assert "requirements.txt:23: editable" in stack.not_checkable[0]


def test_undecodable_bytes_after_a_mark_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_bytes(b"\xff\xfe" + "numpy==2.1.2\r\ntorch==".encode("utf-16-le") + b"\x00\xdc")
    with pytest.raises(StackFileError) as info:
        load_stack(str(path), Target())
    assert str(info.value) == (
        f"{path}:2: not UTF-16 LE text (it starts with a UTF-16 LE byte-order mark): byte 0x00 at column 8 "
        "(illegal encoding)"
    )


# ---------------------------------------------------------------------------- direct references
# `pip freeze` in a conda environment: conda's packages are built from a directory
CONDA_PIP_FREEZE = """\
accelerate @ file:///home/conda/feedstock_root/build_artifacts/accelerate_1700000000000/work
numpy @ file:///croot/numpy_and_numpy_base_1708638617955/work/dist/numpy-1.26.4-cp311-cp311-linux_x86_64.whl#sha256=0
torch==2.4.1+rocm6.1
PyYAML @ https://files.pythonhosted.org/packages/54/ed/PyYAML-6.0.2.tar.gz#sha256=d584d9ec91ad65861cc08d42e834324ef890a082e591037abe114850ff7bbc3e
mypkg @ https://example.org/downloads/mypkg-1.0.zip
tqdm @ https://github.com/tqdm/tqdm/archive/refs/heads/master.zip
"""


def test_direct_references_sdist_names_its_version_a_directory_is_not_checkable(tmp_path: Path) -> None:
    stack = load_stack(write(tmp_path, "freeze.txt", CONDA_PIP_FREEZE), Target())
    assert stack.packages == {"numpy": "1.26.4", "torch": "2.4.1+rocm6.1", "pyyaml": "6.0.2", "mypkg": "1.0"}
    assert list(stack.not_checkable) == [
        f"{tmp_path}/freeze.txt:1: accelerate from a local directory names no version "
        "(`pip list --format=freeze` writes the installed version)",
        f"{tmp_path}/freeze.txt:6: tqdm from a URL names no version "
        "(`pip list --format=freeze` writes the installed version)",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "mypkg @ https://example.org/other-1.0.tar.gz",
        "mypkg @ https://example.org/other-1.0-py3-none-any.whl",
    ],
)
def test_a_direct_reference_to_another_projects_file_is_refused(tmp_path: Path, line: str) -> None:
    with pytest.raises(StackFileError, match=r"r.txt:2: mypkg @ https://example.org/other-1.0.* the file is other 1.0"):
        load_stack(write(tmp_path, "r.txt", f"numpy==2.1.2\n{line}\n"), Target())


@pytest.mark.parametrize(
    "line",
    [
        "WARNING: Ignoring invalid distribution ~orch (/opt/conda/envs/rl/lib/python3.11/site-packages)",
        "DEPRECATION: Loading egg at /opt/conda/lib/python3.11/site-packages/foo.egg is deprecated.",
        "ERROR: Exception:",
    ],
)
def test_pips_own_messages_are_named_as_such(tmp_path: Path, line: str) -> None:
    with pytest.raises(StackFileError) as info:
        load_stack(write(tmp_path, "freeze.txt", f"numpy==2.1.2\n{line}\ntorch==2.5.1\n"), Target())
    text = str(info.value)
    assert text.startswith(f"{tmp_path}/freeze.txt:2: `{line[:20]}")
    assert "is pip's own message, not a requirement" in text and "`pip freeze > FILE` (stdout only" in text
    assert "\n" not in text


@pytest.mark.parametrize("name", ["requirements.txt", "conda-list.txt", "included.txt"])
def test_a_private_key_block_is_refused_without_quoting_it(tmp_path: Path, name: str) -> None:
    """A line of a key's body alone does not look like a secret; the block does: refused, nothing of it quoted."""
    key = "-----BEGIN PRIVATE KEY-----\nMIIfuzzKEYbody\n-----END PRIVATE KEY-----\n"
    head = "# packages in environment at /opt/conda:\n" if name == "conda-list.txt" else "torch==2.5.1\n"
    (tmp_path / name).write_text(head + key, encoding="utf-8")
    path = tmp_path / name
    if name == "included.txt":
        (tmp_path / "requirements.txt").write_text("torch==2.5.1\n-r included.txt\n", encoding="utf-8")
        path = tmp_path / "requirements.txt"
    with pytest.raises(StackFileError) as err:
        load_stack(str(path), Target())
    assert "private key block" in str(err.value) and "MIIfuzz" not in str(err.value)
    assert f"{name}:2:" in str(err.value)

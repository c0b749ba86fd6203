"""Real stack files from public repositories (tests/data/stack_files_real, SOURCES.md), read as ``uv sync`` and pip would."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rocmcompat.stack.stack_model import LockSelection, StackFileError
from pytest_rocmcompat.stack.stack_replay import stack_file_environment

DATA = Path(__file__).parent.parent / "data" / "stack_files_real"


def _packages(name: str, *sets: str, selection: LockSelection | None = None) -> dict[str, str]:
    return stack_file_environment(str(DATA / name), list(sets), selection=selection)[0].packages


@pytest.mark.parametrize(
    ("extras", "torch", "count"),
    [
        ((), "2.9.1", 70),  # uv sync: no extra, the dev group: PyPI's torch
        (("gpu",), "2.9.1+cu128", 92),
        (("cpu",), "2.9.1+cpu", 76),
    ],
)
def test_a_lock_with_conflicting_extras_installs_what_uv_sync_installs(
    extras: tuple[str, ...], torch: str, count: int
) -> None:
    """nanochat's lock declares its cpu and gpu extras conflicting: uv encodes them in markers
    (`extra == 'extra-8-nanochat-gpu'`), judged against the extras chosen. It was refused whatever was asked.
    """
    packages = _packages("nanochat.uv.lock", "python=3.12", selection=LockSelection(extras))
    assert packages["torch"] == torch and len(packages) == count


def test_conflicting_or_unknown_extras_are_refused_by_name() -> None:
    with pytest.raises(StackFileError, match=r"contourpy .* both installed .* choose them with --extra and --group"):
        _packages("nanochat.uv.lock", "python=3.12", selection=LockSelection(("gpu", "cpu")))
    with pytest.raises(StackFileError, match=r"no workspace member declares the extra 'nope' \(declared: cpu, gpu\)"):
        _packages("nanochat.uv.lock", "python=3.12", selection=LockSelection(("nope",)))


def test_dependency_groups_are_chosen_as_uv_sync_chooses_them() -> None:
    """open-instruct's cuda12 and cuda13 groups conflict; its pyproject's default-groups are not in the lock."""
    plain = _packages("open-instruct.uv.lock", "python=3.12")
    assert (plain["torch"], plain["vllm"]) == ("2.10.0", "0.19.1")
    cuda12 = _packages("open-instruct.uv.lock", "python=3.12", selection=LockSelection(groups=("dev", "cuda12")))
    assert cuda12["torch"] == "2.10.0+cu128"
    without_dev = _packages("open-instruct.uv.lock", "python=3.12", selection=LockSelection(groups=()))
    assert len(without_dev) < len(plain)


def test_a_python_the_lock_does_not_allow_is_refused() -> None:
    with pytest.raises(StackFileError, match=r"the lock is for Python >=3.10, <3.12 .*not 3.12.0"):
        _packages("kohya_ss.uv.lock", "python=3.12")


def test_a_lock_without_conflicts_is_unchanged() -> None:
    packages = _packages("prime-rl.uv.lock", "python=3.12")
    assert (packages["torch"], packages["vllm"]) == ("2.11.0+cu128", "0.26.0+cu129")


def test_a_pylock_toml_is_read_for_the_target() -> None:
    """PEP 751 (uv export --format pylock.toml): each entry whose marker holds, at its version."""
    stack, _ = stack_file_environment(str(DATA / "maia3.pylock.toml"), ["python=3.12"])
    assert stack.format == "pylock" and stack.packages["torch"] == "2.13.0" and len(stack.packages) == 43
    assert any("colorama (its marker `sys_platform == 'win32'`" in s for s in stack.skipped)
    assert any("maia3 names no version" in n for n in stack.not_checkable)  # the project itself, a directory
    with pytest.raises(StackFileError, match=r"depends on the Python version .* --set python=3.X"):
        stack_file_environment(str(DATA / "maia3.pylock.toml"))
    with pytest.raises(StackFileError, match=r"the lock is for Python >=3.10 .*not 3.9.0"):
        stack_file_environment(str(DATA / "maia3.pylock.toml"), ["python=3.9"])


def test_conda_list_pasted_from_its_column_header() -> None:
    """`conda list` output from its `# Name Version Build Channel` line on (the environment line left out)."""
    stack, env = stack_file_environment(str(DATA / "ninet.Dependencies.md"))
    assert stack.format == "conda-list" and env.torch == "2.0.1+cu118" and len(stack.packages) == 131


def test_a_wheel_url_alone_on_a_line_is_its_name_and_version(tmp_path: Path) -> None:
    """pip installs a line that is only a wheel's URL; its file name says the name and the version."""
    req = tmp_path / "requirements.txt"
    req.write_text(
        "https://github.com/oobabooga/gradio/releases/download/4.37.2-custom.20/gradio-4.37.2+custom.20-py3-none-any.whl\n"
        "https://example.invalid/x/llama_cpp_binaries-0.124.0+rocm7.2-py3-none-win_amd64.whl; "
        'platform_system == "Windows"\n'
        "torch==2.5.1\n",
        encoding="utf-8",
    )
    stack, _ = stack_file_environment(str(req))
    assert stack.packages == {"gradio": "4.37.2+custom.20", "torch": "2.5.1"}
    assert any("llama-cpp-binaries" in s or "llama_cpp_binaries" in s for s in stack.skipped)


def test_a_local_directory_in_a_lock_is_not_checkable() -> None:
    """kohya_ss locks its sd-scripts checkout (`source = { directory = "sd-scripts" }`) as version 0.0.0."""
    stack, _ = stack_file_environment(str(DATA / "kohya_ss.uv.lock"), ["python=3.11"])
    assert "library" not in stack.packages
    assert any("library from a local directory" in n for n in stack.not_checkable)

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

"""A stack file as an :class:`Environment`: exactly what the file (and ``--set``) states.

The one engine behind ``rocmcompat check FILE`` and ``pytest --rocm-stack FILE``: pip freeze,
requirements/constraints, ``uv.lock``, a conda export or a recorded probe (stack/stack_files.py)
become a replayed environment whose packages are the file's and nothing else: nothing comes
from the machine it runs on, so a check can neither fire nor stay silent for a package the
stack does not contain.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import os
import re
import tempfile
from dataclasses import replace

from pytest_rocmcompat.errors import OverrideError
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.overrides import apply_overrides, parse_assignment
from pytest_rocmcompat.stack.pytorch_index import NVIDIA_CU
from pytest_rocmcompat.stack.stack_files import StackFile, StackFileError, load_stack, marker_target
from pytest_rocmcompat.stack.stack_model import LockSelection
from pytest_rocmcompat.stack.versions import build_tag_version


def stack_file_environment(
    path: str,
    assignments: list[str] | tuple[str, ...] = (),
    fmt: str | None = None,
    selection: LockSelection | None = None,
) -> tuple[StackFile, Environment]:
    """The stack ``path`` describes, with ``assignments`` (``KEY=VALUE``) applied.

    Raises :class:`StackFileError` or :class:`OverrideError`, each naming the file and line or
    the assignment.
    """
    assignments = list(assignments)
    parsed = [parse_assignment(a) for a in assignments]
    stack = load_stack(path, marker_target(parsed), fmt, selection)
    if stack.environment is None and stack.python and not any(k == "python" for k, _ in parsed):
        stack = load_stack(path, marker_target([("python", stack.python)]), fmt, selection)
    if stack.environment is not None:
        base = replace(stack.environment, source="replay", origin=path)
    else:
        libraries = {normalize_library(k): v for k, v in stack.packages.items() if k != "torch"}
        base = Environment(
            platform="cpu",
            torch=stack.packages.get("torch"),
            python=stack.python or "",
            os="Linux",
            libraries=dict(sorted(libraries.items())),
            source="replay",
            origin=path,
        )
    env = apply_overrides(base, assignments) if assignments else base
    if stack.environment is None and not any(k == "platform" for k, _ in parsed):
        env = replace(env, platform=platform_of(env))
    path = "<stdin>" if path == "-" else path
    shown = f"{path} + {'; '.join(assignments)}" if assignments else path
    return stack, replace(env, source="replay", origin=shown)


def platform_of(env: Environment) -> str:
    """What the stack says: torch's ``+rocm``/``+cu`` tag (or ``rocm``/``cuda`` set), else the GPUs' vendor, else
    NVIDIA's CUDA wheels beside it on Linux (what PyPI's CUDA torch installs).
    """
    if build_tag_version(env.torch_local, "rocm") is not None or env.rocm or env.hip:
        return "rocm"
    if build_tag_version(env.torch_local, "cuda") is not None or env.cuda:
        return "cuda"
    vendors = {g.vendor for g in env.gpus}
    if vendors == {"amd"}:
        return "rocm"
    if vendors == {"nvidia"}:
        return "cuda"
    if any(NVIDIA_CU.match(name) for name in env.libraries) and env.system in ("", "Linux"):
        return "cuda"  # PyPI's CUDA torch pulls NVIDIA's CUDA wheels (nvidia-cublas-cu12, nvidia-nccl-cu13 ...)
    return env.platform


_RECORDED: dict[str, str] = {}  # this process's replay files, by content digest


def rocm_stack_option(path: str) -> str:
    """``--rocm-stack FILE``: the file's stack, recorded as a replay file; its path (for ``--rocm-env``).

    An argparse ``type``: a malformed or unpinned file is a usage error naming the file and line.
    Each process that parses the command line (pytest, each xdist worker, each isolation sandbox)
    records it once, under a name nobody can guess or plant (``mkstemp``: created new, 0600), and
    removes it when it exits; the name ends with the stack file's, which the replay label shows.
    """
    if path == "-":
        raise argparse.ArgumentTypeError(
            "standard input (-) is not read under pytest (each xdist worker and isolated test parses the command line "
            "again); save the stack to a file (pip freeze > stack.txt) and pass --rocm-stack=stack.txt"
        )
    try:
        _, env = stack_file_environment(path)
    except (StackFileError, OverrideError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    text = env.to_json()
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    recorded = _RECORDED.get(digest)
    if recorded is not None and os.path.isfile(recorded):
        return recorded
    name = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(path))[:80]  # the replay label names the file
    fd, out = tempfile.mkstemp(prefix="rocmcompat-stack-", suffix=f"-{name}.json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    _RECORDED[digest] = out
    atexit.register(_remove, out, os.getpid())
    return out


def _remove(out: str, owner: int) -> None:
    if os.getpid() == owner:  # a forked child that exits normally leaves its parent's file alone
        try:
            os.unlink(out)
        except OSError:
            pass

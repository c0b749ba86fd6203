"""Whether a sandbox may fork a fresh child per test, and what it imports ahead of the fork.

A *template* sandbox imports what is expensive (pytest, the plugin, the conftests, the
modules of ini ``rocm_isolate_preload``, torch by default) and never runs a test itself:
each isolated test runs in a child forked from it, so no test ever sees what another
changed. Forking is safe only while the template has initialised no GPU runtime and runs
no thread that could hold a lock at the fork. Before every fork the template checks what it
holds, not what it believes: ``torch.cuda.is_initialized()`` is not enough (on NVIDIA,
``torch.cuda.is_available()`` and ``device_count()`` already leave a forked child unable to
use CUDA, and both open the driver's device files), so the check reads the process's open
files and threads. When one check fails the template runs the test itself, in-process, and
exits after it: that test still starts from a process no other test touched (a *spawned*
one), it just costs an interpreter start. The reason is reported with the test.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading

# Device files a GPU runtime opens when it initialises: NVIDIA's driver, AMD's KFD and DRM
# render nodes (HIP opens both). A template holding one has initialised a runtime.
GPU_DEVICE_PREFIXES = ("/dev/nvidia", "/dev/kfd", "/dev/dri/")
DEFAULT_PRELOAD = ("torch",)


def native_threads() -> int:
    """The number of threads of this process, native ones included (Linux ``/proc``)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def gpu_files() -> list[str]:
    """The GPU device files this process holds open (Linux ``/proc/self/fd``)."""
    found: list[str] = []
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return found
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target.startswith(GPU_DEVICE_PREFIXES):
            found.append(target)
    return sorted(set(found))


# What a child imports only when its test fails (classification, diagnoses, figures, traceback):
# loaded in the template, so reporting a failure needs no import in a child whose test exhausted
# its memory or address space.
REPORTING_MODULES = (
    "traceback",
    "pytest_rocmcompat.knowledge.checks.registry",
    "pytest_rocmcompat.knowledge.diagnoses",
    "pytest_rocmcompat.knowledge.rules.signature",
    "pytest_rocmcompat.session.measurements",
)


def preload(modules: list[str] | tuple[str, ...]) -> list[str]:
    """Import the installed ``modules`` (a GPU runtime is never initialised by an import alone).

    Returns one line per module that could not be imported (installed but broken): the
    children then import it themselves, and the reason is given with the first test.
    """
    problems: list[str] = []
    for name in modules:
        if not name or name in sys.modules:
            continue
        try:
            if importlib.util.find_spec(name) is None:
                continue
            importlib.import_module(name)
        except Exception as exc:  # a broken install is the test's to report, not the template's
            problems.append(f"preloading {name} failed: {type(exc).__name__}: {exc}")
    return problems


def fork_blocker(ready_threads: int) -> str | None:
    """Why forking now would be unsafe, or ``None``; ``ready_threads``: the count once ready.

    The native threads that importing torch starts (idle pools, as pytorch's own fork-based
    DataLoader workers rely on) are counted in ``ready_threads``; any thread started later,
    and any Python thread besides the main one, blocks the fork.
    """
    files = gpu_files()
    if files:
        return (
            f"the template holds GPU device files open ({', '.join(files[:3])}): something it imported "
            "(a conftest or plugin) initialised the GPU runtime"
        )
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    try:
        initialised = bool(cuda is not None and cuda.is_initialized())
    except Exception:  # a broken torch: the children find out for themselves
        initialised = False
    if initialised:
        return "torch.cuda is initialised in the template (a conftest or plugin touched the GPU at import)"
    others = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    if others:
        return f"the template runs Python threads ({', '.join(others[:3])}) that a fork could catch holding a lock"
    now = native_threads()
    if now > ready_threads:
        return f"the template started {now - ready_threads} native thread(s) after it was ready"
    return None

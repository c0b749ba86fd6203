"""A standby child: forked from the template while a test runs, ready for the next isolated test.

A fresh child per test pays its GPU runtime's start-up (on an H100 about 0.2 s for the driver's
``cuInit`` and primary context, of about 0.45 s per cold child). A *standby* is forked from the
template right after the running test's child, sets the environment the next test will see,
starts the driver (CUDA only: ``cuInit`` and device 0's primary context through ``libcuda``,
nothing of torch's), then waits on a pipe for its command. The next test's command goes to the
standby when the environment matches; otherwise the standby is released (its pipe closed, it
exits) and a child is forked as before.

What a standby does not change: it is forked from the template, so no earlier test touched it;
torch's own state (``torch.cuda.is_initialized()``, the allocator, seeds, flags) is as in any
fresh process. What it does change, and why it is used only for tests that declare GPU use:
the driver read ``CUDA_VISIBLE_DEVICES`` and the other ``CUDA_*`` variables when it started, so a
test that changes them itself, before its first CUDA call, no longer changes what the driver
sees; and the standby holds a CUDA context (as an in-process xdist worker holds one) while the
previous test runs. ROCm: no AMD GPU was available to verify a HIP start-up on, so a standby is
forked but its runtime is not started there.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from dataclasses import dataclass


def warm_gpu_runtime() -> str:
    """Start the CUDA driver and retain device 0's primary context; what was done, or why not."""
    torch = sys.modules.get("torch")
    version = getattr(torch, "version", None)
    if version is None or not getattr(version, "cuda", None) or getattr(version, "hip", None):
        return "not warmed: no CUDA build of torch imported"
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "":
        return "not warmed: no GPU visible"
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        if cuda.cuInit(0) != 0:
            return "not warmed: cuInit failed"
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if cuda.cuDeviceGet(ctypes.byref(device), 0) != 0:
            return "not warmed: no device 0"
        if cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) != 0:
            return "not warmed: the primary context could not be made"
    except (OSError, AttributeError):
        return "not warmed: no libcuda"
    return "warmed"


@dataclass
class Standby:
    """The template's handle on a standby child: its pid, the pipe its command goes to, what it saw,
    and the pipe it writes its exit code on (:func:`.child._exit_code`).
    """

    pid: int
    pipe: int
    environ: dict[str, str] | None
    exits: int

    def hand(self, command: dict) -> bool:
        """Give the standby ``command``; False (and the standby released) when it cannot take it."""
        if command.get("environ") != self.environ:
            self.drop()
            return False
        try:
            os.write(self.pipe, json.dumps(command).encode() + b"\n")
        except OSError:  # it died (killed with a test's leftovers): a fresh child instead
            self.drop()
            return False
        self.release()
        return True

    def release(self) -> None:
        """Close the command pipe: a standby that has no command by then exits by itself."""
        try:
            os.close(self.pipe)
        except OSError:
            pass

    def drop(self) -> None:
        """Release a standby that will take no command, and stop listening for its exit code."""
        self.release()
        try:
            os.close(self.exits)
        except OSError:
            pass


def wait_for_command(pipe: int) -> dict | None:
    """In the standby: block until the template sends a command; ``None`` once released."""
    data = b""
    while not data.endswith(b"\n"):
        try:
            chunk = os.read(pipe, 65536)
        except InterruptedError:
            continue
        if not chunk:
            return None
        data += chunk
    os.close(pipe)
    return json.loads(data.decode("utf-8"))

"""The highest CUDA an NVIDIA driver supports, read from its version: what ``nvidia-smi`` prints as
``CUDA Version`` beside ``Driver Version``.

Each driver branch ships with one CUDA release, the one NVIDIA's release notes pair it with
(*CUDA Toolkit and Corresponding Driver Versions*, SOURCE: CUDA 11.4.0 GA ">=470.42.01", 12.0 GA
">=525.60.13", 12.4 GA ">=550.54.14", 13.0 GA ">=580.65.06"; the runfile of each GA release is named
after its driver, ``cuda_12.4.0_550.54.14_linux.run``). A driver of a branch reports that branch's
CUDA (``| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |``). Windows numbers
a branch's releases above it (R550 ships 551.xx and 552.xx, R470 472.xx), and no Linux branch sits
between two rows, so a driver belongs to the highest branch at or below its major. A driver older
than the first row (R450, CUDA 11.0) or newer than the last branch read here gives no fact: a
later branch's CUDA is not guessed.
"""

from __future__ import annotations

import re

SOURCE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"

# (driver branch, the CUDA release it ships with), ascending
BRANCH_CUDA: tuple[tuple[int, str], ...] = (
    (450, "11.0"),
    (455, "11.1"),
    (460, "11.2"),
    (465, "11.3"),
    (470, "11.4"),
    (495, "11.5"),
    (510, "11.6"),
    (515, "11.7"),
    (520, "11.8"),
    (525, "12.0"),
    (530, "12.1"),
    (535, "12.2"),
    (545, "12.3"),
    (550, "12.4"),
    (555, "12.5"),
    (560, "12.6"),
    (565, "12.7"),
    (570, "12.8"),
    (575, "12.9"),
    (580, "13.0"),
)
# the last branch read: a driver of a later branch (R590 and on) gives no fact
_LAST_BRANCH_END = 590
# an NVIDIA driver version as users paste it: 470.82.01, 535.104.05, 552.22, a branch (535)
_DRIVER = re.compile(r"^(\d{3})(?:\.\d{1,3}(?:\.\d{1,3})?)?$")


def driver_cuda(driver: str | None) -> str | None:
    """``"535.104.05"`` -> ``"12.2"``; ``None`` for no driver, another vendor's or kernel's version, or a
    branch outside the table.
    """
    m = _DRIVER.match((driver or "").strip())
    if m is None:
        return None
    major = int(m.group(1))
    if major >= _LAST_BRANCH_END:
        return None
    found = None
    for branch, cuda in BRANCH_CUDA:
        if branch <= major:
            found = cuda
    return found

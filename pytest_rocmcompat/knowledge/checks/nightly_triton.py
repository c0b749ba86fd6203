"""The Triton a torch nightly pins: the series of its own release or of the release before, never another.

A nightly (``2.6.0.dev20241112+cu124``) is not on PyPI, so its ``Requires-Dist`` is not in the generated
data; it pins ``pytorch-triton`` (``pytorch-triton-rocm`` for a ROCm nightly) at the commit in
``.ci/docker/ci_commit_pins/triton.txt``, versioned by ``.ci/docker/triton_version.txt`` (NIGHTLY_PIN_SOURCE).
Main's pin is the previous release branch's when that branch is cut, and the next branch is cut from main, so
every nightly of series 2.N pins a Triton between torch 2.(N-1)'s release pin and torch 2.N's (PyPI's
``Requires-Dist`` of both, in the generated data: 2.5 pins 3.1, 2.6 pins 3.2, 2.11 keeps 2.10's 3.6); before
2.N is released, one no older than 2.(N-1)'s. A Triton of another series beside a nightly was installed on its
own (``pip install triton``, a library's pin), and Inductor imports that one's internals. Which day bumped the
pin is not known here, so it is a risk (*uncertain*): the pair's own import failures confirm it. Source builds
and NGC's ``2.N.0a0+git`` carry their own Triton and are not judged.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.declared_pins import TRITON, declared_requires_all
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

NIGHTLY_PIN_SOURCE = "https://github.com/pytorch/pytorch/blob/main/.ci/docker/triton_version.txt"
_NIGHTLY = re.compile(r"\.dev\d{8}\b")
_TRITON_PIN = re.compile(r"^(?:pytorch-)?triton==(\d+)\.(\d+)")
Series = tuple[int, int]


def release_triton_series(minor: int) -> Series | None:
    """The Triton series torch 2.``minor``'s first release pins on Linux (PyPI metadata), or ``None``."""
    for text, _ in declared_requires_all("torch", f"2.{minor}.0", cuda_build=True):
        m = _TRITON_PIN.match(text)
        if m is not None:
            return int(m.group(1)), int(m.group(2))
    return None


def nightly_range(torch: str | None) -> tuple[Series, Series | None] | None:
    """(oldest, newest or ``None``: not released yet) Triton series a torch 2.N nightly can pin; ``None``
    when ``torch`` is no nightly or the release before it is not known.
    """
    version = coerce_version(torch)
    if version is None or version.major != 2 or not version.is_devrelease or not _NIGHTLY.search(torch or ""):
        return None
    oldest = release_triton_series(version.minor - 1)
    if oldest is None:
        return None
    return oldest, release_triton_series(version.minor)


def mismatches(
    env: Environment, replaced: set[str] | None, *, rocm: bool
) -> list[tuple[str, str, str, str, str, bool]]:
    """The stack's Triton distributions outside a torch nightly's range, as ``requirements`` pairs
    (dependent, requirement, installed, source, quoted failure, run-time row); ``rocm``: a ROCm build of torch,
    whose nightlies pin ``pytorch-triton-rocm``.
    """
    bounds = nightly_range(env.torch)
    if bounds is None:
        return []
    oldest, newest = bounds
    upper = f",<{newest[0]}.{newest[1] + 1}" if newest is not None else ""
    wanted = f"{'pytorch-triton-rocm' if rocm else 'pytorch-triton'}>={oldest[0]}.{oldest[1]}{upper}"
    found = []
    for dist in TRITON:
        if dist not in env.libraries or (replaced and dist not in replaced):
            continue
        version = coerce_version(env.libraries[dist])
        if version is None:
            continue
        series = (version.major, version.minor)
        if series >= oldest and (newest is None or series <= newest):
            continue
        shown = f"{dist} {env.libraries[dist]} (a nightly pins the Triton of its series' release or the one before)"
        found.append((f"torch {env.torch}", wanted, shown, NIGHTLY_PIN_SOURCE, "", False))
    return found

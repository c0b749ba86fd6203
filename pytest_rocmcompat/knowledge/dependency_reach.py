"""What a test that uses a library also runs: the packages that library declares it needs.

A test marked ``uses("verl")`` runs verl, and verl drives its workers through Ray (verl's
``Requires-Dist: ray[default]>=...``): a finding about the stack's Ray (it counts no AMD GPU, it
refuses the visibility variables) reaches that test as it reaches one marked ``uses("ray")``.
So do transformers' findings for ``uses("peft")`` (PEFT requires transformers) and Triton's for
``uses("liger-kernel")``. The rule engine widens each test's ``uses`` by this closure when it
matches rules; the test's own ``uses`` (reports, tables) stay as written.

A library's requirements are, in order: the installed distribution's own metadata (the probe's
``Environment.requires``); the release the stack names, as PyPI's metadata declared it
(:mod:`.declared_data`); and, for a library the stack names no release of (or a release the data
does not list), what its releases typically declare: a requirement of at least half of the recorded
releases, or of the newest (verl's Ray: 17 of its 19; not PEFT 0.1.0's lone bitsandbytes).
Requirements gated on an extra are left out, and markers are read for Linux x86-64 and the stack's
Python, as the data's other readers do. On a ROCm stack the PyPI metadata of vLLM, xformers and SGLang
(:data:`.declared_pins.CUDA_WHEELS`) is not read: those wheels are CUDA builds, and their ROCm builds
declare other requirements (only an installed build's own metadata then counts).

torch's own requirements are not followed: they are its runtime (the ``nvidia-*`` wheels, already
torch's build facts) and Triton, which only Inductor uses (a test compiling says so with
``uses("torch.compile")``; ``requirements`` binds torch's Triton pin to those tests alone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Set
from functools import cache

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.declared_pins import CUDA_WHEELS
from pytest_rocmcompat.stack.environment import Environment, normalize_library

NOT_FOLLOWED = frozenset({"torch"})  # whose requirements are its runtime, not libraries a test uses


class DependencyReach:
    """The ``uses`` names a test reaches through the declared requirements of the ones it names."""

    def __init__(self, env: Environment) -> None:
        self._env = env
        self._needs: dict[str, frozenset[str]] = {}
        self._closure: dict[frozenset[str], frozenset[str]] = {}  # cached per distinct ``uses``

    def expand(self, uses: Set[str]) -> Set[str]:
        """``uses`` with every package they need, transitively (names normalised as ``uses_of``)."""
        if not uses:
            return uses
        key = frozenset(uses)
        hit = self._closure.get(key)
        if hit is None:
            seen = set(uses)
            frontier = [u for u in uses if u not in NOT_FOLLOWED]
            while frontier:
                for dep in self.needs(frontier.pop()):
                    if dep not in seen:
                        seen.add(dep)
                        if dep not in NOT_FOLLOWED:
                            frontier.append(dep)
            hit = self._closure[key] = frozenset(seen)
        return hit

    def needs(self, library: str) -> frozenset[str]:
        """The packages ``library`` requires in this stack (see the module docstring), normalised."""
        name = normalize_library(library)
        hit = self._needs.get(name)
        if hit is None:
            hit = self._needs[name] = frozenset(self._declared(name)) - {name}
        return hit

    def _declared(self, name: str) -> Iterable[str]:
        env = self._env
        python = env.python or None
        if name in env.requires:
            return (normalize_library(r.name) for r in declared_data.requirements_of(env.requires[name], python))
        if name in CUDA_WHEELS and (env.torch_rocm is not None or env.platform == "rocm"):
            return ()  # PyPI's wheel is a CUDA build: its requirements are not the ROCm build's
        release = declared_data.release(name, env.libraries.get(name))  # torch is never asked (NOT_FOLLOWED)
        if release is not None and release.requires is not None:
            return (normalize_library(r.name) for r in declared_data.requirements(release, python))
        return typical_needs(name, python)


@cache
def typical_needs(name: str, python: str | None) -> frozenset[str]:
    """What at least half of the recorded releases of ``name``, or its newest, require (empty where unlisted)."""
    counts: Counter[str] = Counter()
    newest: set[str] = set()
    versions = declared_data.versions(name)
    for version in versions:
        release = declared_data.release(name, version)
        if release is not None:
            newest = {normalize_library(r.name) for r in declared_data.requirements(release, python)}
            counts.update(newest)
    return frozenset(n for n, k in counts.items() if 2 * k >= len(versions)) | frozenset(newest)

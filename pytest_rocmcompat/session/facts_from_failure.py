"""A failure stating what the stack leaves out (the GPU's processor, the ROCm release, the amdgpu driver): the rules
those bring.

A replayed or stack-file run may leave the GPU's arch or the ROCm release out (the report did not say
them), while the failure prints them (:mod:`knowledge.failure_facts`: rocBLAS' ``for GPU arch : gfx1031``,
HIP's ``[Not Found]`` device list, torch's capability warning; a library path under ``/opt/rocm-5.7.1``).
On the machine that failed, a probe would have read them; so the stack is judged again with them, once
per set of facts and session, and the rules that reach the test only then are offered to the failure:
one whose signature matches claims it (``known-bad``, with a note saying where the facts came from).
A fact the stack states always stands: an arch where it states any GPU's arch, a release where it
states ``rocm``, ``hip`` or a ``+rocm`` torch, a driver where it states one; a processor of the other vendor's
platform is ignored. A package is never taken from the text: a replay reports nothing about packages its stack
does not contain.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.failure_facts import amdgpu_driver_named, gpu_arch_named, rocm_release_named
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.session.item_facts import item_facts, marks_of
from pytest_rocmcompat.session.state import judge, state_of
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

_PLATFORM = {"gfx": "rocm", "sm_": "cuda"}


def failure_assignments(env: Environment, text: str) -> tuple[str, ...]:
    """The ``--rocm-set`` assignments the failure text adds to ``env`` (``("arch=gfx1031", "rocm=5.7.1")``)."""
    found = []
    if not any(gpu.arch for gpu in env.gpus):
        arch = gpu_arch_named(text)
        if arch is not None and _PLATFORM[arch[:3]] == env.platform:
            found.append(f"arch={arch}")
    if env.platform == "rocm" and not (env.rocm or env.hip or env.torch_rocm is not None):
        release = rocm_release_named(text)
        if release is not None:
            found.append(f"rocm={release}")
    if env.platform == "rocm" and not env.driver:
        driver = amdgpu_driver_named(text)
        if driver is not None:
            found.append(f"driver={driver}")
    return tuple(found)


def rules_from_failure_facts(item: pytest.Item, text: str, tried: list[Rule]) -> tuple[str, list[Rule]]:
    """(the facts, as ``"arch=gfx1031, rocm=5.7.1"``, the signed rules they bring to ``item`` beyond ``tried``),
    or ``("", [])``.
    """
    state = state_of(item.config)
    if state is None:
        return "", []
    assignments = failure_assignments(state.env, text)
    if not assignments:
        return "", []
    active = state.by_failure_facts.get(assignments)
    if active is None:
        _, active = judge(apply_overrides(state.env, list(assignments)), state.matrix)
        state.by_failure_facts[assignments] = active
    facts = item_facts(item, marks_of(item, {}), state)
    seen = {(r.id, r.signature.pattern if r.signature else None) for r in tried}
    offered = [
        r
        for r in active.match(facts)
        if r.signature is not None and r.action in ("xfail", "isolate") and (r.id, r.signature.pattern) not in seen
    ]
    return ", ".join(assignments), offered

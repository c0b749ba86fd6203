"""A failure naming a GPU processor the stack does not state: the rules that processor brings.

A replayed or stack-file run may leave the GPU's arch out (the report did not say it), while the
failure prints it (:func:`knowledge.failure_facts.gpu_arch_named`: rocBLAS' ``for GPU arch : gfx1031``,
HIP's ``[Not Found]`` device list, torch's capability warning). On the machine that failed, a probe
would have read that arch; so the stack is judged again with it, once per processor and session, and
the rules that reach the test only then are offered to the failure: one whose signature matches claims
it (``known-bad``, with a note saying where the arch came from). Never where the stack states any
GPU's arch (a probe's or the user's word stands), nor for a processor of the other vendor's platform.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.failure_facts import gpu_arch_named
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.session import item_facts
from pytest_rocmcompat.session.state import judge, state_of
from pytest_rocmcompat.stack.overrides import apply_overrides

_PLATFORM = {"gfx": "rocm", "sm_": "cuda"}


def named_arch_rules(item: pytest.Item, text: str, tried: list[Rule]) -> tuple[str, list[Rule]]:
    """(the processor the failure names, the signed rules it brings to ``item`` beyond ``tried``), or ``("", [])``."""
    state = state_of(item.config)
    if state is None or any(gpu.arch for gpu in state.env.gpus):
        return "", []
    arch = gpu_arch_named(text)
    if arch is None or _PLATFORM[arch[:3]] != state.env.platform:
        return "", []
    active = state.by_named_arch.get(arch)
    if active is None:
        _, active = judge(apply_overrides(state.env, [f"arch={arch}"]), state.matrix)
        state.by_named_arch[arch] = active
    marks = item_facts.marks_of(item, {})
    names = {m.name for m in marks}
    known = item_facts.known_issue_ids(item, state, marks) if "known_issue" in names else ()
    seen = {(r.id, r.signature.pattern if r.signature else None) for r in tried}
    offered = [
        r
        for r in active.match(item_facts.item_facts(item, marks, names, known))
        if r.signature is not None and r.action in ("xfail", "isolate") and (r.id, r.signature.pattern) not in seen
    ]
    return arch, offered

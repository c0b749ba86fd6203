"""What collection decides about each test: the known-bad rules that reach it (matched on what
:mod:`.item_facts` reads of it), attached as skip/xfail/isolate markers by ``classify``.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.session import classify
from pytest_rocmcompat.session.item_facts import Inherited, item_facts, marks_of
from pytest_rocmcompat.session.state import CompatState

__all__ = ["Inherited", "apply_rules", "marks_of"]


def apply_rules(
    item: pytest.Item, marks: list[pytest.Mark], state: CompatState, matched: dict[str, list[Rule]] | None
) -> set[str]:
    """Attach the known-bad rules that reach ``item``; returns its mark names, the added ones too.

    ``matched`` (the result hook's table, when there is one) learns which rules reached which test.
    """
    names = {m.name for m in marks}
    if not state.rules.active and "known_issue" not in names:
        return names  # the common case: nothing can reach this test, and its facts are not composed
    facts = item_facts(item, marks, state)
    if not (state.rules.active or facts.known_issues):
        return names
    nodeid = item.nodeid
    rules = state.rules.match(facts)
    if rules:
        state.applied[nodeid] = [r.id for r in rules]
        weak = {
            r.id: state.rules.through(facts.uses, r) for r in rules if r.at_risk and not state.rules.by_id[r.id].at_risk
        }
        if weak:
            state.through[nodeid] = weak
        if matched is not None:
            matched[nodeid] = rules
        names.update(classify.attach(item, rules))  # the markers it added: skip, isolated
    return names

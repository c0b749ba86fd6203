"""What rule matching reads of a collected test: its marks (walked once per parent node), the ``known_issue``
rule ids it names (checked against the loaded rules), the libraries it ``uses``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import pytest
from _pytest.nodes import Node

from pytest_rocmcompat.knowledge.rules.engine import ItemFacts, uses_of
from pytest_rocmcompat.session.state import CompatState

_NO_USES: frozenset[str] = frozenset()
Inherited = dict[int, list[pytest.Mark]]


def marks_of(item: pytest.Item, inherited: Inherited) -> list[pytest.Mark]:
    """``list(item.iter_markers())`` (closest first), with the parents' part computed once per parent."""
    return [*item.own_markers, *_chain_marks(item.parent, inherited)]


def _chain_marks(node: Node | None, inherited: Inherited) -> list[pytest.Mark]:
    if node is None:
        return []
    marks = inherited.get(id(node))
    if marks is None:
        marks = inherited[id(node)] = [*node.own_markers, *_chain_marks(node.parent, inherited)]
    return marks


def known_issue_ids(item: pytest.Item, state: CompatState, marks: Iterable[pytest.Mark]) -> tuple[str, ...]:
    """The rule ids of the test's ``known_issue`` marks; an id no loaded rule has is a usage error."""
    ids = []
    for mark in (m for m in marks if m.name == "known_issue"):
        for rule_id in (*mark.args, *([mark.kwargs["rule_id"]] if "rule_id" in mark.kwargs else [])):
            if rule_id not in state.rules.by_id:
                close = difflib.get_close_matches(str(rule_id), list(state.rules.by_id), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise pytest.UsageError(
                    f"rocmcompat: {item.nodeid}: known_issue({rule_id!r}) names no rule of {state.rules_source}{hint}"
                )
            ids.append(str(rule_id))
    return tuple(ids)


def item_facts(item: pytest.Item, marks: list[pytest.Mark], state: CompatState) -> ItemFacts:
    """What rule matching reads of ``item`` (its ``marks``): node id, marker names, the libraries it ``uses``,
    ``known_issue`` ids (checked against ``state``'s rules).
    """
    names = {m.name for m in marks}
    known = known_issue_ids(item, state, marks) if "known_issue" in names else ()
    uses = uses_of(a for m in marks if m.name == "uses" for a in m.args) if "uses" in names else _NO_USES
    return ItemFacts(item.nodeid, names, uses, known)

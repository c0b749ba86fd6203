"""Rules compiled against one environment, then matched to tests.

Conditions are evaluated once per session; matching a test is then a few set
look-ups plus one combined regular expression over node ids.
"""

from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from collections.abc import Iterable, Set
from dataclasses import replace
from typing import NamedTuple

from pytest_rocmcompat.knowledge.dependency_reach import DependencyReach
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment, normalize_library


class ItemFacts(NamedTuple):
    """What rule matching needs to know of one collected test (a tuple: built once per test)."""

    nodeid: str
    markers: Set[str]
    uses: Set[str]
    known_issues: tuple[str, ...] = ()


class ActiveRules:
    """The rules whose ``when`` holds for the environment, indexed for matching."""

    def __init__(self, rules: Iterable[Rule], env: Environment) -> None:
        self.all_rules = tuple(rules)
        self.by_id = {r.id: r for r in self.all_rules}
        facts = derive(env)  # what the stack implies (untagged torch's build, nvidia-* packages)
        self.active = tuple(r for r in self.all_rules if r.when.holds(facts))
        self._everything: list[Rule] = []
        self._by_marker: dict[str, list[Rule]] = defaultdict(list)
        self._by_use: dict[str, list[Rule]] = defaultdict(list)
        self._globbed: list[tuple[re.Pattern[str], Rule]] = []
        for rule in self.active:
            a = rule.applies_to
            if a.everything:
                self._everything.append(rule)
            for m in a.markers:
                self._by_marker[m].append(rule)
            for u in a.uses:
                self._by_use[u].append(rule)
            if a.nodeids:
                self._globbed.append((re.compile("|".join(_glob(g) for g in a.nodeids)), rule))
        # One pass rejects most node ids before any per-rule pattern runs.
        self._any_glob = re.compile("|".join(p.pattern for p, _ in self._globbed)) if self._globbed else None
        self._order = {r.id: i for i, r in enumerate(self.active)}
        # a test that uses a library also runs what that library requires (verl -> Ray, PEFT -> transformers)
        self._reach = DependencyReach(env)
        self._risks: dict[str, Rule] = {}

    def match(self, test: ItemFacts) -> list[Rule]:
        """Active rules that reach this test, in definition order, without repeats.

        A rule for ``uses("X")`` also reaches a test that uses a library requiring X (:mod:`..dependency_reach`),
        as a risk (``at_risk``): its signature still makes a matching failure ``known-bad``, but a pass stands
        and it is no likely cause of another failure, since the test may not take the path that breaks.
        """
        markers = test.markers & self._by_marker.keys()
        direct = test.uses & self._by_use.keys()
        required = (self._reach.expand(test.uses) & self._by_use.keys()) - direct  # an empty uses expands to itself
        globbed = self._any_glob is not None and self._any_glob.match(test.nodeid) is not None
        if not (self._everything or markers or direct or required or globbed or test.known_issues):
            return []  # the common case: nothing can reach this test
        found: dict[str, Rule] = {r.id: r for r in self._everything}
        for m in markers:
            found.update((r.id, r) for r in self._by_marker[m])
        for u in direct:
            found.update((r.id, r) for r in self._by_use[u])
        if globbed:
            found.update((r.id, r) for p, r in self._globbed if p.match(test.nodeid))
        for rule_id in test.known_issues:
            rule = self.by_id.get(rule_id)
            if rule is not None and rule.id in self._order:  # named and active
                found[rule.id] = rule
        for u in required:
            for r in self._by_use[u]:
                if r.id not in found:
                    found[r.id] = self._as_risk(r)
        return sorted(found.values(), key=lambda r: self._order[r.id])

    def through(self, uses: Set[str], rule: Rule) -> str:
        """How ``rule`` reaches a test that uses ``uses`` through a requirement (``verl requires ray``), or ``""``."""
        wanted = set(rule.applies_to.uses)
        for used in sorted(uses):
            needed = sorted(wanted & self._reach.expand(frozenset({used})) - {used})
            if needed:
                return f"{used} requires {', '.join(needed)}"
        return ""

    def _as_risk(self, rule: Rule) -> Rule:
        """``rule`` reaching a test only through a library it requires: a risk (one copy per rule)."""
        if rule.at_risk:
            return rule
        weak = self._risks.get(rule.id)
        if weak is None:
            weak = self._risks[rule.id] = replace(rule, at_risk=True)
        return weak


def _glob(pattern: str) -> str:
    """A node-id pattern as a regular expression (documented in docs/known-bad-rules.md).

    - A pattern without ``*``, ``?`` or ``[`` matches the node id it names and every id below
      it (followed by ``::``, ``/`` or ``[``: a file, a class, a parametrised test).
    - Otherwise it is an ``fnmatch`` glob over the whole id, except its trailing ``[...]`` (after
      the last ``::``): that is pytest's parameter id, whose brackets and ``[`` inside are
      literal while ``*`` and ``?`` still match anything, so ``test_p[Conv2d 1 LoRA]`` matches
      that one test and ``test_p[*]`` all its parameter sets.
    - A pattern always matches the node id equal to it.
    """
    literal = re.escape(pattern)
    head, params = _split_params(pattern)
    if not any(c in head for c in "*?[") and (params is None or not any(c in params for c in "*?")):
        return f"(?s:{literal}(?:(?:::|\\[|/).*)?)\\Z"
    body = fnmatch.translate(head)[4:-3] if head else ""  # strip (?s: ... )\Z
    if params is not None:
        body += "\\[" + "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in params) + "\\]"
    return f"(?s:{literal}|{body})\\Z"


def _split_params(pattern: str) -> tuple[str, str | None]:
    """``("a.py::test_p", "x 1")`` for ``a.py::test_p[x 1]``; ``(pattern, None)`` without a parameter part."""
    if not pattern.endswith("]"):
        return pattern, None
    start = pattern.rfind("::")
    bracket = pattern.find("[", start + 2 if start >= 0 else 0)
    if bracket <= 0:
        return pattern, None
    return pattern[:bracket], pattern[bracket + 1 : -1]


# Names of one library: torch.distributed's ``nccl`` backend is RCCL on ROCm (``librccl.so``, NCCL's API), so
# a test marked ``uses("rccl")`` meets what the NCCL rules and checks describe, and one marked ``uses("nccl")``
# on ROCm meets an RCCL rule (PyTorch's HIP notes: https://docs.pytorch.org/docs/stable/notes/hip.html)
_NCCL = frozenset({"nccl", "rccl"})
SAME_LIBRARY: dict[str, frozenset[str]] = dict.fromkeys(_NCCL, _NCCL)


def uses_of(args: Iterable[object]) -> frozenset[str]:
    """Normalised library names from ``uses(...)`` marker arguments, with the other names of each (:data:`SAME_LIBRARY`)."""
    names = frozenset(normalize_library(str(a)) for a in args)
    return names.union(*(SAME_LIBRARY[n] for n in names if n in SAME_LIBRARY))

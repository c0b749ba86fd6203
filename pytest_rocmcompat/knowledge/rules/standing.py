"""Whether an active rule counts against the stack itself, or only against the tests that use something.

``rocmcompat check`` exits 1 when something is known against a stack. A rule that holds for the stack
does not always say the stack is broken:

- only a risk (:attr:`Rule.only_a_risk`: uncertain, contested, crash-prone without a signature);
- a feature gap (:attr:`Rule.feature_gap`): the GPU lacks a numeric format or a compiler target, so only
  the tests that use it meet the rule (fp8 matmul on an A100 raises; the A100 stack is not broken);
- a library the stack does not list: a rule that reaches only tests of libraries (``uses``) none of which
  the stack contains, with no library condition of its own (FlashAttention-2's Ampere minimum, on a
  stack without flash-attn).

Every other active rule counts: one reaching every test or every GPU test, one whose condition names a
library the stack has, one reaching tests of a runtime feature (``torch.distributed``, graph capture,
convolutions) that the stack's own build gets wrong.
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment, normalize_library

COUNTED = ""
RISK = "risk"
FEATURE_GAP = "feature gap"
NOT_LISTED = "not listed"


def standing(rule: Rule, env: Environment, distributions: Iterable[str]) -> str:
    """:data:`COUNTED`, or why the rule is not counted against the stack (:data:`RISK`, :data:`FEATURE_GAP`,
    :data:`NOT_LISTED`). ``distributions``: names known to be distributions (a ``uses`` entry that is not one,
    such as ``torch.distributed`` or ``miopen``, is a runtime feature).
    """
    if rule.only_a_risk:
        return RISK
    if rule.feature_gap:
        return FEATURE_GAP
    if libraries_not_listed(rule, env, distributions):
        return NOT_LISTED
    return COUNTED


def libraries_not_listed(rule: Rule, env: Environment, distributions: Iterable[str]) -> tuple[str, ...]:
    """The ``uses`` libraries of a rule that reaches only their tests, when the stack lists none of them; ``()``
    when the rule reaches more (every test, a marker, node ids, a runtime feature) or has a library condition.
    """
    to = rule.applies_to
    if to.everything or to.markers or to.nodeids or not to.uses or rule.when.libraries:
        return ()
    known = {normalize_library(d) for d in distributions}
    names = tuple(normalize_library(u) for u in to.uses)
    if not all(n in known for n in names):
        return ()
    listed = {normalize_library(n) for n in env.libraries}
    return () if any(n in listed for n in names) else names

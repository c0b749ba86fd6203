"""Shared reads of a risk (``registry.evaluate_risks``): its findings for a stated stack, and the rule it compiles to."""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate, evaluate_risks
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides


def stated_risks(base: Environment, check: str, *stack: str) -> list[Finding]:
    """The risks of ``check`` (a finding's ``check`` exactly) for ``stack`` (``--rocm-set`` values) over ``base``."""
    return [f for f in evaluate_risks(apply_overrides(base, list(stack))) if f.check == check]


def risk_rule(base: Environment, rule_id: str, *stack: str) -> Rule:
    """The one rule whose id starts with ``rule_id``, compiled from the stack's findings and risks together."""
    env = apply_overrides(base, list(stack))
    (found,) = [r for r in compile_rules(evaluate(env) + evaluate_risks(env)) if r.id.startswith(rule_id)]
    return found

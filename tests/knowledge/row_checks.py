"""Shared checks of run-time requirement rows: a stack's reasons, its compiled rule, both ways, verbatim messages."""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.import_scan_rows import import_scan_rows
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.checks.requirement_tables import runtime_minimums
from pytest_rocmcompat.knowledge.checks.runtime_row import RuntimeRow
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

CPU_BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def reasons(base: Environment, *stack: str) -> list[str]:
    """The requirement-not-met reasons of ``stack`` stated over ``base``."""
    return [f.reason for f in evaluate(apply_overrides(base, list(stack))) if f.check == requirements.ID]


def rule(base: Environment, *stack: str) -> Rule:
    """The requirement-not-met rule the stack's finding compiles to."""
    found = [f for f in evaluate(apply_overrides(base, list(stack))) if f.check == requirements.ID]
    (compiled,) = [r for r in compile_rules(found) if r.id == requirements.ID]
    return compiled


def hand_rows(dist: str, version: str) -> list[RuntimeRow]:
    """The hand-written run-time rows holding ``dist``'s release (``tools/import_scan.py``'s generated rows left out)."""
    generated = set(import_scan_rows().get(dist, ()))
    return [r for r in runtime_minimums(dist, version) if r not in generated]


def row_message(stack: tuple[str, ...]) -> str:
    """The message of the one hand-written row with a message that holds the stack's first package's release."""
    dist, version = stack[0].removeprefix("lib.").split("=")
    (message,) = [r.message for r in hand_rows(dist, version) if r.message]
    return message


def assert_both_ways(base: Environment, stack: tuple[str, ...], found: str | None) -> None:
    """``found`` is in the one reason reported for ``stack``, or nothing is reported (``None``)."""
    got = reasons(base, *stack)
    assert bool(got) is (found is not None), got
    if found is not None:
        (reason,) = got
        assert found in reason


def assert_predicted(base: Environment, stack: tuple[str, ...], message: str, source: str) -> None:
    """A verbatim message (from ``source``) is the stack's row's message and its compiled rule's signature."""
    assert source.startswith("https://github.com/")
    assert re.search(row_message(stack), message), source
    compiled = rule(base, *stack)
    assert compiled.signature is not None and compiled.signature_matches(message), source

"""Run-time requirement rows generated from released files: ``data/import_scan.json``.

``tools/import_scan.py`` writes the file: for peft, trl, accelerate, sentence-transformers, DeepSpeed,
transformers, diffusers and unsloth releases, the names their ``import`` takes unconditionally (or under the
dependency's own availability check) from transformers, accelerate, PEFT, TRL, huggingface-hub or torch that
some releases of those lack (``peft 0.5.0:
accelerate>=0.21.0.dev0`` for ``accelerate.utils.is_npu_available``). This module only reads it;
:mod:`requirement_tables` merges the rows into ``RUNTIME_MINIMUMS`` (:func:`without_hand_written`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.knowledge import packaged_data
from pytest_rocmcompat.knowledge.checks.runtime_row import RuntimeRow

DATA = "data/import_scan.json"
_LAST = "999999"  # the end of an open range


@cache
def import_scan_rows() -> dict[str, tuple[RuntimeRow, ...]]:
    """The generated rows per dependent distribution, in the file's order."""
    rows: dict[str, list[RuntimeRow]] = {}
    for row in packaged_data.load(DATA)["rows"]:
        until = row.get("until")
        rows.setdefault(str(row["dist"]), []).append(
            RuntimeRow(
                since=str(row["since"]),
                requirement=str(row["requirement"]),
                source=str(row["source"]),
                until=None if until is None else str(until),
                message=str(row["message"]),
            )
        )
    return {dist: tuple(found) for dist, found in rows.items()}


def without_hand_written(rows: Iterable[RuntimeRow], hand: Iterable[RuntimeRow]) -> tuple[RuntimeRow, ...]:
    """``rows`` less those a ``hand`` row already states whole: the same requirement, over every release the
    generated row covers, predicting the generated row's failure too. A row a hand row states only in part
    (fewer releases, another failure: a missing module before a run-time error) is kept; the
    ``requirement-not-met`` check reports the pair once and joins both rows' failures.
    """
    hand = tuple(hand)
    return tuple(row for row in rows if not any(_same(h, row) for h in hand))


def _same(hand: RuntimeRow, row: RuntimeRow) -> bool:
    try:
        a, b = Requirement(hand.requirement), Requirement(row.requirement)
        a_since, a_until = Version(hand.since), Version(hand.until or _LAST)
        b_since, b_until = Version(row.since), Version(row.until or _LAST)
    except (InvalidRequirement, InvalidVersion):
        return False
    same = canonicalize_name(a.name) == canonicalize_name(b.name) and _bounds(a) == _bounds(b)
    covers = a_since <= b_since and b_until <= a_until
    return same and covers and _predicts(hand.message, row.message)


def _predicts(hand: str, generated: str) -> bool:
    """Whether the hand row's message matches every failure the generated one names (its alternatives, as
    CPython prints them: ``cannot import name 'X' from 'pkg.mod'``).
    """
    if not generated:
        return True
    if not hand:
        return False
    texts = [re.sub(r"\\(.)", r"\1", alternative) for alternative in generated.split("|")]
    try:
        return all(re.search(hand, text) for text in texts)
    except re.error:
        return False


def _bounds(req: Requirement) -> frozenset[tuple[str, Version | str]]:
    """The requirement's clauses, versions compared as releases (``>=2`` is ``>=2.0`` and ``>=2.0.dev0``)."""
    found: set[tuple[str, Version | str]] = set()
    for spec in req.specifier:
        try:  # a generated floor ``>=2.2.0.dev0`` states the hand row's ``>=2.2`` (or ``>=2.2.0a0``)
            found.add((spec.operator, Version(Version(spec.version).base_version)))
        except InvalidVersion:  # a wildcard (==2.*)
            found.add((spec.operator, spec.version))
    return frozenset(found)

"""A rule's failure signature: a regular expression that can never hang a session.

Signatures come from matrix files anyone can edit, and they are matched against failure
text anyone's test can print, so a catastrophic-backtracking pattern (``(a+)+$`` against
``aaaa…!``) must not stop the run. Two guards, chosen by measurement (docs/benchmarks.md):

- :func:`unsafe_reason` rejects, when the file is checked, a pattern whose repeated part
  itself repeats without bound (``(a+)+``, ``(.*x)*``): the classic exponential shape;
- :class:`Signature` matches with the ``regex`` engine and a time budget
  (:data:`MATCH_BUDGET_S`); a match that runs out raises :class:`SignatureTimeout`,
  which the classifier reports as a note, never as a hang. Without ``regex`` installed
  the standard ``re`` is used, guarded by the static check alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

MATCH_BUDGET_S = 0.25
MAX_PATTERN_CHARS = 2000
_UNBOUNDED = 4096  # a repeat with a maximum above this counts as unbounded
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # terminal colour and cursor codes
_WRAPPED = re.compile(r"[ \t]*\n[ \t]*|[ \t]{2,}")  # a line break (with its indentation), or a run of blanks
# pytest's marker before each line of an exception's message in a failure report ("E       NumPy 2.0.0 as ...")
_PYTEST_E = re.compile(r"^E {2,}", re.M)


class SignatureTimeout(Exception):
    """Matching a signature ran past :data:`MATCH_BUDGET_S`."""

    def __init__(self, pattern: str) -> None:
        super().__init__(
            f"signature {pattern[:80]!r} took longer than {MATCH_BUDGET_S:g} s to match; "
            "treated as not matching (rewrite it without nested quantifiers)"
        )
        self.pattern = pattern


@dataclass(frozen=True)
class Signature:
    """A signature checked by :func:`compile_signature`; compiled on first use, equal by pattern text.

    (A cached matrix rebuilds rules from plain data: compiling lazily keeps a cache hit cheap,
    and most sessions never match a signature at all.)
    """

    pattern: str
    _compiled: Any = field(compare=False, repr=False, hash=False, default=None)

    def search(self, text: str) -> Any:
        """The first match in ``text`` or ``None``; :class:`SignatureTimeout` past the budget.

        Failure text as terminals and loggers print it is tried too: colour codes removed and
        runs of whitespace (a message wrapped over lines, ``different\nCUDA versions``, or over pytest's
        ``E`` lines) read as one space, so a signature written from the message as its source spells it
        still matches.
        """
        found = self._search(text)
        if found is None:
            plain = plain_text(text)
            if plain != text:
                found = self._search(plain)
        return found

    def _search(self, text: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            engine = _engine()
            compiled = engine.compile(self.pattern) if engine is not None else re.compile(self.pattern)
            object.__setattr__(self, "_compiled", compiled)
        if _engine() is None:
            return compiled.search(text)
        try:
            return compiled.search(text, timeout=MATCH_BUDGET_S)
        except TimeoutError:
            raise SignatureTimeout(self.pattern) from None


def plain_text(text: str) -> str:
    """``text`` as one line of words: colour codes and pytest's ``E`` line markers removed, each line break
    and run of blanks read as one space.
    """
    return _WRAPPED.sub(" ", _PYTEST_E.sub("", _ANSI.sub("", text)))


@cache
def _engine() -> Any:
    """The ``regex`` module, imported on first use (a cached matrix needs it only on a failure)."""
    try:
        import regex
    except ImportError:  # pragma: no cover - regex is a dependency; plain re keeps the static guard
        return None
    return regex


def compile_signature(text: str) -> Signature:
    """Compile ``text``; ``ValueError`` with a reader's message when it is invalid or unsafe."""
    if len(text) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"is {len(text)} characters long; a regular expression here may have at most {MAX_PATTERN_CHARS}"
        )
    try:
        re.compile(text)  # the syntax every reader of the matrix knows; regex accepts more
        engine = _engine()
        compiled = engine.compile(text) if engine is not None else re.compile(text)
    except (re.error, OverflowError, RecursionError, ValueError, TypeError) as exc:
        raise ValueError(f"is not a valid regular expression: {' '.join(str(exc).split())}") from None
    except Exception as exc:  # regex's own error class
        raise ValueError(f"is not a valid regular expression: {' '.join(str(exc).split())}") from None
    reason = unsafe_reason(text)
    if reason:
        raise ValueError(reason)
    return Signature(text, compiled)


def unsafe_reason(text: str) -> str | None:
    """Why a pattern may backtrack exponentially (a quantified part that itself repeats), or ``None``."""
    try:
        from re import _parser as parser  # type: ignore[attr-defined]  # typeshed has no stub for the private re._parser (3.11+)
    except ImportError:  # Python 3.10
        import sre_parse as parser
    try:
        parsed = parser.parse(text)
    except Exception:
        return None
    return (
        "has a nested quantifier such as (a+)+ or (.*x)*: it can take exponential time on a "
        "failure text; rewrite it so that no repeated part repeats itself"
        if _nested(parsed, False)
        else None
    )


def _nested(items: Any, inside_repeat: bool) -> bool:
    for op, arg in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            _low, high, sub = arg
            unbounded = high is None or high > _UNBOUNDED or str(high) == "MAXREPEAT"
            if unbounded and inside_repeat and _can_repeat_text(sub):
                return True
            if _nested(sub, inside_repeat or (unbounded and name != "POSSESSIVE_REPEAT")):
                return True
        elif name == "SUBPATTERN":
            if _nested(arg[-1], inside_repeat):
                return True
        elif name == "BRANCH":
            if any(_nested(branch, inside_repeat) for branch in arg[1]):
                return True
        elif name in ("ASSERT", "ASSERT_NOT"):
            if _nested(arg[1], inside_repeat):
                return True
        elif name == "ATOMIC_GROUP":
            continue  # no backtracking into it
    return False


def _can_repeat_text(sub: Any) -> bool:
    """Whether a repeated item consumes characters (``(a*)*`` yes, ``(\\b)*`` no)."""
    return any(str(op) not in ("AT", "ASSERT", "ASSERT_NOT") for op, _ in sub)

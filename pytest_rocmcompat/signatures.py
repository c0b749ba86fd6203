"""Built-in signatures of fatal GPU-stack failures: the names :mod:`diagnoses` gives them.

A known-bad rule's own signature is tried first (see :mod:`classify`); the built-in
table names the failure when no rule explains it, so a report says *what kind* of
crash it was. The table, with each class's likely cause, fix and link, lives in
:mod:`diagnoses`; this module keeps the names the crash labellers import.
"""

from __future__ import annotations

from .diagnoses import Diagnosis as Signature
from .diagnoses import diagnose as match_builtin
from .diagnoses import diagnoses

__all__ = ["Signature", "match_builtin", "builtin"]


def builtin() -> tuple[Signature, ...]:
    """Every built-in signature, most specific first."""
    return diagnoses()

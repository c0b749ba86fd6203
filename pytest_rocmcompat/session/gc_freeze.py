"""``rocm_gc_freeze``: the collected items live until the session ends; moving them out of the
collector's reach keeps every full GC pass of the run from walking them again.
"""

from __future__ import annotations

import gc

import pytest


def freeze_collected(config: pytest.Config) -> None:
    """Freeze what collection built, when the ini key asks for it (never in a sandbox: it collects
    once per isolated test, and frozen objects are never freed).
    """
    if config.getini("rocm_gc_freeze") and not config.getoption("rocm_child_result"):
        gc.freeze()


def unfreeze() -> None:
    """At the end of the session, everything frozen is collectable again."""
    if gc.get_freeze_count():
        gc.unfreeze()

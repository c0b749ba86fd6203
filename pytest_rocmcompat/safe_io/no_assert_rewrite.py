"""The plugin's own modules are imported without pytest's assertion rewriting (imported first).

pytest rewrites the ``assert`` statements of every module of a package that a ``pytest11``
entry point names, when it imports them: the whole AST of each module again, in the session's
process, in every xdist worker and in every isolation template, and again on each run where
Python writes no bytecode cache (``PYTHONDONTWRITEBYTECODE``, read-only installs, fresh CI
containers). The plugin's modules assert nothing a test reads (their few asserts are internal
invariants), so the cost buys nothing: on the H100 host it was about 2 s of a session's start
(cProfile, ~140 modules rewritten). This undoes the mark pytest set on the package, before any
other of its modules is imported, as the ``PYTEST_DONT_REWRITE`` docstring marker does per module.
Test files, conftests and the bundled suites are rewritten as always (pytest matches those by
file name, not by this mark).
"""

from __future__ import annotations

import sys

PACKAGE = __name__.split(".")[0]


def unmark() -> bool:
    """Remove the package from the assertion-rewriting import hook's marks; True if it was marked."""
    found = False
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)  # _pytest.assertion.rewrite.AssertionRewritingHook
        if isinstance(marked, set) and PACKAGE in marked:
            marked.discard(PACKAGE)
            cache = getattr(finder, "_marked_for_rewrite_cache", None)
            if isinstance(cache, dict):
                for name in [n for n in cache if n == PACKAGE or n.startswith(PACKAGE + ".")]:
                    del cache[name]
            found = True
    return found


unmark()

"""The ``rocmcompat`` command: one module per subcommand, :func:`main` dispatches.

Layer: an entry point; may import every layer below (report, running, session, matrix,
knowledge, probe, stack, errors, safe_io).
"""

from __future__ import annotations

from pytest_rocmcompat.cli.main import build_parser, main

__all__ = ["build_parser", "main"]

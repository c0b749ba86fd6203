"""Make quoted text safe for Markdown tables and HTML, and free of secrets."""

from __future__ import annotations

import html
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..redact import redact_text, secret_values_from_env

_SECRETS: ContextVar[tuple[str, ...] | None] = ContextVar("rocmcompat_secrets", default=None)


@contextmanager
def one_environment_scan() -> Iterator[None]:
    """Within this block :func:`clean` reads the secret variables once, not per cell.

    Rendering a large report escapes tens of thousands of cells; scanning the
    environment for each was most of the merge time (docs/benchmarks.md).
    """
    token = _SECRETS.set(secret_values_from_env(dict(os.environ)))
    try:
        yield
    finally:
        _SECRETS.reset(token)


def clean(text: str, limit: int = 400) -> str:
    """Redact secrets (token shapes and this process's secret variables), shorten."""
    secrets = _SECRETS.get()
    text = redact_text(str(text), secret_values_from_env(dict(os.environ)) if secrets is None else secrets)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md_cell(text: object, limit: int = 400) -> str:
    """One Markdown table cell: secrets redacted, ``| < > &`` and newlines escaped."""
    out = html.escape(clean(str(text), limit), quote=False)
    return out.replace("|", "&#124;").replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")

"""Make quoted text safe for Markdown tables and HTML, and free of secrets."""

from __future__ import annotations

import html
import os

from ..redact import redact_text, secret_values_from_env


def clean(text: str, limit: int = 400) -> str:
    """Redact secrets (token shapes and this process's secret variables), shorten."""
    text = redact_text(str(text), secret_values_from_env(dict(os.environ)))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md_cell(text: object, limit: int = 400) -> str:
    """One Markdown table cell: secrets redacted, ``| < > &`` and newlines escaped."""
    out = html.escape(clean(str(text), limit), quote=False)
    return out.replace("|", "&#124;").replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")

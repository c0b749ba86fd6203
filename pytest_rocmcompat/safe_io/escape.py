"""The boundary where quoted text enters a report: made safe once, for every writer.

:func:`safe_text` is what every writer (run report, JUnit, merged Markdown/HTML/JSON,
GitHub step summary, terminal summary) passes foreign text through: lone surrogates
(undecodable bytes a test printed) become U+FFFD, control characters (ESC, NUL, C1) are
dropped, secrets are redacted on the raw value (before any escaping can disguise them).
:func:`md_cell` additionally defuses Markdown links and images, so nothing live comes
from a test's output.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pytest_rocmcompat.safe_io.redact import redact_text, secret_values_from_env

_SECRETS: ContextVar[tuple[str, ...] | None] = ContextVar("rocmcompat_secrets", default=None)
# C0 controls except tab, newline and carriage return; DEL; C1 controls.
_CONTROL = dict.fromkeys([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)])
_SURROGATE = re.compile("[\ud800-\udfff]")
# Markdown that renders live from a table cell: inline links and images ``[text](url)``,
# ``![alt](url)`` (``<url>`` autolinks are already defused by HTML escaping).
_MD_LINK = re.compile(r"!\[|\]\(")

_ESCAPES = {i: f"\\x{i:02x}" for i in (*range(0x20), *range(0x7F, 0xA0))}
_ESCAPES.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def one_line(text: str) -> str:
    """Control characters (newline, ESC, NUL, ...) written as escapes: one line, nothing live."""
    return text.translate(_ESCAPES)


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


def plain_text(value: object) -> str:
    """``value`` as text any UTF-8 writer accepts: lone surrogates -> U+FFFD, controls dropped."""
    text = value if isinstance(value, str) else str(value)
    if text.isascii():
        return text.translate(_CONTROL) if not text.isprintable() else text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _SURROGATE.sub("\ufffd", text)
    return text.translate(_CONTROL)


def _current_secrets() -> tuple[str, ...]:
    """This process's secret values: the ones :func:`one_environment_scan` read, else read now."""
    secrets = _SECRETS.get()
    return secret_values_from_env(dict(os.environ)) if secrets is None else secrets


def safe_text(value: object, secrets: tuple[str, ...] | None = None) -> str:
    """:func:`plain_text` with secrets redacted (this process's secret variables by default)."""
    return redact_text(plain_text(value), _current_secrets() if secrets is None else secrets)


def safe_data(value: object, secrets: tuple[str, ...] | None = None) -> object:
    """JSON-shaped data with every string (keys too) passed through :func:`safe_text`."""
    if secrets is None:
        secrets = _current_secrets()
    if isinstance(value, str):
        return safe_text(value, secrets)
    if isinstance(value, dict):
        return {safe_data(k, secrets) if isinstance(k, str) else k: safe_data(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_data(v, secrets) for v in value]
    return value


def terminal_line(value: object, secrets: tuple[str, ...] | None = None) -> str:
    """One line for a terminal or a CI log: :func:`safe_text`, then newline, carriage return, tab
    and line separators written as escapes (``\\r``), so nothing quoted can overwrite or fake a line.
    """
    return one_line(safe_text(value, secrets))


def terminal_text(value: object, secrets: tuple[str, ...] | None = None) -> str:
    """Lines for a terminal or a CI log: redacted whole (a secret spanning lines goes too), then
    every line a :func:`terminal_line`; the text's own newlines are kept.
    """
    return "\n".join(one_line(line) for line in safe_text(value, secrets).split("\n"))


def echo(value: object = "", *, err: bool = False, secrets: tuple[str, ...] | None = None) -> None:
    """Print quoted text as :func:`terminal_text` (to stderr with ``err``): what every
    ``rocmcompat`` command writes to the terminal goes through here or through a report writer.
    """
    import sys

    print(terminal_text(value, secrets), file=sys.stderr if err else sys.stdout)


def clean(text: object, limit: int = 400) -> str:
    """Safe text (see :func:`safe_text`), shortened to ``limit`` characters."""
    out = safe_text(text)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def defuse_markdown(text: str) -> str:
    """Backslash-escape what makes an inline link or image: ``![`` -> ``!\\[``, ``](`` -> ``]\\(``."""
    if "[" not in text and "(" not in text:
        return text
    return _MD_LINK.sub(lambda m: "!\\[" if m.group() == "![" else "]\\(", text)


def html_text(text: object, limit: int = 600) -> str:
    """HTML element text: safe text cut at ``limit``, ``< > & " '`` escaped."""
    return html.escape(clean(str(text), limit))


def html_attr(text: object) -> str:
    """An HTML attribute value (an ``href``, a ``title``): safe text, quotes escaped."""
    return html.escape(safe_text(text), quote=True)


def md_cell(text: object, limit: int = 400) -> str:
    """One Markdown table cell: safe text, links/images defused, ``| < > &`` and newlines escaped."""
    out = html.escape(defuse_markdown(clean(text, limit)), quote=False)
    return out.replace("|", "&#124;").replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")

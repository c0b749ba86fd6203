"""Secrets never reach a report: secret-looking variables and token-shaped strings."""

from __future__ import annotations

import re

REDACTED = "[redacted]"

_SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|CERT",
    re.IGNORECASE,
)
# Token shapes of the services these stacks talk to (Hugging Face, GitHub, AWS,
# OpenAI/Anthropic-style keys, W&B, Slack, generic JWTs).
_TOKEN = re.compile(
    r"\bhf_[A-Za-z0-9]{20,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bsk-[A-Za-z0-9_-]{20,}"
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    r"|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name suggests it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def redact_text(text: str, secret_values: tuple[str, ...] = ()) -> str:
    """Replace token-shaped substrings and the given secret values with ``[redacted]``."""
    for value in secret_values:
        if value and len(value) >= 6:
            text = text.replace(value, REDACTED)
    return _TOKEN.sub(REDACTED, text)


def secret_values_from_env(environ: dict[str, str]) -> tuple[str, ...]:
    """The values of all secret-looking variables, longest first (for :func:`redact_text`)."""
    values = {v for k, v in environ.items() if is_secret_name(k) and v and len(v) >= 6}
    return tuple(sorted(values, key=len, reverse=True))

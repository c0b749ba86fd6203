"""Secrets never reach a report: secret-looking variables and token-shaped strings.

Redaction works on values (before any escaping or serialisation), by name (a variable
whose name looks secret) and by shape (URL credentials, common token formats, ``Bearer``
headers, private key blocks), so an output format never hides a secret from it.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

_SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|PASSPHRASE|PWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|CERT",
    re.IGNORECASE,
)
# Names that match ``PWD`` but hold a path, set by every POSIX shell: the working directory is not
# a credential (``MYSQL_PWD``, ``DB_PWD`` and any other name merely containing ``PWD`` still are).
_PATH_NAMES = frozenset({"PWD", "OLDPWD"})
# Token shapes of the services these stacks talk to (Hugging Face, GitHub, AWS,
# OpenAI/Anthropic-style keys, W&B, Slack, generic JWTs), bearer headers and PEM private
# keys. Every alternative is linear: no nested or overlapping quantifiers.
_TOKEN = re.compile(  # distinctive prefixes match anywhere, even glued to other text
    r"hf_[A-Za-z0-9]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|(?<![A-Za-z])sk-[A-Za-z0-9_-]{20,}"  # not inside words such as ``task-...``
    r"|xox[abeprs]-[A-Za-z0-9-]{10,}"
    r"|xapp-[A-Za-z0-9-]{10,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    r"|-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[^-]*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?"
)
# ``Authorization: Bearer abc1...``: keep the word, drop the credential (one with a digit).
_BEARER = re.compile(r"(Bearer)(\s{1,3})(?=[A-Za-z._~+/=-]{0,200}[0-9])[A-Za-z0-9._~+/=-]{12,}", re.IGNORECASE)
# ``scheme://user:password@host`` and ``scheme://token@host``: keep scheme and host.
_URL_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,30}://)[^\s/@:]{1,256}(?::[^\s/@]{0,256})?@")
# ``password=...`` / ``api_key: ...`` in free text (failure messages, logs).
_ASSIGNED = re.compile(
    r"(passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key)"
    r"(\s{0,3}[=:]\s{0,3})(?![\s\[])([^\s'\",;]{4,512})",
    re.IGNORECASE,
)
# Every shape above contains one of these (lower-cased): text without any is returned at once.
_HINTS = (
    "://",
    "hf_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "akia",
    "asia",
    "sk-",
    "xox",
    "xapp-",
    "glpat-",
    "eyj",
    "private key",
    "bearer",
    "passw",
    "secret",
    "token",
    "key",
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name suggests it holds a secret (``PWD`` and ``OLDPWD``,
    the shell's working directories, do not).
    """
    return name not in _PATH_NAMES and bool(_SECRET_NAME.search(name))


def redact_shapes(text: str) -> str:
    """Replace token-shaped substrings, URL credentials and ``name=secret`` assignments."""
    lower = text.lower()
    if not any(hint in lower for hint in _HINTS):
        return text
    if "://" in text:
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    text = _TOKEN.sub(REDACTED, text)
    text = _BEARER.sub(rf"\1\2{REDACTED}", text)
    return _ASSIGNED.sub(rf"\1\2{REDACTED}", text)


def redact_text(text: str, secret_values: tuple[str, ...] = ()) -> str:
    """Replace the given secret values and every secret shape with ``[redacted]``."""
    for value in secret_values:
        if value and len(value) >= 6 and value in text:
            text = text.replace(value, REDACTED)
    return redact_shapes(text)


def redact_variable(name: str, value: str) -> str:
    """An environment variable's value as it may be shown: by name, else by shape."""
    return REDACTED if is_secret_name(name) else redact_shapes(value)


# ``NAME=VALUE`` in one command-line argument, also as ``env.NAME=VALUE`` (``--rocm-set``) or
# ``--option=NAME=VALUE``: the value is a secret when the name looks like one.
_ARG_ASSIGNMENT = re.compile(
    r"^((?:--[A-Za-z0-9][\w-]{0,80}=)?(?:[A-Za-z0-9_-]{1,80}\.)?)([A-Za-z_]\w{0,200})=(.+)$", re.DOTALL
)


def redact_args(args: list[str] | tuple[str, ...]) -> list[str]:
    """Command-line arguments as they may be shown: ``NCCL_SOCKET_PASSWORD=x`` -> ``NCCL_SOCKET_PASSWORD=[redacted]``
    (by name, as :func:`redact_variable`), every other argument as it is (shapes are left to the caller).
    """
    out = []
    for arg in args:
        m = _ARG_ASSIGNMENT.match(arg) if "=" in arg else None
        out.append(f"{m.group(1)}{m.group(2)}={REDACTED}" if m and is_secret_name(m.group(2)) else arg)
    return out


# Values named secret outside the environment (``--rocm-set env.NCCL_SOCKET_PASSWORD=...``):
# scrubbed from every output of this process like the environment's own secrets.
_EXTRA_SECRETS: set[str] = set()


def register_secret(value: str) -> None:
    """Treat ``value`` as a secret in every later :func:`secret_values_from_env`."""
    if value and len(value) >= 6:
        _EXTRA_SECRETS.add(value)


def secret_values_from_env(environ: dict[str, str]) -> tuple[str, ...]:
    """The values of all secret-looking variables, longest first (for :func:`redact_text`)."""
    values = {v for k, v in environ.items() if is_secret_name(k) and v and len(v) >= 6}
    values |= _EXTRA_SECRETS
    return tuple(sorted(values, key=len, reverse=True))

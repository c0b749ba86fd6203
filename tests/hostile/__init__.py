"""Hostile pieces of text and the checks every report must pass (shared by the fuzz tests and
``bench/fuzz_inputs.py``). Not a test module."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

# Planted secrets: each must never appear in any output. SECRET_ENV is put in the environment
# under a secret-looking name (it holds every XML special character).
SECRET_ENV_NAME, SECRET_ENV = "FUZZ_API_TOKEN", 'f&zz<s3>"cr3t!'
SECRETS = (
    "https://fuzzuser:fuzzpa55@mirror.example/simple",
    "ghp_" + "Fz9q" * 9,
    "hf_" + "Qq7" * 10,
    "AKIA" + "FUZZ0123456789AB",
    "xoxb-9876543210-fuzzfuzzfuzz",
    "eyJmdXp6IjoiMSJ9abcdef.eyJzdWIiOiJmdXp6In0abcdef.c2lnZnV6emZ1enpmdXp6",
    "Bearer fuzzTOKEN12345678",
    "-----BEGIN PRIVATE KEY-----\nMIIfuzzKEYbody\n-----END PRIVATE KEY-----",
)
# What must not survive in any form: the secret parts of SECRETS.
FORBIDDEN = (
    SECRET_ENV,
    "f&amp;zz",
    "&lt;s3&gt;",
    "fuzzpa55",
    "Fz9qFz9q",
    "Qq7Qq7",
    "FUZZ0123456789AB",
    "9876543210-fuzz",
    "c2lnZnV6emZ1enpmdXp6",
    "fuzzTOKEN12345678",
    "MIIfuzzKEYbody",
)
PIECES = (
    "x\udcffy",
    "\udc80",
    "\ud800",
    "\x1b[31mred\x1b[0m",
    "\x1b]8;;https://evil.example\x07link",
    "\x00",
    "\x07",
    "\x08",
    "\x7f",
    "\x85",
    "\x9b",
    "\u2028",
    "![i](https://evil.example/i.png)",
    "[c](https://evil.example/c)",
    "[ref]: https://evil.example",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "| a | b |",
    "&amp;",
    "&#x1b;",
    "`code`",
    "``",
    "**bold**",
    "\n",
    "\r\n",
    "\t",
    "é日本",
    "\ufffe",
    "{{",
    "}}",
    "%s",
    "'",
    '"',
    "\\",
    "---",
    "#",
    ":",
    "- ",
    "*",
    "&a",
    "!!python/x",
    *SECRETS,
    SECRET_ENV,
)
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
LIVE_MD = re.compile(r"(?<!\\)!\[[^\]\n]*\]\(|(?<!\\)\[[^\]\n]*\]\((?:https?:|//)")
LIVE_HTML = re.compile(
    r"<(?:img|script|iframe|object|embed)\b|<[a-z][^<>]*\son[a-z]+=|href=\"(?!#)[^\"]*evil", re.IGNORECASE
)


def violations(text: str, kind: str) -> list[str]:
    """What is wrong with a written output: ``kind`` is md, html, json, xml or terminal."""
    found = [f"secret {s[:12]!r}" for s in FORBIDDEN if s in text]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        found.append("not encodable as UTF-8 (lone surrogate)")
    if CONTROL.search(text):
        found.append(f"control character {CONTROL.search(text).group()!r}")
    if kind == "md" and LIVE_MD.search(text):
        found.append(f"live Markdown link {LIVE_MD.search(text).group()!r}")
    if kind == "html" and LIVE_HTML.search(text):
        found.append(f"live HTML {LIVE_HTML.search(text).group()!r}")
    if kind == "xml":
        try:
            ET.fromstring(text)
        except ET.ParseError as exc:
            found.append(f"not well-formed XML: {exc}")
    return found

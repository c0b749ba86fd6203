"""Limits on what a matrix file may be: a regular UTF-8 file of bounded size (read by
:mod:`pytest_rocmcompat.safe_io.input_files`), bounded versions and nesting.
"""

from __future__ import annotations

MAX_VERSION_CHARS = 100  # a version or specifier text
MAX_NUMBER_PART_DIGITS = 30  # one number inside a version ("6.2.41133" has at most 5)
MAX_DEPTH = 64  # nesting of lists and mappings


def version_length_problem(text: str) -> str | None:
    """Why a version or specifier text is too long to be one, or ``None``."""
    if len(text) > MAX_VERSION_CHARS:
        return f"is {len(text)} characters long; a version or specifier has at most {MAX_VERSION_CHARS}"
    run = longest_digit_run(text)
    if run > MAX_NUMBER_PART_DIGITS:
        return f"has a number of {run} digits; a version's numbers have at most {MAX_NUMBER_PART_DIGITS}"
    return None


def longest_digit_run(text: str) -> int:
    best = current = 0
    for char in text:
        current = current + 1 if "0" <= char <= "9" else 0
        best = max(best, current)
    return best

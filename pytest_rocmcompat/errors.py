"""User-facing configuration errors: one paragraph naming file, line and key path."""

from __future__ import annotations

import os
import reprlib
from dataclasses import dataclass
from typing import Any

from pytest_rocmcompat.safe_io.escape import one_line

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4
_REPR.maxlevel = 2


def show(value: Any, *, quotes: bool = True) -> str:
    """A value as quoted in a message: bounded in length and depth, whatever the input."""
    if isinstance(value, str) and len(value) > _REPR.maxstring:  # cut short: redact before the cut
        from pytest_rocmcompat.safe_io.redact import (
            redact_shapes,  # (a whole value is redacted with the message it is in)
        )

        value = redact_shapes(value)
    text = _REPR.repr(value)
    if not quotes and isinstance(value, (int, float)):
        return text
    return " ".join(text.split())


@dataclass(frozen=True)
class Problem:
    """One mistake in a configuration file."""

    file: str
    line: int | None
    path: str  # key path such as ``known_bad[3].when.torch``; "" for the whole file
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        text = f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"
        from pytest_rocmcompat.safe_io.redact import redact_text, secret_values_from_env  # only when a problem is shown

        return redact_text(text if text.isprintable() else one_line(text), secret_values_from_env(dict(os.environ)))


class OverrideError(ValueError):
    """A ``--rocm-set`` value that cannot be applied; the message says which and why."""


class ConfigError(Exception):
    """One or more :class:`Problem` s; ``str()`` lists each on its own line."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)

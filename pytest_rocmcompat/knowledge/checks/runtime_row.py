"""One run-time requirement row: what a release range enforces although its metadata does not say so."""

from __future__ import annotations

from typing import NamedTuple


class RuntimeRow(NamedTuple):
    """A requirement a release enforces at run time, for releases ``since <= v < until``."""

    since: str
    requirement: str
    source: str
    until: str | None = None  # the first release that no longer needs it (None: still needed)
    # The failure this row causes, a narrow regular expression of the text users see, written from
    # the row's own sources (quoted in tests/knowledge/test_requirements_unnamed.py); "": none verified.
    # It alone is predicted where the stack does not name the package (requirements.unnamed_findings).
    message: str = ""
    # The row restates a version comparison the library makes itself (OpenRLHF's assert on vllm.__version__),
    # "string" (str comparison: any suffix of the floor's release sorts above it) or "version"
    # (packaging's Version: only a local label does); a build of the floor's release the comparison accepts
    # is not judged (requirements._at_a_gate_bound). "": a missing API, every build judged.
    compared: str = ""
    # The library's own escape hatch, ``VARIABLE=value`` (xFormers' XFORMERS_IGNORE_FLASH_VERSION_CHECK=1): a stack
    # whose environment sets it is not judged by the row. "": none.
    skipped_by: str = ""

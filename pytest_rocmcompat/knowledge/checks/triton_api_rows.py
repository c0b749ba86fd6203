"""Run-time rows of libraries whose own Triton kernels import Triton APIs a newer Triton removed.

torch's ``triton`` pin binds only Inductor (``requirements.COMPILE_USES``); a library that ships its own
Triton kernels imports ``triton`` / ``triton.language`` itself and breaks when the installed Triton no
longer has a name it uses. Each row names the library release range, the Triton bound, the source at a
tag, and the failure text (merged into :data:`requirement_tables.RUNTIME_MINIMUMS`).
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.runtime_row import RuntimeRow

TRITON_API_ROWS: dict[str, tuple[RuntimeRow, ...]] = {}

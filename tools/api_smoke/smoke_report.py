"""How a smoke run of ``tools/measure_api_pairs.py`` reports: one ``FEATURES {json}`` line, then ``OK``.

Each feature maps to ``null`` (it ran) or the exception it ended with as the interpreter prints it,
followed by `` <- `` and the first exception of its chain where that differs (transformers' lazy
imports wrap the real error in "Failed to import ... (look up to see its traceback)").
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable


def failure(error: BaseException) -> str:
    """The interpreter's last line for ``error``, and its chain's first where that differs."""
    last = traceback.format_exception_only(type(error), error)[-1].strip()
    first = error
    while first.__cause__ or first.__context__:
        first = first.__cause__ or first.__context__  # type: ignore[assignment]
    root = traceback.format_exception_only(type(first), first)[-1].strip()
    return (last if root == last else f"{last} <- {root}")[:600]


def report(features: dict[str, Callable[[], None]]) -> None:
    """Run each feature, print what each ended with, and ``OK`` when all ran."""
    results: dict[str, str | None] = {}
    for name, run in features.items():
        try:
            run()
            results[name] = None
        except Exception as error:  # the measurement: what this feature ends with on this pair
            results[name] = failure(error)
    print("FEATURES " + json.dumps(results), flush=True)
    if not any(results.values()):
        print("OK")

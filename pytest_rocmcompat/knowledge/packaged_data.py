"""The generated JSON files shipped in ``knowledge/data/`` (declared.json, import_scan.json, api_pairs.json)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def load(path: str) -> dict[str, Any]:
    """The JSON object at ``path`` (``data/declared.json``) inside the installed knowledge package."""
    text = resources.files("pytest_rocmcompat.knowledge").joinpath(path).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded

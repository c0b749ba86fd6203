"""Regenerate ``knowledge/data/amdsmi_bindings.json``: the libamd_smi functions each PyPI ``amdsmi`` release binds.

PyPI's ``amdsmi`` is AMD's Python wrapper of one ROCm release's ``libamd_smi.so`` (its version is that release's),
generated from its header: ``amdsmi_wrapper.py`` binds every function at import, at module level
(``amdsmi_init = _libraries['libamd_smi.so'].amdsmi_init``), so the import fails with ``undefined symbol`` where
the library it loads (``/opt/rocm/lib``, ``ROCM_PATH``) lacks one. Each release's py3 wheel is read from PyPI
(small, pure Python) and the names it binds recorded, with the date.

    python -m tools.amdsmi_bindings                      # writes pytest_rocmcompat/knowledge/data/amdsmi_bindings.json
    python -m tools.amdsmi_bindings --out FILE
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import re
import sys
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from tools.regenerate_declared import INDEX, RegenerateError, http_fetch

PROJECT = INDEX.format(name="amdsmi")
OUT = Path(__file__).resolve().parents[1] / "pytest_rocmcompat" / "knowledge" / "data" / "amdsmi_bindings.json"
# a module-level binding: ``name = _libraries['libamd_smi.so'].function`` (the wrapper's only form)
_BINDING = re.compile(r"^\w+ = _libraries\['libamd_smi\.so'\]\.(amdsmi_\w+)\s*$", re.MULTILINE)
_WRAPPER = re.compile(r"(?:^|/)amdsmi/amdsmi_wrapper\.py$")


def bound(wrapper_source: str) -> list[str]:
    """The libamd_smi functions ``amdsmi_wrapper.py`` binds at import, sorted."""
    return sorted(set(_BINDING.findall(wrapper_source)))


def wheel_bindings(wheel: bytes) -> list[str] | None:
    """:func:`bound` of the wrapper inside a wheel's bytes, or ``None`` when it has none."""
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        for name in archive.namelist():
            if _WRAPPER.search(name):
                return bound(archive.read(name).decode("utf-8", errors="replace"))
    return None


def releases(project: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(version, URL of its py3 wheel) of every release with one, oldest first (placeholders such as 0.1 kept)."""
    found: list[tuple[Version, str, str]] = []
    for version, files in project["releases"].items():
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue
        wheels = [f["url"] for f in files if f["filename"].endswith("-py3-none-any.whl") and not f.get("yanked")]
        if wheels:
            found.append((parsed, version, wheels[0]))
    return [(version, url) for _, version, url in sorted(found)]


def _get(url: str) -> bytes:
    """:func:`tools.regenerate_declared.http_fetch` (a retry, a timeout, a clear error), a missing file an error too."""
    body = http_fetch(url, None)
    if body is None:
        raise RegenerateError(f"{url}: not found")
    return body


def generate(fetch: Callable[[str], bytes] = _get) -> dict[str, Any]:
    """The data file's content: each release's bindings (those whose wheel has a wrapper), with the date read."""
    project = json.loads(fetch(PROJECT))
    table: dict[str, list[str]] = {}
    for version, url in releases(project):
        names = wheel_bindings(fetch(url))
        if names:
            table[version] = names
    return {"read": str(datetime.date.today()), "source": PROJECT, "releases": table}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    data = generate()
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(data['releases'])} releases, read {data['read']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tools/amdsmi_bindings.py on a small fixture: a PyPI project page and two wheels built here, no network."""

from __future__ import annotations

import io
import json
import zipfile

from tools import amdsmi_bindings

WRAPPER_OLD = """
_libraries = {}
amdsmi_init = _libraries['libamd_smi.so'].amdsmi_init
amdsmi_init.restype = None
amdsmi_reset_gpu_compute_partition = _libraries['libamd_smi.so'].amdsmi_reset_gpu_compute_partition
"""
WRAPPER_NEW = """
amdsmi_init = _libraries['libamd_smi.so'].amdsmi_init
amdsmi_get_gpu_busy_percent = _libraries['libamd_smi.so'].amdsmi_get_gpu_busy_percent
    nested = _libraries['libamd_smi.so'].amdsmi_not_at_module_level
"""


def _wheel(wrapper: str | None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("amdsmi/__init__.py", "")
        if wrapper is not None:
            archive.writestr("amdsmi/amdsmi_wrapper.py", wrapper)
    return buffer.getvalue()


PROJECT = {
    "releases": {
        "6.4.1": [{"filename": "amdsmi-6.4.1-py3-none-any.whl", "url": "u/new"}],
        "6.2.4": [
            {"filename": "amdsmi-6.2.4.tar.gz", "url": "u/sdist"},
            {"filename": "amdsmi-6.2.4-py3-none-any.whl", "url": "u/old"},
        ],
        "6.0.0": [{"filename": "amdsmi-6.0.0-py3-none-any.whl", "url": "u/yanked", "yanked": True}],
        "0.0.9": [{"filename": "amdsmi-0.0.9-py3-none-any.whl", "url": "u/empty"}],
        "not-a-version": [{"filename": "x-py3-none-any.whl", "url": "u/x"}],
    }
}
FILES = {
    amdsmi_bindings.PROJECT: json.dumps(PROJECT).encode(),
    "u/new": _wheel(WRAPPER_NEW),
    "u/old": _wheel(WRAPPER_OLD),
    "u/empty": _wheel(None),
}


def test_module_level_bindings_are_read_from_each_wheel() -> None:
    data = amdsmi_bindings.generate(fetch=FILES.__getitem__)
    assert data["releases"] == {
        "6.2.4": ["amdsmi_init", "amdsmi_reset_gpu_compute_partition"],
        "6.4.1": ["amdsmi_get_gpu_busy_percent", "amdsmi_init"],
    }  # yanked and wrapper-less releases left out, an indented binding not counted
    assert data["source"] == amdsmi_bindings.PROJECT and data["read"].count("-") == 2


def test_releases_are_ordered_by_version_and_take_the_py3_wheel() -> None:
    assert [v for v, _ in amdsmi_bindings.releases(PROJECT)] == ["0.0.9", "6.2.4", "6.4.1"]
    assert dict(amdsmi_bindings.releases(PROJECT))["6.2.4"] == "u/old"

"""The probe records TheRock's per-family packages by name prefix, from real installed metadata."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.probe.libraries import installed_versions


def _install(site: Path, name: str, version: str) -> None:
    """A minimal installed distribution: a ``.dist-info`` folder with its METADATA (as pip writes it)."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")


def test_family_packages_are_recorded_and_others_are_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(tmp_path, "rocm-sdk-libraries-gfx110X-dgpu", "7.9.0rc20251008")
    _install(tmp_path, "amd-torch-device-gfx1151", "2.13.0+rocm10.0.0")
    _install(tmp_path, "rocm-sdk-core", "7.9.0rc20251008")
    _install(tmp_path, "rocm-unrelated-tool", "1.0")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    found = installed_versions()
    assert found["rocm-sdk-libraries-gfx110x-dgpu"] == "7.9.0rc20251008"
    assert found["amd-torch-device-gfx1151"] == "2.13.0+rocm10.0.0"
    assert found["rocm-sdk-core"] == "7.9.0rc20251008"
    assert "rocm-unrelated-tool" not in found


def test_every_package_of_the_declared_data_is_probed() -> None:
    """A live stack records each package whose declared pins requirement-not-met reads."""
    import json

    from pytest_rocmcompat.knowledge import declared_data
    from pytest_rocmcompat.probe.libraries import STACK_LIBRARIES
    from pytest_rocmcompat.stack.environment import normalize_library

    data = json.loads((Path(declared_data.__file__).parent / "data" / "declared.json").read_text(encoding="utf-8"))
    probed = {normalize_library(n) for n in STACK_LIBRARIES}
    missing = [p for p in data["packages"] if normalize_library(p) not in probed]
    assert missing == []


def test_every_distribution_a_check_names_is_probed() -> None:
    """A live host records each distribution the checks judge by name (ONNX Runtime's AMD builds, AITER, the
    Triton distributions, the generated import rows' packages): otherwise those checks are blind on a probed
    machine and see only stated stacks."""
    import json
    from importlib import resources

    from pytest_rocmcompat.knowledge.checks import dynamo_gate, library_arch, onnxruntime_builds_data
    from pytest_rocmcompat.probe.libraries import STACK_LIBRARIES
    from pytest_rocmcompat.stack.environment import normalize_library

    rows = json.loads(
        resources.files("pytest_rocmcompat.knowledge").joinpath("data/import_scan.json").read_text(encoding="utf-8")
    )["rows"]
    named = {
        *onnxruntime_builds_data.DISTRIBUTIONS,
        *library_arch.AITER_DISTRIBUTIONS,  # amd-aiter, and aiter (its distribution name to v0.1.7)
        *dynamo_gate.TRITON_NAMES,
        *(r["dist"] for r in rows),
        *(r["requirement"].split(">")[0].split("<")[0].split("=")[0] for r in rows),
    }
    probed = {normalize_library(n) for n in STACK_LIBRARIES}
    assert sorted(normalize_library(n) for n in named if normalize_library(n) not in probed) == []

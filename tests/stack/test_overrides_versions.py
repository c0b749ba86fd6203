"""``--rocm-set hip=`` and ``rocm=`` take the forms the tools print, as the probe records them."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks.registry import CHECKS
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import OverrideError, apply_overrides
from pytest_rocmcompat.stack.versions import coerce_version

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


@pytest.mark.parametrize("hip", ["6.2.41133-dd7f95766", "7.1.25344-b46750915f", "6.2.41133"])
def test_hip_as_hipconfig_and_torch_print_it(hip: str) -> None:
    env = apply_overrides(BASE, ["platform=rocm", f"hip={hip}"])
    assert env.hip == hip
    assert coerce_version(env.hip) is not None and coerce_version(env.hip).release[:2] in ((6, 2), (7, 1))  # type: ignore[union-attr]
    for check in CHECKS.values():  # every check takes it (evaluate would hide a check that breaks)
        check(env)


@pytest.mark.parametrize(
    ("rocm", "release"),
    [
        ("6.2.0.60200-66~22.04", "6.2.0"),
        ("6.4.1.60401-83~24.04", "6.4.1"),
        ("6.3.1.60301-48.el9", "6.3.1"),
        ("6.2.0", "6.2.0"),
    ],
)
def test_rocm_as_the_package_manager_lists_it(rocm: str, release: str) -> None:
    assert apply_overrides(BASE, ["platform=rocm", f"rocm={rocm}"]).rocm == release


@pytest.mark.parametrize(
    ("key", "value"),
    [("hip", "7.1.25344-notahash!"), ("hip", "7.1-b46750915f"), ("rocm", "6.2.0.602-66~22.04"), ("rocm", "latest")],
)
def test_other_forms_are_refused_naming_the_assignment(key: str, value: str) -> None:
    with pytest.raises(OverrideError, match=rf"--rocm-set '{key}="):
        apply_overrides(BASE, [f"{key}={value}"])

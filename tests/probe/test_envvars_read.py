"""Every environment variable the knowledge reads is one the probe records.

A live environment holds only the allow-listed variables (``probe.envvars.ALLOWED``); a rule
conditioned on ``TRITON_PTXAS_PATH: absent`` or a check that honours ``DS_SKIP_CUDA_CHECK=1`` would
otherwise see the variable missing on every live host, whatever the user set.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pytest_rocmcompat.knowledge.checks as checks_package
from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix
from pytest_rocmcompat.probe.envvars import capture_env, is_allowed

# a variable name read from a mapping in the checks' source: .get("NAME"), ["NAME"], or a NAME constant
_READ = re.compile(
    r"""(?:\.get\(\s*|\[\s*|^\s*[A-Z_]+\s*=\s*|name\s*=\s*|if\s+)"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"|"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"\s+if\b""",
    re.M,
)


def _rule_variables() -> set[str]:
    matrix = load_matrix(str(bundled_known_bad()))
    return {cond.name for rule in matrix.rules for cond in rule.when.env}


def _check_variables() -> set[str]:
    found: set[str] = set()
    for path in Path(checks_package.__file__).parent.glob("*.py"):
        for match in _READ.finditer(path.read_text(encoding="utf-8")):
            name = match.group(1) or match.group(2)
            if name.endswith(("_SOURCE", "_PR")) or not re.search(
                r"VERSION|DEVICES|CHECK|ENABLE|DISABLE|PATH|PREFER|DETECTION|OVERRIDE|HIP|ROCR|NCCL|BNB|DS_", name
            ):
                continue
            found.add(name)
    return found


def test_the_scan_sees_the_variables_checks_read() -> None:
    """The scan is not vacuous: it finds variables read in four different shapes."""
    assert {
        "DS_SKIP_CUDA_CHECK",
        "BNB_CUDA_VERSION",
        "BNB_ROCM_VERSION",
        "TORCH_BLAS_PREFER_HIPBLASLT",
    } <= _check_variables()
    assert {"TRITON_PTXAS_PATH", "NCCL_NVLS_ENABLE", "HSA_OVERRIDE_GFX_VERSION"} <= _rule_variables()


@pytest.mark.parametrize("name", sorted(_rule_variables() | _check_variables()))
def test_every_variable_the_knowledge_reads_is_recorded(name: str) -> None:
    assert is_allowed(name), f"{name} is read by a rule or check but not in probe.envvars.ALLOWED"
    assert capture_env({name: "1"}) == {name: "1"}

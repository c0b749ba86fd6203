"""Whether ``fp8-format-arch`` predicts a message on one GPU: its check-wide signature and the per-variant forms."""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks import numeric_formats
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="rocm", python="3.11.9", source="replay")


def predicted(platform: str, arch: str, message: str) -> bool:
    """Whether the check's finding for one ``platform``/``arch`` GPU predicts ``message``."""
    env = apply_overrides(BASE, [f"platform={platform}", f"arch={arch}"])
    pattern = PREDICTS[numeric_formats.FP8_ID]
    pattern += "".join(f"|{f.predicts}" for f in numeric_formats.check_fp8(env) if f.predicts)
    return compile_signature(pattern).search(message) is not None

"""The compiled scientific layer under ML stacks (NumPy, SciPy, pandas, scikit-learn, numba, ...), read from PyPI.

``tools/regenerate_declared.py`` records what each release declared and which Pythons its wheels serve
(``knowledge/data/declared.json``). The checks then judge these packages as they judge torch's own
layer: numba's and SciPy's NumPy bounds are ``requirement-not-met`` pairs (with each package's own
import-time text, read in its wheel), and a NumPy release without a wheel for the stack's Python is a
``no-wheel-for-python`` risk.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import CPU_BASE, reasons
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = CPU_BASE


def _parts(*stack: str) -> list[str]:
    """requirement-not-met's reasons, one part per pair (a finding joins its pairs with "; ")."""
    return [part for reason in reasons(BASE, *stack) for part in reason.split("; ")]


@pytest.mark.parametrize(
    ("dist", "version", "declared"),
    [
        ("numba", "0.58.1", "numpy<1.27,>=1.22"),
        ("numba", "0.60.0", "numpy<2.1,>=1.22"),
        ("scipy", "1.11.4", "numpy<1.28.0,>=1.21.6"),
        ("scikit-learn", "1.3.2", "numpy<2.0,>=1.17.3"),
    ],
)
def test_the_declared_numpy_bounds_are_recorded(dist: str, version: str, declared: str) -> None:
    release = declared_data.release(dist, version)
    assert release is not None and declared in (release.requires or ())


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        (("lib.numpy=2.1.3", "lib.numba=0.60.0"), "numba 0.60.0 requires numpy<2.1,>=1.22, installed numpy 2.1.3"),
        (("lib.numpy=2.0.1", "lib.numba=0.58.1"), "numba 0.58.1 requires numpy<1.27,>=1.22, installed numpy 2.0.1"),
        (("lib.numpy=2.0.0", "lib.scipy=1.11.4"), "scipy 1.11.4 requires numpy<1.28.0,>=1.21.6, installed numpy 2.0.0"),
        (
            ("lib.numba=0.60.0", "lib.llvmlite=0.42.0"),
            "numba 0.60.0 requires llvmlite<0.44,>=0.43.0dev0, installed llvmlite 0.42.0",
        ),
    ],
)
def test_a_pair_outside_its_declared_bound_is_not_met(stack: tuple[str, ...], problem: str) -> None:
    assert any(r.startswith(problem) for r in _parts(*stack))


@pytest.mark.parametrize(
    "stack",
    [
        ("lib.numpy=2.0.2", "lib.numba=0.60.0"),  # 2.0.x is inside <2.1
        ("lib.numpy=1.26.4", "lib.scipy=1.11.4"),
        ("lib.numba=0.60.0", "lib.llvmlite=0.43.0"),
    ],
)
def test_a_pair_inside_its_bound_is_no_problem(stack: tuple[str, ...]) -> None:
    assert not any(" requires " in r for r in _parts(*stack))


# Each package's own text, read in its PyPI wheel (numba 0.60.0 numba/__init__.py, scipy 1.11.4
# scipy/__init__.py), formatted as it prints; the claim is the pair's, never another pair's.
OWN = [
    ("ImportError: Numba needs NumPy 2.0 or less. Got NumPy 2.1.", ("lib.numpy=2.1.3", "lib.numba=0.60.0")),
    ("ImportError: Numba needs NumPy 1.22 or greater. Got NumPy 1.21.", ("lib.numpy=1.21.6", "lib.numba=0.60.0")),
    (
        "ImportError: Numba requires at least version 0.43.0 of llvmlite.\nInstalled version is 0.42.0.\n"
        "Please update llvmlite.",
        ("lib.numba=0.60.0", "lib.llvmlite=0.42.0"),
    ),
    (
        "UserWarning: A NumPy version >=1.21.6 and <1.28.0 is required for this version of SciPy (detected version "
        "2.0.0)",
        ("lib.numpy=2.0.0", "lib.scipy=1.11.4"),
    ),
]


@pytest.mark.parametrize(("message", "stack"), OWN, ids=[m[:40] for m, _ in OWN])
def test_each_packages_own_text_is_predicted_for_its_pair(message: str, stack: tuple[str, ...]) -> None:
    env = apply_overrides(BASE, list(stack))
    rules = compile_rules([f for f in evaluate(env) if f.check == requirements.ID])
    assert any(r.signature_matches(message) for r in rules), [r.id for r in rules]
    # the same text on a stack where the pair agrees is claimed by no rule of the check
    fine = apply_overrides(BASE, ["lib.numpy=1.26.4", "lib.numba=0.60.0", "lib.llvmlite=0.43.0", "lib.scipy=1.11.4"])
    assert not any(r.signature_matches(message) for r in compile_rules(evaluate(fine)) if r.id == requirements.ID)


def test_through_pytest_numbas_gate_is_known_bad_and_an_unrelated_failure_is_not(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester,
        "Numba needs NumPy 2.0 or less. Got NumPy 2.1.",
        ("lib.numpy=2.1.3", "lib.numba=0.60.0"),
        uses="numba",
        error="ImportError",
    )
    assert predicted["rocm_rule"].startswith(requirements.ID)
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated

"""A signature matches a message as pytest reports it: over its ``E`` lines, wrapped, coloured."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.rules.signature import Signature, plain_text

# pytest's report of RuntimeError(<NumPy 2.0's two-line message>)
REPORTED = (
    "    def test_import():\n"
    ">       raise RuntimeError(ERROR)\n"
    "E       RuntimeError: A module that was compiled using NumPy 1.x cannot be run in\n"
    "E       NumPy 2.0.0 as it may crash. To support both 1.x and 2.x\n"
)


def test_a_message_over_pytest_s_e_lines() -> None:
    assert Signature(r"cannot be run in NumPy 2\.0\.0 as it may crash").search(REPORTED) is not None
    assert "cannot be run in NumPy 2.0.0 as it may crash" in plain_text(REPORTED)


@pytest.mark.parametrize(
    "text",
    [
        "ELECTRA model\nEnd of input",  # a word that starts with E is no marker
        "E: apt could not lock",  # nor is a line of another tool's own 'E:'
    ],
)
def test_other_lines_starting_with_e_are_kept(text: str) -> None:
    assert plain_text(text).split()[0] == text.split(maxsplit=1)[0]
    assert "apt" in plain_text(text) or "ELECTRA" in plain_text(text)

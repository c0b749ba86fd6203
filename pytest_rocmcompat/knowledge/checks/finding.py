"""One problem a check found: what, why, the fix, a source, and which tests it reaches."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """A problem with the stack, named by the check that found it."""

    check: str
    reason: str  # one line naming the facts
    fix: str
    link: str
    everything: bool = False  # reaches every test
    markers: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    nodeids: tuple[str, ...] = ()
    # Only code that uses something (a numeric format, a library the stack does not list) meets
    # it: the finding still reaches the tests that say so, but is no problem of the stack itself
    # (``rocmcompat check`` lists it without counting it against the stack).
    conditional: bool = False
    # The stack does not state what decides it (no torch or ROCm release named), but some of the
    # builds it could be lack what the GPU needs: a risk that only a failure the check predicts
    # confirms. Such a failure ends known-bad; a passing test stays a pass (no stale rule); not
    # counted against the stack by ``rocmcompat check``.
    uncertain: bool = False
    # Failures this finding predicts beyond its check's ``PREDICTS`` (a regular expression), e.g.
    # an import error naming one of the two packages of a broken pair; ``""``: only ``PREDICTS``.
    predicts: str = ""
    # ``predicts`` alone is this finding's signature (its check's ``PREDICTS`` left out): a finding
    # that claims only its own known messages (registry.compile_rules), under a check id of its own.
    signature_only: bool = False

    def describe(self) -> str:
        """``[check-id] reason; fix: ... (link)``, as a rule's text reads."""
        return f"[{self.check}] {self.reason}; fix: {self.fix} ({self.link})"


def own_message_risk(
    check: str, reason: str, fix: str, link: str, predicts: str, uses: tuple[str, ...] = ()
) -> Finding:
    """A risk of what a stated stack leaves out (a driver, a toolkit, a build it does not name), confirmed only by the
    failures ``predicts`` names, which state the mismatch themselves: in every test, or in those that use ``uses``;
    never counted against the stack, and a pass under it stands.
    """
    return Finding(
        check=check,
        reason=reason,
        fix=fix,
        link=link,
        everything=not uses,
        uses=uses,
        conditional=True,
        uncertain=True,
        predicts=predicts,
        signature_only=True,
    )

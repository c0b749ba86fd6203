"""Failure texts that refuse the GPU by name: any library's own words for "this processor is not served".

A check that finds a GPU the stack's build or library does not serve (``arch-not-in-build``, ``library-min-arch``,
the ROCm libraries' target lists) predicts the messages it has read; the libraries it has not read say the same
thing in their own words, and every one of them names the processor: ``Unsupported GPU architecture: gfx1151``,
``gfx1030 is not supported``, ``Unknown GPU architecture: gfx1103``, ``nvcc fatal : Unsupported gpu architecture
'compute_120'``, ``CUDA capability sm_61 is not compatible``. A failure naming the stack's own processor beside such
a refusal, on one line, states the finding's fact itself, so it confirms the finding whoever printed it
(:func:`refusing`). A refusal naming another processor, or a processor named beside no refusal, does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words refusing a processor, read before its name: a library's "unsupported/unknown/invalid GPU architecture:
# gfx1151", clang's "unsupported CUDA gpu architecture: gfx1100", nvcc's "Unsupported gpu architecture
# 'compute_120'"; and after it: "gfx1030 is not supported", "gfx906 isn't supported anymore", "sm_61 is not
# compatible with the current PyTorch installation", "gfx1100 has no kernels".
_BEFORE = (
    r"(?:unsupported|not supported|unknown|invalid|unrecogni[sz]ed|does(?: not|n't) support)"
    r"[^\n]{0,40}?(?:gpu|arch(?:itecture)?s?|target|processor|device|platform|capability|offload)"
)
_AFTER = (
    r"(?:is|are)? ?(?:not|n't) (?:(?:yet|officially|currently) )?(?:supported|compatible|recogni[sz]ed)"
    r"|unsupported|has no (?:kernels?|code objects?|binar(?:y|ies))"
)
_GAP = r"[^\n]{0,80}?"


def spellings(arch: str) -> list[str]:
    """The ways a failure names ``arch``: ``gfx1030``; ``sm_86`` as ``sm_86``/``sm86``/``compute_86`` and
    ``capability 8.6`` (the two digits split as torch prints them).
    """
    name = arch.lower()
    if name.startswith("sm_") and name[3:].isdigit() and len(name) > 4:
        digits = name[3:]
        major, minor = digits[:-1], digits[-1]
        return [rf"sm_?{digits}", rf"compute_{digits}", rf"capability (?:of )?\(?{major}\.{minor}\)?"]
    return [re.escape(name)] if name.startswith("gfx") else []


def refusing(archs: Iterable[str]) -> str:
    """A signature: a failure refusing one of ``archs`` by name (``""`` when none can be named)."""
    names = [s for arch in dict.fromkeys(archs) for s in spellings(arch)]
    if not names:
        return ""
    named = rf"(?<![\w.])(?:{'|'.join(names)})(?!\w|\.\d)"
    # the refusal and the name within one line, in either order, a quote or colon between them
    return rf"(?i:{_BEFORE}{_GAP}{named}|{named}['\")]?{_GAP}(?:{_AFTER}))"

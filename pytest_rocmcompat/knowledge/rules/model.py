"""Known-bad rules as pure, typed value objects.

A rule says: *when* the environment looks like this, tests it *applies to*
are skipped, xfailed (turned into ``known-bad`` when the failure text matches
the ``signature``) or isolated in a child process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from packaging.specifiers import SpecifierSet

from pytest_rocmcompat.knowledge.derived_facts import contains as specifier_contains  # per bound
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.stack.arch import arch_matches
from pytest_rocmcompat.stack.environment import Environment

Action = Literal["skip", "xfail", "isolate"]
ACTIONS: tuple[str, ...] = ("skip", "xfail", "isolate")
# Condition axes compared as versions, and what each means.
VERSION_AXES: dict[str, str] = {
    "rocm": "ROCm release of the system (falls back to the one torch was built for)",
    "hip": "HIP runtime version torch reports (torch.version.hip)",
    "cuda": "CUDA release (system, falling back to torch's build)",
    "driver": "GPU kernel driver version",
    "torch": "PyTorch version with its local tag (2.5.1+rocm6.2)",
    "torch_rocm": "ROCm release torch was built for (+rocm6.2 tag, else torch.version.hip)",
    "torch_cuda": "CUDA release torch was built for (+cu121 tag, else torch.version.cuda)",
    "python": "Python version",
    "nccl": "NCCL/RCCL version torch loaded (torch.cuda.nccl.version())",
    "driver_cuda": "highest CUDA version the NVIDIA driver supports (nvidia-smi 'CUDA Version')",
}
ANY_VERSION = ("*", "installed")
NOT_INSTALLED = "absent"


@dataclass(frozen=True)
class EnvCondition:
    """An environment-variable test: ``present``, ``absent``, ``equals``, ``not_equals``, ``matches``."""

    name: str
    op: str
    value: str | None = None

    def holds(self, env: dict[str, str]) -> bool:
        actual = env.get(self.name)
        if self.op == "present":
            return actual is not None
        if self.op == "absent":
            return actual is None
        if actual is None:
            return False
        if self.op == "equals":
            return actual == self.value
        if self.op == "not_equals":
            return actual != self.value
        return re.search(self.value or "", actual) is not None  # matches


@dataclass(frozen=True)
class When:
    """Conditions over the environment; all must hold (an empty ``When`` always holds)."""

    platforms: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()
    versions: tuple[tuple[str, SpecifierSet], ...] = ()
    libraries: tuple[tuple[str, SpecifierSet | str], ...] = ()
    env: tuple[EnvCondition, ...] = ()

    def holds(self, environment: Environment) -> bool:
        if self.platforms and environment.platform not in self.platforms:
            return False
        if self.archs and not any(arch_matches(a, p) for a in environment.archs for p in self.archs):
            return False
        for axis, spec in self.versions:
            version = environment.field_version(axis)
            if version is None or not specifier_contains(spec, version):
                return False
        for name, wanted in self.libraries:
            installed = environment.field_version("lib." + name)
            if isinstance(wanted, SpecifierSet):
                if installed is None or not specifier_contains(wanted, installed):
                    return False
            elif wanted == NOT_INSTALLED:
                if name in environment.libraries:
                    return False
            elif installed is None and name not in environment.libraries:  # "*": any version
                return False
        return all(cond.holds(environment.env) for cond in self.env)


@dataclass(frozen=True)
class AppliesTo:
    """Which tests a rule reaches: node-id globs, marker names, ``uses`` libraries (any of them)."""

    everything: bool = True
    nodeids: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """One known-bad combination, with where it was defined."""

    id: str
    reason: str
    action: str = "skip"
    when: When = field(default_factory=When)
    applies_to: AppliesTo = field(default_factory=AppliesTo)
    signature: Signature | None = None
    links: tuple[str, ...] = ()
    fixed_in: tuple[tuple[str, str], ...] = ()
    file: str = ""
    line: int | None = None
    contested: bool = False  # its sources disagree: it must isolate/xfail with a signature, never blanket-skip
    fresh: bool = False  # an isolate rule: run in a sandbox that has run no other test
    at_risk: bool = False  # a check's uncertain finding (``Finding.uncertain``): a pass is no stale rule
    # the GPU or build lacks a feature (a numeric format, a compiler target): no defect of the stack, so
    # ``rocmcompat check`` lists it for the tests that use the feature without counting it against the stack
    feature_gap: bool = False
    # texts that explain a failure otherwise (a GPU closed to the user): a failure showing one is not this rule's
    explained_by: Signature | None = None

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def only_a_risk(self) -> bool:
        """Whether the rule puts a stack at risk rather than marking it known-bad (``rocmcompat check`` does
        not count it, ``recommend`` lists the stack under "At risk"): uncertain (its source says "may"),
        contested (its sources disagree), or an isolate rule without a signature (crash-prone; it claims
        no failure).
        """
        return self.at_risk or self.contested or (self.action == "isolate" and self.signature is None)

    def describe(self) -> str:
        """``[rule-id] reason (link)`` as shown in skip and xfail reasons."""
        link = f" ({self.links[0]})" if self.links else ""
        return f"[{self.id}] {self.reason}{link}"

    def signature_matches(self, text: str) -> bool:
        """Whether failure text is this rule's failure; a rule without signature matches any.

        A failure that also shows one of ``explained_by``'s texts is not: its own text names another cause
        (checked only after the signature matched, so it costs nothing on other failures).
        """
        if self.signature is not None and self.signature.search(text) is None:
            return False
        return self.explained_by is None or self.explained_by.search(text) is None

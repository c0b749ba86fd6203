"""``rocmcompat recommend --arch gfx906``: which stack to install on this GPU, and which to avoid.

From the matrices (the bundled ones whose ``arch`` covers the GPU, or those given), the
known-bad rules they include and any results given (JUnit files of earlier runs):

- each planned cell (runtime release x torch series x Python) is judged by the rules that
  hold for it. A rule holding for the stack itself (platform, arch, versions; no library or
  environment-variable condition) that reaches every GPU test (``markers: [gpus]`` or no
  ``applies_to``) with ``skip``/``xfail`` says **avoid**; with ``isolate`` or ``uncertain: true`` it
  says **at risk** (contested: it crashes for some, works for others; or its source says it may fail). Narrower rules (some tests, a library
  being installed) are **caveats** beside a recommended stack.
- a torch series is tried at patch releases .0 to .3, so a rule on ``==2.5.1`` splits the
  series (``2.5.1`` against ``2.5.x``) instead of condemning or clearing it whole;
- evidence: results on hardware (with the run's date), replay-only, or untested.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.matrix.expand import expand
from pytest_rocmcompat.matrix.model import Matrix
from pytest_rocmcompat.outcomes import PROP_CELL_PREFIX, PROP_ENV_PREFIX
from pytest_rocmcompat.stack.arch import arch_matches, normalize_arch
from pytest_rocmcompat.stack.environment import GPU, Environment

if TYPE_CHECKING:  # results are read (junitparser imported) only when given
    from pytest_rocmcompat.report.junit_read import RunRecord

PATCHES = range(4)
BROAD_MARKERS = {"gpus"}
AVOID, AT_RISK, OK = "avoid", "at risk", "ok"


def puts_at_risk(rule: Rule) -> bool:
    """A rule that is only a risk (:attr:`Rule.only_a_risk`: uncertain, contested, or crash-prone without a
    signature) is no reason to avoid a stack; ``rocmcompat check`` does not count it either.
    """
    return rule.only_a_risk


@dataclass
class Evidence:
    """Results of one stack, by source (hardware | replay | override) -> (newest date, outcome counts)."""

    by_source: dict[str, tuple[str, Counter]] = field(default_factory=dict)

    def add(self, source: str, date: str, counts: Counter) -> None:
        old_date, old = self.by_source.get(source, ("", Counter()))
        self.by_source[source] = (max(old_date, date), old + counts)

    def text(self) -> str:
        if "hardware" in self.by_source:
            date, counts = self.by_source["hardware"]
            return f"verified on hardware {date[:10] or '(undated)'}: " + _counts(counts)
        if self.by_source:
            source, (_, counts) = next(iter(self.by_source.items()))
            return f"{source} only (not hardware): " + _counts(counts)
        return "untested"


@dataclass
class Stack:
    """One cell of a matrix at a group of torch patch releases with the same verdict."""

    matrix: str
    runtime: str  # "ROCm 6.0" / "CUDA 12.8"
    runtime_key: tuple
    torch: str  # "2.4.x" or "2.5.1"
    torch_key: Version
    python: list[str]
    verdict: str
    against: list[Rule]
    caveats: list[Rule]
    evidence: Evidence = field(default_factory=Evidence)

    @property
    def name(self) -> str:
        return f"torch {self.torch} · {self.runtime} · py {', '.join(self.python)}"


@dataclass
class Recommendation:
    arch: str
    matrices: list[str]
    stacks: list[Stack]
    arch_rules: list[Rule]  # every stack-level rule naming this arch (also outside the matrices' cells)

    def recommended(self, limit: int = 10) -> list[Stack]:
        return [s for s in self.stacks if s.verdict == OK][:limit]

    def at_risk(self) -> list[Stack]:
        return [s for s in self.stacks if s.verdict == AT_RISK]

    def avoid(self) -> list[Stack]:
        return [s for s in self.stacks if s.verdict == AVOID]


def matrices_for(arch: str, matrices: list[Matrix]) -> list[Matrix]:
    return [m for m in matrices if any(arch_matches(arch, a) for a in m.archs)]


def recommend(arch: str, matrices: list[Matrix], results: list[RunRecord] | None = None) -> Recommendation:
    """Judge every planned cell of ``matrices`` for ``arch``; ``results``: :class:`RunRecord` list."""
    arch = normalize_arch(arch)
    unique: dict[tuple, Stack] = {}  # matrices of one arch (H100, H200) plan the same stacks
    for matrix in matrices:
        for stack in _stacks_of(matrix, arch):
            key = (stack.runtime, stack.torch, tuple(stack.python), tuple(r.id for r in stack.against))
            unique.setdefault(key, stack)
    stacks = list(unique.values())
    _attach_evidence(stacks, arch, results or [])
    stacks.sort(key=lambda s: (s.torch_key, s.runtime_key), reverse=True)
    seen: dict[str, Rule] = {}
    for matrix in matrices:
        for rule in matrix.rules:
            if (
                rule.when.archs
                and any(arch_matches(arch, a) for a in rule.when.archs)
                and _stack_level(rule)
                and _broad(rule)
            ):
                seen.setdefault(rule.id, rule)
    return Recommendation(arch, [m.name for m in matrices], stacks, list(seen.values()))


def _stacks_of(matrix: Matrix, arch: str) -> list[Stack]:
    platform = matrix.platform or "rocm"
    groups: dict[tuple, Stack] = {}
    for cell in expand(matrix):
        values = cell.as_dict()
        if values.get("arch") and not arch_matches(arch, values["arch"]):
            continue
        series = values.get("torch", "")
        runtime_axis = "rocm" if "rocm" in values else "cuda" if "cuda" in values else ""
        release = values.get(runtime_axis, "")
        verdicts: dict[tuple, list[str]] = {}
        for patch in PATCHES:
            torch = f"{series}.{patch}" + _local_tag(runtime_axis, release)
            env = Environment(
                platform=platform,
                gpus=(GPU(0, "", arch),),
                torch=torch,
                python=values.get("python", ""),
                rocm=release if runtime_axis == "rocm" else None,
                cuda=release if runtime_axis == "cuda" else None,
            )
            against, caveats = _judge(matrix.rules, env)
            key = (tuple(r.id for r in against), tuple(r.id for r in caveats))
            verdicts.setdefault(key, []).append(f"{series}.{patch}")
            groups_key = (matrix.name, runtime_axis, release, series, key)
            stack = groups.get(groups_key)
            if stack is None:
                verdict = AVOID if not all(map(puts_at_risk, against)) else AT_RISK if against else OK
                groups[groups_key] = stack = Stack(
                    matrix.name,
                    f"{'ROCm' if runtime_axis == 'rocm' else 'CUDA'} {release}" if runtime_axis else platform,
                    _version_key(release),
                    "",
                    _version(series),
                    [],
                    verdict,
                    against,
                    caveats,
                )
            if values.get("python") and values["python"] not in stack.python:
                stack.python.append(values["python"])
        for key, patches in verdicts.items():
            stack = groups[(matrix.name, runtime_axis, release, series, key)]
            stack.torch = (
                f"{series}.x"
                if len(verdicts) == 1
                else (
                    patches[0]
                    if len(patches) == 1
                    else f"{series}.x except "
                    + ", ".join(p for other, ps in verdicts.items() if other != key for p in ps)
                )
            )
            stack.torch_key = _version(patches[-1])
    return list(groups.values())


def _judge(rules: tuple[Rule, ...], env: Environment) -> tuple[list[Rule], list[Rule]]:
    against: list[Rule] = []
    caveats: list[Rule] = []
    for rule in rules:
        if rule.when.env:  # a deployment mistake (a variable set wrong), not a property of the stack
            continue
        if not replace(rule.when, libraries=()).holds(env):
            continue
        (against if _stack_level(rule) and _broad(rule) else caveats).append(rule)
    return against, caveats


def _stack_level(rule: Rule) -> bool:
    return not rule.when.libraries and not rule.when.env


def _broad(rule: Rule) -> bool:
    to = rule.applies_to
    return to.everything or (bool(set(to.markers) & BROAD_MARKERS) and not to.nodeids and not to.uses)


def _local_tag(axis: str, release: str) -> str:
    if not release:
        return ""
    return f"+rocm{release}" if axis == "rocm" else f"+cu{release.replace('.', '')}"


def _version(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def _version_key(text: str) -> tuple:
    return (_version(text),)


def _attach_evidence(stacks: list[Stack], arch: str, runs: list[RunRecord]) -> None:
    from pytest_rocmcompat.report.merge import SOURCE_LABEL

    for run in runs:
        p = run.props
        archs = [a for a in p.get(PROP_ENV_PREFIX + "arch", "").split(",") if a]
        if not any(arch_matches(normalize_arch(a), arch) for a in archs):
            continue
        torch = p.get(PROP_ENV_PREFIX + "torch", "")
        base = torch.split("+")[0]
        tag = torch.partition("+")[2]
        release = (
            tag[4:]
            if tag.startswith("rocm")
            else p.get(PROP_CELL_PREFIX + "rocm") or p.get(PROP_CELL_PREFIX + "cuda") or ""
        )
        python = ".".join(p.get(PROP_ENV_PREFIX + "python", "").split(".")[:2])
        counts = Counter(case.outcome.value for case in run.cases)
        source = SOURCE_LABEL.get(p.get(PROP_ENV_PREFIX + "source", ""), "unknown")
        for stack in stacks:
            series = stack.torch.split(".x")[0] if ".x" in stack.torch else ".".join(stack.torch.split(".")[:2])
            release_ok = (
                stack.runtime.endswith(f" {release}")
                or (release and stack.runtime.split(" ")[-1] == ".".join(release.split(".")[:2]))
                or (stack.runtime.startswith("CUDA") and _cuda_matches(stack.runtime, p))
            )
            patch_ok = (stack.torch == base) or (
                ".x" in stack.torch and base.startswith(series + ".") and base not in stack.torch
            )
            if release_ok and patch_ok and python in stack.python:
                stack.evidence.add(source, run.timestamp or "", counts)


def _cuda_matches(runtime: str, props: dict[str, str]) -> bool:
    cuda = props.get(PROP_CELL_PREFIX + "cuda") or ".".join(props.get(PROP_ENV_PREFIX + "cuda", "").split(".")[:2])
    return bool(cuda) and runtime == f"CUDA {cuda}"


def _counts(counts: Counter) -> str:
    return ", ".join(f"{n} {name}" for name, n in counts.most_common()) or "no tests"


def load_inputs(
    matrix_args: list[str] | None, result_args: list[str]
) -> tuple[list[Matrix], list[RunRecord], list[str]]:
    """Matrices (bundled by default) and readable runs; raises ConfigError for a bad matrix."""
    from pytest_rocmcompat.matrix.loader import KNOWN_BAD_NAME, bundled_matrices_dir, load_matrix, resolve_matrix_name
    from pytest_rocmcompat.report.merge import expand_inputs, read_runs

    if matrix_args:
        matrices = [load_matrix(resolve_matrix_name(m)) for m in matrix_args]
    else:
        matrices = [load_matrix(p) for p in sorted(bundled_matrices_dir().glob("*.yaml")) if p.name != KNOWN_BAD_NAME]
    runs, warnings = read_runs(expand_inputs(result_args)) if result_args else ([], [])
    return matrices, runs, warnings

"""Validate one raw ``known_bad`` entry and build a :class:`Rule` from it."""

from __future__ import annotations

import re
from typing import Any

from pytest_rocmcompat.knowledge.rules.model import (
    ACTIONS,
    ANY_VERSION,
    NOT_INSTALLED,
    VERSION_AXES,
    AppliesTo,
    EnvCondition,
    Rule,
    When,
)
from pytest_rocmcompat.knowledge.rules.signature import Signature, compile_signature
from pytest_rocmcompat.matrix.checker import Checker, join_path, show, type_name
from pytest_rocmcompat.stack.arch import is_valid_arch_pattern, normalize_arch
from pytest_rocmcompat.stack.environment import PLATFORMS, normalize_library
from pytest_rocmcompat.stack.versions import parse_specifier

RULE_KEYS = (
    "id",
    "when",
    "applies_to",
    "action",
    "signature",
    "reason",
    "links",
    "fixed_in",
    "contested",
    "fresh",
    "uncertain",
    "feature_gap",
)
WHEN_KEYS = ("platform", "arch", *VERSION_AXES, "libraries", "env")
APPLIES_KEYS = ("all", "nodeids", "markers", "uses")
ENV_OPS = ("present", "absent", "equals", "not_equals", "matches")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_URL = re.compile(r"^https?://[^\s/]+\S*$")
_LIB = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def library_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be a distribution name, or ``None``.

    A token-shaped name is refused before it is normalised (``ghp_...`` would become
    ``ghp-...``, a shape the report redaction no longer knows).
    """
    from pytest_rocmcompat.safe_io.redact import redact_shapes

    if not isinstance(name, str) or not _LIB.match(name):
        return f"{show(name)} is not a distribution name"
    if redact_shapes(name) != name:
        return "is shaped like a secret (a token or credential), not a distribution name"
    return None


def parse_rule(raw: Any, ck: Checker, container: Any, index: int, path: str) -> Rule | None:
    """Return the rule, or ``None`` after recording every problem in ``ck``."""
    before = len(ck.problems)
    rule = ck.mapping(container, index, path, raw)
    if rule is None:
        return None
    ck.keys(rule, RULE_KEYS, path)
    for required in ("id", "reason"):
        if required not in rule:
            ck.add(container, index, path, f"missing required key {required!r}")
    rule_id = ck.string(rule, "id", join_path(path, "id"), rule["id"]) if "id" in rule else None
    if rule_id is not None and not _ID.match(rule_id):
        ck.add(
            rule,
            "id",
            join_path(path, "id"),
            f"{show(rule_id)} is not a valid rule id (lower case letters, digits, '.', '_', '-')",
        )
    reason = ck.string(rule, "reason", join_path(path, "reason"), rule["reason"]) if "reason" in rule else None
    action = rule.get("action", "skip")
    if action not in ACTIONS:
        ck.add(
            rule,
            "action",
            join_path(path, "action"),
            f"{show(action)} is not an action; use one of {', '.join(ACTIONS)}",
        )
    signature = None
    if rule.get("signature") is not None:
        text = ck.string(rule, "signature", join_path(path, "signature"), rule["signature"])
        if text:
            try:
                signature = compile_signature(text)
            except ValueError as exc:
                ck.add(rule, "signature", join_path(path, "signature"), f"{show(text)} {exc}")
    links: list[str] = []
    for c, k, item_path, link in (
        ck.string_list(rule, "links", join_path(path, "links"), rule.get("links", [])) if "links" in rule else ()
    ):
        if not _URL.match(link):
            ck.add(c, k, item_path, f"{show(link)} is not an http(s) URL")
        links.append(link)
    when = _parse_when(rule.get("when"), ck, rule, join_path(path, "when")) if "when" in rule else When()
    applies = (
        _parse_applies(rule.get("applies_to"), ck, rule, join_path(path, "applies_to"))
        if "applies_to" in rule
        else AppliesTo()
    )
    fixed_in = (
        _parse_fixed_in(rule.get("fixed_in"), ck, rule, join_path(path, "fixed_in")) if "fixed_in" in rule else ()
    )
    fresh = rule.get("fresh", False)
    if not isinstance(fresh, bool):
        ck.add(rule, "fresh", join_path(path, "fresh"), f"{show(fresh)} is not true or false")
    elif fresh and action != "isolate":
        ck.add(rule, "fresh", join_path(path, "fresh"), "only an isolate rule runs its tests in a process")
    if "signature" in rule and rule["signature"] is None:
        ck.add(rule, "signature", join_path(path, "signature"), "is empty; remove it or give a regular expression")
    contested = _parse_contested(rule, ck, path, action, signature)
    feature_gap = _parse_feature_gap(rule, ck, path, applies)
    uncertain = _parse_uncertain(rule, ck, path, action, signature)
    if len(ck.problems) > before or when is None or applies is None or rule_id is None or reason is None:
        return None  # (a missing or invalid id or reason is one of the problems)
    return Rule(
        id=rule_id,
        reason=reason.strip(),
        action=action,
        when=when,
        applies_to=applies,
        signature=signature,
        links=tuple(links),
        fixed_in=fixed_in or (),
        file=ck.file,
        line=getattr(rule, "line", None),
        contested=contested,
        fresh=fresh is True,
        at_risk=uncertain,
        feature_gap=feature_gap,
    )


def _parse_contested(rule: Any, ck: Checker, path: str, action: Any, signature: Signature | None) -> bool:
    """``contested: true``: sources disagree, so the rule must not blanket-skip (isolate/xfail + signature)."""
    return _signed_flag(
        rule, ck, path, "contested", action, signature,
        "a contested rule must not blanket-skip: use action isolate or xfail "
        "with a signature, so a pass shows as stale-rule evidence",
    )  # fmt: skip


def _parse_feature_gap(rule: Any, ck: Checker, path: str, applies: AppliesTo | None) -> bool:
    """``feature_gap: true``: the GPU or build lacks a feature (fp8 before sm_89, bf16 before Ampere): only the
    tests that use it meet the rule, so it must name them (``applies_to`` nodeids or uses, not every GPU test).
    """
    if "feature_gap" not in rule:
        return False
    value = rule["feature_gap"]
    where = join_path(path, "feature_gap")
    if not isinstance(value, bool):
        ck.add(rule, "feature_gap", where, f"expected true or false, got {type_name(value)} {show(value)}")
        return False
    if value and applies is not None and (applies.everything or applies.markers):
        ck.add(
            rule,
            "feature_gap",
            where,
            "a feature gap reaches only the tests that use the feature: name them in applies_to "
            "(nodeids or uses), not all tests or a marker",
        )
    return value


def _parse_uncertain(rule: Any, ck: Checker, path: str, action: Any, signature: Signature | None) -> bool:
    """``uncertain: true``: the source says the stack *may* fail (a release note's "might"), so a pass
    stands (no stale-rule) and only a failure its signature names is claimed: xfail/isolate + signature.
    A contested rule's pass is stale-rule evidence: the two contradict.
    """
    uncertain = _signed_flag(
        rule, ck, path, "uncertain", action, signature,
        "an uncertain rule claims only the failures it names: use action isolate or xfail with a signature",
    )  # fmt: skip
    if uncertain and rule.get("contested") is True:
        ck.add(
            rule,
            "uncertain",
            join_path(path, "uncertain"),
            "a rule cannot be both contested (a pass is stale-rule evidence) and uncertain (a pass stands)",
        )
    return uncertain


def _signed_flag(
    rule: Any, ck: Checker, path: str, key: str, action: Any, signature: Signature | None, problem: str
) -> bool:
    """A true/false ``key`` that, when true, needs action isolate or xfail and a signature (else ``problem``)."""
    if key not in rule:
        return False
    value = rule[key]
    where = join_path(path, key)
    if not isinstance(value, bool):
        ck.add(rule, key, where, f"expected true or false, got {type_name(value)} {show(value)}")
        return False
    if value and (action not in ("isolate", "xfail") or signature is None):
        ck.add(rule, key, where, problem)
    return value


def _parse_when(raw: Any, ck: Checker, parent: Any, path: str) -> When | None:
    when = ck.mapping(parent, "when", path, raw)
    if when is None:
        return None
    ck.keys(when, WHEN_KEYS, path)
    platforms: list[str] = []
    if "platform" in when:
        for c, k, item_path, text in ck.string_list(when, "platform", join_path(path, "platform"), when["platform"]):
            if text not in PLATFORMS:
                ck.add(c, k, item_path, f"{show(text)} is not a platform; use one of {', '.join(PLATFORMS)}")
            platforms.append(text)
    archs: list[str] = []
    if "arch" in when:
        for c, k, item_path, text in ck.string_list(when, "arch", join_path(path, "arch"), when["arch"]):
            if not is_valid_arch_pattern(text):
                ck.add(c, k, item_path, f"{show(text)} is not a GPU architecture (gfx906, gfx94*, sm_90, ...)")
            archs.append(normalize_arch(text))
    versions = []
    for axis in VERSION_AXES:
        if axis in when:
            spec_text = ck.specifier_text(when, axis, join_path(path, axis), when[axis])
            if spec_text:
                versions.append((axis, parse_specifier(spec_text)))
    libraries = []
    if "libraries" in when:
        libs = ck.mapping(when, "libraries", join_path(path, "libraries"), when["libraries"])
        for name, spec in (libs or {}).items():
            lib_path = join_path(join_path(path, "libraries"), name)
            problem = library_name_problem(name)
            if problem is not None:
                ck.add(libs, name, lib_path, problem)
                continue
            if spec in ANY_VERSION or spec == NOT_INSTALLED:
                libraries.append((normalize_library(name), spec if spec == NOT_INSTALLED else "*"))
            elif ck.specifier_text(libs, name, lib_path, spec):
                libraries.append((normalize_library(name), parse_specifier(spec)))
    env = []
    if "env" in when:
        env_map = ck.mapping(when, "env", join_path(path, "env"), when["env"])
        for name, cond in (env_map or {}).items():
            env_path = join_path(join_path(path, "env"), name)
            if not isinstance(name, str) or not _ENV_NAME.match(name):
                ck.add(env_map, name, env_path, f"{show(name)} is not an environment variable name")
                continue
            parsed = _parse_env_condition(name, cond, ck, env_map, env_path)
            if parsed:
                env.append(parsed)
    return When(tuple(platforms), tuple(archs), tuple(versions), tuple(libraries), tuple(env))


def _parse_env_condition(name: str, cond: Any, ck: Checker, parent: Any, path: str) -> EnvCondition | None:
    if cond in ("present", "absent"):
        return EnvCondition(name, cond)
    if isinstance(cond, dict) and len(cond) == 1:
        ((op, value),) = cond.items()
        if op in ("equals", "not_equals", "matches"):
            if not isinstance(value, str):
                hint = f" (quote numbers: '{show(value, quotes=False)}')" if isinstance(value, (int, float)) else ""
                ck.add(cond, op, join_path(path, op), f"expected a string{hint}, got {type_name(value)}")
                return None
            if op == "matches":
                try:
                    compile_signature(value)
                except ValueError as exc:
                    ck.add(cond, op, join_path(path, op), f"{show(value)} {exc}")
                    return None
            return EnvCondition(name, op, value)
    ck.add(
        parent,
        name,
        path,
        "expected 'present', 'absent', or one of {equals: VALUE}, {not_equals: VALUE}, {matches: REGEX}"
        f", got {show(cond)}",
    )
    return None


def _parse_applies(raw: Any, ck: Checker, parent: Any, path: str) -> AppliesTo | None:
    if raw in ("all", "everything"):
        return AppliesTo()
    applies = ck.mapping(parent, "applies_to", path, raw)
    if applies is None:
        return None
    ck.keys(applies, APPLIES_KEYS, path)
    if not applies:
        ck.add(parent, "applies_to", path, "is empty; write 'applies_to: all' or name nodeids, markers or uses")
        return None
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("nodeids", "markers", "uses"):
        if key in applies:
            items = ck.string_list(applies, key, join_path(path, key), applies[key])
            lists[key] = tuple(t if key != "uses" else normalize_library(t) for _, _, _, t in items)
    if "all" in applies and applies["all"] is not True:
        ck.add(
            applies, "all", join_path(path, "all"), "must be true (or leave it out and name what the rule applies to)"
        )
    everything = applies.get("all") is True
    if everything and lists:
        ck.add(applies, "all", join_path(path, "all"), "'all: true' cannot be combined with nodeids, markers or uses")
    return AppliesTo(everything, lists.get("nodeids", ()), lists.get("markers", ()), lists.get("uses", ()))


def _parse_fixed_in(raw: Any, ck: Checker, parent: Any, path: str) -> tuple[tuple[str, str], ...]:
    fixed = ck.mapping(parent, "fixed_in", path, raw)
    out = []
    for name, version in (fixed or {}).items():
        sub = join_path(path, name)
        if not isinstance(name, str) or not _LIB.match(name):
            ck.add(fixed, name, sub, f"{show(name)} is not an axis or library name (torch, rocm, torchao, ...)")
            continue
        if ck.version_text(fixed, name, sub, version):
            out.append((name, version))
    return tuple(out)

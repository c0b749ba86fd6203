"""A checked file's content as plain JSON data and back (what the matrix cache stores).

Only strings, numbers, lists, mappings and ``null``: reading an entry can build nothing
but these value objects, so a planted entry cannot run code. Anything that does not have
the expected shape raises (``KeyError``, ``TypeError``, ``ValueError``): the cache treats
it as a miss.
"""

from __future__ import annotations

from typing import Any

from packaging.specifiers import SpecifierSet

from pytest_rocmcompat.knowledge.metrics import DeclaredMetric
from pytest_rocmcompat.knowledge.rules.model import AppliesTo, EnvCondition, Rule, When
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.matrix.model import FileContent
from pytest_rocmcompat.stack.versions import parse_specifier

FORMAT = 6  # 2: rules keep contested/fresh, files keep their checks mapping; 3: declared metrics; 4: at_risk;
# 5: explained_by; 6: feature_gap


def content_to_plain(content: FileContent) -> dict[str, Any]:
    return {
        "name": content.name,
        "platform": content.platform,
        "archs": list(content.archs),
        "axes": {k: list(v) for k, v in content.axes.items()},
        "excludes": [[[axis, list(values)] for axis, values in ex] for ex in content.excludes],
        "includes": [[text, line] for text, line in content.includes],
        "suites": list(content.suites),
        "metrics": [
            [m.name, m.unit, m.higher_is_better, m.headline, m.label, m.description] for m in content.metrics.values()
        ],
        "floors": content.floors,
        "expect": content.expect,
        "rules": [_rule_to_plain(r) for r in content.rules],
        "checks": dict(content.checks),
    }


def content_from_plain(data: dict[str, Any]) -> FileContent:
    return FileContent(
        name=_opt_str(data["name"]),
        platform=_opt_str(data["platform"]),
        archs=_strs(data["archs"]),
        axes={_str(k): _strs(v) for k, v in data["axes"].items()},
        excludes=[tuple((_str(axis), _strs(values)) for axis, values in ex) for ex in data["excludes"]],
        includes=[(_str(text), _opt_int(line)) for text, line in data["includes"]],
        suites=_strs(data["suites"]),
        metrics={_str(m[0]): _metric_from_plain(m) for m in data["metrics"]},
        floors=_numbers(data["floors"]),
        expect=_numbers(data["expect"]),
        rules=[_rule_from_plain(r) for r in data["rules"]],
        checks={_str(k): _str(v) for k, v in data["checks"].items()},
    )


def _metric_from_plain(data: Any) -> DeclaredMetric:
    name, unit, higher, headline, label, description = data
    return DeclaredMetric(_str(name), _str(unit), _bool(higher), _bool(headline), _str(label), _str(description))


def _rule_to_plain(rule: Rule) -> dict[str, Any]:
    w = rule.when
    return {
        "id": rule.id,
        "reason": rule.reason,
        "action": rule.action,
        "file": rule.file,
        "line": rule.line,
        "contested": rule.contested,
        "fresh": rule.fresh,
        "at_risk": rule.at_risk,
        "feature_gap": rule.feature_gap,
        "signature": None if rule.signature is None else rule.signature.pattern,
        "explained_by": None if rule.explained_by is None else rule.explained_by.pattern,
        "links": list(rule.links),
        "fixed_in": [list(f) for f in rule.fixed_in],
        "when": {
            "platforms": list(w.platforms),
            "archs": list(w.archs),
            "versions": [[axis, str(spec)] for axis, spec in w.versions],
            "libraries": [[name, str(spec), isinstance(spec, SpecifierSet)] for name, spec in w.libraries],
            "env": [[c.name, c.op, c.value] for c in w.env],
        },
        "applies_to": [
            rule.applies_to.everything,
            list(rule.applies_to.nodeids),
            list(rule.applies_to.markers),
            list(rule.applies_to.uses),
        ],
    }


def _rule_from_plain(data: dict[str, Any]) -> Rule:
    w = data["when"]
    everything, nodeids, markers, uses = data["applies_to"]
    signature, explained_by = data["signature"], data["explained_by"]
    return Rule(
        id=_str(data["id"]),
        reason=_str(data["reason"]),
        action=_str(data["action"]),
        when=When(
            platforms=_strs(w["platforms"]),
            archs=_strs(w["archs"]),
            versions=tuple((_str(axis), parse_specifier(_str(spec))) for axis, spec in w["versions"]),
            libraries=tuple(
                (_str(name), parse_specifier(_str(spec)) if is_spec else _str(spec))
                for name, spec, is_spec in w["libraries"]
            ),
            env=tuple(EnvCondition(_str(n), _str(op), _opt_str(v)) for n, op, v in w["env"]),
        ),
        applies_to=AppliesTo(bool(everything), _strs(nodeids), _strs(markers), _strs(uses)),
        signature=None if signature is None else Signature(_str(signature)),
        links=_strs(data["links"]),
        fixed_in=tuple((_str(a), _str(b)) for a, b in data["fixed_in"]),
        file=_str(data["file"]),
        line=_opt_int(data["line"]),
        contested=_bool(data["contested"]),
        fresh=_bool(data["fresh"]),
        at_risk=_bool(data["at_risk"]),
        feature_gap=_bool(data["feature_gap"]),
        explained_by=None if explained_by is None else Signature(_str(explained_by)),
    )


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, not {type(value).__name__}")
    return value


def _str(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _opt_int(value: Any) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise TypeError(f"expected a line number, got {type(value).__name__}")


_ONLY_STR = {str}


def _strs(values: Any) -> tuple[str, ...]:
    if type(values) is not list or (values and not set(map(type, values)) <= _ONLY_STR):
        raise TypeError("expected a list of strings")
    return tuple(values)


def _numbers(values: Any) -> dict[str, float]:
    if not isinstance(values, dict):
        raise TypeError("expected a mapping")
    out = {}
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError("expected a number")
        out[_str(k)] = float(v)
    return out

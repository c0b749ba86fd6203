"""Validate one parsed matrix file (its own keys; includes are resolved by the loader)."""

from __future__ import annotations

import re
from typing import Any

from pytest_rocmcompat.errors import Problem
from pytest_rocmcompat.knowledge.metrics import BETTER, MAX_LABEL, MAX_UNIT, METRIC_NAME, METRICS, DeclaredMetric
from pytest_rocmcompat.matrix.checker import Checker, got, join_path, show
from pytest_rocmcompat.matrix.model import SUITES, FileContent
from pytest_rocmcompat.matrix.rule_schema import library_name_problem, parse_rule
from pytest_rocmcompat.matrix.yaml_lines import line_of
from pytest_rocmcompat.stack.arch import is_valid_arch_pattern, normalize_arch
from pytest_rocmcompat.stack.environment import PLATFORMS, normalize_library

TOP_KEYS = (
    "name",
    "description",
    "platform",
    "arch",
    "axes",
    "exclude",
    "include",
    "suites",
    "metrics",
    "floors",
    "expect",
    "known_bad",
    "checks",
)
INCLUDED_KEYS = ("name", "description", "include", "known_bad")
AXIS_KEYS = ("rocm", "cuda", "torch", "python", "libraries")
EXPECT_KEYS = ("min_gpu_memory_gib", "min_gpus")
METRIC_KEYS = ("unit", "better", "headline", "label", "description")
UNDECLARED = "a project's own metric is first declared under 'metrics:' with its unit and 'better: higher|lower'"


def check_file(data: Any, ck: Checker, *, included: bool) -> FileContent:
    """Validate a file's top-level mapping, recording every problem in ``ck``."""
    out = FileContent()
    if data is None:
        ck.problems.append(
            Problem(ck.file, 1, "", "the file is empty; a matrix needs at least a name or known_bad rules")
        )
        return out
    if not isinstance(data, dict):
        ck.problems.append(
            Problem(
                ck.file,
                getattr(data, "line", None) or 1,
                "",
                "the top level must be a mapping of keys such as name, axes, known_bad",
            )
        )
        return out
    if not data:
        ck.add(data, None, "", "the file is an empty mapping")
        return out
    ck.keys(data, TOP_KEYS, "")
    if included:
        for key in [k for k in data if k in TOP_KEYS and k not in INCLUDED_KEYS]:
            ck.add(data, key, key, f"is not allowed in an included file (only {', '.join(INCLUDED_KEYS)})")
    if "name" in data:
        out.name = ck.string(data, "name", "name", data["name"])
    if "description" in data:
        ck.string(data, "description", "description", data["description"])
    if "platform" in data:
        value = data["platform"]
        if value not in PLATFORMS:
            ck.add(data, "platform", "platform", f"{show(value)} is not a platform; use one of {', '.join(PLATFORMS)}")
        else:
            out.platform = value
    if "arch" in data:
        archs = []
        for c, k, path, text in ck.string_list(data, "arch", "arch", data["arch"]):
            if "*" in text or "?" in text or not is_valid_arch_pattern(text):
                ck.add(c, k, path, f"{show(text)} is not a GPU architecture name (gfx906, gfx942, sm_90, ...)")
            else:
                archs.append(normalize_arch(text))
        _no_duplicates(ck, data, "arch", archs)
        out.archs = tuple(archs)
    if "axes" in data:
        out.axes = _check_axes(data["axes"], ck, data)
    if "exclude" in data:
        out.excludes = _check_excludes(data["exclude"], ck, data, out)
    if "include" in data:
        for c, k, _path, text in ck.string_list(data, "include", "include", data["include"]):
            out.includes.append((text, line_of(c, k)))
    if "suites" in data:
        suites = []
        for c, k, path, text in ck.string_list(data, "suites", "suites", data["suites"]):
            if text not in SUITES:
                ck.unknown(c, k, path, text, SUITES, "suite")
            else:
                suites.append(text)
        out.suites = tuple(dict.fromkeys(suites))
    if "metrics" in data:
        out.metrics = _check_metrics(data["metrics"], ck, data)
    if "floors" in data:
        floors = ck.mapping(data, "floors", "floors", data["floors"])
        known = (*METRICS, *out.metrics)
        broken = _declared(data) - set(out.metrics)  # each reported where it is declared
        for name, value in (floors or {}).items():
            path = join_path("floors", name)
            if not isinstance(name, str):
                ck.add(floors, name, join_path("floors", str(name)), f"metric names must be strings, got {show(name)}")
            elif name in broken:
                continue
            elif name not in known:
                ck.unknown(floors, name, path, name, known, "metric", hint=UNDECLARED)
            elif (number := ck.number(floors, name, path, value)) is not None:
                out.floors[name] = number
    if "expect" in data:
        expect = ck.mapping(data, "expect", "expect", data["expect"])
        if expect is not None:
            ck.keys(expect, EXPECT_KEYS, "expect")
            for name in EXPECT_KEYS:
                if name in expect and (
                    n := ck.number(expect, name, join_path("expect", name), expect[name], whole=name == "min_gpus")
                ):
                    out.expect[name] = n
    if "checks" in data:
        out.checks = _check_checks(data["checks"], ck, data)
    if "known_bad" in data:
        rules = data["known_bad"]
        if not isinstance(rules, list):
            ck.add(data, "known_bad", "known_bad", "expected a list of rules")
        else:
            for i, raw in enumerate(rules):
                rule = parse_rule(raw, ck, rules, i, join_path("known_bad", i))
                if rule is not None:
                    out.rules.append(rule)
    return out


def _check_metrics(raw: Any, ck: Checker, parent: Any) -> dict[str, DeclaredMetric]:
    """``metrics: {tokens_per_joule: {unit: "tok/J", better: higher, headline: true}}``: a
    project's own figures, which ``floors`` may then name.
    """
    metrics = ck.mapping(parent, "metrics", "metrics", raw)
    out: dict[str, DeclaredMetric] = {}
    for name, spec in (metrics or {}).items():
        path = join_path("metrics", name)
        if not isinstance(name, str) or not re.match(METRIC_NAME, name):
            ck.add(
                metrics,
                name,
                join_path("metrics", name if isinstance(name, str) and len(name) <= 80 else show(name)),
                f"{show(name)} is not a metric name: a letter, then letters, digits or _ (at most 64)",
            )
            continue
        if name in METRICS:
            ck.add(
                metrics,
                name,
                path,
                f"{show(name)} is a bundled metric ({METRICS[name][0]}, {METRICS[name][1]}); "
                "give your own metric another name",
            )
            continue
        body = ck.mapping(metrics, name, path, spec)
        if body is None:
            continue
        before = len(ck.problems)
        ck.keys(body, METRIC_KEYS, path)
        unit = _short_text(ck, body, "unit", path, MAX_UNIT, required=True)
        label = _short_text(ck, body, "label", path, MAX_LABEL)
        if "description" in body:
            ck.string(body, "description", join_path(path, "description"), body["description"])
        better = body.get("better")
        if "better" not in body:
            ck.add(metrics, name, path, "needs 'better: higher' or 'better: lower' (which way is an improvement)")
        elif better not in BETTER:
            ck.add(body, "better", join_path(path, "better"), f"{show(better)} is not a direction; use higher or lower")
        headline = body.get("headline", True)
        if not isinstance(headline, bool):
            ck.add(body, "headline", join_path(path, "headline"), f"expected true or false, got {got(headline)}")
        shown = label or name
        if shown in {m.shown_as for m in out.values()} | set(out):
            ck.add(body if label else metrics, "label" if label else name, path, f"{show(shown)} names two metrics")
        if len(ck.problems) == before and unit is not None:
            description = body.get("description")
            out[name] = DeclaredMetric(
                name,
                unit,
                better == "higher",
                headline is True,
                label or "",
                description if isinstance(description, str) else "",
            )
    return out


def _short_text(ck: Checker, body: dict, key: str, path: str, limit: int, *, required: bool = False) -> str | None:
    """A one-line string of at most ``limit`` characters (a unit or label is drawn on plots)."""
    where = join_path(path, key)
    if key not in body:
        if required:
            ck.add(body, None, path, f"needs '{key}:' (a string such as \"tok/J\")")
        return None
    text = ck.string(body, key, where, body[key])
    if text is None:
        return None
    if len(text) > limit or not text.isprintable():
        ck.add(body, key, where, f"{show(text)} must be one printable line of at most {limit} characters")
        return None
    return text


def _declared(data: dict) -> set[str]:
    """The names the ``metrics:`` section declares, checked clean or not."""
    raw = data.get("metrics")
    if not isinstance(raw, dict):
        return set()
    return {n for n in raw if isinstance(n, str) and n not in METRICS and re.match(METRIC_NAME, n)}


def _check_checks(raw: Any, ck: Checker, parent: Any) -> dict[str, str]:
    """``checks: {arch-not-in-build: off | skip | xfail | isolate}``."""
    from pytest_rocmcompat.knowledge.checks.registry import CHECKS, SETTINGS

    checks = ck.mapping(parent, "checks", "checks", raw)
    out: dict[str, str] = {}
    for name, setting in (checks or {}).items():
        path = join_path("checks", name)
        if not isinstance(name, str) or name not in CHECKS:
            ck.unknown(checks, name, path, str(name), tuple(CHECKS), "check")
        elif setting is False:  # YAML 1.1 reads a bare `off` as false
            out[name] = "off"
        elif setting not in SETTINGS:
            ck.add(checks, name, path, f"{show(setting)} is not a setting; use one of {', '.join(SETTINGS)}")
        else:
            out[name] = setting
    return out


def _check_axes(raw: Any, ck: Checker, parent: Any) -> dict[str, tuple[str, ...]]:
    axes = ck.mapping(parent, "axes", "axes", raw)
    if axes is None:
        return {}
    ck.keys(axes, AXIS_KEYS, "axes")
    out: dict[str, tuple[str, ...]] = {}
    for axis in AXIS_KEYS[:-1]:
        if axis in axes:
            values = _version_list(axes[axis], ck, axes, axis, join_path("axes", axis))
            if values:
                out[axis] = values
    if "libraries" in axes:
        libs = ck.mapping(axes, "libraries", "axes.libraries", axes["libraries"])
        for name, values in (libs or {}).items():
            path = join_path("axes.libraries", name)
            problem = library_name_problem(name)
            if problem is not None:
                ck.add(libs, name, path, problem)
                continue
            parsed = _version_list(values, ck, libs, name, path)
            if parsed:
                out["lib." + normalize_library(name)] = parsed
    return out


def _version_list(raw: Any, ck: Checker, parent: Any, key: Any, path: str) -> tuple[str, ...]:
    if not isinstance(raw, list):
        if isinstance(raw, (str, int, float)) and not isinstance(raw, bool):
            raw_list = [raw]
            values = [ck.version_text(parent, key, path, raw)]
        else:
            ck.add(parent, key, path, "expected a list of version strings such as ['2.5', '2.6']")
            return ()
    else:
        if not raw:
            ck.add(parent, key, path, "must not be an empty list")
        raw_list = raw
        values = [ck.version_text(raw, i, join_path(path, i), v) for i, v in enumerate(raw)]
    good = [v for v in values if v]
    if len(good) == len(raw_list):
        _no_duplicates(ck, parent, key, good, path)
    return tuple(good)


def _check_excludes(
    raw: Any, ck: Checker, parent: Any, out: FileContent
) -> list[tuple[tuple[str, tuple[str, ...]], ...]]:
    if not isinstance(raw, list):
        ck.add(parent, "exclude", "exclude", "expected a list of mappings such as {rocm: '6.2', torch: '2.7'}")
        return []
    known = {"arch": out.archs, **out.axes}
    excludes: list[tuple[tuple[str, tuple[str, ...]], ...]] = []
    for i, raw_entry in enumerate(raw):
        path = join_path("exclude", i)
        entry = ck.mapping(raw, i, path, raw_entry)
        if entry is None:
            continue
        if not entry:
            ck.add(raw, i, path, "an empty exclude would remove every cell")
            continue
        parsed = []
        for axis, value in entry.items():
            axis_key = (
                "lib." + normalize_library(axis[4:]) if isinstance(axis, str) and axis.startswith("lib.") else axis
            )
            sub = join_path(path, axis)
            if axis_key not in known:
                ck.unknown(entry, axis, sub, str(axis), tuple(known) or ("(no axes defined)",), "axis")
                continue
            values = [value] if not isinstance(value, list) else value
            if not values:
                ck.add(entry, axis, sub, "must not be an empty list (it would match no cell)")
                continue
            texts = []
            for v in values:
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    ck.add(entry, axis, sub, f"{show(v)} is a number, quote it: '{show(v, quotes=False)}'")
                    continue
                text = normalize_arch(v) if axis_key == "arch" and isinstance(v, str) else v
                if text not in known[axis_key]:
                    ck.add(
                        entry,
                        axis,
                        sub,
                        f"{show(v)} is not a value of the {axis_key} axis ({', '.join(known[axis_key])})",
                    )
                    continue
                texts.append(text)
            parsed.append((axis_key, tuple(texts)))
        excludes.append(tuple(parsed))
    return excludes


def _no_duplicates(ck: Checker, parent: Any, key: Any, values: list[str], path: str | None = None) -> None:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            ck.add(parent, key, path or str(key), f"{show(v)} is listed twice")
        seen.add(v)

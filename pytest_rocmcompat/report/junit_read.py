"""Read JUnit XML files back into runs: environment properties, and one outcome per test.

Outcomes are derived on reading: a ``rocm_outcome`` property wins (the plugin writes
it for known-bad, stale-rule, crashed, hang and signature-mismatched fails);
otherwise ``<failure>``/``<error>`` is ``fail``, ``<skipped type="pytest.xfail">``
is ``xfail`` (the test's own xfail, as in the terminal; a rule's is ``known-bad`` by property), any other
``<skipped>`` is ``skipped``, and no result element is ``pass``. Files from a
plain pytest run (no plugin) therefore classify fully; they only lack the
environment.
"""

from __future__ import annotations

import ast
import os
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from xml.etree.ElementTree import Element, ElementTree, ParseError

from junitparser import JUnitXml, JUnitXmlError, TestSuite

from pytest_rocmcompat.knowledge.diagnoses import annotate, headline_of
from pytest_rocmcompat.outcomes import (
    PROP_DIAGNOSIS,
    PROP_METRIC_PREFIX,
    PROP_NOTE,
    PROP_OUTCOME,
    PROP_RULE,
    PROP_RULES,
    PROP_SIGNATURE,
    PROP_USES,
    Outcome,
    worst,
)
from pytest_rocmcompat.report.local_paths import Scrubber, public_rules_property, rootdir_in, shown_name
from pytest_rocmcompat.safe_io.redact import redact_shapes
from pytest_rocmcompat.session.measurements import Measurement

_OUTCOMES = {o.value: o for o in Outcome}
_MODULE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*$")
COLLECTION_SKIPPED = "collection skipped"  # pytest's message for a module-level skip


class JUnitReadError(ValueError):
    """A file that is not readable JUnit XML; the message names the file and place."""


@dataclass
class CaseRecord:
    """One test as a JUnit file reports it."""

    test: str  # the pasteable node id (``tests/test_x.py::TestC::test_y[a b]``)
    suite: str
    outcome: Outcome
    rule: str | None = None
    signature: str | None = None
    message: str = ""
    uses: tuple[str, ...] = ()
    measurements: list[Measurement] = field(default_factory=list)
    cause: str = ""  # the likely cause classify.py recorded (``rocm_diagnosis``: ``<id>: <cause>``)


@dataclass
class RunRecord:
    """One JUnit file: its testsuite properties (all suites merged) and its tests."""

    path: str
    props: dict[str, str]
    cases: list[CaseRecord]
    hostname: str = ""
    timestamp: str = ""
    name: str = ""  # as published: relative to the argument's root (local_paths.py)


def _is_class(part: str) -> bool:
    """A test class in a JUnit classname: ``TestX``, ``_BaseCls`` (modules are lower-case by convention)."""
    return part.lstrip("_")[:1].isupper()


@lru_cache(maxsize=4096)
def split_classname(classname: str) -> tuple[str, tuple[str, ...]]:
    """``tests.test_x.TestC`` -> (``tests/test_x.py``, (``TestC``,)); the file part keeps at least
    one name, so a module named like a class is never dropped.
    """
    parts = classname.split(".") if classname else []
    classes: list[str] = []
    while len(parts) > 1 and _is_class(parts[-1]):
        classes.insert(0, parts.pop())
    return ("/".join(parts) + ".py" if parts else ""), tuple(classes)


def node_id(classname: str, name: str, file: str | None = None) -> str:
    """The node id pytest would accept: from the ``file`` attribute when written (xunit1), else
    rebuilt from the classname (``a.b.test_x.TestC`` -> ``a/b/test_x.py::TestC``).
    """
    path, classes = split_classname(classname)
    if file and file.endswith(".py"):
        module = file[:-3].replace("/", ".").replace("\\", ".")
        if classname == module or classname.startswith(module + "."):
            path = file.replace("\\", "/")
            classes = tuple(c for c in classname[len(module) :].split(".") if c)
    return "::".join(p for p in (path, *classes, name) if p)


@lru_cache(maxsize=4096)
def suite_of_classname(classname: str) -> str:
    """``suites.gpu.test_x[.TestC]`` -> ``gpu``; other tests are grouped by file (``tests/test_x.py``)."""
    path, _ = split_classname(classname)
    parts = path[:-3].split("/") if path else []
    if "suites" in parts:
        i = parts.index("suites")
        if i + 1 < len(parts) - 1:
            return parts[i + 1]
    return path or "(no classname)"


MAX_JUNIT_BYTES = 1 << 30  # far above any real run; a device or runaway file is refused unread


def read_run(path: str) -> RunRecord:
    """Parse one JUnit file; raise :class:`JUnitReadError` for corrupt, truncated or foreign XML.

    Nothing else escapes: one bad file is a warning naming it, never a lost merge.
    """
    try:
        return _read_run(path)
    except JUnitReadError:
        raise
    except Exception as exc:
        raise JUnitReadError(
            f"{path}: cannot be read as JUnit ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
        ) from None


def _read_run(path: str) -> RunRecord:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise JUnitReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise JUnitReadError(f"{path}: not a regular file (a device, FIFO or directory)")
    if st.st_size > MAX_JUNIT_BYTES:
        raise JUnitReadError(f"{path}: {st.st_size} bytes is larger than any JUnit file this reads")
    trees: list[ElementTree[Element]] = []  # a parsed file always has a root

    def parse(source: str) -> ElementTree[Element]:
        trees.append(ElementTree(file=source))
        return trees[-1]

    try:
        xml = JUnitXml.fromfile(os.fspath(path), parse_func=parse)
    except ParseError as exc:
        line, col = getattr(exc, "position", (None, None))
        where = f":{line}:{col}" if line else ""
        raise JUnitReadError(f"{path}{where}: not well-formed XML ({_parse_msg(exc)}); truncated or corrupt?") from None
    except OSError as exc:
        raise JUnitReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except JUnitXmlError:
        tag = trees[0].getroot().tag if trees else "?"
        raise JUnitReadError(
            f"{path}: root element <{tag}> is not <testsuites> or <testsuite>; not a JUnit file"
        ) from None
    suites = list(xml)  # junitparser wraps a bare <testsuite> root in <testsuites>
    props: dict[str, str] = {}
    cases: list[CaseRecord] = []
    host = stamp = ""
    rootdirs: set[str] = set()
    for suite in suites:
        for prop in suite.properties():
            if prop.name and prop.name not in props:
                props[prop.name] = prop.value or ""
        host = host or (suite.hostname or "")
        stamp = stamp or (suite.timestamp or "")
        cases.extend(_cases(suite, rootdirs))
    if PROP_RULES in props:  # files written before the rules file was named as published
        props[PROP_RULES] = public_rules_property(props[PROP_RULES])
    quoting = [c for c in cases if "/" in c.message or "\\" in c.message]
    if quoting:
        scrub = Scrubber(rootdirs)
        for case in quoting:
            case.message = scrub(case.message)
    return RunRecord(os.fspath(path), props, cases, host, stamp, shown_name(path))


def _cases(suite: TestSuite, rootdirs: set[str]) -> list[CaseRecord]:
    """Every testcase of a suite, nested suites included.

    Element-level access to the tree junitparser parsed (``_elem``): junitparser's
    objects (a wrapper per child and per attribute read) made reading 1.3 to 2 times
    slower, about 2 s more of the 10 s budget for 1,000 files of 200 tests on two
    busy cores (docs/benchmarks.md). Nested suites are included (``iter``). The run's rootdir,
    where a message quotes a path under it, is added to ``rootdirs``.
    """
    out = []
    for elem in suite._elem.iter("testcase"):
        # Redacted before the classname is split into a path: a token with dots (a JWT) would
        # otherwise be cut into pieces that no longer have a secret's shape.
        classname = redact_shapes(elem.get("classname") or "")
        name = redact_shapes(elem.get("name") or "")
        if not classname and _MODULE.match(name):  # a collection-level skip or error: the module
            classname, name = name, ""
        outcome = Outcome.PASS
        message = ""
        rule = signature = diagnosis = None
        uses: tuple[str, ...] = ()
        measurements: list[Measurement] = []
        explicit = None
        note = ""
        evidence: list[str] = []
        for child in elem:
            tag = child.tag
            if tag == "properties":
                for prop in child.iter("property"):
                    pname, value = prop.get("name") or "", prop.get("value") or ""
                    if pname == PROP_OUTCOME:
                        explicit = _OUTCOMES.get(value)
                    elif pname == PROP_RULE:
                        rule = value
                    elif pname == PROP_SIGNATURE:
                        signature = value
                    elif pname == PROP_DIAGNOSIS:
                        diagnosis = headline_of(value)
                    elif pname == PROP_NOTE:
                        note = value
                    elif pname == PROP_USES:
                        uses = tuple(u.strip() for u in value.split(",") if u.strip())
                    elif pname.startswith(PROP_METRIC_PREFIX):
                        m = Measurement.from_property(pname, value)
                        if m is not None:
                            measurements.append(m)
            elif tag in ("failure", "error"):
                outcome = worst(outcome, Outcome.FAIL)
                message = message or child.get("message") or (child.text or "").strip()[:300]
                evidence.append(child.text or "")
            elif tag == "skipped" and outcome is Outcome.PASS:
                xfail = child.get("type") == "pytest.xfail"
                outcome = Outcome.XFAIL if xfail else Outcome.SKIPPED
                message = child.get("message") or ""
                if message == COLLECTION_SKIPPED:
                    message = collection_skip_reason(child.text or "") or message
                evidence.append(child.text or "")
        if diagnosis is not None:
            message = annotate(message, diagnosis)
        if note:  # e.g. an xfail rule applied but its signature did not match: the reports say so
            message = f"{message} ({note})" if message else note
        test = node_id(classname, name, elem.get("file"))
        if not rootdirs and (evidence or "/" in message):  # one rootdir per file is enough
            for text in (message, *evidence):
                found = rootdir_in(text[:20_000], test.partition("::")[0])
                if found:
                    rootdirs.add(found)
                    break
        out.append(
            CaseRecord(
                test,
                suite_of_classname(classname),
                explicit or outcome,
                rule,
                signature,
                message,
                uses,
                measurements,
                diagnosis or "",
            )
        )
    return out


def collection_skip_reason(text: str) -> str:
    """The reason of a module-level skip from pytest's ``('/abs/test_x.py', 2, 'Skipped: why')`` text."""
    if not text.startswith("(") or len(text) > 4000:
        return ""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ""
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[2], str):
        return value[2]
    return ""


def _parse_msg(exc: ParseError) -> str:
    text = str(exc)
    return text.split(":", 1)[0] if ": line" in text else text

"""Finish pytest's JUnit file: atomic, redacted, and with the tests that never ran.

pytest writes ``--junitxml`` with a plain ``open(..., "w")``; a crash while it
writes leaves half a file. The plugin points pytest's writer at a temporary
file beside the target, then (after pytest's writer, ``trylast``) adds a
skipped testcase for every collected test that never finished, takes secret
values and token shapes out, and renames the result into place.
"""

from __future__ import annotations

import os

import pytest

from pytest_rocmcompat.outcomes import PROP_NAMESPACE, PROP_NOT_RUN, PROP_OUTCOME, Outcome
from pytest_rocmcompat.safe_io.atomic import write_atomic
from pytest_rocmcompat.safe_io.escape import safe_text
from pytest_rocmcompat.safe_io.redact import secret_values_from_env

TARGET_KEY = pytest.StashKey[str]()
FINISHED_KEY = pytest.StashKey[bool]()  # finish() has put the file in place


def redirect_writer(config: pytest.Config) -> None:
    """Make pytest's JUnit writer write a temporary file (renamed by :func:`finish`)."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # a pytest without it: pytest writes in place, finish() still redacts
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    config.stash[TARGET_KEY] = xml.logfile
    xml.logfile = _temporary(xml.logfile)


def add_crash_properties(config: pytest.Config, report: pytest.TestReport) -> None:
    """Xdist's report for a test whose worker died has no teardown, where pytest's JUnit writer takes
    properties from: its ``rocm_*`` properties (``rocm_outcome=crashed``) go onto its testcase here.
    """
    try:
        from _pytest.junitxml import xml_key
    except ImportError:
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    reporter = xml.node_reporter(report)
    for name, value in report.user_properties:
        if isinstance(name, str) and name.startswith(PROP_NAMESPACE) and (name, str(value)) not in reporter.properties:
            reporter.add_property(name, value)


def write_pending(config: pytest.Config) -> None:
    """A stuck shutdown's JUnit: have pytest's writer write what it holds now, unless it already
    wrote a complete file (or :func:`finish` already put it in place).

    Called when the interrupt bound expires while another writer (a conftest's, a plugin's) still
    runs before pytest's own: the tests that ran keep their outcomes.
    """
    target = config.stash.get(TARGET_KEY, None)
    if not target or config.stash.get(FINISHED_KEY, False):
        return
    if _complete_text(_temporary(target)) is not None:
        return
    try:
        from _pytest.junitxml import xml_key
    except ImportError:
        return
    xml = config.stash.get(xml_key, None)
    if xml is not None:
        try:
            xml.pytest_sessionfinish()  # writes xml.logfile, the temporary file (see redirect_writer)
        except Exception:  # a half-written file is dropped by finish()/salvage(), never published
            pass


def prepare() -> None:
    """Import what adding the not-run tests needs, ahead of a salvage that has only
    :data:`~pytest_rocmcompat.session.interrupt.SALVAGE_S` for its writing.
    """
    try:
        import junitparser  # noqa: F401
    except ImportError:
        pass


def _temporary(target: str) -> str:
    """Where pytest's JUnit writer writes for this process (see :func:`redirect_writer`)."""
    return f"{target}.rocmcompat-{os.getpid()}.tmp"


def _complete_text(path: str) -> str | None:
    """The file's text if it is complete XML; None if it is missing or half written."""
    from xml.etree import ElementTree as ET

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        ET.fromstring(text)
    except (OSError, ET.ParseError, ValueError):
        return None
    return text


def finish(config: pytest.Config, not_run: list[tuple[str, str]]) -> None:
    """Add ``not_run`` tests (nodeid, reason), redact, and put the file in place atomically."""
    target = config.stash.get(TARGET_KEY, None) or getattr(config.option, "xmlpath", None)
    if not target:
        return
    config.stash[FINISHED_KEY] = True
    written = _temporary(target) if TARGET_KEY in config.stash else target
    if not os.path.isfile(written):
        return
    if written == target:  # pytest wrote in place (no redirect): redacted as it is
        with open(written, encoding="utf-8") as fh:
            text: str | None = fh.read()
    else:
        text = _complete_text(written)
    if text is None:  # half a file (a writer cut short): not published
        os.unlink(written)
        return
    if not_run:
        text = _with_not_run(text, not_run)
    write_atomic(target, _redacted(text))
    if written != target:
        os.unlink(written)
    _name_final_file(config, target)


def salvage(config: pytest.Config) -> None:
    """A stuck shutdown's last act: put pytest's JUnit file in place as written (redacted), or drop it.

    Called when the interrupt bound expires (see :mod:`.interrupt`): the file pytest wrote is
    used if it is complete XML; half a file is removed, never published, and no temporary is left.
    """
    target = config.stash.get(TARGET_KEY, None)
    if not target:
        return
    written = _temporary(target)
    if not os.path.exists(written):  # (finish() removes it once its own complete file is in place)
        return
    text = _complete_text(written)
    if text is not None:
        write_atomic(target, _redacted(text))
    try:
        os.unlink(written)
    except OSError:
        pass


def _name_final_file(config: pytest.Config, target: str) -> None:
    """Pytest's closing line ("generated xml file: ...") names the file the user asked for."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:
        return
    xml = config.stash.get(xml_key, None)
    if xml is not None:
        xml.logfile = target


def _redacted(text: str) -> str:
    """Every attribute and text value made safe and redacted *before* serialisation.

    Redacting the serialised XML would miss a secret whose escaped form differs
    (``p&ss`` is ``p&amp;ss`` there); the values are redacted as the test produced them.
    """
    from xml.etree import ElementTree as ET

    secrets = secret_values_from_env(dict(os.environ))
    try:
        root = ET.fromstring(text)
    except ET.ParseError:  # not XML after all: the text's own values, as written
        return safe_text(text, secrets)
    changed = False
    for elem in root.iter():
        for name, value in elem.attrib.items():
            safe = safe_text(value, secrets)
            if safe != value:
                elem.attrib[name], changed = safe, True
        for part in ("text", "tail"):
            value = getattr(elem, part)
            if value and (safe := safe_text(value, secrets)) != value:
                setattr(elem, part, safe)
                changed = True
    if not changed:  # the common case: pytest's own serialisation stays as it was
        return text
    return '<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="unicode")


def _with_not_run(text: str, not_run: list[tuple[str, str]]) -> str:
    from _pytest.junitxml import mangle_test_address
    from junitparser import JUnitXml, Properties, Property, Skipped, TestCase

    xml = JUnitXml.fromstring(
        text.encode("utf-8")
    )  # bytes: lxml (junitparser uses it where installed) refuses a str with an encoding declaration
    suite = next(iter(xml), None) if isinstance(xml, JUnitXml) else xml
    if suite is None:
        return text
    for case in [c for c in suite if c.name is None]:  # pytest's empty entry for the test it was in
        suite.remove_testcase(case)
    for nodeid, reason in not_run:
        names = mangle_test_address(nodeid)
        case = TestCase(names[-1], ".".join(names[:-1]), 0.0)
        case.result = [Skipped(reason, "pytest.skip")]
        props = Properties()
        props.add_property(Property(PROP_OUTCOME, Outcome.SKIPPED.value))
        props.add_property(Property(PROP_NOT_RUN, "true"))
        case.append(props)
        suite.add_testcase(case)
    suite.update_statistics()
    return xml.tostring().decode("utf-8")

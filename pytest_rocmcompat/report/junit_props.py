"""What the plugin adds to pytest's JUnit file: the run's environment and cell, and ``rocm_uses``.

Testsuite properties (written once, by the process that writes JUnit: the xdist
controller) describe the environment and its matrix cell, so ``rocmcompat report``
can place the file in the compatibility table. Every value is redacted.

Testcase outcomes are *derived on reading* (see ``junit_read``): ``rocm_outcome``
is written only where the JUnit result alone cannot tell (known-bad, stale-rule,
crashed, hang, a signature-mismatched fail); a plain pass, fail or skip is read
from the JUnit element, which keeps the common passing test free of extra work.
"""

from __future__ import annotations

import json
import os

import pytest

from pytest_rocmcompat.outcomes import (
    PROP_CELL,
    PROP_CELL_PREFIX,
    PROP_ENV_PREFIX,
    PROP_LIB_PREFIX,
    PROP_LOCATION,
    PROP_MATRIX,
    PROP_PROBLEMS,
    PROP_RULE_INFO_PREFIX,
    PROP_RULES,
    PROP_SCHEMA,
    PROP_STRICT,
    PROP_USES,
    PROP_VAR_PREFIX,
)
from pytest_rocmcompat.report.local_paths import public_matrix_path
from pytest_rocmcompat.safe_io.redact import redact_text, secret_values_from_env
from pytest_rocmcompat.session.state import CompatState
from pytest_rocmcompat.stack.environment import Environment

SCHEMA = "1"


def suite_properties(state: CompatState, rootdir: str | None = None) -> list[tuple[str, str]]:
    """The testsuite properties of a run, in a stable order, secrets redacted; the rules file
    named as published (relative to ``rootdir``, or ``bundled <name>``: no local path).
    """
    env = state.env
    props: list[tuple[str, str]] = [(PROP_SCHEMA, SCHEMA)]
    props += env_properties(env)
    if state.matrix is not None:
        props.append((PROP_MATRIX, state.matrix.name))
    if state.location is not None:
        props.append((PROP_LOCATION, state.location.describe()))
        if state.location.inside and state.location.cell is not None:
            props.append((PROP_CELL, state.location.cell.key))
            props += [(PROP_CELL_PREFIX + k, v) for k, v in state.location.cell.values]
    props.append(
        (
            PROP_RULES,
            f"{len(state.rules.active)} of {len(state.rules.all_rules)} active ({public_matrix_path(state.rules_source, rootdir)})",
        )
    )
    for rule in state.rules.active:
        info = {
            "reason": rule.reason,
            "action": rule.action,
            "links": list(rule.links),
            "fixed_in": dict(rule.fixed_in),
        }
        props.append((PROP_RULE_INFO_PREFIX + rule.id, json.dumps(info, sort_keys=True)))
    if state.problems:  # the built-in checks' findings (their rules are in rocm_rule_info.*)
        props.append((PROP_PROBLEMS, ",".join(dict.fromkeys(p.check for p in state.problems))))
    if state.strict:
        props.append((PROP_STRICT, "true"))
    secrets = secret_values_from_env(dict(os.environ))
    return [(name, redact_text(str(value), secrets)) for name, value in props]


def env_properties(env: Environment) -> list[tuple[str, str]]:
    """``rocm_env.*`` (``source`` says live, replay or overridden), ``rocm_lib.*``, ``rocm_var.*``."""
    props = [(PROP_ENV_PREFIX + "source", env.source)]
    if env.origin:
        props.append((PROP_ENV_PREFIX + "origin", env.origin))
    props.append((PROP_ENV_PREFIX + "platform", env.platform))
    if env.gpus:
        props.append((PROP_ENV_PREFIX + "arch", ",".join(env.archs)))
        props.append((PROP_ENV_PREFIX + "gpu", env.gpus[0].name))
        props.append((PROP_ENV_PREFIX + "gpus", str(len(env.gpus))))
    for key in ("rocm", "hip", "cuda", "driver", "driver_cuda", "nccl", "torch", "python", "os"):
        value = getattr(env, key)
        if value:
            props.append((PROP_ENV_PREFIX + key, str(value)))
    if env.torch_archs:
        props.append((PROP_ENV_PREFIX + "torch_archs", ",".join(env.torch_archs)))
    props += [(PROP_LIB_PREFIX + k, v) for k, v in sorted(env.libraries.items())]
    props += [(PROP_VAR_PREFIX + k, v) for k, v in sorted(env.env.items())]  # already redacted by the probe
    return props


class JUnitProperties:
    """A small pytest plugin: testsuite properties, and ``rocm_uses`` on tests that use libraries."""

    def __init__(self, state: CompatState) -> None:
        self.state = state

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        from _pytest.junitxml import xml_key  # LogXML exists only where JUnit is written

        xml = session.config.stash.get(xml_key, None)
        if xml is None:
            return
        for name, value in suite_properties(self.state, str(session.config.rootpath)):
            xml.add_global_property(name, value)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Libraries a test uses, so the merged table can have one column per library."""
        for item in items:
            libs = [str(a) for m in item.iter_markers("uses") for a in m.args]
            if libs:
                item.user_properties.append((PROP_USES, ",".join(dict.fromkeys(libs))))


def install(config: pytest.Config, state: CompatState) -> None:
    """Register :class:`JUnitProperties` when this run writes JUnit (``--junitxml``)."""
    if getattr(config.option, "xmlpath", None):
        config.pluginmanager.register(JUnitProperties(state), "rocmcompat-junit")

"""``integration-extra-pin``: a listed package outside what a listed release's integration extra pins.

An *integration extra* is an extra named after the package it requires: TRL 0.26.0 declares
``vllm<0.12.0,>=0.10.2; extra == "vllm"``, what ``pip install trl[vllm]`` installs and what its vLLM code
paths were written against (its maintainer: "TRL supports 0.10.2 - 0.11.2, but not 0.12",
https://github.com/huggingface/trl/pull/4117); verl pins vLLM and SGLang the same way, OpenRLHF vLLM,
transformers torch and accelerate. The data is PyPI's metadata of every release
(:mod:`.declared_data`, ``tools/regenerate_declared.py``).

A stack of both packages may never use the integration (a TRL test that runs no vLLM), and an exact pin names
what was tested, not all that works: a risk for the dependent package's tests, confirmed only by its importing from
the integrated package what the installed release lacks. Where this project has sourced hand-written run-time rows
for the pair at this release (``requirement_tables``), or the release's base requirements already name the package,
those judge it and the extra is not read (rows generated from what releases import do not: they stand beside it). The pins are PyPI's, read for a live host's installed release too (its recorded
metadata has no extras). The pins of vLLM's, xformers' and SGLang's own PyPI wheels (CUDA builds) are not read
on a ROCm stack, as for ``requirement-not-met``.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.import_scan_rows import import_scan_rows
from pytest_rocmcompat.knowledge.checks.requirement_tables import runtime_minimums
from pytest_rocmcompat.knowledge.checks.requirements import (
    imports_from,
    installed_packages,
    required_name,
    rocm_build,
)
from pytest_rocmcompat.knowledge.declared_pins import CUDA_WHEELS
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.overrides import replay_names
from pytest_rocmcompat.stack.versions import coerce_version, specifier_contains

ID = "integration-extra-pin"
# one package importing from an integrated one what its installed release lacks (the form each finding's own
# requirements.imports_from narrows to its integrated package); "cannot import name 'GuidedDecodingParams' from
# 'vllm.sampling_params'": https://github.com/davanstrien/uv-scripts-for-ai/issues/14 (vLLM 0.12's removal)
PREDICTS = r"cannot import name '\w+' from '(?:vllm|sglang|deepspeed|peft|trl|transformers|accelerate)(?:\.[\w.]+)?'"


def check(env: Environment) -> list[Finding]:
    listed = installed_packages(env)
    replaced = replay_names(env)
    found = []
    for dist, version in listed.items():
        if (replaced and dist not in replaced) or (dist in CUDA_WHEELS and rocm_build(env)):
            continue  # the base machine's package; a ROCm stack's vLLM is no PyPI wheel
        # (installed metadata, recorded without its extras, does not stop it: the release's own extras are PyPI's)
        release = declared_data.release(dist, version)
        if release is None:
            continue
        judged = _judged_elsewhere(release, dist, version)
        for req in declared_data.integration_requirements(release):
            target = normalize_library(req.name)
            installed = coerce_version(listed.get(target))
            if target == dist or target in judged or installed is None or (replaced and target not in replaced):
                continue
            if specifier_contains(req.specifier, installed):
                continue
            found.append(
                Finding(
                    check=ID,
                    reason=f"{dist} {version} requires {req} (its {target} extra), installed {target} "
                    f"{listed[target]} ({release.source})",
                    fix=f"install {dist}[{target}] (the {target} its release pins), or a {dist} release whose "
                    f"{target} extra takes {target} {listed[target]}",
                    link=release.source,
                    uses=(dist,),  # a test of the integrated package alone never runs the integration
                    uncertain=True,
                    signature_only=True,
                    predicts=imports_from(
                        (target,)
                    ),  # never the dependent's own API: another release of it fails so too
                )
            )
    return found


def _judged_elsewhere(release: declared_data.Release, dist: str, version: str) -> set[str]:
    """The packages the release's base requirements, or this project's hand-written run-time rows for this release,
    already judge. Rows generated from what releases import (``import_scan_rows``) name only the names an import
    takes, not what the integration was written against: the extra's pin still counts beside them.
    """
    named = {normalize_library(r.name) for r in declared_data.requirements(release)}
    generated = set(import_scan_rows().get(dist, ()))
    rows = {required_name(row.requirement) for row in runtime_minimums(dist, version) if row not in generated}
    return named | {name for name in rows if name is not None}

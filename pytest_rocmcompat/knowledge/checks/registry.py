"""Run the built-in checks once and compile their findings into known-bad rules.

A matrix's ``checks:`` mapping switches a check ``off`` or sets its action
(``skip | xfail | isolate``); the default is ``xfail``: a failing test it reaches is
``known-bad`` when the failure is one the check predicts (its ``PREDICTS`` signature), a
passing one ``stale-rule``. Any other failure stays ``fail``, with the check's stack problem
attached as its likely cause (:func:`likely_cause`): a check never hides a different failure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from pytest_rocmcompat.knowledge.checks import (
    amdsmi_binding,
    apex_rocm,
    arch,
    bitsandbytes_cuda,
    bitsandbytes_rocm,
    build_toolkit,
    companion_pairing,
    cuda_driver,
    deepspeed_rocm,
    dynamo_gate,
    extension_torch,
    flashinfer_parts,
    gpu_vendor_builds,
    hipblaslt_arch,
    hsa_override,
    integration_extras,
    library_arch,
    measured_pair,
    nccl_nvls,
    nccl_os,
    nccl_symbols,
    numeric_formats,
    numpy_abi,
    nvidia_driver_gpu,
    nvjitlink_shadow,
    onnxruntime_builds,
    pypi_namesake,
    python_range,
    rccl_arch,
    requirements,
    rocblas_arch,
    rocm_driver,
    rocm_gpu_support,
    rocm_sdk_family,
    rocm_visibility,
    rocm_wheel_os,
    torch_cpu_build,
    triton_rocm_linker,
    wheel_glibc,
    wheel_python,
)
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.driver_texts import ACCESS_DENIED
from pytest_rocmcompat.knowledge.gpu_refusals import refusing
from pytest_rocmcompat.knowledge.rules.model import AppliesTo, Rule
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.stack.environment import Environment, normalize_library

CHECKS: dict[str, Callable[[Environment], list[Finding]]] = {
    arch.ID: arch.check,
    python_range.ID: python_range.check,
    dynamo_gate.ID: dynamo_gate.check,
    requirements.ID: requirements.check,
    cuda_driver.ID: cuda_driver.check,
    extension_torch.ID: extension_torch.check,
    hsa_override.ID: hsa_override.check,
    numeric_formats.BF16_ID: numeric_formats.check_bf16,
    numeric_formats.FP8_ID: numeric_formats.check_fp8,
    library_arch.ID: library_arch.check,
    rocm_driver.ID: rocm_driver.check,
    bitsandbytes_rocm.ID: bitsandbytes_rocm.check,
    bitsandbytes_cuda.ID: bitsandbytes_cuda.check,
    rocblas_arch.ID: rocblas_arch.check,
    rocm_gpu_support.ID: rocm_gpu_support.check,
    rocm_visibility.ID: rocm_visibility.check,
    gpu_vendor_builds.ID: gpu_vendor_builds.check,
    torch_cpu_build.ID: torch_cpu_build.check,
    wheel_python.ID: wheel_python.check,
    wheel_glibc.ID: wheel_glibc.check,
    hipblaslt_arch.ID: hipblaslt_arch.check,
    numpy_abi.ID: numpy_abi.check,
    rocm_sdk_family.ID: rocm_sdk_family.check,
    onnxruntime_builds.ID: onnxruntime_builds.check,
    rccl_arch.ID: rccl_arch.check,
    nccl_nvls.ID: nccl_nvls.check,
    nccl_os.ID: nccl_os.check,
    nccl_symbols.ID: nccl_symbols.check,
    build_toolkit.ID: build_toolkit.check,
    nvidia_driver_gpu.ID: nvidia_driver_gpu.check,
    measured_pair.ID: measured_pair.check,
    triton_rocm_linker.ID: triton_rocm_linker.check,
    deepspeed_rocm.ID: deepspeed_rocm.check,
    pypi_namesake.ID: pypi_namesake.check,
    apex_rocm.ID: apex_rocm.check,
    rocm_wheel_os.ID: rocm_wheel_os.check,
    amdsmi_binding.ID: amdsmi_binding.check,
    flashinfer_parts.ID: flashinfer_parts.check,
    integration_extras.ID: integration_extras.check,
    nvjitlink_shadow.ID: nvjitlink_shadow.check,
}
# The failures each check predicts: a signature, like a known-bad rule's (checked by
# tests/knowledge/test_check_signatures.py against messages quoted from real reports).
PREDICTS: dict[str, str] = {
    arch.ID: arch.PREDICTS,
    python_range.ID: python_range.PREDICTS,
    dynamo_gate.ID: dynamo_gate.PREDICTS,
    requirements.ID: requirements.PREDICTS,
    cuda_driver.ID: cuda_driver.PREDICTS,
    extension_torch.ID: extension_torch.PREDICTS,
    hsa_override.ID: hsa_override.PREDICTS,
    numeric_formats.BF16_ID: numeric_formats.BF16_PREDICTS,
    numeric_formats.FP8_ID: numeric_formats.FP8_PREDICTS,
    library_arch.ID: library_arch.PREDICTS,
    rocm_driver.ID: rocm_driver.PREDICTS,
    bitsandbytes_rocm.ID: bitsandbytes_rocm.PREDICTS,
    bitsandbytes_cuda.ID: bitsandbytes_cuda.PREDICTS,
    rocblas_arch.ID: rocblas_arch.PREDICTS,
    rocm_gpu_support.ID: rocm_gpu_support.PREDICTS,
    rocm_visibility.ID: rocm_visibility.PREDICTS,
    gpu_vendor_builds.ID: gpu_vendor_builds.PREDICTS,
    torch_cpu_build.ID: torch_cpu_build.PREDICTS,
    wheel_python.ID: wheel_python.PREDICTS,
    wheel_glibc.ID: wheel_glibc.PREDICTS,
    hipblaslt_arch.ID: hipblaslt_arch.PREDICTS,
    numpy_abi.ID: numpy_abi.PREDICTS,
    rocm_sdk_family.ID: rocm_sdk_family.PREDICTS,
    onnxruntime_builds.ID: onnxruntime_builds.PREDICTS,
    rccl_arch.ID: rccl_arch.PREDICTS,
    nccl_nvls.ID: nccl_nvls.PREDICTS,
    nccl_os.ID: nccl_os.PREDICTS,
    nccl_symbols.ID: nccl_symbols.PREDICTS,
    build_toolkit.ID: build_toolkit.PREDICTS,
    nvidia_driver_gpu.ID: nvidia_driver_gpu.PREDICTS,
    measured_pair.ID: measured_pair.PREDICTS,
    triton_rocm_linker.ID: triton_rocm_linker.PREDICTS,
    deepspeed_rocm.ID: deepspeed_rocm.PREDICTS,
    pypi_namesake.ID: pypi_namesake.PREDICTS,
    apex_rocm.ID: apex_rocm.PREDICTS,
    rocm_wheel_os.ID: rocm_wheel_os.PREDICTS,
    amdsmi_binding.ID: amdsmi_binding.PREDICTS,
    flashinfer_parts.ID: flashinfer_parts.PREDICTS,
    integration_extras.ID: integration_extras.PREDICTS,
    nvjitlink_shadow.ID: nvjitlink_shadow.PREDICTS,
}
# Texts that explain a failure otherwise, per check: a failure showing one is not the check's even where its
# signature matches. The ROCm device checks predict "no GPU" failures, which a GPU closed to the user
# (driver_texts.ACCESS_DENIED) prints too, on any stack.
EXPLAINED_BY: dict[str, str] = dict.fromkeys(
    (arch.ID, gpu_vendor_builds.ID, hsa_override.ID, rocm_driver.ID, rocm_gpu_support.ID, rocm_visibility.ID),
    ACCESS_DENIED,
)
# Checks whose findings say the stack's GPU is not served (by the build, a library, a ROCm library or release): a
# failure refusing that GPU by name, in any library's words, confirms them too (knowledge/gpu_refusals.py)
GPU_SERVICE: tuple[str, ...] = (
    arch.ID,
    library_arch.ID,
    rocblas_arch.ID,
    hipblaslt_arch.ID,
    rccl_arch.ID,
    rocm_gpu_support.ID,
    rocm_sdk_family.ID,
)
SETTINGS: tuple[str, ...] = ("off", "skip", "xfail", "isolate")
DEFAULT_ACTION = "xfail"
SOURCE_FILE = "built-in check"


def evaluate(env: Environment, settings: Mapping[str, str] | None = None) -> list[Finding]:
    """Findings of every check not switched off; a check that breaks is skipped, never raised."""
    settings = settings or {}
    env = derive(env)  # the same facts the rules see (knowledge/derived_facts.py)
    named = refusing(env.archs)  # a failure refusing the stack's GPU by name, for the GPU_SERVICE checks
    found: list[Finding] = []
    for check_id, check in CHECKS.items():
        if settings.get(check_id) == "off":
            continue
        try:
            findings = check(env)
        except Exception:  # a check must never stop a session; it simply says nothing
            continue
        found.extend(_also_predicting(findings, named) if check_id in GPU_SERVICE else findings)
    return found


def _also_predicting(findings: list[Finding], named: str) -> list[Finding]:
    """``findings``, each also predicting ``named`` (a :data:`GPU_SERVICE` check's: a refusal of the stack's GPU by
    name); a finding that claims only its own messages keeps them.
    """
    if not named:
        return findings
    return [
        f if f.signature_only else replace(f, predicts="|".join(p for p in (f.predicts, named) if p)) for f in findings
    ]


def evaluate_risks(env: Environment, settings: Mapping[str, str] | None = None) -> list[Finding]:
    """Risks no stack listing counts: a package the stack does not name (``requirements.unnamed_findings``,
    ``requirements.unnamed_dependency_findings``,
    ``companion_pairing.unnamed``, ``bitsandbytes_cuda.unnamed``, ``apex_rocm.unnamed``) or a CUDA toolkit it does not name
    (``build_toolkit.unstated``) a driver it does not name (``cuda_driver.unstated``), a library path it does not
    name (``nvjitlink_shadow.unstated``), or a NumPy 1.x build beside a
    stated NumPy 2 (``numpy_abi.unknown_builds``) or an extension's unrecorded build beside a stated
    torch (``extension_torch.unknown_builds``).

    Compiled into rules beside :func:`evaluate`'s findings, so a test that uses the package and fails
    with its known message ends known-bad; never listed as a problem of the stack. Only for a stated
    stack (``--rocm-set``): on a probed or recorded machine a package the stack does not name is not
    installed, and a test using it fails on its import, which no row predicts.
    """
    if env.source != "overridden":
        return []
    settings = settings or {}
    sources = {
        requirements.ID: (
            requirements.unnamed_findings,
            requirements.unnamed_dependency_findings,
            companion_pairing.unnamed,
        ),
        build_toolkit.ID: (build_toolkit.unstated,),
        cuda_driver.ID: (cuda_driver.unstated,),
        nvjitlink_shadow.ID: (nvjitlink_shadow.unstated,),
        numpy_abi.ID: (numpy_abi.unknown_builds,),
        extension_torch.ID: (extension_torch.unknown_builds,),
        bitsandbytes_cuda.ID: (bitsandbytes_cuda.unnamed,),
        apex_rocm.ID: (apex_rocm.unnamed,),
    }
    try:
        derived = derive(env)
        return [
            finding
            for check_id, risks in sources.items()
            if settings.get(check_id) != "off"
            for risk in risks
            for finding in risk(derived)
        ]
    except Exception:  # like evaluate: a check never stops a session
        return []


def compile_rules(findings: list[Finding], settings: Mapping[str, str] | None = None) -> list[Rule]:
    """One rule per check id (several findings of one check are joined).

    A check may name a finding ``<check-id>:<part>`` (a rule of its own, with the check's action);
    findings that are all ``signature_only`` are predicted by their ``predicts`` alone.
    """
    settings = settings or {}
    by_check: dict[str, list[Finding]] = {}
    for f in findings:
        by_check.setdefault(f.check, []).append(f)
    rules = []
    for rule_id, check_id, group in (part for joined in by_check.items() for part in _by_kind(*joined)):
        everything = any(f.everything for f in group)
        applies = AppliesTo(
            everything=everything,
            markers=() if everything else _union(f.markers for f in group),
            uses=() if everything else tuple(normalize_library(u) for u in _union(f.uses for f in group)),
            nodeids=() if everything else _union(f.nodeids for f in group),
        )
        reason = "; ".join(f"{f.reason}; fix: {f.fix}" for f in group)
        links = tuple(dict.fromkeys(f.link for f in group))
        rules.append(
            Rule(
                id=rule_id,
                reason=reason,
                action=settings.get(check_id.split(":", 1)[0], DEFAULT_ACTION),
                applies_to=applies,
                signature=_signature(
                    "" if all(f.signature_only for f in group) else check_id, tuple(f.predicts for f in group)
                ),
                links=links,
                file=SOURCE_FILE,
                at_risk=all(f.uncertain for f in group),
                explained_by=Signature(EXPLAINED_BY[check_id]) if check_id in EXPLAINED_BY else None,
            )
        )
    return rules


# A check's findings of one kind are joined into one rule; kinds are (uncertain, signature_only), in this order
_KINDS = ((False, False), (False, True), (True, False), (True, True))
_SUFFIX = {(False, True): ":own-messages", (True, False): ":at-risk", (True, True): ":at-risk-own-messages"}


def _by_kind(check_id: str, group: list[Finding]) -> list[tuple[str, str, list[Finding]]]:
    """``group`` split by kind, so that a certain finding never makes another's risk certain (a pass under it
    would be a stale rule) and a finding claiming only its own messages is not widened by the check's
    signature. The first kind present keeps ``check_id`` as its rule id; another gets ``check_id`` and a
    suffix. Each part is ``(rule id, check id, findings)``: the check id still names the check's signature.
    """
    kinds = {k: [f for f in group if (f.uncertain, f.signature_only) == k] for k in _KINDS}
    present = [k for k in _KINDS if kinds[k]]
    return [(check_id if k == present[0] else f"{check_id}{_SUFFIX[k]}", check_id, kinds[k]) for k in present]


def likely_cause(rules: Iterable[Rule]) -> str | None:
    """The stack problem of the first built-in check among ``rules``, as a ``rocm_diagnosis`` value.

    ``<check-id>: <reason>; fix: <fix>; see <link>``: the form of a diagnosis, so that JUnit,
    the terminal line and every report show it as the likely cause of a failure the check
    reached but did not predict. ``None`` when no rule is a built-in check.
    """
    for rule in rules:
        if rule.file == SOURCE_FILE:
            link = f"; see {rule.links[0]}" if rule.links else ""
            return f"{rule.id}: {rule.reason}{link}"
    return None


def _signature(check_id: str, extra: Iterable[str] = ()) -> Signature | None:
    """The check's predicted failures and its findings' own; compiled on the first failure it reaches."""
    parts = [p for p in (PREDICTS.get(check_id, ""), *extra) if p]
    return Signature("|".join(dict.fromkeys(parts))) if parts else None


def _union(parts: Iterable[Iterable[str]]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for part in parts:
        out.update(dict.fromkeys(part))
    return tuple(out)

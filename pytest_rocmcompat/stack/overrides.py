"""``--rocm-set KEY=VALUE``: change fields of a probed or replayed environment."""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_rocmcompat.errors import OverrideError
from pytest_rocmcompat.safe_io.redact import REDACTED, is_secret_name, redact_variable, register_secret
from pytest_rocmcompat.stack.amd_driver import DKMS_PACKAGE, driver_version
from pytest_rocmcompat.stack.arch import arch_vendor, is_valid_arch, normalize_arch
from pytest_rocmcompat.stack.environment import GPU, PLATFORMS, Environment, normalize_library
from pytest_rocmcompat.stack.os_names import recorded_os
from pytest_rocmcompat.stack.versions import InvalidVersion, parse_version

VERSION_KEYS = ("rocm", "hip", "cuda", "driver", "torch", "python", "nccl", "driver_cuda")
KEYS = (
    "platform",
    "arch",
    "os",
    *VERSION_KEYS,
    "torch_archs",
    "torch_cxx11_abi",
    "lib.NAME",
    "requires.NAME",
    "env.NAME",
)
_BOOLEANS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
_TARGET = re.compile(r"^(sm_\d{2,3}[af]?|compute_\d{2,3}[af]?|gfx[0-9a-f]{3,4}(-\d+)*(-generic)?)$")


def parse_assignment(text: str) -> tuple[str, str]:
    """``"lib.torchao=0.7.0"`` -> ``("lib.torchao", "0.7.0")``; a value in one pair of quotes, as a shell line or an
    ``.env`` file writes it (``os="Ubuntu 22.04"`` copied into a stack list), is read without them.
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise OverrideError(f"--rocm-set {text!r}: expected KEY=VALUE with KEY one of {', '.join(KEYS)}")
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1].strip()
    return key, value


def apply_overrides(env: Environment, assignments: list[str]) -> Environment:
    """Apply each assignment in order; the result is labelled ``source="overridden"``."""
    if not assignments:
        return env
    changes: dict = {}
    libraries, variables, gpus = dict(env.libraries), dict(env.env), list(env.gpus)
    requires = dict(env.requires)
    keys = [parse_assignment(text)[0] for text in assignments]
    if "torch" in keys and "torch_archs" not in keys:
        changes["torch_archs"] = None  # another torch: its targets are derived again
    if "torch" in keys and "torch_cxx11_abi" not in keys:
        changes["torch_cxx11_abi"] = None  # ... and its C++ ABI
    shown = []
    for given in assignments:
        key, value = parse_assignment(given)
        text = _shown(key, value, given)
        shown.append(text)
        where = f"--rocm-set {text!r}"
        if key == "platform":
            if value not in PLATFORMS:
                raise OverrideError(f"{where}: platform must be one of {', '.join(PLATFORMS)}")
            changes["platform"] = value
        elif key == "arch":
            archs = [normalize_arch(a) for a in value.split(",") if a.strip()]
            bad = [a for a in archs if not is_valid_arch(a)]
            if not archs or bad:
                raise OverrideError(
                    f"{where}: {', '.join(bad) or 'nothing'} is not a GPU architecture "
                    "(gfx906, gfx942, sm_90; several separated by commas)"
                )
            gpus = _with_archs(gpus, archs)
        elif key == "os":
            changes["os"] = _os(where, value)
        elif key == "driver" and value:
            # the version, also read out of the line a tool prints it on; an in-kernel amdgpu (the probe records the
            # kernel release, 6.5.0-14-generic) or AMD's DKMS package version (6.8.5.60200-2009582.22.04) as written
            stated = driver_version(value)
            changes[key] = stated if _verbatim_driver(stated) else _version(where, stated)
        elif key == "hip" and value and _HIP_VERSION.match(value):
            changes[key] = value  # as HIP prints it (hipconfig --version, torch.version.hip), as the probe records it
        elif key == "rocm" and value and (package := _ROCM_PACKAGE.match(value)):
            changes[key] = package.group(1)
        elif key in VERSION_KEYS:
            changes[key] = _version(where, value) if value else None
            if key == "torch":
                requires.pop("torch", None)  # the recorded torch's metadata no longer applies
        elif key == "torch_archs":
            changes["torch_archs"] = _targets(where, value)
        elif key == "torch_cxx11_abi":
            if value and value.lower() not in _BOOLEANS:
                raise OverrideError(f"{where}: expected 1/true or 0/false (empty: derived from the torch version)")
            changes["torch_cxx11_abi"] = _BOOLEANS[value.lower()] if value else None
        elif key.startswith("lib.") and len(key) > 4:
            name = normalize_library(key[4:])
            requires.pop(name, None)  # another version: its recorded Requires-Dist no longer applies
            if value:
                libraries[name] = _version(where, value)
            else:
                libraries.pop(name, None)
        elif key.startswith("requires.") and len(key) > 9:
            requires[normalize_library(key[9:])] = _requirements(where, value)
        elif key.startswith("env.") and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key[4:]):
            if value:
                variables[key[4:]] = redact_variable(key[4:], value)
            else:
                variables.pop(key[4:], None)
        else:
            raise OverrideError(f"{where}: unknown key {key!r}; use one of {', '.join(KEYS)}")
    origin = "; ".join(shown)
    if env.source == "replay":
        origin = f"{env.origin} + {origin}"
    elif env.source == "overridden" and env.origin:  # assignments added to a stated stack keep its own
        origin = f"{env.origin}; {origin}"
    return replace(
        env,
        **changes,
        libraries=dict(sorted(libraries.items())),
        env=variables,
        gpus=tuple(gpus),
        requires=dict(sorted(requires.items())),
        source="overridden",
        origin=origin,
    )


def _targets(where: str, value: str) -> tuple[str, ...] | None:
    """``"sm_80,sm_90,compute_90"`` -> the tuple; empty: unknown (derived from the table)."""
    targets = tuple(t.strip().lower() for t in value.split(",") if t.strip())
    bad = [t for t in targets if not _TARGET.match(t.split(":", 1)[0])]
    if bad:
        raise OverrideError(
            f"{where}: {', '.join(bad)} is not a GPU code target "
            "(sm_90, sm_90a, compute_90, gfx942, gfx90a:xnack-, gfx11-generic)"
        )
    return targets or None


def _requirements(where: str, value: str) -> tuple[str, ...]:
    """``"torch==2.5.1|xformers==0.0.28"`` -> PEP 508 requirement strings, checked."""
    from packaging.requirements import InvalidRequirement, Requirement

    items = tuple(r.strip() for r in value.split("|") if r.strip())
    for item in items:
        try:
            Requirement(item)
        except InvalidRequirement as exc:
            raise OverrideError(f"{where}: {item!r} is not a PEP 508 requirement ({exc})") from None
    return items


def _shown(key: str, value: str, text: str) -> str:
    """The assignment as messages and reports may show it: a secret ``env.*`` value redacted."""
    if key.startswith("env.") and is_secret_name(key[4:]) and value:
        register_secret(value)  # scrubbed from every later output of this process
        return f"{key}={REDACTED}"
    return text


# HIP's version as ``hipconfig --version`` and ``torch.version.hip`` print it: release, build number, commit
# (``6.2.41133-dd7f95766``, ``7.1.25344-b46750915f``); read as its leading release (versions.coerce_version)
_HIP_VERSION = re.compile(r"^\d{1,3}\.\d{1,3}\.\d{1,9}-[0-9a-f]{6,40}$")
# ROCm's package version as apt/dnf list it (``rocm-core 6.2.0.60200-66~22.04``, ``6.4.1.60401-83.el9``): the release
_ROCM_PACKAGE = re.compile(r"^(\d{1,2}\.\d{1,2}\.\d{1,2})\.\d{5}-\d{1,6}(?:~\d{2}\.\d{2}|\.el\d{1,2}|\.sles\d{1,3})?$")
# A Linux kernel release as ``uname -r`` prints it (what the probe records as ``driver`` for the
# distribution's in-kernel amdgpu): a dotted numeric head and a distribution suffix.
_KERNEL_RELEASE = re.compile(r"^[3-9]\.\d{1,3}(?:\.\d{1,4})?[-+_~][A-Za-z0-9][A-Za-z0-9._+~-]{0,80}$")


def _verbatim_driver(value: str) -> bool:
    """A ``driver`` kept as written, not as a PEP 440 version: a kernel release or a DKMS package version."""
    return bool(_KERNEL_RELEASE.match(value) or DKMS_PACKAGE.match(value))


def _os(where: str, value: str) -> str:
    """The ``os`` an assignment names (:func:`.os_names.recorded_os`); anything else is a usage error."""
    recorded = recorded_os(value)
    if recorded is None:
        raise OverrideError(
            f"{where}: expected Linux, Windows or macOS, optionally with its release (Linux 6.8.0-45-generic), "
            "or a Linux distribution and its version (Ubuntu 22.04)"
        )
    return recorded


def _version(where: str, value: str) -> str:
    if len(value) > 100 or max(map(len, re.findall(r"[0-9]+", value)), default=0) > 30:
        raise OverrideError(f"{where}: {value[:40]!r}... is too long to be a version")
    try:
        parse_version(value)
    except (InvalidVersion, ValueError):
        raise OverrideError(f"{where}: {value!r} is not a valid version (PEP 440)") from None
    return value


def _with_archs(gpus: list[GPU], archs: list[str]) -> list[GPU]:
    """Give existing devices the new arch(es); with none, describe one device per arch."""
    if not gpus:
        return [GPU(i, f"(overridden {a})", a, None, arch_vendor(a)) for i, a in enumerate(archs)]
    return [
        GPU(g.index, g.name, archs[i % len(archs)], g.memory_bytes, arch_vendor(archs[i % len(archs)]))
        for i, g in enumerate(gpus)
    ]


def replay_names(env: Environment) -> set[str]:
    """Distributions a ``--rocm-set`` replay named (``torch``, ``lib.NAME``, ``requires.NAME``); empty
    for a stack that is no such replay.

    When a replay changes torch or a library, the packages it did not name come from the machine the
    replay runs on; their pins and metadata describe that machine, not the replayed stack.
    """
    if env.source != "overridden":
        return set()
    names: set[str] = set()
    for key in stated_keys(env):
        if key == "torch":
            names.add("torch")
        elif key.startswith(("lib.", "requires.")):
            names.add(normalize_library(key.partition(".")[2]))
    return names


def stated_keys(env: Environment) -> set[str]:
    """The keys a replay assigned (``--rocm-set``/``--set``: ``arch``, ``torch``, ``lib.NAME`` ...), read
    from its origin (``recorded.json + arch=gfx1100; torch=2.5.1``); empty for a live probe.
    """
    if env.source == "live":
        return set()
    return {part.partition("=")[0].strip() for part in re.split(r"; | \+ ", env.origin or "") if "=" in part}

"""``dynamo-python-gate``: torch.compile refuses this Python, or this OS, on this torch release.

torch/_dynamo/eval_frame.py ``check_if_dynamo_supported`` raises
``RuntimeError: torch.compile is not supported on Python 3.12+`` (torch 2.2/2.3; 2.0 said
"Python 3.11+ not yet supported for torch.compile"); 3.13 arrived with torch 2.6 and 3.14
after 2.9 (2.9.1 still raises "torch.compile is not supported on Python 3.14+").

On Windows (read in the torch wheels, the same Python source on every platform): 2.0 and 2.1's
``check_if_dynamo_supported`` raise "Windows not yet supported for torch.compile"; 2.2 to 2.4's Inductor
backend (torch/_dynamo/backends/inductor.py) raises "Windows not yet supported for inductor"; from 2.5 Inductor
runs, but its GPU kernels need Triton, which torch's Windows wheels do not install (their ``triton``
requirement holds for ``platform_system == "Linux"`` only), so a GPU stack without the Windows fork
(``triton-windows``) meets Inductor's "Cannot find a working triton installation" (torch/_inductor/scheduler.py;
``TritonMissing`` later): a risk, as a stack may leave out the fork it installed.

A stack that names no torch but its GPU platform (and its ROCm/CUDA release, if stated) could hold any of
the official torch releases built for it (``python_range.unnamed_torch_candidates``): where some of them refuse the
stack's Python, torch.compile is at risk (*uncertain*), and only the gate's own message confirms it. A stack
that states no release gets the risk only where every candidate refuses.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import rocm_wheel_os
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.python_range import python_minor, torch_series, unnamed_torch_candidates
from pytest_rocmcompat.knowledge.declared_pins import EXACT  # libraries whose PyPI wheels pin torch exactly
from pytest_rocmcompat.stack.environment import Environment, normalize_library

ID = "dynamo-python-gate"
SOURCE = "https://github.com/pytorch/pytorch/blob/v2.3.0/torch/_dynamo/eval_frame.py"
# Python minor -> first torch series whose torch.compile accepts it
FIRST_TORCH: dict[str, str] = {"3.11": "2.1", "3.12": "2.4", "3.13": "2.6", "3.14": "2.10"}
KNOWN_UNTIL = Version("2.11")  # torch series after this are not judged
COMPILE_TESTS = ("suites/gpu/test_runtime.py::test_torch_compile", "*/suites/gpu/test_runtime.py::test_torch_compile")
# check_if_dynamo_supported's messages over the releases (2.1: "Python 3.12+ not yet supported
# for torch.compile"; 2.2-2.3: "torch.compile is not supported on Python 3.12+"; 2.5: "Dynamo is
# not supported on Python 3.13+").
COMPILE_USES = ("torch.compile", "inductor")
# Libraries whose default path compiles the model with Inductor, from the release named: vLLM's V1 engine,
# the default from 0.8.0 (vllm/envs.py ``VLLM_USE_V1`` defaults to "1"; 0.7.3 to "0"), sets compilation
# level PIECEWISE with ``use_inductor = True`` unless ``enforce_eager`` (vllm/config.py
# ``VllmConfig.__post_init__``; both read in the vllm 0.8.0 wheel on PyPI).
INDUCTOR_BY_DEFAULT: dict[str, tuple[str, str]] = {
    "vllm": ("0.8.0", "https://github.com/vllm-project/vllm/blob/v0.8.0/vllm/config.py"),
}
PREDICTS = (
    r"Dynamo is not supported on Python 3\.\d+|torch\.compile is not supported on Python 3\.\d+"
    r"|Python 3\.\d+\+? not yet supported for torch\.compile"
    r"|Windows not yet supported for (?:torch\.compile|inductor)"
)
WINDOWS_SOURCES = {
    "2.0": "https://github.com/pytorch/pytorch/blob/v2.1.2/torch/_dynamo/eval_frame.py",
    "2.2": "https://github.com/pytorch/pytorch/blob/v2.4.1/torch/_dynamo/backends/inductor.py",
    "2.5": "https://github.com/pytorch/pytorch/blob/v2.5.1/torch/_inductor/scheduler.py",
}
# Inductor on a GPU without Triton (torch 2.5's scheduler.py; TritonMissing's text since)
NO_TRITON_PREDICTS = r"Cannot find a working triton installation"
# the Windows fork of Triton, and Triton under its other names (any of them listed: Inductor may find one)
TRITON_NAMES = ("triton-windows", "triton", "pytorch-triton", "pytorch-triton-rocm", "triton-rocm")


def inductor_frameworks(env: Environment) -> tuple[str, ...]:
    """The libraries of :data:`INDUCTOR_BY_DEFAULT` whose tests may meet Inductor on this stack: the stack names
    them at their first compiling release or later, or names none on a CUDA stack whose torch only such releases
    pin (vLLM's PyPI wheels pin torch exactly: torch 2.6.0 is vLLM 0.8.x's). Whether a test does meet it
    (vLLM's ``enforce_eager``, a V0 engine) no stack says: their findings are risks. vLLM is left out where the
    stack sets ``VLLM_USE_V1=0`` (the eager V0 engine, before 0.11).
    """
    users = []
    for library, (first, _source) in INDUCTOR_BY_DEFAULT.items():
        if library == "vllm" and env.env.get("VLLM_USE_V1", "").strip() == "0":
            continue
        version = env.field_version("lib." + library)
        if version is not None:
            compiles = Version(version.base_version) >= Version(first)  # 0.8.0rc1, +rocm builds too
        elif normalize_library(library) in env.libraries:
            compiles = False  # listed with a version that does not parse: not judged
        else:
            pinning = _releases_pinning(library, env) if library in EXACT else ()
            compiles = bool(pinning) and all(v >= Version(first) for v in pinning)
        if compiles:
            users.append(normalize_library(library))
    return tuple(users)


def _releases_pinning(library: str, env: Environment) -> tuple[Version, ...]:
    """The releases of ``library`` whose exact torch pin (``torch==2.6.0``) admits the stack's torch (a CUDA or
    untagged torch: the PyPI wheels are CUDA builds; on ROCm the library is built from source, and nothing is
    derived). Releases declaring a floor only (vLLM 0.1-0.2's ``torch>=2.0.0``) tell nothing.
    """
    torch = env.torch_version
    if torch is None or torch.is_devrelease or env.platform == "rocm" or (torch.local or "").startswith("rocm"):
        return ()
    if env.system in ("Windows", "Darwin"):
        return ()  # the library's PyPI wheels are Linux builds
    return declared_data.pinned_to_torch(library, Version(torch.public))


def check(env: Environment) -> list[Finding]:
    return _python_gate(env) + _windows_gate(env)


def _windows_gate(env: Environment) -> list[Finding]:
    """torch.compile on a Windows stack: refused before 2.5; from 2.5 a GPU stack without Triton (a risk)."""
    series = torch_series(env)
    if series is None or env.system != "Windows" or Version(series) < Version("2.0"):
        return []
    if rocm_wheel_os.linux_only(env.torch):
        return []  # no such wheel on Windows: rocm-wheel-not-for-os says so
    if Version(series) < Version("2.5"):
        dynamo = Version(series) < Version("2.2")  # 2.0/2.1: Dynamo itself; 2.2-2.4: the inductor backend
        what = "torch.compile" if dynamo else "Inductor (torch.compile's default backend)"
        source = WINDOWS_SOURCES["2.0" if dynamo else "2.2"]
        return [
            Finding(
                check=ID,
                reason=f"{what} on torch {env.torch} refuses Windows (Inductor runs there from torch 2.5)",
                fix="use torch >= 2.5 for torch.compile on Windows, or compile under Linux/WSL",
                link=source,
                uses=COMPILE_USES,
                nodeids=COMPILE_TESTS,
                # 2.2-2.4 refuse the inductor backend only: a test compiling with backend="eager" passes
                uncertain=not dynamo,
            )
        ]
    if env.platform not in ("cuda", "rocm") or any(normalize_library(n) in env.libraries for n in TRITON_NAMES):
        return []
    return [
        Finding(
            check=ID,
            reason=f"Inductor's GPU kernels need Triton, which torch {env.torch}'s Windows wheels do not install "
            "(the stack names no triton-windows)",
            fix="pip install the triton-windows release paired with this torch, or compile with "
            'torch.compile(backend="aot_eager")',
            link=WINDOWS_SOURCES["2.5"],
            uses=COMPILE_USES,
            nodeids=COMPILE_TESTS,
            uncertain=True,  # a stack may leave out the fork it installed
            predicts=NO_TRITON_PREDICTS,
            signature_only=True,
        )
    ]


def _python_gate(env: Environment) -> list[Finding]:
    """torch.compile refusing the stack's Python (:data:`FIRST_TORCH`)."""
    series, python = torch_series(env), python_minor(env)
    if series is None and env.torch is None and python is not None:
        return _python_gate_at_risk(env, python)
    if series is None or python is None or Version(series) > KNOWN_UNTIL or Version(series) < Version("2.0"):
        return []
    first = FIRST_TORCH.get(str(python))
    if first is None or Version(series) >= Version(first):
        return []
    return [
        Finding(
            check=ID,
            reason=f"torch.compile on torch {env.torch} refuses Python {python} (supported from torch {first})",
            fix=f"use torch >= {first} for torch.compile on Python {python}, or an older Python",
            link=SOURCE,
            uses=COMPILE_USES,
            nodeids=COMPILE_TESTS,
        )
    ]


def _python_gate_at_risk(env: Environment, python: Version) -> list[Finding]:
    """The uncertain finding of a stack naming no torch: some official torch releases built for its platform
    (and stated ROCm/CUDA release) refuse its Python in torch.compile.
    """
    found = unnamed_torch_candidates(env)
    first = FIRST_TORCH.get(str(python))
    if found is None or first is None:
        return []
    candidates = [s for s in found.series if Version("2.0") <= Version(s) <= KNOWN_UNTIL]
    refusing = [s for s in candidates if Version(s) < Version(first)]
    if not refusing or (found.release is None and len(refusing) < len(candidates)):
        return []  # with no release stated, a risk only where every candidate refuses (else: any Python is)
    built = f" built for {found.platform}" + (f" {found.release}" if found.release else "")
    span = refusing[0] if len(refusing) == 1 else f"{refusing[0]}-{refusing[-1]}"
    which = "every one" if len(refusing) == len(candidates) else f"torch {span}"
    return [
        Finding(
            check=ID,
            reason=f"the stack names no torch, and of the torch releases{built} ({candidates[0]}-{candidates[-1]}), "
            f"{which} refuses Python {python} in torch.compile (supported from torch {first})",
            fix=f"name the torch release (torch=VERSION) to settle it; torch.compile on Python {python} needs "
            f"torch >= {first}",
            link=SOURCE,
            uses=COMPILE_USES,
            nodeids=COMPILE_TESTS,
            uncertain=True,
        )
    ]

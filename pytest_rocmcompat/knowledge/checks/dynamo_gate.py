"""``dynamo-python-gate``: torch.compile refuses this Python on this torch release.

torch/_dynamo/eval_frame.py ``check_if_dynamo_supported`` raises
``RuntimeError: torch.compile is not supported on Python 3.12+`` (torch 2.2/2.3; 2.0 said
"Python 3.11+ not yet supported for torch.compile"); 3.13 arrived with torch 2.6 and 3.14
after 2.9 (2.9.1 still raises "torch.compile is not supported on Python 3.14+").
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.python_range import python_minor, torch_series
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
)


def inductor_uses(env: Environment) -> tuple[str, ...]:
    """What a test declares to meet Inductor on this stack: torch.compile, inductor, and each library of
    :data:`INDUCTOR_BY_DEFAULT` the stack runs from its first compiling release on (or names no release of:
    a test using it most likely runs a recent one).
    """
    users = []
    for library, (first, _source) in INDUCTOR_BY_DEFAULT.items():
        version = env.field_version("lib." + library)
        if version is None and normalize_library(library) in env.libraries:
            continue  # listed with a version that does not parse: not judged
        if version is None or Version(version.base_version) >= Version(first):  # 0.8.0rc1, +rocm builds too
            users.append(normalize_library(library))
    return (*COMPILE_USES, *users)


def check(env: Environment) -> list[Finding]:
    series, python = torch_series(env), python_minor(env)
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

"""``no-wheel-for-python``: a compiled library release published no wheel for the stack's Python.

What its published wheels say (the CPython tags of every wheel of the release, from the
generated :mod:`..declared_data`, read from PyPI): ``vllm 0.2.1.post1`` has cp38-cp311 wheels
only, ``xformers 0.0.22`` the same. On another Python pip finds no wheel. Without an sdist
(Ray, torchao, torchvision's releases) it refuses ("No matching distribution"): a finding of
the stack, as a requirements file checked before installing meets it. With one (vLLM,
xformers) it builds the release from source, which for a CUDA/ROCm extension needs the
toolkit, a matching torch and hours, and often fails; a stack listing the library may hold
such a build (or one from another index), so that finding is a *risk* (uncertain): a predicted
install/build failure confirms it, a passing test stands.
A release with a ``py3``/``abi3`` wheel, or none recorded, is no finding; torch itself is
``python-unsupported-by-torch``'s. What counts as compiled is what the wheel tags say, never
a list: a pure-Python package (transformers, peft, sentence-transformers, diffusers ...)
publishes ``py3-none-any`` and never gets a finding; SGLang from 0.5.11 and OpenRLHF publish
only CPython-tagged manylinux wheels and no sdist (their PyPI files, https://pypi.org/project/sglang/#files,
https://pypi.org/project/openrlhf/#files, recorded in the generated data), which pip refuses on another
Python all the same (compiled tokenizers, safetensors, xgrammar, AutoGPTQ carry an sdist: a risk).
The compiled scientific layer is read the same way (NumPy, SciPy, pandas, scikit-learn, numba, llvmlite,
pyarrow, OpenCV, sentencepiece): ``numpy==1.24.4`` has no Python 3.12 wheel, and pip's build of its sdist
stops at ``Getting requirements to build wheel`` (numpy/numpy#29345). PyPy's and Python 2's wheels serve
no CPython 3 and are not counted.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.python_range import python_minor
from pytest_rocmcompat.stack.environment import Environment, normalize_library

ID = "no-wheel-for-python"
# pip's and uv's refusals and a failed source build (pip: "Failed building wheel for X",
# "Failed to build X"; pip >= 24.3 "Failed to build installable wheels for some pyproject.toml
# based projects"; uv: "Failed to build `X`"), each naming the distribution; uv's "X has no wheels with
# a matching Python ABI tag" (also "version" and "implementation" tags: not the platform tag's).
PREDICTS = (
    r"No matching distribution found for [\w.-]+|Could not find a version that satisfies the requirement [\w.-]+"
    r"|Failed building wheel for [\w.-]+|Failed to build (?:installable wheels|`?[\w.-]+)"
    # uv's PubGrub report of releases without a wheel for the interpreter (astral-sh/uv#622)
    r"|has no wheels with a matching Python (?:ABI|version|implementation) tag"
    # pip's PEP 517 steps failing before any wheel is built (an sdist made for older Pythons), and what
    # the setuptools such sdists pin prints on Python 3.12, which has no pkgutil.ImpImporter
    r"|(?:Getting requirements to build wheel|Preparing metadata \(pyproject\.toml\)) did not run successfully"
    r"|module 'pkgutil' has no attribute 'ImpImporter'"
)


def check(env: Environment) -> list[Finding]:
    python = python_minor(env)
    if python is None:
        return []
    found: list[Finding] = []
    for name, version in sorted(env.libraries.items()):
        if normalize_library(name) == "torch":
            continue
        release = declared_data.release(name, version)
        wheels = release.cpython_wheels if release is not None else None
        if release is None or not wheels or str(python) in wheels:
            continue
        ordered = sorted(wheels, key=Version)
        then = "pip builds it from its sdist, if it can" if release.sdist else "and no sdist: pip cannot install it"
        found.append(
            Finding(
                check=ID,
                reason=f"{release.name} {version} published wheels for Python {ordered[0]}-{ordered[-1]} only, "
                f"not for Python {python}; {then}",
                fix=f"use Python {ordered[0]}-{ordered[-1]}, or a {release.name} release with wheels for Python {python}",
                link=release.source,
                uses=(normalize_library(name),),
                uncertain=release.sdist,
            )
        )
    return found

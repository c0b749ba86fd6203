"""``numpy2-abi``: a compiled package built against NumPy 1.x beside NumPy 2 fails to import.

NumPy 2.0 changed the ABI: "When you build wheels for your package using a NumPy 1.xx version at
build time, those will not work with NumPy 2.0" (``doc/source/dev/depending_on_numpy.rst`` at
v2.0.0, https://github.com/numpy/numpy/blob/v2.0.0/doc/source/dev/depending_on_numpy.rst). A
stack whose numpy is 2.x (a pre-release of 2.0 included) and that lists a package of
:data:`numpy_abi_data.FIRST_NUMPY2` older than its first release built against NumPy 2 (a
pre-release, dev or local version judged as its release) cannot import it: a certain finding
that reaches the tests that ``uses`` the package. torch is left to the bundled known-bad rule
``numpy2-torch-built-against-numpy1`` (matrices/known_bad.yaml). A package whose recorded
``Requires-Dist`` already excludes the stack's numpy is left to ``requirement-not-met``: its
installed metadata, else what the release declared on PyPI (:mod:`..declared_pins`;
``onnxruntime 1.18.1`` declares ``numpy<2.0``, 1.18.0 does not), except in a ``--rocm-set``
replay that did not name numpy, whose numpy ``requirement-not-met`` leaves to the machine.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding, own_message_risk
from pytest_rocmcompat.knowledge.checks.numpy_abi_data import BY_DIST, FirstNumpy2
from pytest_rocmcompat.knowledge.declared_data import marker_holds
from pytest_rocmcompat.knowledge.declared_pins import declared_requires_all
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.overrides import replay_names
from pytest_rocmcompat.stack.versions import optional_version, specifier_contains

ID = "numpy2-abi"
# How the import fails, verbatim: NumPy 2's ``numpy/core/_multiarray_umath.py`` (v2.0.0) on the
# C-API lookup of a 1.x build; the 1.x headers' ``_import_array``/``import_array`` (v1.25.2
# ``generate_numpy_api.py``, ``generate_ufunc_api.py``); Cython's type-size check of the 1.x
# ``numpy.dtype`` layout; numba's own gate before 0.60 (``numba/__init__.py`` at 0.59.1).
PREDICTS = (
    r"compiled using NumPy 1\.x cannot be run in|_(?:ARRAY|UFUNC)_API not found"
    r"|numpy\.core\.(?:multiarray|umath|_multiarray_umath) failed to import"
    r"|numpy\.dtype size changed, may indicate binary incompatibility\. Expected \d+ from C header, got \d+ from PyObject"
    r"|Numba needs NumPy 1\.\d+ or less"
)

# NumPy's own refusals of a NumPy 1.x build, which state the mismatch themselves (the first two lines of
# PREDICTS: the 2.x loader's message and the 1.x headers' failed C-API lookup)
OWN_MESSAGES = (
    r"compiled using NumPy 1\.x cannot be run in|_(?:ARRAY|UFUNC)_API not found"
    r"|numpy\.core\.(?:multiarray|umath|_multiarray_umath) failed to import"
)
SOURCE = "https://github.com/numpy/numpy/blob/v2.0.0/doc/source/dev/depending_on_numpy.rst"


def check(env: Environment) -> list[Finding]:
    numpy = optional_version(env.libraries.get("numpy"))
    if numpy is None or numpy.release[:1] < (2,):
        return []
    found: list[Finding] = []
    for name, listed in sorted(env.libraries.items()):
        dist = normalize_library(name)
        row = BY_DIST.get(dist)
        version = optional_version(listed)
        if row is None or version is None or Version(version.base_version) >= Version(row.first):
            continue
        if _declares_against(env, (name, dist), listed, numpy):
            continue  # its own numpy requirement excludes this numpy: requirement-not-met says so
        found.append(_finding(dist, listed, row, env.libraries["numpy"]))
    return found


def unknown_builds(env: Environment) -> list[Finding]:
    """The risk that a compiled package the stack leaves out was built against NumPy 1.x: which NumPy a binary was
    built against is not in its metadata, so only NumPy's own refusal of such a build (:data:`OWN_MESSAGES`, which
    states it) confirms it. For a stated stack that names numpy 2 (``registry.evaluate_risks``; a replay's other
    numpy is the machine's, not the stack's), unless it settles every build: a stack that names packages besides
    numpy, each a known NumPy 2 build (torch from 2.3, a :data:`BY_DIST` release from its first).
    """
    numpy = optional_version(env.libraries.get("numpy"))
    named = replay_names(env)
    if numpy is None or numpy.release[:1] < (2,) or "numpy" not in named:
        return []
    others = named - {"numpy"}
    if others and all(_numpy2_build(env, name) for name in others):
        return []
    return [
        own_message_risk(
            f"{ID}:unknown-build",
            f"numpy {env.libraries['numpy']} cannot import a compiled package built against NumPy 1.x; "
            "which NumPy a package's binary was built against is not in its metadata",
            "upgrade the package NumPy names to a release built against NumPy 2, or pin numpy<2",
            SOURCE,
            OWN_MESSAGES,
        )
    ]


# torch's first release built against NumPy 2 (the bundled rule numpy2-torch-built-against-numpy1, pytorch#107302)
TORCH_FIRST_NUMPY2 = Version("2.3.0")


def _numpy2_build(env: Environment, name: str) -> bool:
    """Whether the stack's ``name`` is a release known to be built against NumPy 2."""
    listed = env.torch if name == "torch" else env.libraries.get(name)
    version = optional_version(listed)
    if version is None:
        return False
    first = TORCH_FIRST_NUMPY2 if name == "torch" else (Version(BY_DIST[name].first) if name in BY_DIST else None)
    return first is not None and Version(version.base_version) >= first


def _finding(dist: str, listed: str, row: FirstNumpy2, numpy: str) -> Finding:
    return Finding(
        check=ID,
        reason=f"{dist} {listed} is built against NumPy 1.x and cannot be imported beside numpy {numpy} "
        f"(its first release built against NumPy 2 is {row.first})",
        fix=f"upgrade {dist} to >={row.first}, or pin numpy<2",
        link=row.source,
        uses=(dist,),
    )


def _declares_against(env: Environment, names: tuple[str, ...], listed: str, numpy: Version) -> bool:
    """Whether the package's ``Requires-Dist`` on numpy (without a marker, or one that holds for the stack's
    Python) excludes this numpy:
    the installed metadata, else the release's declared one where ``requirement-not-met`` reads it.
    """
    if not _judged_by_requirements(env, names):
        return False  # requirement-not-met will not report it: this check must
    recorded = next((env.requires[n] for n in names if n in env.requires), None)
    if recorded is None:
        recorded = tuple(t for t, _ in declared_requires_all(names[-1], listed))
    for text in recorded:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if (
            (req.marker is None or marker_holds(req.marker, env.python or None))
            and normalize_library(req.name) == "numpy"
            and not specifier_contains(req.specifier, numpy)
        ):
            return True
    return False


def _judged_by_requirements(env: Environment, names: tuple[str, ...]) -> bool:
    """Whether ``requirement-not-met`` judges this package's requirement on numpy: always, except in a
    ``--rocm-set`` replay that did not name both (the others are the machine's, and so are their pins).
    """
    replaced = replay_names(env)
    return not replaced or ("numpy" in replaced and any(n in replaced for n in names))

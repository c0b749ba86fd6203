"""``cuda-newer-than-driver``: the torch build's CUDA is newer than the driver supports.

CUDA minor version compatibility lets a build of any 11.x/12.x/13.x toolkit run on a driver
of the same major (with limits on PTX JIT of newer features), so only a newer *major* is a
certain problem here: no false problem for a 12.8 build on a 12.4 driver. A newer *minor* is a
risk (uncertain): code JIT-compiled from PTX of the newer toolkit (Triton's kernels, an
extension shipping PTX only) is refused by the older driver, and only those refusals confirm it
(MINOR_SOURCE: "applications that require PTX JIT compilation ... will fail"). The driver's CUDA
is the stated ``driver_cuda`` or the one its version implies (:mod:`..nvidia_driver_cuda`).

A stated CUDA stack that names no driver at all does not say whether it is new enough: a risk
(:func:`unstated`) confirmed only by the runtime's own refusals, which state the mismatch
themselves ("The NVIDIA driver on your system is too old", "CUDA driver version is insufficient
for CUDA runtime version"); never counted against the stack.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.finding import Finding, own_message_risk
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import stated_keys
from pytest_rocmcompat.stack.versions import coerce_version

ID = "cuda-newer-than-driver"
SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/#minor-version-compatibility"
MINOR_SOURCE = (
    "https://docs.nvidia.com/deploy/cuda-compatibility/#application-considerations-for-minor-version-compatibility"
)
# What torch and the CUDA runtime print when the driver is older than the build's CUDA (a
# warning at CUDA initialisation, captured with the test's output, or the error itself). Seventh
# round: the driver's PTX JIT refusing PTX from a newer toolkit (cudaErrorUnsupportedPtxVersion,
# "the provided PTX was compiled with an unsupported toolchain": CUDA runtime API error text).
PREDICTS = (
    r"The NVIDIA driver on your system is too old|CUDA driver version is insufficient for CUDA runtime version"
    r"|cudaErrorInsufficientDriver|forward compatibility was attempted on non supported HW"
    r"|the provided PTX was compiled with an unsupported toolchain|cudaErrorUnsupportedPtxVersion"
    r"|CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
)


def check(env: Environment) -> list[Finding]:
    build, driver = env.torch_cuda, coerce_version(env.driver_cuda)
    if env.platform != "cuda" or build is None or driver is None or build.major < driver.major:
        return []
    if build.major == driver.major:
        return _newer_minor(env) if build.minor > driver.minor else []
    return [
        Finding(
            check=ID,
            reason=f"torch {env.torch} is built for CUDA {build}, the driver supports CUDA {driver_text(env)} at most",
            fix=f"update the NVIDIA driver to one supporting CUDA {build.major}.x, or install a +cu{driver.major}x torch build",
            link=SOURCE,
            everything=True,
        )
    ]


def driver_text(env: Environment) -> str:
    return f"{env.driver_cuda} (driver {env.driver})" if env.driver else str(env.driver_cuda)


def _newer_minor(env: Environment) -> list[Finding]:
    return [
        Finding(
            check=f"{ID}:minor",
            reason=f"torch {env.torch} is built for CUDA {env.torch_cuda}, the driver supports CUDA "
            f"{driver_text(env)}: minor version compatibility runs the build, but the driver refuses PTX of "
            "the newer toolkit (Triton's kernels, extensions that ship PTX)",
            fix=f"update the NVIDIA driver to one supporting CUDA {env.torch_cuda}, or install a torch built for "
            f"CUDA {env.driver_cuda}",
            link=MINOR_SOURCE,
            everything=True,
            uncertain=True,
            predicts=PREDICTS,
        )
    ]


def unstated(env: Environment) -> list[Finding]:
    """The risk of a stated CUDA stack that names no driver (see the module doc)."""
    if env.platform != "cuda" or env.driver or env.driver_cuda or "driver" in stated_keys(env):
        return []
    if (env.torch_local or "").startswith(("rocm", "cpu")):
        return []
    built = f"torch {env.torch}" if env.torch else "the stack's CUDA build"
    return [
        own_message_risk(
            f"{ID}:unstated",
            f"the stack does not name the NVIDIA driver; {built} needs one supporting "
            f"CUDA {env.torch_cuda or env.cuda or 'of its build'}",
            "state the driver (nvidia-smi's 'Driver Version') to settle it",
            SOURCE,
            PREDICTS,
        )
    ]

"""``cuda-newer-than-driver``: the torch build's CUDA is newer than the driver supports.

CUDA minor version compatibility lets a build of any 11.x/12.x/13.x toolkit run on a driver
of the same major (with limits on PTX JIT of newer features), so only a newer *major* is a
problem here: conservative, no false problem for a 12.8 build on a 12.4 driver.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "cuda-newer-than-driver"
SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/#minor-version-compatibility"
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
    if env.platform != "cuda" or build is None or driver is None or build.major <= driver.major:
        return []
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

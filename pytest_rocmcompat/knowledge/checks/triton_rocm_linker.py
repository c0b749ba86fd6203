"""``triton-rocm-linker-missing``: PyPI's Triton on ROCm, which links its kernels with an ld.lld it does not carry.

Triton's AMD backend from 3.0 to 3.4 (``triton/backends/amd/compiler.py``, ``HIPBackend.path_to_rocm_lld``,
read in PyPI's 3.0.0, 3.3.1 and 3.4.0 wheels) links every kernel's code object by running ``ld.lld``: the one
``TRITON_HIP_LLD_PATH`` names, else one beside the backend (``llvm/bin/ld.lld``, "used for pytorch wheels":
PyTorch's ROCm Triton wheels package it there, triton-lang/triton#3662; PyPI's wheels do not), else
``/opt/rocm/llvm/bin/ld.lld``, else ``/usr/bin/ld.lld``; without any it raises "ROCm linker
/opt/rocm/llvm/bin/ld.lld not found" (3.3 and 3.4 add "Set 'TRITON_HIP_LLD_PATH' to its path."; 3.3 and 3.4 also
run it for the cache key, ``HIPBackend.hash``). From 3.5.0 it links in process (``amd.link_hsaco``), needing no
linker.

So the distribution ``triton`` 3.0-3.4 on a ROCm stack that states no system ROCm (its ROCm came in Python
wheels: a ``+rocm`` torch, TheRock's ``rocm-sdk-*`` packages) fails the first Triton kernel it compiles, in
torch.compile and in a library's own Triton kernels. A risk (``uncertain``): the machine may have a
distribution's ``/usr/bin/ld.lld``, a ``/opt/rocm`` the stack did not state, or the variable set; and where
PyTorch's ROCm Triton is installed too, whichever was installed last owns the ``triton`` module. Only the
linker's own text confirms it (``signature_only``). ``pytorch-triton-rocm`` itself is not judged: PyTorch's
wheels carry the linker, but TheRock's builds of it met the same failure on hosts without ``/opt/rocm``
(ROCm/TheRock#2006, backported fix ROCm/triton#950), and the two carry the same name and version.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.dynamo_gate import COMPILE_TESTS, COMPILE_USES
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.requirements import rocm_build
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "triton-rocm-linker-missing"
SOURCE = "https://github.com/triton-lang/triton/blob/v3.4.0/third_party/amd/backend/compiler.py"
SOURCE_IN_PROCESS = "https://github.com/triton-lang/triton/blob/v3.5.0/third_party/amd/backend/compiler.py"
EXTERNAL_LINKER = (Version("3.0"), Version("3.5"))  # the releases that run ld.lld (PyPI wheels read)
LINKER_VARIABLE = "TRITON_HIP_LLD_PATH"
# HIPBackend.path_to_rocm_lld's exception, 3.0 to 3.4 (the quoted reports: tests/knowledge/test_triton_rocm_linker.py)
PREDICTS = r"ROCm linker /opt/rocm/llvm/bin/ld\.lld not found"


def check(env: Environment) -> list[Finding]:
    if not rocm_build(env):
        return []
    version = coerce_version(env.libraries.get("triton"))
    if version is None or not EXTERNAL_LINKER[0] <= Version(version.base_version) < EXTERNAL_LINKER[1]:
        return []
    if env.rocm or env.env.get(LINKER_VARIABLE):
        return []  # a system ROCm holds /opt/rocm/llvm/bin/ld.lld; the variable names one
    return [
        Finding(
            check=ID,
            reason=f"triton {env.libraries['triton']} (PyPI's distribution) links each kernel with an external "
            "ld.lld, which its wheels do not carry, looked for at /opt/rocm/llvm/bin and /usr/bin, and the stack "
            "states no system ROCm",
            fix=f"install triton >=3.5 (it links in process), use the ROCm Triton the torch wheel pins, or set "
            f"{LINKER_VARIABLE} to an ld.lld (a ROCm SDK's llvm/bin/ld.lld)",
            link=SOURCE,
            uses=(*COMPILE_USES, "triton"),
            nodeids=COMPILE_TESTS,
            predicts=PREDICTS,
            signature_only=True,
            uncertain=True,
        )
    ]

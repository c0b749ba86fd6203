"""``nccl-not-on-this-os``: torch on Windows or macOS has no NCCL (nor RCCL) backend.

PyTorch builds NCCL into ``torch.distributed`` on Linux only ("By default for Linux, the Gloo and NCCL
backends are built and included in PyTorch distributed (NCCL only when building with CUDA)"; "As of
PyTorch v1.8, Windows supports all collective communications backend but NCCL": the distributed docs).
So on Windows, whatever the GPU and however torch was installed (a ``+cu121`` wheel included), asking for
the ``nccl`` backend fails; WSL 2 is Linux and has it. A stack that names no torch release is judged
all the same (no torch build for these systems has NCCL). Only code that asks for NCCL meets it: a
*conditional* finding reaching every test (DDP, Lightning, accelerate, torchrun launch it under any test
name) as a risk (no test says whether it asks for NCCL), claiming only torch's own texts for the missing
backend: a passing test stays a pass and no other failure is blamed on it.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

ID = "nccl-not-on-this-os"
SOURCE = "https://pytorch.org/docs/stable/distributed"
# torch/distributed/distributed_c10d.py: the process group's refusal and the warning before it (from 2.0)
PREDICTS = (
    r"Distributed package doesn't have NCCL built in"
    r"|Attempted to get default timeout for nccl backend, but NCCL support is not compiled"
)
_NAMES = {"Windows": "Windows", "Darwin": "macOS"}


def check(env: Environment) -> list[Finding]:
    system = _NAMES.get(env.system)
    if system is None:
        return []
    torch = f"torch {env.torch}" if env.torch else "torch (any build)"
    return [
        Finding(
            check=ID,
            reason=f"{torch} on {system} has no NCCL backend (PyTorch builds NCCL into "
            "torch.distributed on Linux only)",
            fix="use the gloo backend there (init_process_group('gloo'); Lightning and accelerate take "
            "PL_TORCH_DISTRIBUTED_BACKEND=gloo), or run NCCL work under Linux (WSL 2 on Windows)",
            link=SOURCE,
            everything=True,  # DDP, Lightning, accelerate or torchrun under any test
            conditional=True,  # only code asking for the nccl backend meets it
            # and no test says whether it does: a risk, so a passing test stays a pass (no stale rule) and
            # another failure is not blamed on it; only torch's own texts confirm it
            uncertain=True,
        )
    ]

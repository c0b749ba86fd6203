"""``rocm-visible-devices``: ROCm's two visibility filters, set so that they leave no such device.

On ROCm, ``ROCR_VISIBLE_DEVICES`` filters the GPUs first (the ROCm runtime, every application)
and ``HIP_VISIBLE_DEVICES`` (else ``CUDA_VISIBLE_DEVICES``) then select among the ones it left (HIP),
counting from 0 within them (ROCm *GPU isolation techniques*; torch's ``_parse_visible_devices``:
"The ROCR env var is processed first which then reduces the number of GPUs that HIP can select
from"). Both set is fine when the HIP list fits; it is a problem when it lists more entries than
ROCR exposes (torch raises "HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES")
or names an index past them (``ROCR_VISIBLE_DEVICES=2`` with ``HIP_VISIBLE_DEVICES=2``: the one
GPU ROCR left is HIP's 0, index 2 is no device). Read from the probed (or recorded, or
``--rocm-set env.NAME=...``) environment; UUIDs are compared by count only.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

ID = "rocm-visible-devices"
ROCR = "ROCR_VISIBLE_DEVICES"
HIP_VARS = ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
SOURCE = "https://rocm.docs.amd.com/en/docs-6.1.2/conceptual/gpu-isolation.html"
# torch's own check and comment (torch/cuda/__init__.py, _parse_visible_devices)
SOURCE_TORCH = "https://github.com/pytorch/pytorch/blob/17e3b6a97af175f377f42b52cf20d4c758a432a9/torch/cuda/__init__.py"
# torch's refusal (SOURCE_TORCH), torch's "No CUDA GPUs are available" hipified, and HIP's
# (ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp) no-device and bad-ordinal errors.
PREDICTS = (
    r"HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES"
    r"|No HIP GPUs are available|no ROCm-capable device is detected|hipErrorNoDevice"
    r"|invalid device ordinal|hipErrorInvalidDevice\b"
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    rocr = _entries(env.env.get(ROCR))
    if not rocr:
        return []
    # HIP_VISIBLE_DEVICES wins where both are set (torch's parse; the runtime reads either)
    name = next((n for n in HIP_VARS if _entries(env.env.get(n))), None)
    problem = _problem(name, _entries(env.env.get(name)), len(rocr)) if name else None
    if problem is None:
        return []
    return [
        Finding(
            check=ID,
            reason=problem,
            fix=f"set only {ROCR} (AMD's recommendation on Linux), or give HIP_VISIBLE_DEVICES indices "
            f"counted within the devices {ROCR} exposes (0..n-1)",
            link=SOURCE_TORCH if " lists " in problem else SOURCE,
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    ]


def _problem(name: str, ids: list[str], exposed: int) -> str | None:
    """Why ``name``'s list selects no such device among the ``exposed`` ones ROCR left, or ``None``."""
    if not ids:
        return None
    if len(ids) > exposed:
        return f"{name} lists {len(ids)} devices but {ROCR} exposes only {exposed}"
    beyond = [i for i in ids if i.isdigit() and int(i) >= exposed]
    if beyond:
        return (
            f"{name}={','.join(ids)} names index {', '.join(beyond)}, but HIP counts within the {exposed} "
            f"device(s) {ROCR} exposes (0..{exposed - 1})"
        )
    return None


def _entries(value: str | None) -> list[str]:
    """The comma-separated entries of a visibility variable (``[]``: unset or empty)."""
    if value is None or not value.strip():
        return []
    return [part.strip() for part in value.split(",")]

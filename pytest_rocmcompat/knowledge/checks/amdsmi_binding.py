"""``amdsmi-binding-mismatch``: PyPI's ``amdsmi`` wrapper of another ROCm release than the system ROCm it loads.

What the package contains (:mod:`..amdsmi_bindings`, generated from every release's wheel): ``amdsmi_wrapper.py``
binds each libamd_smi function at import, and it loads the system ROCm's ``libamd_smi.so`` (``ROCM_PATH``,
``/opt/rocm/lib``). Where the wrapper release the stack lists (``lib.amdsmi``, PyPI's version: the ROCm release it
wraps) binds a function the stated ROCm release's library does not export, ``import amdsmi`` fails with ctypes'
``undefined symbol``: a newer wrapper on an older ROCm (7.0's ``amdsmi_get_cpu_affinity_with_scope`` on 6.4; 6.4.1's
``amdsmi_get_gpu_busy_percent`` on 6.4.0), and an older one on a ROCm that removed a function (6.2's
``amdsmi_reset_gpu_compute_partition``, gone in 6.3). The library a ROCm release exports is taken to be what that
release's own wrapper binds; a series stated without its patch is judged only where every patch release read lacks
the function. AMD's fix is the wrapper ROCm ships (``/opt/rocm/share/amd_smi``, DOC_SOURCE).

torch imports ``amdsmi`` in ``torch.cuda`` on a ROCm build from 2.3 (pytorch/pytorch#119182) and lets that error
through, so with a ``+rocm`` torch of 2.3 or later ``import torch`` itself fails: every test; otherwise the tests
that use amdsmi. A ROCm release whose wrapper PyPI does not hold (7.1 and later, before 5.5), or a wrapper version
that is no PyPI release (the one ROCm ships numbers itself 24.x-26.x), is not judged.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge import amdsmi_bindings
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

ID = "amdsmi-binding-mismatch"
SOURCE = "https://pypi.org/project/amdsmi/#history"
DOC_SOURCE = "https://github.com/ROCm/TheRock/issues/7890"
TORCH_IMPORT_SOURCE = "https://github.com/pytorch/pytorch/pull/119182"
TORCH_IMPORTS_FROM = Version("2.3")
# ctypes' refusal of a function the library does not export, as the wrapper's import raises it, and the amd-smi
# CLI of a newer ROCm calling a function the older wrapper lacks (AttributeError on amdsmi_interface)
PREDICTS = (
    r"libamd_smi\.so[.\d]*: undefined symbol: amdsmi_\w+"
    r"|module 'amdsmi\.amdsmi_interface' has no attribute 'amdsmi_\w+'"
)
_SHOWN = 3  # functions named in the reason


def check(env: Environment) -> list[Finding]:
    wrapper = env.libraries.get("amdsmi")
    if not wrapper or not env.rocm:
        return []
    bound = amdsmi_bindings.bound_by(wrapper)
    exported = amdsmi_bindings.exported_by_rocm(env.rocm)
    if bound is None or not exported:
        return []
    missing = sorted(bound - frozenset().union(*exported))  # lacking in every release the stated ROCm may be
    if not missing:
        return []
    shown = ", ".join(missing[:_SHOWN]) + (f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else "")
    every = _torch_imports_it(env)
    return [
        Finding(
            check=ID,
            reason=f"PyPI's amdsmi {wrapper} binds {shown}, which ROCm {env.rocm}'s libamd_smi.so does not export: "
            "import amdsmi fails" + (f" and so does import torch (torch {env.torch} imports amdsmi)" if every else ""),
            fix=f"install the wrapper of the ROCm in use: pip install amdsmi=={env.rocm} (where PyPI has it), or "
            "pip uninstall amdsmi && pip install /opt/rocm/share/amd_smi",
            link=SOURCE,
            everything=every,
            uses=() if every else ("amdsmi",),
        )
    ]


def _torch_imports_it(env: Environment) -> bool:
    """Whether the stack's torch imports amdsmi on import: a ROCm build from 2.3 on."""
    version = env.torch_version
    return env.torch_rocm is not None and version is not None and Version(version.base_version) >= TORCH_IMPORTS_FROM

"""Run-time rows of libraries whose own Triton kernels import Triton APIs a newer Triton removed.

torch's ``triton`` pin binds only Inductor (``requirements.COMPILE_USES``); a library that ships its own
Triton kernels imports ``triton`` / ``triton.language`` itself and breaks when the installed Triton no
longer has a name it uses (or does not have it yet). Each row names the library release range, the
Triton bound, the source at a tag, and the failure text (merged into
:data:`requirement_tables.RUNTIME_MINIMUMS`).

- ``triton.ops`` (``matmul``, ``matmul_perf_model``, ...) is in the triton 2.3.1, 3.0.0 and 3.1.0
  wheels and gone from 3.2.0 (read in the PyPI wheels; removed on main by
  https://github.com/triton-lang/triton/pull/3963, "remove `triton.ops` submodule", moved to
  triton-lang/kernels). In triton 3.2.0, ``from triton.ops.matmul_perf_model import ...`` raises
  "ModuleNotFoundError: No module named 'triton.ops'" (run here against the 3.2.0 wheel).
  bitsandbytes 0.38.1 to 0.45.0 import ``triton.ops.matmul_perf_model`` in ``bitsandbytes/triton/*.py``
  whenever ``importlib.util.find_spec("triton")`` finds Triton (``triton/triton_utils.py``), and
  ``import bitsandbytes`` reaches them (``__init__.py``: ``from .nn import modules``;
  ``nn/__init__.py``: ``from .triton_based_modules import ...``), so ``import bitsandbytes`` fails
  beside triton >= 3.2.0 (read in the 0.38.0, 0.38.1, 0.39.0, 0.41.0, 0.42.0, 0.43.1-0.43.3, 0.44.0,
  0.44.1, 0.45.0 and 0.45.1 wheels; 0.38.0 has no ``bitsandbytes/triton``). 0.45.1 carries its own
  copy, ``bitsandbytes/triton/matmul_perf_model.py``
  (https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1413). bitsandbytes declares no
  ``triton`` requirement in any of these (``torch`` only).
- ``triton.language.extra.libdevice`` is first in triton 3.0.0 (absent in the 2.3.1 wheel, where
  ``tl.math.tanh`` still exists; present in 3.0.0's). liger-kernel 0.5.10's ``ops/dyt.py`` imports
  ``tanh`` from it at module level, before its own ``triton >= 3.0.0`` branch, while declaring
  ``triton>=2.3.1``; ``from liger_kernel.transformers import ...`` reaches it
  (``transformers/__init__.py`` imports ``LigerDyT`` eagerly), so liger-kernel's main API fails on
  triton 2.3.x with "No module named 'triton.language.extra.libdevice'" (run here against the 2.3.1
  wheel). Read in the 0.5.6 to 0.6.0 wheels: 0.5.9 does not import it unconditionally, 0.6.0 no
  longer does (https://github.com/linkedin/Liger-Kernel/pull/762, "fix: import tanh").
- ``tl.math.log1p`` (a libdevice function) is in the triton 2.3.1 wheel and gone from ``triton.language.math``
  in 3.0.0 (still absent in 3.2.0; read in the wheels; "removed in #3172" says
  https://github.com/triton-lang/triton/issues/4918, pointing to ``extra.libdevice``). mamba-ssm 2.0.0 to 2.0.4 call it inside ``_chunk_cumsum_fwd_kernel``
  (https://github.com/state-spaces/mamba/blob/v2.0.4/mamba_ssm/ops/triton/ssd_chunk_state.py#L69), the first
  kernel of Mamba2's forward (``modules/mamba2.py`` -> ``mamba_chunk_scan_combined``), and in
  ``selective_state_update`` (decoding); triton >= 3.0 raises "AttributeError: module 'triton.language.math'
  has no attribute 'log1p'" when the kernel is first launched (Triton's JIT resolves every attribute of the
  kernel body while keying it; run here against the 3.0.0 and 3.2.0 wheels with that kernel's softplus line,
  and 2.3.1 accepts it). mamba-ssm declares ``triton`` unbounded (setup.py). 2.1.0 branches on the Triton
  version (``ops/triton/softplus.py``, https://github.com/state-spaces/mamba/pull/377, commit c2568f5).
  1.1.4 to 1.2.2 use it only in ``selective_state_update`` (the decoding step; Mamba1's forward is CUDA):
  not tabled, not the main path.

Not tabled: liger-kernel 0.1.x's geglu import (guarded by a triton version test); unsloth's ``tl.math.tanh``
(triton-lang/triton#4938; its releases not read); xformers', fbgemm's and galore-torch's Triton kernels (not read).
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.runtime_row import RuntimeRow

_NO_TRITON_OPS = r"No module named 'triton\.ops'"
_NO_EXTRA_LIBDEVICE = r"No module named 'triton\.language\.extra\.libdevice'"
_NO_MATH_LOG1P = r"'triton\.language\.math' has no attribute 'log1p'"

TRITON_API_ROWS: dict[str, tuple[RuntimeRow, ...]] = {
    "bitsandbytes": (
        RuntimeRow(
            "0.38.1",
            "triton<3.2.0",
            "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1413",
            "0.45.1",
            _NO_TRITON_OPS,
        ),
    ),
    "liger-kernel": (
        RuntimeRow(
            "0.5.10",
            "triton>=3.0.0",
            "https://github.com/linkedin/Liger-Kernel/pull/762",
            "0.6.0",
            _NO_EXTRA_LIBDEVICE,
        ),
    ),
    "mamba-ssm": (
        RuntimeRow(
            "2.0.0",
            "triton<3.0.0",
            "https://github.com/state-spaces/mamba/pull/377",
            "2.1.0",
            _NO_MATH_LOG1P,
        ),
    ),
}

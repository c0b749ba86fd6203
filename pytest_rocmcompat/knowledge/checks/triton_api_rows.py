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

Not tabled (see the report of the helper that wrote this): liger-kernel 0.1.x's geglu import (guarded by a
triton version test), unsloth's ``tl.math.tanh`` (a model-specific kernel, failing when it is compiled),
xformers' and fbgemm's Triton kernels (not read).
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks.runtime_row import RuntimeRow

_NO_TRITON_OPS = r"No module named 'triton\.ops'"
_NO_EXTRA_LIBDEVICE = r"No module named 'triton\.language\.extra\.libdevice'"

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
}

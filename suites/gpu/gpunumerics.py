"""Numerical checks of the GPU suite: ops in low precision against a float64 reference.

Each check draws random inputs, rounds them to the dtype under test, computes the
reference in float64 *from the rounded inputs* (so the error measures the device's
arithmetic, not the input rounding), poisons the output with NaN, runs the op into
that output and reports the relative Frobenius error ``||out - ref|| / ||ref||``.
A NaN left in the output (the op did not write it) makes the error NaN: a failure.

Tolerances are a few units of roundoff of the dtype (u = 2^-24 fp32, 2^-11 fp16 and
tf32 inputs, 2^-9 bf16) with room for fp32 accumulation over K = 1024; docs/peaks.md
and the suite's docstrings list them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

OPS: tuple[str, ...] = ("elementwise", "reduction", "matmul")
DTYPES: tuple[str, ...] = ("fp32", "tf32", "fp16", "bf16")

# dtype -> op -> largest accepted relative Frobenius error
TOLERANCES: dict[str, dict[str, float]] = {
    "fp32": {"elementwise": 1e-6, "reduction": 1e-5, "matmul": 1e-5},
    "tf32": {"matmul": 5e-3},  # tf32 only changes matmul/conv: inputs rounded to 10 mantissa bits
    "fp16": {"elementwise": 3e-3, "reduction": 3e-3, "matmul": 5e-3},
    "bf16": {"elementwise": 1.6e-2, "reduction": 1.6e-2, "matmul": 2e-2},
    "fp8": {"matmul": 2e-2},  # reference from the fp8-rounded inputs; bf16 output
}
SIZE = 1024


@dataclass(frozen=True)
class NumericsResult:
    op: str
    dtype: str
    error: float
    tolerance: float
    nonfinite: int  # output elements still NaN/inf after the op

    @property
    def ok(self) -> bool:
        return self.nonfinite == 0 and math.isfinite(self.error) and self.error <= self.tolerance

    def describe(self) -> str:
        text = f"{self.op} {self.dtype}: relative Frobenius error {self.error:.3e} (tolerance {self.tolerance:.1e})"
        if self.nonfinite:
            text += f", {self.nonfinite} output element(s) not finite (poisoned output not overwritten?)"
        return text


def torch_dtype(torch: Any, name: str):
    """Storage dtype of a dtype name (tf32 is fp32 storage with tf32 matmul)."""
    return {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]


def rel_frobenius(torch: Any, result, reference) -> float:
    """``||result - reference||_F / ||reference||_F`` computed in float64 on the CPU."""
    r = result.detach().to("cpu", torch.float64)
    ref = reference.detach().to("cpu", torch.float64)
    denom = torch.linalg.norm(ref).item()
    return torch.linalg.norm(r - ref).item() / denom if denom else float("inf")


def applicable(op: str, dtype: str) -> bool:
    return op in TOLERANCES.get(dtype, {})


def check_op(torch: Any, device: Any, op: str, dtype: str, seed: int = 0, size: int = SIZE) -> NumericsResult:
    """Run ``op`` in ``dtype`` on ``device`` into a NaN-poisoned output; compare with float64."""
    if not applicable(op, dtype):
        raise ValueError(f"check_op: no tolerance for {op} in {dtype} (see TOLERANCES)")
    tdt = torch_dtype(torch, dtype)
    gen = torch.Generator().manual_seed(seed)
    x64 = torch.randn(size, size, generator=gen, dtype=torch.float64).to(tdt).double()
    y64 = torch.randn(size, size, generator=gen, dtype=torch.float64).to(tdt).double()
    x, y = x64.to(device, tdt), y64.to(device, tdt)
    matmul = torch.backends.cuda.matmul
    saved_tf32 = matmul.allow_tf32
    try:
        matmul.allow_tf32 = dtype == "tf32"
        if op == "elementwise":
            out = torch.full((size, size), float("nan"), dtype=tdt, device=device)
            torch.mul(torch.tanh(x), y, out=out)
            reference = torch.tanh(x64) * y64
        elif op == "reduction":
            out = torch.full((size,), float("nan"), dtype=tdt, device=device)
            torch.sum(x, dim=1, out=out)
            reference = x64.sum(dim=1)
        else:
            out = torch.full((size, size), float("nan"), dtype=tdt, device=device)
            torch.matmul(x, y, out=out)
            reference = x64 @ y64
        if getattr(device, "type", str(device)) == "cuda":
            torch.cuda.synchronize(device)
    finally:
        matmul.allow_tf32 = saved_tf32
    nonfinite = int((~torch.isfinite(out)).sum().item())
    return NumericsResult(op, dtype, rel_frobenius(torch, out, reference), TOLERANCES[dtype][op], nonfinite)


# ---- data-type support per architecture ---------------------------------------------


def fp8_expected(arch: str) -> bool:
    """Whether the hardware has fp8 matrix units: gfx942/gfx950, NVIDIA sm_89 and later."""
    if arch in ("gfx942", "gfx950"):
        return True
    if arch.startswith("sm_"):
        digits = "".join(c for c in arch[3:] if c.isdigit())
        return bool(digits) and int(digits) >= 89
    return False


def fp8_dtype(torch: Any, arch: str, runtime: str):
    """The e4m3 flavour the device uses: ``float8_e4m3fnuz`` on gfx942 (MI300), else ``float8_e4m3fn``."""
    if runtime == "hip" and arch == "gfx942":
        return torch.float8_e4m3fnuz
    return torch.float8_e4m3fn


def check_fp8_matmul(
    torch: Any, device: Any, arch: str, runtime: str, size: int = 256, seed: int = 0
) -> NumericsResult:
    """``torch._scaled_mm`` on fp8 inputs (unit scales, bf16 output) against float64."""
    f8 = fp8_dtype(torch, arch, runtime)
    gen = torch.Generator().manual_seed(seed)
    a8 = (torch.randn(size, size, generator=gen) * 0.5).to(f8)
    b8 = (torch.randn(size, size, generator=gen) * 0.5).to(f8)
    reference = a8.double() @ b8.double()
    one = torch.ones((), dtype=torch.float32, device=device)
    a_dev = a8.to(device)
    b_dev = b8.to(device).t().contiguous().t()  # column-major second operand, as _scaled_mm requires
    out = torch._scaled_mm(a_dev, b_dev, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    if isinstance(out, tuple):  # torch < 2.5 returned (out, amax)
        out = out[0]
    nonfinite = int((~torch.isfinite(out)).sum().item())
    return NumericsResult(
        "matmul",
        f"fp8 ({str(f8).replace('torch.', '')})",
        rel_frobenius(torch, out, reference),
        TOLERANCES["fp8"]["matmul"],
        nonfinite,
    )


def probe_dtype(torch: Any, device: Any, dtype: str) -> str:
    """``"ok"`` when a small matmul in ``dtype`` runs and is accurate, else the reason."""
    try:
        x = torch.randn(64, 64, device=device).to(torch_dtype(torch, dtype))
        result = (x @ x).float()
        reference = x.double() @ x.double()
        err = rel_frobenius(torch, result, reference)
    except Exception as exc:  # the point is to report what the build/hardware does
        return f"unsupported: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
    tol = TOLERANCES[dtype]["matmul"]
    return "ok" if err <= tol else f"inaccurate: relative error {err:.2e} > {tol:.0e}"

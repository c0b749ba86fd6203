"""Which cases a launch runs: operation, variant, dtype, size. Pure (no torch).

A case's ``nbytes`` is the nccl-tests size (see :mod:`.bandwidth`); the element
count is derived per operation and rounded so that every rank gets an equal share.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

KiB, MiB = 1 << 10, 1 << 20
DTYPES = ("float32", "bfloat16", "float16", "int32")
ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4}
# (test name, operation, variant): one pytest test each.
CHECKS: tuple[tuple[str, str, str], ...] = (
    ("all_reduce_sum", "all_reduce", "sum"),
    ("all_reduce_max", "all_reduce", "max"),
    ("all_reduce_avg", "all_reduce", "avg"),
    ("all_gather_list", "all_gather", "list"),
    ("all_gather_tensor", "all_gather", "tensor"),
    ("reduce_scatter_tensor", "reduce_scatter", "sum"),
    ("broadcast", "broadcast", ""),
    ("all_to_all_single", "all_to_all", ""),
    ("sendrecv_ring", "sendrecv", "ring"),
    ("barrier", "barrier", ""),
)
# Operations swept for bandwidth, with the variant that is timed.
TIMED: tuple[tuple[str, str], ...] = (
    ("all_reduce", "sum"),
    ("all_gather", "tensor"),
    ("reduce_scatter", "sum"),
    ("broadcast", ""),
    ("all_to_all", ""),
    ("sendrecv", "ring"),
)
TIMED_DTYPE = "float32"  # as nccl-tests' default
GPU_CHECK_SIZES = (1, 4099, MiB, 16 * MiB)  # 1 and 4099 are element counts, the rest bytes
CPU_CHECK_SIZES = (1, 4099, 256 * KiB)
GPU_SWEEP = (4 * KiB, 32 * KiB, 256 * KiB, MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB)
CPU_SWEEP = (4 * KiB, 32 * KiB, 256 * KiB, MiB)


@dataclass(frozen=True)
class Case:
    name: str  # test name from CHECKS, e.g. "all_reduce_sum"
    op: str
    variant: str
    dtype: str
    nbytes: int  # nccl-tests size
    timed: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} {self.dtype} {self.nbytes} B" + (" (timed)" if self.timed else "")

    def to_dict(self) -> dict:
        return asdict(self)


def elements(op: str, nbytes: int, itemsize: int, world: int) -> int:
    """Elements of the case's largest buffer: at least one per rank, a multiple of the world
    size for operations that split it into per-rank chunks.
    """
    count = max(1, nbytes // itemsize)
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        count = max(world, count - count % world)
    return count


def check_sizes_bytes(sizes: tuple[int, ...], dtype: str) -> list[int]:
    """Check sizes below 4 KiB are element counts (1 element, 4099 elements)."""
    return [s * ITEMSIZE[dtype] if s < 4 * KiB else s for s in sizes]


def build(gpu: bool, max_bytes: int | None = None) -> list[Case]:
    """Every case of one launch: correctness over all dtypes, then the bandwidth sweep.

    ``max_bytes`` caps the sweep and check sizes (default: 256 MiB on GPU, 1 MiB on CPU).
    """
    sweep = GPU_SWEEP if gpu else CPU_SWEEP
    checks = GPU_CHECK_SIZES if gpu else CPU_CHECK_SIZES
    cap = max_bytes if max_bytes is not None else sweep[-1]
    cases = []
    for name, op, variant in CHECKS:
        for dtype in DTYPES if op != "barrier" else ("float32",):
            sizes = check_sizes_bytes(checks, dtype) if op != "barrier" else [4]
            cases += [Case(name, op, variant, dtype, n) for n in sizes if n <= cap]
    names = {(op, variant): name for name, op, variant in CHECKS}
    for op, variant in TIMED:
        cases += [Case(names[op, variant], op, variant, TIMED_DTYPE, n, timed=True) for n in sweep if n <= cap]
    return cases

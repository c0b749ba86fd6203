"""Cross-check the GPU suite's figures with plain timing loops, independent of the harness.

Times ``torch.matmul`` (bf16, n^3) and ``dst.copy_(src)`` (1 GiB, read + write counted)
with nothing but ``torch.cuda.synchronize`` and ``time.perf_counter`` around a loop, and
prints/writes JSON. Run it in the same session as the suite and compare with the
``rocm_metric.gemm_bf16_tflops`` / ``rocm_metric.copy_d2d_gbps`` JUnit properties:

    python bench/gpu_crosscheck.py results/crosscheck.json [--junit results/gpu.xml]

With ``--junit`` it also reads the suite's figures from that JUnit file and reports
the ratio harness / plain for each (the harness must not under-measure: >= 0.95).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import xml.etree.ElementTree as ET


def plain_matmul_tflops(torch, n: int, iters: int) -> float:
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        c = a @ b
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        c = a @ b
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - t0) / iters
    del c
    return 2 * n**3 / seconds / 1e12


def plain_copy_gbps(torch, nbytes: int, iters: int) -> float:
    src = torch.randn(nbytes // 4, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        dst.copy_(src)
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - t0) / iters
    return 2 * (nbytes // 4) * 4 / seconds / 1e9


def junit_figures(path: str) -> dict[str, float]:
    """``rocm_metric.*`` values from a JUnit file (stdlib XML: runs where junitparser is absent)."""
    found = {}
    for prop in ET.parse(path).iter("property"):
        name = prop.get("name", "")
        if name.startswith("rocm_metric."):
            try:
                found[name[len("rocm_metric.") :]] = float(json.loads(prop.get("value", "{}"))["value"])
            except (ValueError, KeyError, TypeError):
                continue
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="JSON file to write")
    parser.add_argument("--n", type=int, default=8192, help="GEMM size (default 8192)")
    parser.add_argument("--copy-mib", type=int, default=1024, help="copy size in MiB (default 1024)")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--junit", help="JUnit file of the suite run to compare with")
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("gpu_crosscheck: no GPU visible to torch", file=sys.stderr)
        return 2
    result = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "gemm_bf16_tflops": plain_matmul_tflops(torch, args.n, args.iters),
        "copy_d2d_gbps": plain_copy_gbps(torch, args.copy_mib << 20, args.iters),
        "method": f"perf_counter around {args.iters} calls after 3 warm-up, synchronize before and after; "
        f"GEMM {args.n}^3 bf16, copy {args.copy_mib} MiB read+write",
    }
    if args.junit:
        harness = junit_figures(args.junit)
        result["harness"] = {k: harness.get(k) for k in ("gemm_bf16_tflops", "copy_d2d_gbps")}
        result["ratio_harness_over_plain"] = {
            k: (harness[k] / result[k] if harness.get(k) else None) for k in ("gemm_bf16_tflops", "copy_d2d_gbps")
        }
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

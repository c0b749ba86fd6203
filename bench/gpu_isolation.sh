#!/usr/bin/env bash
# Isolation benchmark on a lent GPU machine (no network): install offline, run
# bench/isolation_overhead.py (GPU tests in-process vs in reusable sandboxes), then the sandbox
# tests on that machine's kernel. Everything lands in OUTDIR.
#   bash bench/gpu_isolation.sh "$OUT" [TESTS] [REPS]
set -uo pipefail
out=$1; tests=${2:-10}; reps=${3:-3}
mkdir -p "$out"
log="$out/log.txt"
{
  ls .whl/*.whl >/dev/null 2>&1 && python -m pip install -q --no-deps --no-build-isolation .whl/*.whl
  python -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
  nvidia-smi -L; nproc; uname -r
  python -c "import torch, pytest; print('torch', torch.__version__, 'pytest', pytest.__version__, torch.cuda.get_device_name())"
} >"$log" 2>&1
python bench/isolation_overhead.py --tests "$tests" --reps "$reps" --out "$out/isolation_overhead.json" \
  >"$out/isolation_overhead.txt" 2>&1
echo "bench exit $?" >>"$log"
timeout 240 python -m pytest tests/running/test_sandbox.py -q -p no:cacheprovider >"$out/test_sandbox.txt" 2>&1
echo "test_sandbox exit $?" >>"$log"
tail -c 5000 "$log"; cat "$out/isolation_overhead.txt" | tail -30; tail -5 "$out/test_sandbox.txt"

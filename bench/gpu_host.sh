#!/usr/bin/env bash
# What the plugin does to suites on a GPU host under pytest-xdist (issue 23): the README main
# job (MATRIX) serial, with -n 4 and with -n 16, then this project's own tests with -n 16 under
# a time limit. Wall times and counts in OUTDIR/log.txt, JUnit files beside it.
#   bash bench/gpu_host.sh matrices/h100.yaml "$OUT" [TESTS_LIMIT_S]
set -uo pipefail
matrix=$1; out=$2; tests_limit=${3:-240}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/log.txt"
{
  ls .whl/*.whl >/dev/null 2>&1 && python -m pip install -q --no-deps --no-build-isolation .whl/*.whl
  python -m pip install -q --no-deps --no-build-isolation -e .
  nvidia-smi -L; nproc; python --version
} >"$log" 2>&1
run() {  # $1: name, $2: limit (s), then the pytest arguments
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout "$limit" python -m pytest -q -p no:cacheprovider -rfE --junitxml="$out/$name.xml" "$@" >"$out/$name.out" 2>&1
  echo "$name: exit $? wall $((SECONDS - start)) s" >>"$log"
  grep -E "^(FAILED|ERROR) |passed|failed|rocmcompat: .* waits for GPU" "$out/$name.out" | tail -12 >>"$log"
  ls -d /tmp/rocmcompat-gpu-locks-* 2>/dev/null | sed 's/^/  lock dir left: /' >>"$log"
}
run main-serial 280 --rocm-matrix "$matrix"
run main-n4 280 --rocm-matrix "$matrix" -n 4
run main-n16 280 --rocm-matrix "$matrix" -n 16
run tests-n16 "$tests_limit" tests -n 16
cat "$log"

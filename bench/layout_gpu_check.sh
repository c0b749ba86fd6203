#!/usr/bin/env bash
# The layout change on a real host: the README main job (MATRIX) at the commit before the
# layout (a copy in .base/, carried to the device) and at this tree, serial, then this tree
# under -n WORKERS; bench/compare_junit.py checks the same test ids and outcomes.
#   bash bench/layout_gpu_check.sh matrices/h100.yaml "$OUT" 16
set -uo pipefail
matrix=$1; out=$2; workers=${3:-16}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/log.txt"
main_job() {  # $1: name, $2: folder to run in, then extra pytest arguments
  local name=$1 dir=$2; shift 2
  local start=$SECONDS
  (cd "$dir" && python -m pip install -q --no-deps --no-build-isolation -e . >>"$log" 2>&1 &&
    python -c "import pytest_rocmcompat; print('$name: package', pytest_rocmcompat.__file__)" >>"$log" &&
    timeout 280 python -m pytest --rocm-matrix "$matrix" -q -p no:cacheprovider -rfE \
      --junitxml="$out/$name.xml" "$@" >"$out/$name.out" 2>&1)
  echo "$name: pytest exit $? wall $((SECONDS - start)) s" >>"$log"
  tail -3 "$out/$name.out" >>"$log"
}
{
  ls .whl/*.whl >/dev/null 2>&1 && python -m pip install -q --no-deps --no-build-isolation .whl/*.whl
  nvidia-smi -L 2>/dev/null; nproc; python --version
} >"$log" 2>&1
main_job base .base
main_job head .
main_job "head-n$workers" . -n "$workers"
python bench/compare_junit.py "$out/base.xml" "$out/head.xml" "$out/head-n$workers.xml" >"$out/compare.txt" 2>&1
cat "$out/compare.txt" >>"$log"
tail -c 6000 "$log"

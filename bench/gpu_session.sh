#!/usr/bin/env bash
# One real-hardware session on a lent GPU machine (no network): install the package offline,
# record the probe, run the bundled suites against MATRIX, and cross-check the GPU suite's
# figures with plain timing loops. Everything lands in OUTDIR (at most 8 files).
#   bash bench/gpu_session.sh matrices/h100.yaml "$OUT" gpu preflight libs ppo
set -uo pipefail
matrix=$1; out=$2; shift 2
suites=("$@")
# NVLink multicast stays off on shared multi-GPU hosts (device KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
log="$out/log.txt"
{
  which python python3 pip; ls .whl/*.whl >/dev/null 2>&1 && python -m pip install -q --no-deps --no-build-isolation .whl/*.whl
  python -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
  nvidia-smi -L; nproc
  python -c "import torch; print('torch', torch.__version__, 'gpus', torch.cuda.device_count())"
  python -m pytest_rocmcompat probe --json > "$out/env.json" && python -m pytest_rocmcompat probe
} >"$log" 2>&1
paths=()
for s in "${suites[@]}"; do paths+=("suites/$s"); done
start=$SECONDS
python -m pytest --rocm-matrix "$matrix" "${paths[@]}" -p no:cacheprovider -rsfE --durations=25 \
  --junitxml="$out/junit.xml" --rocm-report "$out/COMPAT.md" >>"$log" 2>&1
echo "pytest exit $? wall $((SECONDS - start)) s" >>"$log"
if [[ " ${suites[*]} " == *" gpu "* ]]; then
  python bench/gpu_crosscheck.py "$out/crosscheck.json" --junit "$out/junit.xml" >>"$log" 2>&1
fi
tail -c 11000 "$log"

#!/usr/bin/env bash
# The plugin on a GPU host under pytest-xdist (issues 23 and 24). Parts (default: all, in this
# order; a lent machine's 600 s call limit fits two or three per call):
#   tests      this project's own tests with -n 16
#   main       the README main job (MATRIX) serially and with -n 4
#   nested     bench/gpu_nested.py: pytest -n 2 and serial pytest started from GPU and unmarked tests
#   isolation  bench/isolation_overhead.py: 10 fresh isolated GPU tests against in-process
#   timeline   bench/isolation_timeline.py: where 10 fresh isolated gpus(1) tests spend their time
#   isolated   the bundled GPU suite with every test isolated (--rocm-isolate all): how many forked
# Wall times and counts in OUTDIR/log.txt, JUnit and output files beside it.
#   bash bench/gpu_host.sh matrices/h100.yaml "$OUT" [PART ...]
set -uo pipefail
matrix=$1; out=$2; shift 2
parts=${*:-tests main nested isolation isolated}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/log.txt"
{
  ls .whl/*.whl >/dev/null 2>&1 && python -m pip install -q --no-deps --no-build-isolation .whl/*.whl
  python -m pip install -q --no-deps --no-build-isolation -e .
  nvidia-smi -L; nproc; python --version
} >>"$log" 2>&1
run() {  # $1: name, $2: limit (s), then the pytest arguments
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout "$limit" python -m pytest -q -p no:cacheprovider -rfE --junitxml="$out/$name.xml" "$@" >"$out/$name.out" 2>&1
  echo "$name: exit $? wall $((SECONDS - start)) s" >>"$log"
  grep -E "^(FAILED|ERROR|CRASHED|HANG) |passed|failed|rocmcompat isolation:|rocmcompat: .* waits for GPU" "$out/$name.out" | tail -12 >>"$log"
  find /tmp -maxdepth 1 -name 'rocmcompat-*' 2>/dev/null | sed 's/^/  left in \/tmp: /' >>"$log"
}
for part in $parts; do
  case $part in
    tests) run tests-n16 420 tests -n 16 ;;
    main) run main-serial 200 --rocm-matrix "$matrix"; run main-n4 200 --rocm-matrix "$matrix" -n 4 ;;
    nested)
      start=$SECONDS
      timeout 300 python bench/gpu_nested.py --out "$out/nested.json" >"$out/nested.out" 2>&1
      echo "nested: exit $? wall $((SECONDS - start)) s" >>"$log"; tail -c 600 "$out/nested.out" >>"$log" ;;
    isolation)
      start=$SECONDS
      timeout 520 python bench/isolation_overhead.py --tests 10 --reps 3 --out "$out/isolation_overhead.json" \
        >"$out/isolation_overhead.txt" 2>&1
      echo "isolation: exit $? wall $((SECONDS - start)) s" >>"$log"; tail -30 "$out/isolation_overhead.txt" >>"$log" ;;
    timeline)
      start=$SECONDS
      timeout 200 python bench/isolation_timeline.py --tests 10 --reps 3 --out "$out/isolation_timeline.json" \
        >"$out/isolation_timeline.txt" 2>&1
      echo "timeline: exit $? wall $((SECONDS - start)) s" >>"$log"; tail -30 "$out/isolation_timeline.txt" >>"$log" ;;
    isolated) run gpu-suite-isolated 300 suites/gpu --rocm-matrix "$matrix" --rocm-isolate all ;;
  esac
done
cat "$log"
